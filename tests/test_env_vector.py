"""The native vector env: game-for-game equality with single envs, auto-reset, SB3 and Gymnasium.

Game ``i`` of a vector env reset with seeds ``[s0, s1, ...]`` is the game a
:class:`SingleAgentEnv` deals from ``s_i``; both continue with the same seed sequence, so
driven by the same learner actions they must produce the same observations, masks,
rewards and episode ends, across auto-resets.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import uno_env
from uno_env import IllegalActionError
from uno_env.engine import layout as L
from uno_env.envs import SingleAgentEnv, VectorEnv
from uno_env.envs.core import next_seed, pick_table
from uno_env.envs.vector import OpponentPool


def choose(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def vector_transcript(venv: VectorEnv, seeds: list[int], steps: int) -> list[list[tuple[Any, ...]]]:
    """Per game: (observation, mask) after reset, then (reward, terminated, truncated, final view, view)."""
    obs, info = venv.reset(seed=seeds)
    rngs = [np.random.default_rng(i) for i in range(len(seeds))]
    out: list[list[tuple[Any, ...]]] = [[(obs[i], info["action_mask"][i])] for i in range(len(seeds))]
    for _ in range(steps):
        masks = venv.action_masks()
        actions = np.array([choose(masks[i], rngs[i]) for i in range(len(seeds))])
        obs, rewards, terminated, truncated, info = venv.step(actions)
        for i in range(len(seeds)):
            final = info["final_obs"][i] if terminated[i] or truncated[i] else None
            out[i].append((rewards[i], terminated[i], truncated[i], final, obs[i], info["action_mask"][i]))
    return out


def single_transcript(env: Any, seed: int, index: int, steps: int) -> list[tuple[Any, ...]]:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(index)
    out: list[tuple[Any, ...]] = [(obs, info["action_mask"])]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(choose(env.unwrapped.action_masks(), rng))
        if terminated or truncated:
            final = obs
            obs, info = env.reset()
            out.append((reward, terminated, truncated, final, obs, info["action_mask"]))
        else:
            out.append((reward, terminated, truncated, None, obs, info["action_mask"]))
    return out


def assert_same(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]]) -> None:
    assert len(a) == len(b)
    for step, (x, y) in enumerate(zip(a, b, strict=True)):
        for u, v in zip(x, y, strict=True):
            if u is None or v is None:
                assert u is None and v is None, step
            else:
                np.testing.assert_array_equal(np.asarray(u), np.asarray(v), err_msg=f"step {step}")


@pytest.mark.parametrize(
    ("n", "kwargs"),
    [
        (2, {"seat": 0, "reward": "win"}),
        (4, {"seat": None, "reward": "rank"}),
        (3, {"seat": 1, "reward": "score", "opponents": ["random", "greedy"]}),
    ],
)
def test_vector_games_match_single_envs_game_for_game(n: int, kwargs: dict[str, Any]) -> None:
    if "greedy" in str(kwargs.get("opponents")) and "greedy" not in uno_env.styles.registry.POLICIES:
        pytest.skip("no greedy style")
    seeds = [11, 500, 2**40 + 3]
    rules = {"max_decisions": 60}  # several whole games (truncated ones included) per row
    venv = VectorEnv(len(seeds), "uno", n, **kwargs, **rules)
    vec = vector_transcript(venv, seeds, steps=80)
    ends = 0
    for i, seed in enumerate(seeds):
        single = single_transcript(SingleAgentEnv("uno", n, **kwargs, **rules), seed, i, steps=80)
        assert_same(vec[i], single)
        ends += sum(1 for entry in single[1:] if entry[1] or entry[2])
    assert ends >= len(seeds)


def test_the_seed_sequence_stays_in_range_and_does_not_repeat() -> None:
    seeds = [0]
    for _ in range(20_000):
        seeds.append(next_seed(seeds[-1]))
    assert all(0 <= s < 2**63 for s in seeds) and len(set(seeds)) == len(seeds)
    assert next_seed(2**63 - 1) == next_seed(2**63 - 1) != next_seed(2**63 - 2)


def test_the_comparison_can_fail() -> None:
    venv = VectorEnv(1, "uno", 3)
    vec = vector_transcript(venv, [1], steps=5)
    single = single_transcript(SingleAgentEnv("uno", 3), 2, 0, steps=5)
    with pytest.raises(AssertionError):
        assert_same(vec[0], single)


# ================================================================ opponents decided in Python
def lowest_legal(observation: np.ndarray, action_mask: np.ndarray) -> int:
    """A deterministic Python opponent: the lowest legal action id."""
    return int(np.flatnonzero(action_mask)[0])


class LowestLegalBatch:
    """The same opponent as a batch policy; counts its calls and the games it was asked about."""

    def __init__(self) -> None:
        self.calls = 0
        self.asked = 0

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        assert observations.shape[0] == masks.shape[0] and observations.dtype == np.float32
        self.calls += 1
        self.asked += masks.shape[0]
        return np.array(
            [lowest_legal(o, m) for o, m in zip(observations, masks, strict=True)], dtype=np.int64
        )


@pytest.mark.parametrize(("n", "seat"), [(2, 0), (4, None)])
def test_batch_policy_opponents_match_python_opponents_of_single_envs(n: int, seat: int | None) -> None:
    """A batch policy in the vector env plays game for game like the same Python opponent of
    SingleAgentEnv, next to compiled opponents, across auto-resets."""
    seeds = [5, 77, 2**35 + 1]
    rules = {"max_decisions": 60}
    batch = LowestLegalBatch()
    vector_table: list[Any] = [batch] + ["random"] * (n - 2)
    single_table: list[Any] = [lowest_legal] + ["random"] * (n - 2)
    venv = VectorEnv(len(seeds), "uno", n, opponents=vector_table, seat=seat, **rules)
    vec = vector_transcript(venv, seeds, steps=80)
    assert batch.asked > 0 and batch.calls <= batch.asked
    for i, seed in enumerate(seeds):
        env = SingleAgentEnv("uno", n, opponents=single_table, seat=seat, **rules)
        assert_same(vec[i], single_transcript(env, seed, i, steps=80))


def test_the_pool_picks_a_table_per_game_from_its_seed() -> None:
    batch = LowestLegalBatch()
    pool = OpponentPool([["random"], [batch]], weights=[3.0, 1.0])
    venv = VectorEnv(64, "uno", 2, opponents=pool)
    venv.reset(seed=1000)
    cumulative = np.cumsum(pool.integer_weights())
    expected = [pick_table(int(s), cumulative) for s in venv.game_seeds]
    assert venv.table_index.tolist() == expected
    assert 0 < sum(expected) < 32  # both tables used, the snapshot one less often
    counts = np.bincount([pick_table(s, cumulative) for s in range(20_000)], minlength=2)
    assert abs(counts[1] / 20_000 - 0.25) < 0.02
    assert pick_table(123, np.array([1_000_000])) == 0
    # only the games at the batch table ask it
    for _ in range(30):
        venv.step(np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()]))
    assert batch.asked > 0


def test_set_opponents_applies_to_games_dealt_afterwards() -> None:
    venv = VectorEnv(4, "uno", 2, opponents="random", max_decisions=30)
    venv.reset(seed=0)
    batch = LowestLegalBatch()
    venv.set_opponents(batch)
    assert batch.asked == 0
    for _ in range(40):
        venv.step(np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()]))
    assert batch.asked > 0  # the games dealt after the change sit with it
    assert venv.opponents == [batch]


def test_env_loops_compile_without_planning_styles_unless_an_opponent_plans() -> None:
    """A shorter cold start: the envs pass planning=None to their compiled loops when no
    opponent plays a planning style (monte_carlo, search, oracle), so those loops compile
    without them; an opponent change re-decides, counting the seats of games still running."""
    from uno_env.envs import core

    planner = "monte_carlo:samples=2,depth=5"
    venv = VectorEnv(2, "uno", 2, opponents="random_playable")
    assert venv._planning is None
    venv.reset(seed=0)
    venv.step(np.argmax(venv.action_masks(), axis=1))
    if hasattr(core.vector_run, "signatures"):  # compiled
        # vector_run is called from Python, so its signatures are recorded whether it was
        # compiled here or loaded from the cache (play_compiled, called only from compiled
        # code, has none when its callers come from the cache); the record's planning field
        # is typed none: the loops below it compile without the planning styles
        planning_types = set()
        for signature in core.vector_run.signatures:
            record = signature[0]
            planning_types.add(str(record.types[record.fields.index("planning")]))
        assert "none" in planning_types
    venv.set_opponents(OpponentPool([[planner], ["random"]]))
    assert venv._planning is True
    venv.set_opponents("random")
    assert venv._planning is None  # the running games sit with random_playable
    assert SingleAgentEnv("uno", 2, opponents="random")._planning is None
    assert SingleAgentEnv("uno", 3, opponents=["random", planner])._planning is True


@pytest.mark.parametrize(
    ("n", "opponents"), [(2, "random_playable"), (4, ["random", "random_playable", "random"])]
)
def test_random_opponents_play_the_same_games_on_loops_without_the_scripted_styles(
    n: int, opponents: str | list[str]
) -> None:
    """A shorter cold start: when every opponent plays a random style (random_legal,
    random_playable) the envs pass scripted=None to their compiled loops, which then compile
    without the scripted styles; the games are those of the loops with every style. A pool
    whose second table (greedy) has weight 0 deals every game at the random table, on the
    loops with every style."""
    from uno_env.envs import core

    seeds = [3, 77, 2**35 + 1]
    rules = {"max_decisions": 60}  # whole games, truncated ones and auto-resets included
    table = opponents if isinstance(opponents, list) else [opponents] * (n - 1)
    plain = VectorEnv(len(seeds), "uno", n, opponents=opponents, seat=None, **rules)
    pool = OpponentPool([table, ["greedy"] * (n - 1)], [1, 0])
    full = VectorEnv(len(seeds), "uno", n, opponents=pool, seat=None, **rules)
    assert plain._scripted is None and plain._planning is None
    assert full._scripted is True and full._planning is None
    for a, b in zip(vector_transcript(plain, seeds, 150), vector_transcript(full, seeds, 150), strict=True):
        assert_same(a, b)
    np.testing.assert_array_equal(plain._states, full._states)
    assert full.table_index.tolist() == [0] * len(seeds)
    if hasattr(core.vector_run, "signatures"):  # compiled: one loop with scripted typed none, one bool
        scripted_types = set()
        for signature in core.vector_run.signatures:
            record = signature[0]
            scripted_types.add(str(record.types[record.fields.index("scripted")]))
        assert {"none", "bool"} <= scripted_types
    # the single-agent env's steps, and the choice of the argument
    single = SingleAgentEnv("uno", n, opponents=opponents, seat=None, **rules)
    forced = SingleAgentEnv("uno", n, opponents=opponents, seat=None, **rules)
    assert single._scripted is None
    forced._scripted = True  # the steps with every style
    for seed in (5, 2**40):
        assert_same(single_transcript(single, seed, 0, 150), single_transcript(forced, seed, 0, 150))
    assert SingleAgentEnv("uno", 3, opponents=["random", "blocker"])._scripted is True
    assert VectorEnv(2, "uno", 2, opponents="bluffer:bluff=0.3")._scripted is True
    mixed = VectorEnv(2, "uno", 2, opponents="greedy")
    mixed.reset(seed=0)
    mixed.set_opponents("random_playable")
    assert mixed._scripted is True  # the running games sit with greedy
    assert not uno_env.styles.dispatch.scripted_needed(np.array([core.LEARNER, core.EXTERNAL, 0, 9]))
    assert uno_env.styles.dispatch.scripted_needed(np.array([core.LEARNER, 0, 8]))  # monte_carlo


def test_envs_compile_the_engine_without_the_staged_machinery_for_official_uno() -> None:
    """A shorter cold start: for rules that use none of the staged machinery (official Uno)
    the envs pass staged=None to the engine (uno_env.engine.engine.staged_argument), which compiles
    without it; house-rule variants pass True."""
    from uno_env.envs import core

    venv = VectorEnv(2, "uno", 2, opponents="random_playable")
    assert venv._staged is None
    venv.reset(seed=0)
    venv.step(np.argmax(venv.action_masks(), axis=1))
    if hasattr(core.vector_run, "signatures"):  # compiled: the record's staged field is typed none
        staged_types = set()
        for signature in core.vector_run.signatures:
            record = signature[0]
            staged_types.add(str(record.types[record.fields.index("staged")]))
        assert "none" in staged_types
    assert VectorEnv(2, "uno_house", 2)._staged is True
    assert SingleAgentEnv("uno", 2)._staged is None
    assert SingleAgentEnv("uno", 2, jump_in=True)._staged is True


def test_an_illegal_answer_of_a_batch_policy_is_refused() -> None:
    def first_illegal(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array([int(np.flatnonzero(m == 0)[0]) for m in masks], dtype=np.int64)

    venv = VectorEnv(2, "uno", 2, opponents=first_illegal, seat=1)
    with pytest.raises(IllegalActionError, match=r"batch policy .* at seat 0 chose the illegal action"):
        venv.reset(seed=0)

    def wrong_shape(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.zeros(masks.shape[0] + 1, dtype=np.int64)

    venv = VectorEnv(2, "uno", 2, opponents=wrong_shape, seat=1)
    with pytest.raises(ValueError, match="must return 2 integer action ids"):
        venv.reset(seed=0)


# ================================================================ gymnasium vector API
def test_spaces_and_same_step_autoreset() -> None:
    venv = VectorEnv(8, "uno", 2, max_decisions=20)
    assert venv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, info = venv.reset(seed=3)
    assert obs.shape == (8, venv.single_observation_space.shape[0]) and venv.observation_space.contains(obs)
    assert venv.action_space.shape == (8,)
    assert venv.game_seeds.tolist() == [3 + i for i in range(8)]
    seen_end = False
    for _ in range(25):
        actions = np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()])
        obs, _, terminated, truncated, info = venv.step(actions)
        assert venv.observation_space.contains(obs) and venv.action_masks().any(axis=1).all()
        done = terminated | truncated
        if done.any():
            seen_end = True
            assert info["_final_obs"].tolist() == done.tolist()
            for i in np.flatnonzero(done):
                assert venv.single_observation_space.contains(info["final_obs"][i])
                assert not np.array_equal(info["final_obs"][i], obs[i])
    assert seen_end


def test_copy_false_buffers_last_through_the_next_step() -> None:
    """copy=False: two alternating buffers; an observation survives one more step, not two."""
    venv = VectorEnv(2, "uno", 3, copy=False)

    def first_legal() -> np.ndarray:
        return np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()])

    obs0, _ = venv.reset(seed=0)
    kept = obs0.copy()
    obs1, *_ = venv.step(first_legal())
    np.testing.assert_array_equal(obs0, kept)  # still valid next to obs1
    assert obs1 is not obs0
    obs2, *_ = venv.step(first_legal())
    assert obs2 is obs0 and not np.array_equal(obs0, kept)  # reused by the step after
    copied = VectorEnv(2, "uno", 3)
    obs, _ = copied.reset(seed=0)
    keep = obs.copy()
    for _ in range(2):
        copied.step(np.array([int(np.flatnonzero(m)[0]) for m in copied.action_masks()]))
    np.testing.assert_array_equal(obs, keep)


def test_illegal_actions_in_the_vector_env() -> None:
    venv = VectorEnv(3, "uno", 3, illegal_reward=-3.0)
    venv.reset(seed=0)
    actions = np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()])
    actions[1] = int(np.flatnonzero(~venv.action_masks()[1])[0])
    _, rewards, terminated, truncated, info = venv.step(actions)
    assert rewards[1] == -3.0 and terminated.tolist() == [False, True, False] and not truncated.any()
    assert info["illegal_action"].tolist() == [False, True, False]
    assert venv.game_seeds[1] != 1  # a new game was dealt in row 1

    raising = VectorEnv(3, "uno", 3, illegal_action="raise")
    raising.reset(seed=0)
    positions = [raising.position(i) for i in range(3)]
    with pytest.raises(IllegalActionError, match="game 1: illegal action"):
        raising.step(actions)
    # before any game moved: game 0 was stepped, its new view lost, and a retry replayed its action
    assert [raising.position(i) for i in range(3)] == positions
    retry = actions.copy()
    retry[1] = int(np.flatnonzero(raising.action_masks()[1])[0])
    raising.step(retry)
    assert all(raising.position(i) != positions[i] for i in range(3))

    penalty = VectorEnv(3, "uno", 3, illegal_action="draw_penalty")
    obs, _ = penalty.reset(seed=0)
    size = obs[1, :56].sum()
    obs, rewards, terminated, _, info = penalty.step(actions)
    assert obs[1, :56].sum() == size + 2 and not terminated[1] and info["illegal_action"][1]


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="num_envs must be a positive integer"):
        VectorEnv(0)
    with pytest.raises(TypeError, match="neither a compiled policy name"):
        VectorEnv(2, "uno", 3, opponents=["random", 3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="lists 1 entries; 3 players need 2"):
        VectorEnv(2, "uno", 3, opponents=OpponentPool([["random", "random"], ["random"]]))
    with pytest.raises(ValueError, match="2 weights for 1 opponent tables"):
        OpponentPool(["random"], weights=[1.0, 2.0])
    with pytest.raises(ValueError, match="not all 0"):
        OpponentPool(["random", "greedy"], weights=[0.0, 0.0])
    venv = VectorEnv(2, "uno", 3)
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(2, dtype=np.int64))
    venv.reset(seed=0)
    with pytest.raises(ValueError, match="2 integer action ids"):
        venv.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="got 1 seeds for 2 games"):
        venv.reset(seed=[1])


def test_a_none_in_the_seed_list_resets_that_game_as_gymnasiums_own_vector_envs_do() -> None:
    """Gymnasium's ``SyncVectorEnv.reset`` takes ``seed=[3, None]``: game 0 from seed 3, game 1
    unseeded, the next game of its sequence. The native vector env refused the ``None``."""
    import gymnasium

    native = VectorEnv(2, "uno", 2)
    reference = gymnasium.vector.SyncVectorEnv([lambda: uno_env.SingleAgentEnv("uno", 2)] * 2)
    native.reset(seed=10)
    reference.reset(seed=10)
    native.reset(seed=[3, None])
    _, info = reference.reset(seed=[3, None])
    assert native.game_seeds.tolist() == info["game_seed"].tolist() == [3, next_seed(11)]
    fresh = VectorEnv(2, "uno", 2)
    fresh.reset(seed=[None, 5])  # before any reset: a fresh seed from the operating system
    assert fresh.game_seeds[1] == 5


@pytest.mark.parametrize(
    "seed", [3.0, np.array(3), "12", b"12", {0: 1, 1: 2}, np.zeros((2, 1), dtype=np.int64)]
)
def test_a_seed_that_is_neither_an_integer_nor_a_list_of_them_is_refused(seed: Any) -> None:
    """``reset(seed=3.0)`` raised Python's own ``TypeError: 'float' object is not iterable``, and
    a text of two digits was taken as two seeds, each refused as ``got '1'``."""
    venv = VectorEnv(2, "uno", 3)
    with pytest.raises(ValueError, match=r"seed must be None, an integer in 0\.\.2\*\*63-1 or 2 of them"):
        venv.reset(seed=seed)
    venv.reset(seed=np.array([5, 6]))
    assert venv.game_seeds.tolist() == [5, 6]


@pytest.mark.parametrize("switch", ["copy", "dict_observation", "public_views"])
@pytest.mark.parametrize("value", ["false", "no", 0, None])
def test_on_off_arguments_take_only_true_or_false(switch: str, value: Any) -> None:
    """``copy="no"`` kept copying, ``public_views="no"`` kept every game's move log and
    ``dict_observation="false"`` switched the dict observation on: any truthy value did."""
    with pytest.raises(TypeError, match=f"{switch} must be True or False, got {value!r}"):
        VectorEnv(2, "uno", 3, **{switch: value})
    venv = VectorEnv(2, "uno", 3, **{switch: np.False_})
    if switch == "public_views":
        venv.reset(seed=0)
        with pytest.raises(RuntimeError, match="public_views=True"):
            venv.public_view(0)
    else:
        assert getattr(venv, switch) is False


@pytest.mark.parametrize("options", [{"reset_mask": np.array([True, False])}, {"position": "x"}, "x"])
def test_reset_options_it_does_not_take_are_refused(options: Any) -> None:
    """``reset(options={"reset_mask": ...})`` (Gymnasium's partial reset) redealt every game, and
    any other option was silently ignored."""
    venv = VectorEnv(2, "uno", 3)
    with pytest.raises(ValueError, match=r"VectorEnv\.reset takes no options"):
        venv.reset(seed=0, options=options)
    venv.reset(seed=0, options={})


# ================================================================ Stable-Baselines3
def test_sb3_vecenv_adapter_and_maskableppo() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    venv = VectorEnv(16, "uno", 3, max_decisions=40)
    sb3 = venv.to_sb3()
    assert is_masking_supported(sb3)
    sb3.seed(7)
    obs = sb3.reset()
    assert obs.shape == (16, venv.single_observation_space.shape[0]) and venv.game_seeds[0] == 7
    masks = get_action_masks(sb3)
    assert masks.shape == (16, venv.single_action_space.n) and masks.dtype == bool
    model = MaskablePPO("MlpPolicy", sb3, n_steps=8, batch_size=32, n_epochs=1, seed=0)
    model.learn(total_timesteps=16 * 8 * 2)
    actions, _ = model.predict(sb3.reset(), action_masks=get_action_masks(sb3))
    assert all(get_action_masks(sb3)[i, a] for i, a in enumerate(actions))
    ended = 0
    for _ in range(30):
        _, _, dones, infos = sb3.step(np.array([int(np.flatnonzero(m)[0]) for m in get_action_masks(sb3)]))
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == obs.shape[1:]
            assert "TimeLimit.truncated" in infos[i]
            ended += 1
    assert ended > 0


def test_final_info_carries_each_finished_games_decisions_and_turns() -> None:
    """The lengths of a finished game are the single env's at its end (same seed, same actions)."""
    from uno_env.engine import layout as L

    seeds = [21, 22, 23]
    venv = VectorEnv(len(seeds), "uno", 3, opponents=["greedy", "random"], seat=0)
    singles = [SingleAgentEnv("uno", 3, opponents=["greedy", "random"], seat=0) for _ in seeds]
    venv.reset(seed=seeds)
    for env, seed in zip(singles, seeds, strict=True):
        env.reset(seed=seed)
    ended = 0
    for _ in range(400):
        actions = np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()])
        _, _, terminated, truncated, info = venv.step(actions)
        for i, env in enumerate(singles):
            _, _, term, trunc, _ = env.step(int(actions[i]))
            assert (term, trunc) == (terminated[i], truncated[i])
            if term or trunc:
                final = info["final_info"]
                assert final["_decisions"][i] and final["_turns"][i]
                state = env._state  # the finished game, before its reset
                assert final["decisions"][i] == state[L.S_DECISIONS] > 0
                assert final["turns"][i] == state[L.S_TURNS] > 0
                ended += 1
                env.reset()
    assert ended >= 3


