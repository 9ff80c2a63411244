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

The history and that count are read through a :class:`HistoryDigest` the log's owner keeps
with the log (:meth:`uno_env.styles.view.PublicView.of` for a game, each environment for its
own): a view is built afresh at every decision, and the digest lets each read cost only the
log entries added since the same viewer last read that log, not the whole game again.
"""

from __future__ import annotations

import threading
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
    passed on, H-SEVEN-1, H-ZERO-1); the engine bumps a hand's version at every change the
    others do not all see (a card drawn, a card given, H-TWO-1, a swap), not at a card laid,
    and a look or a swap records version + 1."""
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


class _ViewerDigest:
    """One viewer's part of a :class:`HistoryDigest`: its public history of the entries read."""

    __slots__ = ("history", "kept", "last", "read", "receiver")

    def __init__(self) -> None:
        self.read = 0
        """Log entries read so far."""
        self.last: object = None
        """The last entry read (the object itself): another one there means the log changed."""
        self.receiver = -1
        """The seat the last target choice read picks (who a card given goes to, H-TWO-1)."""
        self.history: list[tuple[int, int]] = []
        """The viewer's public history of the entries read."""
        self.kept = [0]
        """``kept[i]``: how many of the first ``i`` entries the history shows (the others are
        other seats' let-go answers to out-of-turn windows)."""


class HistoryDigest:
    """What each viewer may know of one game's log of ``(seat, action, phase)``, read once.

    A view is built afresh at every decision; the log's owner (:meth:`PublicView.of
    <uno_env.styles.view.PublicView.of>` for a :class:`~uno_env.Game`, each environment for
    its own log) keeps one digest with the log and hands it to every view it builds, so
    :meth:`PublicAccessors.public_history` and :attr:`PublicAccessors.decisions` read only the
    entries added since the same viewer last read: a game of ``n`` decisions costs ``O(n)`` per
    viewer, not ``O(n)`` per read.

    A digest is bound to one log object (:meth:`reads`): a view uses it only when the view's
    log is that very object (a new game, a reset, a clone, ``from_position`` or a log replaced
    brings a log, and so a digest, of its own). A viewer's part starts again from the first
    entry when the log no longer holds what it read: shorter than that, or another entry where
    its last read one was. The view an agent is handed carries :meth:`for_seat`'s digest, which
    answers for the player to move alone (another seat's part would show the cards given to it).
    """

    __slots__ = ("_lock", "_log", "_seat", "_viewers")

    def __init__(self, log: Sequence[tuple[int, int, int]]) -> None:
        self._log = log
        self._seat: int | None = None  # the one viewer it answers for (None: every viewer)
        self._viewers: dict[tuple[int, cards.DeckFamily, int], _ViewerDigest] = {}
        self._lock = threading.Lock()  # two threads reading one game's views add each entry once

    @classmethod
    def of(cls, log: Sequence[tuple[int, int, int]], digest: HistoryDigest | None) -> HistoryDigest:
        """``digest`` when it reads ``log`` (the same object), else a new digest of ``log``:
        what an owner calls each time it builds a view, with the digest it kept."""
        return digest if digest is not None and digest.reads(log) else cls(log)

    def reads(self, log: object) -> bool:
        """Whether this digest reads ``log`` (that very object)."""
        return self._log is log

    def for_seat(self, seat: int) -> HistoryDigest:
        """This digest answering for ``seat`` alone (what it reads is shared with this one)."""
        out = HistoryDigest.__new__(HistoryDigest)
        out._log, out._seat, out._viewers, out._lock = self._log, seat, self._viewers, self._lock
        return out

    def read(self, viewer: int, length: int, deck: cards.DeckFamily, players: int) -> _ViewerDigest | None:
        """``viewer``'s part, having read the log's first ``length`` entries at least (at most
        ``len(log)``) in a game of ``deck`` at ``players`` seats; the entries it had read stay
        read. Its :attr:`~_ViewerDigest.kept` answers any length up to that. None when this
        digest answers for another seat alone (:meth:`for_seat`)."""
        if self._seat is not None and viewer != self._seat:
            return None
        log = self._log
        key = (viewer, deck, players)
        with self._lock:
            part = self._viewers.get(key)
            if part is None or part.read > len(log) or (part.read and log[part.read - 1] is not part.last):
                part = self._viewers[key] = _ViewerDigest()  # new, or the log changed under it
            if length > part.read:
                _read_entries(part, log[part.read : length], viewer, deck, players)
            return part

    def __reduce__(self) -> tuple[Any, ...]:
        # a copy (copy, deepcopy, pickle) reads its log afresh, for the same seats: the lock
        # cannot be copied
        return _digest_copy, (self._log, self._seat)


