"""Compiling the engine: ahead of use with :func:`compile_all`, and never in silence.

Numba compiles the engine the first time each part of it runs after an install (or after
the package source changed) and caches the machine code on disk (:mod:`uno_env.compiler.cache`);
later processes pointed at the same cache load it instead. Two ways to pay that once:

- **Ahead of use, visibly**: :func:`compile_all` (``uno-env compile [PART ...]``) runs every
  part of :data:`PARTS` on a small real workload, one progress line per part as it starts
  and ends: whole games through the :class:`~uno_env.Game` facade with positions and
  invariants, the batch simulator with every compiled play style and a learned seat (and the
  search called from Python with its visit counts, win chances and leaf value, as the web
  table and its replays call it), the AEC
  and single-agent envs with compiled and Python opponents and the illegal-action paths, the
  vector env with compiled and batched Python opponents. An install step, a Docker image build or a cluster
  set-up runs it once; ``make test`` and ``make demo`` do. Running workloads, rather than
  listing signatures, compiles exactly the argument types the package passes (array layouts,
  read-only rule specs), so nothing compiled goes unused and nothing used is missed.
- **On first use, announced**: code about to trigger a compile wraps it in
  :func:`compiling`::

      with compiling("batch"):
          uno_env.simulate(rules, 4, 1, seed=0)   # compiles the batch loop and the play styles

  While the cache of the current source has not seen that part, this prints on stderr

      compiling the engine (batch simulator and play styles), once per install, about 2 min

  with a spinner and the elapsed seconds on a terminal (a start and an end line otherwise),
  and marks the part warm when the block finishes. A warm part prints nothing, unless numba
  compiles one of the package's functions inside the block all the same (code missing from
  the cache): then the notice is printed when that compile starts. Processes starting on a
  cold part at once take turns on a lock file beside the markers: one compiles (and says
  so), the others wait (saying that they do) and then load its code.
  :func:`warm_up` compiles one part by playing the smallest game through it that reaches
  its first use, and :func:`warm_parts` lists the warm ones. Commands warm up before they
  start their progress estimates and time budgets, so those count the work, not the
  compiling. The library's entry points (``Game``, ``simulate``, ``VectorEnv``, the envs)
  call :func:`ensure_compiled` once per process, so a first use from Python says so too.

Nothing is said when numba is off (``NUMBA_DISABLE_JIT=1``): nothing compiles.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import numba
import numpy as np
from numba.core import event

from .cache import CACHE_DIR, CODE_TARGET, COMPILED_ENGINE, locked

PARTS: dict[str, tuple[str, int]] = {
    "batch": ("batch simulator and play styles", 100),
    "game": ("per-step game", 60),
    "vector": ("vector env", 90),
    "env": ("PettingZoo and Gymnasium envs", 90),
}
"""Each part's description and its compile time in seconds on one free core of a 2-core
machine (a busy machine takes longer)."""

HEARTBEAT_SECONDS = 5.0
"""Longest silence of :func:`compile_all` while a part compiles: a line with the seconds so far
and the function numba is compiling comes at least this often (a part can take minutes on a
busy machine)."""
NOTICE_SECONDS = 10.0
"""How often :func:`compiling` repeats its notice with the seconds so far when stderr is not
a terminal (a log file or a pipe, where no spinner runs)."""

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


class _Notice:
    """The compile notice of one part on ``out``: a spinner with the elapsed seconds on a
    terminal; otherwise a start line, a progress line every :data:`NOTICE_SECONDS` and an end
    line."""

    def __init__(self, part: str, out: TextIO) -> None:
        self.out = out
        self.what, seconds = PARTS[part]
        self.text = f"compiling the engine ({self.what}), once per install, {_about(seconds)}"
        self.start = 0.0
        self.done = threading.Event()
        self.spinner: threading.Thread | None = None  # on a terminal
        self.ticker: threading.Thread | None = None  # elsewhere: a line every NOTICE_SECONDS
        self.shown = False

    def show(self) -> None:
        """Say that the part compiles (once)."""
        if self.shown:
            return
        self.shown = True
        self.start = time.perf_counter()
        if getattr(self.out, "isatty", lambda: False)():

            def spin() -> None:
                frame = 0
                while not self.done.wait(0.25):
                    elapsed = time.perf_counter() - self.start
                    self.out.write(f"\r{_SPINNER[frame % 4]} {self.text}: {elapsed:.0f} s ")
                    self.out.flush()
                    frame += 1

            self.spinner = threading.Thread(target=spin, name="compile-notice", daemon=True)
            self.spinner.start()
        else:
            print(f"{self.text} ...", file=self.out, flush=True)

            def tell() -> None:
                while not self.done.wait(NOTICE_SECONDS):
                    elapsed = time.perf_counter() - self.start
                    print(f"  still compiling ({self.what}): {elapsed:.0f} s", file=self.out, flush=True)

            self.ticker = threading.Thread(target=tell, name="compile-notice", daemon=True)
            self.ticker.start()

    def stop(self) -> None:
        """End the spinner or the progress lines (the block ended in any way)."""
        self.done.set()
        for thread in (self.spinner, self.ticker):
            if thread is not None:
                thread.join()

    def finish(self) -> None:
        """Say how long it took (when the notice was shown)."""
        if not self.shown:
            return
        line = f"compiled the engine ({self.what}) in {time.perf_counter() - self.start:.0f} s"
        if self.spinner is not None:
            self.out.write("\r" + line.ljust(len(self.text) + 12) + "\n")
            self.out.flush()
        else:
            print(line, file=self.out, flush=True)


class _CompileWatch(event.Listener):
    """Shows a notice when numba starts compiling a function of this package."""

    def __init__(self, notice: _Notice) -> None:
        self.notice = notice

    def on_start(self, ev: Any) -> None:
        """A compile starts: show the notice if it is one of the package's functions."""
        dispatcher = ev.data.get("dispatcher")
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        if module.split(".")[0] == __package__:
            self.notice.show()

    def on_end(self, ev: Any) -> None:
        """Nothing to do when a compile ends."""