# ================================================================ max_episode_steps
def first_legal(masks: np.ndarray) -> np.ndarray:
    return np.array([int(np.flatnonzero(m)[0]) for m in masks], dtype=np.int64)


def test_max_episode_steps_cuts_a_game_at_its_learners_kth_step() -> None:
    """``gymnasium.make_vec(id, max_episode_steps=k)`` was refused (UnknownKeywordError): the
    native vector env had no step limit. Row 0's game (seed 40, 2 players) is still going at the
    learner's 4th step and is cut there: truncated, not terminated, paid 0, its last view (the
    single env's after the same 4 actions) in final_obs, the next seed's game in its place. Row 1
    ends its game by an illegal action at step 2 (terminated, untouched by the limit); its next
    game ends the same way at its 4th step, step 6 (terminated only: the game ended, the limit
    cut nothing), and the one after is cut at step 10: the count restarts with each game."""
    seeds = [40, 41]
    venv = VectorEnv(2, "uno", 2, max_episode_steps=4)
    single = SingleAgentEnv("uno", 2)
    venv.reset(seed=seeds)
    single.reset(seed=seeds[0])
    for step in range(1, 11):
        actions = first_legal(venv.action_masks())
        if step in (2, 6):
            actions[1] = int(np.flatnonzero(~venv.action_masks()[1])[0])  # illegal: the game ends
        last_view, single_reward, single_terminated, single_truncated, _ = single.step(int(actions[0]))
        obs, rewards, terminated, truncated, info = venv.step(actions)
        cut = [step in (4, 8), step == 10]
        assert truncated.tolist() == cut, step
        assert terminated.tolist() == [False, step in (2, 6)], step
        assert rewards[0] == single_reward == 0.0 and not single_terminated and not single_truncated
        if step in (2, 6):
            assert rewards[1] == -1.0 and not info["final_info"]["step_limit"][1]
        if step == 4:
            final = info["final_info"]
            np.testing.assert_array_equal(info["final_obs"][0], last_view)
            assert final["step_limit"].tolist() == [True, False] and final["_step_limit"].tolist() == cut
            assert not final["decision_limit"].any() and not final["illegal_action"][0]
            assert final["decisions"][0] == single._state[L.S_DECISIONS] > 0
            assert final["turns"][0] == single._state[L.S_TURNS] > 0
            assert venv.game_seeds[0] == next_seed(seeds[0])
        if truncated[0]:
            first_view, _ = single.reset()  # the next game of the seed sequence, as the row's
            np.testing.assert_array_equal(obs[0], first_view)
        if step == 10:
            assert info["final_info"]["step_limit"].tolist() == [False, True]


