"""The single-agent Gymnasium env: both env checkers, opponents, seats, seeds, illegal actions."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import uno_env
from tests.user_agents.faulty_agents import Illegal, Unmasked
from uno_env import Game, IllegalActionError
from uno_env.engine import layout as L
from uno_env.envs import ActionOutOfBoundsError, SingleAgentEnv, core
from uno_env.envs.core import next_seed
from uno_env.envs.registration import gymnasium_id
from uno_env.styles.view import PublicView


class FirstLegal:
    """An opponent object: plays the lowest legal action id and records what it saw."""

    def __init__(self) -> None:
        self.seen: list[tuple[np.ndarray, np.ndarray]] = []

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self.seen.append((observation, action_mask))
        return int(np.flatnonzero(action_mask)[0])


def random_player(seed: int) -> Any:
    rng = np.random.default_rng(seed)
    return lambda observation, mask: int(rng.choice(np.flatnonzero(mask)))


# ================================================================ the checkers
@pytest.mark.parametrize("name", sorted(uno_env.PRESETS))
def test_gymnasium_check_env_passes(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    env = gym.make(gymnasium_id(name), num_players=uno_env.preset(name).min_players)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)  # with a spec: the render modes are checked too
    assert [str(w.message) for w in caught] == []
    assert "seat" in capsys.readouterr().out  # the "human" render mode printed a table


def test_sb3_check_env_passes() -> None:
    sb3_check_env = pytest.importorskip("stable_baselines3.common.env_checker").check_env
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_check_env(SingleAgentEnv("uno", 3), warn=True)
    assert [str(w.message) for w in caught] == []


def test_gymnasium_make_and_make_vec() -> None:
    env = gym.make("uno_env/Uno-v1", num_players=3, seat=1)
    obs, info = env.reset(seed=4)
    assert obs.shape == env.observation_space.shape and info["seat"] == 1
    venv = gym.make_vec("uno_env/Uno-v1", num_envs=3, num_players=3)
    assert type(venv).__name__ == "VectorEnv" and venv.reset(seed=1)[0].shape == (3, obs.shape[0])


# ================================================================ episodes and seeds
def test_reset_deals_like_the_game_facade_and_replays_exactly() -> None:
    """Every decision (learner's and opponents') replayed on a Game gives the same position."""
    played: list[int] = []

    def recording(seed: int) -> Any:
        inner = random_player(seed)

        def act(observation: np.ndarray, mask: np.ndarray) -> int:
            action = inner(observation, mask)
            played.append(action)
            return action

        return act

    env = SingleAgentEnv("uno", 4, opponents=[recording(1), recording(2), recording(3)], seat=2)
    _, info = env.reset(seed=77)
    assert info["game_seed"] == 77
    game = Game("uno", 4, seed=77)
    rng = np.random.default_rng(0)
    for _ in range(200):
        for action in played:
            game.step(action)
        played.clear()
        assert game.position() == env.position() and game.current_player == 2
        assert np.flatnonzero(env.action_masks()).tolist() == game.legal_actions()
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, _, terminated, truncated, _ = env.step(action)
        game.step(action)
        if terminated or truncated:
            break


def test_reset_without_seed_continues_the_seed_sequence() -> None:
    env = SingleAgentEnv("uno", 3)
    env.reset(seed=10)
    env.reset()
    assert env.game_seed == next_seed(10)
    other = SingleAgentEnv("uno", 3)
    obs, _ = other.reset(seed=next_seed(10))
    np.testing.assert_array_equal(obs, env._obs)


def test_a_rotating_seat_follows_the_game_seed() -> None:
    env = SingleAgentEnv("uno", 4, seat=None)
    seats = set()
    for seed in range(8):
        _, info = env.reset(seed=seed)
        assert env.learner_seat == info["seat"] == info["game_seed"] % 4
        seats.add(env.learner_seat)
    assert seats == {0, 1, 2, 3}


def test_a_whole_episode_ends_with_the_learners_reward() -> None:
    env = SingleAgentEnv("uno", 3, opponents="random", reward="win")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(20_000):
        obs, reward, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(env.action_masks())))
        )
        assert env.observation_space.contains(obs)
        if terminated or truncated:
            break
        assert reward == 0.0 and info["action_mask"].any()
    outcome = Game.from_position("uno", env.position())
    assert terminated and outcome.is_over()
    assert reward == (1.0 if env._state[L.S_WINNER] == env.learner_seat else -0.5)
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


def test_the_decision_limit_truncates_the_episode() -> None:
    env = SingleAgentEnv("uno", 2, max_decisions=30)
    env.reset(seed=1)
    for _ in range(30):
        _, reward, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[-1]))
        if terminated or truncated:
            break
    assert truncated and not terminated
    # E-END-1: paid by the standing (the learner's points in hand against the opponent's)
    core.final_rewards(env._state, env._spec, core.REWARDS["win"], env._scratch)
    assert reward == env._scratch[env.learner_seat] and reward in (-1.0, 0.0, 1.0)
    zero = SingleAgentEnv("uno", 2, max_decisions=30, truncation_reward="zero")
    zero.reset(seed=1)
    for _ in range(30):
        _, reward, terminated, truncated, info = zero.step(int(np.flatnonzero(zero.action_masks())[-1]))
        if terminated or truncated:
            break
    assert truncated and reward == 0.0 and info["decision_limit"]


# ================================================================ opponents
def test_opponents_of_every_kind_at_one_table() -> None:
    watcher = FirstLegal()
    env = SingleAgentEnv("uno", 4, opponents=[watcher, random_player(0), "random"], seat=0)
    env.reset(seed=5)
    for _ in range(60):
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated or truncated:
            break
    assert watcher.seen
    for observation, mask in watcher.seen:
        assert observation.shape == env.observation_space.shape and mask.dtype == np.int8 and mask.any()
        assert observation[:56].sum() > 0  # it sees its own hand


class ViewReader:
    """An opponent whose act takes a view, as the scripted agents do."""

    def __init__(self) -> None:
        self.seats: list[int] = []

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: Any = None) -> int:
        assert isinstance(view, PublicView)
        self.seats.append(view.seat)
        return int(np.flatnonzero(action_mask)[-1])


def test_opponents_that_read_the_public_view_get_it() -> None:
    reader = ViewReader()
    env = SingleAgentEnv("uno", 3, opponents=[reader, "random"], seat=0)
    env.reset(seed=2)
    for _ in range(30):
        if env.step(int(np.flatnonzero(env.action_masks())[0]))[2]:
            break
    assert reader.seats and set(reader.seats) == {1}


def test_scripted_agents_of_the_agents_package_are_opponents() -> None:
    agents = pytest.importorskip("agents")
    env = SingleAgentEnv("uno", 3, opponents=[agents.make("greedy", seed=0), agents.make("random", seed=1)])
    env.reset(seed=0)
    for _ in range(50):
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated or truncated:
            break
    assert env.game_seed == 0


def test_compiled_styles_with_parameters_are_opponents() -> None:
    if "bluffer" not in uno_env.styles.registry.POLICIES:
        pytest.skip("no bluffer style")
    env = SingleAgentEnv("uno", 3, opponents=["bluffer:bluff=0.9", "greedy"])
    env.reset(seed=0)
    assert env.step(int(np.flatnonzero(env.action_masks())[0]))[0].shape == env.observation_space.shape


@pytest.mark.parametrize("value", ["false", "no", 0, None])
def test_dict_observation_takes_only_true_or_false(value: Any) -> None:
    """``dict_observation="false"`` switched the dict observation on (any truthy value did)."""
    with pytest.raises(TypeError, match=f"dict_observation must be True or False, got {value!r}"):
        SingleAgentEnv("uno", 3, dict_observation=value)
    assert SingleAgentEnv("uno", 3, dict_observation=np.False_).observation_space.shape == (1262,)


def test_bad_opponents_are_refused_with_the_allowed_kinds() -> None:
    with pytest.raises(ValueError, match="unknown play style 'genius'"):
        SingleAgentEnv("uno", 3, opponents="genius")
    with pytest.raises(ValueError, match="3 players need 2"):
        SingleAgentEnv("uno", 3, opponents=["random"])
    with pytest.raises(TypeError, match="neither a compiled policy name"):
        SingleAgentEnv("uno", 3, opponents=[42, "random"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="seat must be None"):
        SingleAgentEnv("uno", 3, seat=3)


def test_an_opponents_illegal_action_is_an_error() -> None:
    env = SingleAgentEnv(
        "uno", 2, opponents=lambda observation, mask: int(np.flatnonzero(mask == 0)[0]), seat=1
    )
    with pytest.raises(IllegalActionError, match="opponent '<lambda>' at seat 0 played the illegal action"):
        env.reset(seed=0)


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        (Unmasked(), r"opponent agent 'Unmasked' at seat 0 played the illegal action \d+ \("),
        (
            Illegal(),
            r"opponent agent 'Illegal' at seat 0 returned 999: action 999 is not in the action space",
        ),
    ],
)
def test_an_opponent_agents_illegal_action_names_the_agent(agent: object, message: str) -> None:
    """The vector env named the agent object that chose an illegal action; the single-agent env
    said only "opponent at seat 0"."""
    env = SingleAgentEnv("uno", 2, opponents=agent, seat=1)
    with pytest.raises(IllegalActionError, match=message):
        env.reset(seed=0)


# ================================================================ illegal learner actions
def illegal_action(env: SingleAgentEnv) -> int:
    return int(np.flatnonzero(~env.action_masks())[0])


def test_terminate_ends_the_episode_with_the_penalty() -> None:
    env = SingleAgentEnv("uno", 3, illegal_reward=-2.0)
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(illegal_action(env))
    assert (reward, terminated, truncated, info["illegal_action"]) == (-2.0, True, False, True)
    assert not env.action_masks().any()


def test_raise_keeps_the_game() -> None:
    env = SingleAgentEnv("uno", 3, illegal_action="raise")
    env.reset(seed=0)
    before = env.position()
    with pytest.raises(IllegalActionError, match=r"legal actions: .*position: hands="):
        env.step(illegal_action(env))
    assert env.position() == before


def test_draw_penalty_draws_two_and_asks_again() -> None:
    """U-WRONG-1 for the learner."""
    env = SingleAgentEnv("uno", 3, illegal_action="draw_penalty")
    env.reset(seed=0)
    size = int(env._obs[:56].sum())
    obs, reward, terminated, truncated, info = env.step(illegal_action(env))
    assert int(obs[:56].sum()) == size + 2 and info["action_mask"].any()
    assert (reward, terminated, truncated, info["illegal_action"]) == (0.0, False, False, True)


@pytest.mark.parametrize("bad", [-1, 74, 2.0, None])
def test_out_of_bounds_learner_actions_raise(bad: Any) -> None:
    env = SingleAgentEnv("uno", 3)
    env.reset(seed=0)
    with pytest.raises(ActionOutOfBoundsError):
        env.step(bad)


def test_ansi_render_shows_only_the_learners_hand() -> None:
    env = SingleAgentEnv("uno", 3, seat=1, render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert isinstance(text, str) and "you are seat 1" in text
    rows = [line for line in text.splitlines() if line[:1] in (" ", ">") and line[1:2].isdigit()]
    assert [row.rstrip().endswith("?") for row in rows] == [True, False, True]


def test_before_reset_step_render_and_public_view_say_reset_is_needed() -> None:
    """Before the first reset, ``step`` said 'called after the episode ended', ``render`` drew a
    table of an all-zero state ('0 players', 'last: seat 0 R0') and ``public_view`` returned a
    view of it; the AEC and vector envs raise there."""
    env = SingleAgentEnv("uno", 3, render_mode="ansi")
    with pytest.raises(RuntimeError, match=r"reset\(\) needs to be called before step\(\)"):
        env.step(0)
    with pytest.raises(gym.error.ResetNeeded, match=r"reset\(\) needs to be called before render\(\)"):
        env.render()
    with pytest.raises(RuntimeError, match=r"reset\(\) needs to be called before public_view\(\)"):
        env.public_view()
    env.reset(seed=0)
    assert "3 players" in str(env.render())
    env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_seeds_are_the_integers_of_the_other_envs() -> None:
    """``reset(seed=np.int64(5))`` raised Gymnasium's 'Seed must be a python integer' (the AEC
    and vector envs take numpy integers), and a negative seed had Gymnasium's own wording."""
    env = SingleAgentEnv("uno", 3)
    _, info = env.reset(seed=np.int64(5))
    assert info["game_seed"] == 5 and type(env.game_seed) is int
    for bad in (-1, 2**63, 5.0, True, "5"):
        with pytest.raises(ValueError, match=r"seed must be an integer in 0\.\.2\*\*63-1"):
            env.reset(seed=bad)


