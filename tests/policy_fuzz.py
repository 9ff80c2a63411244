"""Fuzzing exported-policy files: hostile and broken files must be refused in one line, or play.

Every case is a policy file pair (``p.npz`` + ``p.json``) made from a valid base policy
(several rule sets, deck families, player counts and layer widths) with one to three
hostile edits, reproducible from ``(seed, index)``:

- **sidecar** edits: a field set to a hostile value (wrong counts such as ``actions=1``,
  ``inputs`` one off, huge, negative, not finite, ``1e400``, thousands of digits, strings,
  booleans, lists, deep nesting), a field dropped or added, the document replaced, its text
  cut or damaged, invalid UTF-8, a file over the size limit;
- **array** edits (the sidecar's digest updated, so the checks behind the digest are
  reached): an array of another shape, dtype (float64, object, big-endian), order or count,
  a matching sidecar that lies about the game (*wrong counts*), values not finite, an
  ``.npy`` header declaring a huge shape or of a huge length, another format version,
  data cut short or padded, members compressed, renamed, duplicated or added, a zip bomb
  (declaring its size, or lying about it), damaged bytes, not a zip at all;
- **special files**: the weights or the sidecar a FIFO, a link to ``/dev/zero`` or
  ``/dev/null``, a directory, a dangling link, missing.

:func:`run_case` is the oracle: :func:`uno_env.sim.learned.load_exported` and
:func:`agents.make` must agree, and either refuse the file with one
:class:`~uno_env.sim.learned.PolicyFileError` line naming it, or accept it; an accepted policy
must fit its game (``check_game``) and play games in the compiled simulator with the engine
invariants checked. Any other exception, a message of more than one line, a crash or a
hang is a failure. Memory: the peak of Python and NumPy allocations while a file loads
(``tracemalloc``) must stay within :func:`memory_bound` (twice what the largest legal file
of the campaign needs decoded, sidecar included). :class:`Worker` runs cases in a child
process with a timeout per case.

The campaign of the README's reliability section::

    nice -n 10 python -m tests.policy_fuzz --cases 20000 --seed 29
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import os
import random
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tests.policy_files import (
    npy_header,
    npz_member,
    policy_arrays,
    read_sidecar,
    redigest,
    set_declared_size,
    sidecar,
    write_policy,
    write_sidecar,
    write_zip,
)
from uno_env import files
from uno_env.sim.learned import SIDECAR_LIMIT, PolicyFileError, load_exported

BASES: tuple[tuple[str, str, tuple[int, ...], int | None], ...] = (
    ("uno_2p", "uno", (16,), 2),
    ("uno_4p", "uno", (8, 8), 4),
    ("house_3p", "uno_house", (12,), 3),
    ("mario_any", "uno_mario", (8,), None),
    ("mau_mau_4p", "mau_mau", (8, 4), 4),
    ("macao_4p", "macao", (16,), 4),
)
"""Base policies: name, rules, hidden widths, player count (None: any)."""

GAMES = 2  # games played by each accepted policy


# ---------------------------------------------------------------- base policies
def make_bases(folder: Path, seed: int = 0) -> dict[str, Path]:
    """Write the base policies into ``folder``; return their ``.npz`` paths by name."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for k, (name, rules, hidden, players) in enumerate(BASES):
        path = write_policy(folder, name, rules=rules, hidden=hidden, seed=seed * 100 + k)
        meta = read_sidecar(path)
        meta["num_players"] = players
        write_sidecar(path, meta)
        out[name] = path
    return out


def decoded_size(path: Path) -> int:
    """Bytes a policy's arrays take decoded (the sum of the float32 arrays)."""
    with np.load(path) as data:
        return sum(data[k].nbytes for k in data.files)


def memory_bound(bases: dict[str, Path]) -> int:
    """The campaign's memory bound for one load: twice the largest legal file's decoded size,
    counting a sidecar at its size limit (:data:`uno_env.sim.learned.SIDECAR_LIMIT`) read as text."""
    largest = max(decoded_size(path) for path in bases.values())
    return 2 * (largest + 4 * SIDECAR_LIMIT)