@pytest.mark.parametrize(
    ("n", "limit", "kwargs"),
    [
        (2, 20, {"seat": 0, "reward": "win"}),
        (3, 14, {"seat": None, "reward": "rank", "illegal_action": "draw_penalty"}),
        (2, 24, {"seat": 1, "opponents": "batch"}),
    ],
)
def test_max_episode_steps_plays_the_games_of_time_limit_over_single_envs(
    n: int, limit: int, kwargs: dict[str, Any]
) -> None:
    """Row i with max_episode_steps=limit is the single env under Gymnasium's TimeLimit(limit), reset
    after each end, game for game: wins, E-END-1 cuts and step-limit cuts, with compiled and
    batch-policy opponents (a cut row's new game may wait on the batch policy). One difference:
    a game that ends at the limit step is terminated, not also truncated as TimeLimit flags it."""
    from gymnasium.wrappers import TimeLimit

    seeds = [3, 90, 2**33 + 7]
    rules = {"max_decisions": 50}
    vector_kwargs = dict(kwargs, opponents=LowestLegalBatch()) if kwargs.get("opponents") else kwargs
    single_kwargs = dict(kwargs, opponents=lowest_legal) if kwargs.get("opponents") else kwargs
    venv = VectorEnv(len(seeds), "uno", n, max_episode_steps=limit, **vector_kwargs, **rules)
    vec = vector_transcript(venv, seeds, steps=90)
    cuts = ends = 0
    for i, seed in enumerate(seeds):
        env = TimeLimit(SingleAgentEnv("uno", n, **single_kwargs, **rules), max_episode_steps=limit)
        single = [
            entry if len(entry) == 2 else (entry[0], entry[1], entry[2] and not entry[1], *entry[3:])
            for entry in single_transcript(env, seed, i, steps=90)
        ]
        assert_same(vec[i], single)
        ends += sum(1 for entry in single[1:] if entry[1] or entry[2])
    for row in vec:
        lengths = np.diff([0, *[k for k, entry in enumerate(row[1:], 1) if entry[1] or entry[2]]])
        cuts += int((lengths == limit).sum())
        assert (lengths <= limit).all()
    assert cuts >= 2 and ends > cuts


