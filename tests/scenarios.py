"""Helpers shared by the rule scenario tests: positions compared field by field, hands, piles."""

from __future__ import annotations

from collections import Counter

from uno_env import Game
from uno_env.engine.cards import parse_face
from uno_env.game.position import MIDPLAY_FIELDS

MIDPLAY_KEYS = tuple(name for name, _ in MIDPLAY_FIELDS)


def position_fields(text: str) -> dict[str, str]:
    """The ``key=value`` fields of a position line."""
    out: dict[str, str] = {}
    for part in text.split(";"):
        if part.strip():
            key, _, value = part.partition("=")
            out[key.strip()] = value.strip()
    return out


def _sorted_hands(text: str, game: Game) -> str:
    hands = []
    for held in text.split("/"):
        tokens = [t for t in held.split() if t != "-"]
        hands.append(" ".join(sorted(tokens, key=lambda t: parse_face(t, game.deck))))
    return "/".join(hands)


def assert_position(game: Game, expected: str) -> None:
    """The game's position equals ``expected``: hand order aside; the decision counter and the
    bookkeeping of a play in progress (``actor``, ``resume``, ...) only where listed."""
    actual = position_fields(game.position())
    want = position_fields(expected)
    for fields in (actual, want):
        fields["hands"] = _sorted_hands(fields["hands"], game)
    for key in ("decisions", *MIDPLAY_KEYS):
        if key not in want:
            actual.pop(key, None)
    assert actual == want, f"\n got: {game.position()}\nwant: {expected}"


def legal(game: Game) -> set[str]:
    """The legal actions of the player to move, in notation."""
    return {game.describe_action(a) for a in game.legal_actions()}


def hand(game: Game, seat: int) -> list[str]:
    """A hand in notation, face order."""
    return [str(c) for c in game.hand(seat)]


def draw_pile(game: Game) -> list[str]:
    """The draw pile from the top, in notation."""
    text = position_fields(game.position())["draw"]
    return [] if text == "-" else text.split()


def discard(game: Game) -> list[str]:
    """The discard pile, bottom to top."""
    return [str(c) for c in game.discard_pile()]


def all_cards(game: Game) -> Counter[str]:
    """Every card of the game: hands, discard pile and draw pile (E-CONS-1)."""
    total: Counter[str] = Counter(draw_pile(game))
    total.update(discard(game))
    for seat in range(game.num_players):
        total.update(hand(game, seat))
    return total
