"""Learned policies from plain weights (no torch, no pickle): :class:`ExportedAgent`.

An exported policy (:mod:`uno_env.sim.learned`: ``NAME.npz`` + ``NAME.json``) is a shipped name
such as ``distilled_uno_2p`` or a ``.npz`` path. The agent runs its forward pass in NumPy on the
env's observation and plays the legal action with the highest logit, the action the torch
policy it was exported from plays.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from uno_env.engine.rng import check_seed
from uno_env.sim.learned import ExportedPolicy, load_policy, observe_public
from uno_env.styles.view import PublicView

from .base import View, resolve_mask


class ExportedAgent:
    """An exported policy at a table: ``ExportedAgent("distilled_uno_2p")``.

    ``act`` takes the env's observation (array or ``{"observation", "action_mask"}``); when
    the observation is None it encodes ``view`` (a :class:`~uno_env.styles.view.PublicView` or
    :class:`~uno_env.Game`) for the player to move. The play is deterministic (``seed`` is
    accepted for the common agent interface and unused).
    """

    def __init__(self, policy: str | ExportedPolicy, seed: int | None = None) -> None:
        if not isinstance(policy, (str, ExportedPolicy)):
            raise TypeError(
                f"ExportedAgent takes a shipped policy name ('ppo_uno_2p'), a .npz path, an ExportedPolicy; "
                f"got {type(policy).__name__} {policy!r:.80}"
            )
        self.policy = load_policy(policy) if isinstance(policy, str) else policy
        self.name = self.policy.name
        self.seed = None if seed is None else check_seed(seed)

    def act(self, observation: Any, action_mask: np.ndarray | None = None, view: View | None = None) -> int:
        """The policy's legal action."""
        if observation is None:
            if view is None:
                raise ValueError(f"policy {self.name} needs an observation or a view of the game")
            observation = _observe(view)
        mask = resolve_mask(observation, action_mask)
        obs = observation["observation"] if isinstance(observation, Mapping) else observation
        return self.policy.act(np.asarray(obs), mask)

    def check_game(
        self, rules: Any, num_players: int | None = None, allow_rules_mismatch: bool = False
    ) -> None:
        """Raise :class:`~uno_env.sim.learned.PolicyGameMismatchError` unless the policy can play
        ``rules`` with ``num_players`` (:meth:`~uno_env.sim.learned.ExportedPolicy.check_game`;
        ``allow_rules_mismatch``: other rules and player counts of its deck family, a transfer).
        The tables that seat agents call it (:func:`uno_env.sim.learned.check_fits`)."""
        self.policy.check_game(rules, num_players, allow_rules_mismatch=allow_rules_mismatch)

    def __repr__(self) -> str:
        return f"ExportedAgent({self.name!r})"


def _observe(view: View) -> np.ndarray:
    """The observation of the player to move in ``view``."""
    public = view if isinstance(view, PublicView) else PublicView.of(view)
    return observe_public(public.state, public.spec, public.seat)
