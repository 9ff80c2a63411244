"""Position notation: a whole game situation on one line, like FEN for chess.

Fields are ``key=value`` separated by ``;``. The first seven are always printed::

    hands=R7 YS W/G3 G3/BD2; discard=B5 R5; draw=B2 G9 WD4; colour=R; seat=0; dir=+; phase=play

``hands``
    each seat's cards, seats separated by ``/`` (an empty hand is empty or ``-``); the
    number of hands is the number of players.
``discard``
    the discard pile from bottom to top (the last card is the top card).
``draw``
    the draw pile from the top (the next card drawn) down.
``colour``
    the active colour/suit (``R Y G B`` or ``C D H S``), ``-`` while none is named.
``seat``, ``dir``, ``phase``
    the seat to decide, the direction (``+`` clockwise, ``-``), and the decision asked:
    ``play``, ``colour``, ``drawn``, ``challenge``, ``answer``, ``continue``, ``target``,
    ``give``, ``jump``, ``block`` or ``over``.

Optional fields, printed only when they differ from their default:

- ``cube=1:5`` (the Uno cube's action and target dice, H-CUBE-1, while its roller chooses a
  player or a colour), ``cubeuno=1``, ``cubereturn=drawn`` (or ``continue``: a call in the
  middle of a multi-card play, whose fields then follow as in phase ``continue``),
  ``cubechosen=2``, and per seat ``cuberolled=0 1 0`` (rolled at 10 cards since last holding
  fewer);

- ``drawn=R3``: the card just drawn (phase ``drawn``);
- a pending penalty: ``pending=4`` cards and/or ``skip=2`` turns to sit out, ``from=1`` its
  sender, ``class=WD4`` the rank that raised it (for the stack table), ``challengeable=1``,
  ``bluff=1`` and ``before=B`` (a Wild Draw Four's legality and the colour before it);
- ``after=start``: a starting wild whose chooser then plays;
- per seat: ``called=0 2`` (standing UNO calls), ``scores=0 120 0 0``, ``sitout=0 2 0``
  (turns to sit out, MC-FOUR-1), ``finished=0 1 0`` (leaving order, MC-END-1),
  ``seen=0>1 0>2`` (observer>seat: hands seen, H-ZEROSEE-1, or passed on, H-SEVEN-1, H-ZERO-1,
  and no card gained unseen since);
- what plays showed about hands, per seat separated by ``/`` (``-``: nothing known):
  ``void=-/G0 G1 G2:1`` (seat 1 is proven to hold at most 1 card of G0, G1 and G2: it drew
  with nothing to play, U-DRAW-3, or its Wild Draw Four was found legal, U-WD4-2; the
  number is the cards gained since, less those of the faces laid since) and
  ``hint=...`` the same where the play only implies it (a draw by choice, a Wild Draw
  Four laid, U-WD4-1; below 0 once a bluff showed); a French deck's records name only
  the cards it holds (no joker without MC-OPT-1);
- ``jumpblock=2:1``: seat 2 drew one copy of the top card as its penalty (H-JUMP-1);
  ``jumpblock=start``: the top card is the starting card, laid as the first player's discard
  (MM-START-1), and nobody may jump in on it (H-SCOPE-1);
- in the middle of a play (phases ``colour``, ``continue``, ``target``, ``give``,
  ``jump``, ``block``): ``actor``, ``stage``, ``kind``, ``count``, ``run``, ``skips``,
  ``draws``, ``sits``, ``previous``, ``choose``, ``penaltycards``, ``carry``,
  ``carryskip``, ``reason``, ``target``, ``give``, ``resume``, ``window``, ``scan``; their
  defaults describe a play of just the top card by the seat to move;
- ``dealer=3``, ``round=1``, ``decisions=17`` (``letgo=2`` of them let-go answers to out-of-turn
  windows, H-JUMP-1, H-ZEROSEE-1, which the observations do not count), ``status=won|truncated``,
  ``winner=2``.

Cards not listed anywhere are out of the game: a position's own cards are what E-CONS-1
conserves, so scenario tests can name only the cards that matter.

A position is validated completely before the engine sees it: integers are ASCII digits,
every integer field is range-checked against the rule set and the player count (seats
``0..n-1``, counts never negative, penalties at most ``layout.PENALTY_LIMIT``, decisions
below ``max_decisions``), fields a phase needs are required (``target`` in phase ``give``,
``window``/``scan``/``resume`` in ``jump``, ``pending`` in ``challenge``), fields that mean
nothing in the phase or under the rule set are refused (a phase or field of a rule the set
does not use), players who left (MC-END-1) are numbered 1, 2, ... and hold no cards, no
face has more copies than the deck, and the engine invariants must hold. A penalty being
answered must be one play can leave: a challenge (U-WD4-2) has a Wild Draw Four on top laid
by the player before the challenger, and a ``bluff`` that player's hand agrees with (U-WD4-1);
an answered penalty (H-STACK-1, MC-FOUR-1, M-STAR-1, H-REFLECT-1) was raised by the top card
or sent back by it, from a neighbour of the victim, and the rules allow an answer to it; in
the middle of a play a pending penalty is the one the play answers (``kind`` 1-3, carried on
whole: ``carry``/``carryskip`` equal to ``pending``/``skip``), and a normal play (``kind=0``)
has none; turns to sit out need a card (or the cube) that sends them; ``before`` needs the
Wild Draw Four on top. Anything else is a :class:`PositionError` naming the field and what is
allowed; an accepted position prints back to a line that parses to the same state.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import TypeVar

import numpy as np

from ..engine import cards, engine
from ..engine import layout as L
from ..engine import options as O
from ..engine.cards import DeckFamily
from ..engine.phases import NOTATION, PHASES
from ..engine.rng import seed_rng
from ..engine.rules import RuleError, RuleSet
from ..spelling import suggestion

PHASE_NAMES = NOTATION  # phase code -> its word (the table of phases)
MIDPLAY_PHASES = tuple(int(info.phase) for info in PHASES.values() if info.midplay)
STATUS_NAMES = {L.ST_RUNNING: "running", L.ST_WON: "won", L.ST_TRUNCATED: "truncated"}
REQUIRED = ("hands", "discard", "draw", "colour", "seat", "dir", "phase")
# integer fields of a play in progress: (name, state index)
MIDPLAY_FIELDS = (
    ("actor", L.S_ACTOR),
    ("stage", L.S_STAGE),
    ("kind", L.S_PLAY_KIND),
    ("count", L.S_PLAY_COUNT),
    ("run", L.S_RUN_STEP),
    ("skips", L.S_ACC_SKIP),
    ("draws", L.S_ACC_DRAW),
    ("sits", L.S_ACC_SIT),
    ("previous", L.S_ACC_PREVIOUS),
    ("choose", L.S_ACC_CHOOSE),
    ("penaltycards", L.S_ACC_PENALTY_CARDS),
    ("carry", L.S_CARRY_DRAW),
    ("carryskip", L.S_CARRY_SIT),
    ("reason", L.S_TARGET_REASON),
    ("target", L.S_TARGET),
    ("give", L.S_GIVE_LEFT),
    ("resume", L.S_RESUME),
    ("window", L.S_WINDOW_FROM),
    ("scan", L.S_WINDOW_SCAN),
)
# which of them each mid-play phase uses
_PLAY = ("actor", "stage", "kind", "count", "run", "skips", "draws", "sits", "previous", "choose",
         "penaltycards", "carry", "carryskip")  # fmt: skip
PHASE_FIELDS: dict[int, tuple[str, ...]] = {
    L.PH_CHOOSE_COLOUR: _PLAY,
    L.PH_CONTINUE: tuple(name for name in _PLAY if name != "stage"),  # staged once it ends
    L.PH_CHOOSE_TARGET: (*_PLAY, "reason", "give"),
    L.PH_GIVE: (*_PLAY, "reason", "target", "give"),
    L.PH_JUMP_IN: ("resume", "window", "scan"),
    L.PH_BLOCK: (*_PLAY, "window", "scan"),
}
OPTIONAL = (
    "drawn", "pending", "skip", "from", "class", "challengeable", "bluff", "before", "after",
    "called", "scores", "sitout", "finished", "seen", "jumpblock", "dealer", "round",
    "decisions", "letgo", "winner", "status", "cube", "cubeuno", "cubereturn", "cubechosen",
    "cuberolled", "void", "hint", *(name for name, _ in MIDPLAY_FIELDS),
)  # fmt: skip


_T = TypeVar("_T")


class PositionError(ValueError):
    """A position string that does not describe a legal situation of the rule set."""


class PlayerCountError(PositionError, RuleError):
    """A position with more or fewer hands than the rule set seats (a RuleError too, as
    ``Game(rules, n)`` raises for that count)."""


def _hand_faces(state: np.ndarray, seat: int, num_faces: int) -> list[int]:
    faces: list[int] = []
    for face in range(num_faces):
        faces.extend([face] * int(engine.count_in_hand(state, seat, face)))
    return faces


def _midplay_defaults(state: np.ndarray, spec: np.ndarray, phase: int) -> dict[str, int]:
    """Defaults of the mid-play fields in ``phase``: a play of just the top card by the seat
    to move."""
    seat = int(state[L.S_CURRENT])
    top = _top(state)
    effect = int(spec[L.F_EFFECT + top])
    amount = int(spec[L.F_AMOUNT + top])
    stage = {
        L.PH_CHOOSE_COLOUR: L.STAGE_HOUSE,
        L.PH_CHOOSE_TARGET: L.STAGE_REACT,
        L.PH_GIVE: L.STAGE_REACT,
        L.PH_BLOCK: L.STAGE_PASS,
    }.get(phase, L.STAGE_COLOUR)
    penalty = effect in (L.EF_DRAW, L.EF_WILD_DRAW, L.EF_SIT_OUT)
    window = int(state[L.S_WINDOW_FROM])
    return {
        # a jump-in window's actor is the player who opened it (H-JUMP-1)
        "actor": window if phase == L.PH_JUMP_IN and window >= 0 else seat,
        "stage": stage,
        "kind": L.PK_NORMAL,
        "count": 1,
        "run": 0,
        "skips": int(effect == L.EF_SKIP),
        "draws": amount if effect in (L.EF_DRAW, L.EF_WILD_DRAW) else 0,
        "sits": amount if effect == L.EF_SIT_OUT else 0,
        "previous": amount if effect == L.EF_PREVIOUS_DRAWS else 0,
        "choose": int(
            phase == L.PH_CONTINUE and effect in (L.EF_WILD, L.EF_WILD_DRAW, L.EF_CHOOSE_SUIT, L.EF_STAR)
        ),
        "penaltycards": int(penalty),
        "carry": 0,
        "carryskip": 0,
        "reason": L.TR_GIVE if phase == L.PH_GIVE else L.TR_SWAP,
        "target": -1,
        "give": 2 if phase == L.PH_GIVE else 0,
        "resume": -1,
        "window": -1,
        "scan": 0,
    }


def _seat_values(state: np.ndarray, at: int, n: int) -> list[int]:
    return [int(x) for x in state[at : at + n]]


def format_position(state: np.ndarray, spec: np.ndarray, deck: DeckFamily) -> str:
    """The one-line notation of a game state."""
    n = int(state[L.S_NPLAYERS])
    num_faces = int(spec[L.SP_NUM_FACES])
    hands = "/".join(
        cards.format_cards(_hand_faces(state, s, num_faces), deck).replace("-", "") for s in range(n)
    )
    discard = [int(x) for x in state[L.DISCARD_PILE : L.DISCARD_PILE + state[L.S_NDISCARD]]]
    draw = [int(x) for x in state[L.DRAW_PILE : L.DRAW_PILE + state[L.S_NDRAW]]][::-1]
    phase = int(state[L.S_PHASE])
    fields = [
        f"hands={hands}",
        f"discard={cards.format_cards(discard, deck)}",
        f"draw={cards.format_cards(draw, deck)}",
        f"colour={cards.format_colour(int(state[L.S_COLOUR]), deck)}",
        f"seat={int(state[L.S_CURRENT])}",
        f"dir={'+' if state[L.S_DIRECTION] > 0 else '-'}",
        f"phase={PHASE_NAMES[phase]}",
    ]
    returns_to_drawn = _in_cube(state) and state[L.S_CUBE_RETURN] == L.PH_PLAY_DRAWN
    if (phase == L.PH_PLAY_DRAWN or returns_to_drawn) and state[L.S_DRAWN] >= 0:
        fields.append(f"drawn={cards.format_face(int(state[L.S_DRAWN]), deck)}")
    if state[L.S_PENDING] > 0 or state[L.S_PENDING_SKIP] > 0:
        if state[L.S_PENDING]:
            fields.append(f"pending={int(state[L.S_PENDING])}")
        if state[L.S_PENDING_SKIP]:
            fields.append(f"skip={int(state[L.S_PENDING_SKIP])}")
        fields.append(f"from={int(state[L.S_PENDING_FROM])}")
        top = discard[-1] if discard else 0
        if state[L.S_PENDING_CLASS] != spec[L.F_RANK + top]:
            fields.append(f"class={cards.RANK_TOKENS[deck][int(state[L.S_PENDING_CLASS])]}")
        if bool(state[L.S_CHALLENGEABLE]) != (phase == L.PH_CHALLENGE):
            fields.append(f"challengeable={int(state[L.S_CHALLENGEABLE])}")
    if state[L.S_BLUFF]:  # U-WD4-2: also while the Wild Draw Four's colour is being named
        fields.append("bluff=1")
    if state[L.S_COLOUR_BEFORE] >= 0:
        fields.append(f"before={cards.format_colour(int(state[L.S_COLOUR_BEFORE]), deck)}")
    if phase == L.PH_CHOOSE_COLOUR and state[L.S_AFTER_CHOICE] == L.AC_SAME_PLAYER:
        fields.append("after=start")
    called = [str(s) for s in range(n) if state[L.CALLED + s]]
    if called:
        fields.append(f"called={' '.join(called)}")
    for key, at in (("scores", L.SCORE), ("sitout", L.SITOUT), ("finished", L.FINISHED)):
        values = _seat_values(state, at, n)
        if any(values):
            fields.append(f"{key}={' '.join(map(str, values))}")
    seen = [
        f"{o}>{s}"
        for o in range(n)
        for s in range(n)
        if state[L.SEEN + o * L.MAX_PLAYERS + s]
        and state[L.SEEN + o * L.MAX_PLAYERS + s] == state[L.HAND_VERSION + s] + 1
    ]
    if seen:
        fields.append(f"seen={' '.join(seen)}")
    for key, record in _RECORDS:
        if any(state[record + s] for s in range(n)):
            parts = []
            for s in range(n):
                bits = int(state[record + s])
                faces = [face for face in range(num_faces) if (bits >> face) & 1]
                slack = int(state[record + L.RECORD_SLACK + s])
                parts.append(f"{cards.format_cards(faces, deck)}:{slack}" if faces else "-")
            fields.append(f"{key}={'/'.join(parts)}")
    if state[L.S_JUMP_BLOCK_SEAT] == L.JUMP_BLOCK_START:
        fields.append("jumpblock=start")
    elif state[L.S_JUMP_BLOCK_SEAT] >= 0 and state[L.S_JUMP_BLOCK_COUNT] > 0:
        fields.append(f"jumpblock={int(state[L.S_JUMP_BLOCK_SEAT])}:{int(state[L.S_JUMP_BLOCK_COUNT])}")
    rolled = _seat_values(state, L.CUBE_ROLLED, n)
    if any(rolled):
        fields.append(f"cuberolled={' '.join(map(str, rolled))}")
    if _in_cube(state):  # H-CUBE-1: the roll being resolved
        fields.append(f"cube={int(state[L.S_CUBE_ACTION])}:{int(state[L.S_CUBE_FACE])}")
        if state[L.S_CUBE_AT_UNO]:
            fields.append("cubeuno=1")
        if state[L.S_CUBE_RETURN] != L.PH_PLAY:
            fields.append(f"cubereturn={PHASE_NAMES[int(state[L.S_CUBE_RETURN])]}")
        if state[L.S_CUBE_CHOSEN] >= 0:
            fields.append(f"cubechosen={int(state[L.S_CUBE_CHOSEN])}")
        if state[L.S_CUBE_RETURN] == L.PH_CONTINUE:  # a call in the middle of a play
            fields.extend(_midplay_fields(state, spec, L.PH_CONTINUE))
    elif phase in MIDPLAY_PHASES and not (
        phase == L.PH_CHOOSE_COLOUR and state[L.S_AFTER_CHOICE] == L.AC_SAME_PLAYER
    ):
        fields.extend(_midplay_fields(state, spec, phase))
    counters = (
        ("dealer", L.S_DEALER), ("round", L.S_ROUND), ("decisions", L.S_DECISIONS), ("letgo", L.S_LETGO),
    )  # fmt: skip
    for key, index in counters:
        if state[index]:
            fields.append(f"{key}={int(state[index])}")
    if state[L.S_STATUS] != L.ST_RUNNING:
        fields.append(f"status={STATUS_NAMES[int(state[L.S_STATUS])]}")
        if state[L.S_WINNER] >= 0:
            fields.append(f"winner={int(state[L.S_WINNER])}")
    return "; ".join(fields)


def _midplay_fields(state: np.ndarray, spec: np.ndarray, phase: int) -> list[str]:
    """The mid-play fields ``phase`` uses, where they differ from their defaults."""
    defaults = _midplay_defaults(state, spec, phase)
    return [
        f"{name}={int(state[index])}"
        for name, index in MIDPLAY_FIELDS
        if name in PHASE_FIELDS[phase] and int(state[index]) != defaults[name]
    ]


def _in_cube(state: np.ndarray) -> bool:
    """Whether the decision asked is a choice of the Uno cube's roller (H-CUBE-1)."""
    phase = state[L.S_PHASE]
    return bool(
        (phase == L.PH_CHOOSE_TARGET and state[L.S_TARGET_REASON] == L.TR_CUBE)
        or (phase == L.PH_CHOOSE_COLOUR and state[L.S_AFTER_CHOICE] == L.AC_CUBE)
    )


