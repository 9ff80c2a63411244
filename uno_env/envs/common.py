"""What the three environments share: their setup from the compiled game, seeds, argument
checks and errors (no PettingZoo or Gymnasium here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .. import cards
from ..compiled import CompiledGame, compile_game
from ..rng import check_seed, fresh_seed
from ..rules import RuleSet
from .core import next_seed
from .encoding import ObsLayout, obs_layout

__all__ = [
    "RENDER_MODES",
    "ActionOutOfBoundsError",
    "CompiledEnv",
    "check_choice",
    "check_seed",
    "coerce_action",
    "episode_seed",
]

RENDER_MODES = ("ansi", "human", "rgb_array")


class ActionOutOfBoundsError(ValueError, AssertionError):
    """An action outside the action space (not an integer id of the action table)."""


def check_choice(name: str, value: str, allowed: dict[str, int]) -> int:
    """The code of an option value; a bad value raises ValueError listing the allowed ones."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(repr(k) for k in allowed)}, got {value!r}")
    return allowed[value]


def coerce_action(action: Any, num_actions: int) -> int:
    """An action id as int; anything outside ``0..num_actions-1`` raises ActionOutOfBoundsError."""
    value: int | None = None
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        value = int(action)
    elif isinstance(action, np.ndarray) and action.shape in ((), (1,)) and action.dtype.kind in "iu":
        value = int(action.reshape(()))
    if value is None or not 0 <= value < num_actions:
        raise ActionOutOfBoundsError(
            f"action {action!r} is not in the action space: expected an integer id 0..{num_actions - 1} "
            "(see uno_env.action_table)"
        )
    return value


def episode_seed(seed: int | None, previous: int | None) -> int:
    """The seed of the next game an env deals: ``seed`` if given (checked), else the one after
    the ``previous`` game's (:func:`uno_env.envs.core.next_seed`), else a fresh one."""
    if seed is not None:
        return check_seed(seed)
    if previous is not None:
        return next_seed(previous)
    return fresh_seed()


class CompiledEnv:
    """The setup every environment shares (a mixin): the compiled game and its observation layout.

    :meth:`_compile` resolves and checks the rules and the player count once
    (:func:`uno_env.compiled.compile_game`) and names what the compiled calls take.
    """

    compiled: CompiledGame
    rules: RuleSet
    num_players: int
    deck: cards.DeckFamily
    _spec: np.ndarray
    _deck_counts: np.ndarray
    _layout: ObsLayout
    _offsets: np.ndarray
    _num_actions: int

    def _compile(self, rules: RuleSet | str | Path, num_players: int, overrides: dict[str, Any]) -> None:
        self.compiled = compile_game(rules, num_players, **overrides)
        self.rules = self.compiled.rules
        self.num_players = self.compiled.num_players
        self.deck = self.compiled.deck
        self._spec = self.compiled.spec
        self._deck_counts = self.compiled.deck_counts
        self._layout = obs_layout(self.deck)
        self._offsets = self._layout.offsets
        self._num_actions = self.compiled.num_actions
