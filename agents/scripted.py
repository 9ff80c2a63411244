"""Python agents for the compiled play styles: the same kernels the batch simulator runs.

A :class:`ScriptedAgent` wraps one style of :data:`uno_env.styles.registry.STYLES` with its
parameters. At each decision :meth:`~uno_env.styles.view.PublicView.style_action` runs the style
on a redacted copy of the game state (only public information and its own hand) with the
agent's own generator, so its random choices depend only on its seed and the decisions it
was asked, never on the game's seed. A search guided by a network (``search:net=NAME``,
:mod:`uno_env.sim.guided`) runs its compiled network the same way. The ``oracle`` style
(``Style.cheats``) is the one
exception: it is handed the full state, the other hands included, because its purpose is to
cheat (an upper bound).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.engine.rng import check_seed, fresh_seed
from uno_env.sim.guided import GuidedChooser, network_of
from uno_env.styles.registry import parse_policy
from uno_env.styles.view import agent_generator

from .base import View, as_view, resolve_mask

AGENT_STREAM = 0x5C417
"""Generator stream of scripted agents (seeded from ``(seed, AGENT_STREAM)``)."""


class ScriptedAgent:
    """A compiled play style at a Python table: ``ScriptedAgent("bluffer:bluff=0.3", seed=1)``.

    ``act`` needs ``view`` (a :class:`~uno_env.styles.view.PublicView` or the
    :class:`~uno_env.Game`). ``name`` is the canonical policy text with every parameter.
    """

    def __init__(self, policy: str = "greedy", seed: int | None = None) -> None:
        self.style, self.params = parse_policy(policy)
        self.name = self.style.format(self.params)
        # a search guided by a network (search:net=NAME) decides through its compiled network
        self._chooser = GuidedChooser(policy) if network_of(policy) is not None else None
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the agent's generator (``None``: from the operating system)."""
        self.seed = fresh_seed() if seed is None else check_seed(seed)
        self._generator = agent_generator(self.seed, AGENT_STREAM)

    def act(self, observation: Any, action_mask: np.ndarray | None = None, view: View | None = None) -> int:
        """The style's action for the player to move in ``view``."""
        mask = resolve_mask(observation, action_mask)
        public = as_view(view, f"play style {self.style.name!r}", observation)
        if mask.shape[0] < public.num_actions:
            raise ValueError(
                f"the action mask has {mask.shape[0]} entries; this rule set has {public.num_actions} actions"
            )
        # a cheating style (the oracle) reads the hidden cards by design; the others never can
        return public.style_action(
            self.style.code, self.params, mask, self._generator, full=self.style.cheats, chooser=self._chooser
        )

    def check_game(
        self, rules: Any, num_players: int | None = None, allow_rules_mismatch: bool = False
    ) -> None:
        """A search guided by a network: raise :class:`~uno_env.sim.learned.PolicyGameMismatchError`
        unless its network can play ``rules`` with ``num_players``
        (:meth:`~uno_env.sim.learned.ExportedPolicy.check_game`; ``allow_rules_mismatch``: a
        transfer). Other styles play any game. The tables that seat agents call it
        (:func:`uno_env.sim.learned.check_fits`)."""
        if self._chooser is not None:
            self._chooser.policy.check_game(rules, num_players, allow_rules_mismatch=allow_rules_mismatch)

    def __repr__(self) -> str:
        return f"ScriptedAgent({self.name!r}, seed={self.seed})"