# integers are ASCII digits (int() also reads other scripts' digits and underscores), at most
# 19 of them: every field is range-checked before it reaches the int64 state
_INTEGER = re.compile(r"[+-]?[0-9]{1,19}")
_LONG_INTEGER = re.compile(r"[+-]?[0-9]{20,}")


def _not_an_integer(field: str, raw: str) -> PositionError:
    """The error for ``raw``, which is not an integer of at most 19 digits: one of more digits
    is named as such ("must be an integer" misled), anything else as not an integer."""
    if _LONG_INTEGER.fullmatch(raw):
        digits = len(raw.lstrip("+-"))
        shown = repr(raw) if len(raw) <= 24 else f"{raw[:24]!r}..."
        return PositionError(
            f"{field}={shown} is an integer of {digits:,} digits; allowed: at most 19 digits "
            "(and the field's range)"
        )
    return PositionError(f"{field}={raw!r} must be an integer")


COUNT_LIMIT = 1 << 48  # counters that only grow by small steps (scores, sit-outs, rounds)

# cards that raise a penalty to answer (H-STACK-1, MC-FOUR-1, MC-DRAW-1)
_PENALTY_EFFECTS = (L.EF_DRAW, L.EF_WILD_DRAW, L.EF_SIT_OUT)

# the word-valued fields: each word and the code it stands for (the printer writes the same words)
PHASE_CODES = {name: phase for phase, name in PHASE_NAMES.items()}
STATUS_CODES = {name: status for status, name in STATUS_NAMES.items()}
DIRECTIONS = {"+": 1, "-": -1}  # E-DIR-1: the printer's two words, nothing else
AFTER_CHOICE = {"start": L.AC_SAME_PLAYER, "play": L.AC_END_TURN}  # phase=colour, not a cube roll
# H-CUBE-1: the phase after the roll (continue: a call in the middle of a multi-card play)
CUBE_RETURN = {"play": L.PH_PLAY, "drawn": L.PH_PLAY_DRAWN, "continue": L.PH_CONTINUE}


