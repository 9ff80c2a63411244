"""A game cut by the decision limit (E-END-1) pays by the standing, so stalling never pays.

- The rewards of a cut game follow the ranking by what the rules count at that moment
  (points in hand, match points, MC-END-1 leaving order), ties sharing, in every reward
  scheme and preset; ``truncation_reward="zero"`` keeps the old payment of 0.
- A policy that always draws gets a clearly negative mean reward, below the random
  player's, against every baseline, in the AEC, single-agent and vector envs (and in the
  parallel env, against the literature's random player).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import agents
import uno_env
from uno_env.engine import engine
from uno_env.engine import layout as L
from uno_env.styles.view import PublicView


# ================================================================ the standing, independently
def expected_standing_rewards(state: np.ndarray, spec: np.ndarray, scheme: str) -> list[float]:
    """The rewards of a cut game, computed here from the rules' counts (not from core)."""
    n = int(state[L.S_NPLAYERS])
    hand = [int(engine.hand_points(state, spec, s)) for s in range(n)]
    score = [int(state[L.SCORE + s]) for s in range(n)]
    if spec[L.SP_END_RULE] == 1:  # MC-END-1: who left ranks first, in leaving order
        value = [-h for h in hand]
        left = [int(state[L.FINISHED + s]) for s in range(n)]
        key = [(0, left[s]) if left[s] else (1, hand[s]) for s in range(n)]
    elif spec[L.SP_ROUND_SCORE] == 0 and spec[L.SP_MATCH] != engine.MATCH_LOWEST_TOTAL:
        value = [score[s] - hand[s] for s in range(n)]  # U-SCORE-1/2: the others' cards count
        key = [(0, -v) for v in value]
    else:  # U-SCORE-3, MM-SCORE-1: own points, lower is better
        value = [-(score[s] + hand[s]) for s in range(n)]
        key = [(0, -v) for v in value]
    if scheme == "score":
        mean = sum(value) / n
        return [v - mean for v in value]
    payoff = [1.0 if r == 0 else -1.0 / (n - 1) for r in range(n)] if scheme == "win" else None
    if payoff is None:
        payoff = [1.0 - 2.0 * r / (n - 1) for r in range(n)]
    out = []
    for s in range(n):
        better = sum(key[o] < key[s] for o in range(n))
        tied = sum(key[o] == key[s] for o in range(n))
        out.append(sum(payoff[better : better + tied]) / tied)
    return out


def play_to_the_limit(env: Any, seed: int) -> dict[str, float]:
    """Play uniformly random legal actions until the game ends; return the final rewards."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _agent in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            return dict(env.rewards)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("preset", list(uno_env.PRESETS))
@pytest.mark.parametrize("scheme", ["win", "rank", "score"])
def test_a_cut_game_pays_by_the_standing(preset: str, scheme: str) -> None:
    """E-END-1: every scheme pays the ranking by the rules' count at the cut, ties sharing."""
    players = 3 if uno_env.preset(preset).min_players <= 3 else 4
    env = uno_env.env(preset, players, reward=scheme, max_decisions=40)
    cut = 0
    for seed in range(6):
        rewards = play_to_the_limit(env, seed)
        if env._state[L.S_STATUS] != L.ST_TRUNCATED:
            continue
        cut += 1
        expected = expected_standing_rewards(env._state, env._spec, scheme)
        got = [rewards[f"player_{s}"] for s in range(players)]
        assert got == pytest.approx(expected), env.position()
        assert sum(got) == pytest.approx(0.0)
        assert all(env.truncations.values()) and not any(env.terminations.values())
        assert all(env.infos[a]["decision_limit"] for a in env.agents)
    assert cut >= 3


