"""Text rendering of a table for the ``"ansi"`` and ``"human"`` render modes.

One function, :func:`render_table`, draws a game state as a small text table: who is to
move and the decision asked, the top card, active colour/suit, direction and piles, then
one line per seat with hand size, UNO call, last action and (for the seats shown) cards.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import actions, cards
from .. import layout as L
from ..cards import DeckFamily
from ..position import PHASE_NAMES


def render_table(
    state: np.ndarray,
    deck: DeckFamily,
    num_faces: int,
    shown_seats: Sequence[int] | None,
    last_actions: Sequence[int | None] | None = None,
    title: str = "",
) -> str:
    """The table as text; ``shown_seats`` lists whose cards to show (None: every hand).

    ``last_actions`` gives each seat's last action id (None: not yet); without it only the
    game's most recent decision is shown.
    """
    n = int(state[L.S_NPLAYERS])
    status = int(state[L.S_STATUS])
    current = int(state[L.S_CURRENT])
    phase = PHASE_NAMES.get(int(state[L.S_PHASE]), "?")
    ndiscard = int(state[L.S_NDISCARD])
    top = cards.format_face(int(state[L.DISCARD_PILE + ndiscard - 1]), deck) if ndiscard else "-"
    head = title + " · " if title else ""
    if status == L.ST_WON:
        turn = f"over: seat {int(state[L.S_WINNER])} won"
    elif status == L.ST_TRUNCATED:
        turn = "over: decision limit reached (truncated)"
    else:
        turn = f"seat {current} to {phase}"
    lines = [
        f"{head}{n} players · decision {int(state[L.S_DECISIONS])} · {turn}",
        f"top {top} · {'colour' if deck == 'uno' else 'suit'} "
        f"{cards.format_colour(int(state[L.S_COLOUR]), deck)} · "
        f"direction {'clockwise' if state[L.S_DIRECTION] > 0 else 'counter-clockwise'} · "
        f"draw pile {int(state[L.S_NDRAW])} · discard pile {ndiscard}",
    ]
    if state[L.S_PENDING] > 0:
        lines.append(f"pending: {int(state[L.S_PENDING])} cards from seat {int(state[L.S_PENDING_FROM])}")
    if (
        status == L.ST_RUNNING
        and state[L.S_PHASE] == L.PH_PLAY_DRAWN
        and (shown_seats is None or current in shown_seats)
    ):
        lines.append(f"drawn: {cards.format_face(int(state[L.S_DRAWN]), deck)}")
    if last_actions is None and state[L.S_LAST_ACTOR] >= 0:
        lines.append(
            f"last: seat {int(state[L.S_LAST_ACTOR])} "
            f"{actions.format_action(int(state[L.S_LAST_ACTION]), deck)}"
        )
    lines.append(f"{'seat':<6}{'cards':>5}  {'call':<5}{'last':<10}hand")
    for seat in range(n):
        marker = ">" if seat == current else " "
        size = int(state[L.HAND_SIZE + seat])
        call = "UNO" if state[L.CALLED + seat] else ""
        last = ""
        if last_actions is not None:
            previous = last_actions[seat]
            if previous is not None:
                last = actions.format_action(int(previous), deck)
        if shown_seats is None or seat in shown_seats:
            base = L.HANDS + seat * L.MAX_FACES
            faces = [f for f in range(num_faces) for _ in range(int(state[base + f]))]
            hand = cards.format_cards(faces, deck)
        else:
            hand = "?"
        lines.append(f"{marker}{seat:<5}{size:>5}  {call:<5}{last:<10}{hand}")
    if state[L.S_ROUND] > 0 or any(state[L.SCORE : L.SCORE + n]):
        lines.append("scores: " + " ".join(str(int(x)) for x in state[L.SCORE : L.SCORE + n]))
    return "\n".join(lines)
