"""The engine's fast paths equal the general paths they shortcut.

- One-card plays (``SP_PLAIN_PLAYS``): rule sets without answerable penalties, multi-card
  plays, house-rule number effects or jump-in resolve one-card plays directly
  (:func:`uno_env.engine.engine.play_plain`). These tests play the same seeded games with the fast
  path on and forced off and require identical games: the same final state buffer.
- The engine without the staged machinery (``staged=None``,
  :func:`uno_env.engine.engine.staged_argument`): rule sets that use none of it play exactly the
  same games, to the last slot of the state buffer, on the engine compiled without it as on
  the engine with every rule; ``simulate(..., full_engine=True)`` gives the same results.
- Legal plays as bitmasks (``SP_PLAIN_MATCHING``, U-MATCH-1): :func:`uno_env.engine.engine.fill_mask`
  from the held-faces bitmask (``L.HELD``) equals the per-face test of every card.
- Random opponents without a mask: :func:`uno_env.styles.baselines.quick_random_action` takes the
  action, and the random number, that :func:`uno_env.styles.baselines.random_action` takes on the
  mask, in every position of every preset where it answers; likewise the literature's
  random player (:func:`uno_env.styles.baselines.quick_random_playable_action`).
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

import uno_env
from uno_env.engine import engine
from uno_env.engine import layout as L
from uno_env.engine.bits import lowest_bit, popcount
from uno_env.engine.rng import rand_below
from uno_env.engine.rules import compile_spec, plain_plays
from uno_env.styles.baselines import POLICY_RANDOM_PLAYABLE, quick_action, quick_random_action, random_action
from uno_env.styles.dispatch import choose_action


@njit(cache=True)
def _play_and_fingerprint(
    spec: np.ndarray, num_players: int, deck: np.ndarray, seed: int, games: int, staged: bool | None = True
) -> np.ndarray:
    """Play ``games`` random games; return every game's final state buffer (``staged`` as
    the engine takes it: None compiles the engine without the staged machinery)."""
    out = np.zeros((games, L.STATE_SIZE), dtype=np.int64)
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    for g in range(games):
        engine.new_game(state, spec, num_players, deck, seed + g, 0, staged)
        count = engine.fill_mask(state, spec, mask, staged)
        while state[L.S_STATUS] == L.ST_RUNNING:
            k = rand_below(state, L.AGENT_RNG, count)
            action = 0
            while True:
                if mask[action]:
                    if k == 0:
                        break
                    k -= 1
                action += 1
            engine.apply_action(state, spec, action, staged)
            count = engine.fill_mask(state, spec, mask, staged)
        out[g] = state
    return out


PLAIN_VARIANTS = {
    "uno": {},
    "uno until_playable, no draw when playable": {"draw": "until_playable", "draw_when_playable": False},
    "uno wd4 refused, no finish on action": {"wd4_bluff": "refused", "no_finish_on_action": True},
    "uno first_to_target": {"match": "first_to_target", "target": 150},
    "mau_mau_doubling without stacking": {"stacking": ()},
}


@pytest.mark.parametrize("label", sorted(PLAIN_VARIANTS))
@pytest.mark.parametrize("num_players", [2, 4, 7])
def test_fast_path_plays_exactly_like_the_general_path(label: str, num_players: int) -> None:
    base = "mau_mau_doubling" if label.startswith("mau_mau_doubling") else "uno"
    rules = uno_env.load_rules(base, max_decisions=1500, **PLAIN_VARIANTS[label])
    assert plain_plays(rules)
    fast = compile_spec(rules)
    general = fast.copy()
    general[L.SP_PLAIN_PLAYS] = 0
    deck = rules.deck_counts(num_players)
    with_fast = _play_and_fingerprint(fast, num_players, deck, 11, 40)
    without = _play_and_fingerprint(general, num_players, deck, 11, 40)
    scalars = slice(0, L.RNG)  # play-resolution scratch (S_ACTOR, S_ACC_*) is not compared
    scratch = [
        L.S_ACTOR, L.S_STAGE, L.S_PLAY_KIND, L.S_PLAY_COUNT, L.S_PLAY_RANK, L.S_RUN_STEP,
        L.S_ACC_SKIP, L.S_ACC_DRAW, L.S_ACC_SIT, L.S_ACC_PREVIOUS, L.S_ACC_CHOOSE,
        L.S_ACC_PENALTY_CARDS, L.S_CARRY_DRAW, L.S_CARRY_SIT, L.S_JUMP_BLOCK_SEAT,
    ]  # fmt: skip
    keep = np.ones(L.STATE_SIZE, dtype=bool)
    keep[scratch] = False
    keep[L.HAND_VERSION : L.HAND_VERSION + L.MAX_PLAYERS] = True
    assert scalars.start == 0
    for g in range(with_fast.shape[0]):
        differing = np.flatnonzero((with_fast[g] != without[g]) & keep)
        assert differing.size == 0, f"game {g}: state slots {differing.tolist()} differ"


@pytest.mark.parametrize("label", sorted(PLAIN_VARIANTS))
@pytest.mark.parametrize("num_players", [2, 4])
def test_engine_without_the_staged_machinery_plays_exactly_like_the_full_engine(
    label: str, num_players: int
) -> None:
    base = "mau_mau_doubling" if label.startswith("mau_mau_doubling") else "uno"
    rules = uno_env.load_rules(base, max_decisions=1500, **PLAIN_VARIANTS[label])
    spec = compile_spec(rules)
    assert engine.staged_argument(spec) is None
    deck = rules.deck_counts(num_players)
    pruned = _play_and_fingerprint(spec, num_players, deck, 23, 40, None)
    full = _play_and_fingerprint(spec, num_players, deck, 23, 40, True)
    assert (pruned[:, L.S_STATUS] != L.ST_RUNNING).all()
    np.testing.assert_array_equal(pruned, full)  # every slot of every final state


def test_simulate_gives_the_same_games_on_either_engine() -> None:
    policies = ["greedy", "random"]  # as uno-env compile's workload: no extra compiling
    pruned = uno_env.simulate("uno", 2, 60, seed=5, policies=policies)
    full = uno_env.simulate("uno", 2, 60, seed=5, policies=policies, full_engine=True)
    for field in ("winner", "length", "turns", "first_mover", "ranking", "scores"):
        np.testing.assert_array_equal(getattr(pruned, field), getattr(full, field))


@pytest.mark.parametrize(
    "rules",
    [uno_env.preset(name) for name in ("uno_house", "uno_mario", "mau_mau", "mau_mau_doubling", "macao")]
    + [uno_env.load_rules("uno", cube=True), uno_env.load_rules("uno", start_card="first_discard")]
    + [
        uno_env.load_rules("uno", **{name: value})
        for name, value in (
            ("stacking", ("D2/D2",)),
            ("seven_swap", True),
            ("zero_rule", "rotate"),
            ("jump_in", True),
            ("multi_play", "identical"),
            ("runs", True),
            ("eight_again", True),
            ("two_gives", True),
            ("react_nine", True),
            ("zero_reveals", True),
            ("reverse_reflects", True),
            ("super_stars", 2),
            ("call", "mau_mau"),
            ("end", "last_player"),
        )
    ],
    ids=str,
)
def test_rule_sets_with_staged_rules_take_the_full_engine(rules: uno_env.RuleSet) -> None:
    """Every rule a ``staged is not None`` guard reads turns the full engine on."""
    assert engine.staged_argument(compile_spec(rules)) is True


def test_house_rules_and_french_games_take_the_general_path() -> None:
    for name in ("uno_house", "uno_mario", "mau_mau", "macao"):
        assert not plain_plays(uno_env.preset(name)), name
        assert compile_spec(uno_env.preset(name))[L.SP_PLAIN_PLAYS] == 0


# ================================================================ bit counting
@njit(cache=True)
def _bits_compiled(value: int) -> tuple[int, int]:
    return popcount(value), lowest_bit(value)


@pytest.mark.parametrize("value", [0, 1, 2, 3, 0b1011000, 1 << 55, (1 << 55) | (1 << 3), (1 << 56) - 1])
def test_bit_counting(value: int) -> None:
    expected = (bin(value).count("1"), (value & -value).bit_length() - 1 if value else 64)
    assert _bits_compiled(value) == expected
    assert _bits_compiled(np.int64(value)) == expected


# ================================================================ held faces and legal plays
@njit(cache=True)
def _masks_both_ways(
    spec: np.ndarray, general: np.ndarray, num_players: int, deck: np.ndarray, seed: int, games: int
) -> tuple[int, int, int]:
    """Random games under ``spec``; at every decision compare fill_mask under ``spec`` and
    ``general`` (the bitmask path forced off). Returns (decisions, play decisions, first
    mismatching decision or -1)."""
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    other = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    decisions = 0
    plays = 0
    for g in range(games):
        engine.new_game(state, spec, num_players, deck, seed + g, 0, True)
        while state[L.S_STATUS] == L.ST_RUNNING:
            count = engine.fill_mask(state, spec, mask, True)
            if engine.fill_mask(state, general, other, True) != count:
                return decisions, plays, decisions
            for a in range(L.MAX_ACTIONS):
                if mask[a] != other[a]:
                    return decisions, plays, decisions
            for seat in range(num_players):
                bits = 0
                for face in range(L.MAX_FACES):
                    if engine.count_in_hand(state, seat, face) > 0:
                        bits |= 1 << face
                if bits != state[L.HELD + seat]:
                    return decisions, plays, decisions
            plays += state[L.S_PHASE] == L.PH_PLAY
            decisions += 1
            engine.apply_action(state, spec, random_action(state, mask, count), True)
    return decisions, plays, -1


@pytest.mark.parametrize("name", sorted(uno_env.PRESETS))
@pytest.mark.parametrize("num_players", [2, 5])
def test_legal_plays_from_bitmasks_equal_the_per_face_test(name: str, num_players: int) -> None:
    # U-MATCH-1: colour, number/symbol or wild, as masks of the held faces
    rules = uno_env.load_rules(name, max_decisions=800)
    spec = compile_spec(rules)
    general = spec.copy()
    general[L.SP_PLAIN_MATCHING] = 0
    decisions, plays, mismatch = _masks_both_ways(
        spec, general, num_players, rules.deck_counts(num_players), 5, 40
    )
    assert mismatch == -1, f"{name}: masks or held faces differ at decision {mismatch}"
    assert decisions > 1000 and plays > decisions // 3


def test_held_faces_follow_parsing_and_swaps() -> None:
    # H-SEVEN-1: hands swap, and so do their held-faces masks
    game = uno_env.Game.from_position(
        "uno",
        "hands=R1 R7 B3/G2 G2 Y9/W; discard=R5; draw=B1 B2 B3 B4; colour=R; seat=0; dir=+; phase=play",
        seven_swap=True,
    )
    assert game.state[L.HELD + 0] == _faces("R1", "R7", "B3")
    assert game.state[L.HELD + 1] == _faces("G2", "Y9")
    assert game.state[L.HELD + 2] == _faces("W")
    game.step("R7")
    game.step("target +1")
    assert game.state[L.HELD + 0] == _faces("G2", "Y9")
    assert game.state[L.HELD + 1] == _faces("R1", "B3")
    assert game.state[L.HELD + 2] == _faces("W")
    game.check_invariants()


def _faces(*tokens: str) -> int:
    bits = 0
    for token in tokens:
        bits |= 1 << uno_env.engine.cards.parse_face(token, "uno")
    return bits


# ================================================================ random opponents without a mask
@njit(cache=True)
def _quick_against_mask(
    spec: np.ndarray, num_players: int, deck: np.ndarray, seed: int, games: int
) -> np.ndarray:
    """Random games; at every decision the quick action vs random_action on the mask, each
    on its own copy of the state. Returns [decisions, quick answers, first mismatch or -1]."""
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    out = np.array([0, 0, -1], dtype=np.int64)
    for g in range(games):
        engine.new_game(state, spec, num_players, deck, seed + g, 0, True)
        while state[L.S_STATUS] == L.ST_RUNNING:
            count = engine.fill_mask(state, spec, mask, True)
            before = state.copy()
            quick_state = state.copy()
            quick = quick_random_action(quick_state, spec)
            action = random_action(state, mask, count)
            # an answer draws the same random number as random_action; no answer draws none
            expected = state if quick >= 0 else before
            same = quick < 0 or quick == action
            for i in range(L.STATE_SIZE):
                same = same and quick_state[i] == expected[i]
            out[1] += quick >= 0
            if not same:
                out[2] = out[0]
                return out
            out[0] += 1
            engine.apply_action(state, spec, action, True)
    return out


@pytest.mark.parametrize("name", sorted(uno_env.PRESETS))
@pytest.mark.parametrize("num_players", [2, 4, 7])
def test_random_opponents_without_a_mask_play_exactly_as_with_one(name: str, num_players: int) -> None:
    rules = uno_env.load_rules(name, max_decisions=800)
    if num_players > rules.max_players:
        pytest.skip(f"{name} seats at most {rules.max_players}")
    spec = compile_spec(rules)
    decisions, quick, mismatch = _quick_against_mask(spec, num_players, rules.deck_counts(num_players), 3, 40)
    assert mismatch == -1, f"{name}: the quick random action differs at decision {mismatch}"
    assert decisions > 1000
    if spec[L.SP_PLAIN_MATCHING] == 1 and spec[L.SP_DRAW_RULE] != engine.DRAW_ONE_THEN_ANY:
        assert quick > decisions // 2  # the fast path carries most decisions where it applies
    else:
        assert quick > 0 or spec[L.SP_DRAW_RULE] == engine.DRAW_ONE_THEN_ANY


@njit(cache=True)
def _quick_policy_against_mask(
    spec: np.ndarray, num_players: int, deck: np.ndarray, seed: int, games: int, code: int
) -> np.ndarray:
    """As :func:`_quick_against_mask` for policy ``code``: its quick action vs its masked action."""
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    params = np.full(4, -1, dtype=np.int64)
    out = np.array([0, 0, -1], dtype=np.int64)
    for g in range(games):
        engine.new_game(state, spec, num_players, deck, seed + g, 0, True)
        while state[L.S_STATUS] == L.ST_RUNNING:
            count = engine.fill_mask(state, spec, mask, True)
            before = state.copy()
            quick_state = state.copy()
            quick = quick_action(quick_state, spec, code)
            action = choose_action(state, spec, mask, count, code, params)
            expected = state if quick >= 0 else before
            same = (quick < 0 or quick == action) and mask[action] == 1
            for i in range(L.STATE_SIZE):
                same = same and quick_state[i] == expected[i]
            out[1] += quick >= 0
            if not same:
                out[2] = out[0]
                return out
            out[0] += 1
            engine.apply_action(state, spec, action, True)
    return out


@pytest.mark.parametrize("name", sorted(uno_env.PRESETS))
@pytest.mark.parametrize("num_players", [2, 4])
def test_random_playable_without_a_mask_plays_exactly_as_with_one(name: str, num_players: int) -> None:
    rules = uno_env.load_rules(name, max_decisions=800)
    spec = compile_spec(rules)
    deck = rules.deck_counts(num_players)
    decisions, quick, mismatch = _quick_policy_against_mask(
        spec, num_players, deck, 5, 40, POLICY_RANDOM_PLAYABLE
    )
    assert mismatch == -1, f"{name}: the quick random_playable action differs at decision {mismatch}"
    assert decisions > 400 and quick > 0


def test_batch_games_are_the_same_with_and_without_checks() -> None:
    # the checked loop writes every mask; the plain one skips them for random seats
    policies = ["random_legal", "greedy", "random_playable", "bluffer"]
    for name in ("uno", "uno_house", "macao"):
        plain = uno_env.simulate(name, 4, 30, seed=9, policies=policies)
        checked = uno_env.simulate(name, 4, 30, seed=9, policies=policies, check_invariants=True)
        assert np.array_equal(plain.length, checked.length) and np.array_equal(plain.winner, checked.winner)
        assert np.array_equal(plain.scores, checked.scores)
