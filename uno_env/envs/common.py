"""What the three environments share: their setup from the compiled game, seeds, argument
checks and errors (no PettingZoo or Gymnasium here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..engine import cards
from ..engine.engine import staged_argument
from ..engine.rng import check_seed, fresh_seed
from ..engine.rules import RuleSet
from ..game.compiled import CompiledGame, compile_game
from ..game.encoding import ObsLayout, obs_layout
from . import core
from .core import next_seed

__all__ = [
    "RENDER_MODES",
    "ActionOutOfBoundsError",
    "CompiledEnv",
    "check_choice",
    "check_learner_seat",
    "check_render_mode",
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
    (:func:`uno_env.game.compiled.compile_game`) and names what the compiled calls take.
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
    reward_mode: str
    truncation_reward: str
    illegal_action: str
    illegal_reward: float
    _reward_code: int
    _illegal_code: int

    def _compile(self, rules: RuleSet | str | Path, num_players: int, overrides: dict[str, Any]) -> None:
        self.compiled = compile_game(rules, num_players, **overrides)
        self.rules = self.compiled.rules
        self.num_players = self.compiled.num_players
        self.deck = self.compiled.deck
        self._spec = self.compiled.spec
        self._staged = staged_argument(self._spec)  # None: the engine without the staged machinery
        self._deck_counts = self.compiled.deck_counts
        self._layout = obs_layout(self.deck)
        self._offsets = self._layout.offsets
        self._num_actions = self.compiled.num_actions

    def _set_payoffs(
        self, reward: str, truncation_reward: str, illegal_action: str, illegal_reward: float
    ) -> None:
        """Check and keep the reward scheme, the pay of a truncated game and what an illegal action does."""
        self.reward_mode = reward
        self.truncation_reward = truncation_reward
        self.illegal_action = illegal_action
        self._reward_code = check_choice("reward", reward, core.REWARDS) | check_choice(
            "truncation_reward", truncation_reward, core.TRUNCATION_REWARDS
        )
        self._illegal_code = check_choice("illegal_action", illegal_action, core.ILLEGAL_ACTIONS)
        self.illegal_reward = float(illegal_reward)


def check_render_mode(render_mode: str | None) -> None:
    """Raise ValueError unless ``render_mode`` is None or one of :data:`RENDER_MODES`."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {', '.join(RENDER_MODES)}, got {render_mode!r}")


def check_learner_seat(seat: int | None, num_players: int) -> None:
    """Raise ValueError unless ``seat`` is None (rotating) or a seat of the table."""
    if seat is not None and (isinstance(seat, bool) or not 0 <= seat < num_players):
        raise ValueError(f"seat must be None (rotating) or a seat 0..{num_players - 1}, got {seat!r}")
