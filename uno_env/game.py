"""The :class:`Game` facade: one game for people, tests and the envs, over the compiled engine.

``Game`` holds a state buffer, the compiled rule spec and the legal-action mask of the
current state. Each :meth:`Game.step` is one compiled call that checks the action, applies
it, resolves chance events and refills the mask. Everything a person needs sits on top:
card and action notation, position notation, the outcome as a value, an action history.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from . import actions, cards, engine
from . import layout as L
from .cards import Card
from .position import PHASE_NAMES, format_position, parse_position
from .rng import check_seed
from .rules import RuleSet, compile_spec, load_rules


class Phase(IntEnum):
    """The decision the player to move is asked for."""

    PLAY = L.PH_PLAY  # play a card, draw, or call first
    CHOOSE_COLOUR = L.PH_CHOOSE_COLOUR  # name the colour/suit after a wild
    PLAY_DRAWN = L.PH_PLAY_DRAWN  # play the card just drawn (or any, MM-DRAW-1), or keep it
    CHALLENGE = L.PH_CHALLENGE  # challenge the Wild Draw Four, accept it, or answer it
    OVER = L.PH_OVER  # the game has ended
    ANSWER = L.PH_ANSWER  # answer a pending penalty (stack, reflect) or accept it
    CONTINUE = L.PH_CONTINUE  # lay another card of the same play, or stop
    CHOOSE_TARGET = L.PH_CHOOSE_TARGET  # pick a seat to swap with or give cards to
    GIVE = L.PH_GIVE  # pick a card to give
    JUMP_IN = L.PH_JUMP_IN  # out of turn: play the identical card, or pass
    BLOCK = L.PH_BLOCK  # out of turn: block the look at the hands with a 0, or pass


class IllegalActionError(ValueError):
    """An action that is not legal in the current position (the game is unchanged)."""

    def __init__(self, message: str, action: Any, legal: list[int], position: str) -> None:
        super().__init__(message)
        self.action = action
        self.legal = legal
        self.position = position


@dataclass(frozen=True)
class Outcome:
    """How a game ended (E-END-1: a truncated game has no winner and no ranking).

    ``ranking`` lists seats best first; ``scores`` are match points per seat (the round
    winner's U-SCORE-1 points in a single round); ``round_points`` the points left in each
    hand at the end of the last round; ``reason`` is ``"win"`` (a single round was won),
    ``"match"`` (a match reached its target) or ``"turn_limit"``. Two lengths:
    ``decisions`` counts every choice a player made (plays, draws, colours, play-or-keep,
    challenges, answers, calls); ``turns`` counts the turns begun (a player entered the play
    phase, to play or draw from their hand), the unit of published game lengths; -1 in a
    record written before turns were counted.
    """

    winner: int | None
    ranking: tuple[int, ...]
    scores: tuple[int, ...]
    round_points: tuple[int, ...]
    reason: str
    truncated: bool
    rounds: int
    decisions: int
    turns: int


@njit(cache=True)
def _step_and_list(
    state: np.ndarray, spec: np.ndarray, action: int, mask: np.ndarray, legal: np.ndarray
) -> int:
    """One facade step: check, apply, refill the mask and list the legal ids (-1: illegal)."""
    if not engine.step_checked(state, spec, action, mask):
        return -1
    return _list_legal(spec, mask, legal)


@njit(cache=True)
def _reset_and_list(
    state: np.ndarray,
    spec: np.ndarray,
    num_players: int,
    deck: np.ndarray,
    seed: int,
    mask: np.ndarray,
    legal: np.ndarray,
) -> int:
    engine.new_game(state, spec, num_players, deck, seed, 0)
    engine.fill_mask(state, spec, mask)
    return _list_legal(spec, mask, legal)


@njit(cache=True)
def _mask_and_list(state: np.ndarray, spec: np.ndarray, mask: np.ndarray, legal: np.ndarray) -> int:
    engine.fill_mask(state, spec, mask)
    return _list_legal(spec, mask, legal)


@njit(cache=True)
def _list_legal(spec: np.ndarray, mask: np.ndarray, legal: np.ndarray) -> int:
    count = 0
    for a in range(spec[L.SP_NUM_ACTIONS]):
        if mask[a]:
            legal[count] = a
            count += 1
    return count


class Game:
    """One game of a rule variant, stepped one decision at a time.

    >>> game = Game("uno", num_players=4, seed=7)
    >>> game.step(game.legal_actions()[0])
    >>> game.is_over()
    False

    ``rules`` is a preset name, a TOML path or a :class:`RuleSet`; keyword overrides derive
    a variant (``Game("uno", 4, draw="until_playable")``). ``seed`` fixes every chance
    event: the same seed and actions give the same game in any process. ``seed=None`` draws
    one from the operating system (kept in :attr:`seed`).
    """

    def __init__(
        self,
        rules: RuleSet | str | Path = "uno",
        num_players: int = 4,
        seed: int | None = None,
        **overrides: Any,
    ) -> None:
        self.rules = load_rules(rules, **overrides)
        self.rules.check_players(num_players)
        self.seed = secrets.randbits(63) if seed is None else check_seed(seed)
        self.deck: cards.DeckFamily = self.rules.deck_family
        self._spec = compile_spec(self.rules)
        self._state = np.zeros(L.STATE_SIZE, dtype=np.int64)
        self._mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
        self._legal = np.zeros(L.MAX_ACTIONS, dtype=np.int64)
        deck = self.rules.deck_counts(num_players)
        self._num_legal = _reset_and_list(
            self._state, self._spec, num_players, deck, self.seed, self._mask, self._legal
        )
        self.history: list[tuple[int, int]] = []
        """Every decision so far as ``(seat, action)``."""

    # ------------------------------------------------------------ construction
    @classmethod
    def from_position(cls, rules: RuleSet | str | Path, text: str, seed: int = 0, **overrides: Any) -> Game:
        """A game at the situation written in position notation (see :mod:`uno_env.position`)."""
        game = cls.__new__(cls)
        game.rules = load_rules(rules, **overrides)
        game.seed = check_seed(seed)
        game.deck = game.rules.deck_family
        game._spec = compile_spec(game.rules)
        game._state = parse_position(text, game.deck, game._spec, game.rules.deck_counts, seed)
        game.rules.check_players(int(game._state[L.S_NPLAYERS]))
        game._mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
        game._legal = np.zeros(L.MAX_ACTIONS, dtype=np.int64)
        game._num_legal = _mask_and_list(game._state, game._spec, game._mask, game._legal)
        game.history = []
        return game

    def clone(self) -> Game:
        """An independent copy, generator state included (same future chance events)."""
        other = Game.__new__(Game)
        other.rules = self.rules
        other.seed = self.seed
        other.deck = self.deck
        other._spec = self._spec
        other._state = self._state.copy()
        other._mask = self._mask.copy()
        other._legal = self._legal.copy()
        other._num_legal = self._num_legal
        other.history = list(self.history)
        return other

    # ------------------------------------------------------------ decisions
    def legal_actions(self) -> list[int]:
        """Legal action ids of the player to move, ascending (empty once the game is over)."""
        return self._legal[: self._num_legal].tolist()

    def legal_mask(self) -> np.ndarray:
        """int8 mask over the deck family's action table (a copy)."""
        return self._mask[: self.num_actions].copy()

    def step(self, action: int | str) -> None:
        """Apply the decision of the player to move: an action id or its notation (``"R7"``).

        Raises :class:`IllegalActionError` (the game unchanged) if the action is not legal,
        including anything that is not an action: an id outside ``0..num_actions-1``, a float,
        a bool, None or a list.
        """
        if type(action) is int and 0 <= action < self.rules.num_actions:
            action_id = action  # the common case, checked first
        elif isinstance(action, str):
            try:
                action_id = actions.parse_action(action, self.deck)
            except ValueError as exc:
                raise self._illegal(action, str(exc)) from None
        elif isinstance(action, (int, np.integer)) and not isinstance(action, bool):
            if not 0 <= action < self.rules.num_actions:
                raise self._illegal(action, f"not an action id 0..{self.rules.num_actions - 1}")
            action_id = int(action)
        else:
            raise self._illegal(action, "not an action: give an action id (int) or its notation (str)")
        seat = int(self._state[L.S_CURRENT])
        count = _step_and_list(self._state, self._spec, action_id, self._mask, self._legal)
        if count < 0:
            raise self._illegal(action, "not legal here")
        self._num_legal = count
        self.history.append((seat, action_id))

    def _illegal(self, action: Any, why: str) -> IllegalActionError:
        legal = self.legal_actions()
        names = ", ".join(f"{a}={self.describe_action(a)}" for a in legal) or "none (game over)"
        what = action if isinstance(action, str) else f"{action}"
        if (
            isinstance(action, (int, np.integer))
            and not isinstance(action, bool)
            and 0 <= action < self.num_actions
        ):
            what = f"{action} ({self.describe_action(int(action))})"
        position = self.position()
        message = (
            f"illegal action {what}: {why} for seat {self.current_player} in phase "
            f"{self.phase.name}; legal actions: {names}; position: {position}"
        )
        return IllegalActionError(message, action, legal, position)

    def describe_action(self, action: int) -> str:
        """Notation of an action id in this game's deck family (``R7``, ``colour G``, ...)."""
        return actions.format_action(action, self.deck)

    def parse_action(self, text: str) -> int:
        """Action id of a notation string in this game's deck family."""
        return actions.parse_action(text, self.deck)

    # ------------------------------------------------------------ state
    @property
    def num_players(self) -> int:
        """Players at the table."""
        return int(self._state[L.S_NPLAYERS])

    @property
    def num_actions(self) -> int:
        """Size of the action table."""
        return self.rules.num_actions

    @property
    def current_player(self) -> int:
        """Seat that must decide now (-1 once the game is over)."""
        return int(self._state[L.S_CURRENT])

    @property
    def phase(self) -> Phase:
        """The decision asked of :attr:`current_player`."""
        return Phase(int(self._state[L.S_PHASE]))

    @property
    def direction(self) -> int:
        """+1 clockwise, -1 counter-clockwise (E-DIR-1)."""
        return int(self._state[L.S_DIRECTION])

    @property
    def active_colour(self) -> int:
        """Colour/suit index in play (-1 while a starting wild awaits its colour)."""
        return int(self._state[L.S_COLOUR])

    @property
    def top_card(self) -> Card:
        """Top card of the discard pile."""
        return Card(int(self._state[L.DISCARD_PILE + self._state[L.S_NDISCARD] - 1]), self.deck)

    def hand(self, seat: int) -> list[Card]:
        """Cards ``seat`` holds, in face order (ValueError unless ``seat`` is 0..num_players-1)."""
        if (
            isinstance(seat, bool)
            or not isinstance(seat, (int, np.integer))
            or not 0 <= seat < self.num_players
        ):
            raise ValueError(f"seat must be a seat 0..{self.num_players - 1}, got {seat!r}")
        start = L.HANDS + seat * L.MAX_FACES
        return [
            Card(face, self.deck)
            for face in range(self.rules.num_faces)
            for _ in range(int(self._state[start + face]))
        ]

    def hand_sizes(self) -> list[int]:
        """Cards held per seat."""
        return self._state[L.HAND_SIZE : L.HAND_SIZE + self.num_players].tolist()

    @property
    def draw_pile_size(self) -> int:
        """Cards left to draw."""
        return int(self._state[L.S_NDRAW])

    def discard_pile(self) -> list[Card]:
        """Discard pile from bottom to top."""
        n = int(self._state[L.S_NDISCARD])
        return [Card(int(f), self.deck) for f in self._state[L.DISCARD_PILE : L.DISCARD_PILE + n]]

    @property
    def pending_penalty(self) -> int:
        """Cards the player to move must draw if they accept (a Wild Draw Four awaiting)."""
        return int(self._state[L.S_PENDING])

    def called(self) -> list[bool]:
        """Per seat: whether their UNO call stands (called, one card left)."""
        return [bool(x) for x in self._state[L.CALLED : L.CALLED + self.num_players]]

    def scores(self) -> list[int]:
        """Match points per seat."""
        return self._state[L.SCORE : L.SCORE + self.num_players].tolist()

    @property
    def decisions(self) -> int:
        """Decisions applied so far."""
        return int(self._state[L.S_DECISIONS])

    @property
    def turns(self) -> int:
        """Turns begun so far: how often a player entered the play phase (to play or draw from
        their hand). Counted from the deal; a game built from a position counts from there."""
        return int(self._state[L.S_TURNS])

    def is_over(self) -> bool:
        """Whether the game has ended (won or truncated)."""
        return bool(self._state[L.S_STATUS] != L.ST_RUNNING)

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it runs."""
        status = int(self._state[L.S_STATUS])
        if status == L.ST_RUNNING:
            return None
        n = self.num_players
        ranking = np.empty(n, dtype=np.int64)
        engine.compute_ranking(self._state, self._spec, ranking)
        truncated = status == L.ST_TRUNCATED
        return Outcome(
            winner=None if truncated else int(self._state[L.S_WINNER]),
            ranking=() if truncated else tuple(ranking.tolist()),
            scores=tuple(self.scores()),
            round_points=tuple(self._state[L.ROUND_POINTS : L.ROUND_POINTS + n].tolist()),
            reason="turn_limit" if truncated else ("win" if self.rules.match == "single_round" else "match"),
            truncated=truncated,
            rounds=int(self._state[L.S_ROUND]),
            decisions=self.decisions,
            turns=self.turns,
        )

    def position(self) -> str:
        """The current situation in position notation; :meth:`from_position` reads it back."""
        return format_position(self._state, self._spec, self.deck)

    def check_invariants(self) -> None:
        """Raise AssertionError if an engine invariant is broken (E-CONS-1 and others)."""
        scratch = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
        code = engine.check_invariants(self._state, self._spec, scratch)
        if code != engine.INV_OK:
            raise AssertionError(f"{engine.INVARIANT_MESSAGES[code]}; position: {self.position()}")
        if not np.array_equal(scratch[: self.num_actions], self._mask[: self.num_actions]):
            raise AssertionError(f"the cached legal mask is stale; position: {self.position()}")

    @property
    def state(self) -> np.ndarray:
        """The raw state buffer (read it, do not write it; layout in :mod:`uno_env.layout`)."""
        return self._state

    def __repr__(self) -> str:
        return (
            f"<Game {self.rules.preset_name() or 'custom'} {self.num_players}p seed={self.seed} "
            f"{PHASE_NAMES[int(self._state[L.S_PHASE])]} seat={self.current_player}>"
        )
