"""Python agents for the compiled play styles: the same kernels the batch simulator runs.

A :class:`ScriptedAgent` wraps one style of :data:`uno_env.policies.STYLES` with its
parameters. At each decision it hands :func:`uno_env.batch.choose_action` a redacted copy of
the game state (:meth:`~uno_env.policies.PublicView.redacted`: only public information and
its own hand) carrying the agent's own generator in the agent-generator slot, so its random
choices depend only on its seed and the decisions it was asked, never on the game's seed.
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from uno_env import layout as L
from uno_env.batch import choose_action
from uno_env.policies import parse_policy
from uno_env.rng import seed_rng

from .base import View, as_view, resolve_mask

AGENT_STREAM = 0x5C417
"""Generator stream of scripted agents (seeded from ``(seed, AGENT_STREAM)``)."""


class ScriptedAgent:
    """A compiled play style at a Python table: ``ScriptedAgent("bluffer:bluff=0.3", seed=1)``.

    ``act`` needs ``view`` (a :class:`~uno_env.policies.PublicView` or the
    :class:`~uno_env.Game`). ``name`` is the canonical policy text with every parameter.
    """

    def __init__(self, policy: str = "greedy", seed: int | None = None) -> None:
        self.style, self.params = parse_policy(policy)
        self.name = self.style.format(self.params)
        self._generator = np.zeros(L.RNG_WORDS, dtype=np.int64)
        self._mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the agent's generator (``None``: from the operating system)."""
        if seed is None:
            seed = secrets.randbits(63)
        if not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
            raise ValueError(f"seed must be an integer in 0..2**63-1, got {seed!r}")
        self.seed = int(seed)
        seed_rng(self._generator, 0, self.seed, AGENT_STREAM)

    def act(self, observation: Any, action_mask: np.ndarray | None = None, view: View | None = None) -> int:
        """The style's action for the player to move in ``view``."""
        mask = resolve_mask(observation, action_mask)
        public = as_view(view, f"play style {self.style.name!r}")
        if mask.shape[0] < public.num_actions:
            raise ValueError(
                f"the action mask has {mask.shape[0]} entries; this rule set has {public.num_actions} actions"
            )
        state = public.redacted()
        state[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS] = self._generator
        self._mask[:] = 0
        self._mask[: public.num_actions] = mask[: public.num_actions] != 0
        count = int(self._mask.sum())
        action = choose_action(state, public.spec, self._mask, count, self.style.code, self.params)
        self._generator[:] = state[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS]
        return int(action)

    def __repr__(self) -> str:
        return f"ScriptedAgent({self.name!r}, seed={self.seed})"
