"""Benchmark rows for uno_env's environments: the PettingZoo AEC loop and the vector envs.

Every row plays random legal actions taken from the action mask the env returns; the
driver draws its random numbers in blocks (as :mod:`baselines` does for RLCard) so that
the loop costs little next to the env. Set-up (building the env) is outside the timed
region; resets are inside.

* ``uno_env AEC env()``: the standard PettingZoo loop over ``uno_env.env(preset, n)``:
  ``agent_iter`` / ``last`` / ``step``, the action picked from ``obs["action_mask"]``; a
  step is one player decision, as in RLCard's ``env.step`` row it is compared with.
* ``uno_env raw_env + PettingZoo wrappers``: the same loop over ``raw_env`` inside
  PettingZoo's classic stack (TerminateIllegal, AssertOutOfBounds, OrderEnforcing), for
  reference: what the built-in checks of ``env()`` save.
* ``uno_env VectorEnv x256``: :class:`uno_env.VectorEnv` with 256 games, one learner seat
  per game and compiled random opponents; a step is one learner decision with its
  observation and mask (the opponents' decisions happen inside it), written to the env's
  preallocated buffers (``copy=False``). The learners' random legal actions are chosen with
  NumPy over the whole batch; only the ``step`` calls are timed.
* ``SB3 SubprocVecEnv x<cpus> SingleAgentEnv``: Stable-Baselines3's ``SubprocVecEnv``
  over :class:`uno_env.SingleAgentEnv` (same opponents, same step), one worker process per
  CPU of the machine (the workers are not pinned to the benchmark's CPU); masks come back
  in the step infos, as cheaply as that API allows; only the ``step`` calls are timed.

The vector rows count learner steps and finished episodes ("games"); their decisions/game
column is learner decisions per game.
"""

from __future__ import annotations

import atexit
import functools
import os
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from registry import Row, Target, preset_rows

import uno_env

AEC = "uno_env_aec"
AEC_WRAPPED = "uno_env_aec_wrapped"
VECTOR = "uno_env_vector"
SUBPROC = "sb3_subproc_single"
RLCARD_ENV = "rlcard_env"

VECTOR_GAMES = 256
_BLOCK = 4096
_WARM_STEPS = 200


def _random_ints(seed: int) -> Iterator[int]:
    """Endless uniform integers below 2**62, drawn in blocks."""
    rng = np.random.default_rng(seed)
    while True:
        yield from rng.integers(0, 1 << 62, size=_BLOCK, dtype=np.int64).tolist()


