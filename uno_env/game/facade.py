"""The :class:`Game` facade: one game for people, tests and the envs, over the compiled engine.

``Game`` holds a state buffer, the compiled rule spec and the legal-action mask of the
current state. Each :meth:`Game.step` is one compiled call that checks the action, applies
it, resolves chance events and refills the mask. Everything a person needs sits on top:
card and action notation, position notation, the outcome as a value, an action history.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..compiler.compiling import ensure_compiled
from ..compiler.jit import njit
from ..engine import actions, cards, engine
from ..engine import layout as L
from ..engine.cards import Card
from ..engine.phases import PHASES as PHASES
from ..engine.phases import Decision as Decision
from ..engine.phases import Phase as Phase
from ..engine.phases import TargetReason as TargetReason
from ..engine.rng import check_seed, fresh_seed
from ..engine.rules import RuleSet, compile_spec, load_rules
from .compiled import CompiledGame, IllegalActionError, compile_game
from .position import PHASE_NAMES, format_position, parse_position

__all__ = ["Decision", "Game", "IllegalActionError", "Outcome", "Phase", "TargetReason"]


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


class EngineError(RuntimeError):
    """The engine met a state it cannot use (a seat or card index out of range, no player to
    pass the turn to) and ended the game. Only a state the engine never makes gets here: one
    written directly into :attr:`Game.state`, or a position the parser should have refused."""


STEP_ILLEGAL = -1  # _step_and_list: the action is not legal (nothing changed)
STEP_ENGINE_ERROR = -2  # _step_and_list: the engine found its state unusable and ended the game
DEAL = -1  # _step_and_list's action: deal a game (of its deck counts, player count and seed)
REFILL = -2  # _step_and_list's action: refill the mask of the current state


@njit(cache=True)
def _step_and_list(
    state: np.ndarray,
    spec: np.ndarray,
    action: int,
    mask: np.ndarray,
    legal: np.ndarray,
    deck_counts: np.ndarray,
    num_players: int,
    seed: int,
    staged: bool | None,
) -> int:
    """The facade's compiled call: one step (check, apply, refill the mask), a deal or a refill,
    then the legal ids listed into ``legal``; their number, or a STEP_* code.

    ``action`` is the action to step with, or :data:`DEAL` (deal the game of ``deck_counts``,
    ``num_players`` and ``seed``; a step or a refill does not read them) or :data:`REFILL`
    (refill the mask of the current state, a parsed position). One compiled entry point for
    the three because numba optimises and emits every compiled function with the code of
    everything it calls: each entry point would compile the engine below it again.
    ``staged``: :func:`uno_env.engine.engine.staged_argument` of the rules (``None`` compiles the
    engine without the staged machinery)."""
    if action == DEAL:
        engine.new_game(state, spec, num_players, deck_counts, seed, 0, staged)
        engine.fill_mask(state, spec, mask, staged)
    elif action == REFILL:
        engine.fill_mask(state, spec, mask, staged)
    else:
        if state[L.S_ENGINE_ERROR] != L.ERR_NONE:
            return STEP_ENGINE_ERROR
        if not engine.step_checked(state, spec, action, mask, staged):
            return STEP_ILLEGAL
        if state[L.S_ENGINE_ERROR] != L.ERR_NONE:
            return STEP_ENGINE_ERROR
    return engine.list_legal(spec, mask, legal)


ENGINE_ERRORS = {
    L.ERR_SEAT: "a seat index in the state is not a player",
    L.ERR_FACE: "a card index in the state is not a card face",
    L.ERR_PILE: "a pile count in the state is outside 0..256",
    L.ERR_NO_PLAYER: "no player is left in play to pass the turn to",
}


def engine_error_message(state: np.ndarray, position: str) -> str:
    """What :class:`EngineError` says about a state whose ``S_ENGINE_ERROR`` is set."""
    code = int(state[L.S_ENGINE_ERROR])
    why = ENGINE_ERRORS.get(code, f"error code {code}")
    return f"the engine cannot use this state ({why}) and ended the game; position: {position}"


def state_as_seen_by(
    state: np.ndarray, spec: np.ndarray, seat: int, staged: bool | None
) -> np.ndarray | None:
    """A copy of ``state`` as ``seat`` (not the one deciding) may picture it while an
    out-of-turn window is open (:meth:`Game.as_seen_by`,
    :func:`uno_env.engine.engine.let_windows_pass`), or None where it sees ``state`` itself."""
    if state[L.S_STATUS] != L.ST_RUNNING or state[L.S_PHASE] not in (L.PH_JUMP_IN, L.PH_BLOCK):
        return None
    ahead = state.copy()
    return ahead if engine.let_windows_pass(ahead, spec, seat, staged) else None


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
        compiled = compile_game(rules, num_players, **overrides)
        ensure_compiled("game")
        self._setup(compiled, fresh_seed() if seed is None else check_seed(seed), compiled.new_state())
        self._num_legal = self._compiled_call(DEAL)

    def _setup(self, compiled: CompiledGame, seed: int, state: np.ndarray) -> None:
        """The attributes every way of making a game sets (the caller fills the mask)."""
        self.compiled = compiled
        """The rules compiled for this player count (:func:`uno_env.game.compiled.compile_game`)."""
        self.rules = compiled.rules
        self.seed = seed
        self.deck: cards.DeckFamily = compiled.deck
        self._spec = compiled.spec
        self._staged = engine.staged_argument(compiled.spec)
        self._state = state
        self._mask = compiled.new_mask()
        self._legal = np.zeros(L.MAX_ACTIONS, dtype=np.int64)
        self._num_legal = 0
        self._deck_counts = compiled.deck_counts
        self._num_players = compiled.num_players
        self.history: list[tuple[int, int]] = []
        """Every decision so far as ``(seat, action)``."""
        self.log: list[tuple[int, int, int]] = []
        """Every decision so far as ``(seat, action, phase)``: what a public view reads to tell
        which decisions others may see (:meth:`uno_env.styles.public.PublicAccessors.public_history`)."""

    def _compiled_call(self, action: int) -> int:
        """:func:`_step_and_list` on this game: ``action``, :data:`DEAL` or :data:`REFILL`."""
        return _step_and_list(
            self._state,
            self._spec,
            action,
            self._mask,
            self._legal,
            self._deck_counts,
            self._num_players,
            self.seed,
            self._staged,
        )

    # ------------------------------------------------------------ construction
    @classmethod
    def from_position(cls, rules: RuleSet | str | Path, text: str, seed: int = 0, **overrides: Any) -> Game:
        """A game at the situation written in position notation (see :mod:`uno_env.game.position`)."""
        resolved = load_rules(rules, **overrides)
        seed = check_seed(seed)
        spec = compile_spec(resolved)
        state = parse_position(text, resolved, spec, seed)
        game = cls.__new__(cls)
        game._setup(compile_game(resolved, int(state[L.S_NPLAYERS])), seed, state)
        game._num_legal = game._compiled_call(REFILL)
        return game

    def clone(self) -> Game:
        """An independent copy, generator state included (same future chance events)."""
        other = Game.__new__(Game)
        other._setup(self.compiled, self.seed, self._state.copy())
        other._mask[:] = self._mask
        other._legal[:] = self._legal
        other._num_legal = self._num_legal
        other.history = list(self.history)
        other.log = list(self.log)
        return other

    def as_seen_by(self, seat: int) -> Game:
        """The game as ``seat`` may picture it: while an out-of-turn window asks another seat
        (H-JUMP-1, H-ZEROSEE-1), a copy in which every seat asked before ``seat`` lets the
        chance go (``seat`` itself is then asked, or the game goes on); else this game. A
        window asks only the seats holding a card to lay, so how it would have gone without any
        such card is all the other seats may see (the player of a 0 without its look until
        nobody blocked). This game itself where that picture would already show a card drawn or
        the cube's roll, which nobody knows yet (:func:`uno_env.engine.engine.let_windows_pass`)."""
        if self.current_player == seat:
            return self
        ahead = state_as_seen_by(self._state, self._spec, seat, self._staged)
        if ahead is None:
            return self
        future = self.clone()
        future._state[:] = ahead
        future._num_legal = future._compiled_call(REFILL)
        return future

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
        a bool, None or a list; :class:`EngineError` if the engine cannot use the state.
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
        phase = int(self._state[L.S_PHASE])
        count = self._compiled_call(action_id)
        if count < 0:
            if count == STEP_ENGINE_ERROR:
                self._num_legal = self._compiled_call(REFILL)
                raise EngineError(engine_error_message(self._state, self.position()))
            raise self._illegal(action, "not legal here")
        self._num_legal = count
        self.history.append((seat, action_id))
        self.log.append((seat, action_id, phase))

    def _illegal(self, action: Any, why: str) -> IllegalActionError:
        who = f"seat {self.current_player}"
        return self.compiled.illegal_action(self._state, self.legal_actions(), action, why=why, who=who)

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

    def hands_seen(self, observer: int) -> list[int]:
        """Seats whose hand ``observer`` knows as it is now, no card gained unseen since (H-ZEROSEE-1: a 0
        shows the hands to its player; H-SEVEN-1, H-ZERO-1: a player knows the hand it passed
        on), ascending; ValueError unless ``observer`` is a seat."""
        if (
            isinstance(observer, bool)
            or not isinstance(observer, (int, np.integer))
            or not 0 <= observer < self.num_players
        ):
            raise ValueError(f"observer must be a seat 0..{self.num_players - 1}, got {observer!r}")
        state, row = self._state, L.SEEN + int(observer) * L.MAX_PLAYERS
        # a look records the hand's version + 1; a card the hand gains unseen (drawn, given by
        # another, H-TWO-1) or a swap bumps its version; a card laid does not
        return [
            s
            for s in range(self.num_players)
            if s != observer and state[row + s] == state[L.HAND_VERSION + s] + 1
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

    def decision(self) -> Decision:
        """The decision asked now, typed (phase, who, what is pending and from whom, ...)."""
        state, phase = self._state, self.phase
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
            can_call=bool(self._mask[call]),
        )

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
        code = engine.check_invariants(self._state, self._spec, scratch, self._staged)
        if code != engine.INV_OK:
            raise AssertionError(f"{engine.INVARIANT_MESSAGES[code]}; position: {self.position()}")
        if not np.array_equal(scratch[: self.num_actions], self._mask[: self.num_actions]):
            raise AssertionError(f"the cached legal mask is stale; position: {self.position()}")

    @property
    def state(self) -> np.ndarray:
        """The raw state buffer (read it, do not write it; layout in :mod:`uno_env.engine.layout`)."""
        return self._state

    def __repr__(self) -> str:
        return (
            f"<Game {self.rules.preset_name() or 'custom'} {self.num_players}p seed={self.seed} "
            f"{PHASE_NAMES[int(self._state[L.S_PHASE])]} seat={self.current_player}>"
        )
