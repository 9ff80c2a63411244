"""The compile notice (``uno_env.compiler.compiling``): said once per install and part, never when warm.

The markers live next to numba's cache of the current source; here they go to a temporary
folder, so a part looks cold while the compiled code itself still loads from the real cache.
"""

from __future__ import annotations

import io
import itertools
import re
import threading
import time
from pathlib import Path

import pytest

from training.cli import main
from uno_env.compiler import compiling


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def cold(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Every part cold: markers in an empty folder, no part checked in this process yet."""
    monkeypatch.setattr(compiling, "CACHE_DIR", tmp_path / "numba-test")
    monkeypatch.setattr(compiling, "_ENSURED", set())
    monkeypatch.setattr(compiling.numba.config, "DISABLE_JIT", False, raising=False)
    return tmp_path / "numba-test"


def test_a_cold_part_says_so_once_then_is_warm(cold: Path) -> None:
    out = io.StringIO()
    assert not compiling.is_warm("batch") and compiling.warm_parts() == []
    with compiling.compiling("batch", stream=out):
        pass
    lines = out.getvalue().splitlines()
    assert (
        lines[0]
        == "compiling the engine (batch simulator and play styles), once per install, about 2 min ..."
    )
    assert lines[1].startswith("compiled the engine (batch simulator and play styles) in ")
    assert compiling.is_warm("batch") and (cold / "warm-batch").exists()
    again = io.StringIO()
    with compiling.compiling("batch", stream=again):
        pass
    assert again.getvalue() == ""


def test_a_terminal_gets_a_spinner_with_the_elapsed_time(cold: Path) -> None:
    out = Terminal()
    with compiling.compiling("game", stream=out):
        time.sleep(1.0)
    text = out.getvalue()
    assert "\r| compiling the engine (per-step game), once per install, about 60 s: 0 s " in text
    assert "\r/ compiling the engine" in text  # the spinner turned
    assert text.endswith("\n") and re.search(r"\rcompiled the engine \(per-step game\) in \d+ s +\n$", text)
    assert not any(t.name == "compile-notice" for t in threading.enumerate())


def test_quiet_commands_still_mark_the_part(cold: Path) -> None:
    out = io.StringIO()
    with compiling.compiling("vector", enabled=False, stream=out):
        pass
    assert out.getvalue() == "" and compiling.is_warm("vector")


def test_no_notice_without_numba(cold: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compiling.numba.config, "DISABLE_JIT", True, raising=False)
    assert compiling.is_warm("env")


def test_ensure_compiled_warms_up_once_per_process(cold: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setitem(compiling._WARM_UPS, "game", lambda every_path: calls.append(f"game {every_path}"))
    compiling.ensure_compiled("game")
    compiling.ensure_compiled("game")
    assert calls == ["game False"] and compiling.is_warm("game")


def test_unknown_part_names_the_parts() -> None:
    with pytest.raises(ValueError, match=r"unknown engine part 'gpu'; parts: batch, game, vector, env"):
        compiling.is_warm("gpu")


def test_simulate_compiles_before_it_times_the_games(cold: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "20", "--players", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith("compiling the engine (batch simulator and play styles), once per install")
    assert "compiled the engine (batch simulator and play styles) in " in captured.err
    assert "throughput: " in captured.out
    assert main(["simulate", "--games", "20", "--players", "2"]) == 0
    assert capsys.readouterr().err == ""


def test_compile_all_is_never_silent_for_long(cold: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A part that compiles for minutes reports at least every HEARTBEAT_SECONDS, with what numba
    is compiling (here a short heartbeat and a part that compiles a fresh numba function and
    then works for a while)."""
    import numba

    def slow_part(every_path: bool) -> None:
        @numba.njit(cache=False)
        def fresh_function(x: int) -> int:
            return x + 1

        fresh_function(1)
        time.sleep(2.0)

    monkeypatch.setattr(compiling, "HEARTBEAT_SECONDS", 0.3)
    monkeypatch.setitem(compiling._WARM_UPS, "game", slow_part)
    lines: list[tuple[float, str]] = []
    start = time.perf_counter()
    compiling.compile_all(["game"], progress=lambda line: lines.append((time.perf_counter() - start, line)))
    beats = [text for _, text in lines if text.startswith("[1/1] game: ") and "functions compiled" in text]
    assert len(beats) >= 4
    assert any("1 functions compiled" in text for text in beats)
    gaps = [b - a for (a, _), (b, _) in itertools.pairwise(lines)]
    assert max(gaps) < 1.5  # never silent for long (0.3 s asked; a busy machine delays a little)
    assert lines[-2][1].startswith("[1/1] game: done in ")
    assert not any(t.name == "compile-heartbeat" for t in threading.enumerate())


def test_a_log_gets_the_notice_again_while_a_part_compiles(
    cold: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compiling, "NOTICE_SECONDS", 0.2)
    out = io.StringIO()
    with compiling.compiling("batch", stream=out):
        time.sleep(1.0)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("compiling the engine (batch simulator and play styles)")
    assert (
        sum(line.startswith("  still compiling (batch simulator and play styles): ") for line in lines) >= 3
    )
    assert lines[-1].startswith("compiled the engine (batch simulator and play styles) in ")
