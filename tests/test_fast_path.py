"""The engine's fast paths equal the general paths they shortcut.

- One-card plays: a play that asks nothing more (:func:`uno_env.engine.engine.plain_play_possible`:
  every play of a card naming no colour under rule sets without staged rules, and under the
  others every play that sets none of them off) resolves directly
  (:func:`uno_env.engine.engine.play_plain`). These tests play the same seeded games with the fast
  path on and forced off (``SP_PLAIN_PLAYS`` -1) under every preset and every switch alone,
  and require identical games: the same final state buffer but for a play's scratch slots.
- The engine without the staged machinery (``staged=None``,
  :func:`uno_env.engine.engine.staged_argument`): rule sets that use none of it play exactly the
  same games, to the last slot of the state buffer, on the engine compiled without it as on
  the engine with every rule; ``simulate(..., full_engine=True)`` gives the same results.
- Legal sets as bitmasks: :func:`uno_env.engine.engine.fill_mask` (the phase's mask function over
  the held-faces bitmask ``L.HELD`` and the rule set's face sets) equals the rules written
  face by face (``matches``, ``playable``, ``answer_kind``, ``continues``), at every decision
  of random games under every preset and every switch alone.
- Random players without a mask: :func:`uno_env.styles.baselines.quick_random_action` takes the
  action, and the random number, that :func:`uno_env.styles.baselines.random_action` takes on the
  mask, at every decision under every preset and switch; likewise the literature's random
  player (:func:`uno_env.styles.baselines.quick_random_playable_action`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from numba import njit

import uno_env
from tests.test_options import FIELDS, _off_plain_values, _variant
from uno_env.engine import engine
from uno_env.engine import layout as L
from uno_env.engine.bits import lowest_bit, popcount
from uno_env.engine.rng import rand_below
from uno_env.engine.rules import RuleSet, compile_spec, plain_plays
from uno_env.styles.baselines import POLICY_RANDOM_LEGAL, POLICY_RANDOM_PLAYABLE, quick_action, random_action
from uno_env.styles.dispatch import choose_action

# One worker for the module (make unit: --dist loadgroup): its compiled helpers specialise the
# engine (``staged`` None and True), which on a cold cache takes about a minute and a half;
# spread over both workers, each compiled them at once.
pytestmark = pytest.mark.xdist_group("test_fast_path")

COMPANIONS = {
    "wild_not_on_when": {"wild_not_on": "D2", "stacking": ("D2/D2",)},
    "stack_growth": {"stacking": ("D2/D2", "WD4/WD4", "WD4/D2")},
    "multi_leave_one": {"multi_play": "identical"},
}
"""Fields that act only together with another: the values their case adds."""


def _switch_cases() -> dict[str, RuleSet]:
    """Every preset, and official Uno with each switch alone: every non-default value of every
    boolean and option field (with the companions it needs), and the other fields with a
    fast-path feature (Macao with jokers: they need a French deck)."""
    cases = {name: rules.with_overrides({"max_decisions": 1500}) for name, rules in uno_env.PRESETS.items()}
    base = uno_env.preset("uno")
    for f in dataclasses.fields(base):
        default = getattr(base, f.name)
        if f.metadata["choices"] is not None and f.name != "deck":
            values: list[object] = [v for v in f.metadata["choices"] if v != default]
        elif isinstance(default, bool) and f.name != "jokers":
            values = [not default]
        else:
            continue
        for value in values:
            overrides = {**COMPANIONS.get(f.name, {}), f.name: value, "max_decisions": 1500}
            cases[f"{f.name}={value}"] = uno_env.load_rules("uno", **overrides)
    cases["stacking"] = uno_env.load_rules("uno", stacking=("D2/D2", "WD4/WD4", "WD4/D2"), max_decisions=1500)
    cases["super_stars=4"] = uno_env.load_rules("uno", super_stars=4, max_decisions=1500)
    cases["wild_not_on=D2"] = uno_env.load_rules("uno", wild_not_on="D2", max_decisions=1500)
    cases["zero_rule_rank=1"] = uno_env.load_rules(
        "uno", zero_rule="swap", zero_rule_rank=1, max_decisions=1500
    )
    cases["macao, jokers"] = uno_env.load_rules("macao", jokers=True, max_decisions=1500)
    cases["mau_mau, action_same_symbol"] = uno_env.load_rules(
        "mau_mau", action_same_symbol=True, max_decisions=1500
    )
    cases["mau_mau, wild_not_on_when=pending"] = uno_env.load_rules(
        "mau_mau", wild_not_on_when="pending", max_decisions=1500
    )
    cases["uno_house, runs, multi same_rank, leave one"] = uno_env.load_rules(
        "uno_house", runs=True, multi_play="same_rank", multi_leave_one=True, max_decisions=1500
    )
    cases["uno, refused, no playable, no finish"] = uno_env.load_rules(
        "uno", wd4_bluff="refused", wd4_legal_when="no_playable_card", no_finish_on_action=True,
        action_same_symbol=True, max_decisions=1500,
    )  # fmt: skip
    cases["uno, refused, no playable number card, no finish"] = uno_env.load_rules(
        "uno", wd4_bluff="refused", wd4_legal_when="no_playable_number_card", no_finish_on_action=True,
        action_same_symbol=True, max_decisions=1500,
    )  # fmt: skip
    return cases


SWITCH_CASES = _switch_cases()


def _players(rules: RuleSet, wanted: int) -> int:
    """``wanted`` players, or the nearest count the rule set seats."""
    return min(max(wanted, rules.min_players), rules.max_players)


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


SCRATCH = [
    L.S_ACTOR, L.S_STAGE, L.S_PLAY_KIND, L.S_PLAY_COUNT, L.S_PLAY_RANK, L.S_RUN_STEP,
    L.S_ACC_SKIP, L.S_ACC_DRAW, L.S_ACC_SIT, L.S_ACC_PREVIOUS, L.S_ACC_CHOOSE,
    L.S_ACC_PENALTY_CARDS, L.S_CARRY_DRAW, L.S_CARRY_SIT, L.S_RESUME, L.S_WINDOW_FROM,
]  # fmt: skip
"""A play's resolution scratch: written by the general path as it resolves a play and read
only by the decisions of a play in progress (which write them first), so a play resolved
directly leaves them as they were. S_RESUME and S_WINDOW_FROM: a jump-in window nobody can
use (the general path opens it and closes it at once)."""


@pytest.mark.parametrize("label", sorted(SWITCH_CASES))
@pytest.mark.parametrize("num_players", [2, 4, 7])
def test_fast_path_plays_exactly_like_the_general_path(label: str, num_players: int) -> None:
    rules = SWITCH_CASES[label]
    num_players = _players(rules, num_players)
    fast = compile_spec(rules)
    general = fast.copy()
    general[L.SP_PLAIN_PLAYS] = -1  # every play down the general path
    deck = rules.deck_counts(num_players)
    with_fast = _play_and_fingerprint(fast, num_players, deck, 11, 40)
    without = _play_and_fingerprint(general, num_players, deck, 11, 40)
    keep = np.ones(L.STATE_SIZE, dtype=bool)
    keep[SCRATCH] = False
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


# ================================================================ held faces and legal sets
@njit(cache=True)
def _mask_face_by_face(state: np.ndarray, spec: np.ndarray, mask: np.ndarray) -> int:
    """The legal actions as the rules read, face by face (the per-face predicates of the
    engine: ``matches``, ``playable``, ``answer_kind``, ``continues``); the reference the
    engine's sets are checked against. Returns how many."""
    for a in range(L.MAX_ACTIONS):
        mask[a] = 0
    if state[L.S_STATUS] != L.ST_RUNNING:
        return 0
    nf = spec[L.SP_NUM_FACES]
    seat = state[L.S_CURRENT]
    phase = state[L.S_PHASE]
    held = L.HANDS + seat * L.MAX_FACES
    may_call = False
    if phase == L.PH_PLAY:
        any_playable = False
        for face in range(nf):
            if state[held + face] > 0 and engine.playable(state, spec, seat, face):
                mask[face] = 1
                any_playable = True
        if spec[L.SP_DRAW_WHEN_PLAYABLE] == 1 or not any_playable:  # U-DRAW-3
            mask[nf + L.A_DRAW_OFFSET] = 1
        may_call = True
    elif phase == L.PH_PLAY_DRAWN:
        count = 0
        if spec[L.SP_DRAW_RULE] == engine.DRAW_ONE_THEN_ANY:
            for face in range(nf):
                if state[held + face] > 0 and engine.playable(state, spec, seat, face):
                    mask[face] = 1
                    count += 1
        elif (
            0 <= state[L.S_DRAWN] < nf
            and state[held + state[L.S_DRAWN]] > 0
            and engine.playable(state, spec, seat, state[L.S_DRAWN])  # asked again (U-WD4-2)
        ):
            mask[state[L.S_DRAWN]] = 1
            count += 1
        if count == 0 or spec[L.SP_DRAWN_MUST_PLAY] == 0 or spec[L.SP_DRAW_RULE] == engine.DRAW_ONE_THEN_ANY:
            mask[nf + L.A_PASS_OFFSET] = 1
        may_call = True
    elif phase == L.PH_CHOOSE_COLOUR:
        for colour in range(L.NUM_COLOURS):
            mask[nf + colour] = 1
    elif phase == L.PH_CHALLENGE or phase == L.PH_ANSWER:
        if phase == L.PH_CHALLENGE:
            mask[nf + L.A_CHALLENGE_OFFSET] = 1
        answers = 0
        for face in range(nf):
            if state[held + face] > 0 and engine.answer_kind(state, spec, seat, face) >= 0:
                mask[face] = 1
                may_call = True
                answers += 1
        if answers == 0 or spec[L.SP_MUST_ANSWER] == 0:  # MD-SEVEN-1: a held answer must be laid
            mask[nf + L.A_ACCEPT_OFFSET] = 1
    elif phase == L.PH_CONTINUE:
        for face in range(nf):
            if engine.continues(state, spec, seat, face):
                mask[face] = 1
        mask[nf + L.A_PASS_OFFSET] = 1
        may_call = True
    elif phase == L.PH_CHOOSE_TARGET:
        n = state[L.S_NPLAYERS]
        for k in range(1, n):
            other = (seat + k) % n
            if state[L.FINISHED + other] == 0 and state[L.HAND_SIZE + other] > 0:
                mask[nf + L.A_TARGET_OFFSET + k - 1] = 1
        if state[L.S_TARGET_REASON] == L.TR_SWAP and spec[L.SP_ZERO_RULE] == engine.ZERO_SWAP_OPTIONAL:
            if spec[L.F_RANK + engine.top_face(state)] == spec[L.SP_ZERO_RANK]:
                mask[nf + L.A_PASS_OFFSET] = 1
    elif phase == L.PH_GIVE:
        for face in range(nf):
            if state[held + face] > 0:
                mask[face] = 1
    elif phase == L.PH_JUMP_IN:
        top = engine.top_face(state)
        if 0 <= top < nf and state[held + top] > 0:
            mask[top] = 1
        mask[nf + L.A_PASS_OFFSET] = 1
        may_call = True
    elif phase == L.PH_BLOCK:
        for face in range(nf):
            if state[held + face] > 0 and spec[L.F_IS_NUMBER + face] == 1 and spec[L.F_RANK + face] == 0:
                mask[face] = 1
        mask[nf + L.A_PASS_OFFSET] = 1
        may_call = True
    if may_call and engine.call_legal(state, spec, seat, phase):
        mask[nf + L.A_CALL_OFFSET] = 1
    count = 0
    for a in range(L.MAX_ACTIONS):
        count += mask[a]
    return count