def test_a_cut_game_keeps_its_legal_actions_in_the_dict_final_observation() -> None:
    """A game cut at max_episode_steps was still going: its final dict observation carries the
    legal actions its learner had, not the all-zero mask of a finished game."""
    venv = VectorEnv(2, "uno", 2, max_episode_steps=1, dict_observation=True)
    obs, _ = venv.reset(seed=0)
    _, _, terminated, truncated, info = venv.step(first_legal(obs["action_mask"]))
    assert truncated.all() and not terminated.any()
    for i in range(2):
        final = info["final_obs"][i]
        assert final["action_mask"].dtype == np.int8 and final["action_mask"].any()
        assert venv.single_observation_space.contains(final)


def test_a_cut_rows_public_view_is_its_new_games() -> None:
    """The row dealt anew after a cut keeps its public move log: its learner's view holds the new
    game's history (the opponents' moves before the learner's first decision), as the single
    env's after its reset."""
    venv = VectorEnv(2, "uno", 3, seat=2, max_episode_steps=2, public_views=True)
    single = SingleAgentEnv("uno", 3, seat=2)
    venv.reset(seed=[5, 6])
    single.reset(seed=5)
    for _ in range(2):
        actions = first_legal(venv.action_masks())
        single.step(int(actions[0]))
        *_, truncated, _ = venv.step(actions)
    assert truncated.all()
    single.reset()
    history = venv.public_view(0).public_history()
    assert history == single.public_view().public_history() and len(history) == 2


