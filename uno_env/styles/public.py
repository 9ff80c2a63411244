"""The typed accessors of a public view: what the player to move may know, named as ``Game`` names it.

:class:`PublicAccessors` is the part of :class:`uno_env.styles.view.PublicView` an agent reads:
its own hand, the top card and the colour in play, the phase and the typed decision
(:class:`uno_env.game.Decision`), the card just drawn (its own), every seat's hand size, the
pending penalty, UNO calls, scores, the legal actions, and the public history of the game's
decisions. Everything is read from the state buffer at the seat that decides; nothing hidden
is reachable through these accessors: the other hands, the draw pile's order and the engine's
bluff flag (U-WD4-2: unless it is the mover's own) are not, and in the history the card one
player gives another (H-TWO-1) is shown only to those two. An out-of-turn window (H-JUMP-1,
H-ZEROSEE-1) asks only the seats holding a card to lay, so another seat's letting the chance
go is left out of the history and of :attr:`~PublicAccessors.decisions` (it would say that
seat held such a card); the viewer's own answers and every card laid stay in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import actions, cards, engine
from ..engine import layout as L
from ..engine.cards import Card
from ..engine.phases import Decision, Phase, TargetReason

if TYPE_CHECKING:
    from ..engine.rules import RuleSet

DECKS: tuple[cards.DeckFamily, ...] = ("uno", "french")
"""Deck families by their spec code (``SP_DECK``, U-DECK-1)."""


def hand_seen(state: np.ndarray, viewer: int, seat: int) -> bool:
    """Whether ``viewer`` knows ``seat``'s hand as it is (a look, H-ZEROSEE-1, or a hand it
    passed on, H-SEVEN-1, H-ZERO-1); the engine bumps a hand's version at every change, and
    a look or a swap records version + 1."""
    return bool(state[L.SEEN + viewer * L.MAX_PLAYERS + seat] == state[L.HAND_VERSION + seat] + 1)


def unseen_by(entry: tuple[int, int, int], viewer: int, deck: cards.DeckFamily) -> bool:
    """Whether ``viewer`` may not know that the log ``entry`` happened at all: another seat's
    letting an out-of-turn window go (H-JUMP-1, H-ZEROSEE-1 ask only seats holding a card to lay,
    so the answer would say that seat held one)."""
    seat, action, phase = entry
    if phase not in (L.PH_JUMP_IN, L.PH_BLOCK) or seat == viewer:
        return False
    return actions.action_kind(int(action), deck)[0] == actions.ActionKind.PASS


HIDDEN = -1
"""An action of the public history whose content the viewer may not see (a card given)."""


class PublicAccessors:
    """Typed, public reading of a game at a decision (mixed into :class:`~uno_env.styles.view.PublicView`)."""

    state: np.ndarray
    spec: np.ndarray
    rules: RuleSet | None
    log: Sequence[tuple[int, int, int]] | None
    """The game's decisions as ``(seat, action, phase)`` (:attr:`uno_env.Game.log`), read up to
    :attr:`log_length`: :meth:`public_history` shows what the viewer may know of them."""
    log_length: int

    # ------------------------------------------------------------ the table
    @property
    def deck(self) -> cards.DeckFamily:
        """The deck family (``"uno"`` or ``"french"``)."""
        return DECKS[int(self.spec[L.SP_DECK])]

    @property
    def num_players(self) -> int:
        """Players at the table."""
        return int(self.state[L.S_NPLAYERS])

    @property
    def current_player(self) -> int:
        """The seat that decides now (the viewer; -1 once the game is over)."""
        return int(self.state[L.S_CURRENT])

    @property
    def phase(self) -> Phase:
        """The decision asked of the viewer."""
        return Phase(int(self.state[L.S_PHASE]))

    @property
    def direction(self) -> int:
        """+1 clockwise, -1 counter-clockwise (E-DIR-1)."""
        return int(self.state[L.S_DIRECTION])

    @property
    def active_colour(self) -> int:
        """Colour/suit index in play (-1 while a starting wild awaits its colour)."""
        return int(self.state[L.S_COLOUR])

    @property
    def top_card(self) -> Card:
        """Top card of the discard pile."""
        return Card(int(self.state[L.DISCARD_PILE + self.state[L.S_NDISCARD] - 1]), self.deck)

    def hand(self) -> list[Card]:
        """The viewer's own cards, in face order."""
        seat = self.current_player
        if seat < 0:
            return []
        start = L.HANDS + seat * L.MAX_FACES
        faces = int(self.spec[L.SP_NUM_FACES])
        return [Card(face, self.deck) for face in range(faces) for _ in range(int(self.state[start + face]))]

    def seen_hands(self) -> dict[int, list[Card]]:
        """The other hands the viewer knows and that have not changed since (H-ZEROSEE-1: a 0
        shows its player the other hands; H-SEVEN-1, H-ZERO-1: a player knows the hand it
        passed on), by seat, in face order."""
        viewer = self.current_player
        if viewer < 0:
            return {}
        faces = int(self.spec[L.SP_NUM_FACES])
        out: dict[int, list[Card]] = {}
        for seat in range(self.num_players):
            if seat != viewer and hand_seen(self.state, viewer, seat):
                start = L.HANDS + seat * L.MAX_FACES
                out[seat] = [
                    Card(f, self.deck) for f in range(faces) for _ in range(int(self.state[start + f]))
                ]
        return out

    def hand_sizes(self) -> list[int]:
        """Cards held per seat."""
        return [int(x) for x in self.state[L.HAND_SIZE : L.HAND_SIZE + self.num_players]]

    @property
    def draw_pile_size(self) -> int:
        """Cards left to draw."""
        return int(self.state[L.S_NDRAW])

    def discard_pile(self) -> list[Card]:
        """The discard pile from bottom to top (every card on it was laid face up)."""
        n = int(self.state[L.S_NDISCARD])
        return [Card(int(f), self.deck) for f in self.state[L.DISCARD_PILE : L.DISCARD_PILE + n]]

    @property
    def pending_penalty(self) -> int:
        """Cards the viewer must draw if they accept (a draw card or a stack awaiting)."""
        return int(self.state[L.S_PENDING])

    def called(self) -> list[bool]:
        """Per seat: whether their UNO call stands (called, one card left)."""
        return [bool(x) for x in self.state[L.CALLED : L.CALLED + self.num_players]]

    def scores(self) -> list[int]:
        """Match points per seat."""
        return [int(x) for x in self.state[L.SCORE : L.SCORE + self.num_players]]

    @property
    def decisions(self) -> int:
        """Decisions applied so far that the viewer may count: without the other seats'
        let-go answers to out-of-turn windows (H-JUMP-1, H-ZEROSEE-1) when the view has the
        game's log (see the module docstring); the engine's count otherwise."""
        return int(self.state[L.S_DECISIONS]) - self._unseen_passes()

    def _unseen_passes(self) -> int:
        """The log's let-go answers of other seats to out-of-turn windows."""
        if self.log is None:
            return 0
        viewer = self.current_player
        return sum(1 for entry in self.log[: self.log_length] if self._unseen(entry, viewer))

    def _unseen(self, entry: tuple[int, int, int], viewer: int) -> bool:
        """Whether the viewer may not know of this log entry (another seat's let-go answer)."""
        return unseen_by(entry, viewer, self.deck)

    @property
    def turns(self) -> int:
        """Turns begun so far."""
        return int(self.state[L.S_TURNS])

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return bool(self.state[L.S_STATUS] != L.ST_RUNNING)

    # ------------------------------------------------------------ the decision
    def legal_mask(self) -> np.ndarray:
        """int8 mask of the viewer's legal actions over the deck family's action table."""
        mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
        if not self.is_over():
            scratch = self.state.copy()
            engine.fill_mask(scratch, self.spec, mask, engine.staged_argument(self.spec))
        return mask[: int(self.spec[L.SP_NUM_ACTIONS])].copy()

    def legal_actions(self) -> list[int]:
        """The viewer's legal action ids, ascending."""
        return [int(a) for a in np.flatnonzero(self.legal_mask())]

    def decision(self) -> Decision:
        """The decision asked now, typed, as :meth:`uno_env.Game.decision` gives it."""
        state, phase = self.state, self.phase
        drawn = int(state[L.S_DRAWN])
        call = actions.action_id(actions.ActionKind.CALL, self.deck)
        return Decision(
            phase=phase,
            seat=self.current_player,
            pending_cards=int(state[L.S_PENDING]),
            pending_turns=int(state[L.S_PENDING_SKIP]),
            pending_from=int(state[L.S_PENDING_FROM]),
            drawn=Card(drawn, self.deck) if phase == Phase.PLAY_DRAWN and drawn >= 0 else None,
            target_reason=TargetReason(int(state[L.S_TARGET_REASON]))
            if phase == Phase.CHOOSE_TARGET
            else None,
            give_to=int(state[L.S_TARGET]) if phase == Phase.GIVE else None,
            give_left=int(state[L.S_GIVE_LEFT]) if phase == Phase.GIVE else 0,
            can_call=bool(self.legal_mask()[call]),
        )

    @property
    def drawn_card(self) -> Card | None:
        """The card the viewer just drew and may play (:attr:`Phase.PLAY_DRAWN`), else None."""
        return self.decision().drawn

    def describe_action(self, action: int) -> str:
        """Notation of an action id (``R7``, ``colour G``, ``draw``...)."""
        return actions.format_action(int(action), self.deck)

    def parse_action(self, text: str) -> int:
        """Action id of a notation string."""
        return actions.parse_action(text, self.deck)

    # ------------------------------------------------------------ the public history
    def public_history(self) -> list[tuple[int, int]]:
        """Every decision so far as ``(seat, action)``, as the viewer may know it: the card
        one player gives another (H-TWO-1, the give phase) is :data:`HIDDEN` unless the viewer
        gave it or got it; another seat's letting an out-of-turn chance go (H-JUMP-1,
        H-ZEROSEE-1) is left out (the window asked only seats holding a card to lay).

        Empty when the view was built without a log (an environment's buffers alone).
        """
        viewer = self.current_player
        out: list[tuple[int, int]] = []
        receiver = -1
        entries = self.log[: self.log_length] if self.log is not None else ()
        for seat, action, phase in entries:
            if self._unseen((seat, action, phase), viewer):
                continue  # another seat's let-go answer to an out-of-turn window
            if phase == Phase.CHOOSE_TARGET:
                # a target is picked k seats clockwise (the action table's TARGET rows)
                receiver = (seat + actions.action_kind(int(action), self.deck)[1]) % self.num_players
            if phase == Phase.GIVE and viewer != seat and viewer != receiver:
                out.append((int(seat), HIDDEN))
            else:
                out.append((int(seat), int(action)))
        return out

    def describe(self) -> dict[str, Any]:
        """The accessors' values in one dict (for printing)."""
        return {
            "seat": self.current_player,
            "phase": self.phase.name,
            "hand": [str(c) for c in self.hand()],
            "top_card": str(self.top_card),
            "colour": self.active_colour,
            "hand_sizes": self.hand_sizes(),
        }
