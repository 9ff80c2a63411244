"""The envs in other RL clients without glue: PettingZoo's parallel id, Gymnasium's vector
attribute, the opt-in dict observation, TorchRL's GymWrapper and SB3's misuse error; the
conformance tests at more player counts, Gymnasium's own wrappers, MaskablePPO behind them,
ids in fresh worker processes and PettingZoo's max_cycles."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.vector import AutoresetMode
from pettingzoo.test import parallel_api_test, parallel_seed_test

import uno_env
from uno_env.envs.registration import gymnasium_id, pettingzoo_id


# ================================================================ PettingZoo parallel
@pytest.mark.parametrize(
    ("preset", "players"),
    # each preset at its fewest players, and at 4 players, where the house rules' out-of-turn
    # windows (H-JUMP-1) ask seats that are not next to move, the house rules and a French deck
    [(name, uno_env.preset(name).min_players) for name in uno_env.PRESETS] + [("uno_house", 4), ("macao", 4)],
)
def test_parallel_id_passes_pettingzoo_parallel_tests(preset: str, players: int) -> None:
    make = functools.partial(pettingzoo.make, "parallel", pettingzoo_id(preset), num_players=players)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the API test's unmasked random actions are illegal moves
        parallel_api_test(make(), num_cycles=200)
        parallel_seed_test(make, num_cycles=200)


def test_parallel_env_plays_a_masked_game_to_the_end() -> None:
    from uno_env.engine.actions import parse_action

    env = uno_env.parallel_env("uno", 3)
    observations, infos = env.reset(seed=5)
    rng = np.random.default_rng(0)
    steps = 0
    rewards: dict[str, float] = {}
    idle = np.zeros(env.action_space("player_0").n, dtype=np.int8)
    idle[parse_action("pass")] = 1
    while env.agents:
        movers = [a for a in env.agents if infos[a]["to_move"]]
        assert len(movers) == 1  # turn-based: one agent decides
        for agent in env.agents:  # the others may only pass, and their move is ignored
            assert agent in movers or np.array_equal(observations[agent]["action_mask"], idle)
        actions = {a: int(env.action_space(a).sample(observations[a]["action_mask"])) for a in env.agents}
        actions[movers[0]] = int(rng.choice(np.flatnonzero(observations[movers[0]]["action_mask"])))
        observations, rewards, _, _, infos = env.step(actions)
        steps += 1
    assert steps > 10 and sorted(rewards.values())[-1] == 1.0 and abs(sum(rewards.values())) < 1e-9


def test_parallel_step_after_the_game_ended_returns_five_empty_dicts() -> None:
    """A parallel step once every agent left raised ``ValueError: not enough values to unpack
    (expected 5, got 4)``: PettingZoo's conversion returns four dicts there; the API has five."""
    env = uno_env.parallel_env("uno", 3)
    observations, infos = env.reset(seed=1)
    mover = next(a for a in env.agents if infos[a]["to_move"])
    illegal = int(np.flatnonzero(observations[mover]["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step({a: illegal for a in env.agents})  # an illegal move ends the game
    assert env.agents == []
    assert env.step({}) == ({}, {}, {}, {}, {})


def test_parallel_step_without_the_movers_action_names_the_mover() -> None:
    """A step without the mover's action was a bare ``KeyError: 'player_2'``."""
    env = uno_env.parallel_env("uno", 3)
    _, infos = env.reset(seed=1)
    mover = next(a for a in env.agents if infos[a]["to_move"])
    with pytest.raises(KeyError, match=f"actions has no entry for '{mover}', the agent to move"):
        env.step({a: 0 for a in env.agents if a != mover})


def test_parallel_step_before_reset_says_so() -> None:
    """``step`` and ``agents`` before ``reset`` were ``AttributeError: ... has no attribute 'agents'``."""
    env = uno_env.parallel_env("uno", 3)
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before step"):
        env.step({})


# ================================================================ Gymnasium and SB3
def test_vector_env_has_gymnasium_autoreset_attribute() -> None:
    venv = gymnasium.make_vec(gymnasium_id("uno"), num_envs=2, num_players=2)
    assert venv.autoreset_mode == AutoresetMode.SAME_STEP == venv.metadata["autoreset_mode"]


def test_bare_vector_env_in_sb3_names_to_sb3() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    venv = uno_env.VectorEnv(2, "uno", 2)
    with pytest.raises(TypeError, match=r"pass venv\.to_sb3\(\)"):
        MaskablePPO("MlpPolicy", venv)
    MaskablePPO("MlpPolicy", venv.to_sb3(), n_steps=8, batch_size=8)  # the adapter is accepted


def test_sb3_adapter_answers_per_game_calls_as_dummy_vec_env_over_single_envs() -> None:
    """A callback written for ``DummyVecEnv([SingleAgentEnv...])`` asks ``env_method("position")``,
    ``get_attr("game_seed")``, ``get_attr("learner_seat")``, ``env_method("describe_action", a)``;
    over the adapter these raised (``position() missing 1 required positional argument: 'i'``,
    ``'VectorEnv' object has no attribute 'learner_seat'``)."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import DummyVecEnv

    sb3_venv = uno_env.VectorEnv(3, "uno", 3, seat=None).to_sb3()
    dummy = DummyVecEnv([functools.partial(uno_env.SingleAgentEnv, "uno", 3, seat=None) for _ in range(3)])
    sb3_venv.seed(11)
    dummy.seed(11)
    sb3_venv.reset()
    dummy.reset()
    for venv in (sb3_venv, dummy):
        assert venv.env_method("position", indices=[2]) == dummy.env_method("position", indices=[2])
        for name in ("game_seed", "learner_seat"):
            assert venv.get_attr(name) == dummy.get_attr(name)
            assert venv.get_attr(name, indices=[1]) == dummy.get_attr(name, indices=[1])
        assert venv.env_method("describe_action", 69, indices=[0, 1]) == ["draw", "draw"]


def test_sb3_adapter_refuses_reset_options_it_cannot_apply() -> None:
    """``set_options`` then ``reset`` on the SB3 adapter dropped the options without a word
    (SB3's DummyVecEnv over SingleAgentEnv refuses them, as the vector env itself does)."""
    pytest.importorskip("stable_baselines3")
    sb3_venv = uno_env.VectorEnv(2, "uno", 2).to_sb3()
    sb3_venv.set_options({"reset_mask": [True, False]})
    with pytest.raises(ValueError, match=r"VectorEnv.reset takes no options.*'reset_mask'"):
        sb3_venv.reset()
    sb3_venv.set_options({})  # empty options are no options
    assert sb3_venv.reset().shape == (2, sb3_venv.observation_space.shape[0])


def _check_dict(obs: dict[str, np.ndarray], space: Any, mask: np.ndarray) -> None:
    assert list(obs) == ["observation", "action_mask"] and space.contains(obs)
    assert np.array_equal(obs["action_mask"].astype(bool), mask)


def test_single_env_dict_observation() -> None:
    from gymnasium.utils.env_checker import check_env

    env = uno_env.SingleAgentEnv("uno", 2, dict_observation=True)
    check_env(env, skip_render_check=True)
    plain = uno_env.SingleAgentEnv("uno", 2)
    obs, _ = env.reset(seed=3)
    flat, _ = plain.reset(seed=3)
    rng = np.random.default_rng(1)
    done = False
    while not done:
        _check_dict(obs, env.observation_space, env.action_masks())
        assert np.array_equal(obs["observation"], flat)
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, _, terminated, truncated, _ = env.step(action)
        flat, *_ = plain.step(action)
        done = terminated or truncated
    assert not obs["action_mask"].any()


def test_vector_env_dict_observation() -> None:
    venv = uno_env.VectorEnv(4, "uno", 2, opponents="greedy", dict_observation=True)
    plain = uno_env.VectorEnv(4, "uno", 2, opponents="greedy")
    obs, _ = venv.reset(seed=9)
    flat, _ = plain.reset(seed=9)
    finished = 0
    for _ in range(200):
        _check_dict(obs, venv.observation_space, venv.action_masks())
        assert np.array_equal(obs["observation"], flat)
        actions = venv.action_masks().argmax(axis=1)  # the first legal action: a card when one is
        obs, _, terminated, truncated, infos = venv.step(actions)
        flat, *_ = plain.step(actions)
        for i in np.flatnonzero(terminated | truncated):
            final = infos["final_obs"][i]
            assert venv.single_observation_space.contains(final) and not final["action_mask"].any()
            finished += 1
    assert finished > 0


# ================================================================ TorchRL
def _torchrl_rollout(base: Any, steps: int) -> Any:
    pytest.importorskip("torchrl")
    from torchrl.envs import GymWrapper, TransformedEnv
    from torchrl.envs.transforms import ActionMask

    # GymWrapper over a vector env is itself a TransformedEnv; unwrapping it is TorchRL's
    # default, said explicitly so TorchRL does not warn about the default changing
    env = TransformedEnv(GymWrapper(base, categorical_action_encoding=True), ActionMask(), auto_unwrap=True)
    env.set_seed(0)
    return env.rollout(steps, break_when_any_done=False)


def test_torchrl_gym_wrapper_over_make_vec_plays_legally() -> None:
    """TorchRL reads the mask from ``info["action_mask"]`` (its info reader) over the vector env."""
    venv = gymnasium.make_vec(gymnasium_id("uno"), num_envs=4, num_players=2, opponents="greedy")
    rollout = _torchrl_rollout(venv, 300)
    assert rollout["next", "done"].any()  # games ended and restarted
    assert not rollout["next", "illegal_action"].any()


def test_torchrl_gym_wrapper_over_dict_observation_env_plays_legally() -> None:
    env = uno_env.SingleAgentEnv("uno", 2, opponents="greedy", dict_observation=True)
    rollout = _torchrl_rollout(env, 300)
    assert rollout["next", "done"].any()
    assert rollout["next", "reward"][rollout["next", "done"]].abs().sum() > 0
    # every action was legal: it is set in the mask it was chosen under
    masks = rollout["action_mask"].bool()
    chosen = masks.gather(-1, rollout["action"].unsqueeze(-1))
    assert chosen.all()


def test_torchrl_pettingzoo_wrapper_on_the_parallel_id_runs_masked_random_rollouts() -> None:
    """No glue: every agent's mask can be sampled (the idle mask), and every applied move was legal."""
    pytest.importorskip("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    for players in (2, 4):
        env = PettingZooWrapper(
            pettingzoo.make(
                "parallel",
                pettingzoo_id("uno"),
                num_players=players,
                illegal_action="raise",
                max_decisions=100,
            ),
            use_mask=True,
            categorical_actions=True,
        )
        env.set_seed(players)
        rollout = env.rollout(300, break_when_any_done=False)  # an illegal move would raise
        assert rollout["next", "done"].any()  # games ended (cut at 100 decisions: random play) and restarted
        group = next(iter(env.group_map))
        masks = rollout[group, "action_mask"].bool()
        chosen = masks.gather(-1, rollout[group, "action"].unsqueeze(-1))
        assert chosen.all()


def test_torchrl_gym_wrapper_on_the_single_agent_id_with_its_one_switch() -> None:
    """The single-agent id with ``dict_observation=True`` (the one switch) puts the mask where
    TorchRL's ActionMask looks; masked random rollouts play legally."""
    env = gymnasium.make(gymnasium_id("uno"), num_players=2, opponents="greedy", dict_observation=True)
    rollout = _torchrl_rollout(env, 300)
    assert rollout["next", "done"].any()
    chosen = rollout["action_mask"].bool().gather(-1, rollout["action"].unsqueeze(-1))
    assert chosen.all()


# ================================================================ unknown keyword arguments
@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: uno_env.env("uno", 2, **kw),
        lambda **kw: uno_env.parallel_env("uno", 2, **kw),
        lambda **kw: uno_env.SingleAgentEnv("uno", 2, **kw),
        lambda **kw: uno_env.VectorEnv(2, "uno", 2, **kw),
    ],
    ids=["aec", "parallel", "single", "vector"],
)
def test_an_unknown_keyword_is_a_type_error_naming_the_options_and_the_rule_fields(make: Any) -> None:
    """``frameskip=4`` (TorchRL's ``GymEnv`` passes it and drops it on Python's TypeError) was
    ``RuleError: rules: unknown rule key(s) frameskip``, which named neither the env's options
    nor said that it was the keyword that was unknown; TorchRL's GymEnv then failed."""
    with pytest.raises(TypeError, match=r"got an unexpected keyword argument 'frameskip'") as caught:
        make(frameskip=4)
    message = str(caught.value)
    assert "illegal_action" in message and "render_mode" in message  # the env's options
    assert "max_decisions" in message and "seven_swap" in message  # the rule fields
    assert isinstance(caught.value, uno_env.RuleError)  # what it was before, still caught as such
    with pytest.raises(TypeError, match=r"'rewards'.*also unknown: 'sevens'"):
        make(rewards="score", sevens=True)


def test_torchrl_gym_env_makes_the_registered_id() -> None:
    """``torchrl.envs.GymEnv("uno_env/Uno-v1", ...)`` passes ``frameskip``, and drops it only on
    Python's 'unexpected keyword argument' TypeError; it raised RuleError instead."""
    pytest.importorskip("torchrl")
    from torchrl.envs import GymEnv, TransformedEnv
    from torchrl.envs.transforms import ActionMask

    env = TransformedEnv(
        GymEnv(gymnasium_id("uno"), num_players=2, opponents="greedy", dict_observation=True), ActionMask()
    )
    env.set_seed(0)
    rollout = env.rollout(100, break_when_any_done=False)
    assert rollout["action_mask"].bool().gather(-1, rollout["action"].argmax(-1, keepdim=True)).all()


def test_gymnasium_vector_wrappers_over_make_vec() -> None:
    """What docs/environments/vector.md says of Gymnasium's vector wrappers: the reward and
    statistics wrappers run; the observation wrappers refuse same-step auto-reset."""
    from gymnasium.wrappers import vector as wrappers

    venv = gymnasium.make_vec(gymnasium_id("uno"), num_envs=3, num_players=2, max_decisions=60)
    wrapped = wrappers.DictInfoToList(
        wrappers.NormalizeReward(wrappers.ClipReward(wrappers.RecordEpisodeStatistics(venv), -1, 1))
    )
    wrapped.reset(seed=0)
    episodes = 0
    for _ in range(100):
        actions = venv.unwrapped.action_masks().argmax(axis=1)
        _, _, terminated, truncated, infos = wrapped.step(actions)
        episodes += sum("episode" in info for info in infos)
        assert sum("episode" in info for info in infos) == (terminated | truncated).sum()
    assert episodes > 0
    with pytest.raises(ValueError, match="Expected autoreset_mode to be NEXT_STEP or DISABLED"):
        wrappers.NormalizeObservation(gymnasium.make_vec(gymnasium_id("uno"), num_envs=2, num_players=2))


def test_single_env_info_has_the_same_keys_and_numpy_values_at_reset_and_every_step() -> None:
    """TorchRL's info reader (``GymWrapper(env).auto_register_info_dict()``) builds its specs
    from the reset's info and reads each value's dtype: it failed on ``'int' object has no
    attribute 'dtype'`` (``seat``, ``game_seed`` were Python ints), and a step's info lacked
    the reset's keys (``seat``, ``game_seed``; ``illegal_action`` / ``decision_limit`` came and
    went)."""
    keys = {"action_mask", "seat", "game_seed", "illegal_action", "decision_limit"}
    for illegal_action in ("terminate", "draw_penalty"):
        env = uno_env.SingleAgentEnv("uno", 2, illegal_action=illegal_action, max_decisions=40)
        rng = np.random.default_rng(0)
        for game in range(6):
            _, info = env.reset(seed=game)
            assert set(info) == keys and info["seat"] == env.learner_seat and info["game_seed"] == game
            assert all(isinstance(value, (np.ndarray, np.generic)) for value in info.values())
            done = False
            while not done:
                action = int(rng.integers(env.action_space.n))  # legal or not
                _, _, terminated, truncated, info = env.step(action)
                assert set(info) == keys and info["seat"] == env.learner_seat
                assert all(isinstance(value, (np.ndarray, np.generic)) for value in info.values())
                assert info["decision_limit"] == truncated  # only the decision limit truncates
                done = terminated or truncated


def test_gymnasiums_own_vector_env_batches_the_single_envs_info_flags_as_bool_arrays() -> None:
    """``make_vec(..., vectorization_mode="sync")`` batches each info value by its type: a
    ``np.bool_`` flag (not a ``np.number``) became an object array, which ``torch.as_tensor``
    refuses; the flags are 0-d bool arrays, batched as bool like the native vector env's."""
    venv = gymnasium.make_vec(
        gymnasium_id("uno"), num_envs=2, num_players=2, max_decisions=20, vectorization_mode="sync"
    )
    _, info = venv.reset(seed=0)
    for _ in range(30):
        for key in ("illegal_action", "decision_limit"):
            assert info[key].dtype == np.bool_ and info[key].shape == (2,), key
        for key in ("seat", "game_seed"):
            assert info[key].dtype == np.int64, key
        masks = info["action_mask"].astype(bool)
        actions = np.array([np.flatnonzero(m)[0] if m.any() else 0 for m in masks])
        _, _, _, truncated, info = venv.step(actions)
        assert (info["decision_limit"] == truncated).all()


def test_torchrl_info_reader_over_the_flat_single_env_plays_legally() -> None:
    """The flat observation with the mask read from ``info`` by TorchRL's own info reader."""
    pytest.importorskip("torchrl")
    from torchrl.envs import GymWrapper, TransformedEnv
    from torchrl.envs.transforms import ActionMask

    env = GymWrapper(uno_env.SingleAgentEnv("uno", 2, opponents="greedy"), categorical_action_encoding=True)
    env.auto_register_info_dict()
    env = TransformedEnv(env, ActionMask())
    env.set_seed(0)
    rollout = env.rollout(200, break_when_any_done=False)
    assert rollout["next", "done"].any()
    assert rollout["action_mask"].bool().gather(-1, rollout["action"].unsqueeze(-1)).all()


def test_masks_under_gymnasium_next_step_autoreset_and_the_native_same_step() -> None:
    """What docs/environments/single-agent.md says: over Gymnasium's own (next-step) vector a
    finished game's row keeps its all-zero mask for one ignored step; the native vector env
    never returns an all-zero mask."""
    gym_venv = gymnasium.make_vec(
        gymnasium_id("uno"), num_envs=2, num_players=2, max_decisions=30, vectorization_mode="sync"
    )
    native = uno_env.VectorEnv(2, "uno", 2, max_decisions=30)
    _, gym_info = gym_venv.reset(seed=0)
    native.reset(seed=0)
    zero_rows = 0
    for _ in range(80):
        masks = gym_info["action_mask"].astype(bool)
        zero_rows += int((~masks.any(axis=1)).sum())
        actions = np.array([np.flatnonzero(m)[0] if m.any() else 0 for m in masks])
        *_, gym_info = gym_venv.step(actions)
        native.step(native.action_masks().argmax(axis=1))
        assert native.action_masks().any(axis=1).all()
    assert zero_rows > 0


# ================================================================ PettingZoo's max_cycles
@pytest.mark.parametrize("kind", ["aec", "parallel"])
def test_pettingzoos_max_cycles_is_refused_with_the_games_length_limit_named(kind: str) -> None:
    """``pettingzoo.make(kind, id, max_cycles=k)`` passes ``max_cycles`` to the env; the error
    listed every option and rule field without saying which one limits a game's length."""
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'max_cycles'") as caught:
        pettingzoo.make(kind, pettingzoo_id("uno"), num_players=2, max_cycles=5)
    assert "its length limit is the rule field max_decisions (E-END-1)" in str(caught.value)
    pettingzoo.make(kind, pettingzoo_id("uno"), num_players=2, max_cycles=-1)  # PettingZoo's "none"
    env = pettingzoo.make(kind, pettingzoo_id("uno"), num_players=2, max_decisions=10)
    env.reset(seed=0)
    assert env.unwrapped.rules.max_decisions == 10


# ================================================================ more players, presets, wrappers, workers
def test_ids_in_a_fresh_process_are_found_with_the_module_named() -> None:
    """What docs/environments/index.md says of worker processes started fresh (spawn,
    forkserver: SB3's SubprocVecEnv): the bare id is not registered there; with the module
    named, Gymnasium imports uno_env first."""
    import subprocess
    import sys

    code = (
        "import gymnasium\n"
        "try:\n"
        "    gymnasium.make('uno_env/Uno-v1')\n"
        "except gymnasium.error.NamespaceNotFound:\n"
        "    print('not found')\n"
        "env = gymnasium.make('uno_env:uno_env/Macao-v1', num_players=2)\n"
        "print(type(env.unwrapped).__name__, env.reset(seed=0)[0].shape[0])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["not found", "SingleAgentEnv 1236"]


def counting_callback() -> Any:
    """A Stable-Baselines3 callback that counts the learner's illegal actions and finished games."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Count(BaseCallback):
        illegal = 0
        games = 0

        def _on_step(self) -> bool:
            for info, done in zip(self.locals["infos"], self.locals["dones"], strict=True):
                self.illegal += int(info["illegal_action"])
                self.games += int(done)
            return True

    return Count()


def test_maskable_ppo_behind_gymnasium_make_wrappers_and_action_masker() -> None:
    """What docs/environments/single-agent.md says: ``gymnasium.make`` wraps the env and Gymnasium's
    wrappers do not pass ``action_masks`` on; MaskablePPO finds it anyway, and an ActionMasker's
    function reaches it through ``unwrapped``. A few hundred masked steps play no illegal action."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker

    wrapped = gymnasium.make(gymnasium_id("uno_house"), num_players=4, max_episode_steps=50)
    wrapped.reset(seed=0)
    with pytest.raises(AttributeError, match="'TimeLimit' object has no attribute 'action_masks'"):
        wrapped.action_masks()  # type: ignore[attr-defined]
    masks = wrapped.get_wrapper_attr("action_masks")()
    assert np.array_equal(masks, wrapped.unwrapped.action_masks())  # type: ignore[attr-defined]
    masked = ActionMasker(
        gymnasium.make(gymnasium_id("macao"), num_players=2), lambda e: e.unwrapped.action_masks()
    )
    for env in (wrapped, masked):
        count = counting_callback()
        model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
        model.learn(256, callback=count)
        assert count.illegal == 0 and count.games > 0


@pytest.mark.parametrize(
    ("preset", "players", "size"),
    [("uno", 2, 1262 + 74), ("uno_house", 4, 1262 + 74), ("macao", 2, 1236 + 72)],
)
def test_single_env_under_gymnasiums_own_wrappers(preset: str, players: int, size: int) -> None:
    """TimeLimit and FlattenObservation over the dict observation pass both checkers;
    RecordEpisodeStatistics reports each game's return and learner steps; NormalizeObservation
    takes the flat observation."""
    from gymnasium import wrappers
    from gymnasium.utils.env_checker import check_env

    sb3_check_env = pytest.importorskip("stable_baselines3.common.env_checker").check_env
    flat = wrappers.FlattenObservation(
        gymnasium.make(gymnasium_id(preset), num_players=players, dict_observation=True, max_episode_steps=20)
    )
    assert flat.observation_space.shape == (size,)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(flat, skip_render_check=True)
        sb3_check_env(uno_env.SingleAgentEnv(preset, players, dict_observation=True), warn=True)
    assert all("is different from the unwrapped version" in str(w.message) for w in caught)

    env = wrappers.NormalizeObservation(
        wrappers.RecordEpisodeStatistics(gymnasium.make(gymnasium_id(preset), num_players=players))
    )
    _, info = env.reset(seed=0)
    total, steps, games = 0.0, 0, 0
    while games < 3:
        _, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        total += float(reward)
        steps += 1
        if terminated or truncated:
            assert (info["episode"]["r"], info["episode"]["l"]) == (pytest.approx(total), steps)
            total, steps, games = 0.0, 0, games + 1
            _, info = env.reset()
