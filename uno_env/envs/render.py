"""Rendering of a table: text for ``"ansi"``/``"human"`` and a picture for ``"rgb_array"``.

:func:`render_table` draws a game state as a small text table: who is to move and the
decision asked, the top card, active colour/suit, direction and piles, then one line per
seat with hand size, UNO call, last action and (for the seats shown) cards; with
``colour=True`` card tokens carry ANSI colours (the terminal game, ``uno-env play``).

:func:`render_rgb` draws the same table as an ``H x W x 3`` uint8 picture with Pillow
(imported on first use): the discard top as a coloured card with its symbol, the active
colour/suit, the shown seat's hand face up, every other seat as a card back with its hand
count, call and last action, the direction arrow, a pending penalty and the draw pile.
Uno cards are red/yellow/green/blue with their rank or symbol (``S`` skip, ``R`` reverse,
``+2``, wilds black with the four colours); French cards are white with the suit drawn
as a shape (clubs, diamonds, hearts, spades) and the rank.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..engine import actions, cards
from ..engine import layout as L
from ..engine.cards import DeckFamily
from ..engine.phases import PHASES, Phase
from ..game.position import PHASE_NAMES
from ..styles.public import HIDDEN, hand_seen

# ------------------------------------------------------------------ ANSI colours (text)
_ANSI_RESET = "\x1b[0m"
_ANSI_UNO = ("\x1b[1;91m", "\x1b[1;93m", "\x1b[1;92m", "\x1b[1;94m")  # R Y G B
_ANSI_WILD = "\x1b[1;95m"
_ANSI_FRENCH = ("\x1b[1m", "\x1b[1;91m", "\x1b[1;91m", "\x1b[1m")  # C D H S: black, red, red, black
_ANSI_RED_JOKER = "\x1b[1;91m"


def ansi(text: str, code: str, colour: bool = True) -> str:
    """``text`` wrapped in the ANSI ``code`` (unchanged when ``colour`` is False)."""
    return f"{code}{text}{_ANSI_RESET}" if colour and code else text


def colour_code(colour: int, deck: DeckFamily) -> str:
    """The ANSI code of a colour/suit index (empty for none)."""
    if not 0 <= colour < 4:
        return ""
    return (_ANSI_UNO if deck == "uno" else _ANSI_FRENCH)[colour]


def face_code(face: int, deck: DeckFamily) -> str:
    """The ANSI code a card face is printed in."""
    if face < 52:
        return colour_code(face // 13, deck)
    if deck == "uno":
        return _ANSI_WILD
    return _ANSI_RED_JOKER if face == cards.RED_JOKER else "\x1b[1m"


def paint_face(face: int, deck: DeckFamily, colour: bool = True) -> str:
    """A card's notation, coloured when ``colour``."""
    return ansi(cards.format_face(face, deck), face_code(face, deck), colour)


def paint_action(action: int, deck: DeckFamily, colour: bool = True) -> str:
    """An action's notation; cards and named colours/suits coloured when ``colour``."""
    text = actions.format_action(action, deck)
    nf = cards.NUM_FACES[deck]
    if action < nf:
        return ansi(text, face_code(action, deck), colour)
    if action < nf + L.NUM_COLOURS:
        return ansi(text, colour_code(action - nf, deck), colour)
    return text


HIDDEN_ACTION_TEXT = "gave"
"""How a decision whose content the viewer may not see is shown (a card given between two other
seats, H-TWO-1: :data:`uno_env.styles.public.HIDDEN`)."""


def last_action_text(action: int, deck: DeckFamily, colour: bool = False) -> str:
    """:func:`paint_action`, or :data:`HIDDEN_ACTION_TEXT` for a hidden decision."""
    return HIDDEN_ACTION_TEXT if action == HIDDEN else paint_action(action, deck, colour)


PHASE_TASKS = {int(info.phase): info.task for info in PHASES.values() if info.phase != Phase.OVER}
"""What the player to move is asked in each phase, for the header line of a table."""


def turn_text(state: np.ndarray, deck: DeckFamily) -> str:
    """``seat 2 to play or draw``, ``seat 0 to play or keep the drawn card``, or how the game ended."""
    status = int(state[L.S_STATUS])
    if status == L.ST_WON:
        return f"over: seat {int(state[L.S_WINNER])} won"
    if status == L.ST_TRUNCATED:
        return "over: decision limit reached (truncated)"
    phase = int(state[L.S_PHASE])
    task = PHASE_TASKS.get(phase, PHASE_NAMES.get(phase, "?")).format(
        colour="colour" if deck == "uno" else "suit"
    )
    return f"seat {int(state[L.S_CURRENT])} to {task}"