@njit(cache=True)
def _sets_against_faces(
    spec: np.ndarray, num_players: int, deck: np.ndarray, seed: int, games: int
) -> np.ndarray:
    """Random games; at every decision compare fill_mask with :func:`_mask_face_by_face`, the
    playable set with ``playable`` for every face (held or not: what a draw proves, U-DRAW-3),
    ``wild_draw_legal`` with the face-by-face test for every seat, and the held-faces bitmasks
    with the hands. Returns [decisions, decisions per phase..., first mismatch or -1]."""
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    other = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    out = np.zeros(L.NUM_PHASES + 2, dtype=np.int64)
    out[-1] = -1
    nf = spec[L.SP_NUM_FACES]
    for g in range(games):
        engine.new_game(state, spec, num_players, deck, seed + g, 0, True)
        while state[L.S_STATUS] == L.ST_RUNNING:
            count = engine.fill_mask(state, spec, mask, True)
            same = _mask_face_by_face(state, spec, other) == count
            for a in range(L.MAX_ACTIONS):
                same = same and mask[a] == other[a]
            for seat in range(num_players):
                bits = 0
                for face in range(L.MAX_FACES):
                    if engine.count_in_hand(state, seat, face) > 0:
                        bits |= 1 << face
                same = same and bits == state[L.HELD + seat]
                legal = engine.wild_draw_legal(state, spec, seat)
                same = same and legal == engine.wild_draw_legal_by_face(state, spec, seat)
            if state[L.S_PHASE] == L.PH_PLAY:
                seat = state[L.S_CURRENT]
                playable = engine.playable_set(state, spec, seat)
                for face in range(nf):  # the faces the deck holds (no joker of a jokerless deck)
                    if (spec[L.SET_FACES] >> face) & 1:
                        in_set = (playable >> face) & 1 == 1
                        same = same and in_set == engine.playable(state, spec, seat, face)
            if not same:
                out[-1] = out[0]
                return out
            out[0] += 1
            out[1 + state[L.S_PHASE]] += 1
            engine.apply_action(state, spec, random_action(state, mask, count), True)
    return out


