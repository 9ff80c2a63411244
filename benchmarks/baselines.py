"""Speed baselines: third-party card-game engines driven by random legal play.

Each benchmark plays whole games, choosing a uniformly random legal action at
every decision, until at least ``min_seconds`` of wall time (``time.perf_counter``)
have passed, and returns ``{"steps": ..., "games": ..., "seconds": ...}`` where a
step is one player decision; ``"cpu_seconds"`` is the process CPU time
(``time.process_time``) of the same timed region, which is less than ``"seconds"`` when other
processes compete for the CPU.  Game set-up (deal / reset) is inside the timed
region; constructing the game object and importing the library are not.

Engines measured:

* RLCard 1.2.0 Uno, raw ``rlcard.games.uno.game.UnoGame`` (``rlcard_engine``).
* RLCard 1.2.0 Uno through ``rlcard.make("uno")`` (``rlcard_env``), which adds
  observation encoding and action-id decoding on every step.
* OpenSpiel ``crazy_eights`` through ``pyspiel`` (``openspiel_crazy_eights``).
  Chance nodes (dealing, drawing) are sampled but not counted as steps; their
  number is returned under the extra key ``"chance_steps"``.

RLCard and OpenSpiel are optional dependencies (the ``bench`` extra), so they
are imported inside the functions only.

Random numbers for action choice come from a seeded ``numpy.random.Generator``,
drawn in blocks of 62-bit integers and reduced modulo the number of legal
actions (bias < 2**-55), so that the driver loop costs as little as possible
compared with the engine being measured.

RLCard caveats (1.2.0):

* ``rlcard.make("uno", config={"game_num_players": 4})`` silently ignores the
  player count: ``Env.__init__`` forwards ``game_*`` keys only for blackjack and
  the hold'em games, so the env is always 2-player.  ``rlcard_env`` therefore
  calls the public ``env.game.configure({"game_num_players": n})`` and sets
  ``env.num_players`` after ``make``.  ``UnoGame(num_players=4)`` works directly.
* With more than 2 players ``UnoGame.get_payoffs`` is wrong (it sets
  ``payoffs[1 - winner] = -1``), which does not affect speed.

Run ``python benchmarks/baselines.py`` (pinned to one CPU by default).
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import time
from collections.abc import Iterator, Sequence

import numpy as np

BENCH_REQUIREMENTS = {"rlcard": "rlcard==1.2.0", "pyspiel": "open-spiel>=1.5"}
"""The engines measured here: module imported, pip requirement (the ``bench`` extra of pyproject.toml)."""


class MissingBenchDependencyError(ImportError):
    """An engine of the ``bench`` extra is not installed; the message names it and how to install it."""


def require_bench(module: str) -> None:
    """Import ``module`` (a key of :data:`BENCH_REQUIREMENTS`) or raise :class:`MissingBenchDependencyError`.

    Only the module's own absence is translated: a module that is installed but fails to import
    (a broken dependency of it) raises its own error.
    """
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        requirement = BENCH_REQUIREMENTS[module]
        package = re.split("[=<>]", requirement)[0]
        raise MissingBenchDependencyError(
            f"{package} is not installed (no module {module!r}); install the bench extra: "
            f"pip install -e '.[bench]' (or pip install '{requirement}')"
        ) from exc


RLCARD_RULES = {
    "dealer": "random",  # RLCard has no dealer: player 0 starts; the first mover is compared
    "start_card": "official",  # a starting Wild Draw Four goes back; Skip, Reverse as official
    "draw": "one",
    "drawn_card": "must_play",  # RLCard plays a playable drawn card itself
    "draw_when_playable": False,  # 'draw' is legal only with nothing to lay
    "reverse_with_two": "reverse",  # with two players a Reverse only reverses: the other plays
    "wd4_legal_when": "no_playable_card",  # a Wild Draw Four only with nothing else to lay
    "wd4_bluff": "refused",  # so no bluff and no challenge
    "call": "none",  # no UNO call
    "max_decisions": 10_000_000,  # RLCard has no limit
}
"""The switches that set this engine to RLCard 1.2.0's Uno rules as far as they reach."""

