"""Engine invariants after every decision of random games (E-CONS-1, E-END-1).

The compiled batch checks :func:`uno_env.engine.engine.check_invariants` after every decision of
at least a million random decisions per preset over every allowed player count; the facade
checks :meth:`uno_env.Game.check_invariants` (which also compares the cached legal mask)
after every step of a few whole games. Every game ends: won, or truncated exactly at the
decision limit (E-END-1).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

import uno_env
from uno_env import BatchResult, Game, Phase, RuleError, RuleSet

DECISIONS_PER_PRESET = 1_000_000
BATCH_GAMES = 16  # games per batch; batches repeat (new seeds) until the quota is met
FACADE_GAMES = 2  # whole games per player count on the facade


def _check_results(rules: RuleSet, n: int, result: BatchResult) -> None:
    """E-END-1 and the result arrays' own consistency."""
    won = result.winner >= 0
    truncated = result.truncated
    assert (won | truncated).all()
    assert (result.length[truncated] == rules.max_decisions).all(), "truncated before the limit"
    assert (result.length[won] <= rules.max_decisions).all()
    assert (result.length > 0).all()
    assert (result.winner < n).all()
    for g in range(result.num_games):
        if won[g]:
            assert sorted(result.ranking[g].tolist()) == list(range(n)), result.ranking[g]
            assert result.ranking[g, 0] == result.winner[g]
            assert result.rounds[g] >= 1
        else:
            assert (result.ranking[g] == -1).all()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(uno_env.PRESETS))
def test_a_million_random_decisions_keep_the_invariants(name: str) -> None:
    rules = uno_env.preset(name)
    counts = list(range(rules.min_players, rules.max_players + 1))
    quota = -(-DECISIONS_PER_PRESET // len(counts))  # per player count, rounded up
    total = 0
    seed = 0
    for n in counts:
        decisions = 0
        while decisions < quota:
            result = uno_env.simulate(rules, n, BATCH_GAMES, seed=seed, check_invariants=True)
            _check_results(rules, n, result)
            decisions += int(result.length.sum())
            seed += BATCH_GAMES
        total += decisions
    assert total >= DECISIONS_PER_PRESET


def _derive(base: RuleSet, **changes: Any) -> RuleSet | None:
    """``dataclasses.replace`` with field names chosen at run time; None if the rule set
    refuses the change on its own (e.g. a French deck with Uno's dealer draw)."""
    try:
        return dataclasses.replace(base, **changes)
    except RuleError:
        return None


def _one_switch_variants() -> dict[str, RuleSet]:
    """The uno preset with each choice / switch changed, plus a few parameter extremes."""
    base = uno_env.preset("uno")
    out: dict[str, RuleSet] = {}
    for f in dataclasses.fields(base):
        current = getattr(base, f.name)
        candidates: list[Any] = []
        if isinstance(current, bool):
            candidates = [not current]
        elif f.metadata["choices"]:
            candidates = [c for c in f.metadata["choices"] if c != current]
        for value in candidates:
            variant = _derive(base, **{f.name: value})
            if variant is not None:
                out[f"{f.name}={value}"] = variant
    extremes: dict[str, dict[str, Any]] = {
        "hand_size=1": {"hand_size": 1},
        "hand_size=10": {"hand_size": 10},  # the most a 10-player deal allows
        "uno_catch=0.5": {"uno_catch": 0.5},
        "no_penalties": {"uno_penalty": 0, "challenge_penalty": 0},
        "max_decisions=10": {"max_decisions": 10},
        "first_to_target=100": {"match": "first_to_target", "target": 100},
        "lowest_total=100": {"match": "lowest_total", "target": 100},
    }
    for label, overrides in extremes.items():
        out[label] = dataclasses.replace(base, **overrides)
    return out


VARIANTS = _one_switch_variants()


@pytest.mark.parametrize("label", sorted(VARIANTS))
def test_rule_variants_keep_the_invariants(label: str) -> None:
    rules = VARIANTS[label]
    for n in (2, 3, 5, 10):
        result = uno_env.simulate(rules, n, 6, seed=n, check_invariants=True)
        _check_results(rules, n, result)


@pytest.mark.parametrize("name", sorted(uno_env.PRESETS))
def test_facade_invariants_after_every_step(name: str) -> None:
    rules = uno_env.preset(name)
    rng = np.random.default_rng(2024)
    for n in range(rules.min_players, rules.max_players + 1):
        for k in range(FACADE_GAMES):
            game = Game(rules, n, seed=10 * n + k)
            game.check_invariants()
            while not game.is_over():
                legal = game.legal_actions()
                assert legal, game.position()
                assert legal == np.flatnonzero(game.legal_mask()).tolist()
                assert 0 <= game.current_player < n
                assert game.phase != Phase.OVER
                assert game.outcome() is None
                game.step(legal[int(rng.integers(len(legal)))])
                game.check_invariants()
            outcome = game.outcome()
            assert outcome is not None
            assert game.legal_actions() == [] and not game.legal_mask().any()
            assert game.phase == Phase.OVER and game.current_player == -1
            assert outcome.decisions == len(game.history) == game.decisions
            if outcome.truncated:
                assert outcome.winner is None and outcome.ranking == ()
                assert outcome.reason == "turn_limit"
                assert outcome.decisions == rules.max_decisions
            else:
                assert outcome.winner is not None and 0 <= outcome.winner < n
                assert sorted(outcome.ranking) == list(range(n))
                assert outcome.ranking[0] == outcome.winner
                assert outcome.decisions <= rules.max_decisions


def test_an_illegal_step_leaves_the_game_unchanged() -> None:
    game = Game("uno", 3, seed=8)
    before, mask = game.position(), game.legal_mask()
    illegal = next(a for a in range(game.num_actions) if not mask[a])
    with pytest.raises(uno_env.IllegalActionError) as exc:
        game.step(illegal)
    assert exc.value.legal == game.legal_actions()
    assert exc.value.position == before
    assert game.position() == before and np.array_equal(game.legal_mask(), mask)
    assert game.history == []
    game.check_invariants()


def test_a_false_proof_is_a_broken_invariant() -> None:
    """U-DRAW-3, U-WD4-2: a proven record (``void``) is a fact about the hand; the check finds
    a hand holding more cards of its faces than the record's count allows."""
    from uno_env.engine import layout as L

    game = Game("uno", 2, seed=3)
    game.check_invariants()
    seat = 0
    held = int(np.flatnonzero(game.state[L.HANDS : L.HANDS + L.MAX_FACES])[0])  # a face seat 0 holds
    game.state[L.VOID_FACES + seat] = 1 << held
    game.state[L.VOID_SLACK + seat] = 0
    with pytest.raises(AssertionError, match="proven to lack"):
        game.check_invariants()
    game.state[L.VOID_SLACK + seat] = int(game.state[L.HANDS + held])  # as many as it holds: true
    game.check_invariants()