@pytest.mark.parametrize("options", [{"position": "hands=R1/G2/B3; discard=R5; draw=-"}, {"seed": 3}, "x"])
def test_reset_options_it_does_not_take_are_refused(options: Any) -> None:
    """``reset(options={"position": ...})`` (the AEC env's option) was silently ignored: a random
    deal instead of the position asked for."""
    env = SingleAgentEnv("uno", 3)
    with pytest.raises(ValueError, match=r"SingleAgentEnv\.reset takes no options"):
        env.reset(seed=0, options=options)
    env.reset(seed=0, options={})  # SB3's vector envs pass an empty dict
    env.reset(seed=0, options=None)


def test_ansi_render_does_not_name_a_card_given_between_two_opponents() -> None:
    """H-TWO-1: when the last decision before the learner's turn is an opponent's giving a card
    to another opponent, the learner's table says only that the opponent gave (was: the card)."""
    env = SingleAgentEnv("uno", 4, opponents="random", seat=1, render_mode="ansi", two_gives=True)
    rng = np.random.default_rng(0)
    seen = 0
    for seed in range(40):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            log = env._public_log.entries(0)
            giver, _, phase = log[-1] if log else (-1, -1, -1)
            receiver = env._state[L.S_TARGET]
            if phase == L.PH_GIVE and 1 not in (giver, receiver):
                lines = str(env.render()).splitlines()
                assert f"last: seat {giver} gave" in lines
                seen += 1
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, term, trunc, info = env.step(action)
            done = term or trunc
        if seen >= 2:
            break
    assert seen >= 2