# ---------------------------------------------------------------- hostile values
def hostile_values(rng: random.Random, true_value: Any) -> Any:
    """A value for a sidecar field: near the true one, extreme, of another type, or deep."""
    numbers: list[Any] = [0, -1, 1, 2, 10, 255, 2**31, 2**63, -(2**63), 10**30, 0.5, -0.0]
    if isinstance(true_value, int) and not isinstance(true_value, bool):
        numbers += [true_value - 1, true_value + 1, true_value * 2, float(true_value), str(true_value)]
    choices: list[Callable[[], Any]] = [
        lambda: rng.choice(numbers),
        lambda: rng.choice(["", "two", "x" * rng.randint(1, 300), "\u0663", "obs-v1", "v0", "mlp", "relu"]),
        lambda: rng.choice([True, False, None]),
        lambda: [rng.choice(numbers) for _ in range(rng.randint(0, 9))],
        lambda: {"inputs": rng.choice(numbers)},
        lambda: _nested(rng.randint(2, 80)),
    ]
    return rng.choice(choices)()


def _nested(depth: int) -> Any:
    value: Any = 1
    for k in range(depth):
        value = [value] if k % 2 else {"a": value}
    return value


FIELDS = (
    "format", "rules", "observation_spec", "env_version", "num_players", "name", "weights_sha256",
    "architecture", "architecture.inputs", "architecture.actions", "architecture.hidden",
    "architecture.hidden.0", "architecture.activation", "architecture.kind", "training",
)  # fmt: skip


def _set_field(meta: dict[str, Any], field: str, value: Any, delete: bool = False) -> None:
    parts = field.split(".")
    target: Any = meta
    for part in parts[:-1]:
        target = target.get(part) if isinstance(target, dict) else None
        if target is None:
            return
        if isinstance(target, list):
            return
    last = parts[-1]
    if isinstance(target, dict):
        if delete:
            target.pop(last, None)
        else:
            target[last] = value
    elif isinstance(target, list) and last.isdigit() and int(last) < len(target):
        target[int(last)] = value


def _get_field(meta: dict[str, Any], field: str) -> Any:
    target: Any = meta
    for part in field.split("."):
        if isinstance(target, dict):
            target = target.get(part)
        elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
            target = target[int(part)]
        else:
            return None
    return target