def test_make_vec_passes_max_episode_steps_to_the_native_vector_env() -> None:
    """``gymnasium.make_vec(id, max_episode_steps=k)`` in the default (vector entry point) mode
    raised UnknownKeywordError; Gymnasium passes it, or the spec's own max_episode_steps, to the
    entry point."""
    import copy

    import gymnasium

    venv = gymnasium.make_vec("uno_env/Uno-v1", num_envs=2, num_players=2, max_episode_steps=3)
    assert venv.unwrapped.max_episode_steps == 3
    with pytest.raises(AttributeError):  # fixed at construction: steps are counted only under a limit
        venv.unwrapped.max_episode_steps = 4
    venv.reset(seed=0)
    for step in range(1, 4):
        _, _, terminated, truncated, _ = venv.step(first_legal(venv.unwrapped.action_masks()))
        assert truncated.tolist() == [step == 3] * 2 and not terminated.any()
    spec = copy.deepcopy(gymnasium.spec("uno_env/Uno-v1"))
    spec.max_episode_steps = 5
    assert gymnasium.make_vec(spec, num_envs=2, num_players=2).unwrapped.max_episode_steps == 5
    assert gymnasium.make_vec(spec, num_envs=2, max_episode_steps=2).unwrapped.max_episode_steps == 2
    assert gymnasium.make_vec("uno_env/Uno-v1", num_envs=2).unwrapped.max_episode_steps is None


