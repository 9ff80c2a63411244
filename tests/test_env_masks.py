"""The action mask every env kind hands the acting agent is the game's legal actions, under
the rule switches that ask decisions out of turn or between plays.

The AEC, Parallel, single-agent and vector envs each build the mask their own way (the AEC
and Parallel envs per agent, the others for the learner's seat, the vector env in compiled
code for a batch). Under the presets' rules these are checked elsewhere; here every decision
of random games under rule sets with jump-in and block windows (H-JUMP-1, H-ZEROSEE-1),
answers and challenges (H-STACK-1, H-REFLECT-1, M-STAR-1, U-WD4-2), targets and gifts
(H-SEVEN-1, H-ZERO-1, H-TWO-1), multi-card plays (H-MULTI-1/2, H-SEQ-1), the cube
(H-CUBE-1), calls and accusations (MM-CALL-1, MC-CALL-1), sit-outs and jokers and kings
(MC-FOUR-1, MC-OPT-1) is compared with :meth:`uno_env.Game.legal_actions` of the same
position.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import uno_env
from tests.test_env_encoding import ALL_HOUSE_RULES, KINGS_AND_JOKERS
from uno_env import Game
from uno_env.engine import actions
from uno_env.engine.rules import HOUSE_STACKING, RuleSet
from uno_env.envs.parallel import IDLE_ACTION

MASK_CASES = [
    pytest.param("uno", {"jump_in": True, "eight_again": True, "stacking": HOUSE_STACKING}, 4, id="jump"),
    pytest.param("uno", {"zero_rule": "rotate", "zero_reveals": True, "seven_swap": True}, 3, id="zero"),
    pytest.param("uno", ALL_HOUSE_RULES, 5, id="house"),
    pytest.param("uno_mario", {"stacking": HOUSE_STACKING, "reverse_reflects": True}, 2, id="star"),
    pytest.param("mau_mau", {"false_accusation": 0.5}, 4, id="mau-mau-call"),
    pytest.param("macao", KINGS_AND_JOKERS, 6, id="macao"),
]
DECISIONS = 250


def rules_of(preset: str, overrides: dict[str, Any]) -> RuleSet:
    return uno_env.load_rules(preset, **overrides)


BETWEEN_TURNS = {"jump", "block", "challenge", "answer", "target", "give"}


def phase_of(position: str) -> str:
    return next(part.split("=")[1] for part in position.split("; ") if part.startswith("phase="))


def legal(rules: RuleSet, position: str) -> list[int]:
    """The legal actions of the position's decision, from the game facade."""
    return Game.from_position(rules, position).legal_actions()


@pytest.mark.parametrize(("preset", "overrides", "n"), MASK_CASES)
def test_aec_and_parallel_masks_are_the_legal_actions(preset: str, overrides: dict[str, Any], n: int) -> None:
    """AEC: the agent selected gets the legal actions (mirrored step for step by a game of the
    same seed), every other agent an empty mask. Parallel: the same at every step, but that
    the others get the idle mask (``pass`` only, which is ignored)."""
    rules = rules_of(preset, overrides)
    rng = np.random.default_rng(n)
    env = uno_env.env(rules, n)
    env.reset(seed=5)
    game = Game(rules, n, seed=5)
    for _ in range(DECISIONS):
        if game.is_over():
            break
        assert env.agent_selection == f"player_{game.current_player}"
        for agent in env.agents:
            mask = env.observe(agent)["action_mask"]
            expected = game.legal_actions() if agent == env.agent_selection else []
            assert np.flatnonzero(mask).tolist() == expected, (agent, game.position())
        action = int(rng.choice(game.legal_actions()))
        env.step(action)
        game.step(action)

    par = uno_env.parallel_env(rules, n)
    idle = [actions.parse_action(IDLE_ACTION, rules.deck_family)]
    observations, _ = par.reset(seed=6)
    game = Game(rules, n, seed=6)
    for _ in range(DECISIONS):
        if game.is_over() or not par.agents:
            break
        mover = f"player_{game.current_player}"
        for agent, obs in observations.items():
            expected = game.legal_actions() if agent == mover else idle
            assert np.flatnonzero(obs["action_mask"]).tolist() == expected, (agent, game.position())
        action = int(rng.choice(game.legal_actions()))
        observations, *_ = par.step({mover: action})
        game.step(action)


@pytest.mark.parametrize(("preset", "overrides", "n"), MASK_CASES)
def test_single_agent_and_vector_masks_are_the_legal_actions(
    preset: str, overrides: dict[str, Any], n: int
) -> None:
    """The single-agent env and the vector env ask the learner only (the opponents play
    inside): at each of its decisions, in or out of turn, the mask they hand it is the legal
    actions of the position and the learner is the seat to decide."""
    rules = rules_of(preset, overrides)
    rng = np.random.default_rng(n)
    single = uno_env.SingleAgentEnv(rules, n, seat=1)
    single.reset(seed=3)
    asked = 0
    phases: set[str] = set()
    for _ in range(DECISIONS):
        position = single.position()
        phases.add(phase_of(position))
        assert Game.from_position(rules, position).current_player == 1
        mask = single.action_masks()
        assert np.flatnonzero(mask).tolist() == legal(rules, position), position
        _, _, terminated, truncated, _ = single.step(int(rng.choice(np.flatnonzero(mask))))
        asked += 1
        if terminated or truncated:
            single.reset(seed=int(rng.integers(1 << 30)))
    assert asked == DECISIONS

    venv = uno_env.VectorEnv(4, rules, n, seat=0)
    _, info = venv.reset(seed=9)
    for _ in range(DECISIONS // 2):
        masks = venv.action_masks()
        np.testing.assert_array_equal(info["action_mask"], masks)
        for i in range(venv.num_envs):
            position = venv.position(i)
            phases.add(phase_of(position))
            assert Game.from_position(rules, position).current_player == 0
            assert np.flatnonzero(masks[i]).tolist() == legal(rules, position), position
        chosen = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
        _, _, _, _, info = venv.step(chosen)
    assert phases & BETWEEN_TURNS, f"the learner was asked only in phases {sorted(phases)}"