# ---------------------------------------------------------------- sidecar edits
def edit_sidecar(path: Path, rng: random.Random) -> str:
    """One hostile edit of ``path``'s sidecar (as a value, or as text); what it did."""
    side = path.with_suffix(".json")
    meta = read_sidecar(path)
    kind = rng.random()
    if kind < 0.45:
        field = rng.choice(FIELDS)
        value = hostile_values(rng, _get_field(meta, field))
        _set_field(meta, field, value)
        write_sidecar(path, meta)
        return f"sidecar {field}={files.describe(value, 40)}"
    if kind < 0.55:
        field = rng.choice(FIELDS)
        _set_field(meta, field, None, delete=True)
        write_sidecar(path, meta)
        return f"sidecar without {field}"
    if kind < 0.60:
        meta[rng.choice(["extra", "architecture2", "", "\u0000"])] = hostile_values(rng, None)
        write_sidecar(path, meta)
        return "sidecar with an extra field"
    if kind < 0.64:
        write_sidecar(path, rng.choice([[], 0, "text", None, [meta]]))
        return "sidecar not an object"
    text = side.read_text(encoding="utf-8")
    if kind < 0.72:  # raw text the JSON writer would never produce
        field = rng.choice(["inputs", "actions", "num_players"])
        raw = rng.choice(
            [
                "1e400",
                "-1e400",
                "NaN",
                "Infinity",
                "7" * rng.choice([101, 4301, 5000, 20000]),
                "0x10",
                "1_0",
                "+5",
            ]
        )
        old = f'"{field}": '
        at = text.find(old)
        if at >= 0:
            end = at + len(old)
            while end < len(text) and text[end] not in ",}":
                end += 1
            text = text[: at + len(old)] + raw + text[end:]
        side.write_text(text, encoding="utf-8")
        return f"sidecar {field} written as {raw[:12]}"
    if kind < 0.78:  # nesting too deep for a recursive parser
        depth = rng.choice([65, 1000, 100_000])
        text = text[:-2] + f', "deep": {"[" * depth}{"]" * depth}' + "}"
        side.write_text(text, encoding="utf-8")
        return f"sidecar nested {depth} deep"
    if kind < 0.86:  # damaged text
        data = bytearray(text.encode("utf-8"))
        cut = rng.randrange(len(data) + 1)
        junk = rng.choice([b"", b"\xff\xfe", b"\x00", b"\xc3", b"}", b"{", b",", b'"', b"\xef\xbb\xbf"])
        data[cut : cut + rng.choice((0, 1, 9))] = junk
        side.write_bytes(bytes(data))
        return "sidecar text damaged"
    if kind < 0.92:  # huge
        size = rng.choice([SIDECAR_LIMIT - 200, SIDECAR_LIMIT + 1, 3 * SIDECAR_LIMIT])
        meta["training"] = {"notes": "x" * max(0, size - len(text))}
        write_sidecar(path, meta)
        return f"sidecar of about {size:,} bytes"
    # a consistent record for another game: right shapes, wrong table
    meta["rules"] = rng.choice(
        ["deck=french", "deck=uno hand_size=0", "deck=uno max_players=99", "nonsense", ""]
    )
    write_sidecar(path, meta)
    return "sidecar rules for another game"


# ---------------------------------------------------------------- array edits
_BOMBS: dict[tuple[str, int], bytes] = {}


