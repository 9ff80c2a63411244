"""Saying so while the engine compiles: no silent minutes on a fresh install.

Numba compiles the engine the first time each part of it runs after an install (or after
the package source changed) and caches the machine code on disk (:mod:`uno_env._cache`);
later runs load it in seconds. Code that is about to trigger a compile wraps it in
:func:`compiling`::

    with compiling("batch"):
        uno_env.simulate(rules, 4, 1, seed=0)   # compiles the batch loop and the play styles

While the cache of the current source has not seen that part, this prints on stderr

    compiling the engine (batch simulator and play styles), once per install, about 2 min

with a spinner and the elapsed seconds on a terminal (a start and an end line otherwise),
and marks the part warm when the block finishes. A warm part prints nothing. The parts
(:data:`PARTS`) are what the commands compile first; :func:`warm_up` compiles one by
playing a tiny game through it, and :func:`warm_parts` lists the warm ones. Commands warm
up before they start their progress estimates and time budgets, so those count the work,
not the compiling. The library's entry points (``Game``, ``simulate``, ``VectorEnv``, the
envs) call :func:`ensure_compiled` once per process, so a first use from Python says so
too. Nothing is said when numba is off (``NUMBA_DISABLE_JIT=1``): nothing compiles.
"""

from __future__ import annotations

import importlib
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import numba

from ._cache import CACHE_DIR

PARTS: dict[str, tuple[str, int]] = {
    "batch": ("batch simulator and play styles", 100),
    "game": ("per-step game", 60),
    "vector": ("vector env", 90),
    "env": ("PettingZoo and Gymnasium envs", 90),
}
"""Each part's description and its compile time in seconds on one free core of a 2-core
machine (a busy machine takes longer)."""

_SPINNER = "|/-\\"
_ENSURED: set[str] = set()  # parts this process has warmed up or found warm


def _marker(part: str) -> Path:
    if part not in PARTS:
        raise ValueError(f"unknown engine part {part!r}; parts: {', '.join(PARTS)}")
    return CACHE_DIR / f"warm-{part}"


def is_warm(part: str) -> bool:
    """Whether ``part`` has been compiled into the cache of the current source (always true
    with numba off)."""
    return bool(getattr(numba.config, "DISABLE_JIT", False)) or _marker(part).exists()


def mark_warm(part: str) -> None:
    """Record that ``part`` is compiled (a cache that cannot be written stays unmarked)."""
    try:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        _marker(part).touch()
    except OSError:
        pass


def warm_parts() -> list[str]:
    """The parts compiled into the cache of the current source."""
    return [part for part in PARTS if is_warm(part)]


def _about(seconds: int) -> str:
    return f"about {seconds} s" if seconds < 90 else f"about {round(seconds / 60)} min"


@contextmanager
def compiling(part: str, *, enabled: bool = True, stream: TextIO | None = None) -> Iterator[None]:
    """Run the block that compiles ``part``, saying so on ``stream`` (stderr) unless it is warm.

    ``enabled=False`` (a ``--quiet`` command) keeps it silent but still marks the part warm.
    """
    _ENSURED.add(part)  # the library's own check (ensure_compiled) stays quiet inside the block
    if is_warm(part):
        yield
        return
    out = sys.stderr if stream is None else stream
    what, seconds = PARTS[part]
    notice = f"compiling the engine ({what}), once per install, {_about(seconds)}"
    start = time.perf_counter()
    done = threading.Event()
    spinner: threading.Thread | None = None
    if enabled:
        if getattr(out, "isatty", lambda: False)():

            def spin() -> None:
                frame = 0
                while not done.wait(0.25):
                    elapsed = time.perf_counter() - start
                    out.write(f"\r{_SPINNER[frame % 4]} {notice}: {elapsed:.0f} s ")
                    out.flush()
                    frame += 1

            spinner = threading.Thread(target=spin, name="compile-notice", daemon=True)
            spinner.start()
        else:
            print(f"{notice} ...", file=out, flush=True)
    try:
        yield
    finally:
        done.set()
        if spinner is not None:
            spinner.join()
    mark_warm(part)
    if enabled:
        line = f"compiled the engine ({what}) in {time.perf_counter() - start:.0f} s"
        if spinner is not None:
            out.write("\r" + line.ljust(len(notice) + 12) + "\n")
            out.flush()
        else:
            print(line, file=out, flush=True)


def _module(name: str) -> Any:
    """A module of this package, imported by name: the cache key (:mod:`uno_env._cache`) takes
    in what compiled modules import, and this module is one of those (Game and simulate call
    :func:`ensure_compiled`), so a plain import of the envs here would key the compiled
    engine on their source too."""
    return importlib.import_module(f"{__package__}.{name}")


def _play_batch() -> None:
    _module("batch").simulate("uno", 2, 1, seed=0, policies=["greedy", "random"])


def _play_game() -> None:
    game = _module("game").Game("uno", 2, seed=0)
    game.step(game.legal_actions()[0])


def _play_vector() -> None:
    env = _module("envs.vector").VectorEnv(2, "uno", 2)
    env.reset(seed=0)
    env.step(env.action_masks().argmax(axis=1))


def _play_env() -> None:
    table = _module("envs.aec").env("uno", 2)
    table.reset(seed=0)
    observation = table.last()[0]
    assert observation is not None
    table.step(int(observation["action_mask"].argmax()))


_WARM_UPS = {"batch": _play_batch, "game": _play_game, "vector": _play_vector, "env": _play_env}


def warm_up(part: str, *, enabled: bool = True, stream: TextIO | None = None) -> None:
    """Compile ``part`` if it is not warm (one tiny game through it), saying so while it runs."""
    with compiling(part, enabled=enabled, stream=stream):
        _WARM_UPS[part]()


def ensure_compiled(part: str) -> None:
    """Warm ``part`` up the first time this process asks (a set lookup afterwards)."""
    if part in _ENSURED:
        return
    _ENSURED.add(part)  # first, so the warm-up game does not come back here
    if not is_warm(part):
        warm_up(part)
