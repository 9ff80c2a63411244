"""The PettingZoo Parallel API over the AEC env: PettingZoo's own turn-based conversion.

``uno_env.parallel_env(rules="uno", num_players=4, render_mode=None, **kwargs)`` is
``pettingzoo.utils.conversions.turn_based_aec_to_parallel(uno_env.env(...))``: the AEC
env of :mod:`uno_env.envs.aec` (same options, rules, rewards and seeds) behind
PettingZoo's ``ParallelEnv`` interface, built by PettingZoo's own wrapper rather than a
second implementation. It is registered as ``uno_env/<preset>-v1`` in PettingZoo's
parallel registry::

    import pettingzoo, uno_env
    env = pettingzoo.make("parallel", "uno_env/uno-v1", num_players=4)
    observations, infos = env.reset(seed=42)
    while env.agents:
        actions = {a: env.action_space(a).sample(observations[a]["action_mask"]) if
                   observations[a]["action_mask"].any() else 0 for a in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)

Uno is turn-based: every step takes an action from every live agent, but only the action of
the agent to move is applied (the one whose ``action_mask`` is not all zeros, also named
by ``infos[agent]["active_agent"]`` after a step); the others are ignored. Rewards are paid
on the step that ends the game, and all agents leave then.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from pettingzoo import ParallelEnv
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from ..engine.rules import RuleSet
from .aec import env as aec_env


def parallel_env(
    rules: RuleSet | str | Path = "uno",
    num_players: int = 4,
    render_mode: str | None = None,
    **kwargs: Any,
) -> ParallelEnv[str, dict[str, np.ndarray], int | None]:
    """The Parallel-API env: PettingZoo's ``turn_based_aec_to_parallel`` over :func:`uno_env.env`.

    ``kwargs`` are the AEC env's options and rule overrides (see :mod:`uno_env.envs.aec`).
    """
    return turn_based_aec_to_parallel(aec_env(rules, num_players, render_mode, **kwargs))