def _pad(plain: str, shown: str, width: int) -> str:
    """``shown`` (``plain`` with colour codes) left-aligned in ``width`` visible columns."""
    return shown + " " * max(0, width - len(plain))


def seat_and_seen(state: np.ndarray, seat: int) -> list[int]:
    """``seat`` and the seats whose hands it has looked at and still knows (no card gained unseen
    since, H-ZEROSEE-1): the hands a seat's table shows face up."""
    return [seat, *(s for s in range(int(state[L.S_NPLAYERS])) if s != seat and hand_seen(state, seat, s))]


def render_table(
    state: np.ndarray,
    deck: DeckFamily,
    num_faces: int,
    shown_seats: Sequence[int] | None,
    last_actions: Sequence[int | None] | None = None,
    title: str = "",
    colour: bool = False,
    call_word: str = "UNO",
) -> str:
    """The table as text; ``shown_seats`` lists whose cards to show (None: every hand).

    ``call_word`` is what a standing call shows in the call column (``RuleSet.call_name``:
    "UNO", "Macao", "Mau-Mau"). The scores line appears once a round has been scored.

    ``last_actions`` gives each seat's last action id (None: not yet); without it only the
    game's most recent decision is shown. ``colour`` prints card tokens with ANSI colours.
    """
    n = int(state[L.S_NPLAYERS])
    status = int(state[L.S_STATUS])
    current = int(state[L.S_CURRENT])
    ndiscard = int(state[L.S_NDISCARD])
    top = paint_face(int(state[L.DISCARD_PILE + ndiscard - 1]), deck, colour) if ndiscard else "-"
    head = title + " · " if title else ""
    turn = turn_text(state, deck)
    active = int(state[L.S_COLOUR])
    active_text = ansi(cards.format_colour(active, deck), colour_code(active, deck), colour)
    lines = [
        f"{head}{n} players · decision {int(state[L.S_DECISIONS])} · {turn}",
        f"top {top} · {'colour' if deck == 'uno' else 'suit'} "
        f"{active_text} · "
        f"direction {'clockwise' if state[L.S_DIRECTION] > 0 else 'counter-clockwise'} · "
        f"draw pile {int(state[L.S_NDRAW])} · discard pile {ndiscard}",
    ]
    if state[L.S_PENDING] > 0 or state[L.S_PENDING_SKIP] > 0:
        target = f" on seat {current}" if state[L.S_PHASE] in (L.PH_CHALLENGE, L.PH_ANSWER) else ""
        sit = f", {int(state[L.S_PENDING_SKIP])} turn(s) to sit out" if state[L.S_PENDING_SKIP] > 0 else ""
        lines.append(
            f"pending: {int(state[L.S_PENDING])} cards{sit} from seat {int(state[L.S_PENDING_FROM])}{target}"
        )
    if (
        status == L.ST_RUNNING
        and state[L.S_PHASE] == L.PH_PLAY_DRAWN
        and (shown_seats is None or current in shown_seats)
    ):
        lines.append(f"drawn: {paint_face(int(state[L.S_DRAWN]), deck, colour)}")
    if last_actions is None and state[L.S_LAST_ACTOR] >= 0:
        lines.append(
            f"last: seat {int(state[L.S_LAST_ACTOR])} "
            f"{last_action_text(int(state[L.S_LAST_ACTION]), deck, colour)}"
        )
    call_width = max(5, len(call_word) + 1)
    lines.append(f"{'seat':<6}{'cards':>5}  {'call':<{call_width}}{'last':<10}hand")
    for seat in range(n):
        marker = ">" if seat == current else " "
        size = int(state[L.HAND_SIZE + seat])
        call = call_word if state[L.CALLED + seat] else ""
        last = shown_last = ""
        if last_actions is not None:
            previous = last_actions[seat]
            if previous is not None:
                last = last_action_text(int(previous), deck)
                shown_last = last_action_text(int(previous), deck, colour)
        if shown_seats is None or seat in shown_seats:
            base = L.HANDS + seat * L.MAX_FACES
            faces = [f for f in range(num_faces) for _ in range(int(state[base + f]))]
            hand = " ".join(paint_face(f, deck, colour) for f in faces) if faces else "-"
        else:
            hand = "?"
        lines.append(f"{marker}{seat:<5}{size:>5}  {call:<{call_width}}{_pad(last, shown_last, 10)}{hand}")
    if state[L.S_ROUND] > 0 or any(state[L.SCORE : L.SCORE + n]):
        lines.append("scores: " + " ".join(str(int(x)) for x in state[L.SCORE : L.SCORE + n]))
    return "\n".join(lines)