MAX_POSITION_LENGTH = 65_536
"""Longest position text parsed (records and users' strings are bounded before any work)."""


class _Fields:
    """The ``key=value`` fields of one position, with one parser per kind of value.

    Each parser reads its notation (integers, seats, per-seat lists, words, cards, colours,
    ``a:b`` pairs) and checks what the notation alone allows; the section parsers below
    check the values against the rule set, the player count and each other. Every error is
    a :class:`PositionError` naming the field and what is allowed.
    """

    def __init__(self, text: str, deck: DeckFamily) -> None:
        if not isinstance(text, str):
            raise TypeError(f"a position is a string of key=value fields, got {type(text).__name__}")
        if len(text) > MAX_POSITION_LENGTH:
            raise PositionError(
                f"position is {len(text):,} characters long; allowed: at most {MAX_POSITION_LENGTH:,} "
                "(every card of the largest game fits in far fewer)"
            )
        self.deck = deck
        # copies of each face in the rule set's deck for this player count (set with the hands)
        self.deck_counts = np.zeros(L.MAX_FACES, dtype=np.int64)
        self.raw: dict[str, str] = {}
        for part in text.split(";"):
            if not part.strip():
                continue
            key, sep, value = part.partition("=")
            key = key.strip().lower()
            if not sep:
                raise PositionError(f"position field {part.strip()!r} is not key=value")
            if key not in REQUIRED and key not in OPTIONAL:
                raise PositionError(
                    f"unknown position field {key!r}{suggestion(key, REQUIRED + OPTIONAL)}; valid fields: "
                    f"{', '.join(REQUIRED + OPTIONAL)}"
                )
            if key in self.raw:
                raise PositionError(f"position field {key!r} appears twice")
            self.raw[key] = value.strip()
        missing = [k for k in REQUIRED if k not in self.raw]
        if missing:
            raise PositionError(
                f"position lacks field(s) {', '.join(missing)}; required: {', '.join(REQUIRED)}"
            )

    def __contains__(self, key: str) -> bool:
        return key in self.raw

    def refuse(self, keys: tuple[str, ...], where: str) -> None:
        """Fields that mean nothing here are an error, not silently dropped."""
        given = [k for k in keys if k in self.raw]
        if given:
            raise PositionError(f"position field(s) {', '.join(given)} {where}")

    def number(self, key: str) -> int:
        """The integer of field ``key`` (which is given), not yet range-checked."""
        raw = self.raw[key]
        if not _INTEGER.fullmatch(raw):
            raise _not_an_integer(f"position field {key}", raw)
        return int(raw)

    def integer(self, key: str, default: int, lo: int, hi: int, why: str = "") -> int:
        """Integer field ``key`` (``default`` when absent), which must lie in ``lo..hi``."""
        if key not in self.raw:
            return default
        value = self.number(key)
        if not lo <= value <= hi:
            raise PositionError(f"position field {key}={value} is outside {lo}..{hi}{why}")
        return value

    def seat(self, key: str, default: int, n: int) -> int:
        """A seat field: ``0..n-1`` (``default`` when absent)."""
        if key not in self.raw:
            return default
        value = self.number(key)
        if not 0 <= value < n:
            raise PositionError(f"position field {key}={value} is not a seat 0..{n - 1}")
        return value

    def seats(self, key: str, n: int) -> list[int]:
        """A list of seats (spaces or commas between them); empty when absent."""
        found = []
        for token in self.raw.get(key, "").replace(",", " ").split():
            if not _INTEGER.fullmatch(token) or not 0 <= int(token) < n:
                raise PositionError(f"position field {key}: {token!r} is not a seat 0..{n - 1}")
            if int(token) in found:
                raise PositionError(
                    f"position field {key}: seat {token} is listed twice (list each seat once)"
                )
            found.append(int(token))
        return found

    def per_seat(self, key: str, n: int, lo: int, hi: int) -> list[int] | None:
        """One integer in ``lo..hi`` per seat, or ``None`` when absent."""
        if key not in self.raw:
            return None
        items = self.raw[key].split()
        long = next((s for s in items if _LONG_INTEGER.fullmatch(s)), None)
        if long is not None:
            raise _not_an_integer(f"position field {key}", long)
        if len(items) != n or not all(_INTEGER.fullmatch(s) for s in items):
            raise PositionError(f"position field {key} needs {n} integers, got {self.raw[key]!r}")
        values = [int(s) for s in items]
        for seat, value in enumerate(values):
            if not lo <= value <= hi:
                raise PositionError(f"position field {key}: seat {seat} has {value}, outside {lo}..{hi}")
        return values

    def word(self, key: str, words: dict[str, int], default: str | None = None) -> int:
        """The code of a word-valued field (``default``'s when absent)."""
        word = self.raw.get(key, default)
        if word not in words:
            raise PositionError(f"position field {key}={word!r}; allowed: {', '.join(words)}")
        return words[word]

    def pairs(self, key: str, sep: str, what: str) -> list[tuple[int, int]]:
        """Integer pairs ``a<sep>b`` separated by spaces; empty when absent."""
        found = []
        for token in self.raw.get(key, "").split():
            left, has_sep, right = token.partition(sep)
            if not has_sep or not _INTEGER.fullmatch(left) or not _INTEGER.fullmatch(right):
                raise PositionError(f"position field {key}: {token!r} must be {what}")
            found.append((int(left), int(right)))
        return found

    def pair(self, key: str, sep: str, what: str) -> tuple[int, int]:
        """One integer pair ``a<sep>b`` (the field is given)."""
        left, has_sep, right = self.raw[key].partition(sep)
        if not has_sep or not _INTEGER.fullmatch(left) or not _INTEGER.fullmatch(right):
            raise PositionError(f"position field {key}={self.raw[key]!r} must be {what}")
        return int(left), int(right)

    def cards(self, key: str) -> list[int]:
        return self._notation(cards.parse_cards, self.raw[key])

    def hands(self) -> list[list[int]]:
        """Each seat's cards: hands separated by ``/``."""
        return [self._notation(cards.parse_cards, hand) for hand in self.raw["hands"].split("/")]

    def face(self, key: str) -> int:
        return self._notation(cards.parse_face, self.raw[key])

    def colour(self, key: str, default: str = "-") -> int:
        """A colour or suit; ``-`` (or nothing) is none: -1."""
        text = self.raw.get(key, default)
        return -1 if text in ("-", "") else self._notation(cards.parse_colour, text)

    def rank(self, key: str) -> int:
        """A rank token of the deck (``D2``, ``WD4``, ``7``, ``A``...), the field given."""
        ranks = cards.RANK_TOKENS[self.deck]
        text = self.raw[key]
        if text.upper() in ranks and text.isascii():
            return ranks.index(text.upper())
        raise PositionError(f"position field {key}={text!r}; allowed ranks: {', '.join(ranks)}")

    def deck_faces(self, spec: np.ndarray) -> list[int]:
        """The faces the rule set's deck holds (after the hands are read)."""
        return [face for face in range(int(spec[L.SP_NUM_FACES])) if self.deck_counts[face] > 0]

    def _notation(self, parse: Callable[[str, DeckFamily], _T], text: str) -> _T:
        try:
            return parse(text, self.deck)
        except cards.CardNotationError as exc:
            raise PositionError(f"position: {exc}") from None


# mid-play integer fields: allowed values (seat fields are checked against the table)
_MIDPLAY_BOUNDS: dict[str, tuple[int, int]] = {
    "stage": (L.STAGE_COLOUR, L.STAGE_PASS),
    "kind": (L.PK_NORMAL, L.PK_STAR),
    "count": (0, L.MAX_CARDS),
    "run": (-1, 1),
    "skips": (0, L.MAX_CARDS),
    "draws": (0, L.PENALTY_LIMIT),
    "sits": (0, L.PENALTY_LIMIT),
    "previous": (0, L.PENALTY_LIMIT),
    "choose": (0, 1),
    "penaltycards": (0, L.MAX_CARDS),
    "carry": (0, L.PENALTY_LIMIT),
    "carryskip": (0, L.PENALTY_LIMIT),
    "reason": (L.TR_SWAP, L.TR_GIVE),  # TR_CUBE comes with the cube field
    "give": (0, 2),  # H-TWO-1 gives two cards
    "scan": (0, L.MAX_PLAYERS - 1),
}
_MIDPLAY_SEATS = ("actor", "target", "resume", "window")


def parse_position(text: str, rules: RuleSet, spec: np.ndarray, seed: int) -> np.ndarray:
    """Build a state from position notation, validated against ``rules`` (compiled: ``spec``).

    Every field is range-checked against the rule set and the player count, fields a phase
    needs are required and fields that mean nothing are refused, and the engine invariants
    must hold; anything else raises :class:`PositionError` naming the field and what is
    allowed. An accepted position prints back (:func:`format_position`) to a line that
    parses to the same state.
    """
    state = _parse_unchecked(text, rules, spec, seed)
    scratch = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    code = engine.check_invariants(state, spec, scratch, True)
    if code != engine.INV_OK:
        raise PositionError(f"position is inconsistent: {engine.INVARIANT_MESSAGES[code]}")
    # the notation must hold everything parsed: a field the printer drops is a parser bug
    again = _parse_unchecked(format_position(state, spec, rules.deck_family), rules, spec, seed)
    differs = np.flatnonzero(again != state)
    if differs.size:
        raise PositionError(
            f"position does not print back to itself (state word {int(differs[0])} differs); "
            "please report it with the position"
        )
    return state


