"""The one validation path for files from users (``uno_env.files``): bounded, checked, one line.

The readers refuse special files and files over their limit before reading, JSON and TOML
are checked for nesting, long integers, numbers that are not finite and long strings (by
field), zip directories are checked before anything is inflated, and ``.npy`` headers are
checked before their data are read. Every refusal is one line, in the caller's error class.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tests.policy_files import npy_header, npz_member, set_declared_size, write_zip
from uno_env import files
from uno_env.engine.rules import RuleError


def _one_line(exc: pytest.ExceptionInfo[BaseException]) -> str:
    message = str(exc.value)
    assert "\n" not in message
    return message


# ---------------------------------------------------------------- bounded reads
def test_special_files_are_refused_before_any_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # no writer: a blocking open would wait for ever
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    for path, kind in (
        (fifo, "a FIFO (named pipe)"),
        (zero, "a character device"),
        (tmp_path, "a directory"),
    ):
        with pytest.raises(files.FileError) as caught:
            files.read_bytes(path, 100, "spec")
        assert _one_line(caught) == f"spec {path}: the file is {kind}; allowed: a regular file"
    with pytest.raises(files.MissingFileError) as missing:
        files.read_text(tmp_path / "nothing", "spec")
    assert isinstance(missing.value, FileNotFoundError) and isinstance(missing.value, ValueError)
    with pytest.raises(RuleError) as rule_missing:  # in the reader's own error class too
        files.read_text(tmp_path / "nothing.toml", "rule file", error=RuleError)
    assert isinstance(rule_missing.value, files.MissingFileError | FileNotFoundError)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(files.MissingFileError):
        files.read_text(dangling, "spec")


def test_files_over_their_limit_are_refused_by_size(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 101)
    with pytest.raises(RuleError, match=r"big\.json: the file holds 101 bytes; allowed: at most 100 bytes"):
        files.read_bytes(big, 100, "rule file", error=RuleError)
    assert files.read_bytes(big, 101, "rule file") == b" " * 101


def test_lines_are_read_one_bounded_line_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    path.write_bytes(b"one\n" + b"x" * 50 + b"\nthree")
    with pytest.raises(
        files.FileError, match=r"line 2 is longer than 20 bytes; allowed: lines of at most 20"
    ):
        list(files.read_lines(path, "record file", line_limit=20))
    assert [n for n, _ in files.read_lines(path, "record file", line_limit=60)] == [1, 2, 3]


def test_text_must_be_utf8(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    path.write_bytes(b'a = "\xff"')
    with pytest.raises(files.FileError, match=r"is not UTF-8 text \(byte 5: invalid start byte\)"):
        files.read_text(path, "rule file")
    path.write_bytes("\ufeffa = 1\n".encode())
    assert files.read_toml(path, "rule file") == {"a": 1}  # a byte-order mark is dropped


def test_csv_logs_are_bounded_and_errors_are_one_line(tmp_path: Path) -> None:
    path = tmp_path / "eval.csv"
    path.write_text('step,games\n1,"' + "x" * 200_000 + '"\n')
    with pytest.raises(
        files.FileError, match=r"eval\.csv: the file is not CSV \('field larger than field limit"
    ):
        files.read_csv(path, "evaluation log")
    path.write_text("step,games\n1,2\n")
    assert files.read_csv(path, "evaluation log") == [["step", "games"], ["1", "2"]]


# ---------------------------------------------------------------- JSON and TOML
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": {"b": [1, 1e400]}}', "a.b[1] is '1e400' (not a finite number); allowed: finite numbers"),
        ('{"a": -Infinity}', "a is '-Infinity' (not a finite number)"),
        (
            '{"n": ' + "9" * 101 + "}",
            "n is an integer of 101 digits; allowed: integers of at most 100 digits",
        ),
        ('{"n": -' + "9" * 5000 + "}", "n is an integer of 5,000 digits"),
        ("[" * 65 + "]" * 65, "the document nests arrays and objects 65 deep; allowed: at most 64 levels"),
        ('{"a": "[[[[' + "[" * 100 + '"}', None),  # brackets inside a string do not nest
        ('{"a": 1', "the document is not JSON (Expecting ',' delimiter at line 1, column 8)"),
    ],
)
def test_json_is_checked_by_field(text: str, message: str | None) -> None:
    if message is None:
        assert files.parse_json(text, "sidecar s.json") == {"a": "[[[[" + "[" * 100}
        return
    with pytest.raises(files.FileError) as caught:
        files.parse_json(text, "sidecar s.json", finite=True)
    assert _one_line(caught) == f"sidecar s.json: {message}" or message in _one_line(caught)


@pytest.mark.parametrize("finite", [False, True])
def test_lists_of_numbers_are_checked_by_element(finite: bool) -> None:
    """Result files hold long lists of numbers, checked in bulk: the element that is refused
    is still named, whichever list it is in and whether the parse took the exact path."""
    long_int = "9" * 101
    cases = [
        ('{"d": {"turns": [1, 2, ' + long_int + ", 4]}}", "d.turns[2] is an integer of 101 digits"),
        ('{"seat_wins": [[0, 1], [2, -' + long_int + "]]}", "seat_wins[1][1] is an integer of 101 digits"),
        ('{"a": [1.5, 2, ' + long_int + "]}", "a[2] is an integer of 101 digits"),
        ('{"a": [1, -' + "9" * 5000 + "]}", "a[1] is an integer of 5,000 digits"),  # past int()'s own limit
    ]
    for text, message in cases:
        with pytest.raises(files.FileError) as caught:
            files.parse_json(text, "batch file b.json", finite=finite)
        assert message in _one_line(caught)
    # parsed values (TOML, or numbers Python made) go through the same bulk check
    with pytest.raises(files.FileError, match=r"a\[3\] is an integer of 101 digits"):
        files.check_values({"a": [0, 1, 2, 10**100, 4]}, "table t", finite=finite)
    with pytest.raises(files.FileError, match=r"a\[2\] is an integer of 101 digits"):
        files.check_values({"a": [0, 1, -(10**100)]}, "table t", finite=finite)
    floats = {"a": [0.5, float("nan"), 1.0]}
    if finite:
        with pytest.raises(files.FileError, match=r"a\[1\] is 'nan' \(not a finite number\)"):
            files.check_values(floats, "table t", finite=True)
    else:
        files.check_values(floats, "table t")  # the caller checks its floats
    # at the limit, booleans among integers, long digit runs in strings and fractions: accepted
    numbers = '{"a": [' + "9" * 100 + ", -" + "9" * 100 + ", true, 3], "
    edge = numbers + '"s": "' + "7" * 300 + '", "f": 0.' + "1" * 300 + "}"
    data = files.parse_json(edge, "batch file b.json", finite=finite)
    assert data["a"] == [10**100 - 1, -(10**100) + 1, True, 3]
    assert data["s"] == "7" * 300 and data["f"] == pytest.approx(0.1111111111111111)


def test_long_strings_and_deep_documents_cost_no_recursion() -> None:
    assert files.nesting_depth('{"a": "' + "x" * 2_000_000 + '"}') == 1
    assert files.nesting_depth("[" * 200_000 + "]" * 200_000) == 200_000
    with pytest.raises(files.FileError, match="is a string of 1,048,577 characters"):
        files.parse_json('{"a": "' + "x" * (files.STRING_LIMIT + 1) + '"}', "sidecar s.json")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hand_size = " + "7" * 5000, "line 1 ('hand_size') holds an integer of 5,000 digits"),
        ("[a]\nb = " + "7" * 200, "a.b is an integer of 200 digits"),
        ("x = [" + "[" * 2000 + "]" * 2001, "nests arrays or tables too deeply to read"),
        (
            "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.aa.ab.ac.ad.ae.af.ag.ah.ai.aj.ak.al.am.an.ao.ap."
            "aq.ar.as.at.au.av.aw.ax.ay.az.ba.bb.bc.bd.be.bf.bg.bh.bi.bj.bk.bl.bm = 1",
            "nests tables and arrays 65 deep",
        ),
        ("x = = 1", "is not TOML (Invalid value (at line 1, column 5))"),
    ],
)
def test_toml_is_checked_by_field(text: str, message: str) -> None:
    with pytest.raises(RuleError) as caught:
        files.parse_toml(text, "rule file r.toml", error=RuleError)
    assert _one_line(caught).startswith("rule file r.toml: ") and message in str(caught.value)


def test_numbers_that_are_not_finite_are_floats_unless_refused() -> None:
    """As Python's own JSON writer writes them (a NaN in a free-form record); the readers of
    numeric fields check their types and ranges themselves."""
    data = files.parse_json('{"a": 1e400, "b": NaN}', "record r.json")
    assert data["a"] == float("inf") and data["b"] != data["b"]
    assert files.parse_toml("x = inf", "spec s.toml") == {"x": float("inf")}


def test_huge_values_are_shown_cut() -> None:
    shown = files.describe("x" * 1000)
    assert shown.startswith("'xxx") and shown.endswith("... (1,002 characters)") and len(shown) <= 210
    assert files.describe(7) == "7"


# ---------------------------------------------------------------- zip archives and .npy headers
SPEC = {"w": files.ArraySpec("float32", (3, 2)), "b": files.ArraySpec("float32", (3,))}


def test_npz_arrays_are_read_exactly_as_expected(tmp_path: Path) -> None:
    path = tmp_path / "a.npz"
    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    write_zip(
        path,
        {"w.npy": npz_member(np.asfortranarray(w)), "b.npy": npz_member(np.arange(3, dtype=">f4"))},
        zipfile.ZIP_DEFLATED,
    )
    arrays = files.read_npz(path, "weights", SPEC, 10_000)
    assert np.array_equal(arrays["w"], w) and arrays["w"].flags.c_contiguous and arrays["w"].flags.writeable
    assert arrays["b"].dtype == np.float32 and arrays["b"].dtype.isnative and list(arrays["b"]) == [0, 1, 2]


@pytest.mark.parametrize(
    ("member", "message"),
    [
        (npz_member(np.zeros((3, 3), np.float32)), "array 'w' has shape (3, 3); allowed: shape (3, 2)"),
        (npz_member(np.zeros((3, 2), np.float64)), "array 'w' holds 'float64'; allowed: float32"),
        (npy_header("|O", (3, 2)) + b"\x80\x04N.", "array 'w' holds 'object'"),
        (npy_header("<f4", (10**9, 10**9)), "array 'w' has shape (1000000000, 1000000000)"),
        (
            npy_header("<f4", (3, 2)) + bytes(20),
            "array 'w' holds 20 bytes of data; allowed: exactly 24 bytes",
        ),
        (npy_header("<f4", (3, 2), version=(3, 0)) + bytes(24), "has .npy format version (3, 0)"),
        (b"\x93NUMPY\x01\x00" + b"\xc8\x00" + b"{" * 200, "has no readable .npy header"),
        (b"not an npy at all", "has no readable .npy header"),
    ],
)
def test_npy_headers_are_checked_before_the_data(tmp_path: Path, member: bytes, message: str) -> None:
    path = tmp_path / "a.npz"
    write_zip(path, {"w.npy": member, "b.npy": npz_member(np.zeros(3, np.float32))})
    with pytest.raises(files.FileError) as caught:
        files.read_npz(path, "weights", SPEC, 10**6)
    assert message in _one_line(caught)


def test_zip_directories_are_checked_before_inflating(tmp_path: Path) -> None:
    path = tmp_path / "a.npz"
    write_zip(
        path,
        {
            "w.npy": npy_header("<f4", (3, 2)) + bytes(100 * files.MiB),
            "b.npy": npz_member(np.zeros(3, np.float32)),
        },
        zipfile.ZIP_DEFLATED,
    )
    with pytest.raises(
        files.FileError, match=r"member 'w\.npy' inflates to 104,857,\d+ bytes; allowed: at most"
    ):
        files.read_npz(path, "weights", SPEC, 10**6)
    set_declared_size(path, "w.npy", len(npy_header("<f4", (3, 2))) + 24)  # the directory lies
    with pytest.raises(files.FileError, match=r"array 'w' .*Bad CRC-32"):
        files.read_npz(path, "weights", SPEC, 10**6)
    write_zip(path, {"w.npy": npz_member(np.zeros((3, 2), np.float32))})
    with pytest.raises(files.FileError, match=r"holds \['w\.npy'\]; allowed: the arrays \['b', 'w'\]"):
        files.read_npz(path, "weights", SPEC, 10**6)
    assert set(files.read_npz(path, "weights", SPEC, 10**6, optional=frozenset({"b"}))) == {"w"}
    path.write_bytes(b"PK\x05\x06" + bytes(18))
    with pytest.raises(files.FileError, match=r"holds \[\]"):
        files.read_npz(path, "weights", SPEC, 10**6)
    path.write_bytes(b"plain text")
    with pytest.raises(files.FileError, match="the file is not a zip archive"):
        files.read_npz(path, "weights", SPEC, 10**6)


def test_zip_limits_cover_count_ratio_and_total(tmp_path: Path) -> None:
    path = tmp_path / "c.zip"
    write_zip(path, {f"m{k}": b"x" for k in range(5)})
    limits = files.ZipLimits(members=4, member_bytes=10, total_bytes=10)
    with pytest.raises(files.FileError, match="the archive holds 5 members; allowed: at most 4"):
        files.check_zip_file(path, "checkpoint", 10**6, limits)
    write_zip(path, {"data": bytes(3 * files.MiB)}, zipfile.ZIP_DEFLATED)
    limits = files.ZipLimits(members=4, member_bytes=files.GiB, total_bytes=files.GiB)
    with pytest.raises(
        files.FileError, match=r"member 'data' inflates [\d,]+ times .*; allowed: at most 200 times"
    ):
        files.check_zip_file(path, "checkpoint", 10**6, limits)
    write_zip(path, {"a": os.urandom(6000), "b": os.urandom(6000)})
    limits = files.ZipLimits(members=4, member_bytes=10_000, total_bytes=10_000)
    with pytest.raises(
        files.FileError, match="the archive inflates to 12,000 bytes in all; allowed: at most 10,000"
    ):
        files.check_zip_file(path, "checkpoint", 10**6, limits)


def test_arrays_of_any_length_are_bounded_in_bytes(tmp_path: Path) -> None:
    spec = {"rows": files.ArraySpec("int64", (None, 2), max_bytes=160)}
    path = tmp_path / "r.npz"
    write_zip(path, {"rows.npy": npz_member(np.zeros((10, 2), np.int64))})
    assert files.read_npz(path, "chunk", spec, 10**6)["rows"].shape == (10, 2)
    write_zip(path, {"rows.npy": npz_member(np.zeros((11, 2), np.int64))})
    with pytest.raises(files.FileError, match="holds 176 bytes of data; allowed: at most 160 bytes"):
        files.read_npz(path, "chunk", spec, 10**6)
    with pytest.raises(ValueError, match="needs max_bytes"):
        files.ArraySpec("int64", (None,))