# ------------------------------------------------------------------ the picture (rgb_array)
RGB_SIZE = (800, 600)
"""Width and height of :func:`render_rgb`'s picture in pixels."""

UNO_RGB = ((214, 40, 40), (240, 200, 20), (40, 160, 70), (30, 100, 200))
"""Fill colours of the Uno colours red, yellow, green, blue."""
WILD_RGB = (25, 25, 25)
FRENCH_INK = ((20, 20, 20), (200, 20, 30), (200, 20, 30), (20, 20, 20))
"""Ink of the French suits clubs, diamonds, hearts, spades."""
_FELT = (22, 92, 58)
_FELT_DARK = (14, 64, 40)
_TEXT = (240, 240, 230)
_HIGHLIGHT = (255, 215, 64)
_PENALTY = (200, 30, 40)
_UNO_SYMBOL_TEXT = (*(str(i) for i in range(10)), "S", "R", "+2")
_UNO_WILD_TEXT = {cards.WILD: "W", cards.WILD_DRAW_FOUR: "+4", cards.SUPER_STAR: "*", cards.CUSTOM_WILD: "WC"}

_fonts: dict[int, Any] = {}


def _font(size: int) -> Any:
    """Pillow's default font at ``size`` pixels (cached)."""
    font = _fonts.get(size)
    if font is None:
        font = _fonts[size] = ImageFont.load_default(size=size)
    return font


def _text(
    draw: Any, xy: tuple[float, float], text: str, size: int, fill: Any, anchor: str = "mm", stroke: int = 0
) -> None:
    draw.text(
        xy, text, font=_font(size), fill=fill, anchor=anchor, stroke_width=stroke, stroke_fill=(0, 0, 0)
    )


def _suit_shape(draw: Any, suit: int, cx: float, cy: float, s: float, fill: Any) -> None:
    """A suit symbol drawn as shapes (no font glyphs needed): 0 clubs, 1 diamonds, 2 hearts, 3 spades."""
    if suit == 1:
        draw.polygon([(cx, cy - s), (cx + 0.72 * s, cy), (cx, cy + s), (cx - 0.72 * s, cy)], fill=fill)
    elif suit == 2:
        r = 0.5 * s
        draw.ellipse([cx - s, cy - 0.75 * s, cx, cy - 0.75 * s + 2 * r], fill=fill)
        draw.ellipse([cx, cy - 0.75 * s, cx + s, cy - 0.75 * s + 2 * r], fill=fill)
        draw.polygon([(cx - 0.97 * s, cy - 0.1 * s), (cx + 0.97 * s, cy - 0.1 * s), (cx, cy + s)], fill=fill)
    elif suit == 3:
        r = 0.5 * s
        draw.polygon(
            [(cx, cy - s), (cx + 0.97 * s, cy + 0.15 * s), (cx - 0.97 * s, cy + 0.15 * s)], fill=fill
        )
        draw.ellipse([cx - s, cy - 0.25 * s, cx, cy - 0.25 * s + 2 * r], fill=fill)
        draw.ellipse([cx, cy - 0.25 * s, cx + s, cy - 0.25 * s + 2 * r], fill=fill)
        draw.polygon([(cx, cy + 0.3 * s), (cx + 0.35 * s, cy + s), (cx - 0.35 * s, cy + s)], fill=fill)
    else:
        r = 0.42 * s
        for dx, dy in ((0.0, -0.45), (-0.45, 0.2), (0.45, 0.2)):
            x, y = cx + dx * s, cy + dy * s
            draw.ellipse([x - r, y - r, x + r, y + r], fill=fill)
        draw.polygon([(cx, cy), (cx + 0.3 * s, cy + s), (cx - 0.3 * s, cy + s)], fill=fill)