def _parse_unchecked(text: str, rules: RuleSet, spec: np.ndarray, seed: int) -> np.ndarray:
    """The state of a position, one notation section after another (each reads its fields)."""
    f = _Fields(text, rules.deck_family)
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    _read_cards(f, rules, spec, state)
    _read_turn(f, spec, state)
    _read_finished(f, state, spec)
    if "cube" in f:
        _read_cube(f, state, spec)
    else:
        f.refuse(("cubeuno", "cubereturn", "cubechosen"), "belong with cube=<action>:<target>")
    _read_drawn(f, state, spec)
    _read_pending(f, state, spec)
    _read_after(f, state)
    _read_seat_fields(f, state, spec)
    _read_records(f, state, spec)
    _check_bluff(f, state, spec)
    _read_midplay(f, state, spec)
    _read_end(f, state, spec)
    seed_rng(state, L.RNG, seed, 0)
    seed_rng(state, L.AGENT_RNG, seed, 1)
    return state


def _laid_on_its_penalty(
    state: np.ndarray, spec: np.ndarray, pending_class: int, penalty_ranks: list[int]
) -> bool:
    """Whether the top card was laid, in one play of cards of one rank (MC-TURN-1, H-MULTI-2),
    after a penalty card of the pending penalty's rank: the penalty stands under it (Macao's
    King of hearts then King of clubs sends the 5 cards on). The discard pile is read down
    while the rank holds. A pile of the top card alone may have lost the penalty card to a
    reshuffle (U-DRAW-4, MC-RESHUFFLE-1) between the play and the offer of its penalty: the
    previous player's draw of a King of spades laid last, or a missed call's; then a rank
    that has a penalty card (``penalty_ranks``) is enough."""
    if spec[L.SP_MULTI] != engine.MULTI_SAME_RANK:
        return False
    for depth in range(int(state[L.S_NDISCARD]) - 1, -1, -1):
        face = int(state[L.DISCARD_PILE + depth])
        if spec[L.F_RANK + face] != pending_class:
            return False
        if spec[L.F_EFFECT + face] in _PENALTY_EFFECTS:
            return True
    return int(state[L.S_NDISCARD]) == 1 and pending_class in penalty_ranks


def _top(state: np.ndarray) -> int:
    """The top card of the discard pile (0 when the pile is empty)."""
    return int(engine.top_face(state)) if state[L.S_NDISCARD] else 0


def _read_cards(f: _Fields, rules: RuleSet, spec: np.ndarray, state: np.ndarray) -> None:
    """``hands``, ``discard``, ``draw``: the game's cards, no more copies than the deck has."""
    n = len(f.raw["hands"].split("/"))
    if not 2 <= n <= L.MAX_PLAYERS:
        raise PositionError(f"position has {n} hands; a game has 2..{L.MAX_PLAYERS} players")
    if not rules.min_players <= n <= rules.max_players:
        raise PlayerCountError(
            f"position has {n} hands: num_players={n} is outside this variant's range "
            f"{rules.min_players}..{rules.max_players} (min_players, max_players)"
        )
    state[L.S_NPLAYERS] = n
    hands = f.hands()
    discard = f.cards("discard")
    draw = f.cards("draw")
    # the game's universe is the cards it lists (E-CONS-1)
    counts = np.zeros(L.MAX_FACES, dtype=np.int64)
    for face in [face for hand in hands for face in hand] + discard + draw:
        counts[face] += 1
    allowed = rules.deck_counts(n)
    f.deck_counts[: len(allowed)] = allowed
    for face in range(int(spec[L.SP_NUM_FACES])):
        if counts[face] > allowed[face]:
            raise PositionError(
                f"position holds {counts[face]} x {cards.format_face(face, f.deck)} but the deck "
                f"has {allowed[face]}"
            )
    for seat, hand in enumerate(hands):
        for face in hand:
            state[L.HANDS + seat * L.MAX_FACES + face] += 1
        state[L.HAND_SIZE + seat] = len(hand)
    for i, face in enumerate(discard):  # within the deck, so within MAX_CARDS (RuleSet checks)
        state[L.DISCARD_PILE + i] = face
    state[L.S_NDISCARD] = len(discard)
    for i, face in enumerate(reversed(draw)):
        state[L.DRAW_PILE + i] = face
    state[L.S_NDRAW] = len(draw)
    state[L.DECK : L.DECK + L.MAX_FACES] = counts
    for seat in range(n):
        engine.recount_held(state, seat)


# which rule switch makes a phase possible at all
_SLOTS = {f.name: f.metadata["slot"] for f in dataclasses.fields(RuleSet)}
_PHASE_RULES: dict[int, tuple[tuple[int, ...], str]] = {
    int(info.phase): (tuple(_SLOTS[name] for name in info.needs), info.needs_text)
    for info in PHASES.values()
    if info.needs
}
"""Phase code -> the spec slots of the fields one of which it needs, and those in words."""


def _read_turn(f: _Fields, spec: np.ndarray, state: np.ndarray) -> None:
    """``phase``, ``status``, ``seat``, ``dir``, ``colour``: where the game is and who decides."""
    n = int(state[L.S_NPLAYERS])
    phase = f.word("phase", PHASE_CODES)
    state[L.S_PHASE] = phase
    over = phase == L.PH_OVER
    state[L.S_STATUS] = f.word("status", STATUS_CODES, "won" if over else "running")
    if over != (state[L.S_STATUS] != L.ST_RUNNING):
        raise PositionError("phase=over goes with status=won or truncated, and only with them")
    if over:
        seat = f.number("seat")
        if seat != -1:
            raise PositionError(f"position field seat={seat}: a finished game has seat=-1")
    else:
        seat = f.seat("seat", 0, n)
    state[L.S_CURRENT] = seat
    if f.raw["dir"] not in DIRECTIONS:
        raise PositionError(
            f"position field dir={f.raw['dir']!r} must be + or - (clockwise or counter-clockwise, E-DIR-1)"
        )
    state[L.S_DIRECTION] = DIRECTIONS[f.raw["dir"]]
    state[L.S_COLOUR] = f.colour("colour")
    if not over and not state[L.S_NDISCARD]:
        raise PositionError("a position in play needs a discard pile with a top card")
    if not over and phase != L.PH_CHOOSE_COLOUR and state[L.S_COLOUR] < 0:
        raise PositionError("a position in play needs colour=<the active colour>")
    if phase in _PHASE_RULES:
        switches, words = _PHASE_RULES[phase]
        if not any(spec[s] for s in switches):
            raise PositionError(
                f"phase={PHASE_NAMES[phase]} needs the rule {words}, which this rule set does not use"
            )
    if phase == L.PH_CHALLENGE and spec[L.SP_WD4_MODE] != engine.WD4_CHALLENGE:
        raise PositionError("phase=challenge needs wd4_bluff='challenge' (U-WD4-2)")
    for index in (
        L.S_DRAWN, L.S_WINNER, L.S_ROUND_WINNER, L.S_LAST_ACTOR, L.S_LAST_ACTION, L.S_PENDING_FROM,
        L.S_COLOUR_BEFORE, L.S_JUMP_BLOCK_SEAT, L.S_CUBE_CHOSEN, L.S_CUBE_COLOUR,
    ):  # fmt: skip
        state[index] = -1  # none yet


def _read_finished(f: _Fields, state: np.ndarray, spec: np.ndarray) -> None:
    """``finished``: who left the game (MC-END-1), before anything that names a seat in play.

    Players leave one by one (1, 2, ...), empty-handed; two must stay in play.
    """
    n = int(state[L.S_NPLAYERS])
    phase = int(state[L.S_PHASE])
    over = phase == L.PH_OVER
    seat = int(state[L.S_CURRENT])
    finished = f.per_seat("finished", n, 0, n)
    order = sorted(rank for rank in finished or () if rank)
    if finished is not None and order:
        if spec[L.SP_END_RULE] != O.END["last_player"]:
            raise PositionError("position field finished needs end='last_player' (MC-END-1)")
        if order != list(range(1, len(order) + 1)):
            raise PositionError(
                f"position field finished={' '.join(map(str, finished))}: the players who left are "
                "numbered 1, 2, ... in leaving order, each number once"
            )
        if over and state[L.S_STATUS] == L.ST_WON:
            if len(order) != n:
                raise PositionError(
                    "MC-END-1: a won game has every player numbered in finished (the last one last)"
                )
            last = finished.index(n)
        else:
            if len(order) > n - 2:
                raise PositionError(
                    f"position field finished: {len(order)} of {n} players left, but play stops when "
                    "one is left (at most n-2 while it runs)"
                )
            last = -1
        for s, rank in enumerate(finished):
            if rank and s != last and state[L.HAND_SIZE + s]:
                raise PositionError(f"position field finished: seat {s} left the game but holds cards")
        state[L.FINISHED : L.FINISHED + n] = finished
    state[L.S_NFINISHED] = len(order)
    if not over:  # emptying one's hand ends the round (U-END-1) or leaves the game (MC-END-1)
        for s in range(n):
            if not state[L.HAND_SIZE + s] and not state[L.FINISHED + s]:
                raise PositionError(
                    f"seat {s} holds no cards in a game still in play: a player who empties their "
                    "hand has won (phase=over status=won winner=<seat>), or under end='last_player' "
                    "has left the game (finished=)"
                )
    # MC-END-1: a player whose last card asks a choice (a suit, a target) left as it was laid
    # and still makes that choice; anyone else who left is never asked
    choosing = phase in (L.PH_CHOOSE_COLOUR, L.PH_CHOOSE_TARGET, L.PH_GIVE) and not state[L.HAND_SIZE + seat]
    if not over and state[L.FINISHED + seat] and not choosing:
        raise PositionError(f"position field seat={seat}: that player has left the game (finished)")