@pytest.mark.parametrize("label", sorted(SWITCH_CASES))
@pytest.mark.parametrize("num_players", [2, 5])
def test_legal_sets_equal_the_rules_face_by_face(label: str, num_players: int) -> None:
    rules = SWITCH_CASES[label]
    num_players = _players(rules, num_players)
    spec = compile_spec(rules)
    out = _sets_against_faces(spec, num_players, rules.deck_counts(num_players), 5, 40)
    assert out[-1] == -1, f"{label}: legal sets differ from the rules face by face at decision {out[-1]}"
    assert out[0] > 1000 and out[1 + L.PH_PLAY] > out[0] // 5


def test_the_face_by_face_reference_sees_every_phase() -> None:
    # the comparison above reaches every phase of the staged machinery somewhere
    seen = np.zeros(L.NUM_PHASES, dtype=np.int64)
    for label in ("uno_house", "macao", "wd4_bluff=challenge", "two_gives=True", "zero_reveals=True",
                  "zero_rule=swap_optional", "runs=True", "cube=True"):  # fmt: skip
        rules = SWITCH_CASES.get(label, uno_env.load_rules("uno", max_decisions=1500))
        out = _sets_against_faces(compile_spec(rules), 4, rules.deck_counts(4), 5, 40)
        assert out[-1] == -1, label
        seen += out[1 : 1 + L.NUM_PHASES]
    unseen = [p for p in range(L.NUM_PHASES) if p != L.PH_OVER and seen[p] == 0]
    assert not unseen, f"phases never reached: {unseen}"


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