@pytest.mark.parametrize("value", [0, -3, 2.5, "10", True, np.int64(0), [5]])
def test_a_max_episode_steps_that_is_not_a_positive_integer_is_refused(value: Any) -> None:
    with pytest.raises(
        ValueError, match=r"max_episode_steps must be None \(no limit\) or a positive integer"
    ):
        VectorEnv(2, "uno", 2, max_episode_steps=value)
    assert VectorEnv(2, "uno", 2, max_episode_steps=np.int64(7)).max_episode_steps == 7


def test_sb3_adapter_reports_a_step_limit_cut_as_a_time_limit() -> None:
    """SB3 bootstraps a game cut at max_episode_steps from its terminal observation."""
    pytest.importorskip("stable_baselines3")
    sb3 = VectorEnv(3, "uno", 2, max_episode_steps=2).to_sb3()
    sb3.seed(0)
    sb3.reset()
    for step in range(1, 3):
        _, _, dones, infos = sb3.step(first_legal(sb3.action_masks()))
        assert dones.tolist() == [step == 2] * 3
    assert all(
        info["TimeLimit.truncated"]
        and info["terminal_observation"].shape == (sb3.observation_space.shape[0],)
        for info in infos
    )


@pytest.mark.parametrize("illegal_action", ["terminate", "draw_penalty"])
def test_sb3_adapter_infos_hold_what_dummy_vec_env_gives_vec_monitor(illegal_action: str) -> None:
    """``VecMonitor(venv.to_sb3(), info_keywords=("illegal_action", "decision_limit"))`` raised
    ``KeyError: 'illegal_action'`` at the first finished game: the adapter's infos held only
    ``terminal_observation`` and ``TimeLimit.truncated``, so callbacks saw neither illegal actions
    nor games cut by E-END-1. Now a finished game's info has the vector env's ``final_info``, and
    an illegal action that lets the game go on (U-WRONG-1) is flagged, as SB3's DummyVecEnv over
    SingleAgentEnv gives them (same seeds, same actions, same episodes)."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    kwargs: dict[str, Any] = {"illegal_action": illegal_action, "max_decisions": 40}
    keywords = ("illegal_action", "decision_limit")
    adapter = VecMonitor(VectorEnv(3, "uno", 2, **kwargs).to_sb3(), info_keywords=keywords)
    singles = [functools.partial(SingleAgentEnv, "uno", 2, **kwargs) for _ in range(3)]
    dummy = VecMonitor(DummyVecEnv(singles), info_keywords=keywords)  # type: ignore[arg-type]
    for venv in (adapter, dummy):
        venv.seed(5)
        venv.reset()
    ends: list[tuple[Any, ...]] = []
    illegal_steps = 0
    for step in range(80):
        actions = first_legal(np.array(dummy.env_method("action_masks")))
        if step % 9 == 4:  # row 1 plays an illegal card
            actions[1] = int(np.flatnonzero(~np.array(dummy.env_method("action_masks", indices=[1])[0]))[0])
        _, _, dones, infos = adapter.step(actions)
        _, _, dummy_dones, dummy_infos = dummy.step(actions)
        assert dones.tolist() == dummy_dones.tolist()
        for i, (info, expected) in enumerate(zip(infos, dummy_infos, strict=True)):
            assert bool(info.get("illegal_action", False)) == bool(expected["illegal_action"]), (step, i)
            illegal_steps += bool(expected["illegal_action"])
            if dones[i]:
                episode, expected_episode = info["episode"], expected["episode"]
                assert (episode["r"], episode["l"]) == (expected_episode["r"], expected_episode["l"])
                for key in keywords:
                    assert episode[key] == info[key] == expected[key], (step, i, key)
                assert info["decisions"] >= info["turns"] > 0 and not info["step_limit"]
                ends.append((bool(info["illegal_action"]), bool(info["decision_limit"])))
    assert illegal_steps >= 8 and (False, True) in ends  # illegal moves and games cut at the limit
    if illegal_action == "terminate":
        assert (True, False) in ends


def test_sb3_adapter_refuses_actions_that_are_not_integer_ids() -> None:
    """``step_async`` cast the actions into its int64 buffer: 26.9 was played as 26 without a word
    (the vector env refuses float actions). They now reach the vector env's check as given."""
    pytest.importorskip("stable_baselines3")
    sb3 = VectorEnv(2, "uno", 2).to_sb3()
    sb3.seed(0)
    sb3.reset()
    legal = first_legal(sb3.action_masks())
    with pytest.raises(ValueError, match=r"actions must be 2 integer action ids .* got float64 array"):
        sb3.step(legal + 0.9)
    with pytest.raises(ValueError, match=r"got int64 array of shape \(3,\)"):
        sb3.step(np.append(legal, 0))
    _, rewards, dones, _ = sb3.step(legal.reshape(2, 1))  # SB3's (n, 1) actions are flattened
    assert not dones.any() and not rewards.any()