def _bomb_member(header: bytes, size: int) -> bytes:
    """A deflated member of ``header`` and ``size`` zero bytes (made once per size, in chunks)."""
    key = (header.hex(), size)
    if key not in _BOMBS:
        buffer = io.BytesIO()
        chunk = bytes(files.MiB)
        with (
            zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive,
            archive.open("bomb.npy", "w", force_zip64=True) as member,
        ):
            member.write(header)
            for _ in range(size // files.MiB):
                member.write(chunk)
        _BOMBS[key] = buffer.getvalue()
    return _BOMBS[key]


def write_bomb(path: Path, members: dict[str, bytes], name: str, header: bytes, size: int) -> None:
    """``path`` as a zip of ``members`` whose ``name`` inflates to ``header`` and ``size`` zeros."""
    bomb = zipfile.ZipFile(io.BytesIO(_bomb_member(header, size)))
    info = bomb.getinfo("bomb.npy")
    raw = bomb.fp
    assert raw is not None
    raw.seek(info.header_offset)
    local = raw.read(30)
    skip = struct.unpack("<H", local[26:28])[0] + struct.unpack("<H", local[28:30])[0]
    raw.seek(info.header_offset + 30 + skip)
    compressed = raw.read(info.compress_size)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for member, content in members.items():
            if member != name:
                archive.writestr(member, content)
    _append_raw_member(path, name, compressed, info)


def _append_raw_member(path: Path, name: str, compressed: bytes, info: zipfile.ZipInfo) -> None:
    """Add a member whose deflated bytes are given (its sizes and checksum from ``info``)."""
    with zipfile.ZipFile(path, "a") as archive:
        entry = zipfile.ZipInfo(name, date_time=info.date_time)
        entry.compress_type = zipfile.ZIP_DEFLATED
        entry.file_size, entry.compress_size, entry.CRC = info.file_size, len(compressed), info.CRC
        entry.flag_bits = 0
        archive.fp.seek(archive.start_dir)  # type: ignore[union-attr]
        entry.header_offset = archive.start_dir
        header = entry.FileHeader(zip64=info.file_size > zipfile.ZIP64_LIMIT)
        archive.fp.write(header)  # type: ignore[union-attr]
        archive.fp.write(compressed)  # type: ignore[union-attr]
        archive.start_dir = archive.fp.tell()  # type: ignore[union-attr]
        archive.filelist.append(entry)
        archive.NameToInfo[name] = entry
        archive._didModify = True


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def edit_arrays(path: Path, rng: random.Random) -> str:
    """One hostile edit of ``path``'s weights file, its digest kept up to date (mostly)."""
    meta = read_sidecar(path)
    arch = meta["architecture"]
    members = _members(path)
    names = sorted(members)
    name = rng.choice(names)
    kind = rng.random()
    what: str
    if kind < 0.12:  # wrong counts: arrays and sidecar agree with each other, not with the game
        key = rng.choice(["actions", "inputs", "hidden"])
        if key == "hidden":
            hidden = [rng.choice([1, 3, 4096, 5000]) for _ in range(rng.randint(0, 9))]
            inputs, actions = arch["inputs"], arch["actions"]
        else:
            delta = rng.choice([-arch[key] + 1, -1, 1, 10, arch[key]])
            hidden, inputs, actions = arch["hidden"], arch["inputs"], arch["actions"]
            if key == "actions":
                actions = max(1, actions + delta)
            else:
                inputs = max(1, inputs + delta)
        small = all(h <= 64 for h in hidden) and len(hidden) <= 8
        arrays = policy_arrays(inputs, hidden if small else [4], actions)
        with path.open("wb") as handle:
            np.savez(handle, **arrays)  # type: ignore[arg-type]
        fresh = sidecar(path, inputs, hidden, actions)
        fresh.update({k: meta[k] for k in ("rules", "num_players")})
        write_sidecar(path, fresh)
        return f"wrong counts: inputs {inputs}, hidden {hidden}, actions {actions}"
    array = np.load(path)[name.removesuffix(".npy")]
    if kind < 0.22:
        shape = list(array.shape)
        shape[rng.randrange(len(shape))] += rng.choice([-1, 1, 100])
        members[name] = npz_member(np.zeros([max(0, s) for s in shape], dtype=np.float32))
        what = f"{name} of shape {shape}"
    elif kind < 0.30:
        dtype = rng.choice(["float64", "float16", "int32", "int8", ">f4", "complex64", "bool", "<U3"])
        members[name] = npz_member(array.astype(dtype))
        what = f"{name} as {dtype}"
    elif kind < 0.34:
        members[name] = npy_header("|O", array.shape) + b"\x80\x04\x95\x05\x00\x00\x00\x00\x00\x00\x00N."
        what = f"{name} an object array"
    elif kind < 0.38:
        bad = array.copy()
        bad.flat[rng.randrange(bad.size)] = rng.choice([np.nan, np.inf, -np.inf])
        members[name] = npz_member(bad)
        what = f"{name} not finite"
    elif kind < 0.42:
        members[name] = npz_member(np.asfortranarray(array))  # legal
        what = f"{name} in Fortran order"
    elif kind < 0.50:
        shape = rng.choice([(10**6, 10**6), (2**62,), (2**40, 2**40), (-1, 5), (3,) * 40])
        members[name] = npy_header("<f4", shape) + bytes(rng.choice([0, 64, 4096]))
        what = f"{name} declaring shape {shape}"
    elif kind < 0.54:
        huge = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + "1, " * 20_000 + "), }"
        body = huge.encode() + b"\n"
        members[name] = b"\x93NUMPY\x02\x00" + struct.pack("<I", len(body)) + body
        what = f"{name} with a header of {len(body):,} bytes"
    elif kind < 0.57:
        members[name] = npy_header("<f4", array.shape, version=(3, 0)) + array.tobytes()
        what = f"{name} .npy version 3.0"
    elif kind < 0.62:
        data = members[name]
        members[name] = (
            data[: rng.randrange(len(data))] if rng.random() < 0.6 else data + bytes(rng.randint(1, 99))
        )
        what = f"{name} cut short or padded"
    elif kind < 0.66:
        members.pop(name)
        if rng.random() < 0.5:
            members[rng.choice(["extra.npy", name.upper(), name.removesuffix(".npy"), "../" + name])] = (
                npz_member(array)
            )
        what = f"{name} dropped or renamed"
    elif kind < 0.70:
        members[name.replace(".weight", ".weight2")] = npz_member(array)
        what = "an extra array"
    elif kind < 0.76:  # a zip bomb
        size = rng.choice([16 * files.MiB, 64 * files.MiB, 64 * files.MiB, 256 * files.MiB])
        header = npy_header("<f4", array.shape)
        write_bomb(path, members, name, header, size)
        if rng.random() < 0.5:  # the directory lies: declares the size the array should have
            set_declared_size(path, name, len(header) + array.nbytes)
        redigest(path)
        return f"{name} a zip bomb of {size:,} bytes"
    elif kind < 0.82:  # compressed (legal), then maybe damaged
        write_zip(path, members, zipfile.ZIP_DEFLATED)
        if rng.random() < 0.5:
            data = bytearray(path.read_bytes())
            at = rng.randrange(len(data))
            data[at] ^= 1 << rng.randrange(8)
            path.write_bytes(bytes(data))
            what = "compressed, one bit flipped"
        else:
            what = "compressed"
        redigest(path)
        return what
    elif kind < 0.88:  # damaged archive bytes
        data = bytearray(path.read_bytes())
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(data))
            data[at] = rng.randrange(256)
        path.write_bytes(bytes(data))
        redigest(path)
        return "archive bytes damaged"
    elif kind < 0.92:  # not a zip
        path.write_bytes(
            rng.choice([b"", b"PK\x03\x04", os.urandom(rng.randint(1, 5000)), npz_member(array)])
        )
        redigest(path)
        return "not a zip archive"
    elif kind < 0.95:  # duplicate member names, an encrypted flag
        with zipfile.ZipFile(path, "w") as archive, warnings.catch_warnings():
            warnings.filterwarnings("ignore", "Duplicate name", UserWarning)  # the point of the case
            for member, data in members.items():
                archive.writestr(member, data)
            archive.writestr(name, members[name])
        if rng.random() < 0.5:
            data = bytearray(path.read_bytes())
            data[6] |= 1  # the first local header: "encrypted"
            path.write_bytes(bytes(data))
        redigest(path)
        return "duplicate member"
    else:  # digest left stale
        members[name] = npz_member(array * 2)
        write_zip(path, members)
        return f"{name} changed, digest stale"
    write_zip(path, members)
    redigest(path)
    return what