# ================================================================ random players without a mask
@njit(cache=True)
def _quick_policy_against_mask(
    spec: np.ndarray, num_players: int, deck: np.ndarray, seed: int, games: int, code: int
) -> np.ndarray:
    """Random games; at every decision policy ``code``'s quick action vs its action on the
    mask (:func:`uno_env.styles.dispatch.choose_action`), each on its own copy of the state (the
    same action and the same draws from the agent generator). Returns [decisions, quick
    answers, first mismatch or -1]."""
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    params = np.full(4, -1, dtype=np.int64)
    out = np.array([0, 0, -1], dtype=np.int64)
    for g in range(games):
        engine.new_game(state, spec, num_players, deck, seed + g, 0, True)
        while state[L.S_STATUS] == L.ST_RUNNING:
            count = engine.fill_mask(state, spec, mask, True)
            quick_state = state.copy()
            quick = quick_action(quick_state, spec, code, True)
            action = choose_action(state, spec, mask, count, code, params)
            same = quick == action and mask[action] == 1
            for i in range(L.STATE_SIZE):
                same = same and quick_state[i] == state[i]
            out[1] += quick >= 0
            if not same:
                out[2] = out[0]
                return out
            out[0] += 1
            engine.apply_action(state, spec, action, True)
    return out


@pytest.mark.parametrize("label", sorted(SWITCH_CASES))
@pytest.mark.parametrize("num_players", [2, 4, 7])
@pytest.mark.parametrize("code", [POLICY_RANDOM_LEGAL, POLICY_RANDOM_PLAYABLE], ids=["legal", "playable"])
def test_random_players_without_a_mask_play_exactly_as_with_one(
    label: str, num_players: int, code: int
) -> None:
    rules = SWITCH_CASES[label]
    num_players = _players(rules, num_players)
    spec = compile_spec(rules)
    deck = rules.deck_counts(num_players)
    decisions, quick, mismatch = _quick_policy_against_mask(spec, num_players, deck, 3, 30, code)
    assert mismatch == -1, f"{label}: the quick random action differs at decision {mismatch}"
    assert decisions > 400 and quick == decisions  # every decision, every phase