UNEXPRESSED = (
    "a starting Draw Two: the first player draws two and still plays first (here, as in the "
    "official rules, that player is skipped)",
    "a drawn card is played by the engine when it has the target's colour or is a wild, and kept "
    "when it matches by number or symbol only (here any playable drawn card must be played)",
    "a drawn Wild Draw Four is played as a plain wild: the next player draws nothing",
    "the colour of a drawn wild and of a starting wild is picked by the engine at random (here "
    "the player names it; the random player picks uniformly, the same distribution)",
    "the reshuffle takes the whole discard pile back, its top card included",
    "no dealer: player 0 always starts (here a random dealer; the first mover is compared)",
)
"""RLCard 1.2.0 rules no switch of this engine expresses."""

_BLOCK = 4096
_RAND_HIGH = 1 << 62


def _random_ints(rng: np.random.Generator) -> Iterator[int]:
    """Yield an endless stream of uniform integers in ``[0, 2**62)``.

    Drawing in blocks keeps the per-decision cost of the driver to one
    generator ``next`` and one modulo.

    Args:
        rng: Seeded NumPy generator supplying the randomness.

    Yields:
        Non-negative Python ints below ``2**62``.
    """
    while True:
        yield from rng.integers(0, _RAND_HIGH, size=_BLOCK, dtype=np.int64).tolist()


def _result(steps: int, games: int, seconds: float, cpu_seconds: float, **extra: int) -> dict[str, float]:
    """Pack benchmark counters into the common result dict.

    Args:
        steps: Player decisions taken.
        games: Complete games played.
        seconds: Elapsed wall time of the timed region.
        cpu_seconds: Process CPU time (``time.process_time``) of the timed region.
        **extra: Additional counters to include.

    Returns:
        ``{"steps": steps, "games": games, "seconds": seconds, "cpu_seconds": cpu_seconds, **extra}``.
    """
    out: dict[str, float] = {"steps": steps, "games": games, "seconds": seconds, "cpu_seconds": cpu_seconds}
    out.update(extra)
    return out


def rlcard_engine(num_players: int, min_seconds: float, seed: int) -> dict[str, float]:
    """Benchmark RLCard 1.2.0's raw Uno game object with random legal play.

    Uses ``UnoGame(num_players=...)``: ``init_game`` per game, then the legal
    actions returned in each state by ``init_game``/``step`` (identical to
    ``get_legal_actions()``, which would recompute them) until ``is_over()``.
    The engine's own shuffling RNG is a ``RandomState`` seeded with ``seed``.

    Args:
        num_players: Number of players (2 to 10 work in RLCard's engine).
        min_seconds: Keep playing whole games until this much time has passed.
        seed: Seed for both the engine's RNG and the action-choice generator.

    Returns:
        Dict with ``steps`` (player decisions), ``games``, ``seconds`` and ``cpu_seconds``.
    """
    require_bench("rlcard")
    from rlcard.games.uno.game import UnoGame

    game = UnoGame(num_players=num_players)
    game.np_random = np.random.RandomState(seed)
    rand = _random_ints(np.random.default_rng(seed))
    step = game.step
    is_over = game.is_over

    steps = games = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    while True:
        state, _ = game.init_game()
        while not is_over():
            legal = state["legal_actions"]
            state, _ = step(legal[next(rand) % len(legal)])
            steps += 1
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return _result(steps, games, elapsed, time.process_time() - cpu_start)


def rlcard_env(num_players: int, min_seconds: float, seed: int) -> dict[str, float]:
    """Benchmark RLCard 1.2.0's Uno environment (``rlcard.make("uno")``).

    Loop: ``env.reset()``, then ``env.step(action_id)`` with an id drawn
    uniformly from ``state["legal_actions"]`` until ``env.is_over()``.  Because
    the env ignores ``game_num_players`` for Uno, the player count is applied
    after construction via ``env.game.configure`` (see module docstring).

    Args:
        num_players: Number of players.
        min_seconds: Keep playing whole games until this much time has passed.
        seed: Passed as the env's ``seed`` config and seeds action choice.

    Returns:
        Dict with ``steps`` (player decisions), ``games``, ``seconds`` and ``cpu_seconds``.
    """
    require_bench("rlcard")
    import rlcard

    env = rlcard.make("uno", config={"game_num_players": num_players, "seed": seed})
    if env.num_players != num_players:
        env.game.configure({"game_num_players": num_players})
        env.num_players = num_players
    rand = _random_ints(np.random.default_rng(seed))
    step = env.step
    is_over = env.is_over

    steps = games = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    while True:
        state, _ = env.reset()
        while not is_over():
            legal = list(state["legal_actions"])
            state, _ = step(legal[next(rand) % len(legal)])
            steps += 1
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return _result(steps, games, elapsed, time.process_time() - cpu_start)


