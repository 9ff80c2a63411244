"""The compile notice (``uno_env.compiler.compiling``): said once per install and part, never when warm.

The markers live next to numba's cache of the current source; here they go to a temporary
folder, so a part looks cold while the compiled code itself still loads from the real cache.
"""

from __future__ import annotations

import io
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
