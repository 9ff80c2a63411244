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
  player or a colour), ``cubeuno=1``, ``cubereturn=drawn``, ``cubechosen=2``, and per seat
  ``cuberolled=0 1 0`` (rolled at 10 cards since last holding fewer);

- ``drawn=R3``: the card just drawn (phase ``drawn``);
- a pending penalty: ``pending=4`` cards and/or ``skip=2`` turns to sit out, ``from=1`` its
  sender, ``class=WD4`` the rank that raised it (for the stack table), ``challengeable=1``,
  ``bluff=1`` and ``before=B`` (a Wild Draw Four's legality and the colour before it);
- ``after=start``: a starting wild whose chooser then plays;
- per seat: ``called=0 2`` (standing UNO calls), ``scores=0 120 0 0``, ``sitout=0 2 0``
  (turns to sit out, MC-FOUR-1), ``finished=0 1 0`` (leaving order, MC-END-1),
  ``seen=0>1 0>2`` (observer>seat: hands seen and unchanged since, H-ZEROSEE-1);
- ``jumpblock=2:1``: seat 2 drew one copy of the top card as its penalty (H-JUMP-1);
- in the middle of a play (phases ``colour``, ``continue``, ``target``, ``give``,
  ``jump``, ``block``): ``actor``, ``stage``, ``kind``, ``count``, ``run``, ``skips``,
  ``draws``, ``sits``, ``previous``, ``choose``, ``penaltycards``, ``carry``,
  ``carryskip``, ``reason``, ``target``, ``give``, ``resume``, ``window``, ``scan``; their
  defaults describe a play of just the top card by the seat to move;
- ``dealer=3``, ``round=1``, ``decisions=17``, ``status=won|truncated``, ``winner=2``.

Cards not listed anywhere are out of the game: a position's own cards are what E-CONS-1
conserves, so scenario tests can name only the cards that matter.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import cards, engine
from . import layout as L
from .cards import DeckFamily
from .rng import seed_rng

PHASE_NAMES = {
    L.PH_PLAY: "play",
    L.PH_CHOOSE_COLOUR: "colour",
    L.PH_PLAY_DRAWN: "drawn",
    L.PH_CHALLENGE: "challenge",
    L.PH_OVER: "over",
    L.PH_ANSWER: "answer",
    L.PH_CONTINUE: "continue",
    L.PH_CHOOSE_TARGET: "target",
    L.PH_GIVE: "give",
    L.PH_JUMP_IN: "jump",
    L.PH_BLOCK: "block",
}
MIDPLAY_PHASES = (L.PH_CHOOSE_COLOUR, L.PH_CONTINUE, L.PH_CHOOSE_TARGET, L.PH_GIVE, L.PH_JUMP_IN, L.PH_BLOCK)
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
    "decisions", "winner", "status", "cube", "cubeuno", "cubereturn", "cubechosen", "cubecolour",
    "cuberolled", *(name for name, _ in MIDPLAY_FIELDS),
)  # fmt: skip


class PositionError(ValueError):
    """A position string that does not describe a legal situation of the rule set."""


def _hand_faces(state: np.ndarray, seat: int, num_faces: int) -> list[int]:
    faces: list[int] = []
    for face in range(num_faces):
        faces.extend([face] * int(state[L.HANDS + seat * L.MAX_FACES + face]))
    return faces


