"""The flat action table of each deck family, with its text notation.

One ``Discrete`` action space per deck family; the engine, the envs and the agents use the
same ids. With ``F`` card faces (56 for ``uno``, 54 for ``french``):

=================  ==========================  ==============================================
ids                notation                    meaning
=================  ==========================  ==============================================
``0 .. F-1``       a card, ``R7``, ``WD4``     play (or, in a card-choosing phase, pick) it
``F .. F+3``       ``colour R`` / ``suit H``   name the colour/suit after a wild
``F+4 .. F+12``    ``target +1`` .. ``+9``     pick the seat k places clockwise from you
``F+13``           ``draw``                    draw a card instead of playing
``F+14``           ``pass``                    keep the card just drawn / stop
``F+15``           ``call``                    call "UNO" (Mau-Mau, Macao) before playing
``F+16``           ``challenge``               challenge the Wild Draw Four just played
``F+17``           ``accept``                  accept the pending penalty and draw it
=================  ==========================  ==============================================

Which ids are legal depends on the phase (see :class:`uno_env.game.facade.Phase`); the mask from
:meth:`uno_env.Game.legal_mask` says which. Target actions are relative so that a policy
sees the same meaning from every seat.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from . import cards
from . import layout as L
from .cards import DeckFamily


def num_actions(deck: DeckFamily) -> int:
    """Size of the action table of a deck family."""
    return cards.NUM_FACES[deck] + L.NUM_NONFACE_ACTIONS


class ActionKind(IntEnum):
    """What an action id does (the rows of the table above)."""

    CARD = 0  # play (or pick) a card face
    COLOUR = 1  # name a colour / suit
    TARGET = 2  # pick the seat k places clockwise
    DRAW = 3
    PASS = 4
    CALL = 5
    CHALLENGE = 6
    ACCEPT = 7


_FIXED_OFFSETS = {
    ActionKind.DRAW: L.A_DRAW_OFFSET,
    ActionKind.PASS: L.A_PASS_OFFSET,
    ActionKind.CALL: L.A_CALL_OFFSET,
    ActionKind.CHALLENGE: L.A_CHALLENGE_OFFSET,
    ActionKind.ACCEPT: L.A_ACCEPT_OFFSET,
}


def action_kind(action: int, deck: DeckFamily = "uno") -> tuple[ActionKind, int]:
    """``(kind, value)`` of an action id: the face of a card, the colour index, the seat
    offset ``k`` of a target (1..9), or 0 for the fixed actions."""
    nf = cards.NUM_FACES[deck]
    if not 0 <= action < num_actions(deck):
        raise ValueError(f"action {action} is outside the {deck} action table 0..{num_actions(deck) - 1}")
    if action < nf:
        return ActionKind.CARD, action
    if action < nf + L.NUM_COLOURS:
        return ActionKind.COLOUR, action - nf - L.A_CHOOSE_OFFSET
    if action < nf + L.A_TARGET_OFFSET + L.NUM_TARGETS:
        return ActionKind.TARGET, action - nf - L.A_TARGET_OFFSET + 1
    kind = next(k for k, offset in _FIXED_OFFSETS.items() if nf + offset == action)
    return kind, 0


def action_id(kind: ActionKind, deck: DeckFamily = "uno", value: int = 0) -> int:
    """The action id of ``kind`` (``value``: the face, colour index or target offset k)."""
    nf = cards.NUM_FACES[deck]
    if kind == ActionKind.CARD:
        return value
    if kind == ActionKind.COLOUR:
        return nf + L.A_CHOOSE_OFFSET + value
    if kind == ActionKind.TARGET:
        return nf + L.A_TARGET_OFFSET + value - 1
    return nf + _FIXED_OFFSETS[kind]


def _named(deck: DeckFamily) -> dict[int, str]:
    nf = cards.NUM_FACES[deck]
    return {
        nf + L.A_DRAW_OFFSET: "draw",
        nf + L.A_PASS_OFFSET: "pass",
        nf + L.A_CALL_OFFSET: "call",
        nf + L.A_CHALLENGE_OFFSET: "challenge",
        nf + L.A_ACCEPT_OFFSET: "accept",
    }


def format_action(action: int, deck: DeckFamily = "uno") -> str:
    """The notation of an action id (``R7``, ``colour G``, ``target +2``, ``draw``...)."""
    if deck not in cards.NUM_FACES:
        raise ValueError(f"unknown deck family {deck!r}; expected 'uno' or 'french'")
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"an action id is an integer, got {action!r}")
    nf = cards.NUM_FACES[deck]
    if not 0 <= action < num_actions(deck):
        raise ValueError(f"action {action} is outside the {deck} action table 0..{num_actions(deck) - 1}")
    if action < nf:
        return cards.format_face(action, deck)
    if action < nf + L.NUM_COLOURS:
        word = "colour" if deck == "uno" else "suit"
        return f"{word} {cards.format_colour(action - nf, deck)}"
    if action < nf + L.A_TARGET_OFFSET + L.NUM_TARGETS:
        return f"target +{action - nf - L.A_TARGET_OFFSET + 1}"
    return _named(deck)[action]


def parse_action(text: str, deck: DeckFamily = "uno") -> int:
    """The action id of a notation string; raise ValueError naming the allowed forms."""
    if not isinstance(text, str):
        raise TypeError(f"action notation is a string such as 'R7' or 'draw', got {text!r}")
    if deck not in cards.NUM_FACES:
        raise ValueError(f"unknown deck family {deck!r}; expected 'uno' or 'french'")
    token = text.strip()
    low = token.lower()
    nf = cards.NUM_FACES[deck]
    for action, name in _named(deck).items():
        if low == name:
            return action
    words = low.split()
    if len(words) == 2 and words[0] in ("colour", "color", "suit", "choose"):
        try:
            return nf + cards.parse_colour(words[1], deck)
        except cards.CardNotationError as exc:
            raise ValueError(f"{text!r} is not an action: {exc}") from None
    if len(words) == 2 and words[0] == "target":
        offset = words[1].lstrip("+")
        if offset.isdigit() and 1 <= int(offset) <= L.NUM_TARGETS:
            return nf + L.A_TARGET_OFFSET + int(offset) - 1
    try:
        return cards.parse_face(token, deck)
    except cards.CardNotationError:
        pass
    raise ValueError(
        f"{text!r} is not an action: write a card ({'R7, WD4' if deck == 'uno' else '7H, QS'}), "
        f"'{'colour R' if deck == 'uno' else 'suit H'}', 'target +1', 'draw', 'pass', 'call', "
        "'challenge' or 'accept'"
    )


def action_table(deck: DeckFamily = "uno") -> list[tuple[int, str]]:
    """Every (id, notation) pair of a deck family's action table."""
    return [(a, format_action(a, deck)) for a in range(num_actions(deck))]
