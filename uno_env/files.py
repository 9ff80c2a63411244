"""Files that come from a user: bounded reads, headers checked before decoding, one-line errors.

Every file the package reads on a user's behalf goes through this module: exported policies
(``.npz`` and their JSON sidecars, :mod:`uno_env.sim.learned`), SB3 checkpoints and their
sidecars (:mod:`agents.policy_agent`), torch snapshot files (``uno-env train --resume``),
rule files (:meth:`uno_env.engine.rules.RuleSet.from_toml`), study and tournament specs and
run records, and game records (:mod:`uno_env.game.records`). The same checks hold whichever entry
point loads a file (``agents.make``, ``simulate``, the tournament, the study, ``evaluate``,
``export``, ``train --resume``, ``replay``, ``play``), because they all call these functions.

**Bounded reads.** :func:`open_regular` opens a file without blocking (``O_NONBLOCK``, so a
FIFO with no writer does not hang), then refuses anything but a regular file (links are
followed: a link to ``/dev/zero`` is a character device) and any file larger than the limit
its kind states (:data:`TEXT_LIMIT` for rule files, specs, sidecars and records, ...),
before a byte is read; :func:`read_bytes` then reads at most the limit (a file that grows
meanwhile is refused too). A line-by-line reader (:func:`read_lines`) bounds each line.

**Headers before decoding.** JSON is checked for nesting depth before it is parsed
(:data:`JSON_DEPTH`), while parsing for a key given twice in one object (:func:`unique_keys`:
Python's reader would keep the last value without a word, TOML's refuses it), and after
parsing for integers too long, numbers that are not finite and strings too long, naming the
field (``architecture.inputs``). TOML is parsed with its
recursion and integer failures caught. A zip archive's directory is checked before any
member is inflated (:func:`check_zip`: member count, each member's declared size and
compression ratio, the total); an ``.npz`` member's ``.npy`` header (dtype, shape, order,
header length) is read and compared with what the caller expects before its data are read
(:func:`read_npz`), and the data are read into an array of exactly that size. So a small
file cannot make the package allocate more than the largest legal file of its kind needs.

**One-line errors.** Every refusal is one line: ``<what> <path>: <field> <what was found>;
allowed: <what is allowed>``, raised as the caller's error class (``error=``, a
:class:`ValueError` subclass such as :class:`uno_env.engine.rules.RuleError` or
:class:`uno_env.sim.learned.PolicyFileError`; :class:`FileError` by default), never with a
traceback of the parser underneath.

This module imports nothing from the package (numpy and the standard library only), so
every layer may use it.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import re
import stat
import tomllib
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

KiB = 1 << 10
MiB = 1 << 20
GiB = 1 << 30

TEXT_LIMIT = 1 * MiB
"""Largest rule file, spec, sidecar or run record (JSON or TOML) read."""
RESULT_LIMIT = 256 * MiB
"""Largest result file of a batch task (a study's, sweep's, atlas's or transfer run's
``batches/*.json``): it keeps counts per deal, about 100 bytes a deal, and a batch may hold
up to a million games (:data:`training.runner.MAX_BATCH_GAMES`)."""
LOG_LIMIT = 256 * MiB
"""Largest CSV log of a run folder (``progress.csv``, ``eval.csv``) read back on resume."""
RECORD_FILE_LIMIT = 1 * GiB
"""Largest game-record file (JSON Lines) read; it is read line by line."""
RECORD_LINE_LIMIT = 16 * MiB
"""Longest line of a game-record file (one game)."""
JSON_DEPTH = 64
"""Deepest nesting of arrays and objects accepted in JSON (and TOML) files."""
NUMBER_DIGITS = 100
"""Most digits of an integer in a JSON or TOML file (Python refuses more than 4,300 anyway)."""
STRING_LIMIT = 1 * MiB
"""Longest string value in a JSON file (the file limit bounds it too)."""
NPY_HEADER_LIMIT = 10_000
"""Longest ``.npy`` header read (NumPy's own default limit)."""


class FileError(ValueError):
    """A file from a user that cannot be used; the message is one line naming the file, the
    field, what was found and what is allowed."""


class MissingFileError(FileError, FileNotFoundError):
    """A file that does not exist (also a :class:`FileNotFoundError`)."""


_MISSING: dict[type[ValueError], type[ValueError]] = {FileError: MissingFileError}


def missing_error(error: type[ValueError]) -> type[ValueError]:
    """The class of a missing file's error for readers that raise ``error``: a subclass of
    ``error`` and of :class:`MissingFileError` (so of :class:`FileNotFoundError` too)."""
    if issubclass(error, MissingFileError):
        return error
    if error not in _MISSING:
        _MISSING[error] = type(
            f"Missing{error.__name__}", (error, MissingFileError), {"__module__": error.__module__}
        )
    return _MISSING[error]


def describe(value: Any, limit: int = 200) -> str:
    """``repr(value)`` cut to ``limit`` characters, so a huge value is never echoed whole."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[: limit - 20]}... ({len(text):,} characters)"


def refuse(
    source: str, field: str, found: str, allowed: str, error: type[ValueError] = FileError
) -> ValueError:
    """The one-line error ``<source>: <field> <found>; allowed: <allowed>`` as ``error``
    (``refuse("rule file r.toml", "hand_size", "is 'seven'", "an integer 1..20")``)."""
    message = f"{source}: {field} {found}; allowed: {allowed}"
    return error(" ".join(message.split()))


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(
    path: str | Path, limit: int, what: str, *, error: type[ValueError] = FileError
) -> IO[bytes]:
    """Open ``path`` for reading once it is known to be a regular file of at most ``limit`` bytes.

    ``what`` names the kind of file in messages (``"rule file"``). The file is opened without
    blocking and checked on the open descriptor (no race between the check and the read):
    a missing file raises :class:`MissingFileError`; a directory, FIFO, device or socket
    (also through a link) and a file over ``limit`` raise ``error``.
    """
    source = f"{what} {path}"
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise missing_error(error)(f"{source}: the file does not exist") from None
    except IsADirectoryError:
        raise refuse(source, "the file", "is a directory", "a regular file", error) from None
    except OSError as exc:
        raise refuse(
            source, "the file", f"cannot be opened ({exc.strerror or exc})", "a readable file", error
        ) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise refuse(source, "the file", f"is {_kind(info.st_mode)}", "a regular file", error)
        if info.st_size > limit:
            raise refuse(
                source, "the file", f"holds {info.st_size:,} bytes", f"at most {limit:,} bytes", error
            )
        if hasattr(os, "O_NONBLOCK"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def sha256_update(digest: Any, handle: IO[bytes]) -> None:
    """Feed the rest of ``handle`` into ``digest`` (a :mod:`hashlib` object), 1 MiB at a time."""
    for block in iter(lambda: handle.read(1 << 20), b""):
        digest.update(block)


def file_sha256(path: str | Path, limit: int, what: str, *, error: type[ValueError] = FileError) -> str:
    """SHA-256 (hex) of a regular file of at most ``limit`` bytes, read through :func:`open_regular`."""
    digest = hashlib.sha256()
    with open_regular(path, limit, what, error=error) as handle:
        sha256_update(digest, handle)
    return digest.hexdigest()


def read_bytes(path: str | Path, limit: int, what: str, *, error: type[ValueError] = FileError) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (:func:`open_regular`)."""
    with open_regular(path, limit, what, error=error) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise refuse(
                f"{what} {path}",
                "the file",
                f"cannot be read ({exc.strerror or exc})",
                "a readable file",
                error,
            ) from None
    if len(data) > limit:
        raise refuse(
            f"{what} {path}", "the file", "grew while it was read", f"at most {limit:,} bytes", error
        )
    return data


def decode_text(data: bytes, source: str, *, error: type[ValueError] = FileError) -> str:
    """``data`` as UTF-8 text (a leading byte-order mark is dropped), or a one-line error."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise refuse(
            source, "the file", f"is not UTF-8 text (byte {exc.start:,}: {exc.reason})", "UTF-8 text", error
        ) from None
    return text.removeprefix("\ufeff")


def read_text(
    path: str | Path, what: str, limit: int = TEXT_LIMIT, *, error: type[ValueError] = FileError
) -> str:
    """A UTF-8 text file of at most ``limit`` bytes."""
    return decode_text(read_bytes(path, limit, what, error=error), f"{what} {path}", error=error)


def read_lines(
    path: str | Path,
    what: str,
    *,
    limit: int = RECORD_FILE_LIMIT,
    line_limit: int = RECORD_LINE_LIMIT,
    error: type[ValueError] = FileError,
) -> Iterator[tuple[int, bytes]]:
    """The lines of a regular file of at most ``limit`` bytes, numbered from 1, each read with at
    most ``line_limit`` bytes (a longer line is refused, naming its number)."""
    with open_regular(path, limit, what, error=error) as handle:
        total = 0
        for number in range(1, limit + 2):
            line = handle.readline(line_limit + 1)
            if not line:
                return
            total += len(line)
            if len(line) > line_limit:
                raise refuse(
                    f"{what} {path}",
                    f"line {number:,}",
                    f"is longer than {line_limit:,} bytes",
                    f"lines of at most {line_limit:,} bytes",
                    error,
                )
            if total > limit:
                raise refuse(
                    f"{what} {path}", "the file", "grew while it was read", f"at most {limit:,} bytes", error
                )
            yield number, line


def read_csv(
    path: str | Path, what: str, limit: int = LOG_LIMIT, *, error: type[ValueError] = FileError
) -> list[list[str]]:
    """The rows of a CSV file of at most ``limit`` bytes (undecodable bytes replaced, as logs
    cut by a kill may end mid-character), or a one-line error."""
    text = read_bytes(path, limit, what, error=error).decode("utf-8", errors="replace")
    try:
        return list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise refuse(
            f"{what} {path}", "the file", f"is not CSV ({describe(str(exc), 100)})", "CSV text", error
        ) from None


# ================================================================ JSON
# a JSON string (possessive: the scan keeps no backtracking state, so a long string costs no
# memory); an unterminated one runs to the end
_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"?', re.DOTALL)
_DEPTH_CHUNK = 1 << 16


def nesting_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` in JSON text (strings skipped; not a validator).

    Linear in the text and in bounded memory, whatever its shape: the brackets are counted
    with NumPy, a chunk at a time.
    """
    data = np.frombuffer(_STRING.sub("", text).encode("utf-8", errors="ignore"), dtype=np.uint8)
    depth = deepest = 0
    for start in range(0, len(data), _DEPTH_CHUNK):
        chunk = data[start : start + _DEPTH_CHUNK]
        steps = (chunk == 91).astype(np.int32) + (chunk == 123) - (chunk == 93) - (chunk == 125)
        levels = np.cumsum(steps) + depth
        if levels.size:
            deepest = max(deepest, int(levels.max()))
            depth = int(levels[-1])
    return deepest


_TOO_LONG = 10**NUMBER_DIGITS

_LONG_DIGITS = re.compile(rf"(?<![0-9])[0-9]{{{NUMBER_DIGITS + 1},}}")
"""A run of more digits than an integer may have: a document without one holds no integer
:func:`check_values` could refuse (the digits of a float's fraction or of a string match too,
and only send such a document down the slower exact path). A match may only start where a run
starts, so a text of many shorter runs is scanned once, not once per digit."""


class _LongInteger(str):
    """A JSON integer literal of more than :data:`NUMBER_DIGITS` digits (reported by field)."""


class _NotFinite(str):
    """A JSON number that is not finite (``1e400``, ``NaN``, ``Infinity``)."""


def _parse_int(text: str) -> int | _LongInteger:
    return _LongInteger(text) if len(text.lstrip("-")) > NUMBER_DIGITS else int(text)


def _parse_float(text: str) -> float | _NotFinite:
    value = float(text)
    return value if math.isfinite(value) else _NotFinite(text)


def _field_name(path: tuple[str | int, ...]) -> str:
    if not path:
        return "the document"
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def check_values(
    data: Any, source: str, *, finite: bool = False, error: type[ValueError] = FileError
) -> None:
    """Refuse integers too long and strings too long anywhere in ``data`` (parsed JSON or
    TOML), and with ``finite`` numbers that are not finite, naming the field where the first
    one is. (Without ``finite``, ``NaN`` and infinities are floats, as Python's own JSON
    writer writes them: the caller checks its numeric fields' types and ranges.)"""
    pending: list[tuple[tuple[str | int, ...], Any]] = [((), data)]
    while pending:
        path, value = pending.pop()
        if isinstance(value, _LongInteger) or (
            isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _TOO_LONG
        ):
            digits = len(value.lstrip("-")) if isinstance(value, str) else len(str(abs(value)))
            raise refuse(
                source,
                _field_name(path),
                f"is an integer of {digits:,} digits",
                f"integers of at most {NUMBER_DIGITS} digits",
                error,
            )
        if finite and (
            isinstance(value, _NotFinite) or (isinstance(value, float) and not math.isfinite(value))
        ):
            raise refuse(
                source,
                _field_name(path),
                f"is {describe(str(value))} (not a finite number)",
                "finite numbers",
                error,
            )
        if isinstance(value, str) and len(value) > STRING_LIMIT:
            raise refuse(
                source,
                _field_name(path),
                f"is a string of {len(value):,} characters",
                f"strings of at most {STRING_LIMIT:,} characters",
                error,
            )
        if isinstance(value, dict):
            pending.extend(((*path, str(key)), item) for key, item in value.items())
        elif isinstance(value, list) and not _plain_numbers(value, finite):
            pending.extend(((*path, k), item) for k, item in enumerate(value))


def _plain_numbers(items: list[Any], finite: bool) -> bool:
    """Whether ``items`` are all integers (not booleans) of at most :data:`NUMBER_DIGITS`
    digits, or all floats (finite ones, with ``finite``): nothing :func:`check_values` refuses.

    Checked with loops that run in C: a result file holds lists of hundreds of thousands of
    numbers, and one path tuple per element made the check cost ten times the parse.
    """
    kinds = set(map(type, items))
    if kinds == {int}:
        return min(items) > -_TOO_LONG and max(items) < _TOO_LONG
    if kinds == {float}:
        return not finite or all(map(math.isfinite, items))
    return False


class DuplicateKeyError(ValueError):
    """A JSON object that gives one key twice (raised by :func:`unique_keys` while parsing)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the key {describe(key, 80)} appears twice in one object")
        self.key = key


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s ``object_pairs_hook`` for text from elsewhere: the object of ``pairs``,
    or :class:`DuplicateKeyError` when a key appears twice (``{"seed": 5, ..., "seed": 0}``:
    Python's reader keeps the last value, other readers the first, so the two would read two
    different files)."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return data


DUPLICATE_ALLOWED = "each key at most once in an object"
"""What a refusal of a key given twice says is allowed."""


def parse_json(
    text: str,
    source: str,
    *,
    depth: int = JSON_DEPTH,
    finite: bool = False,
    error: type[ValueError] = FileError,
) -> Any:
    """JSON text as Python values, with nesting, numbers and strings checked (one-line errors).

    ``source`` names the file in messages (``"policy sidecar p.json"``). ``finite`` also
    refuses ``NaN``, ``Infinity`` and numbers too large for a float (``1e400``), naming the
    field; without it they are floats (``1e400`` is ``inf``), for the caller's own checks. A
    key given twice in one object is refused (:func:`unique_keys`).
    """
    deepest = nesting_depth(text)
    if deepest > depth:
        raise refuse(
            source,
            "the document",
            f"nests arrays and objects {deepest:,} deep",
            f"at most {depth} levels",
            error,
        )
    try:
        if finite:
            data = json.loads(
                text,
                parse_int=_parse_int,
                parse_float=_parse_float,
                parse_constant=_NotFinite,
                object_pairs_hook=unique_keys,
            )
        else:
            # the hook is a Python call per integer literal; without a long digit run there is
            # no integer for it to mark, and the parse stays in C
            data = json.loads(
                text,
                parse_int=_parse_int if _LONG_DIGITS.search(text) else None,
                object_pairs_hook=unique_keys,
            )
    except DuplicateKeyError as exc:
        found = f"gives the key {describe(exc.key, 80)} twice in one object"
        raise refuse(source, "the document", found, DUPLICATE_ALLOWED, error) from None
    except json.JSONDecodeError as exc:
        raise refuse(
            source,
            "the document",
            f"is not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})",
            "JSON text",
            error,
        ) from None
    except (ValueError, RecursionError) as exc:
        raise refuse(
            source, "the document", f"is not JSON ({describe(str(exc), 120)})", "JSON text", error
        ) from None
    check_values(data, source, finite=finite, error=error)
    return data


def finite_json(value: Any) -> Any:
    """``value`` with every float that is not finite (an interval's ``inf`` end where the games
    bound nothing, a ``NaN`` of an empty cell) replaced by ``None``, recursively through dicts,
    lists and tuples: strict JSON has no ``Infinity`` or ``NaN`` (JavaScript's ``JSON.parse``
    and :func:`parse_json` refuse them), so result files write ``null`` there."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(item) for item in value]
    return value


def json_text(value: Any, *, indent: int | None = None, sort_keys: bool = False) -> str:
    """``value`` as strict JSON text (:func:`finite_json`: ``null`` for a float that is not
    finite), the writer of every result file a user or another program reads."""
    return json.dumps(finite_json(value), indent=indent, sort_keys=sort_keys, allow_nan=False)


def read_json(
    path: str | Path,
    what: str,
    limit: int = TEXT_LIMIT,
    *,
    depth: int = JSON_DEPTH,
    finite: bool = False,
    error: type[ValueError] = FileError,
) -> Any:
    """A JSON file of at most ``limit`` bytes (:func:`read_text`, :func:`parse_json`)."""
    text = read_text(path, what, limit, error=error)
    return parse_json(text, f"{what} {path}", depth=depth, finite=finite, error=error)


def read_json_object(
    path: str | Path, what: str, limit: int = TEXT_LIMIT, *, error: type[ValueError] = FileError
) -> dict[str, Any]:
    """:func:`read_json` of a file that must hold a JSON object."""
    data = read_json(path, what, limit, error=error)
    if not isinstance(data, dict):
        raise refuse(
            f"{what} {path}", "the document", f"is a JSON {_json_type(data)}", "a JSON object", error
        )
    return data


def _json_type(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


# ================================================================ TOML
_LONG_DIGITS = re.compile(rf"[0-9_]{{{NUMBER_DIGITS + 1},}}")


def _long_number_at(text: str) -> tuple[str, str]:
    """Where the first run of more than :data:`NUMBER_DIGITS` digits of ``text`` is (``line N
    (key)``) and what it is."""
    found = _LONG_DIGITS.search(text)
    if found is None:
        return "the document", "holds an integer Python cannot read"
    line_start = text.rfind("\n", 0, found.start()) + 1
    key = text[line_start : found.start()].split("=")[0].strip()
    number = text.count("\n", 0, found.start()) + 1
    where = f"line {number}" + (f" ({describe(key, 40)})" if key else "")
    return where, f"holds an integer of {len(found.group()):,} digits"


def parse_toml(text: str, source: str, *, error: type[ValueError] = FileError) -> dict[str, Any]:
    """TOML text as a dict, with nesting, integers and values checked (one-line errors)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise refuse(source, "the document", f"is not TOML ({exc})", "TOML text", error) from None
    except RecursionError:  # tomllib recurses once per nesting level of arrays and inline tables
        raise refuse(
            source,
            "the document",
            "nests arrays or tables too deeply to read",
            f"at most {JSON_DEPTH} levels",
            error,
        ) from None
    except ValueError:  # Python's int() refuses more than 4,300 digits
        where, found = _long_number_at(text)
        raise refuse(source, where, found, f"integers of at most {NUMBER_DIGITS} digits", error) from None
    deepest = _depth_of(data)
    if deepest > JSON_DEPTH:
        raise refuse(
            source,
            "the document",
            f"nests tables and arrays {deepest:,} deep",
            f"at most {JSON_DEPTH} levels",
            error,
        )
    check_values(data, source, error=error)
    return data


def _depth_of(data: Any) -> int:
    deepest = 0
    pending: list[tuple[int, Any]] = [(0, data)]
    while pending:
        level, value = pending.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, level + 1)
            items = value.values() if isinstance(value, dict) else value
            pending.extend((level + 1, item) for item in items)
    return deepest


def read_toml(
    path: str | Path, what: str, limit: int = TEXT_LIMIT, *, error: type[ValueError] = FileError
) -> dict[str, Any]:
    """A TOML file of at most ``limit`` bytes (:func:`read_text`, :func:`parse_toml`)."""
    return parse_toml(read_text(path, what, limit, error=error), f"{what} {path}", error=error)


# ================================================================ zip archives and .npz files
@dataclass(frozen=True)
class ZipLimits:
    """What a zip archive of one kind may hold, checked from its directory before inflating."""

    members: int
    """Most members."""
    member_bytes: int
    """Largest inflated member."""
    total_bytes: int
    """Largest inflated total."""
    ratio: float = 200.0
    """Largest inflated-to-stored ratio of a member over :attr:`ratio_from` bytes (a zip bomb
    reaches 1,000 and more; weights and pickles of weights reach about 1.2)."""
    ratio_from: int = 1 * MiB


def check_zip(
    archive: zipfile.ZipFile, source: str, limits: ZipLimits, *, error: type[ValueError] = FileError
) -> list[zipfile.ZipInfo]:
    """The members of ``archive`` once its directory is within ``limits``: count, unique names,
    no encryption, stored or deflated, each member's inflated size and ratio, the total."""
    members = archive.infolist()
    if len(members) > limits.members:
        raise refuse(
            source, "the archive", f"holds {len(members):,} members", f"at most {limits.members:,}", error
        )
    names = [info.filename for info in members]
    if len(set(names)) != len(names):
        twice = sorted({name for name in names if names.count(name) > 1})
        raise refuse(source, "the archive", f"names {describe(twice[0])} twice", "each member once", error)
    total = 0
    for info in members:
        where = f"member {describe(info.filename)}"
        if info.flag_bits & 0x1:
            raise refuse(source, where, "is encrypted", "plain members", error)
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise refuse(
                source,
                where,
                f"uses compression method {info.compress_type}",
                "stored or deflated members",
                error,
            )
        if info.file_size > limits.member_bytes:
            raise refuse(
                source,
                where,
                f"inflates to {info.file_size:,} bytes",
                f"at most {limits.member_bytes:,} bytes",
                error,
            )
        if info.file_size > limits.ratio_from and info.file_size > limits.ratio * max(info.compress_size, 1):
            ratio = info.file_size / max(info.compress_size, 1)
            raise refuse(
                source,
                where,
                f"inflates {ratio:,.0f} times ({info.compress_size:,} to {info.file_size:,} bytes)",
                f"at most {limits.ratio:,.0f} times",
                error,
            )
        total += info.file_size
    if total > limits.total_bytes:
        raise refuse(
            source,
            "the archive",
            f"inflates to {total:,} bytes in all",
            f"at most {limits.total_bytes:,} bytes",
            error,
        )
    return members


def open_zip(handle: IO[bytes], source: str, *, error: type[ValueError] = FileError) -> zipfile.ZipFile:
    """``handle`` as a zip archive, or a one-line error."""
    try:
        return zipfile.ZipFile(handle)
    except Exception as exc:  # zipfile raises several types for a damaged directory
        raise refuse(
            source, "the file", f"is not a zip archive ({describe(str(exc), 80)})", "a zip archive", error
        ) from None


def check_zip_file(
    path: str | Path, what: str, limit: int, limits: ZipLimits, *, error: type[ValueError] = FileError
) -> list[zipfile.ZipInfo]:
    """A regular file of at most ``limit`` bytes that is a zip archive within ``limits``
    (:func:`open_regular`, :func:`check_zip`); its members. Nothing is inflated."""
    source = f"{what} {path}"
    with (
        open_regular(path, limit, what, error=error) as handle,
        open_zip(handle, source, error=error) as archive,
    ):
        return check_zip(archive, source, limits, error=error)


@dataclass(frozen=True)
class ArraySpec:
    """What one array of an ``.npz`` file must be: its dtype (byte order aside) and shape.

    A ``None`` in ``shape`` is a dimension of any length; such an array needs ``max_bytes``,
    the most data it may hold.
    """

    dtype: str
    """A NumPy dtype string such as ``"float32"``, ``"int64"`` or ``"<U64"``."""
    shape: tuple[int | None, ...]
    max_bytes: int | None = None

    def __post_init__(self) -> None:
        if None in self.shape and self.max_bytes is None:
            raise ValueError(f"an array of shape {self.shape} needs max_bytes")

    def largest(self) -> int:
        """The most bytes of data the array may hold."""
        if self.max_bytes is not None:
            return self.max_bytes
        return math.prod(d for d in self.shape if d is not None) * np.dtype(self.dtype).itemsize

    def fits(self, shape: tuple[int, ...]) -> bool:
        """Whether ``shape`` is one this spec allows."""
        if len(shape) != len(self.shape):
            return False
        return all(w is None or w == d for w, d in zip(self.shape, shape, strict=True))


def _read_npy(
    member: IO[bytes], expected: ArraySpec, size: int, source: str, name: str, error: type[ValueError]
) -> np.ndarray:
    """One ``.npy`` member: its header checked against ``expected`` before its data are read."""
    fmt = np.lib.format
    where = f"array {describe(name)}"
    try:
        version = fmt.read_magic(member)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(member, max_header_size=NPY_HEADER_LIMIT)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(member, max_header_size=NPY_HEADER_LIMIT)
        else:
            raise refuse(
                source, where, f"has .npy format version {version}", ".npy versions 1.0 and 2.0", error
            )
    except Exception as exc:  # numpy's header reader raises several types for a damaged header
        if isinstance(exc, error) and str(exc).startswith(source):
            raise
        raise refuse(
            source,
            where,
            f"has no readable .npy header ({describe(str(exc), 100)})",
            f"a plain .npy array of {expected.dtype} {expected.shape}",
            error,
        ) from None
    wanted = np.dtype(expected.dtype)
    if dtype.hasobject or dtype.newbyteorder("=") != wanted.newbyteorder("="):
        raise refuse(
            source, where, f"holds {describe(str(dtype))}", f"{wanted} (no objects, no pickles)", error
        )
    allowed_shape = "(" + ", ".join("any" if d is None else str(d) for d in expected.shape) + ")"
    if not expected.fits(tuple(shape)):
        raise refuse(
            source, where, f"has shape {describe(tuple(shape), 80)}", f"shape {allowed_shape}", error
        )
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > expected.largest():
        found = f"holds {nbytes:,} bytes of data"
        raise refuse(source, where, found, f"at most {expected.largest():,} bytes", error)
    header = member.tell()
    if size != header + nbytes:
        raise refuse(
            source,
            where,
            f"holds {size - header:,} bytes of data",
            f"exactly {nbytes:,} bytes for {dtype} {tuple(shape)}",
            error,
        )
    buffer = bytearray(nbytes)
    view = memoryview(buffer)
    got = 0
    while got < nbytes:
        count = member.readinto(view[got:])  # type: ignore[attr-defined]
        if not count:
            break
        got += count
    if got != nbytes:
        raise refuse(
            source, where, f"ends after {got:,} of {nbytes:,} bytes of data", "a complete array", error
        )
    array = np.frombuffer(buffer, dtype=dtype)
    if not dtype.isnative:
        array = array.byteswap().view(dtype.newbyteorder("="))
    array = array.reshape(shape, order="F" if fortran else "C")
    return array if array.flags.c_contiguous else array.copy(order="C")


def npz_arrays(
    handle: IO[bytes],
    source: str,
    arrays: Mapping[str, ArraySpec],
    *,
    optional: frozenset[str] = frozenset(),
    error: type[ValueError] = FileError,
) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` archive open in ``handle``, each of exactly the dtype and
    shape ``arrays`` gives (``source`` names the file in messages).

    The archive must hold exactly the members ``NAME.npy`` for each name of ``arrays``
    (those in ``optional`` may be missing); each member's declared size must be its header
    plus the data of its expected shape, and its ``.npy`` header (format, dtype, shape) is
    checked before its data are read into an array of that size. No pickle is ever read:
    object dtypes are refused from the header.
    """
    sizes = [spec.largest() + NPY_HEADER_LIMIT + 16 for spec in arrays.values()]
    limits = ZipLimits(
        members=len(arrays),
        member_bytes=max(sizes, default=0),
        total_bytes=sum(sizes),
        ratio=float("inf"),  # the exact sizes below bound every member
    )
    out: dict[str, np.ndarray] = {}
    with open_zip(handle, source, error=error) as archive:
        members = check_zip(archive, source, limits, error=error)
        found = {info.filename.removesuffix(".npy"): info for info in members}
        missing = sorted(set(arrays) - set(found) - optional)
        extra = sorted(set(found) - set(arrays))
        if missing or extra or any(not info.filename.endswith(".npy") for info in members):
            listed = sorted(info.filename for info in members)
            raise refuse(
                source,
                "the archive",
                f"holds {describe(listed, 200)}",
                f"the arrays {sorted(arrays)} as NAME.npy",
                error,
            )
        for name, info in found.items():
            try:
                with archive.open(info) as member:
                    out[name] = _read_npy(member, arrays[name], info.file_size, source, name, error)
            except Exception as exc:  # a damaged stream: zlib.error, BadZipFile (checksum), EOFError, ...
                if isinstance(exc, error) and str(exc).startswith(source):
                    raise
                raise refuse(
                    source,
                    f"array {describe(name)}",
                    f"cannot be inflated ({describe(str(exc), 100)})",
                    "an intact archive",
                    error,
                ) from None
    return out


def read_npz(
    path: str | Path,
    what: str,
    arrays: Mapping[str, ArraySpec],
    limit: int,
    *,
    optional: frozenset[str] = frozenset(),
    error: type[ValueError] = FileError,
) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` file: a regular file of at most ``limit`` bytes
    (:func:`open_regular`) read by :func:`npz_arrays`."""
    with open_regular(path, limit, what, error=error) as handle:
        return npz_arrays(handle, f"{what} {path}", arrays, optional=optional, error=error)
