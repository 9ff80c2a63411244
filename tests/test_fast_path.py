"""The engine's fast path for one-card plays (``SP_PLAIN_PLAYS``) equals the general path.

Rule sets without answerable penalties, multi-card plays, house-rule number effects or
jump-in resolve one-card plays directly (:func:`uno_env.engine.play_plain`). These tests play
the same seeded games with the fast path on and forced off and require identical games:
the same final state buffer, decision for decision.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

import uno_env
from uno_env import engine
from uno_env import layout as L
from uno_env.rng import rand_below
from uno_env.rules import compile_spec, plain_plays


@njit(cache=True)
def _play_and_fingerprint(
    spec: np.ndarray, num_players: int, deck: np.ndarray, seed: int, games: int
) -> np.ndarray:
    """Play ``games`` random games; return every game's final state buffer."""
    out = np.zeros((games, L.STATE_SIZE), dtype=np.int64)
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    for g in range(games):
        engine.new_game(state, spec, num_players, deck, seed + g, 0)
        count = engine.fill_mask(state, spec, mask)
        while state[L.S_STATUS] == L.ST_RUNNING:
            k = rand_below(state, L.AGENT_RNG, count)
            action = 0
            while True:
                if mask[action]:
                    if k == 0:
                        break
                    k -= 1
                action += 1
            engine.apply_action(state, spec, action)
            count = engine.fill_mask(state, spec, mask)
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


def test_house_rules_and_french_games_take_the_general_path() -> None:
    for name in ("uno_house", "uno_mario", "mau_mau", "macao"):
        assert not plain_plays(uno_env.preset(name)), name
        assert compile_spec(uno_env.preset(name))[L.SP_PLAIN_PLAYS] == 0
