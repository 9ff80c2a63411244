"""Argument checks and errors shared by the three environments (no PettingZoo or Gymnasium here)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..rng import check_seed

__all__ = ["RENDER_MODES", "ActionOutOfBoundsError", "check_choice", "check_seed", "coerce_action"]

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