_CUBE_DICE = "action:target, the action die 0..3 (4 and 5 are blank: no choice) and the target die 0..5"


def _read_cube(f: _Fields, state: np.ndarray, spec: np.ndarray) -> None:
    """``cube`` and its fields (H-CUBE-1): a roll whose roller must now pick a player or a colour."""
    if not spec[L.SP_CUBE]:
        raise PositionError("position field cube needs the rule cube (H-CUBE-1)")
    action, face = f.pair("cube", ":", _CUBE_DICE)
    if not 0 <= action <= L.CUBE_DISCARD or not 0 <= face <= 5:
        raise PositionError(f"position field cube={f.raw['cube']!r} must be {_CUBE_DICE}")
    n = int(state[L.S_NPLAYERS])
    phase = int(state[L.S_PHASE])
    roller = int(state[L.S_CURRENT])
    chosen_face = face in (L.CUBE_CHOSEN, L.CUBE_CHOSEN_COLOUR)
    names_colour = face >= L.CUBE_YOU_COLOUR or action == L.CUBE_DISCARD
    cube = f.raw["cube"]
    if phase == L.PH_CHOOSE_TARGET:
        if not chosen_face:
            raise PositionError(f"cube={cube}: only target faces 0 and 5 ask for a player")
        f.refuse(("cubechosen",), "is the player being chosen: not set yet in phase=target")
        state[L.S_TARGET_REASON] = L.TR_CUBE
    elif phase == L.PH_CHOOSE_COLOUR:
        if not names_colour:
            raise PositionError(f"cube={cube}: this roll names no colour")
        if chosen_face:
            if "cubechosen" not in f:
                raise PositionError(f"cube={cube}: the player was chosen first: cubechosen=<seat>")
            chosen = f.seat("cubechosen", -1, n)
            if chosen == roller or state[L.FINISHED + chosen]:
                raise PositionError(f"cubechosen={chosen} must be another player still in the game")
            state[L.S_CUBE_CHOSEN] = chosen
        else:
            f.refuse(("cubechosen",), f"means nothing with the target face {face}")
        state[L.S_AFTER_CHOICE] = L.AC_CUBE
    else:
        raise PositionError("position field cube belongs to phases target and colour")
    state[L.S_CUBE_ACTION] = action
    state[L.S_CUBE_FACE] = face
    state[L.S_CUBE_ROLLER] = roller
    state[L.S_CUBE_AT_UNO] = f.integer("cubeuno", 0, 0, 1)
    state[L.S_CUBE_RETURN] = f.word("cubereturn", CUBE_RETURN, "play")
    if state[L.S_CUBE_RETURN] == L.PH_CONTINUE:
        switches, words = _PHASE_RULES[L.PH_CONTINUE]
        if not any(spec[s] for s in switches):
            raise PositionError(
                f"cubereturn=continue returns to phase=continue, which needs the rule {words}, "
                "which this rule set does not use"
            )
        if not state[L.S_CUBE_AT_UNO]:
            raise PositionError(
                "cubereturn=continue needs cubeuno=1: in the middle of a play only an UNO call rolls "
                "(the roll at ten cards comes at the start of a turn)"
            )


def _read_drawn(f: _Fields, state: np.ndarray, spec: np.ndarray) -> None:
    """``drawn``: the card just drawn, in phase ``drawn`` (or a cube roll that returns to it)."""
    seat = int(state[L.S_CURRENT])
    if state[L.S_PHASE] == L.PH_PLAY_DRAWN or (_in_cube(state) and state[L.S_CUBE_RETURN] == L.PH_PLAY_DRAWN):
        if spec[L.SP_DRAW_RULE] == engine.DRAW_ONE_THEN_PASS:
            raise PositionError(
                "phase=drawn: under draw='one_then_pass' the turn ends with the card drawn (MD-DRAW-1), "
                "so nothing is ever asked after a draw; allowed: phase=play (the next player's turn)"
            )
        state[L.S_DREW] = 1
        if "drawn" in f:
            drawn = f.face("drawn")
            if engine.count_in_hand(state, seat, drawn) == 0:
                raise PositionError(f"drawn={f.raw['drawn']} is not in the hand of seat {seat}")
            state[L.S_DRAWN] = drawn
            if state[L.S_PHASE] == L.PH_PLAY_DRAWN:
                _check_drawn_playable(f, state, spec, drawn)
        elif spec[L.SP_DRAW_RULE] != engine.DRAW_ONE_THEN_ANY:  # MM-DRAW-1 plays any card after drawing
            raise PositionError("phase=drawn needs drawn=<card>, the card just drawn")
    else:
        f.refuse(("drawn",), "belongs to phase=drawn (the card just drawn)")


def _check_drawn_playable(f: _Fields, state: np.ndarray, spec: np.ndarray, drawn: int) -> None:
    """U-DRAW-1 / U-DRAW-2: a drawn card that cannot be played ends the turn (``draw="one"``) or
    the drawing goes on (``"until_playable"``), so phase ``drawn`` holds a playable one. Where
    play can leave one that does not fit, it is accepted: MM-DRAW-1 (``"one_then_any"``) asks
    after any card; H-CUBE-1's roll on a call may change the colour or the hand; and under
    MM-CALL-1 a false call's penalty may bring a card of the colour that makes a drawn Wild Draw
    Four illegal where bluffs are refused (U-WD4-1, U-WD4-2)."""
    seat = int(state[L.S_CURRENT])
    if (int(engine.playable_set(state, spec, seat)) >> drawn) & 1:
        return
    if spec[L.SP_DRAW_RULE] == engine.DRAW_ONE_THEN_ANY or spec[L.SP_CUBE] == 1:
        return
    refused = spec[L.SP_WD4_MODE] == engine.WD4_REFUSED and spec[L.F_EFFECT + drawn] == L.EF_WILD_DRAW
    if refused and spec[L.SP_CALL_RULE] == engine.CALL_MAU_MAU:
        return
    draw_word = "until_playable" if spec[L.SP_DRAW_RULE] == engine.DRAW_UNTIL_PLAYABLE else "one"
    ends = "the drawing goes on (U-DRAW-2)" if draw_word == "until_playable" else "the turn ends (U-DRAW-1)"
    top = cards.format_face(_top(state), f.deck)
    colour = cards.format_colour(int(state[L.S_COLOUR]), f.deck)
    raise PositionError(
        f"position field drawn={f.raw['drawn']}: seat {seat} cannot play it on {top} (colour {colour}), "
        f"and under draw='{draw_word}' a drawn card that cannot be played is not asked about: {ends}; "
        f"allowed: a drawn card seat {seat} can play, or phase=play for the turn that follows"
    )


def _read_pending(f: _Fields, state: np.ndarray, spec: np.ndarray) -> None:
    """A pending penalty and the Wild Draw Four's challenge record (U-WD4-2, H-STACK-1):
    ``pending``, ``skip``, ``from``, ``class``, ``challengeable``, ``bluff``, ``before``."""
    n = int(state[L.S_NPLAYERS])
    phase = int(state[L.S_PHASE])
    state[L.S_PENDING] = f.integer("pending", 0, 0, L.PENALTY_LIMIT)
    state[L.S_PENDING_SKIP] = f.integer("skip", 0, 0, L.PENALTY_LIMIT)
    if state[L.S_PENDING_SKIP] and not _sit_out_faces(f, spec):
        raise PositionError(
            f"position field skip={int(state[L.S_PENDING_SKIP])}: turns to sit out are sent by a card "
            "that makes the next player sit out (MC-FOUR-1); this rule set's deck has none, so skip=0"
        )
    pending = bool(state[L.S_PENDING] or state[L.S_PENDING_SKIP])
    name = PHASE_NAMES[phase]
    if phase in (L.PH_CHALLENGE, L.PH_ANSWER) and not pending:
        raise PositionError(f"phase={name} needs pending=<cards> (or skip=<turns>), the penalty to answer")
    if phase == L.PH_CHALLENGE and not state[L.S_PENDING]:
        raise PositionError("phase=challenge needs pending=<cards>, the Wild Draw Four's draw")
    if pending:
        # answered (challenge, answer), being answered by a play (colour, continue), or left
        # when the game ended
        in_play = _in_cube(state) and state[L.S_CUBE_RETURN] == L.PH_CONTINUE  # H-CUBE-1
        if not in_play and phase not in (
            L.PH_CHALLENGE, L.PH_ANSWER, L.PH_CHOOSE_COLOUR, L.PH_CONTINUE, L.PH_OVER
        ):  # fmt: skip
            raise PositionError(
                f"a pending penalty (pending, skip) is answered in phases challenge and answer (or by "
                f"a play in colour, continue, or a cube roll returning to it), not in phase={name}"
            )
        before_current = engine.wrap_seat(int(state[L.S_CURRENT] - state[L.S_DIRECTION]), n)
        state[L.S_PENDING_FROM] = f.seat("from", before_current, n)
        state[L.S_PENDING_CLASS] = f.rank("class") if "class" in f else spec[L.F_RANK + _top(state)]
        challengeable = f.integer("challengeable", int(phase == L.PH_CHALLENGE), 0, 1)
        if challengeable != (phase == L.PH_CHALLENGE) and phase in (L.PH_CHALLENGE, L.PH_ANSWER):
            raise PositionError(f"challengeable={challengeable}: phase=challenge is the challengeable one")
        if challengeable and spec[L.SP_WD4_MODE] != engine.WD4_CHALLENGE:
            raise PositionError("challengeable=1 needs wd4_bluff='challenge' (U-WD4-2)")
        state[L.S_CHALLENGEABLE] = challengeable
        if phase in (L.PH_CHALLENGE, L.PH_ANSWER):
            _check_penalty_source(f, state, spec)
    else:
        f.refuse(("from", "class", "challengeable"), "belong with a pending penalty (pending, skip)")
    state[L.S_BLUFF] = f.integer("bluff", 0, 0, 1)
    state[L.S_COLOUR_BEFORE] = f.colour("before")
    if state[L.S_BLUFF] and state[L.S_COLOUR_BEFORE] < 0:  # a caught bluff restores that colour
        raise PositionError("bluff=1 needs before=<the active colour before the Wild Draw Four> (U-WD4-2)")
    top = _top(state)
    if state[L.S_COLOUR_BEFORE] >= 0 and spec[L.F_EFFECT + top] != L.EF_WILD_DRAW:
        # laying a Wild Draw Four records it; the next play or the penalty's end clears it
        raise PositionError(
            f"position field before={f.raw['before']}: the colour before a Wild Draw Four is kept only "
            f"while it is the top card (U-WD4-2), and the top card is {cards.format_face(top, f.deck)}"
        )