def _card(draw: Any, face: int, deck: DeckFamily, x: float, y: float, w: float, h: float) -> None:
    """One card face up with its top-left corner at ``(x, y)``."""
    radius = max(3, int(w * 0.12))
    box = [x, y, x + w, y + h]
    if deck == "uno":
        fill = UNO_RGB[face // 13] if face < 52 else WILD_RGB
        draw.rounded_rectangle(box, radius, fill=(250, 250, 250), outline=(40, 40, 40))
        inset = max(2, w * 0.07)
        draw.rounded_rectangle(
            [x + inset, y + inset, x + w - inset, y + h - inset], max(2, radius - 2), fill=fill
        )
        label = _UNO_SYMBOL_TEXT[face % 13] if face < 52 else _UNO_WILD_TEXT[face]
        cx, cy = x + w / 2, y + h / 2
        if face >= 52:  # the four colours of a wild in its middle
            q = w * 0.28
            for i, (sx, sy) in enumerate(((-1, -1), (1, -1), (-1, 1), (1, 1))):
                draw.pieslice(
                    [cx - q, cy - q, cx + q, cy + q],
                    180 + 90 * i,
                    270 + 90 * i,
                    fill=UNO_RGB[(0, 3, 1, 2)[i]],
                )
                del sx, sy
        draw.ellipse(
            [cx - w * 0.34, cy - h * 0.3, cx + w * 0.34, cy + h * 0.3], outline=(250, 250, 250), width=2
        )
        ink = (20, 20, 20) if face < 52 and face // 13 == 1 else (255, 255, 255)
        _text(draw, (cx, cy), label, int(h * 0.32), ink, stroke=2 if face >= 52 else 0)
        _text(draw, (x + inset + 3, y + inset + 2), label, max(9, int(h * 0.14)), ink, "la")
        return
    draw.rounded_rectangle(box, radius, fill=(252, 252, 248), outline=(40, 40, 40))
    cx, cy = x + w / 2, y + h / 2
    if face >= 52:
        ink = FRENCH_INK[2] if face == cards.RED_JOKER else FRENCH_INK[0]
        _text(draw, (cx, cy - h * 0.12), "JOKER", max(9, int(w * 0.2)), ink)
        _text(draw, (cx, cy + h * 0.16), "*", int(h * 0.3), ink)
        return
    suit, rank = face // 13, cards.FRENCH_RANKS[face % 13]
    ink = FRENCH_INK[suit]
    _text(draw, (x + 4, y + 3), rank, max(9, int(h * 0.17)), ink, "la")
    _suit_shape(draw, suit, x + 4 + w * 0.09, y + h * 0.3, w * 0.08, ink)
    _suit_shape(draw, suit, cx, cy + h * 0.08, w * 0.24, ink)


def _card_back(draw: Any, deck: DeckFamily, x: float, y: float, w: float, h: float) -> None:
    radius = max(3, int(w * 0.12))
    if deck == "uno":
        draw.rounded_rectangle([x, y, x + w, y + h], radius, fill=(20, 20, 20), outline=(250, 250, 250))
        draw.ellipse([x + w * 0.15, y + h * 0.3, x + w * 0.85, y + h * 0.7], fill=UNO_RGB[0])
    else:
        draw.rounded_rectangle([x, y, x + w, y + h], radius, fill=(40, 60, 150), outline=(250, 250, 250))
        draw.rectangle([x + w * 0.15, y + h * 0.12, x + w * 0.85, y + h * 0.88], outline=(200, 210, 240))


def _arrow(draw: Any, cx: float, cy: float, rx: float, ry: float, clockwise: bool) -> None:
    """A direction arrow around the piles: an arc with a head at its clockwise or counter-clockwise end."""

    start, end = 200.0, 340.0  # the upper arc (screen angles, y down)
    draw.arc([cx - rx, cy - ry, cx + rx, cy + ry], start, end, fill=_HIGHLIGHT, width=3)
    tip = end if clockwise else start
    a = math.radians(tip)
    px, py = cx + rx * math.cos(a), cy + ry * math.sin(a)
    # tangent along increasing screen angle (clockwise on screen)
    tx, ty = -rx * math.sin(a), ry * math.cos(a)
    norm = math.hypot(tx, ty) or 1.0
    tx, ty = tx / norm, ty / norm
    if not clockwise:
        tx, ty = -tx, -ty
    size = 12.0
    nx, ny = -ty, tx
    draw.polygon(
        [
            (px + tx * size, py + ty * size),
            (px + nx * size * 0.6, py + ny * size * 0.6),
            (px - nx * size * 0.6, py - ny * size * 0.6),
        ],
        fill=_HIGHLIGHT,
    )


def _small_hand(
    draw: Any, state: np.ndarray, seat: int, deck: DeckFamily, num_faces: int, cx: float, top: float
) -> None:
    """``seat``'s hand face up in small overlapping cards, centred on ``cx`` below ``top``
    (a hand the shown seat has seen, H-ZEROSEE-1); at most 124 pixels wide, as the seat's box."""
    base = L.HANDS + seat * L.MAX_FACES
    faces = [f for f in range(num_faces) for _ in range(int(state[base + f]))]
    if not faces:
        return
    w, h, room = 22.0, 32.0, 124.0
    step = min(w + 2, (room - w) / (len(faces) - 1)) if len(faces) > 1 else 0.0
    x0 = cx - (step * (len(faces) - 1) + w) / 2
    for i, face in enumerate(faces):
        _card(draw, face, deck, x0 + i * step, top, w, h)


def render_rgb(
    state: np.ndarray,
    deck: DeckFamily,
    num_faces: int,
    shown_seat: int | None = None,
    last_actions: Sequence[int | None] | None = None,
    title: str = "",
    size: tuple[int, int] = RGB_SIZE,
    call_word: str = "UNO",
) -> np.ndarray:
    """The table as a picture: an ``(H, W, 3)`` uint8 array (``size`` is ``(W, H)``).

    ``shown_seat`` is the seat whose hand is drawn face up at the bottom; None shows the
    seat to move (or seat 0 once the game is over). Every other seat is a card back with
    its hand count around the table, clockwise from the shown seat; the seat to move is
    outlined. A hand the shown seat has looked at and still knows (H-ZEROSEE-1,
    :func:`seat_and_seen`) is drawn face up in small cards under its seat. ``last_actions``
    labels each seat with its last action (else only the most recent decision is named in the
    title line); ``call_word`` labels a standing call.
    """
    width, height = size
    n = int(state[L.S_NPLAYERS])
    current = int(state[L.S_CURRENT])
    if shown_seat is None:
        shown_seat = current if current >= 0 else 0
    image = Image.new("RGB", (width, height), _FELT)
    draw = ImageDraw.Draw(image)

    # title line: rules, decision count, who decides what
    draw.rectangle([0, 0, width, 30], fill=_FELT_DARK)
    turn = turn_text(state, deck).removeprefix("over: ")
    head = f"{title} · " if title else ""
    line = f"{head}decision {int(state[L.S_DECISIONS])} · {turn}"
    if last_actions is None and state[L.S_LAST_ACTOR] >= 0:
        line += (
            f" · last: seat {int(state[L.S_LAST_ACTOR])} "
            f"{last_action_text(int(state[L.S_LAST_ACTION]), deck)}"
        )
    _text(draw, (10, 15), line, 16, _TEXT, "lm")

    # the piles in the middle
    cx, cy = width / 2, height * 0.43
    cw, ch = width * 0.1, width * 0.145
    ndraw, ndiscard = int(state[L.S_NDRAW]), int(state[L.S_NDISCARD])
    _card_back(draw, deck, cx - cw - 20, cy - ch / 2, cw, ch)
    _text(draw, (cx - cw / 2 - 20, cy + ch / 2 + 12), f"deck {ndraw}", 14, _TEXT)
    if ndiscard:
        top = int(state[L.DISCARD_PILE + ndiscard - 1])
        _card(draw, top, deck, cx + 20, cy - ch / 2, cw, ch)
    _text(draw, (cx + cw / 2 + 20, cy + ch / 2 + 12), f"discard {ndiscard}", 14, _TEXT)
    # active colour / suit
    colour = int(state[L.S_COLOUR])
    ax, ay, ar = cx + cw + 75, cy, 24
    _text(draw, (ax, ay + ar + 14), "colour" if deck == "uno" else "suit", 14, _TEXT)
    if 0 <= colour < 4:
        if deck == "uno":
            draw.ellipse(
                [ax - ar, ay - ar, ax + ar, ay + ar], fill=UNO_RGB[colour], outline=(250, 250, 250), width=2
            )
        else:
            draw.ellipse([ax - ar, ay - ar, ax + ar, ay + ar], fill=(252, 252, 248), outline=(40, 40, 40))
            _suit_shape(draw, colour, ax, ay, ar * 0.6, FRENCH_INK[colour])
    else:
        draw.ellipse([ax - ar, ay - ar, ax + ar, ay + ar], outline=(250, 250, 250), width=2)
        _text(draw, (ax, ay), "?", 20, _TEXT)
    _arrow(draw, cx, cy, cw + 45, ch * 0.5 + 30, bool(state[L.S_DIRECTION] > 0))
    _text(
        draw,
        (cx - cw - 95, cy),
        "clockwise" if state[L.S_DIRECTION] > 0 else "counter-\nclockwise",
        13,
        _HIGHLIGHT,
    )
    pending, sit_out = int(state[L.S_PENDING]), int(state[L.S_PENDING_SKIP])
    if pending > 0 or sit_out > 0:
        target = f" -> seat {current}" if state[L.S_PHASE] in (L.PH_CHALLENGE, L.PH_ANSWER) else ""
        what = " ".join(
            x for x in (f"+{pending}" if pending else "", f"sit {sit_out}" if sit_out else "") if x
        )
        label = f"{what} pending from seat {int(state[L.S_PENDING_FROM])}{target}"
        py = cy + ch / 2 + 40
        draw.rounded_rectangle([cx - 150, py - 13, cx + 150, py + 13], 8, fill=_PENALTY)
        _text(draw, (cx, py), label, 15, (255, 255, 255))

    # the other seats around the table, clockwise from the shown seat (bottom -> left -> top -> right)
    rx, ry = width * 0.41, height * 0.33
    seen = seat_and_seen(state, shown_seat)[1:]
    for k in range(1, n):
        seat = (shown_seat + k) % n
        angle = math.pi / 2 + 2 * math.pi * k / n
        px, py = cx + rx * math.cos(angle), cy + ry * math.sin(angle)
        px = min(max(px, 70), width - 70)
        py = min(max(py, 72), height - 200)
        box = [px - 62, py - 38, px + 62, py + 38]
        draw.rounded_rectangle(
            box, 8, fill=_FELT_DARK, outline=_HIGHLIGHT if seat == current else None, width=3
        )
        _card_back(draw, deck, px - 55, py - 28, 30, 44)
        _text(draw, (px - 40, py + 27), str(int(state[L.HAND_SIZE + seat])), 13, _TEXT)
        _text(draw, (px - 18, py - 24), f"seat {seat}", 15, _TEXT, "la")
        notes = []
        if state[L.CALLED + seat]:
            notes.append(call_word)
        if state[L.S_ROUND] > 0 or state[L.SCORE + seat]:
            notes.append(f"{int(state[L.SCORE + seat])} pts")
        if notes:
            _text(draw, (px - 18, py - 5), " ".join(notes), 13, _HIGHLIGHT, "la")
        previous = None if last_actions is None else last_actions[seat]
        if previous is not None:
            _text(draw, (px - 18, py + 14), last_action_text(int(previous), deck), 13, _TEXT, "la")
        if seat in seen:
            _small_hand(draw, state, seat, deck, num_faces, px, py + 42)

    # the shown seat's hand at the bottom
    base = L.HANDS + shown_seat * L.MAX_FACES
    faces = [f for f in range(num_faces) for _ in range(int(state[base + f]))]
    hw, hh = 62.0, 92.0
    label = f"seat {shown_seat} · {len(faces)} cards"
    if state[L.CALLED + shown_seat]:
        label += f" · {call_word}"
    if state[L.S_ROUND] > 0 or state[L.SCORE + shown_seat]:
        label += f" · {int(state[L.SCORE + shown_seat])} pts"
    mine = None if last_actions is None else last_actions[shown_seat]
    if mine is not None:
        label += f" · last {last_action_text(int(mine), deck)}"
    hy = height - hh - 16
    _text(draw, (width / 2, hy - 16), label, 15, _HIGHLIGHT if shown_seat == current else _TEXT)
    if faces:
        room = width - 40 - hw
        step = min(hw + 6, room / max(1, len(faces) - 1)) if len(faces) > 1 else 0.0
        total = step * (len(faces) - 1) + hw
        x0 = (width - total) / 2
        for i, face in enumerate(faces):
            _card(draw, face, deck, x0 + i * step, hy, hw, hh)
    return np.asarray(image, dtype=np.uint8)
