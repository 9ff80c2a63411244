"""Determinism (E-SEED-1): a seed fixes a game everywhere (the facade, the batch, another
process, uncompiled).

Every chance event comes from the game's own generator (in its state buffer), so the same
seed and the same decisions give the same game; ``clone()`` copies the generator; game ``i``
of ``simulate(..., seed=s)`` is dealt like ``Game(rules, n, seed=s + i)`` and its compiled
random policy draws from the game's separate agent generator, which a facade replay can copy.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import uno_env
from uno_env import Game
from uno_env.engine import engine
from uno_env.engine import layout as L
from uno_env.engine.rng import rand_below
from uno_env.engine.rules import compile_spec
from uno_env.game.position import format_position

REPO_ROOT = Path(__file__).resolve().parent.parent
RESULT_FIELDS = ("winner", "length", "ranking", "scores", "round_points", "rounds")


def _play(game: Game, chooser: random.Random, limit: int) -> list[str]:
    """Step ``game`` with random legal actions; the positions after each step."""
    positions = []
    for _ in range(limit):
        if game.is_over():
            break
        game.step(chooser.choice(game.legal_actions()))
        positions.append(game.position())
    return positions


def test_same_seed_same_game() -> None:
    first, second = Game("uno", 4, seed=2024), Game("uno", 4, seed=2024)
    assert first.position() == second.position()
    chooser = random.Random(5)
    steps = 0
    while not first.is_over():
        action = chooser.choice(first.legal_actions())
        first.step(action)
        second.step(action)
        assert second.position() == first.position()
        assert second.legal_actions() == first.legal_actions()
        steps += 1
    assert second.history == first.history
    assert len(first.history) == steps == first.decisions
    assert second.outcome() == first.outcome()


def test_same_seed_and_chooser_give_the_same_transcript() -> None:
    one = _play(Game("uno", 3, seed=9), random.Random(9), 10_000)
    two = _play(Game("uno", 3, seed=9), random.Random(9), 10_000)
    assert one == two


def test_different_seeds_deal_different_games() -> None:
    deals = [Game("uno", 4, seed=s).position() for s in range(30)]
    assert len(set(deals)) == len(deals)
    a = uno_env.simulate("uno", 4, 50, seed=0)
    b = uno_env.simulate("uno", 4, 50, seed=50_000)
    assert not np.array_equal(a.length, b.length)


def test_random_seed_is_kept_and_replays() -> None:
    game = Game("uno", 4)
    assert 0 <= game.seed < 2**63
    assert Game("uno", 4, seed=game.seed).position() == game.position()


@pytest.mark.parametrize("bad", [-1, 2**63, 1.5, "7"])
def test_bad_seed_is_refused(bad: Any) -> None:
    with pytest.raises(ValueError, match=r"seed must be an integer in 0\.\.2\*\*63-1"):
        Game("uno", 4, seed=bad)


def test_large_seeds_are_distinct() -> None:
    seeds = [2**63 - 1, 2**63 - 2, 2**32, 2**32 + 1, 0, 1]
    deals = [Game("uno", 2, seed=s).position() for s in seeds]
    assert len(set(deals)) == len(deals)


def test_clone_is_independent_and_continues_identically() -> None:
    game = Game("uno", 2, seed=77)
    chooser = random.Random(77)
    _play(game, chooser, 40)
    copy = game.clone()
    snapshot, history = copy.position(), list(copy.history)
    state = copy.state.copy()

    chooser_state = chooser.getstate()
    rest = _play(game, chooser, 20_000)
    assert game.is_over()
    assert copy.position() == snapshot
    assert copy.history == history
    assert np.array_equal(copy.state, state), "stepping the original changed the clone"

    chooser.setstate(chooser_state)
    assert _play(copy, chooser, 20_000) == rest
    assert copy.history == game.history
    assert copy.outcome() == game.outcome()


def test_clone_copies_the_chance_generator_through_reshuffles() -> None:
    """U-DRAW-4 reshuffles draw on the generator: a clone reshuffles the same way."""
    game = Game("uno", 2, seed=4)
    chooser = random.Random(4)
    reshuffles = 0
    while not game.is_over() and reshuffles < 3:
        before = game.draw_pile_size
        copy = game.clone()
        action = chooser.choice(game.legal_actions())
        game.step(action)
        copy.step(action)
        assert copy.position() == game.position()
        if game.draw_pile_size > before:
            reshuffles += 1
    assert reshuffles >= 1, "the game never reshuffled; pick a longer game"


def test_simulate_is_repeatable() -> None:
    a = uno_env.simulate("uno", 5, 40, seed=123)
    b = uno_env.simulate("uno", 5, 40, seed=123)
    for name in RESULT_FIELDS:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert (a.rules, a.num_players, a.seed) == (b.rules, b.num_players, b.seed)
    assert a.rules == str(uno_env.preset("uno"))


def test_batch_game_i_is_dealt_like_game_seed_plus_i() -> None:
    rules = uno_env.preset("uno")
    spec = compile_spec(rules)
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    for n in (2, 4, 10):
        for i in range(8):
            engine.new_game(state, spec, n, rules.deck_counts(n), 1000 + i, 0, True)
            dealt = format_position(state, compile_spec(rules), rules.deck_family)
            assert dealt == Game(rules, n, seed=1000 + i).position()


def _replay_batch_game(rules: uno_env.RuleSet, n: int, seed: int) -> dict[str, Any]:
    """Play game ``seed`` on the facade choosing as the batch's compiled random policy does."""
    game = Game(rules, n, seed=seed)
    agent_rng = game.state[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS].copy()
    while not game.is_over():
        legal = game.legal_actions()
        game.step(legal[rand_below(agent_rng, 0, len(legal))])
    outcome = game.outcome()
    assert outcome is not None
    return {
        "winner": -1 if outcome.winner is None else outcome.winner,
        "length": outcome.decisions,
        "ranking": list(outcome.ranking) if outcome.ranking else [-1] * n,
        "scores": list(outcome.scores),
        "round_points": list(outcome.round_points),
        "rounds": outcome.rounds,
    }


