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
        actions = {a: env.action_space(a).sample(observations[a]["action_mask"]) for a in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)

Uno is turn-based: every step takes an action from every live agent, but only the action of
the agent to move is applied; the others are ignored. The agent to move is flagged by
``infos[agent]["to_move"]`` (True for it alone, after a reset and after every step; a bool,
where PettingZoo's own conversion puts a name, ``active_agent``, that TorchRL cannot read);
``infos[agent]["decision_limit"]`` is there at every step too (False until a game is cut at
the decision limit, E-END-1), so the infos keep one set of keys.
**Agents not to move get an idle mask** that allows exactly one
action, ``pass`` (:data:`IDLE_ACTION`), so every agent's mask can be sampled (TorchRL's
``PettingZooWrapper(..., use_mask=True)`` samples every agent's action from its mask, and a
mask of all zeros is no distribution); what they play is ignored. The AEC env keeps
PettingZoo's convention of zeros for them. Rewards are paid on the step that ends the game,
and all agents leave then. ``state()`` and ``state_space`` are the AEC env's (every seat's
observation end to end, for a centralised critic).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from pettingzoo import ParallelEnv
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper

from ..engine import actions
from ..engine.rules import RuleSet
from .aec import env as aec_env

IDLE_ACTION = "pass"
"""The one action an agent not to move may take (and is ignored)."""


class TurnBasedParallelEnv(turn_based_aec_to_parallel_wrapper):
    """PettingZoo's turn-based conversion, with the idle mask for agents not to move and
    ``infos[agent]["to_move"]`` after a reset and every step (in place of PettingZoo's
    ``active_agent``, a name, which clients that read infos as arrays cannot take)."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, Any]:
        """Deal a game (as the AEC env's ``reset``); every live agent's observation and info."""
        observations, infos = super().reset(seed=seed, options=options)
        return self._idle(observations), self._mark(infos)

    def step(self, actions: dict[str, Any]) -> tuple[Any, Any, Any, Any, Any]:
        """Apply the action of the agent to move (the others are ignored); once the game has
        ended (no agents left), five empty dicts."""
        if "agents" not in self.__dict__:
            raise AssertionError("reset() needs to be called before step.")
        if not self.agents:  # PettingZoo's conversion returns four dicts here
            return {}, {}, {}, {}, {}
        mover = self.aec_env.agent_selection
        if mover not in actions:  # PettingZoo's conversion: a bare KeyError naming the agent
            raise KeyError(
                f"actions has no entry for {mover!r}, the agent to move (infos[agent]['to_move']); "
                f"step takes an action for every live agent: {', '.join(self.agents)}"
            )
        observations, rewards, terminations, truncations, infos = super().step(actions)
        return self._idle(observations), rewards, terminations, truncations, self._mark(infos)

    def _idle(self, observations: dict[str, Any]) -> dict[str, Any]:
        for agent, obs in observations.items():
            mask = obs["action_mask"]
            if not mask.any():
                idle = np.zeros_like(mask)
                idle[actions.parse_action(IDLE_ACTION, self.aec_env.unwrapped.deck)] = 1
                observations[agent] = {"observation": obs["observation"], "action_mask": idle}
        return observations

    def _mark(self, infos: dict[str, Any]) -> dict[str, Any]:
        active = self.aec_env.agent_selection if self.aec_env.agents else None
        out = {}
        for agent, info in infos.items():
            info = {k: v for k, v in info.items() if k != "active_agent"}  # a name: see the docstring
            info["to_move"] = agent == active
            info.setdefault("decision_limit", False)  # the same keys every step (TorchRL's specs)
            out[agent] = info
        return out


def parallel_env(
    rules: RuleSet | str | Path = "uno",
    num_players: int = 4,
    render_mode: str | None = None,
    **kwargs: Any,
) -> ParallelEnv[str, dict[str, np.ndarray], int | None]:
    """The Parallel-API env: PettingZoo's turn-based conversion over :func:`uno_env.env`, with
    the idle mask for agents not to move (see the module docstring).

    ``kwargs`` are the AEC env's options and rule overrides (see :mod:`uno_env.envs.aec`).
    """
    return TurnBasedParallelEnv(aec_env(rules, num_players, render_mode, **kwargs))