# ---------------------------------------------------------------- special files
def make_special(path: Path, rng: random.Random) -> str:
    """The weights file or the sidecar replaced by a special file."""
    target = rng.choice([path, path.with_suffix(".json")])
    kind = rng.choice(["fifo", "zero", "null", "dir", "dangling", "missing", "loop"])
    target.unlink()
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "zero":
        target.symlink_to("/dev/zero")
    elif kind == "null":
        target.symlink_to("/dev/null")
    elif kind == "dir":
        target.mkdir()
    elif kind == "dangling":
        target.symlink_to(target.with_name("nowhere"))
    elif kind == "loop":
        target.symlink_to(target.name)
    return f"{target.name} is {kind}"


# ---------------------------------------------------------------- cases
def make_case(folder: Path, bases: dict[str, Path], seed: int, index: int) -> tuple[Path, str]:
    """Case ``index`` of ``seed``: a hostile policy file pair in ``folder``; its path and edits."""
    rng = random.Random(f"policy:{seed}:{index}")
    base = bases[rng.choice(sorted(bases))]
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    path = folder / "p.npz"
    shutil.copyfile(base, path)
    shutil.copyfile(base.with_suffix(".json"), path.with_suffix(".json"))
    edits = [base.stem]
    roll = rng.random()
    if roll < 0.06:
        edits.append(make_special(path, rng))
        return path, "; ".join(edits)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        try:
            if rng.random() < 0.5:
                edits.append(edit_sidecar(path, rng))
            else:
                edits.append(edit_arrays(path, rng))
        except Exception:  # an earlier edit left nothing this one can read: the case stands as it is
            edits.append("(a later edit found nothing to edit)")
    return path, "; ".join(edits)