def _make_aec(preset: str, num_players: int, wrapped: bool) -> Any:
    if not wrapped:
        return uno_env.env(preset, num_players)
    from pettingzoo.utils import wrappers

    env: Any = uno_env.raw_env(preset, num_players)
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def aec_loop(
    preset: str, num_players: int, min_seconds: float, seed: int, wrapped: bool = False
) -> dict[str, float]:
    """Whole games of the standard AEC loop with random legal actions from the mask.

    Game ``i`` is ``reset(seed=seed + i)``; actions come from a seeded block generator.

    Returns:
        ``steps`` (decisions), ``games`` and ``seconds``.
    """
    env = _make_aec(preset, num_players, wrapped)
    rand = _random_ints(seed)
    warm = uno_env.env(preset, num_players, max_decisions=_WARM_STEPS)  # compile or load the cache,
    warm.reset(seed=seed)  # game end included
    for _agent in warm.agent_iter():
        obs, _, termination, truncation, _ = warm.last()
        if termination or truncation or obs is None:
            warm.step(None)
        else:
            warm.step(int(np.flatnonzero(obs["action_mask"])[0]))
    steps = games = 0
    start = time.perf_counter()
    while True:
        env.reset(seed=seed + games)
        for _agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[next(rand) % len(legal)]))
            steps += 1
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return {"steps": steps, "games": games, "seconds": elapsed}


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a batch of masks."""
    scores = rng.random(masks.shape, dtype=np.float32)
    scores[masks == 0] = -1.0
    return scores.argmax(axis=1)


def vector_loop(preset: str, num_players: int, min_seconds: float, seed: int) -> dict[str, float]:
    """The native vector env with 256 games; random legal learner actions for the batch.

    ``VectorEnv(..., copy=False)``: observations and masks land in preallocated buffers (as
    the SB3 adapter uses them). Only the ``step`` calls are timed; drawing the learners'
    random actions is not.

    Returns:
        ``steps`` (learner decisions), ``games`` (finished episodes), ``seconds`` (inside
        ``step``) and ``wall_seconds`` (the whole loop).
    """
    venv = uno_env.VectorEnv(VECTOR_GAMES, preset, num_players, copy=False)
    rng = np.random.default_rng(seed)
    _, info = venv.reset(seed=seed)
    for _ in range(5):  # warm-up
        _, _, _, _, info = venv.step(random_legal(info["action_mask"], rng))
    _, info = venv.reset(seed=seed)
    masks = info["action_mask"]
    steps = games = 0
    in_step = 0.0
    start = time.perf_counter()
    while in_step < min_seconds:
        actions = random_legal(masks, rng)
        before = time.perf_counter()
        _, _, terminated, truncated, info = venv.step(actions)
        in_step += time.perf_counter() - before
        masks = info["action_mask"]
        steps += VECTOR_GAMES
        games += int(np.count_nonzero(terminated | truncated))
    return {"steps": steps, "games": games, "seconds": in_step, "wall_seconds": time.perf_counter() - start}


_subproc: dict[tuple[str, int], Any] = {}


def _next_masks(venv: Any, dones: np.ndarray, infos: list[dict[str, Any]]) -> np.ndarray:
    """The learners' masks after a SubprocVecEnv step (a finished game's from its reset info)."""
    return np.stack(
        [
            venv.reset_infos[i]["action_mask"] if dones[i] else infos[i]["action_mask"]
            for i in range(len(dones))
        ]
    )


def _subproc_env(preset: str, num_players: int) -> Any:
    """A SubprocVecEnv of single-agent envs, one worker per CPU, kept for the process."""
    key = (preset, num_players)
    if key not in _subproc:
        from stable_baselines3.common.vec_env import SubprocVecEnv

        workers = max(2, os.cpu_count() or 2)
        pinned = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
        if pinned is not None:  # let the workers use every CPU, not the benchmark's one
            os.sched_setaffinity(0, range(os.cpu_count() or 1))
        try:
            venv = SubprocVecEnv([functools.partial(uno_env.SingleAgentEnv, preset, num_players)] * workers)
        finally:
            if pinned is not None:
                os.sched_setaffinity(0, pinned)
        atexit.register(venv.close)
        venv.reset()  # warm-up: the workers compile or load the cache
        masks = np.stack([info["action_mask"] for info in venv.reset_infos])
        for _ in range(3):
            _, _, dones, infos = venv.step(masks.argmax(axis=1))
            masks = _next_masks(venv, dones, infos)
        _subproc[key] = venv
    return _subproc[key]


def subproc_loop(preset: str, num_players: int, min_seconds: float, seed: int) -> dict[str, float]:
    """SB3's SubprocVecEnv over SingleAgentEnv, random legal learner actions from the step infos.

    Only the ``step`` calls are timed, as for the native vector env.

    Returns:
        ``steps`` (learner decisions over all workers), ``games``, ``seconds`` (inside
        ``step``) and ``wall_seconds``.
    """
    venv = _subproc_env(preset, num_players)
    rng = np.random.default_rng(seed)
    venv.seed(seed)
    venv.reset()
    masks = np.stack([info["action_mask"] for info in venv.reset_infos])
    steps = games = 0
    in_step = 0.0
    start = time.perf_counter()
    while in_step < min_seconds:
        actions = random_legal(masks, rng)
        before = time.perf_counter()
        _, _, dones, infos = venv.step(actions)
        in_step += time.perf_counter() - before
        masks = _next_masks(venv, dones, infos)
        steps += venv.num_envs
        games += int(np.count_nonzero(dones))
    return {"steps": steps, "games": games, "seconds": in_step, "wall_seconds": time.perf_counter() - start}


def rows(presets: Sequence[str]) -> list[Row]:
    """The env rows for each rule preset.

    Args:
        presets: Preset names of :data:`uno_env.PRESETS`.

    Returns:
        Rows in display order: AEC, wrapped AEC, vector env, SubprocVecEnv.
    """
    cpus = max(2, os.cpu_count() or 2)
    out: list[Row] = []
    specs = (
        (
            "uno_env AEC env()",
            AEC,
            "aec",
            aec_loop,
            "uno_env AEC env(): PettingZoo `agent_iter`/`last`/`step`, random legal action from the mask.",
        ),
        (
            "uno_env raw_env + PettingZoo wrappers",
            AEC_WRAPPED,
            "aec",
            functools.partial(aec_loop, wrapped=True),
            "uno_env raw_env + PettingZoo wrappers: the same loop through TerminateIllegal, "
            "AssertOutOfBounds and OrderEnforcing (reference).",
        ),
        (
            f"uno_env VectorEnv x{VECTOR_GAMES}",
            VECTOR,
            "vector",
            vector_loop,
            f"uno_env VectorEnv x{VECTOR_GAMES}: a step is one learner decision with its observation and "
            "mask (compiled random opponents move inside it), written to preallocated buffers "
            "(`copy=False`); time inside `step()` only; decisions/game counts learner decisions.",
        ),
        (
            f"SB3 SubprocVecEnv x{cpus} SingleAgentEnv",
            SUBPROC,
            "vector",
            subproc_loop,
            f"SB3 SubprocVecEnv: {cpus} worker processes (one per CPU, not pinned) each running one "
            "uno_env.SingleAgentEnv; a step is one learner decision; time inside `step()` only.",
        ),
    )
    for name, key, group, make, note in specs:
        out += preset_rows(name, group, key, note, presets, make)
    return out


TARGETS = [
    Target("AEC env() loop >= 1.5x RLCard env.step", AEC, 1.5, RLCARD_ENV),
    Target("vector env (256 games, obs + masks) >= 1,000,000 steps/s", VECTOR, 1_000_000.0),
    Target("vector env >= 20x SB3 SubprocVecEnv over SingleAgentEnv", VECTOR, 20.0, SUBPROC),
]
