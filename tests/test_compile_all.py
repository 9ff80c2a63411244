"""``uno-env compile`` builds a cache that fresh processes load without compiling (issue: cold start).

The first test runs ``uno-env compile game`` on the session's cache (``make test`` starts with
``uno-env compile``, so this loads it; run alone, it compiles the part), then runs the Game
workload in a fresh process pointed at that cache and at a copy of it in another directory (a
cache built once and copied to other nodes), counting numba's compile events: there must be
none, and the entry points must come from the cache. Compiling a part into an *empty*
directory, by one process while others wait for it, is tests/test_cache_concurrency.py's
four-process test; a second cold compile here would add minutes and test nothing more.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import uno_env
from tests.compile_events import COUNT_COMPILES, PLAY_GAME_PART
from uno_env.compiler import compiling
from uno_env.compiler.cache import CACHE_DIR

UNO_ENV = Path(sys.executable).with_name("uno-env")


def _env(cache: Path | None) -> dict[str, str]:
    """This process's environment without numba's settings (``NUMBA_DISABLE_JIT`` and the like);
    ``cache``, when given, is the cache directory (``UNO_ENV_CACHE_DIR``), else the session's
    own (its ``UNO_ENV_CACHE_DIR`` or ``NUMBA_CACHE_DIR`` if set, as ``make test`` compiled into)."""
    session = ("UNO_ENV_CACHE_DIR", "NUMBA_CACHE_DIR") if cache is None else ()
    env = {
        k: v for k, v in os.environ.items() if k in session or not k.startswith(("NUMBA_", "UNO_ENV_CACHE"))
    }
    if cache is not None:
        env["UNO_ENV_CACHE_DIR"] = str(cache)
    return env


def _run_game_part(cache: Path | None) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PLAY_GAME_PART], env=_env(cache), capture_output=True, text=True, check=True
    )
    counts: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return counts


def test_a_cache_built_by_uno_env_compile_is_loaded_by_fresh_processes(tmp_path: Path) -> None:
    built = subprocess.run(
        [str(UNO_ENV), "compile", "game"], env=_env(None), capture_output=True, text=True, check=True
    )
    assert "[1/1] game: done in" in built.stdout
    fresh = _run_game_part(None)
    assert fresh["compiled"] == []
    assert fresh["loaded"] == 2  # the facade's step for official Uno's engine and for the full one
    session = Path(str(fresh["cache_dir"]))
    assert session == CACHE_DIR  # the session's cache, the one this process uses
    assert f"compiling the uno_env engine into {session}" in built.stdout  # the cache it built
    # built once and copied: a node given a copy of the directory loads it too. The package's
    # folders only; a file another test's process is writing is a temporary until renamed.
    copy = tmp_path / "copied"
    for folder in session.glob("uno_env*"):
        shutil.copytree(folder, copy / session.name / folder.name, ignore=shutil.ignore_patterns("*.tmp.*"))
    copied = _run_game_part(copy)
    assert str(copied["cache_dir"]) == str(copy / session.name)
    assert copied["compiled"] == []
    assert copied["loaded"] == 2


def test_unknown_parts_are_refused_with_the_list() -> None:
    with pytest.raises(ValueError, match=r"unknown engine part\(s\) games; parts: batch, game, vector, env"):
        uno_env.compile_all(["games"])
    done = subprocess.run([str(UNO_ENV), "compile", "nope"], capture_output=True, text=True)
    assert done.returncode == 2
    assert "uno-env: error: unknown engine part(s) nope" in done.stderr


def test_every_part_runs_here_with_progress() -> None:
    # the session's cache is warm after the other tests, so this mostly loads
    lines: list[str] = []
    seconds = uno_env.compile_all(progress=lines.append)
    assert list(seconds) == list(compiling.PARTS)
    assert lines[0].startswith("compiling the uno_env engine into ")
    assert [line for line in lines if "done in" in line][-1].startswith(f"[{len(compiling.PARTS)}/")


# A training run's envs in a fresh process: what numba compiled.
PLAY_TRAINING_ENVS = (
    COUNT_COMPILES
    + """import numpy as np
from uno_env.envs.single import SingleAgentEnv
from uno_env.envs.vector import OpponentPool, VectorEnv

pool = OpponentPool(["random_playable", "greedy", "blocker", "blocker", "aggressor"])
for rules in ("uno", "uno_house"):
    vector = VectorEnv(4, rules, 2, opponents=pool, seat=None)
    vector.reset(seed=3)
    for _ in range(5):
        vector.step(vector.action_masks().argmax(axis=1))
single = SingleAgentEnv("uno", 2, opponents="blocker")
_, info = single.reset(seed=3)
single.step(int(np.flatnonzero(info["action_mask"])[0]))
print(json.dumps(compiled))
"""
)


def test_uno_env_compile_covers_training_against_scripted_opponents() -> None:
    # make test compiles every part first; when this runs alone, this compiles them here
    subprocess.run([str(UNO_ENV), "compile", "vector", "env"], capture_output=True, check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    done = subprocess.run([sys.executable, "-c", PLAY_TRAINING_ENVS], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []  # nothing compiled: all from the cache


# The web table's first agent decision and replay chart in a fresh process: what numba compiled.
EXPLAIN_AND_CHART = (
    COUNT_COMPILES
    + """import agents
from training.serve.explain import HandModel, SearchValue, explained_act
from uno_env import Game

game = Game("uno", 3, seed=4)
for name in ("search:sims=8", "oracle:sims=8"):
    explained_act(agents.make(name, seed=1), game)
SearchValue(sims=4).estimate(game, 0)
HandModel().estimate(game, 0)
print(json.dumps(compiled))
"""
)


def test_uno_env_compile_covers_the_web_tables_search_and_win_chances() -> None:
    """The search with its visit counts, the win chances and the leaf value, called from
    Python as the web table and its replays call them, load from what ``uno-env compile``
    built: their first use compiles nothing."""
    subprocess.run([str(UNO_ENV), "compile", "batch", "game"], capture_output=True, check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    done = subprocess.run([sys.executable, "-c", EXPLAIN_AND_CHART], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
