"""Helpers shared by the rule scenario tests: positions compared field by field, hands, piles."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

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


def deal_hidden(
    hidden: dict[int, list[str]],
    draw: list[str],
    fields: dict[str, str],
    shuffle: Callable[[list[str]], None],
    kept: dict[int, list[str]] | None = None,
) -> tuple[dict[int, list[str]], list[str]]:
    """The ``hidden`` hands (seat: its cards a player cannot see) and the ``draw`` pile dealt
    anew, as one who reasons from public information would: same hand sizes, and a seat with
    a proven record (``void=`` of the position's ``fields``, U-DRAW-3 / U-WD4-2) gets at most
    its count of the faces it lacked, counting the cards it keeps (``kept``). Constrained
    seats are dealt first; when a shuffle cannot be dealt that way, another is tried, and
    after 50 the hands stay as they were (the draw pile is still shuffled)."""
    kept = kept or {}
    voids: dict[int, tuple[set[str], int]] = {}
    for seat, part in enumerate(fields["void"].split("/") if "void" in fields else []):
        if part.strip() not in ("", "-"):
            faces, _, count = part.rpartition(":")
            voids[seat] = (set(faces.split()), int(count))
    order = sorted(hidden, key=lambda s: s not in voids)
    for _ in range(50):
        pool = [card for seat in order for card in hidden[seat]] + list(draw)
        shuffle(pool)
        hands: dict[int, list[str]] = {}
        for seat in order:
            lacked, allowed = voids.get(seat, (set(), len(hidden[seat])))
            allowed -= sum(1 for card in kept.get(seat, []) if card in lacked)
            hands[seat], rest = [], []
            for card in pool:
                if len(hands[seat]) < len(hidden[seat]) and (card not in lacked or allowed > 0):
                    allowed -= card in lacked
                    hands[seat].append(card)
                else:
                    rest.append(card)
            pool = rest
        if all(len(hands[seat]) == len(hidden[seat]) for seat in order):
            return hands, pool
    pile = list(draw)
    shuffle(pile)
    return {seat: list(cards) for seat, cards in hidden.items()}, pile


def redeal_jump_block(fields: dict[str, str], hands: list[list[str]], known: set[int]) -> None:
    """H-JUMP-1's ``jumpblock=seat:count`` after a redeal of ``hands`` (``known``: the seats
    whose hands were kept): how many copies of the top card a penalty drew is as hidden as the
    cards, so a redealt seat keeps at most the copies its new hand holds (none: no field)."""
    if fields.get("jumpblock", "start") == "start":  # none, or the starting card's (public, H-SCOPE-1)
        return
    blocked, count = (int(x) for x in fields["jumpblock"].split(":"))
    if blocked in known:
        return
    count = min(count, hands[blocked].count(fields["discard"].split()[-1]))
    if count:
        fields["jumpblock"] = f"{blocked}:{count}"
    else:
        del fields["jumpblock"]


def _sorted_hands(text: str, game: Game) -> str:
    hands = []
    for held in text.split("/"):
        tokens = [t for t in held.split() if t != "-"]
        hands.append(" ".join(sorted(tokens, key=lambda t: parse_face(t, game.deck))))
    return "/".join(hands)


def assert_position(game: Game, expected: str) -> None:
    """The game's position equals ``expected``: hand order aside; the decision counters, the
    bookkeeping of a play in progress (``actor``, ``resume``, ...) and the records of what
    plays showed about hands (``void``, ``hint``: asserted by their own scenarios) only where
    listed."""
    actual = position_fields(game.position())
    want = position_fields(expected)
    for fields in (actual, want):
        fields["hands"] = _sorted_hands(fields["hands"], game)
    for key in ("decisions", "letgo", "void", "hint", *MIDPLAY_KEYS):
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