def test_a_cut_game_ranks_by_points_in_hand_with_ties_sharing() -> None:
    """Concrete case (U-SCORE-1 points): seat 0 draws at the limit and holds the most points;
    seats 1 and 2 hold 10 points each and share first and second place."""
    from uno_env.engine.cards import format_cards, parse_cards

    hands = ["R1 WD4", "B9 Y1", "G3 G7"]
    rules = uno_env.load_rules("uno", max_decisions=100)
    left = rules.deck_counts(3).copy()
    for face in parse_cards(" ".join(hands) + " Y5", "uno"):
        left[face] -= 1
    rest = [face for face in range(len(left)) for _ in range(int(left[face]))]
    position = (
        f"hands={'/'.join(hands)}; discard=Y5; draw={format_cards(rest, 'uno')}; colour=Y; seat=0; "
        "dir=+; phase=play; decisions=99"
    )
    env = uno_env.env(rules, 3, reward="rank")
    env.reset(options={"position": position})
    env.step(uno_env.parse_action("draw", "uno"))  # the 100th decision: cut (E-END-1)
    assert env.truncations["player_0"] and env.infos["player_0"]["decision_limit"]
    points = [int(engine.hand_points(env._state, env._spec, s)) for s in range(3)]
    assert points[1] == points[2] == 10 and points[0] >= 51
    assert env.rewards == {"player_0": -1.0, "player_1": 0.5, "player_2": 0.5}
    win = uno_env.env(rules, 3, reward="win")
    win.reset(options={"position": position})
    win.step(uno_env.parse_action("draw", "uno"))
    assert win.rewards == {"player_0": -0.5, "player_1": 0.25, "player_2": 0.25}


def test_zero_option_keeps_the_old_payment() -> None:
    env = uno_env.env("uno", 3, truncation_reward="zero", max_decisions=120)
    for seed in range(4):
        rewards = play_to_the_limit(env, seed)
        if env._state[L.S_STATUS] == L.ST_TRUNCATED:
            assert set(rewards.values()) == {0.0}
            return
    raise AssertionError("no game reached the limit")


def test_bad_truncation_reward_names_the_choices() -> None:
    with pytest.raises(ValueError, match="truncation_reward must be one of 'standing', 'zero'"):
        uno_env.SingleAgentEnv("uno", 2, truncation_reward="none")


# ================================================================ stalling never pays
def always_draw(mask: np.ndarray, nf: int) -> int:
    """Draw whenever legal, else keep the drawn card or accept; a card only when forced."""
    for action in (nf + L.A_DRAW_OFFSET, nf + L.A_PASS_OFFSET, nf + L.A_CHALLENGE_OFFSET + 1):
        if mask[action]:
            return action
    return int(np.flatnonzero(mask)[0])


BASELINES = ["random_legal", "random_playable", "greedy"]
LIMIT = 1500  # short games keep the test quick; a cut game pays by the standing anyway


def random_player_action(state: np.ndarray, spec: np.ndarray, mask: np.ndarray, agent: Any) -> int:
    return int(agent.act(None, mask, view=PublicView(state, spec)))


@pytest.mark.parametrize("baseline", BASELINES)
def test_always_draw_loses_in_the_aec_env(baseline: str) -> None:
    means = {}
    for learner in ("always_draw", "random_playable"):
        env = uno_env.env("uno", 2, max_decisions=LIMIT)
        opponent = agents.make(baseline, seed=1)
        mine = agents.make("random_playable", seed=2)
        total = 0.0
        for seed in range(12):
            env.reset(seed=seed)
            for agent in env.agent_iter():
                obs, reward, termination, truncation, _ = env.last()
                if termination or truncation:
                    if agent == "player_0":
                        total += reward
                    env.step(None)
                    continue
                mask = obs["action_mask"]
                if agent != "player_0":
                    action = random_player_action(env._state, env._spec, mask, opponent)
                elif learner == "always_draw":
                    action = always_draw(mask, 56)
                else:
                    action = random_player_action(env._state, env._spec, mask, mine)
                env.step(action)
        means[learner] = total / 12
    assert means["always_draw"] < -0.5 and means["always_draw"] < means["random_playable"], means