# ---------------------------------------------------------------- the oracle
@dataclass
class Result:
    """What became of one case: ``refused``, ``accepted`` or a failure (``error``,
    ``disagree``, ``play``, ``memory``, ``crash``, ``hang``) with its detail; ``peak``: the
    most bytes allocated while the file loaded."""

    outcome: str
    detail: str = ""
    peak: int = 0

    @property
    def failed(self) -> bool:
        return self.outcome not in ("refused", "accepted")


def _load(load: Callable[[], Any], path: Path) -> tuple[str, str, Any]:
    try:
        return "accepted", "", load()
    except PolicyFileError as exc:
        message = str(exc)
        if "\n" in message or len(message) > 1000:
            return "error", f"not one line: {message[:300]!r}", None
        if str(path) not in message and path.name not in message and "p.json" not in message:
            return "error", f"the message names no file: {message}", None
        return "refused", message, None
    except Exception as exc:  # anything else is a failure
        return "error", f"{type(exc).__name__}: {files.describe(str(exc), 300)}", None


def run_case(path: Path, bound: int) -> Result:
    """Load ``path`` through two entry points, then play it if accepted."""
    import agents
    import uno_env

    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    outcome, detail, policy = _load(lambda: load_exported(path), path)
    peak = tracemalloc.get_traced_memory()[1] - before
    if outcome == "error":
        return Result("error", detail, peak)
    if peak > bound:
        return Result("memory", f"{peak:,} bytes allocated while loading; bound {bound:,}", peak)
    other, other_detail, _ = _load(lambda: agents.make(str(path)), path)
    if other != outcome:
        return Result(
            "disagree", f"load_exported {outcome} ({detail}), agents.make {other} ({other_detail})", peak
        )
    if outcome == "refused":
        return Result("refused", detail, peak)
    try:
        rules = uno_env.RuleSet.parse(policy.rules)
        players = policy.num_players or rules.min_players
        policy.check_game(rules, players, allow_rules_mismatch=False)
        seats = [str(path)] + ["random_playable"] * (players - 1)
        result = uno_env.simulate(rules, players, GAMES, seed=7, policies=seats, check_invariants=True)
        if len(result.winner) != GAMES:
            return Result("play", f"{len(result.winner)} games played of {GAMES}", peak)
    except Exception as exc:
        return Result("play", f"{type(exc).__name__}: {files.describe(str(exc), 300)}", peak)
    return Result("accepted", "", peak)