def _check_bluff(f: _Fields, state: np.ndarray, spec: np.ndarray) -> None:
    """U-WD4-1 / U-WD4-2: in phase ``challenge`` ``bluff`` must fit the hand of the Wild Draw
    Four's player (``from``). It has only gained cards since it laid it (its ``hint`` counts
    them; without one, none), so a legal one (``bluff=0``: it held no card of the colour
    before, ``before``) leaves it at most that many such cards, as the proof a failed challenge
    records needs, and a bluff (``bluff=1``) leaves it at least one."""
    if state[L.S_PHASE] != L.PH_CHALLENGE or state[L.S_COLOUR_BEFORE] < 0:
        return
    sender = int(state[L.S_PENDING_FROM])
    as_laid = state.copy()  # the colour before it and the card under it, as when it was laid
    as_laid[L.S_COLOUR] = state[L.S_COLOUR_BEFORE]
    if as_laid[L.S_NDISCARD] >= 2:
        as_laid[L.S_NDISCARD] -= 1
    lacked = int(engine.wild_draw_proof(as_laid, spec))
    before = cards.format_colour(int(state[L.S_COLOUR_BEFORE]), f.deck)
    held = [
        face
        for face in range(int(spec[L.SP_NUM_FACES]))
        if (lacked >> face) & 1
        for _ in range(int(engine.count_in_hand(state, sender, face)))
    ]
    if state[L.S_BLUFF]:
        # with wd4_legal_when="no_playable_card" (or "no_playable_number_card") the card it was
        # laid on decides a match too:
        # judged only while that card is the one under it (a reshuffle, U-DRAW-4, may have taken
        # it since, and under a Wild Draw Four may lie another laid in the same play, H-MULTI-1)
        under = int(state[L.DISCARD_PILE + state[L.S_NDISCARD] - 2]) if state[L.S_NDISCARD] >= 2 else -1
        known = under >= 0 and (int(spec[L.WILD_DRAW_FACES]) >> under) & 1 == 0
        if not held and (known or spec[L.SP_WD4_LEGAL_WHEN] == engine.WD4_NO_MATCHING_COLOUR):
            raise PositionError(
                f"position field bluff=1: seat {sender} holds no card that would have made its Wild "
                f"Draw Four illegal on {before} (U-WD4-1), and it only gained cards since it laid it; "
                "allowed: bluff=0 (a legal one), or a hand that holds such a card"
            )
        return
    hint = int(state[L.HINT_FACES + sender])
    slack = int(state[L.HINT_SLACK + sender]) if hint else 0
    faces = hint & lacked if hint else lacked
    kept = [face for face in held if (faces >> face) & 1]
    if slack >= 0 and len(kept) > slack:
        raise PositionError(
            f"position field bluff=0 (the default: a legal Wild Draw Four): seat {sender} holds "
            f"{cards.format_cards(kept, f.deck)}, which would have made it illegal on {before} "
            f"(U-WD4-1), and its hint counts {slack} card(s) gained since it laid it; allowed: bluff=1 "
            "(a bluff), or hint=<those faces>:<the cards gained since> for cards it drew after it"
        )


def _sit_out_faces(f: _Fields, spec: np.ndarray) -> list[int]:
    """The faces of the deck that make the next player sit out turns (MC-FOUR-1)."""
    return [face for face in f.deck_faces(spec) if spec[L.F_EFFECT + face] == L.EF_SIT_OUT]


def _seats_text(seats: list[int]) -> str:
    return ", ".join(map(str, seats)) if seats else "none"


def _check_penalty_source(f: _Fields, state: np.ndarray, spec: np.ndarray) -> None:
    """A penalty being answered (phases ``challenge`` and ``answer``) was raised by the top card
    and sent by the player next to the seat to move, as play can leave it.

    U-WD4-2: only a Wild Draw Four just played is challenged, by the player after its player.
    H-STACK-1, MM-SEVEN-1, MD-SEVEN-1, MC-FOUR-1, MC-DRAW-1: a penalty card on top raised a
    penalty of its own rank, sent by the player before the victim; H-REFLECT-1 (a Reverse) and
    M-STAR-1 (a Super Star) on top sent a draw penalty back to its sender, a neighbour of the
    seat to move either side. The penalty is offered for an answer only when the rules allow
    one (else the victim takes it at once, and no position asks).
    """
    n = int(state[L.S_NPLAYERS])
    seat = int(state[L.S_CURRENT])
    name = PHASE_NAMES[int(state[L.S_PHASE])]
    deck = f.deck
    top = _top(state)
    top_text = cards.format_face(top, deck)
    effect = int(spec[L.F_EFFECT + top])
    pending_class = int(state[L.S_PENDING_CLASS])
    ranks = cards.RANK_TOKENS[deck]
    allowed = f.deck_faces(spec)
    penalty_ranks = sorted(
        {int(spec[L.F_RANK + face]) for face in allowed if spec[L.F_EFFECT + face] in _PENALTY_EFFECTS}
    )
    draw_ranks = sorted(
        {
            int(spec[L.F_RANK + face])
            for face in allowed
            if spec[L.F_EFFECT + face] in (L.EF_DRAW, L.EF_WILD_DRAW)
        }
    )
    reflects = effect == L.EF_REVERSE and spec[L.SP_REVERSE_REFLECTS] == 1
    sent_back = state[L.S_PENDING] > 0 and (reflects or effect == L.EF_STAR)
    if name == "challenge" and effect != L.EF_WILD_DRAW:
        raise PositionError(
            f"phase=challenge: the top card is {top_text}; a challenge answers a Wild Draw Four just "
            "played, so the top card must be WD4 (U-WD4-2)"
        )
    if effect in _PENALTY_EFFECTS:
        if pending_class != spec[L.F_RANK + top]:
            raise PositionError(
                f"position field class={ranks[pending_class]}: the penalty was raised by the top card "
                f"{top_text}, so its class is {ranks[int(spec[L.F_RANK + top])]}"
            )
        # the top card's own penalty is in the total (stacking only adds to it)
        key, index = ("skip", L.S_PENDING_SKIP) if effect == L.EF_SIT_OUT else ("pending", L.S_PENDING)
        amount = int(spec[L.F_AMOUNT + top])
        least = min(amount, L.PENALTY_LIMIT)
        if spec[L.SP_STACK_DOUBLE] == 1 and effect != L.EF_SIT_OUT:
            # MD-SEVEN-1 (stack_growth="double"): a draw card laid on another doubles the total
            # instead of adding its own amount, so on a smaller one (Macao's black joker on a 2:
            # 4, not 5) it leaves less than it sends alone: at least twice the smallest draw
            smallest = min(
                int(spec[L.F_AMOUNT + face])
                for face in allowed
                if spec[L.F_EFFECT + face] in (L.EF_DRAW, L.EF_WILD_DRAW)
            )
            least = min(least, 2 * smallest)
        if state[index] < least:
            raise PositionError(
                f"position field {key}={int(state[index])}: the top card {top_text} alone sends {amount}; "
                f"allowed: {least}..{L.PENALTY_LIMIT}"
            )
    elif _laid_on_its_penalty(state, spec, pending_class, penalty_ranks):
        pass  # MC-TURN-1, H-MULTI-2: laid in the same play after the penalty card of its rank
    elif sent_back:
        if pending_class not in draw_ranks:
            raise PositionError(
                f"position field class={ranks[pending_class]}: the top card {top_text} sent back a draw "
                f"penalty; allowed classes: {', '.join(ranks[r] for r in draw_ranks) or 'none'}"
            )
    else:
        why = "a draw penalty (pending=<cards>)" if effect in (L.EF_REVERSE, L.EF_STAR) else "a penalty"
        raise PositionError(
            f"phase={name}: the top card {top_text} sends no penalty to answer; the top must be a "
            f"penalty card ({', '.join(ranks[r] for r in penalty_ranks) or 'none in this deck'})"
            + (f", or a card that sent back {why}" if effect in (L.EF_REVERSE, L.EF_STAR) else "")
        )
    answerable = spec[L.STACKABLE + pending_class] == 1 or (
        state[L.S_PENDING] > 0 and (spec[L.SP_REVERSE_REFLECTS] == 1 or spec[L.SP_HAS_STAR] == 1)
    )
    if name == "answer" and not answerable:
        raise PositionError(
            f"phase=answer: this rule set allows no answer to a {ranks[pending_class]} penalty (no card "
            "stacks on it, H-STACK-1); its victim takes it at once, so no position asks"
        )
    sender = int(state[L.S_PENDING_FROM])
    before = [s for s in range(n) if s != seat and engine.next_seat(state, s, 1) == seat]
    after = [int(engine.next_seat(state, seat, 1))] if sent_back else []
    if sender not in before + after:
        who = "the player before" + (" or after" if after else "")
        raise PositionError(
            f"position field from={sender}: the penalty's sender is {who} seat={seat} in the direction "
            f"of play; allowed: {_seats_text(sorted(set(before + after)))}"
        )