def openspiel_crazy_eights(num_players: int, min_seconds: float, seed: int) -> dict[str, float]:
    """Benchmark OpenSpiel's ``crazy_eights`` with random legal play.

    Game parameters other than ``players`` are OpenSpiel's defaults
    (``max_draw_cards=5``, ``max_turns=100``, ``reshuffle=False``,
    ``use_special_cards=False``).  Chance outcomes are sampled from
    ``state.chance_outcomes()``; in ``crazy_eights`` they are always uniform,
    so equal first/last probabilities take a direct indexed pick, otherwise the
    cumulative distribution is scanned.  Note that with ``reshuffle=False``
    most random games end with an empty deck and every player passing rather
    than with a player going out (about 86% at 2 players, 65% at 4).

    Args:
        num_players: Number of players (OpenSpiel allows 2 to 15).
        min_seconds: Keep playing whole games until this much time has passed.
        seed: Seed of the generator used for chance and action sampling.

    Returns:
        Dict with ``steps`` (player decisions only), ``games``, ``seconds``, ``cpu_seconds``
        and ``chance_steps`` (chance-node actions applied).
    """
    require_bench("pyspiel")
    import pyspiel

    game = pyspiel.load_game("crazy_eights", {"players": num_players})
    rng = np.random.default_rng(seed)
    rand = _random_ints(rng)

    steps = chance_steps = games = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                if outcomes[0][1] == outcomes[-1][1]:
                    action = outcomes[next(rand) % len(outcomes)][0]
                else:
                    u = rng.random()
                    action = outcomes[-1][0]
                    for a, p in outcomes:
                        u -= p
                        if u < 0.0:
                            action = a
                            break
                state.apply_action(action)
                chance_steps += 1
            else:
                legal = state.legal_actions()
                state.apply_action(legal[next(rand) % len(legal)])
                steps += 1
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return _result(steps, games, elapsed, time.process_time() - cpu_start, chance_steps=chance_steps)


def pin_to_one_cpu(cpu: int | None) -> int | None:
    """Restrict this process to a single CPU to reduce timing noise.

    Args:
        cpu: CPU index to use; ``None`` picks the last CPU currently allowed.

    Returns:
        The CPU pinned to, or ``None`` if affinity is not supported here.
    """
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    target = allowed[-1] if cpu is None else cpu
    os.sched_setaffinity(0, {target})
    return target


def main(argv: Sequence[str] | None = None) -> int:
    """Run every baseline once at 2 and 4 players and print the rates.

    An engine that is not installed gets one line saying which package to install instead of its
    rates; the exit status is 1 when no engine could be measured.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="min seconds per run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu", type=int, default=None, help="CPU to pin to")
    parser.add_argument("--no-pin", action="store_true", help="do not pin to one CPU")
    args = parser.parse_args(argv)

    cpu = None if args.no_pin else pin_to_one_cpu(args.cpu)
    print(f"pinned to cpu {cpu}" if cpu is not None else "not pinned")
    benches = [
        ("rlcard_engine", rlcard_engine),
        ("rlcard_env", rlcard_env),
        ("openspiel_crazy_eights", openspiel_crazy_eights),
    ]
    header = f"{'benchmark':<24}{'players':>8}{'steps/s':>12}{'games/s':>10}{'steps/game':>12}"
    print(header)
    measured = 0
    for name, fn in benches:
        for n in (2, 4):
            try:
                r = fn(n, args.seconds, args.seed)
            except MissingBenchDependencyError as exc:
                print(f"{name:<24}{n:>8}  skipped: {exc}", flush=True)
                continue
            measured += 1
            sps = r["steps"] / r["seconds"]
            gps = r["games"] / r["seconds"]
            spg = r["steps"] / r["games"]
            line = f"{name:<24}{n:>8}{sps:>12,.0f}{gps:>10,.1f}{spg:>12.1f}"
            if "chance_steps" in r:
                line += f"  (+{r['chance_steps'] / r['games']:.1f} chance/game)"
            print(line, flush=True)
    return 0 if measured else 1


if __name__ == "__main__":
    raise SystemExit(main())