# ---------------------------------------------------------------- a child process per case
class Worker:
    """Runs cases in a child process, one at a time, each with a timeout (a crash or a hang of
    the child is reported with its case, and a new child takes over)."""

    def __init__(self, bound: int, timeout: float = 20.0) -> None:
        self.bound = bound
        self.timeout = timeout
        self._child: subprocess.Popen[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        if self._child is None or self._child.poll() is not None:
            self._child = subprocess.Popen(
                [sys.executable, "-m", "tests.policy_fuzz", "--serve", "--bound", str(self.bound)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
            self._wait_line(self._child, 900.0)  # "ready" once compiled code is loaded
        return self._child

    @staticmethod
    def _wait_line(child: subprocess.Popen[str], timeout: float) -> str | None:
        assert child.stdout is not None
        ready, _, _ = select.select([child.stdout], [], [], timeout)
        return child.stdout.readline() if ready else None

    def run(self, path: Path | str) -> Result:
        """The result of the case at ``path`` (``__crash__`` and ``__hang__`` test the harness)."""
        child = self._start()
        assert child.stdin is not None
        child.stdin.write(json.dumps(str(path)) + "\n")
        child.stdin.flush()
        line = self._wait_line(child, self.timeout)
        if line:
            return Result(**json.loads(line))
        self.close()
        if line is None:
            return Result("hang", f"no answer in {self.timeout:.0f} s")
        return Result("crash", f"the child process died (exit code {child.returncode})")

    def close(self) -> None:
        """Stop the child process (killed: it may be stuck in compiled code)."""
        if self._child is not None:
            if self._child.poll() is None:
                self._child.kill()
            self._child.wait()
            self._child = None


def _serve(bound: int) -> None:
    """The child side of :class:`Worker`: one JSON path per line in, one result per line out."""
    import uno_env

    with tempfile.TemporaryDirectory() as folder:  # compile (or load) the learned-seat loop first
        warm = make_bases(Path(folder))["uno_2p"]
        uno_env.simulate("uno", 2, 1, seed=0, policies=[str(warm), "random_playable"], check_invariants=True)
    tracemalloc.start()
    print("ready", flush=True)
    for line in sys.stdin:
        path = json.loads(line)
        if path == "__crash__":
            os.abort()
        while path == "__hang__":
            time.sleep(1)
        print(json.dumps(dataclasses.asdict(run_case(Path(path), bound))), flush=True)


# ---------------------------------------------------------------- the campaign
def cases(folder: Path, bases: dict[str, Path], count: int, seed: int) -> Iterator[tuple[int, Path, str]]:
    """The campaign's cases, one at a time in ``folder/case`` (each replaces the last)."""
    for index in range(count):
        path, edits = make_case(folder / "case", bases, seed, index)
        yield index, path, edits


def campaign(count: int, seed: int, timeout: float, report_every: float) -> int:
    """Run ``count`` cases in a child process; print the totals; exit code 1 on failures."""
    totals: dict[str, int] = {}
    failures: list[tuple[int, str, Result]] = []
    peak = 0
    start = last = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="policy_fuzz_") as tmp:
        folder = Path(tmp)
        bases = make_bases(folder / "bases", seed)
        bound = memory_bound(bases)
        worker = Worker(bound, timeout)
        try:
            for index, path, edits in cases(folder, bases, count, seed):
                result = worker.run(path)
                totals[result.outcome] = totals.get(result.outcome, 0) + 1
                peak = max(peak, result.peak)
                if result.failed:
                    failures.append((index, edits, result))
                    print(f"FAIL {result.outcome} case {index} [{edits}]\n  {result.detail}", flush=True)
                if time.monotonic() - last > report_every:
                    last = time.monotonic()
                    print(f"{index + 1:,}/{count:,} cases, {time.monotonic() - start:,.0f} s", flush=True)
        finally:
            worker.close()
        largest = max(decoded_size(path) for path in bases.values())
    print(f"\npolicy-file fuzz, seed {seed}, {count:,} cases from {len(BASES)} base policies")
    for key in sorted(totals):
        print(f"  {key:<10} {totals[key]:>9,}")
    print(
        f"  largest legal file decoded: {largest:,} bytes; memory bound per load {bound:,} bytes (2 x (that "
        f"+ 4 x the {SIDECAR_LIMIT:,}-byte sidecar limit)); most allocated by a load: {peak:,} bytes"
    )
    seconds = time.monotonic() - start
    print(f"  failures (error, disagree, play, memory, crash, hang): {len(failures)}; {seconds:,.0f} s")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.policy_fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=20_000, help="hostile policy files")
    parser.add_argument("--seed", type=int, default=0, help="seed of the base policies and the edits")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds a case may take")
    parser.add_argument("--report-every", type=float, default=60.0, help="seconds between progress lines")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bound", type=int, default=0, help=argparse.SUPPRESS)
    args: Any = parser.parse_args(argv)
    if args.serve:
        _serve(args.bound)
        return 0
    return campaign(args.cases, args.seed, args.timeout, args.report_every)


if __name__ == "__main__":
    sys.exit(main())
