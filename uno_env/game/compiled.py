"""The compiled game: a rule set made ready for the engine at one player count.

:func:`compile_game` is the one way in to the compiled engine. It resolves the rules
(a preset name, a TOML path or a :class:`~uno_env.engine.rules.RuleSet`, plus keyword overrides),
checks the player count, compiles the spec and the deck counts, and hands out state and mask
buffers of the engine's layout. :class:`~uno_env.game.facade.Game`, the batch simulator and every
environment build their games from it, so a new per-game fact is added here once.

Illegal actions are reported by :func:`illegal_action_error` everywhere (the facade, the
three environments): the action in notation, why, whose decision, the phase, the legal
actions and the position. Seeds are checked by :func:`uno_env.engine.rng.check_seed` and drawn by
:func:`uno_env.engine.rng.fresh_seed`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..engine import actions, cards
from ..engine import layout as L
from ..engine.rules import RuleSet, compile_spec, load_rules
from .position import PHASE_NAMES, format_position


class IllegalActionError(ValueError):
    """An action that is not legal in the current position (the game is unchanged)."""

    def __init__(self, message: str, action: Any, legal: list[int], position: str) -> None:
        super().__init__(message)
        self.action = action
        self.legal = legal
        self.position = position

    def __reduce__(self) -> tuple[Any, ...]:
        # the error crosses process boundaries whole (a worker's game, a tournament's batch)
        return (type(self), (str(self), self.action, self.legal, self.position))


@dataclass(frozen=True, eq=False)
class CompiledGame:
    """A rule set compiled for ``num_players``: the engine's inputs besides the state.

    ``spec`` is the read-only rule spec (:func:`uno_env.engine.rules.compile_spec`), ``deck_counts``
    the copies of each face dealt at this player count.
    """

    rules: RuleSet
    num_players: int
    spec: np.ndarray
    deck_counts: np.ndarray

    @property
    def deck(self) -> cards.DeckFamily:
        """The deck family: card notation and action table."""
        return self.rules.deck_family

    @property
    def num_actions(self) -> int:
        """Size of the action table."""
        return self.rules.num_actions

    def new_state(self, rows: int | None = None) -> np.ndarray:
        """A zeroed state buffer (``rows`` of them as a 2-D array)."""
        shape = L.STATE_SIZE if rows is None else (rows, L.STATE_SIZE)
        return np.zeros(shape, dtype=np.int64)

    def new_mask(self, rows: int | None = None) -> np.ndarray:
        """A zeroed legal-action mask over the largest action table (``rows`` of them)."""
        shape = L.MAX_ACTIONS if rows is None else (rows, L.MAX_ACTIONS)
        return np.zeros(shape, dtype=np.int8)

    def position(self, state: np.ndarray) -> str:
        """``state`` (a game of these rules) in position notation."""
        return format_position(state, self.spec, self.deck)

    def illegal_action(
        self, state: np.ndarray, legal: np.ndarray | Sequence[int], action: Any, **words: str
    ) -> IllegalActionError:
        """:func:`illegal_action_error` for ``state``, a game of these rules."""
        return illegal_action_error(self.deck, state, self.position(state), legal, action, **words)


def compile_game(rules: RuleSet | str | Path, num_players: int, **overrides: Any) -> CompiledGame:
    """The compiled game of ``rules`` (with keyword ``overrides``) at ``num_players``.

    Raises :class:`~uno_env.engine.rules.RuleError` for bad rules or a player count outside the
    variant's range.
    """
    resolved = load_rules(rules, **overrides)
    resolved.check_players(num_players)
    return CompiledGame(resolved, int(num_players), compile_spec(resolved), resolved.deck_counts(num_players))


def illegal_action_error(
    deck: cards.DeckFamily,
    state: np.ndarray,
    position: str,
    legal: np.ndarray | Sequence[int],
    action: Any,
    *,
    lead: str = "illegal action ",
    why: str = "",
    who: str = "",
) -> IllegalActionError:
    """The one error for an action refused in ``state`` (the facade's and every env's).

    The message reads ``{lead}{action} ({notation})[: why][ for who] in phase P; legal
    actions: id=notation, ...; position: ...``: ``lead`` says who chose it when that is not
    the player asked (``"game 3: batch policy f at seat 1 chose the illegal action "``),
    ``who`` whose decision it was (``"seat 2"``, ``"the learner at seat 0"``). ``legal`` is
    the int8 mask of the position (over the action table) or the list of legal ids.
    """
    num_actions = cards.NUM_FACES[deck] + L.NUM_NONFACE_ACTIONS
    if isinstance(legal, np.ndarray):
        ids = [int(a) for a in np.flatnonzero(legal[:num_actions])]
    else:
        ids = [int(a) for a in legal]
    names = ", ".join(f"{a}={actions.format_action(a, deck)}" for a in ids) or "none (game over)"
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        notation = actions.format_action(int(action), deck) if 0 <= action < num_actions else "out of range"
        what = f"{action} ({notation})"
    else:
        what = f"{action}"
    phase = PHASE_NAMES.get(int(state[L.S_PHASE]), "?")
    message = (
        f"{lead}{what}{': ' + why if why else ''}{' for ' + who if who else ''} in phase {phase}; "
        f"legal actions: {names}; position: {position}"
    )
    return IllegalActionError(message, action, ids, position)