def test_always_draw_loses_in_the_parallel_env() -> None:
    """The parallel env (PettingZoo's turn-based conversion of the AEC env) pays the same:
    against the literature's random player the drawer's mean reward is clearly negative."""
    means = {}
    for learner in ("always_draw", "random_playable"):
        env = uno_env.parallel_env("uno", 2, max_decisions=LIMIT)
        aec = env.aec_env.unwrapped  # type: ignore[attr-defined]
        opponent = agents.make("random_playable", seed=1)
        mine = agents.make("random_playable", seed=2)
        total = 0.0
        for seed in range(12):
            observations, _ = env.reset(seed=seed)
            rewards: dict[str, float] = {}
            while env.agents:
                actions = {}
                for agent in env.agents:
                    mask = observations[agent]["action_mask"]
                    if not mask.any():
                        actions[agent] = 0  # not this agent's turn: ignored
                    elif agent == "player_0" and learner == "always_draw":
                        actions[agent] = always_draw(mask, 56)
                    else:
                        chooser = mine if agent == "player_0" else opponent
                        actions[agent] = random_player_action(aec._state, aec._spec, mask, chooser)
                observations, rewards, *_ = env.step(actions)
            total += rewards["player_0"]
        means[learner] = total / 12
    assert means["always_draw"] < -0.5 and means["always_draw"] < means["random_playable"], means


@pytest.mark.parametrize("baseline", BASELINES)
def test_always_draw_loses_in_the_single_agent_env(baseline: str) -> None:
    means = {}
    for learner in ("always_draw", "random_playable"):
        env = uno_env.SingleAgentEnv("uno", 2, opponents=baseline, seat=None, max_decisions=LIMIT)
        mine = agents.make("random_playable", seed=3)
        total = 0.0
        for seed in range(12):
            env.reset(seed=seed)
            done = False
            while not done:
                mask = env.action_masks().astype(np.int8)
                if learner == "always_draw":
                    action = always_draw(mask, 56)
                else:
                    action = random_player_action(env._state, env._spec, mask, mine)
                _, reward, terminated, truncated, _ = env.step(action)
                done = terminated or truncated
            total += reward
        means[learner] = total / 12
    assert means["always_draw"] < -0.5 and means["always_draw"] < means["random_playable"], means


@pytest.mark.parametrize("players", [2, 4])
def test_always_draw_loses_in_the_vector_env(players: int) -> None:
    """Against each baseline, with 2 and 4 players: the drawer's mean reward is clearly negative
    and below the random player's (a compiled ``random_playable`` learner seat, via a batch policy)."""
    for baseline in BASELINES:
        venv = uno_env.VectorEnv(16, "uno", players, opponents=baseline, seat=None, max_decisions=LIMIT)
        venv.reset(seed=0)
        finished = np.zeros(16, dtype=bool)
        rewards = np.zeros(16)
        cut = 0
        while not finished.all():
            masks = venv.action_masks().astype(np.int8)
            actions = np.array([always_draw(m, 56) for m in masks], dtype=np.int64)
            _, reward, terminated, truncated, _ = venv.step(actions)
            ended = (terminated | truncated) & ~finished
            rewards[ended] = reward[ended]
            cut += int((truncated & ended).sum())
            finished |= ended
        # an equal player expects 0 (the win reward is zero-sum); a sure loser -1/(n-1)
        assert rewards.mean() < -0.5 / (players - 1), (baseline, rewards)
        reference = uno_env.simulate(
            "uno", players, 200, seed=0, policies=["random_playable"] + [baseline] * (players - 1),
            max_decisions=LIMIT,
        )  # fmt: skip
        won = (reference.winner == 0).mean()
        random_mean = won - (1 - won - reference.truncated.mean()) / (players - 1)
        assert rewards.mean() < random_mean - 0.2, (baseline, rewards.mean(), random_mean)