def _digest_copy(log: Sequence[tuple[int, int, int]], seat: int | None) -> HistoryDigest:
    """A new digest of ``log`` answering for ``seat`` alone (None: every viewer)."""
    digest = HistoryDigest(log)
    return digest if seat is None else digest.for_seat(seat)


def _read_entries(
    part: _ViewerDigest,
    entries: Sequence[tuple[int, int, int]],
    viewer: int,
    deck: cards.DeckFamily,
    players: int,
) -> None:
    """Add the log ``entries`` that follow what ``part`` has read to ``viewer``'s history: the
    card one player gives another (H-TWO-1) :data:`HIDDEN` unless the viewer gave or got it,
    another seat's let-go answer to an out-of-turn window left out (:func:`unseen_by`). An
    entry that cannot be read (not a ``(seat, action, phase)``) raises with the entries before
    it read and itself not."""
    history, kept = part.history, part.kept
    for entry in entries:
        seat, action, phase = entry
        receiver, shown = part.receiver, None
        if not unseen_by(entry, viewer, deck):
            if phase == Phase.CHOOSE_TARGET:
                # a target is picked k seats clockwise (the action table's TARGET rows)
                receiver = (seat + actions.action_kind(int(action), deck)[1]) % players
            hidden = phase == Phase.GIVE and viewer != seat and viewer != receiver
            shown = (int(seat), HIDDEN if hidden else int(action))
        if shown is not None:
            history.append(shown)
        kept.append(len(history))
        part.read += 1
        part.last = entry
        part.receiver = receiver


class PublicAccessors:
    """Typed, public reading of a game at a decision (mixed into :class:`~uno_env.styles.view.PublicView`)."""

    state: np.ndarray
    spec: np.ndarray
    rules: RuleSet | None
    log: Sequence[tuple[int, int, int]] | None
    """The game's decisions as ``(seat, action, phase)`` (:attr:`uno_env.Game.log`), read up to
    :attr:`log_length`: :meth:`public_history` shows what the viewer may know of them."""
    log_length: int
    history_digest: HistoryDigest | None
    """What each viewer may know of :attr:`log`, kept by the log's owner from view to view
    (:class:`HistoryDigest`); None: :meth:`public_history` walks the whole log at each call."""

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
        """The other hands the viewer knows as they are now, no card gained unseen since (H-ZEROSEE-1: a 0
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
        game's log (see the module docstring); without a log, without any let-go answer (the
        engine's count of them, ``S_LETGO``, cannot tell the viewer's own from the others', and
        the observation leaves them all out too). With the log's :attr:`history_digest` this
        reads only the entries added since the viewer last read."""
        digested = self._digested()
        if digested is None:
            return int(self.state[L.S_DECISIONS]) - int(self.state[L.S_LETGO])
        part, length = digested
        return int(self.state[L.S_DECISIONS]) - (length - part.kept[length])

    def _digest_source(self) -> Sequence[tuple[int, int, int]] | None:
        """The log object whose digest answers for this view's :attr:`log` (the log itself;
        :class:`~uno_env.styles.view.PublicView` also names the log its public copy wraps)."""
        return self.log

    def _digested(self) -> tuple[_ViewerDigest, int] | None:
        """The viewer's part of a digest of :attr:`log`, having read the entries the view reads,
        and how many those are; None without a log. The part is :attr:`history_digest`'s when it
        reads this view's own log, else a new digest's that nobody keeps (the whole log read)."""
        log = self.log
        if log is None:
            return None
        length = len(range(len(log))[: self.log_length])  # the entries log[:log_length] holds
        part = None
        digest = getattr(self, "history_digest", None)
        source = self._digest_source()
        if digest is not None and source is not None and digest.reads(source) and length <= len(source):
            part = digest.read(self.current_player, length, self.deck, self.num_players)
        if part is None:  # no digest of this log (or one answering for another seat): read it all
            part = HistoryDigest(log).read(self.current_player, length, self.deck, self.num_players)
        assert part is not None  # a digest of its own answers for every viewer
        return part, length

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

        Empty when the view was built without a log (an environment's buffers alone). A new
        list at each call; with the log's :attr:`history_digest` (every view the package builds
        has one) a call reads only the log entries added since the same viewer's last call,
        without it the whole log.
        """
        digested = self._digested()
        if digested is None:
            return []
        part, length = digested
        return part.history[: part.kept[length]]

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