def test_batch_games_are_the_same_with_and_without_checks() -> None:
    # the checked loop writes every mask; the plain one skips them for random seats
    policies = ["random_legal", "greedy", "random_playable", "bluffer"]
    for name in ("uno", "uno_house", "macao"):
        plain = uno_env.simulate(name, 4, 30, seed=9, policies=policies)
        checked = uno_env.simulate(name, 4, 30, seed=9, policies=policies, check_invariants=True)
        assert np.array_equal(plain.length, checked.length) and np.array_equal(plain.winner, checked.winner)
        assert np.array_equal(plain.scores, checked.scores)


# ================================================================ feature tags, checked by playing
# A rule field declares the fast-path features it touches (``features=`` of its ``_rule``);
# compile_spec turns the fast paths off for a rule set that sets such a field. A field the
# engine reads where a fast path skips it, but that lacks the tag, would make its rule
# silently never fire: these games would then differ from the general paths'.
GENERAL_FLAGS = ((L.SP_PLAIN_PLAYS, 0), (L.SP_PLAIN_MATCHING, 0), (L.SP_NUMBER_EFFECTS, 1))
GENERAL_SCRATCH = [*SCRATCH, L.S_JUMP_BLOCK_SEAT]
"""The play's scratch (:data:`SCRATCH`) and the seat a jump-in or a block came from: the
general paths write it as they resolve a play, a fast path leaves it."""


def _general(spec: np.ndarray) -> np.ndarray:
    out = spec.copy()
    for slot, value in GENERAL_FLAGS:
        out[slot] = value
    return out


def _differing_games(
    rules: uno_env.RuleSet, spec: np.ndarray, staged: bool | None, games: int = 24
) -> list[int]:
    """Games (of ``games`` uniform-random ones per player count) whose final state on ``spec``
    (with ``staged``) differs from the general paths' with the full engine."""
    keep = np.ones(L.STATE_SIZE, dtype=bool)
    keep[GENERAL_SCRATCH] = False
    differ = []
    counts = sorted({max(rules.min_players, min(n, rules.max_players)) for n in (2, 4)})
    for n in counts:
        deck = rules.deck_counts(n)
        fast = _play_and_fingerprint(spec, n, deck, 31, games, staged)
        general = _play_and_fingerprint(_general(spec), n, deck, 31, games, True)
        differ += [n * 1000 + g for g in range(games) if ((fast[g] != general[g]) & keep).any()]
    return differ


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_every_field_plays_the_same_on_the_fast_paths_as_on_the_general_ones(name: str) -> None:
    """Each field, at each value outside its plain ones (from the first preset that allows
    it): the engine's choice of paths (the flags compile_spec derives from the tags, and the
    engine without the staged machinery when those allow it) plays the same games as every
    general path on the full engine."""
    for value in _off_plain_values(name):
        rules = _variant(name, value)
        if rules is None:
            continue
        rules = rules.with_overrides({"max_decisions": 1500})
        spec = compile_spec(rules)
        assert _differing_games(rules, spec, engine.staged_argument(spec)) == [], (name, value)


@pytest.mark.parametrize(
    ("overrides", "flag"),
    [({"wd4_bluff": "refused"}, (L.SP_PLAIN_MATCHING, 1)), ({"seven_swap": True}, (L.SP_PLAIN_PLAYS, 1))],
)
def test_a_missing_tag_would_show(overrides: dict[str, Any], flag: tuple[int, int]) -> None:
    """The check above can fail: the same rule set with its fast path forced on (as if the
    field had no tag) plays different games."""
    rules = uno_env.load_rules("uno", max_decisions=1500, **overrides)
    spec = compile_spec(rules).copy()
    spec[flag[0]] = flag[1]
    staged = None if flag[0] == L.SP_PLAIN_PLAYS else engine.staged_argument(compile_spec(rules))
    assert _differing_games(rules, spec, staged) != []
