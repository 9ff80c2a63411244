"""Agents that break the agent contract, for the tests of what every tool says about them
(``tests/test_own_agents.py``, ``tests/test_web.py``)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np


class Illegal:
    """Answers an id outside the action table."""

    def act(self, observation: Any, action_mask: Any = None, view: Any = None) -> int:
        return 999


class Unmasked:
    """Answers an action id of the table that is not legal now."""

    def act(self, observation: Any, action_mask: Any = None, view: Any = None) -> int:
        return int(np.flatnonzero(np.asarray(action_mask) == 0)[0])


class Nothing:
    """Answers None."""

    def act(self, observation: Any, action_mask: Any = None, view: Any = None) -> None:
        return None


class Fraction:
    """Answers a legal id plus one half (``int()`` would have played the legal id)."""

    def act(self, observation: Any, action_mask: Any = None, view: Any = None) -> float:
        return float(np.flatnonzero(action_mask)[0]) + 0.5


class ObservationOnly:
    """An ``act`` that takes the observation alone (neither the mask nor the view)."""

    def act(self, observation: Any) -> int:
        return 0


class Raises:
    """Raises from its ``act``."""

    def act(self, observation: Any, action_mask: Any = None, view: Any = None) -> int:
        raise RuntimeError("agent exploded")


class NumpyFirst:
    """A well-behaved agent without a ``name``: the first legal id as a NumPy integer."""

    def act(self, observation: Any, action_mask: Any = None, view: Any = None) -> int:
        return np.flatnonzero(action_mask)[0]


def broken_factory(seed: int | None = None) -> NumpyFirst:
    """A factory that fails."""
    raise RuntimeError("factory boom")


class Exits:
    """Ends the program from its ``act`` (``sys.exit``), which is no ``Exception``."""

    def act(self, observation: Any, action_mask: Any = None, view: Any = None) -> int:
        sys.exit(3)


class ResetRaises:
    """Plays the first legal id; its ``reset`` raises."""

    def reset(self, seed: int) -> None:
        raise RuntimeError("reset exploded")

    def act(self, observation: Any, action_mask: Any = None, view: Any = None) -> int:
        return int(np.flatnonzero(action_mask)[0])


reset_raises = ResetRaises()
"""An agent object (not a class) whose ``reset`` raises: the tools reset it when they build it."""


def act_function(observation: Any, action_mask: Any = None, view: Any = None) -> int:
    """An act written as a plain function: a function is taken for a factory, not an agent."""
    return int(np.flatnonzero(action_mask)[0])
