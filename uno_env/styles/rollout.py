"""The one rollout: play a game on with one compiled style at every seat.

The Monte-Carlo sampler (:mod:`uno_env.styles.monte_carlo`) and the search
(:mod:`uno_env.styles.search`, and its spectator's estimate) value a move by playing the game
on from it in a sampled world; :func:`rollout` is that play, and each caller scores the end
position its own way. Decisions come from the world's agent generator, never from the
game's chance generator.
"""

from __future__ import annotations

import numpy as np

from ..compiler.jit import njit
from ..engine import engine
from ..engine import layout as L
from ..engine.rng import chance_ppm
from .baselines import POLICY_RANDOM_LEGAL, random_action
from .scripted import scripted_action

ROLLOUT_LIMIT = 3000  # most decisions of one Monte-Carlo rollout (also with depth 0)


@njit(cache=True, internal=True)
def rollout(
    sim: np.ndarray,
    spec: np.ndarray,
    start_round: int,
    depth: int,
    mask: np.ndarray,
    policy: int,
    params: np.ndarray,
    explore_ppm: int,
) -> None:
    """Play ``sim`` on with compiled ``policy`` (``random_legal`` or a scripted style, with
    ``params``) at every seat, a uniformly random legal action instead with chance
    ``explore_ppm`` (millionths), until the game stops running, round ``start_round`` ends or
    ``depth`` decisions were made (0: no limit; at most :data:`ROLLOUT_LIMIT`). ``mask`` is
    scratch space for the legal actions."""
    limit = ROLLOUT_LIMIT if depth <= 0 else min(depth, ROLLOUT_LIMIT)
    steps = 0
    while sim[L.S_STATUS] == L.ST_RUNNING and sim[L.S_ROUND] == start_round and steps < limit:
        count = engine.fill_mask(sim, spec, mask, True)
        if policy == POLICY_RANDOM_LEGAL or (explore_ppm > 0 and chance_ppm(sim, L.AGENT_RNG, explore_ppm)):
            action = random_action(sim, mask, count)
        else:
            action = scripted_action(sim, spec, mask, policy, params)
        engine.apply_action(sim, spec, action, True)
        steps += 1