@contextmanager
def _taking_turns(part: str, out: TextIO, enabled: bool) -> Iterator[None]:
    """Hold the part's compile lock (``.compile-<part>.lock`` beside the markers), saying so if
    another process holds it (it is compiling the part: this one waits, then loads)."""
    try:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
    except OSError:  # an unwritable cache: nothing to share, no lock
        yield
        return
    path = CACHE_DIR / f".compile-{part}.lock"
    try:
        import fcntl

        with open(path, "a+b") as probe:
            fcntl.flock(probe.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(probe.fileno(), fcntl.LOCK_UN)
    except BlockingIOError:
        if enabled:
            what = PARTS[part][0]
            print(
                f"waiting for another process compiling the engine ({what}) into {CACHE_DIR}",
                file=out,
                flush=True,
            )
    except (ImportError, OSError):
        pass
    with locked(path):
        yield


@contextmanager
def compiling(part: str, *, enabled: bool = True, stream: TextIO | None = None) -> Iterator[None]:
    """Run the block that compiles ``part``, saying so on ``stream`` (stderr) unless it is warm.

    ``enabled=False`` (a ``--quiet`` command) keeps it silent but still marks the part warm.
    A cold part is compiled by one process at a time (others wait, then find it warm); a
    warm part whose code numba compiles all the same says so when the compile starts.
    """
    _ENSURED.add(part)  # the library's own check (ensure_compiled) stays quiet inside the block
    out = sys.stderr if stream is None else stream
    notice = _Notice(part, out)
    watch = _CompileWatch(notice)
    with contextlib.ExitStack() as stack:
        if not is_warm(part):
            stack.enter_context(_taking_turns(part, out, enabled))
        cold = not is_warm(part)
        if enabled:
            if cold:
                notice.show()
            event.register("numba:compile", watch)
            stack.callback(event.unregister, "numba:compile", watch)
        stack.callback(notice.stop)
        yield
        if cold:
            mark_warm(part)
    if enabled:
        notice.finish()


def _module(name: str) -> Any:
    """A module of this package, imported by name: the cache key (:mod:`uno_env.compiler.cache`) takes
    in what compiled modules import, and this module is one of those (Game and simulate call
    :func:`ensure_compiled`), so a plain import of the envs here would key the compiled
    engine on their source too."""
    return importlib.import_module(f"uno_env.{name}")


def _first_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _play_batch(every_path: bool) -> None:
    batch = _module("sim.batch")
    batch.simulate("uno", 2, 1, seed=0, policies=["greedy", "random"])
    if every_path:  # one policy for all seats, the invariant checks, the planning styles, a learned seat
        batch.simulate("uno", 2, 2, seed=0, policies="random")
        batch.simulate("uno", 2, 1, seed=0, policies=["greedy", "random"], check_invariants=True)
        batch.simulate("uno", 2, 1, seed=0, policies=["monte_carlo:samples=2,depth=5", "random"])
        # the engine with every rule: house-rule variants, and official Uno with full_engine (studies)
        batch.simulate("uno", 2, 1, seed=0, policies=["greedy", "random"], full_engine=True)
        shipped = _module("sim.learned").shipped_policies()
        if shipped:  # the lockstep loop of exported policies (studies and tournaments with one)
            batch.simulate(
                "uno", 2, 1, seed=0, policies=[next(iter(shipped)), "random"], allow_rules_mismatch=True
            )  # whichever player count the first shipped policy was trained for
        _search_from_python()


def _search_from_python() -> None:
    """The search's entry points called from Python, as the web table and replays call them:
    a decision with its visit counts (:meth:`~uno_env.styles.view.PublicView.search_with_counts`,
    the search and the oracle), each seat's win chances and the leaf value."""
    search, view = _module("styles.search"), _module("styles.view")
    game = _module("game.facade").Game("uno", 2, seed=0)
    params = _module("styles.registry").parse_policy("search:sims=4")[1]
    public = view.PublicView.of(game)
    for full in (False, True):
        visits, values = np.zeros(256, dtype=np.int64), np.zeros(256, dtype=np.float64)
        public.search_with_counts(params, game.legal_mask(), view.agent_generator(0, 0), full, visits, values)
    search.win_chances(game.state, game.compiled.spec, sims=2, seed=0)
    search.evaluate(game.state, game.compiled.spec, 0)


def _play_game(every_path: bool) -> None:
    game = _module("game.facade").Game("uno", 2, seed=0)
    game.step(game.legal_actions()[0])
    if every_path:  # a whole game, its outcome, positions and the invariant check
        while not game.is_over():
            game.step(game.legal_actions()[0])
        game.outcome()
        game.check_invariants()
        Game = _module("game.facade").Game
        Game.from_position("uno", Game("uno", 2, seed=1).position()).legal_actions()
        # a challenge's bluff flag is checked against its sender's hand (U-WD4-1)
        Game.from_position(
            "uno",
            "hands=R1 G2/R3 R4; discard=R9 WD4; draw=Y1; colour=G; seat=1; dir=+; phase=challenge; "
            "pending=4; bluff=1; before=R",
        )
        house = Game("uno_house", 2, seed=0)  # the engine with every rule (house-rule variants)
        while not house.is_over():
            house.step(house.legal_actions()[0])
        house.check_invariants()


def _play_vector(every_path: bool) -> None:
    VectorEnv = _module("envs.vector").VectorEnv
    env = VectorEnv(2, "uno", 2)
    env.reset(seed=0)
    env.step(env.action_masks().argmax(axis=1))
    if not every_path:
        return

    def batch_opponent(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.asarray(np.argmax(masks, axis=1))

    for opponents in ("random_playable", [batch_opponent]):
        vector = VectorEnv(2, "uno", 2, opponents=opponents, illegal_action="draw_penalty")
        _, info = vector.reset(seed=0)
        for _ in range(4):
            _, _, _, _, info = vector.step(np.argmax(info["action_mask"], axis=1))
        vector.reset()
    # random opponents compile a loop without the scripted styles; training pools (uno-env
    # train's default: random_playable greedy blocker@2 aggressor) need the one with them, and
    # the engine with every rule (house-rule variants) comes in both
    pool = _module("envs.vector").OpponentPool(["random_playable", "greedy", "blocker", "aggressor"])
    for rules, opponents in (("uno", pool), ("uno_house", "random_playable"), ("uno_house", pool)):
        table = VectorEnv(2, rules, 2, opponents=opponents, seat=None)
        table.reset(seed=0)
        table.step(table.action_masks().argmax(axis=1))


def _play_env(every_path: bool) -> None:
    aec = _module("envs.aec")
    table = aec.env("uno", 2)
    table.reset(seed=0)
    observation = table.last()[0]
    assert observation is not None
    table.step(int(observation["action_mask"].argmax()))
    if not every_path:
        return
    for rules, illegal in (("uno", "terminate"), ("uno", "draw_penalty"), ("uno_house", "terminate")):
        # whole games; U-WRONG-1's path too; the engine with every rule (house-rule variants)
        table = aec.env(rules, 2, illegal_action=illegal)
        table.reset(seed=0)
        if illegal == "draw_penalty":
            mask = table.observe(table.agent_selection)["action_mask"]
            table.step(int(np.flatnonzero(mask == 0)[0]))
        for agent in table.agent_iter(max_iter=10_000):
            _, _, terminated, truncated, _ = table.last()
            table.step(None if terminated or truncated else _first_legal(table.observe(agent)["action_mask"]))
    # another seat's view of an open out-of-turn window (H-JUMP-1): the AEC and Parallel envs
    house = _module("game.facade").Game("uno_house", 2, seed=0)
    _module("engine.engine").let_windows_pass(house.state.copy(), house.compiled.spec, 1, True)

    def python_opponent(obs: np.ndarray, mask: np.ndarray) -> int:
        return _first_legal(mask)

    SingleAgentEnv = _module("envs.single").SingleAgentEnv
    for opponents in ("random_playable", "greedy", [python_opponent]):  # random only, scripted, Python
        single = SingleAgentEnv("uno", 2, opponents=opponents, illegal_action="draw_penalty")
        _, info = single.reset(seed=0)
        single.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
        done = False
        while not done:
            _, _, terminated, truncated, info = single.step(_first_legal(info["action_mask"]))
            done = terminated or truncated


_WARM_UPS: dict[str, Callable[[bool], None]] = {
    "batch": _play_batch,
    "game": _play_game,
    "vector": _play_vector,
    "env": _play_env,
}
"""Each part's workload; ``True`` runs every path :func:`compile_all` compiles, ``False`` only
what its first use needs."""


def warm_up(part: str, *, enabled: bool = True, stream: TextIO | None = None) -> None:
    """Compile or load ``part`` (a tiny game through it), saying so while it compiles."""
    with compiling(part, enabled=enabled, stream=stream):
        _WARM_UPS[part](False)  # when warm, this loads the code (before a pool forks, a clock starts)


def compile_all(
    parts: Sequence[str] | None = None, progress: Callable[[str], Any] | None = None
) -> dict[str, float]:
    """Compile (or load from the cache) every compiled entry point of ``parts``; seconds per part.

    ``parts`` picks from :data:`PARTS` (default: all, in that order); ``progress`` gets one
    line per part as it starts and one as it ends (default: printed on stderr; ``print`` or a
    logger method work too). The code goes to the cache directory
    :data:`uno_env.compiler.cache.CACHE_DIR`, where every later process on this source, Python,
    numba and CPU finds it. A part already there loads in about a second.
    """
    names = list(PARTS) if parts is None else list(parts)
    unknown = [name for name in names if name not in PARTS]
    if unknown:
        raise ValueError(f"unknown engine part(s) {', '.join(unknown)}; parts: {', '.join(PARTS)}")
    report = progress if progress is not None else _to_stderr
    report(f"compiling the uno_env engine into {CACHE_DIR}")
    report(f"code target: {CODE_TARGET}; the install's compiled engine: {COMPILED_ENGINE}")
    seconds: dict[str, float] = {}
    total = time.perf_counter()
    for k, name in enumerate(names, 1):
        report(f"[{k}/{len(names)}] {name}: {PARTS[name][0]} ...")
        start = time.perf_counter()
        prefix = f"[{k}/{len(names)}] {name}: "
        with _heartbeat(report, prefix), compiling(name, enabled=False):
            _WARM_UPS[name](True)
        seconds[name] = time.perf_counter() - start
        report(f"[{k}/{len(names)}] {name}: done in {seconds[name]:.1f} s")
    report(f"compiled in {time.perf_counter() - total:.1f} s")
    return seconds


@contextmanager
def _heartbeat(report: Callable[[str], Any], prefix: str) -> Iterator[None]:
    """While the block runs, ``report`` a line (after ``prefix``) at least every
    :data:`HEARTBEAT_SECONDS`: the seconds so far, the functions numba has compiled and the one
    it is compiling (numba's ``numba:compile`` events)."""
    from numba.core import event

    start = time.perf_counter()
    done = threading.Event()
    state: dict[str, Any] = {"compiled": 0, "now": ""}

    class Watch(event.Listener):
        def on_start(self, ev: Any) -> None:
            state["now"] = getattr(ev.data["dispatcher"].py_func, "__qualname__", "")

        def on_end(self, ev: Any) -> None:
            state["compiled"] += 1

    def beat() -> None:
        while not done.wait(HEARTBEAT_SECONDS):
            now = f"; compiling {state['now']}" if state["now"] else ""
            elapsed = time.perf_counter() - start
            report(f"{prefix}{elapsed:.0f} s, {state['compiled']} functions compiled{now} ...")

    watch = Watch()
    event.register("numba:compile", watch)
    thread = threading.Thread(target=beat, name="compile-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        event.unregister("numba:compile", watch)


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def ensure_compiled(part: str) -> None:
    """Warm ``part`` up the first time this process asks (a set lookup afterwards)."""
    if part in _ENSURED:
        return
    _ENSURED.add(part)  # first, so the warm-up game does not come back here
    if not is_warm(part):
        warm_up(part)
