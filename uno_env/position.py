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
    ``play``, ``colour``, ``drawn``, ``challenge`` or ``over``.

Optional fields, printed only when they differ from their default: ``drawn=R3`` (the card
just drawn, phase ``drawn``), ``pending=4`` / ``from=1`` / ``bluff=1`` / ``before=B`` (a
Wild Draw Four awaiting its victim's answer), ``after=start`` (a starting wild whose chooser
then plays), ``called=0 2`` (seats whose UNO call stands), ``scores=0 120 0 0``,
``dealer=3``, ``round=1``, ``decisions=17``, ``winner=2`` and ``status=won|truncated``.

Cards not listed anywhere are out of the game: a position's own cards are what E-CONS-1
conserves, so scenario tests can name only the cards that matter.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import cards
from . import layout as L
from .cards import DeckFamily
from .rng import seed_rng

PHASE_NAMES = {
    L.PH_PLAY: "play",
    L.PH_CHOOSE_COLOUR: "colour",
    L.PH_PLAY_DRAWN: "drawn",
    L.PH_CHALLENGE: "challenge",
    L.PH_OVER: "over",
}
AFTER_NAMES = {L.AC_END_TURN: "end_turn", L.AC_SAME_PLAYER: "start", L.AC_WILD_DRAW: "wild_draw"}
STATUS_NAMES = {L.ST_RUNNING: "running", L.ST_WON: "won", L.ST_TRUNCATED: "truncated"}
REQUIRED = ("hands", "discard", "draw", "colour", "seat", "dir", "phase")
OPTIONAL = (
    "drawn", "pending", "from", "bluff", "before", "after", "called", "scores",
    "dealer", "round", "decisions", "winner", "status",
)  # fmt: skip


class PositionError(ValueError):
    """A position string that does not describe a legal situation of the rule set."""


def _hand_faces(state: np.ndarray, seat: int, num_faces: int) -> list[int]:
    faces: list[int] = []
    for face in range(num_faces):
        faces.extend([face] * int(state[L.HANDS + seat * L.MAX_FACES + face]))
    return faces


def format_position(state: np.ndarray, num_faces: int, deck: DeckFamily) -> str:
    """The one-line notation of a game state."""
    n = int(state[L.S_NPLAYERS])
    hands = "/".join(
        cards.format_cards(_hand_faces(state, s, num_faces), deck).replace("-", "") for s in range(n)
    )
    discard = [int(x) for x in state[L.DISCARD_PILE : L.DISCARD_PILE + state[L.S_NDISCARD]]]
    draw = [int(x) for x in state[L.DRAW_PILE : L.DRAW_PILE + state[L.S_NDRAW]]][::-1]
    fields = [
        f"hands={hands}",
        f"discard={cards.format_cards(discard, deck)}",
        f"draw={cards.format_cards(draw, deck)}",
        f"colour={cards.format_colour(int(state[L.S_COLOUR]), deck)}",
        f"seat={int(state[L.S_CURRENT])}",
        f"dir={'+' if state[L.S_DIRECTION] > 0 else '-'}",
        f"phase={PHASE_NAMES[int(state[L.S_PHASE])]}",
    ]
    phase = int(state[L.S_PHASE])
    if phase == L.PH_PLAY_DRAWN:
        fields.append(f"drawn={cards.format_face(int(state[L.S_DRAWN]), deck)}")
    if state[L.S_PENDING] > 0:
        fields.append(f"pending={int(state[L.S_PENDING])}")
        fields.append(f"from={int(state[L.S_PENDING_FROM])}")
        if state[L.S_BLUFF]:
            fields.append("bluff=1")
        fields.append(f"before={cards.format_colour(int(state[L.S_COLOUR_BEFORE]), deck)}")
    if phase == L.PH_CHOOSE_COLOUR and state[L.S_AFTER_CHOICE] == L.AC_SAME_PLAYER:
        fields.append("after=start")
    called = [str(s) for s in range(n) if state[L.CALLED + s]]
    if called:
        fields.append(f"called={' '.join(called)}")
    scores = [int(x) for x in state[L.SCORE : L.SCORE + n]]
    if any(scores):
        fields.append(f"scores={' '.join(map(str, scores))}")
    for key, index in (("dealer", L.S_DEALER), ("round", L.S_ROUND), ("decisions", L.S_DECISIONS)):
        if state[index]:
            fields.append(f"{key}={int(state[index])}")
    if state[L.S_STATUS] != L.ST_RUNNING:
        fields.append(f"status={STATUS_NAMES[int(state[L.S_STATUS])]}")
        if state[L.S_WINNER] >= 0:
            fields.append(f"winner={int(state[L.S_WINNER])}")
    return "; ".join(fields)


