"""What an agent may see: :class:`PublicView`, a game at a decision with the hidden parts wiped.

Python agents decide from a :class:`PublicView` (an environment builds it from its own
buffers, :meth:`PublicView.of` from a :class:`~uno_env.Game`); a compiled style run through
:meth:`PublicView.style_action` sees only :meth:`PublicView.redacted`, and draws from the
agent's own generator (:func:`agent_generator`), never from the game's. The view an agent is
handed (by the envs' ``public_view()`` and observations, tournaments, evaluation,
``agents.play``) is :meth:`PublicView.public`: its fields hold nothing the player to move may
not know, so reading ``view.state`` or ``view.log`` directly cannot reveal a hidden card either.
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, overload

import numpy as np

from ..engine import actions, cards
from ..engine import layout as L
from ..engine.phases import Phase
from ..engine.rng import seed_rng
from .dispatch import choose_action
from .facts import own_bluff_known
from .public import DECKS, HIDDEN, HistoryDigest, PublicAccessors, hand_seen, unseen_by
from .search import search_decision

if TYPE_CHECKING:
    from ..engine.rules import RuleSet
    from ..game.facade import Game


class VisibleLog(Sequence[tuple[int, int, int]]):
    """A game's log of ``(seat, action, phase)`` as one seat may read it: the card one player
    gives another (H-TWO-1, the give phase) is :data:`~uno_env.styles.public.HIDDEN` unless the
    viewer gave or got it. Read lazily from the log it wraps (no copy per decision)."""

    __slots__ = ("_deck", "_entries", "_length", "_players", "_viewer")

    def __init__(
        self,
        entries: Sequence[tuple[int, int, int]],
        length: int,
        viewer: int,
        deck: cards.DeckFamily,
        players: int,
    ) -> None:
        self._entries = entries
        self._length = length
        self._viewer = viewer
        self._deck = deck
        self._players = players

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> tuple[int, int, int]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[int, int, int]]: ...

    def __getitem__(self, index: int | slice) -> tuple[int, int, int] | list[tuple[int, int, int]]:
        if isinstance(index, slice):
            return [self._entry(i) for i in range(*index.indices(self._length))]
        i = operator.index(index)
        if i < 0:
            i += self._length
        if not 0 <= i < self._length:
            raise IndexError(f"log index {index} out of range for {self._length} entries")
        return self._entry(i)

    def _entry(self, i: int) -> tuple[int, int, int]:
        seat, action, phase = (int(x) for x in self._entries[i])
        if phase == Phase.GIVE and self._viewer not in (seat, self._receiver(i)):
            return seat, HIDDEN, phase
        return seat, action, phase

    def _receiver(self, i: int) -> int:
        """The seat the give at entry ``i`` goes to: picked by the last target choice before it
        (the action table's TARGET rows count seats clockwise)."""
        for j in range(i - 1, -1, -1):
            seat, action, phase = (int(x) for x in self._entries[j])
            if phase == Phase.CHOOSE_TARGET:
                offset = actions.action_kind(action, self._deck)[1]
                return (seat + offset) % self._players
        return -1

    def source(self, viewer: int) -> Sequence[tuple[int, int, int]] | None:
        """The log this wraps when it is read for ``viewer`` (what it shows them of each entry is
        what their public history shows), else None."""
        return self._entries if viewer == self._viewer else None

    def __repr__(self) -> str:
        return f"VisibleLog({self._length} entries, seat {self._viewer})"


_GAME_DIGESTS: weakref.WeakKeyDictionary[Game, HistoryDigest] = weakref.WeakKeyDictionary()
"""The digest of each game's log that :meth:`PublicView.of` hands its views (gone with the game)."""


def visible_last_actions(
    entries: Sequence[tuple[int, int, int]], viewer: int, deck: cards.DeckFamily, players: int
) -> list[int | None]:
    """Each seat's last decision in the log ``entries`` as ``viewer`` may know it (None: none
    yet): a card given between two other seats (H-TWO-1) is :data:`HIDDEN`, and the other
    seats' let-go answers to out-of-turn windows are left out (:func:`unseen_by`).

    Read from the newest entry back, stopping once every seat has its decision: a picture drawn
    at every step (``render_mode="human"``) would otherwise read the whole game each time."""
    visible = VisibleLog(entries, len(entries), viewer, deck, players)
    last: list[int | None] = [None] * players
    missing = players
    for i in range(len(entries) - 1, -1, -1):
        entry = visible[i]
        if last[entry[0]] is None and not unseen_by(entry, viewer, deck):
            last[entry[0]] = entry[1]
            missing -= 1
            if missing == 0:
                break
    return last


def last_visible_decision(
    entries: Sequence[tuple[int, int, int]], length: int, viewer: int, deck: cards.DeckFamily, players: int
) -> tuple[int, int]:
    """The last of the first ``length`` decisions of the log ``entries`` that ``viewer`` may know
    of, as ``(seat, action)`` (the action :data:`HIDDEN` for a card given between two other seats,
    H-TWO-1; other seats' let-go answers to out-of-turn windows skipped); ``(-1, -1)`` for none."""
    visible = VisibleLog(entries, length, viewer, deck, players)
    for i in range(length - 1, -1, -1):
        entry = visible[i]
        if not unseen_by(entry, viewer, deck):
            return entry[0], entry[1]
    return -1, -1


@dataclass(frozen=True)
class PublicView(PublicAccessors):
    """A game at a decision as an agent may see it: the state buffer and the rules.

    The typed accessors (:class:`uno_env.styles.public.PublicAccessors`: ``hand()``,
    ``top_card``, ``active_colour``, ``phase``, ``decision()``, ``drawn_card``,
    ``hand_sizes()``, ``pending_penalty``, ``scores()``, ``legal_actions()``,
    ``public_history()``...) read only what the player to move may know, named as
    :class:`~uno_env.game.facade.Game` names it.

    ``state`` is a state buffer and ``spec`` its compiled rule set; nothing here writes to
    them. Built with :meth:`of` from a :class:`~uno_env.game.facade.Game` (or from an
    environment's buffers, ``PublicView(state, spec)``) the view is *complete*: ``state`` is the
    game's whole buffer. :meth:`public` is the view agents are handed: ``state`` is
    :meth:`redacted` (the other players' hands, the draw pile's order, the chance generator and
    the engine's bluff flag, unless it is the mover's own, :func:`own_bluff_known`, are wiped)
    and ``log`` a :class:`VisibleLog`, so an agent cannot use hidden information even by
    mistake. Only a style that cheats by design (the oracle) is handed the complete view.
    """

    state: np.ndarray
    spec: np.ndarray
    rules: RuleSet | None = None
    """The rule set, when the caller has it (the game's; the text and JSON views print it)."""
    log: Sequence[tuple[int, int, int]] | None = field(default=None, repr=False, compare=False)
    log_length: int = 0
    complete: bool = True
    """Whether ``state`` is the game's whole buffer (False: :meth:`public`'s redacted copy)."""
    history_digest: HistoryDigest | None = field(default=None, repr=False, compare=False)
    """What each viewer may know of ``log``, kept by the log's owner from view to view
    (:class:`~uno_env.styles.public.HistoryDigest`: :meth:`of` and the environments pass it),
    so ``public_history()`` and ``decisions`` read only the entries added since the viewer's
    last read; None: they walk the whole log."""

    @classmethod
    def of(cls, game: Game) -> PublicView:
        """The view of ``game`` (a :class:`~uno_env.game.facade.Game`) at its current decision,
        with the digest of the game's log kept for the game's views (:attr:`history_digest`)."""
        log = game.log
        digest = _GAME_DIGESTS.get(game)
        if digest is None or not digest.reads(log):  # a new game, or its log replaced
            digest = _GAME_DIGESTS[game] = HistoryDigest(log)
        return cls(game.state, game.compiled.spec, game.rules, log, len(log), history_digest=digest)

    @property
    def seat(self) -> int:
        """The seat that decides now (-1 once the game is over)."""
        return int(self.state[L.S_CURRENT])

    @property
    def num_actions(self) -> int:
        """Size of the action table of the rule set's deck family."""
        return int(self.spec[L.SP_NUM_ACTIONS])

    def public(self) -> PublicView:
        """This view as an agent that may not cheat is handed it: ``state`` :meth:`redacted`,
        ``log`` a :class:`VisibleLog` of the player to move, ``history_digest`` answering for
        that player alone. The accessors answer exactly as on the complete view (they read only
        what the mover may know). Public already: itself."""
        if not self.complete:
            return self
        log, digest = self.log, self.history_digest
        if log is not None:
            deck = DECKS[int(self.spec[L.SP_DECK])]
            log = VisibleLog(log, self.log_length, self.current_player, deck, self.num_players)
        if digest is not None:  # the other seats' parts would show the cards given to them
            digest = digest.for_seat(self.current_player)
        return replace(self, state=self.redacted(), log=log, complete=False, history_digest=digest)

    def _digest_source(self) -> Sequence[tuple[int, int, int]] | None:
        """The log :attr:`history_digest` must read to answer for ``log``: the log itself, or the
        one a :class:`VisibleLog` of the player to move wraps (it shows that player what their
        public history shows)."""
        log = self.log
        if isinstance(log, VisibleLog):
            return log.source(self.current_player)
        return log

    def forgetting_looks(self, kept: Collection[int]) -> PublicView:
        """This view with the looks of the player to move at other hands (H-ZEROSEE-1) forgotten,
        but at the seats in ``kept``: the web table pictures a game past an out-of-turn window,
        and a look that window could still block has not happened yet. ``state`` is a copy."""
        seat = self.current_player
        if seat < 0:
            return self
        state = self.state.copy()
        for other in range(self.num_players):
            if other != seat and other not in kept:
                state[L.SEEN + seat * L.MAX_PLAYERS + other] = 0
        return replace(self, state=state)

    def redacted(self) -> np.ndarray:
        """A copy of the state holding only what the player to move may know: its own hand and
        the hands it has looked at and still knows (H-ZEROSEE-1), no other hand, no
        draw-pile order, no chance generator, no bluff flag but its own, no count of the top
        card's copies another seat's penalty drew (H-JUMP-1), and as the last decision the last
        one it may know of (:func:`last_visible_decision`)."""
        out = self.state.copy()
        seat = int(out[L.S_CURRENT])
        for other in range(L.MAX_PLAYERS):
            # a hand the mover has looked at (H-ZEROSEE-1) is known to it: kept, as the search
            # and the observation read it
            if other != seat and not (seat >= 0 and hand_seen(out, seat, other)):
                out[L.HANDS + other * L.MAX_FACES : L.HANDS + (other + 1) * L.MAX_FACES] = 0
                out[L.HELD + other] = 0
        out[L.DRAW_PILE : L.DRAW_PILE + L.MAX_CARDS] = 0
        out[L.RNG : L.RNG + L.RNG_WORDS] = 0
        if not own_bluff_known(out):
            out[L.S_BLUFF] = 0
        if out[L.S_JUMP_BLOCK_SEAT] != seat:
            # H-JUMP-1: how many copies of the top card another seat's penalty drew is as hidden
            # as its cards (only that seat's own jump-in depends on it)
            out[L.S_JUMP_BLOCK_COUNT] = 0
        if self.log is not None and self.log_length > 0:
            # the last decision as the mover may know it: not a card given between two other
            # seats (H-TWO-1), nor another seat's let-go answer to a window (H-JUMP-1)
            deck = DECKS[int(self.spec[L.SP_DECK])]
            last = self.log[self.log_length - 1]
            if seat >= 0 and last[0] != seat:
                actor, action = last_visible_decision(self.log, self.log_length, seat, deck, self.num_players)
                out[L.S_LAST_ACTOR] = actor
                out[L.S_LAST_ACTION] = action
        return out

    def style_action(
        self,
        style: int,
        params: np.ndarray,
        mask: np.ndarray,
        generator: np.ndarray,
        full: bool = False,
        chooser: Callable[[np.ndarray, np.ndarray, np.ndarray, int], int] | None = None,
    ) -> int:
        """The action compiled ``style`` (with ``params``) takes here, seeing only :meth:`redacted`
        (``full``: the whole state, for a style that cheats by design, the oracle).

        ``mask`` is the mover's legal-action mask (nonzero: legal); ``generator`` the caller's
        own generator (:func:`agent_generator`), which the style draws from and which is
        advanced in place, so a Python agent's choices depend on its own seed, never on the
        game's. ``chooser(state, spec, mask, count)`` decides instead of :func:`choose_action`
        when given (a search guided by a network, :mod:`uno_env.sim.guided`). Returns -1 when
        nothing is legal.
        """
        state = self._full_state() if full else self.redacted()
        state[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS] = generator
        legal = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
        legal[: self.num_actions] = mask[: self.num_actions] != 0
        if chooser is not None:
            action = chooser(state, self.spec, legal, int(legal.sum()))
        else:
            action = choose_action(state, self.spec, legal, int(legal.sum()), style, params)
        generator[:] = state[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS]
        return int(action)

    def search_with_counts(
        self,
        params: np.ndarray,
        mask: np.ndarray,
        generator: np.ndarray,
        full: bool,
        visits: np.ndarray,
        values: np.ndarray,
    ) -> int:
        """:meth:`style_action` of the search (``full``: the oracle) that also reports what it
        saw: the rollouts per action id in ``visits`` and their mean value in ``values``
        (:func:`uno_env.styles.search.search_decision`). The same action, the generator advanced alike."""
        state = self._full_state() if full else self.redacted()
        state[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS] = generator
        legal = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
        legal[: self.num_actions] = mask[: self.num_actions] != 0
        action = search_decision(state, self.spec, legal, int(legal.sum()), params, full, visits, values)
        generator[:] = state[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS]
        return int(action)

    def _full_state(self) -> np.ndarray:
        """A copy of the whole state, for a style that cheats by design; a clear error when this
        view is :meth:`public` (it holds no hidden card to cheat with)."""
        if not self.complete:
            raise ValueError(
                "the oracle reads the other hands, which this public view does not hold: hand it the "
                "game (act(observation, mask, game) or PublicView.of(game)), or seat it in a tournament "
                "or study that allows cheating agents"
            )
        return self.state.copy()


def agent_generator(seed: int, stream: int) -> np.ndarray:
    """A generator of its own for a Python agent, seeded from ``(seed, stream)`` (see
    :meth:`PublicView.style_action`)."""
    generator = np.zeros(L.RNG_WORDS, dtype=np.int64)
    seed_rng(generator, 0, seed, stream)
    return generator