def _read_after(f: _Fields, state: np.ndarray) -> None:
    """``after=start``: a starting wild whose chooser then plays (phase ``colour``)."""
    if state[L.S_PHASE] == L.PH_CHOOSE_COLOUR and "cube" not in f:
        state[L.S_AFTER_CHOICE] = f.word("after", AFTER_CHOICE, "play")
    else:
        f.refuse(("after",), "belongs to phase=colour (not during a cube roll)")


_SEEN = "observer>seat, two different seats"


_RECORDS = (("void", L.VOID_FACES), ("hint", L.HINT_FACES))
"""The position fields of the engine's records of what plays showed about hands."""
_RECORD_TEXT = "'-' or the faces and the count, like 'G0 G1 W:1'"


def _absent_faces_text(f: _Fields, spec: np.ndarray) -> str:
    """The faces of the deck family this rule set's deck leaves out (the jokers of a French
    deck, MC-OPT-1: an Uno rule set's records may name every face, see ``rules.set_faces``)."""
    in_deck = int(spec[L.SET_FACES])
    missing = [face for face in range(int(spec[L.SP_NUM_FACES])) if not (in_deck >> face) & 1]
    return f"this deck has no {cards.format_cards(missing, f.deck)}: they come with jokers=true, MC-OPT-1"


def _read_records(f: _Fields, state: np.ndarray, spec: np.ndarray) -> None:
    """``void`` and ``hint``: per seat the faces a play showed it held no card of, and the
    cards gained since less those of the faces laid since (the slack). A proven record's
    slack is never negative, and the hand holds at most that many of its faces; a hint's may
    be (a bluff showed)."""
    n = int(state[L.S_NPLAYERS])
    for key, record in _RECORDS:
        if key not in f:
            continue
        parts = f.raw[key].split("/")
        if len(parts) != n:
            raise PositionError(
                f"position field {key} needs {n} seats separated by '/', got {len(parts)}; each seat: "
                f"{_RECORD_TEXT}"
            )
        for seat, part in enumerate(parts):
            part = part.strip()
            if part in ("", "-"):
                continue
            faces_text, has_sep, slack_text = part.rpartition(":")
            if not has_sep or not _INTEGER.fullmatch(slack_text.strip()) or not faces_text.strip():
                raise PositionError(
                    f"position field {key}: seat {seat} has {part!r}; allowed: {_RECORD_TEXT}"
                )
            slack = int(slack_text)
            low = 0 if key == "void" else -COUNT_LIMIT
            if not low <= slack <= COUNT_LIMIT:
                raise PositionError(
                    f"position field {key}: seat {seat}'s count {slack} is outside {low}..{COUNT_LIMIT}"
                )
            faces = f._notation(cards.parse_cards, faces_text)
            if len(set(faces)) != len(faces):
                raise PositionError(f"position field {key}: seat {seat} lists a face twice ({faces_text!r})")
            absent = [face for face in faces if not (int(spec[L.SET_FACES]) >> face) & 1]
            if absent:
                raise PositionError(
                    f"position field {key}: seat {seat} lists {cards.format_cards(absent, f.deck)}, not in "
                    f"this rule set's deck; allowed: faces the deck holds ({_absent_faces_text(f, spec)})"
                )
            bits = 0
            for face in faces:
                bits |= 1 << face
            held = sum(int(state[L.HANDS + seat * L.MAX_FACES + face]) for face in faces)
            if key == "void" and held > slack:
                raise PositionError(
                    f"position field void: seat {seat} holds {held} card(s) of the faces it is proven to "
                    f"lack, more than its count {slack}"
                )
            state[record + seat] = bits
            state[record + L.RECORD_SLACK + seat] = slack


def _option_name(table: Mapping[str, int], code: int) -> str:
    """The word of an option code (``O.START_CARD``, ...)."""
    return next(word for word, value in table.items() if value == code)


def _read_seat_fields(f: _Fields, state: np.ndarray, spec: np.ndarray) -> None:
    """Calls, scores, sit-outs, looks at hands, the jump-in block, cube rolls: per seat."""
    n = int(state[L.S_NPLAYERS])
    over = state[L.S_PHASE] == L.PH_OVER
    for s in f.seats("called", n):
        if spec[L.SP_CALL_RULE] == engine.CALL_NONE:
            raise PositionError("position field called: this rule set has no call (call='none')")
        if state[L.FINISHED + s]:
            raise PositionError(f"position field called: seat {s} has left the game")
        held = int(state[L.HAND_SIZE + s])
        if held != 1 and not (held == 2 and s == state[L.S_CURRENT]):
            raise PositionError(
                f"position field called: seat {s} holds {held} cards; a standing UNO call (U-UNO-1) "
                "belongs to a player with one card left, or to the player to move with two (called "
                "before laying the second-to-last card)"
            )
        state[L.CALLED + s] = 1
    scores = f.per_seat("scores", n, 0, COUNT_LIMIT)
    if scores is not None:
        if not over and spec[L.SP_MATCH] != engine.MATCH_SINGLE_ROUND and max(scores) >= spec[L.SP_TARGET]:
            raise PositionError(
                f"position field scores: a match still running has every score below its target "
                f"{int(spec[L.SP_TARGET])}"
            )
        state[L.SCORE : L.SCORE + n] = scores
    sitout = f.per_seat("sitout", n, 0, COUNT_LIMIT)
    if sitout is not None and any(sitout) and not (_sit_out_faces(f, spec) or spec[L.SP_CUBE]):
        raise PositionError(
            "position field sitout: turns to sit out come from a card that makes the next player sit "
            "out (MC-FOUR-1) or the cube's skip (H-CUBE-1); this rule set has neither, so all are 0"
        )
    if sitout is not None:
        for s in range(n):
            if sitout[s] and state[L.FINISHED + s]:
                raise PositionError(f"position field sitout: seat {s} has left the game")
        state[L.SITOUT : L.SITOUT + n] = sitout
    for observer, seen in f.pairs("seen", ">", f"{_SEEN} 0..{n - 1}"):
        if not 0 <= observer < n or not 0 <= seen < n or observer == seen:
            raise PositionError(f"position field seen: '{observer}>{seen}' must be {_SEEN} 0..{n - 1}")
        state[L.SEEN + observer * L.MAX_PLAYERS + seen] = 1  # hand versions start at 0
    if f.raw.get("jumpblock") == "start":
        # H-SCOPE-1: the top card is the starting card, laid as the first player's discard
        if not spec[L.SP_JUMP_IN]:
            raise PositionError("position field jumpblock needs the rule jump_in (H-JUMP-1)")
        if spec[L.SP_START] != O.START_CARD["first_discard"] or state[L.S_NDISCARD] != 1:
            raise PositionError(
                "position field jumpblock=start (no jump-in on the starting card, H-SCOPE-1) needs "
                "start_card='first_discard' (MM-START-1) and the starting card alone on the discard "
                f"pile; got start_card={_option_name(O.START_CARD, spec[L.SP_START])!r} and a discard "
                f"pile of {int(state[L.S_NDISCARD])}"
            )
        state[L.S_JUMP_BLOCK_SEAT] = L.JUMP_BLOCK_START
    elif "jumpblock" in f:
        blocked, count = f.pair("jumpblock", ":", "seat:count")
        if not spec[L.SP_JUMP_IN]:
            raise PositionError("position field jumpblock needs the rule jump_in (H-JUMP-1)")
        if not 0 <= blocked < n or not 1 <= count <= L.MAX_CARDS:
            raise PositionError(
                f"position field jumpblock={f.raw['jumpblock']}: a seat 0..{n - 1} and the copies of "
                f"the top card it drew as the penalty, 1..{L.MAX_CARDS}"
            )
        top = int(state[L.DISCARD_PILE + state[L.S_NDISCARD] - 1]) if state[L.S_NDISCARD] else -1
        held = int(state[L.HANDS + blocked * L.MAX_FACES + top]) if top >= 0 else 0
        if count > held:
            raise PositionError(
                f"position field jumpblock={f.raw['jumpblock']}: seat {blocked} holds {held} "
                f"{'copy' if held == 1 else 'copies'} of the top card, so it cannot have drawn {count} "
                "of them as the penalty (the copies drawn stay in its hand)"
            )
        state[L.S_JUMP_BLOCK_SEAT] = blocked
        state[L.S_JUMP_BLOCK_COUNT] = count
    rolled = f.per_seat("cuberolled", n, 0, 1)
    if rolled is not None:
        if any(rolled) and not spec[L.SP_CUBE]:
            raise PositionError("position field cuberolled needs the rule cube (H-CUBE-1)")
        state[L.CUBE_ROLLED : L.CUBE_ROLLED + n] = rolled


