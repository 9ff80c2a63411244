"""Property tests over random combinations of the Uno-deck rule switches.

Rules may combine freely (STYLE.md): whatever switches of the rule reference
(``docs/rules.md``) are on together, every game must keep the engine invariants after every
decision (E-CONS-1 card conservation, non-negative counts, a legal action for the player to
move) and end (E-END-1: won, or truncated exactly at ``max_decisions``).

- :func:`test_random_rule_combinations_keep_the_invariants` draws a :class:`RuleSet` from
  every Uno-deck house switch and option (H-STACK-1 tables, H-REFLECT-1, H-SEVEN-1,
  H-ZERO-1, H-JUMP-1, H-MULTI-1/2, H-SEQ-1, H-LASTONE-1, H-EIGHT-1, H-TWO-1, H-NOFINISH-1,
  H-ACTION-1, H-REACT-1, H-ZEROSEE-1, U-DECK-2 / M-STAR-1, U-DRAW-1..3, U-WD4-1/2, U-UNO-1,
  U-SCORE-2/3, E-END-1) and a player count, and plays random games in compiled code with
  the invariants checked after every decision.
- The facade tests step :class:`~uno_env.Game` with a seeded random chooser, check the
  invariants after every step and read the position back at sampled steps (every phase
  in the middle of a play must round-trip through position notation with the same legal
  actions).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from uno_env import Game, RuleError, RuleSet, simulate
from uno_env.engine.rules import HOUSE_STACKING, load_rules

STACK_PAIRS = ("D2/D2", "WD4/WD4", "WD4/D2", "D2/WD4")


@st.composite
def uno_rule_sets(draw: st.DrawFn) -> dict[str, Any]:
    """Keyword arguments of a RuleSet: every Uno-deck house switch and option, small targets."""
    pairs = draw(st.lists(st.sampled_from(STACK_PAIRS), unique=True, max_size=4))
    return {
        "stacking": tuple(pairs),
        "stack_growth": draw(st.sampled_from(("add", "double"))),
        "reverse_reflects": draw(st.booleans()),
        "seven_swap": draw(st.booleans()),
        "zero_rule": draw(st.sampled_from(("none", "rotate", "swap_optional", "swap", "discard_colour"))),
        "zero_rule_rank": draw(st.integers(0, 1)),
        "jump_in": draw(st.booleans()),
        "multi_play": draw(st.sampled_from(("none", "identical", "same_rank"))),
        "runs": draw(st.booleans()),
        "multi_leave_one": draw(st.booleans()),
        "eight_again": draw(st.booleans()),
        "two_gives": draw(st.booleans()),
        "no_finish_on_action": draw(st.booleans()),
        "action_same_symbol": draw(st.booleans()),
        "react_nine": draw(st.booleans()),
        "react_seven": draw(st.booleans()),
        "react_penalty": draw(st.integers(1, 4)),
        "zero_reveals": draw(st.booleans()),
        "cube": draw(st.booleans()),
        "super_stars": draw(st.integers(0, 8)),
        "custom_wilds": draw(st.integers(0, 8)),
        "draw": draw(st.sampled_from(("one", "until_playable", "one_then_any", "one_then_pass"))),
        "drawn_card": draw(st.sampled_from(("may_keep", "must_play"))),
        "draw_when_playable": draw(st.booleans()),
        "reverse_with_two": draw(st.sampled_from(("skip", "reverse"))),
        "start_reverse": draw(st.sampled_from(("dealer_first", "as_dealers_play"))),
        "wd4_bluff": draw(st.sampled_from(("challenge", "unpunished", "refused"))),
        "wd4_legal_when": draw(
            st.sampled_from(("no_matching_colour", "no_playable_card", "no_playable_number_card"))
        ),
        "challenge_colour": draw(st.sampled_from(("annulled", "stands"))),
        "challenge_penalty": draw(st.integers(0, 4)),
        "call": draw(st.sampled_from(("uno", "mau_mau", "none"))),
        "uno_penalty": draw(st.integers(0, 5)),
        "uno_catch": draw(st.sampled_from((0.0, 0.5, 1.0))),
        "last_card_draw": draw(st.booleans()),
        "end": draw(st.sampled_from(("first_out", "first_out", "last_player"))),
        "match": draw(st.sampled_from(("single_round", "first_to_target", "lowest_total"))),
        "target": draw(st.integers(1, 150)),
        "max_decisions": draw(st.one_of(st.integers(10, 300), st.integers(1000, 4000))),
    }


def _build(kwargs: dict[str, Any]) -> RuleSet:
    """The RuleSet of ``kwargs``; combinations the RuleSet rejects are skipped (assume)."""
    try:
        return RuleSet(**kwargs)
    except RuleError:
        assume(False)
        raise  # unreachable: assume(False) raises


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kwargs=uno_rule_sets(),
    num_players=st.integers(2, 10),
    seed=st.integers(0, 2**31),
    policy=st.sampled_from(("random", "random", "greedy")),
)
def test_random_rule_combinations_keep_the_invariants(
    kwargs: dict[str, Any], num_players: int, seed: int, policy: str
) -> None:
    """E-CONS-1, E-END-1 under any combination of switches: invariants hold after every
    decision (checked in compiled code) and every game is won or truncated at the limit."""
    rules = _build(kwargs)
    games = 6
    result = simulate(rules, num_players, games, seed=seed, policies=policy, check_invariants=True)
    for i in range(games):
        winner = int(result.winner[i])
        length = int(result.length[i])
        if winner >= 0:
            assert 0 <= winner < num_players
            assert 0 < length <= rules.max_decisions
            assert sorted(result.ranking[i].tolist()) == list(range(num_players))
            assert int(result.ranking[i][0]) == winner
        else:
            assert length == rules.max_decisions, (i, length, str(rules))
            assert result.ranking[i].tolist() == [-1] * num_players
        assert (result.scores[i] >= 0).all()


# ================================================================ the facade
def _play_facade(rules: RuleSet, num_players: int, seed: int, steps: int, every: int) -> int:
    """Step a game with a seeded random chooser; check invariants after every step and the
    position round trip at every ``every``-th step and in every mid-play phase. Returns
    the number of round trips checked."""
    chooser = random.Random(seed)
    game = Game(rules, num_players, seed=seed)
    game.check_invariants()
    trips = 0
    for step in range(steps):
        if game.is_over():
            break
        if step % every == 0 or game.phase.name not in ("PLAY", "PLAY_DRAWN"):
            text = game.position()
            copy = Game.from_position(rules, text)
            assert copy.position() == text, f"\n got: {copy.position()}\nwant: {text}"
            assert copy.legal_actions() == game.legal_actions(), text
            assert copy.phase == game.phase and copy.current_player == game.current_player
            trips += 1
        game.step(chooser.choice(game.legal_actions()))
        game.check_invariants()
    if game.is_over():
        outcome = game.outcome()
        assert outcome is not None
        assert outcome.truncated == (outcome.winner is None)
        if outcome.truncated:
            assert game.decisions == rules.max_decisions
    return trips


FACADE_CASES: list[tuple[str, dict[str, Any]]] = [
    ("uno_house", {}),
    ("uno_mario", {"stacking": HOUSE_STACKING, "reverse_reflects": True, "jump_in": True}),
    (
        "uno",
        {
            "multi_play": "identical",
            "runs": True,
            "multi_leave_one": True,
            "no_finish_on_action": True,
            "stacking": ("D2/D2", "D2/WD4"),
        },
    ),
    (
        "uno",
        {
            "multi_play": "same_rank",
            "two_gives": True,
            "eight_again": True,
            "zero_rule": "discard_colour",
            "zero_reveals": True,
            "jump_in": True,
        },
    ),
    (
        "uno",
        {
            "seven_swap": True,
            "zero_rule": "swap_optional",
            "zero_rule_rank": 1,
            "action_same_symbol": True,
            "react_nine": True,
            "react_seven": True,
            "end": "last_player",
        },
    ),
    (
        "uno_mario",
        {
            "zero_rule": "swap",
            "zero_reveals": True,
            "two_gives": True,
            "jump_in": True,
            "match": "first_to_target",
            "target": 60,
        },
    ),
]


@pytest.mark.parametrize(
    ("preset", "overrides"), FACADE_CASES, ids=[f"{p}-{i}" for i, (p, _) in enumerate(FACADE_CASES)]
)
@pytest.mark.parametrize("num_players", [2, 4, 7])
def test_facade_games_keep_invariants_and_round_trip(
    preset: str, overrides: dict[str, Any], num_players: int
) -> None:
    """Facade games of house-rule combinations: invariants after every step; positions in
    every mid-play phase read back to the same position and legal actions."""
    rules = load_rules(preset, **overrides)
    trips = 0
    for seed in range(2):
        trips += _play_facade(rules, num_players, seed, steps=400, every=7)
    assert trips > 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kwargs=uno_rule_sets(), num_players=st.integers(2, 10), seed=st.integers(0, 2**31))
def test_facade_random_combinations_round_trip(kwargs: dict[str, Any], num_players: int, seed: int) -> None:
    """The facade under random switch combinations: invariants and position round trips."""
    rules = _build(kwargs)
    _play_facade(rules, num_players, seed, steps=250, every=5)