def _midplay_defaults(state: np.ndarray, spec: np.ndarray) -> dict[str, int]:
    """Defaults of the mid-play fields: a play of just the top card by the seat to move."""
    phase = int(state[L.S_PHASE])
    seat = int(state[L.S_CURRENT])
    top = int(state[L.DISCARD_PILE + state[L.S_NDISCARD] - 1]) if state[L.S_NDISCARD] else 0
    effect = int(spec[L.F_EFFECT + top])
    amount = int(spec[L.F_AMOUNT + top])
    stage = {
        L.PH_CHOOSE_COLOUR: L.STAGE_HOUSE,
        L.PH_CHOOSE_TARGET: L.STAGE_REACT,
        L.PH_GIVE: L.STAGE_REACT,
        L.PH_BLOCK: L.STAGE_PASS,
    }.get(phase, L.STAGE_COLOUR)
    penalty = effect in (L.EF_DRAW, L.EF_WILD_DRAW, L.EF_SIT_OUT)
    return {
        "actor": seat,
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
        "reason": L.TR_SWAP,
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
    if phase == L.PH_PLAY_DRAWN and state[L.S_DRAWN] >= 0:
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
    if state[L.S_JUMP_BLOCK_SEAT] >= 0 and state[L.S_JUMP_BLOCK_COUNT] > 0:
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
    elif phase in MIDPLAY_PHASES and not (
        phase == L.PH_CHOOSE_COLOUR and state[L.S_AFTER_CHOICE] == L.AC_SAME_PLAYER
    ):
        defaults = _midplay_defaults(state, spec)
        for name, index in MIDPLAY_FIELDS:
            if name in PHASE_FIELDS[phase] and int(state[index]) != defaults[name]:
                fields.append(f"{name}={int(state[index])}")
    for key, index in (("dealer", L.S_DEALER), ("round", L.S_ROUND), ("decisions", L.S_DECISIONS)):
        if state[index]:
            fields.append(f"{key}={int(state[index])}")
    if state[L.S_STATUS] != L.ST_RUNNING:
        fields.append(f"status={STATUS_NAMES[int(state[L.S_STATUS])]}")
        if state[L.S_WINNER] >= 0:
            fields.append(f"winner={int(state[L.S_WINNER])}")
    return "; ".join(fields)


def _in_cube(state: np.ndarray) -> bool:
    """Whether the decision asked is a choice of the Uno cube's roller (H-CUBE-1)."""
    phase = state[L.S_PHASE]
    return bool(
        (phase == L.PH_CHOOSE_TARGET and state[L.S_TARGET_REASON] == L.TR_CUBE)
        or (phase == L.PH_CHOOSE_COLOUR and state[L.S_AFTER_CHOICE] == L.AC_CUBE)
    )


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


def _per_seat(values: dict[str, str], key: str, n: int) -> list[int] | None:
    if key not in values:
        return None
    items = values[key].split()
    if len(items) != n or not all(s.lstrip("-").isdigit() for s in items):
        raise PositionError(f"position field {key} needs {n} integers, got {values[key]!r}")
    return [int(s) for s in items]


def parse_position(
    text: str,
    deck: DeckFamily,
    spec: np.ndarray,
    full_deck: Callable[[int], np.ndarray],
    seed: int,
) -> np.ndarray:
    """Build a state from position notation; ``full_deck(n)`` gives the allowed copies per face."""
    values = _split_fields(text)
    num_faces = int(spec[L.SP_NUM_FACES])
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
    for seat in range(n):
        engine.recount_held(state, seat)

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
    top = discard[-1] if discard else 0
    if phase == L.PH_PLAY_DRAWN:
        state[L.S_DREW] = 1
        if "drawn" in values:
            drawn = _parse_face(values["drawn"], deck)
            if state[L.HANDS + state[L.S_CURRENT] * L.MAX_FACES + drawn] == 0:
                raise PositionError(
                    f"drawn={values['drawn']} is not in the hand of seat {state[L.S_CURRENT]}"
                )
            state[L.S_DRAWN] = drawn
        elif spec[L.SP_DRAW_RULE] != 2:  # MM-DRAW-1 plays any card after drawing
            raise PositionError("phase=drawn needs drawn=<card>, the card just drawn")

    # pending penalty
    state[L.S_PENDING] = _int_field(values, "pending", 0)
    state[L.S_PENDING_SKIP] = _int_field(values, "skip", 0)
    state[L.S_PENDING_FROM] = -1
    state[L.S_COLOUR_BEFORE] = -1
    if phase in (L.PH_CHALLENGE, L.PH_ANSWER) and not (state[L.S_PENDING] or state[L.S_PENDING_SKIP]):
        raise PositionError(
            f"phase={values['phase']} needs pending=<cards> (or skip=<turns>), the penalty to answer"
        )
    if state[L.S_PENDING] or state[L.S_PENDING_SKIP]:
        default_from = (state[L.S_CURRENT] - state[L.S_DIRECTION]) % n
        state[L.S_PENDING_FROM] = _int_field(values, "from", default_from)
        ranks = cards.RANK_TOKENS[deck]
        klass = values.get("class")
        if klass is None:
            state[L.S_PENDING_CLASS] = spec[L.F_RANK + top]
        elif klass.upper() in ranks:
            state[L.S_PENDING_CLASS] = ranks.index(klass.upper())
        else:
            raise PositionError(f"position field class={klass!r}; allowed ranks: {', '.join(ranks)}")
        state[L.S_CHALLENGEABLE] = _int_field(values, "challengeable", int(phase == L.PH_CHALLENGE))
    state[L.S_BLUFF] = _int_field(values, "bluff", 0)
    before = values.get("before", "-")
    state[L.S_COLOUR_BEFORE] = -1 if before == "-" else _parse_colour(before, deck)

    if phase == L.PH_CHOOSE_COLOUR:
        after = values.get("after", "play")
        if after not in ("start", "play"):
            raise PositionError(f"position field after={after!r}; allowed: start, play")
        state[L.S_AFTER_CHOICE] = L.AC_SAME_PLAYER if after == "start" else L.AC_END_TURN
    elif phase != L.PH_OVER and state[L.S_COLOUR] < 0:
        raise PositionError("a position in play needs colour=<the active colour>")

    for seat in _seat_list(values.get("called", ""), n, "called"):
        state[L.CALLED + seat] = 1
    for key, at in (("scores", L.SCORE), ("sitout", L.SITOUT), ("finished", L.FINISHED)):
        per_seat = _per_seat(values, key, n)
        if per_seat is not None:
            state[at : at + n] = per_seat
    state[L.S_NFINISHED] = int(np.count_nonzero(state[L.FINISHED : L.FINISHED + n]))
    for pair in values.get("seen", "").split():
        observer, sep, seat_text = pair.partition(">")
        if (
            not sep
            or not observer.isdigit()
            or not seat_text.isdigit()
            or max(int(observer), int(seat_text)) >= n
        ):
            raise PositionError(f"position field seen: {pair!r} must be observer>seat with seats 0..{n - 1}")
        state[L.SEEN + int(observer) * L.MAX_PLAYERS + int(seat_text)] = 1  # hand versions start at 0
    state[L.S_JUMP_BLOCK_SEAT] = -1
    if "jumpblock" in values:
        seat_text, sep, count_text = values["jumpblock"].partition(":")
        if not sep or not seat_text.isdigit() or not count_text.isdigit() or int(seat_text) >= n:
            raise PositionError(f"position field jumpblock={values['jumpblock']!r} must be seat:count")
        state[L.S_JUMP_BLOCK_SEAT] = int(seat_text)
        state[L.S_JUMP_BLOCK_COUNT] = int(count_text)

    per_seat = _per_seat(values, "cuberolled", n)
    if per_seat is not None:
        state[L.CUBE_ROLLED : L.CUBE_ROLLED + n] = per_seat
    state[L.S_CUBE_CHOSEN] = -1
    state[L.S_CUBE_COLOUR] = -1
    if "cube" in values:  # H-CUBE-1: a roll awaiting the roller's choice
        action_text, sep, face_text = values["cube"].partition(":")
        if (
            not sep
            or not action_text.isdigit()
            or not face_text.isdigit()
            or max(int(action_text), int(face_text)) > 5
        ):
            raise PositionError(
                f"position field cube={values['cube']!r} must be action:target, each die 0..5"
            )
        if phase not in (L.PH_CHOOSE_TARGET, L.PH_CHOOSE_COLOUR):
            raise PositionError("position field cube belongs to phases target and colour")
        state[L.S_CUBE_ACTION] = int(action_text)
        state[L.S_CUBE_FACE] = int(face_text)
        state[L.S_CUBE_ROLLER] = state[L.S_CURRENT]
        state[L.S_CUBE_AT_UNO] = _int_field(values, "cubeuno", 0)
        back = values.get("cubereturn", "play")
        phase_names = {v: k for k, v in PHASE_NAMES.items()}
        if back not in ("play", "drawn"):
            raise PositionError(f"position field cubereturn={back!r}; allowed: play, drawn")
        state[L.S_CUBE_RETURN] = phase_names[back]
        state[L.S_CUBE_CHOSEN] = _int_field(values, "cubechosen", -1)
        if phase == L.PH_CHOOSE_TARGET:
            state[L.S_TARGET_REASON] = L.TR_CUBE
        else:
            state[L.S_AFTER_CHOICE] = L.AC_CUBE
    elif phase in MIDPLAY_PHASES and state[L.S_AFTER_CHOICE] != L.AC_SAME_PLAYER:
        defaults = _midplay_defaults(state, spec)
        unused = [name for name, _ in MIDPLAY_FIELDS if name in values and name not in PHASE_FIELDS[phase]]
        if unused:
            raise PositionError(
                f"position fields {', '.join(unused)} are not used in phase={values['phase']}"
            )
        for name, index in MIDPLAY_FIELDS:
            state[index] = _int_field(values, name, defaults[name])
        if phase == L.PH_CHOOSE_TARGET and "reason" not in values and spec[L.SP_TWO_GIVES] == 1:
            if spec[L.F_RANK + top] == 2 and spec[L.F_IS_NUMBER + top] == 1:
                state[L.S_TARGET_REASON] = L.TR_GIVE
        if phase in (L.PH_JUMP_IN, L.PH_BLOCK) and "window" not in values:
            raise PositionError(f"phase={values['phase']} needs window=<seat that opened it> and scan=<k>")
    else:
        extra = [name for name, _ in MIDPLAY_FIELDS if name in values]
        if extra:
            raise PositionError(
                f"position fields {', '.join(extra)} belong to phases in the middle of a play"
            )
    if state[L.S_STATUS] == L.ST_WON:  # the last round's points are the hands left
        for seat in range(n):
            state[L.ROUND_POINTS + seat] = sum(
                int(state[L.HANDS + seat * L.MAX_FACES + f]) * int(spec[L.F_POINTS + f])
                for f in range(num_faces)
            )
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