@pytest.mark.parametrize(("n", "overrides"), [(2, {}), (3, {}), (10, {}), (4, {"max_decisions": 40})])
def test_batch_games_replay_exactly_on_the_facade(n: int, overrides: dict[str, Any]) -> None:
    rules = uno_env.load_rules("uno", **overrides)
    result = uno_env.simulate(rules, n, 4, seed=500)
    for i in range(result.num_games):
        replay = _replay_batch_game(rules, n, 500 + i)
        for name in RESULT_FIELDS:
            batch_value = getattr(result, name)[i]
            batch_value = batch_value.tolist() if isinstance(batch_value, np.ndarray) else int(batch_value)
            assert replay[name] == batch_value, (i, name)
    if overrides:
        assert result.truncated.all() and (result.length == 40).all()


# ---------------------------------------------------------------- across processes
def record(games: int, facade_limit: int) -> dict[str, Any]:
    """A seeded facade game and a seeded batch, as plain data (run in and out of process)."""
    game = Game("uno", 3, seed=31337)
    positions = _play(game, random.Random(31337), facade_limit)
    result = uno_env.simulate("uno", 4, games, seed=99)
    return {
        "final_position": game.position(),
        "positions_digest": hash_lines(positions),
        "history": game.history,
        "simulate": {name: getattr(result, name).tolist() for name in RESULT_FIELDS},
    }


def hash_lines(lines: list[str]) -> str:
    """A stable digest of many lines (not Python's salted ``hash``)."""
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _record_in_subprocess(games: int, facade_limit: int, **env: str) -> dict[str, Any]:
    code = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(REPO_ROOT)!r})\n"
        "from tests.test_determinism import record\n"
        f"print(json.dumps(record({games}, {facade_limit})))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    data: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    return data


def _as_json(data: dict[str, Any]) -> dict[str, Any]:
    converted: dict[str, Any] = json.loads(json.dumps(data))
    return converted


def test_same_results_in_another_process() -> None:
    """Another interpreter (with a different string-hash salt) plays the same games."""
    here = _as_json(record(20, 100_000))
    there = _record_in_subprocess(20, 100_000, PYTHONHASHSEED="12345")
    assert there["final_position"] == here["final_position"]
    assert there == here


def test_same_results_uncompiled() -> None:
    """The generator and the rules give the same numbers under NUMBA_DISABLE_JIT=1."""
    here = _as_json(record(1, 600))
    there = _record_in_subprocess(1, 600, NUMBA_DISABLE_JIT="1")
    assert there["final_position"] == here["final_position"]
    assert there == here