def _read_midplay(f: _Fields, state: np.ndarray, spec: np.ndarray) -> None:
    """The fields of a play being resolved (or of an out-of-turn window), checked per phase."""
    midplay = tuple(name for name, _ in MIDPLAY_FIELDS)
    phase = int(state[L.S_PHASE])
    reason = int(state[L.S_TARGET_REASON])
    if "cube" in f and state[L.S_CUBE_RETURN] == L.PH_CONTINUE:
        phase = L.PH_CONTINUE  # H-CUBE-1: a call in the middle of a play; the play's fields
    elif "cube" in f:
        f.refuse(midplay, "do not go with a cube roll (unless it returns to cubereturn=continue)")
        return
    elif phase not in MIDPLAY_PHASES or state[L.S_AFTER_CHOICE] == L.AC_SAME_PLAYER:
        f.refuse(
            midplay,
            "belong to phases in the middle of a play (colour, continue, target, give, jump, block)",
        )
        return
    n = int(state[L.S_NPLAYERS])
    seat = int(state[L.S_CURRENT])
    top = _top(state)
    name = PHASE_NAMES[phase]
    unused = [field for field in midplay if field in f and field not in PHASE_FIELDS[phase]]
    if unused:
        raise PositionError(f"position fields {', '.join(unused)} are not used in phase={name}")
    for field, index in MIDPLAY_FIELDS:
        if field in _MIDPLAY_SEATS:
            state[index] = f.seat(field, -1, n)
        else:
            lo, hi = _MIDPLAY_BOUNDS[field]
            state[index] = f.integer(field, 0, lo, hi)
    if phase == L.PH_CHOOSE_TARGET and "reason" not in f and spec[L.SP_TWO_GIVES] == 1:
        if spec[L.F_RANK + top] == 2 and spec[L.F_IS_NUMBER + top] == 1:  # H-TWO-1: a 2 gives
            state[L.S_TARGET_REASON] = L.TR_GIVE
    defaults = _midplay_defaults(state, spec, phase)
    for field, index in MIDPLAY_FIELDS:
        if field not in f:
            state[index] = defaults[field]
    if "cube" in f:
        state[L.S_TARGET_REASON] = reason  # the roll's own choice (read with the cube field)
    if "kind" in PHASE_FIELDS[phase]:
        _check_answer_play(state, name)
    if phase in (L.PH_JUMP_IN, L.PH_BLOCK):
        _check_window(f, state, spec)
    elif state[L.S_ACTOR] != seat:
        raise PositionError(
            f"actor={int(state[L.S_ACTOR])}: in phase={name} the player making the play decides"
        )
    elif phase == L.PH_CHOOSE_TARGET:
        reason = int(state[L.S_TARGET_REASON])
        held = int(state[L.HAND_SIZE + seat])
        swaps = spec[L.SP_SEVEN_SWAP] or spec[L.SP_ZERO_RULE] in (engine.ZERO_SWAP_OPTIONAL, engine.ZERO_SWAP)
        if reason == L.TR_GIVE and not spec[L.SP_TWO_GIVES]:
            raise PositionError("reason=1 (give) needs the rule two_gives (H-TWO-1)")
        if reason == L.TR_SWAP and not swaps:
            raise PositionError("reason=0 (swap) needs seven_swap or zero_rule='swap' / 'swap_optional'")
        give = int(state[L.S_GIVE_LEFT])
        most = min(2, held - int(spec[L.SP_LEAVE_ONE]))  # H-LASTONE-1: the gifts leave one card
        if reason == L.TR_GIVE and not 1 <= give <= most:
            raise PositionError(_give_error(give, most, spec))
        if reason == L.TR_SWAP and give:
            raise PositionError("position field give belongs to reason=1 (give)")
    elif phase == L.PH_GIVE:  # H-TWO-1: a card to the chosen player
        if "target" not in f:
            raise PositionError("phase=give needs target=<seat receiving the cards>")
        target = int(state[L.S_TARGET])
        if target == seat or state[L.FINISHED + target]:
            raise PositionError(f"target={target} must be another player still in the game")
        give = int(state[L.S_GIVE_LEFT])
        most = min(2, int(state[L.HAND_SIZE + seat]) - 1) if spec[L.SP_LEAVE_ONE] else 2
        if not 1 <= give <= most:
            raise PositionError(_give_error(give, most, spec))
        if state[L.S_TARGET_REASON] != L.TR_GIVE:
            raise PositionError("phase=give goes with reason=1 (give)")


def _give_error(give: int, most: int, spec: np.ndarray) -> str:
    """The message for a ``give`` outside ``1..most`` (H-TWO-1, H-LASTONE-1)."""
    if not spec[L.SP_LEAVE_ONE]:
        return f"give={give}: cards still to give, 1..{most} (H-TWO-1)"
    if most < 1:
        return (
            f"give={give}: with multi_leave_one the 2's gifts leave one card in hand (H-LASTONE-1), "
            "so a hand of one card gives none (H-TWO-1)"
        )
    return (
        f"give={give}: cards still to give, 1..{most}: with multi_leave_one the gifts leave one card "
        "(H-LASTONE-1)"
    )


def _check_answer_play(state: np.ndarray, name: str) -> None:
    """A penalty pending in the middle of a play is the one that play answers (H-STACK-1,
    MC-DRAW-1, MC-FOUR-1, H-REFLECT-1, M-STAR-1): the play's ``kind`` is an answer exactly when
    ``pending``/``skip`` is set, and it carries that whole penalty on (``carry``, ``carryskip``),
    as play leaves it; a normal play carries nothing. Else the penalty written would be lost or
    made up when the play ends."""
    kind = int(state[L.S_PLAY_KIND])
    pending = (int(state[L.S_PENDING]), int(state[L.S_PENDING_SKIP]))
    carried = (int(state[L.S_CARRY_DRAW]), int(state[L.S_CARRY_SIT]))
    if kind == L.PK_NORMAL and pending != (0, 0):
        raise PositionError(
            f"phase={name} with pending={pending[0]} skip={pending[1]}: a penalty pending in the middle "
            "of a play is the one the play answers; allowed: kind=1 (a stacked penalty card), 2 (a "
            "Reverse sending it back) or 3 (a Super Star), with carry=<pending> and carryskip=<skip>"
        )
    if kind != L.PK_NORMAL and pending == (0, 0):
        raise PositionError(
            f"kind={kind}: a play answering a penalty needs the penalty it answers (pending=<cards> "
            "or skip=<turns>); allowed without one: kind=0"
        )
    if carried != pending:  # both (0, 0) for a normal play, by the checks above
        raise PositionError(
            f"carry={carried[0]} carryskip={carried[1]}: a play carries on the whole penalty it "
            f"answers and a normal play none, so here carry={pending[0]} carryskip={pending[1]} "
            "(the pending and skip fields)"
        )


def _check_window(f: _Fields, state: np.ndarray, spec: np.ndarray) -> None:
    """H-JUMP-1, H-ZEROSEE-1: an out-of-turn window (phases ``jump`` and ``block``)."""
    n = int(state[L.S_NPLAYERS])
    seat = int(state[L.S_CURRENT])
    top = _top(state)
    jump = state[L.S_PHASE] == L.PH_JUMP_IN
    name = PHASE_NAMES[int(state[L.S_PHASE])]
    for field in ("window", "scan") + (("resume",) if jump else ()):
        if field not in f:
            raise PositionError(
                f"phase={name} needs window=<seat that opened it>, scan=<k>"
                + (" and resume=<seat that plays next>" if jump else "")
            )
    window, scan = int(state[L.S_WINDOW_FROM]), int(state[L.S_WINDOW_SCAN])
    if not 1 <= scan < n or engine.wrap_seat(int(window + state[L.S_DIRECTION] * scan), n) != seat:
        raise PositionError(
            f"scan={scan}: the seat asked is the one scan places from window={window} in the "
            f"direction of play, and that must be seat={seat}"
        )
    if jump:
        resume = int(state[L.S_RESUME])
        if state[L.FINISHED + resume]:
            raise PositionError(f"resume={resume} has left the game")
        if state[L.S_JUMP_BLOCK_SEAT] == L.JUMP_BLOCK_START:
            raise PositionError(
                "phase=jump with jumpblock=start: nobody jumps in on the starting card (H-SCOPE-1)"
            )
        copies = int(engine.count_in_hand(state, seat, top))
        if seat == state[L.S_JUMP_BLOCK_SEAT]:
            copies -= int(state[L.S_JUMP_BLOCK_COUNT])
        if copies < 1:
            raise PositionError(f"phase=jump: seat {seat} must hold another copy of the top card")
        return
    actor = int(state[L.S_ACTOR])
    if actor == seat or state[L.FINISHED + actor]:
        raise PositionError(f"actor={actor}: the player whose 0 opened the window, not seat={seat}")
    zeros = [
        face
        for face in range(int(spec[L.SP_NUM_FACES]))
        if engine.count_in_hand(state, seat, face)
        and spec[L.F_IS_NUMBER + face]
        and spec[L.F_RANK + face] == 0
    ]
    if not zeros:
        raise PositionError(f"phase=block: seat {seat} must hold a 0 to block with")


def _read_end(f: _Fields, state: np.ndarray, spec: np.ndarray) -> None:
    """``winner`` and the counters ``decisions`` (``letgo`` of them let-go answers), ``dealer``,
    ``round``."""
    n = int(state[L.S_NPLAYERS])
    over = state[L.S_PHASE] == L.PH_OVER
    if state[L.S_STATUS] == L.ST_WON:  # U-SCORE-1: the last round's points are the hands left
        for s in range(n):
            state[L.ROUND_POINTS + s] = engine.hand_points(state, spec, s)
        if "winner" not in f:
            raise PositionError("status=won needs winner=<seat>")
        state[L.S_WINNER] = f.seat("winner", -1, n)
        if spec[L.SP_END_RULE] == O.END["last_player"] and state[L.FINISHED + state[L.S_WINNER]] != 1:
            raise PositionError("MC-END-1: the winner is the first player who left (finished=1)")
    else:
        f.refuse(("winner",), "belongs to status=won")
    max_decisions = int(spec[L.SP_MAX_DECISIONS])
    limit = max_decisions if over else max_decisions - 1
    state[L.S_DECISIONS] = f.integer("decisions", 0, 0, limit, " (the rule set's max_decisions)")
    state[L.S_LETGO] = f.integer("letgo", 0, 0, int(state[L.S_DECISIONS]), " (the position's decisions)")
    state[L.S_DEALER] = f.seat("dealer", 0, n)
    state[L.S_ROUND] = f.integer("round", 0, 0, COUNT_LIMIT)
