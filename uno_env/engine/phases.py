"""The decision phases: one table that every reader of a phase takes it from.

A game always asks one decision of one player: the *phase* (``state[S_PHASE]``) says which.
:class:`Phase` names the phases and gives their codes; :data:`PHASES` holds, per phase, what
the rest of the package needs to know about it: its word in the position notation, the task
in a few words (table headers, the docs), the rule IDs that ask it, the rule fields without
which it never comes up, the Decision fields that describe it, how a front end words a card
laid or a ``pass`` in it, and the compiled functions that list its legal actions and apply
them. The engine's ``layout.PH_*`` constants, :class:`uno_env.Phase`, the position notation
(:mod:`uno_env.game.position`), the renderer and the terminal table (``training/play.py``)
read them here; ``tests/test_phases.py`` checks that the table covers every phase and that
its functions exist in the compiled engine.

Nothing here implements a rule; the rule IDs are those of the ``rules`` column.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .cards import Card


class Phase(IntEnum):
    """The decision the player to move is asked for (the code is ``state[S_PHASE]``)."""

    PLAY = 0  # play a card, draw, or call first
    CHOOSE_COLOUR = 1  # name the colour/suit after a wild
    PLAY_DRAWN = 2  # play the card just drawn (or any, MM-DRAW-1), or keep it
    CHALLENGE = 3  # challenge the Wild Draw Four, accept it, or answer it
    OVER = 4  # the game has ended
    ANSWER = 5  # answer a pending penalty (stack, reflect) or accept it
    CONTINUE = 6  # lay another card of the same play, or stop
    CHOOSE_TARGET = 7  # pick a seat to swap with or give cards to
    GIVE = 8  # pick a card to give
    JUMP_IN = 9  # out of turn: play the identical card, or pass
    BLOCK = 10  # out of turn: block the look at the hands with a 0, or pass


@dataclass(frozen=True)
class PhaseInfo:
    """Everything the package knows about one phase besides its compiled rules."""

    phase: Phase
    notation: str
    """Its word in the position notation (``phase=play``)."""
    task: str
    """What the player to move is asked, in a few words (``{colour}``: colour or suit)."""
    rules: tuple[str, ...]
    """The rule IDs that ask this decision."""
    needs: tuple[str, ...] = ()
    """Rule fields one of which must be on for the phase to come up (empty: always possible)."""
    needs_text: str = ""
    """Those fields in words, for an error about a position that asks this phase anyway."""
    decision: tuple[str, ...] = ()
    """The :class:`~uno_env.game.facade.Decision` fields that describe this decision, besides
    ``phase``, ``seat`` and ``can_call``."""
    midplay: bool = False
    """Asked in the middle of a play (its player keeps the turn afterwards, or another player
    answers out of turn); the position notation records the play under way."""
    out_of_turn: bool = False
    """Asked of players other than the one whose turn it is (a window after a play)."""
    card_verb: str = "play"
    """What laying a card means here, for a menu (``give``, ``jump in``)."""
    card_narration: str = "plays"
    """The same for a line that tells what another player did."""
    pass_word: str = ""
    """What ``pass`` means here when it is not plain passing (``keep``, ``stop``)."""
    pass_narration: str = "passes"
    """What ``pass`` means in a line that tells what another player did."""
    mask: str = "fill_mask"
    """The compiled function of :mod:`uno_env.engine.engine` that writes its legal actions."""
    apply: str = "apply_action"
    """The compiled function of :mod:`uno_env.engine.engine` that applies its actions."""


class TargetReason(IntEnum):
    """Why a seat is picked in :attr:`Phase.CHOOSE_TARGET`."""

    SWAP = 0  # swap hands with it (H-SEVEN-1, H-ZERO-1)
    GIVE = 1  # give it cards (H-TWO-1)
    CUBE = 2  # the Uno cube's action hits it (H-CUBE-1)


@dataclass(frozen=True)
class Decision:
    """The decision the game is asking for, in typed form (:meth:`uno_env.Game.decision`).

    Everything a front end, a renderer or an agent needs to phrase the question without
    reading state slots: ``phase`` and ``seat`` (who decides; -1 once over), the pending
    penalty (``pending_cards`` to draw and ``pending_turns`` to sit out, sent by
    ``pending_from``; -1 when nothing is pending), the card just drawn (``drawn`` in
    :attr:`Phase.PLAY_DRAWN`), why a target is picked (``target_reason`` in
    :attr:`Phase.CHOOSE_TARGET`), and the seat receiving cards and how many are still to
    give (``give_to``, ``give_left`` in :attr:`Phase.GIVE`).
    """

    phase: Phase
    seat: int
    pending_cards: int
    pending_turns: int
    pending_from: int
    drawn: Card | None
    target_reason: TargetReason | None
    give_to: int | None
    give_left: int
    can_call: bool
    """Whether calling (UNO, Mau-Mau) is among the legal actions now."""

    @property
    def penalty_pending(self) -> bool:
        """Whether a draw or sit-out penalty waits on :attr:`seat`."""
        return self.pending_cards > 0 or self.pending_turns > 0


_TABLE = (
    PhaseInfo(Phase.PLAY, "play", "play or draw", ("U-MATCH-1", "U-DRAW-1", "U-DRAW-3", "U-UNO-1")),
    PhaseInfo(Phase.CHOOSE_COLOUR, "colour", "name the {colour}", ("U-WILD-1",), midplay=True),
    PhaseInfo(
        Phase.PLAY_DRAWN,
        "drawn",
        "play or keep the drawn card",
        ("U-DRAW-1", "U-DRAW-2", "MM-DRAW-1"),
        decision=("drawn",),
        pass_word="keep",
        pass_narration="keeps the drawn card",
    ),
    PhaseInfo(
        Phase.CHALLENGE,
        "challenge",
        "challenge or accept the Wild Draw Four",
        ("U-WD4-2",),
        decision=("pending_cards", "pending_turns", "pending_from"),
    ),
    PhaseInfo(Phase.OVER, "over", "nothing: the game is over", ("U-END-1", "E-END-1")),
    PhaseInfo(
        Phase.ANSWER,
        "answer",
        "answer or accept the penalty",
        ("H-STACK-1", "H-REFLECT-1", "MM-SEVEN-1", "MD-SEVEN-1", "MC-DRAW-1", "MC-FOUR-1"),
        decision=("pending_cards", "pending_turns", "pending_from"),
    ),
    PhaseInfo(
        Phase.CONTINUE,
        "continue",
        "lay another card or stop",
        ("H-MULTI-1", "H-MULTI-2", "H-SEQ-1", "MC-TURN-1"),
        needs=("multi_play", "runs"),
        needs_text="multi_play or runs (H-MULTI-1/2, H-SEQ-1, MC-TURN-1)",
        midplay=True,
        pass_word="stop",
        pass_narration="stops",
    ),
    PhaseInfo(
        Phase.CHOOSE_TARGET,
        "target",
        "pick a seat",
        ("H-SEVEN-1", "H-ZERO-1", "H-TWO-1", "H-CUBE-1"),
        needs=("seven_swap", "zero_rule", "two_gives", "cube"),
        needs_text="seven_swap, zero_rule, two_gives or cube",
        decision=("target_reason",),
        midplay=True,
    ),
    PhaseInfo(
        Phase.GIVE,
        "give",
        "give a card",
        ("H-TWO-1",),
        needs=("two_gives",),
        needs_text="two_gives (H-TWO-1)",
        decision=("give_to", "give_left"),
        midplay=True,
        card_verb="give",
        card_narration="gives",
    ),
    PhaseInfo(
        Phase.JUMP_IN,
        "jump",
        "jump in or pass",
        ("H-JUMP-1",),
        needs=("jump_in",),
        needs_text="jump_in (H-JUMP-1)",
        midplay=True,
        out_of_turn=True,
        card_verb="jump in",
        card_narration="jumps in with",
    ),
    PhaseInfo(
        Phase.BLOCK,
        "block",
        "block with a 0 or pass",
        ("H-ZEROSEE-1",),
        needs=("zero_reveals",),
        needs_text="zero_reveals (H-ZEROSEE-1)",
        midplay=True,
        out_of_turn=True,
        card_verb="block with",
        card_narration="blocks with",
    ),
)
PHASES: dict[Phase, PhaseInfo] = {info.phase: info for info in _TABLE}
"""Every phase's entry, in code order."""
NOTATION: dict[int, str] = {int(info.phase): info.notation for info in _TABLE}
"""Phase code -> its word in the position notation."""