def _split_fields(text: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for part in text.split(";"):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip().lower()
        if not sep:
            raise PositionError(f"position field {part.strip()!r} is not key=value")
        if key not in REQUIRED and key not in OPTIONAL:
            raise PositionError(
                f"unknown position field {key!r}; valid fields: {', '.join(REQUIRED + OPTIONAL)}"
            )
        if key in values:
            raise PositionError(f"position field {key!r} appears twice")
        values[key] = value.strip()
    missing = [k for k in REQUIRED if k not in values]
    if missing:
        raise PositionError(f"position lacks field(s) {', '.join(missing)}; required: {', '.join(REQUIRED)}")
    return values


def _int_field(values: dict[str, str], key: str, default: int) -> int:
    raw = values.get(key)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise PositionError(f"position field {key}={raw!r} must be an integer") from None


def _seat_list(raw: str, n: int, key: str) -> list[int]:
    seats = []
    for token in raw.replace(",", " ").split():
        if not token.lstrip("-").isdigit() or not 0 <= int(token) < n:
            raise PositionError(f"position field {key}: {token!r} is not a seat 0..{n - 1}")
        seats.append(int(token))
    return seats


def parse_position(
    text: str, deck: DeckFamily, num_faces: int, full_deck: Callable[[int], np.ndarray], seed: int
) -> np.ndarray:
    """Build a state from position notation; ``full_deck(n)`` gives the allowed copies per face."""
    values = _split_fields(text)
    hand_texts = values["hands"].split("/")
    n = len(hand_texts)
    if not 2 <= n <= L.MAX_PLAYERS:
        raise PositionError(f"position has {n} hands; a game has 2..{L.MAX_PLAYERS} players")
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    state[L.S_NPLAYERS] = n
    try:
        for seat, hand_text in enumerate(hand_texts):
            for face in cards.parse_cards(hand_text, deck):
                state[L.HANDS + seat * L.MAX_FACES + face] += 1
                state[L.HAND_SIZE + seat] += 1
        discard = cards.parse_cards(values["discard"], deck)
        draw = cards.parse_cards(values["draw"], deck)
    except cards.CardNotationError as exc:
        raise PositionError(f"position: {exc}") from None
    if len(discard) + len(draw) > L.MAX_CARDS:
        raise PositionError(f"position has more than {L.MAX_CARDS} cards in its piles")
    for i, face in enumerate(discard):
        state[L.DISCARD_PILE + i] = face
    state[L.S_NDISCARD] = len(discard)
    for i, face in enumerate(reversed(draw)):
        state[L.DRAW_PILE + i] = face
    state[L.S_NDRAW] = len(draw)
    # the game's universe is the cards it lists (E-CONS-1); no more copies than the deck has
    counts = np.zeros(L.MAX_FACES, dtype=np.int64)
    for seat in range(n):
        counts += state[L.HANDS + seat * L.MAX_FACES : L.HANDS + (seat + 1) * L.MAX_FACES]
    for face in discard + draw:
        counts[face] += 1
    allowed = full_deck(n)
    for face in range(num_faces):
        if counts[face] > allowed[face]:
            raise PositionError(
                f"position holds {counts[face]} x {cards.format_face(face, deck)} but the deck "
                f"has {allowed[face]}"
            )
    state[L.DECK : L.DECK + L.MAX_FACES] = counts

    colour = values["colour"]
    state[L.S_COLOUR] = -1 if colour in ("-", "") else _parse_colour(colour, deck)
    state[L.S_CURRENT] = _int_field(values, "seat", 0)
    direction = values["dir"]
    if direction not in ("+", "-", "+1", "-1"):
        raise PositionError(f"position field dir={direction!r} must be + or -")
    state[L.S_DIRECTION] = 1 if direction.startswith("+") else -1
    phase_names = {v: k for k, v in PHASE_NAMES.items()}
    if values["phase"] not in phase_names:
        raise PositionError(f"position field phase={values['phase']!r}; allowed: {', '.join(phase_names)}")
    phase = phase_names[values["phase"]]
    state[L.S_PHASE] = phase
    state[L.S_DRAWN] = -1
    state[L.S_PENDING_FROM] = -1
    state[L.S_COLOUR_BEFORE] = -1
    state[L.S_WINNER] = _int_field(values, "winner", -1)
    state[L.S_ROUND_WINNER] = -1
    state[L.S_LAST_ACTOR] = -1
    state[L.S_LAST_ACTION] = -1
    status_names = {v: k for k, v in STATUS_NAMES.items()}
    status = values.get("status", "won" if phase == L.PH_OVER else "running")
    if status not in status_names:
        raise PositionError(f"position field status={status!r}; allowed: {', '.join(status_names)}")
    state[L.S_STATUS] = status_names[status]
    if (phase == L.PH_OVER) != (state[L.S_STATUS] != L.ST_RUNNING):
        raise PositionError("phase=over goes with status=won or truncated, and only with them")
    if phase == L.PH_OVER:
        state[L.S_CURRENT] = -1
    elif not 0 <= state[L.S_CURRENT] < n:
        raise PositionError(f"position field seat={state[L.S_CURRENT]} is not a seat 0..{n - 1}")
    if phase != L.PH_OVER and not discard:
        raise PositionError("a position in play needs a discard pile with a top card")
    if phase == L.PH_PLAY_DRAWN:
        if "drawn" not in values:
            raise PositionError("phase=drawn needs drawn=<card>, the card just drawn")
        drawn = _parse_face(values["drawn"], deck)
        if state[L.HANDS + state[L.S_CURRENT] * L.MAX_FACES + drawn] == 0:
            raise PositionError(f"drawn={values['drawn']} is not in the hand of seat {state[L.S_CURRENT]}")
        state[L.S_DRAWN] = drawn
    if phase == L.PH_CHALLENGE:
        if "pending" not in values:
            raise PositionError("phase=challenge needs pending=<cards>, the Wild Draw Four's penalty")
        state[L.S_PENDING] = _int_field(values, "pending", 0)
        default_from = (state[L.S_CURRENT] - state[L.S_DIRECTION]) % n
        state[L.S_PENDING_FROM] = _int_field(values, "from", default_from)
        state[L.S_BLUFF] = _int_field(values, "bluff", 0)
        before = values.get("before", "-")
        state[L.S_COLOUR_BEFORE] = -1 if before == "-" else _parse_colour(before, deck)
    if phase == L.PH_CHOOSE_COLOUR:
        after = values.get("after")
        if after is None:
            wild_draw = bool(discard) and discard[-1] == cards.WILD_DRAW_FOUR and deck == "uno"
            state[L.S_AFTER_CHOICE] = L.AC_WILD_DRAW if wild_draw else L.AC_END_TURN
        else:
            after_names = {v: k for k, v in AFTER_NAMES.items()}
            if after not in after_names:
                raise PositionError(f"position field after={after!r}; allowed: {', '.join(after_names)}")
            state[L.S_AFTER_CHOICE] = after_names[after]
    elif phase != L.PH_OVER and state[L.S_COLOUR] < 0:
        raise PositionError("a position in play needs colour=<the active colour>")
    for seat in _seat_list(values.get("called", ""), n, "called"):
        state[L.CALLED + seat] = 1
    if "scores" in values:
        scores = values["scores"].split()
        if len(scores) != n or not all(s.lstrip("-").isdigit() for s in scores):
            raise PositionError(f"position field scores needs {n} integers, got {values['scores']!r}")
        state[L.SCORE : L.SCORE + n] = [int(s) for s in scores]
    state[L.S_DEALER] = _int_field(values, "dealer", 0)
    state[L.S_ROUND] = _int_field(values, "round", 0)
    state[L.S_DECISIONS] = _int_field(values, "decisions", 0)
    seed_rng(state, L.RNG, seed, 0)
    seed_rng(state, L.AGENT_RNG, seed, 1)
    return state


def _parse_colour(text: str, deck: DeckFamily) -> int:
    try:
        return cards.parse_colour(text, deck)
    except cards.CardNotationError as exc:
        raise PositionError(f"position: {exc}") from None


def _parse_face(text: str, deck: DeckFamily) -> int:
    try:
        return cards.parse_face(text, deck)
    except cards.CardNotationError as exc:
        raise PositionError(f"position: {exc}") from None
