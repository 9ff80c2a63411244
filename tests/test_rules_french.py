"""Scenario tests of the French-deck games: Mau-Mau (``mau_mau``), Mau-Mau with doubling
sevens (``mau_mau_doubling``) and Macao (``macao``), one or more per rule ID.

Each test names the rule it checks (the rule reference ``docs/rules.md``, which also records
the open choices), builds the situation from position notation (or a seeded deal), applies
decisions by their notation and asserts their exact effect: hands, piles, active suit, seat
to move, direction, phase, pending penalty, sit-out and leaving counters, scores and outcome.
Whole positions are compared with :func:`assert_position`, which ignores only the order of
cards inside a hand, the decision counter and the bookkeeping of a play in progress.

Rules covered: MM-DECK-1, MM-START-1, MM-MATCH-1, MM-DRAW-1, MM-ACE-1, MM-QUEEN-1,
MM-JACK-1, MM-SEVEN-1, MM-NINE-1, MM-CALL-1, MM-SCORE-1; MD-DECK-1, MD-DRAW-1, MD-ACE-1,
MD-SEVEN-1, MD-NINE-1, MD-JACK-1, MD-NOTE; MC-DECK-1, MC-START-1, MC-TURN-1,
MC-RESHUFFLE-1, MC-CALL-1, MC-FOUR-1, MC-DRAW-1, MC-ACE-1, MC-OPT-1, MC-END-1.

The file runs compiled and uncompiled (``NUMBA_DISABLE_JIT=1``): seed scans stop at their
first hit or stay at a few hundred fresh deals.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

import uno_env
from tests.scenarios import all_cards, assert_position, discard, draw_pile, hand, legal
from tests.scenarios import position_fields as fields
from uno_env import Game, Phase, PositionError, RuleError, preset
from uno_env.engine import layout as L
from uno_env.engine.cards import FRENCH_RANKS, FRENCH_SUITS, parse_face
from uno_env.engine.rules import MACAO_EFFECTS, MACAO_KINGS, RuleSet

PLAIN_RANKS = {
    # ranks without an effect in each preset (the starting-card scans look for them)
    "mau_mau": {"2", "3", "4", "5", "6", "8", "10", "K"},
    "mau_mau_doubling": {"2", "3", "4", "5", "6", "8", "10", "Q", "K"},
    "macao": {"5", "6", "7", "8", "9", "10", "J", "Q", "K"},
}


# ================================================================ helpers
def pos(rules: str | RuleSet, text: str, seed: int = 0, **overrides: Any) -> Game:
    """A game of a preset (with rule overrides) at a position."""
    return Game.from_position(rules, text, seed=seed, **overrides)


def field(game: Game, key: str) -> str | None:
    """One field of the game's position (None when it is not printed)."""
    return fields(game.position()).get(key)


def french_deck(copies: int, jokers: bool = False) -> Counter[str]:
    """The French 52-card deck written out, ``copies`` times, with or without the jokers."""
    deck: Counter[str] = Counter()
    for suit in FRENCH_SUITS:
        for rank in FRENCH_RANKS:
            deck[f"{rank}{suit}"] = copies
    if jokers:
        deck["JKB"] = deck["JKR"] = copies
    return deck


def rank(card: str) -> str:
    """The rank of a French card token (``10D`` -> ``10``)."""
    return card[:-1]


def dealer(game: Game) -> int:
    """The dealer of a fresh deal."""
    return int(game.state[L.S_DEALER])


def first_seed(
    rules: str | RuleSet, num_players: int, predicate: Callable[[Game], bool], **overrides: Any
) -> Game:
    """The fresh deal of the first seed (0, 1, ...) whose game satisfies ``predicate``."""
    for seed in range(400):
        game = Game(rules, num_players, seed=seed, **overrides)
        if predicate(game):
            return game
    pytest.fail("no seed below 400 deals the wanted situation")


def top_rank_is(*ranks: str) -> Callable[[Game], bool]:
    """Predicate: the starting card has one of ``ranks``."""
    return lambda g: rank(str(g.top_card)) in ranks


def seats_to_move(game: Game, decisions: int) -> list[int]:
    """Play the first legal card (else the first legal action) ``decisions`` times; return
    the seat that decided each time."""
    seats = []
    for _ in range(decisions):
        seats.append(game.current_player)
        options = game.legal_actions()
        cards = [a for a in options if a < game.rules.num_faces]
        game.step(cards[0] if cards else options[0])
    return seats


# ================================================================ MM-DECK-1
def test_MM_DECK_1_two_french_decks_without_jokers_for_4_to_8_players() -> None:
    """MM-DECK-1: two French 52-card decks, no jokers, 5 cards each, 4-8 players."""
    rules = preset("mau_mau")
    assert (rules.deck, rules.decks, rules.jokers, rules.hand_size) == ("french", 2, False, 5)
    assert (rules.min_players, rules.max_players) == (4, 8)
    for n in range(4, 9):
        counts = rules.deck_counts(n)
        assert counts[:52].tolist() == [2] * 52, n
        assert counts[52:].tolist() == [0] * (len(counts) - 52), n
        assert rules.deck_size(n) == 104


@pytest.mark.parametrize("num_players", [4, 6, 8])
def test_MM_DECK_1_fresh_deal_is_two_decks_five_each(num_players: int) -> None:
    """MM-DECK-1: a fresh deal holds exactly two French decks; 5 cards each, one starting
    card, the rest in the draw pile (a starting card without effect, MM-START-1 aside)."""
    game = first_seed("mau_mau", num_players, top_rank_is(*PLAIN_RANKS["mau_mau"]))
    assert all_cards(game) == french_deck(2)
    assert game.hand_sizes() == [5] * num_players
    assert len(discard(game)) == 1
    assert game.draw_pile_size == 104 - 5 * num_players - 1


@pytest.mark.parametrize("num_players", [2, 3, 9])
def test_MM_DECK_1_player_range_is_enforced(num_players: int) -> None:
    """MM-DECK-1: fewer than 4 or more than 8 players is refused, by a deal and a position."""
    with pytest.raises(RuleError, match=re.escape("outside this variant's range 4..8")):
        Game("mau_mau", num_players, seed=0)
    hands = "/".join(f"{r}H" for r in ("2", "3", "4", "5", "6", "8", "10", "K", "Q")[:num_players])
    with pytest.raises(RuleError, match=re.escape("4..8")):
        pos("mau_mau", f"hands={hands}; discard=9C; draw=-; colour=C; seat=0; dir=+; phase=play")


# ================================================================ MM-START-1
def _mm_start(ranks: tuple[str, ...]) -> tuple[Game, int]:
    game = first_seed("mau_mau", 4, top_rank_is(*ranks))
    return game, (dealer(game) + 1) % 4


def test_MM_START_1_plain_card_the_player_after_the_first_plays() -> None:
    """MM-START-1: the starting card counts as the first player's discard, so the player
    after the first one (two left of the dealer) plays first."""
    game, first = _mm_start(tuple(PLAIN_RANKS["mau_mau"]))
    assert game.current_player == (first + 1) % 4
    assert game.phase == Phase.PLAY
    assert game.direction == 1
    assert game.hand_sizes() == [5, 5, 5, 5]
    assert game.active_colour == FRENCH_SUITS.index(str(game.top_card)[-1])


def test_MM_START_1_seven_hits_the_player_after_the_first() -> None:
    """MM-START-1 + MM-SEVEN-1: a starting 7 is the first player's 7: the next player must
    answer it with a 7 or draw 2; accepting draws the top two cards and passes the turn."""
    game, first = _mm_start(("7",))
    target = (first + 1) % 4
    assert game.current_player == target
    assert game.phase == Phase.ANSWER
    assert field(game, "pending") == "2"
    assert field(game, "from") == str(first)
    assert game.hand_sizes() == [5, 5, 5, 5]
    top_two = draw_pile(game)[:2]
    before = hand(game, target)
    game.step("accept")
    assert sorted(hand(game, target)) == sorted(before + top_two)
    assert game.current_player == (target + 1) % 4
    assert game.phase == Phase.PLAY
    assert field(game, "pending") is None


def test_MM_START_1_nine_makes_the_dealer_draw_one() -> None:
    """MM-START-1 + MM-NINE-1: a starting 9 is the first player's 9: the player before the
    first one (the dealer) draws 1; the player after the first plays."""
    game, first = _mm_start(("9",))
    sizes = [5, 5, 5, 5]
    sizes[dealer(game)] = 6
    assert game.hand_sizes() == sizes
    assert game.draw_pile_size == 104 - 20 - 1 - 1
    assert game.current_player == (first + 1) % 4
    assert game.phase == Phase.PLAY


def test_MM_START_1_ace_skips_the_player_after_the_first() -> None:
    """MM-START-1 + MM-ACE-1: a starting Ace skips the player after the first one."""
    game, first = _mm_start(("A",))
    assert game.current_player == (first + 2) % 4
    assert game.phase == Phase.PLAY
    assert game.hand_sizes() == [5, 5, 5, 5]


def test_MM_START_1_queen_reverses_and_the_dealer_plays() -> None:
    """MM-START-1 + MM-QUEEN-1: a starting Queen reverses play after the first player, so
    the dealer (the first player's other neighbour) plays, counter-clockwise."""
    game, _ = _mm_start(("Q",))
    assert game.direction == -1
    assert game.current_player == dealer(game)
    assert game.phase == Phase.PLAY


def test_MM_START_1_jack_first_player_names_the_suit_then_play_passes() -> None:
    """MM-START-1 + MM-JACK-1: a starting Jack: the first player names the suit (it was
    their discard), then the next player plays."""
    game, first = _mm_start(("J",))
    assert game.current_player == first
    assert game.phase == Phase.CHOOSE_COLOUR
    assert legal(game) == {"suit C", "suit D", "suit H", "suit S"}
    game.step("suit S")
    assert game.active_colour == FRENCH_SUITS.index("S")
    assert game.current_player == (first + 1) % 4
    assert game.phase == Phase.PLAY
    assert game.hand_sizes() == [5, 5, 5, 5]


# ================================================================ MM-MATCH-1
MM4 = "draw=2C 3C 4C 5C 6C 8C 10C KC; colour={c}; seat={s}; dir={d}; phase=play"


def mm(hands: str, top: str, seat: int = 0, direction: str = "+", colour: str = "", **kw: Any) -> Game:
    """A ``mau_mau`` position: four or more hands, discard ``top``, a fixed club draw pile."""
    colour = colour or top.split()[-1][-1]
    return pos("mau_mau", f"hands={hands}; discard={top}; " + MM4.format(c=colour, s=seat, d=direction), **kw)


def test_MM_MATCH_1_same_suit_or_same_rank() -> None:
    """MM-MATCH-1: a card of the top card's suit or rank; nothing else (calling and drawing
    are always offered, MM-CALL-1 / MM-DRAW-1)."""
    game = mm("3H KH 8D 2S 10D/4D 4S 8S QS 6H/5D 5S/6D 6S", "8H")
    assert legal(game) == {"3H", "KH", "8D", "draw", "call"}
    game.step("8D")
    assert_position(
        game,
        "hands=3H KH 2S 10D/4D 4S 8S QS 6H/5D 5S/6D 6S; discard=8H 8D; "
        "draw=2C 3C 4C 5C 6C 8C 10C KC; colour=D; seat=1; dir=+; phase=play",
    )
    assert legal(game) == {"4D", "8S", "draw", "call"}


# ================================================================ MM-DRAW-1
def test_MM_DRAW_1_draw_while_holding_a_playable_card_then_play_any() -> None:
    """MM-DRAW-1: drawing is allowed with a playable card in hand; after the one card the
    player may lay any playable card (not only the drawn one) or pass, and may not draw
    again."""
    game = mm("3H 8S KS/4D 4S 9S/5D 5S 6H/6D 6S 8H", "9H")
    assert legal(game) == {"3H", "draw", "call"}
    game.step("draw")
    assert_position(
        game,
        "hands=2C 3H 8S KS/4D 4S 9S/5D 5S 6H/6D 6S 8H; discard=9H; "
        "draw=3C 4C 5C 6C 8C 10C KC; colour=H; seat=0; dir=+; phase=drawn; drawn=2C",
    )
    assert legal(game) == {"3H", "pass", "call"}
    game.step("3H")
    assert_position(
        game,
        "hands=2C 8S KS/4D 4S 9S/5D 5S 6H/6D 6S 8H; discard=9H 3H; "
        "draw=3C 4C 5C 6C 8C 10C KC; colour=H; seat=1; dir=+; phase=play",
    )


def test_MM_DRAW_1_the_drawn_card_itself_may_be_played() -> None:
    """MM-DRAW-1: a playable drawn card may be laid at once."""
    game = mm("3H 8S KS/4D 4S 9S/5D 5S 6H/6D 6S 8H", "9C", colour="C")
    game.step("draw")
    assert legal(game) == {"2C", "pass", "call"}
    game.step("2C")
    assert hand(game, 0) == ["3H", "8S", "KS"]
    assert discard(game) == ["9C", "2C"]
    assert game.current_player == 1


def test_MM_DRAW_1_pass_after_drawing_keeps_the_card() -> None:
    """MM-DRAW-1: after drawing, ``pass`` ends the turn; the card stays in hand."""
    game = mm("3H 8S KS/4D 4S 9S/5D 5S 6H/6D 6S 8H", "9D")
    assert legal(game) == {"draw", "call"}
    game.step("draw")
    assert legal(game) == {"pass", "call"}
    game.step("pass")
    assert_position(
        game,
        "hands=2C 3H 8S KS/4D 4S 9S/5D 5S 6H/6D 6S 8H; discard=9D; "
        "draw=3C 4C 5C 6C 8C 10C KC; colour=D; seat=1; dir=+; phase=play",
    )


# ================================================================ MM-ACE-1
@pytest.mark.parametrize(("direction", "expected"), [("+", 2), ("-", 3)])
def test_MM_ACE_1_ace_skips_the_next_player(direction: str, expected: int) -> None:
    """MM-ACE-1: after an Ace the next player in the direction of play is skipped (five
    players: from seat 0, seat 2 clockwise, seat 3 counter-clockwise)."""
    game = mm("AH 3C 8S/4D 4S 9S/5D 5S 6H/6D 6S 8H/7D 7S 2H", "4H", direction=direction)
    game.step("AH")
    assert game.current_player == expected
    assert game.phase == Phase.PLAY
    assert game.direction == (1 if direction == "+" else -1)
    assert game.hand_sizes() == [2, 3, 3, 3, 3]
    assert field(game, "pending") is None


# ================================================================ MM-QUEEN-1
def test_MM_QUEEN_1_queen_reverses_the_direction() -> None:
    """MM-QUEEN-1: a Queen reverses the direction of play; a second Queen restores it."""
    game = mm("QH 3C 8S/4D 4S 9S/5D 5S 6H/6D QS 8C", "4H")
    game.step("QH")
    assert game.direction == -1
    assert game.current_player == 3
    assert legal(game) == {"QS", "draw", "call"}
    game.step("QS")
    assert game.direction == 1
    assert game.current_player == 0
    assert_position(
        game,
        "hands=3C 8S/4D 4S 9S/5D 5S 6H/6D 8C; discard=4H QH QS; "
        "draw=2C 3C 4C 5C 6C 8C 10C KC; colour=S; seat=0; dir=+; phase=play",
    )


@pytest.mark.parametrize("reverse_with_two", [None, "reverse", "skip"])
def test_MM_QUEEN_1_with_two_players_the_queen_only_reverses(reverse_with_two: str | None) -> None:
    """MM-QUEEN-1 (a Queen reverses the direction) with ``min_players`` lowered to 2: the
    opponent plays next, as after any card without a skip. Acting as a Skip at two players is
    U-REV-1's reading of the Uno Reverse, which ``mau_mau`` does not take; the switch
    ``reverse_with_two = "skip"`` still asks for it."""
    overrides = {} if reverse_with_two is None else {"reverse_with_two": reverse_with_two}
    rules = uno_env.load_rules("mau_mau", min_players=2, **overrides)
    game = pos(rules, "hands=QH 3H 8S/4D 5H 9S; discard=4H; draw=2C 3C; colour=H; seat=0; dir=+; phase=play")
    game.step("QH")
    skips = reverse_with_two == "skip"
    assert (game.direction, game.current_player) == ((1, 0) if skips else (-1, 1))
    assert game.phase == Phase.PLAY
    assert legal(game) == ({"3H", "draw", "call"} if skips else {"5H", "draw", "call"})


# ================================================================ MM-JACK-1
def test_MM_JACK_1_jack_is_wild_and_names_the_suit() -> None:
    """MM-JACK-1: a Jack goes on any card (no 7 on top); its player names the suit; the next
    player must play that suit or a Jack."""
    game = mm("JH 3C 8S/4D 4S 9S JC 6H/5D 5S 6H/6D 6S 8H", "4C", colour="C")
    assert legal(game) == {"JH", "3C", "draw", "call"}
    game.step("JH")
    assert game.phase == Phase.CHOOSE_COLOUR
    assert game.current_player == 0
    assert legal(game) == {"suit C", "suit D", "suit H", "suit S"}
    game.step("suit S")
    assert_position(
        game,
        "hands=3C 8S/4D 4S 9S JC 6H/5D 5S 6H/6D 6S 8H; discard=4C JH; "
        "draw=2C 3C 4C 5C 6C 8C 10C KC; colour=S; seat=1; dir=+; phase=play",
    )
    assert legal(game) == {"4S", "9S", "JC", "draw", "call"}


def test_MM_JACK_1_jack_not_playable_on_a_seven() -> None:
    """MM-JACK-1 (default ``wild_not_on_when="top_card"``): with a 7 on top a Jack is not wild
    ("this rule is not valid when the top card is a 7"), even after the 7's penalty was taken;
    a Jack of the 7's suit still goes on it by suit (docs/rules.md)."""
    game = mm("JH JC 3S/4D 4S 9S/5D 5S 6H/6D 6S 8H", "7H")
    assert legal(game) == {"JH", "draw", "call"}
    game.step("draw")
    assert legal(game) == {"JH", "pass", "call"}


def test_MM_JACK_1_option_pending_allows_a_jack_on_a_taken_seven() -> None:
    """MM-JACK-1 option ``wild_not_on_when="pending"``: a Jack goes on a 7 once its penalty
    was taken; while the penalty is pending only a 7 answers it."""
    game = mm("JH JC 3S/4D 4S 9S/5D 5S 6H/6D 6S 8H", "7H", wild_not_on_when="pending")
    assert legal(game) == {"JH", "JC", "draw", "call"}
    game.step("JC")
    game.step("suit D")
    assert game.active_colour == FRENCH_SUITS.index("D")
    assert game.current_player == 1
    pending = pos(
        "mau_mau",
        "hands=4D 4S 9S/JH JC 7S 3S/5D 5S 6H/6D 6S 8H; discard=4H 7H; draw=2C 3C 4C 5C; "
        "colour=H; seat=1; dir=+; phase=answer; pending=2; from=0",
        wild_not_on_when="pending",
    )
    assert legal(pending) == {"7S", "accept", "call"}


def test_MM_JACK_1_jack_on_a_jack_names_a_new_suit() -> None:
    """MM-JACK-1: a Jack goes on a Jack whatever suit was named, and its player names the
    suit anew; the next player follows the new suit (or lays a Jack)."""
    game = mm("JS 5S 9S/JD 6D 8S/QH KH 10H/2C 3C 4C", "5H")
    game.step("JS")
    game.step("suit D")
    assert legal(game) == {"6D", "JD", "draw", "call"}
    game.step("JD")
    game.step("suit H")
    assert_position(
        game,
        "hands=5S 9S/6D 8S/QH KH 10H/2C 3C 4C; discard=5H JS JD; "
        "draw=2C 3C 4C 5C 6C 8C 10C KC; colour=H; seat=2; dir=+; phase=play",
    )
    assert legal(game) == {"QH", "KH", "10H", "draw", "call"}


def test_MM_JACK_1_the_named_suit_holds_after_a_draw_and_pass() -> None:
    """MM-JACK-1 + MM-DRAW-1: a player who draws and passes leaves the named suit in force
    for the next player."""
    game = mm("JS 5S 9S/6D 8S 2H/QH KH 10D/4C 3C 4D", "5H")
    game.step("JS")
    game.step("suit D")
    game.step("draw")
    game.step("pass")
    assert (game.current_player, game.active_colour) == (2, FRENCH_SUITS.index("D"))
    assert legal(game) == {"10D", "draw", "call"}


# ================================================================ MM-SEVEN-1
def _seven_chain() -> Game:
    return mm("7H 3C 8S/7S 2D 3D KD/7C 5S 6S 8S/4D 5D 6D 8D", "4H")


def test_MM_SEVEN_1_seven_makes_the_next_player_draw_two() -> None:
    """MM-SEVEN-1: after a 7 the next player answers: a 7 of any suit, or accept (draw 2)."""
    game = _seven_chain()
    game.step("7H")
    assert_position(
        game,
        "hands=3C 8S/7S 2D 3D KD/7C 5S 6S 8S/4D 5D 6D 8D; discard=4H 7H; "
        "draw=2C 3C 4C 5C 6C 8C 10C KC; colour=H; seat=1; dir=+; phase=answer; pending=2; from=0",
    )
    assert legal(game) == {"7S", "accept", "call"}
    game.step("accept")
    assert_position(
        game,
        "hands=3C 8S/2C 3C 7S 2D 3D KD/7C 5S 6S 8S/4D 5D 6D 8D; discard=4H 7H; "
        "draw=4C 5C 6C 8C 10C KC; colour=H; seat=2; dir=+; phase=play",
    )


def test_MM_SEVEN_1_each_seven_adds_two() -> None:
    """MM-SEVEN-1: 7, 7, 7 sends 2, 4, 6; the first player without a 7 draws 6 and the turn
    passes to the player after them."""
    game = _seven_chain()
    game.step("7H")
    game.step("7S")
    assert field(game, "pending") == "4"
    assert field(game, "from") == "1"
    assert game.current_player == 2
    assert legal(game) == {"7C", "accept", "call"}
    game.step("7C")
    assert field(game, "pending") == "6"
    assert game.current_player == 3
    assert legal(game) == {"accept"}
    game.step("accept")
    assert_position(
        game,
        "hands=3C 8S/2D 3D KD/5S 6S 8S/2C 3C 4C 5C 6C 8C 4D 5D 6D 8D; discard=4H 7H 7S 7C; "
        "draw=10C KC; colour=C; seat=0; dir=+; phase=play",
    )


def test_MM_SEVEN_1_counter_clockwise_the_seven_hits_the_seat_before() -> None:
    """MM-SEVEN-1 with the direction reversed (MM-QUEEN-1): the 7 hits the next player
    counter-clockwise, who may answer; the last one draws 4 and the turn passes on
    counter-clockwise."""
    game = mm("7H 3C 8S/4D 5D 6D/7C 5S 6S/9D 9S KD", "4H", direction="-")
    game.step("7H")
    assert (game.current_player, game.phase, field(game, "pending")) == (3, Phase.ANSWER, "2")
    assert legal(game) == {"accept"}
    game = mm("7H 3C 8S/4D 5D 6D/7C 5S 6S/7D 9S KD", "4H", direction="-")
    game.step("7H")
    game.step("7D")
    assert (game.current_player, field(game, "pending"), field(game, "from")) == (2, "4", "3")
    game.step("7C")
    assert (game.current_player, field(game, "pending"), field(game, "from")) == (1, "6", "2")
    game.step("accept")
    assert_position(
        game,
        "hands=3C 8S/2C 3C 4C 5C 6C 8C 4D 5D 6D/5S 6S/9S KD; discard=4H 7H 7D 7C; "
        "draw=10C KC; colour=C; seat=0; dir=-; phase=play",
    )


# ================================================================ MM-NINE-1
@pytest.mark.parametrize(("direction", "previous", "following"), [("+", 0, 2), ("-", 2, 0)])
def test_MM_NINE_1_previous_player_draws_one(direction: str, previous: int, following: int) -> None:
    """MM-NINE-1: after a 9 the previous player (in the direction of play) draws 1 at once;
    it cannot be countered (no answer is asked, even of a player holding a 9)."""
    game = mm("9C 3C 8S/9H 4S 9S/9D 5S 6H/6D 6S 8H", "4H", seat=1, direction=direction)
    game.step("9H")
    sizes = [3, 2, 3, 3]
    sizes[previous] = 4
    assert game.hand_sizes() == sizes
    assert "2C" in hand(game, previous)
    assert draw_pile(game) == ["3C", "4C", "5C", "6C", "8C", "10C", "KC"]
    assert game.current_player == following
    assert game.phase == Phase.PLAY
    assert field(game, "pending") is None


def test_MM_NINE_1_a_last_card_nine_is_still_drawn_with_last_card_draw() -> None:
    """MM-NINE-1 + U-END-1 (``last_card_draw=true``): a draw penalty sent by the last card is
    still drawn, the 9's by the previous player as the 7's by the next; with the preset's
    ``last_card_draw=false`` neither is."""
    text = "hands=3S 8S/9H/5D 5S/6D 6S; discard=4H; " + MM4.format(c="H", s=1, d="+")
    game = pos("mau_mau", text, last_card_draw=True)
    game.step("9H")
    assert game.outcome() is not None
    assert game.hand_sizes() == [3, 0, 2, 2]
    assert sorted(hand(game, 0)) == sorted(["2C", "3S", "8S"])
    seven = pos("mau_mau", text.replace("9H", "7H"), last_card_draw=True)
    seven.step("7H")
    assert seven.hand_sizes() == [2, 0, 4, 2]
    preset_rules = pos("mau_mau", text)
    preset_rules.step("9H")
    assert preset_rules.outcome() is not None and preset_rules.hand_sizes() == [2, 0, 2, 2]


# ================================================================ MM-CALL-1
def test_MM_CALL_1_valid_call_then_the_card_no_penalty() -> None:
    """MM-CALL-1: two cards, one playable: the call is valid and stands; laying the card
    leaves one card without any penalty."""
    game = mm("3H 8C/4D 4S 9S/5D 5S 6H/6D 6S 8H", "5H")
    assert "call" in legal(game)
    game.step("call")
    assert game.called() == [True, False, False, False]
    assert game.current_player == 0
    assert game.phase == Phase.PLAY
    assert hand(game, 0) == ["8C", "3H"]
    assert "call" not in legal(game)
    game.step("3H")
    assert_position(
        game,
        "hands=8C/4D 4S 9S/5D 5S 6H/6D 6S 8H; discard=5H 3H; draw=2C 3C 4C 5C 6C 8C 10C KC; "
        "colour=H; seat=1; dir=+; phase=play; called=0",
    )


def test_MM_CALL_1_false_call_with_three_cards_costs_five() -> None:
    """MM-CALL-1: a call holding more than two cards is false: the caller draws 5 at once
    and goes on with the turn (the call does not stand)."""
    game = mm("3H 8C 9S/4D 4S 9S/5D 5S 6H/6D 6S 8H", "5H")
    game.step("call")
    assert_position(
        game,
        "hands=2C 3C 4C 5C 6C 8C 3H 9S/4D 4S 9S/5D 5S 6H/6D 6S 8H; discard=5H; "
        "draw=8C 10C KC; colour=H; seat=0; dir=+; phase=play",
    )
    assert game.called() == [False] * 4
    assert legal(game) == {"3H", "5C", "draw", "call"}


def test_MM_CALL_1_false_call_with_two_cards_none_playable_costs_five() -> None:
    """MM-CALL-1: a call holding two cards of which none is playable is false: 5 cards."""
    game = mm("8C 9S/4D 4S 9S/5D 5S 6H/6D 6S 8H", "5H")
    assert legal(game) == {"draw", "call"}
    game.step("call")
    assert_position(
        game,
        "hands=2C 3C 4C 5C 6C 8C 9S/4D 4S 9S/5D 5S 6H/6D 6S 8H; discard=5H; "
        "draw=8C 10C KC; colour=H; seat=0; dir=+; phase=play",
    )
    assert game.called() == [False] * 4


def test_MM_CALL_1_missed_call_caught_costs_five() -> None:
    """MM-CALL-1 with ``uno_catch=1.0`` (the preset): laying the second-to-last card without
    the call is always caught: 5 cards."""
    game = mm("3H 8C/4D 4S 9S/5D 5S 6H/6D 6S 8H", "5H", uno_catch=1.0)
    game.step("3H")
    assert_position(
        game,
        "hands=2C 3C 4C 5C 6C 8C/4D 4S 9S/5D 5S 6H/6D 6S 8H; discard=5H 3H; "
        "draw=8C 10C KC; colour=H; seat=1; dir=+; phase=play",
    )


def test_MM_CALL_1_missed_call_never_caught_with_catch_zero() -> None:
    """MM-CALL-1 with ``uno_catch=0.0``: nobody catches the missed call; one card left."""
    for seed in range(5):
        game = mm("3H 8C/4D 4S 9S/5D 5S 6H/6D 6S 8H", "5H", uno_catch=0.0, seed=seed)
        game.step("3H")
        assert_position(
            game,
            "hands=8C/4D 4S 9S/5D 5S 6H/6D 6S 8H; discard=5H 3H; "
            "draw=2C 3C 4C 5C 6C 8C 10C KC; colour=H; seat=1; dir=+; phase=play",
        )


def test_MM_CALL_1_false_accusation_costs_another_player_five() -> None:
    """MM-CALL-1 with ``false_accusation=1.0``: after a correct play somebody accuses with
    nobody to accuse: one other player (never the one who played) draws 5."""
    for seed in range(12):
        game = mm("3H 8C 9S/4D 4S 9S/5D 5S 6H/6D 6S 8H", "5H", false_accusation=1.0, seed=seed)
        game.step("3H")
        sizes = game.hand_sizes()
        assert sizes[0] == 2, seed
        accusers = [s for s in (1, 2, 3) if sizes[s] == 8]
        assert len(accusers) == 1 and sorted(sizes[1:]) == [3, 3, 8], (seed, sizes)
        assert sorted(hand(game, accusers[0])) == sorted(
            [*{1: ["4D", "4S", "9S"], 2: ["5D", "5S", "6H"], 3: ["6D", "6S", "8H"]}[accusers[0]],
             "2C", "3C", "4C", "5C", "6C"]
        )  # fmt: skip
        assert draw_pile(game) == ["8C", "10C", "KC"]
        assert game.current_player == 1


def test_MM_CALL_1_false_accusation_picks_a_uniformly_random_other_player() -> None:
    """MM-CALL-1 (docs/rules.md: a false accusation "costs a random other player 5 cards"):
    over 300 seeds each of the three other players is the accuser about a third of the
    time (binomial: 100 +- 30 is more than 3.5 standard deviations wide)."""
    counts = Counter[int]()
    for seed in range(300):
        game = mm("3H 8C 9S/4D 4S 9S/5D 5S 6H/6D 6S 8H", "5H", false_accusation=1.0, seed=seed)
        game.step("3H")
        counts.update(s for s in (1, 2, 3) if game.hand_sizes()[s] == 8)
    assert sum(counts.values()) == 300
    assert all(70 <= counts[s] <= 130 for s in (1, 2, 3)), counts


def test_MM_CALL_1_no_false_accusation_after_the_winning_card() -> None:
    """MM-CALL-1 + MM-SCORE-1: the round ends when a player has no cards; a false accusation
    (``false_accusation=1.0``) cannot come after the last card and change the points."""
    for seed in range(6):
        game = mm("3H/4D 4S 9S/5D 5S 6H/6D 6S 8H", "5H", false_accusation=1.0, seed=seed)
        game.step("3H")
        outcome = game.outcome()
        assert outcome is not None and outcome.winner == 0
        assert outcome.round_points == (0, 17, 16, 20), (seed, game.position())


def test_MM_CALL_1_call_is_offered_when_answering_a_seven_with_two_cards() -> None:
    """MM-CALL-1 (docs/rules.md: the call is "legal at any time of the player's turn"): a
    player holding two cards who answers a 7 with a 7 discards without drawing, so must be
    able to call first; with the call the answer costs nothing."""
    game = pos(
        "mau_mau",
        "hands=3C 4C 5D/7S 6D/8S 9S 3S/2C 2D 5S; discard=4H 7H; draw=KC QC JC 10C 6C 8D 8H; "
        "colour=H; seat=1; dir=+; phase=answer; pending=2; from=0",
    )
    assert legal(game) == {"7S", "accept", "call"}
    game.step("call")
    game.step("7S")
    assert hand(game, 1) == ["6D"]
    assert field(game, "pending") == "4"


def test_MM_CALL_1_call_is_offered_inside_a_multi_card_play() -> None:
    """MM-CALL-1 with ``multi_play="same_rank"``: a player laying two of three cards in one
    play is left with one; the call must be offered once two cards are left (as U-UNO-1
    offers it), else the play is punished however the player acts."""
    game = mm("5H 5S 9D/4D 4S 9S/5D 6S 6H/6D 2S 8H", "4H", multi_play="same_rank")
    game.step("5H")
    assert game.phase == Phase.CONTINUE
    assert legal(game) == {"5S", "pass", "call"}


def test_MM_CALL_1_H_JUMP_1_a_jumper_with_two_cards_owes_the_call_and_may_make_it() -> None:
    """MM-CALL-1 with H-JUMP-1: a player who jumps in with the second-to-last card discards
    without drawing, so owes the call. The window offers the call at two cards (not at
    three), and a missed call is caught (5 cards) even though the player before drew the
    card the jumper copies: that draw was not the jumper's."""
    start = "hands=9D 9S/2C KS/2S 3S 4S/8D 8S; discard=5C; " + MM4.format(c="C", s=0, d="+")
    missed = pos("mau_mau", start, jump_in=True)
    missed.step("draw")  # draws 2C, playable on 5C
    missed.step("2C")
    assert missed.phase == Phase.JUMP_IN and missed.current_player == 1
    assert legal(missed) == {"2C", "pass", "call"}
    called = missed.clone()
    missed.step("2C")
    assert_position(
        missed,
        "hands=9D 9S/3C 4C 5C 6C 8C KS/2S 3S 4S/8D 8S; discard=5C 2C 2C; draw=10C KC; "
        "colour=C; seat=2; dir=+; phase=play",
    )
    called.step("call")
    called.step("2C")
    assert_position(
        called,
        "hands=9D 9S/KS/2S 3S 4S/8D 8S; discard=5C 2C 2C; draw=3C 4C 5C 6C 8C 10C KC; "
        "colour=C; seat=2; dir=+; phase=play; called=1",
    )
    three = pos("mau_mau", start.replace("2C KS/", "2C 7H KS/"), jump_in=True)
    three.step("draw")
    three.step("2C")
    assert legal(three) == {"2C", "pass"}


def test_MM_CALL_1_no_call_needed_after_drawing() -> None:
    """MM-CALL-1: the call is owed by "a player holding 2 cards who will discard one
    without drawing"; a player who started the turn with one card, drew a second and lays
    one owes no call, so it is not a missed call (``uno_catch=1.0``)."""
    game = mm("9D/4D 4S 9S/5D 5S 6H/6D 6S 8H", "5C", colour="C", uno_catch=1.0)
    game.step("draw")  # draws 2C, playable on 5C
    assert legal(game) == {"2C", "pass", "call"}
    game.step("2C")
    assert_position(
        game,
        "hands=9D/4D 4S 9S/5D 5S 6H/6D 6S 8H; discard=5C 2C; draw=3C 4C 5C 6C 8C 10C KC; "
        "colour=C; seat=1; dir=+; phase=play",
    )


def test_MM_CALL_1_U_SCORE_3_a_draw_that_ended_the_last_round_excuses_no_call_in_the_next() -> None:
    """MM-CALL-1 in a match (U-SCORE-3) with several cards laid at once (MC-TURN-1): seat 0
    draws 5S and lays 5H 5S, going out after drawing. The draw belonged to that turn of the
    last round: the first player of the next round (a starting card without effect, so the
    turn is not begun through a play) who lays down to one card without calling is caught
    (5 cards), as in the same position built afresh."""
    start = (
        "hands=5H/4D 4S 9S/6D 6S 6H/8D 8S 8H; discard=4H; draw=5S 2C 3C 10C KC 2D 3D; "
        "colour=H; seat=0; dir=+; phase=play"
    )
    rules = {"multi_play": "same_rank", "match": "lowest_total", "hand_size": 2, "start_card": "number_only"}
    for seed in range(50):  # a deal whose first player holds a card to lay
        game = pos("mau_mau", start, seed=seed, **rules)
        for action in ("draw", "5H", "5S"):
            game.step(action)
        assert game.outcome() is None and fields(game.position())["round"] == "1"
        cards = sorted(legal(game) - {"draw", "call"})
        if game.phase == Phase.PLAY and cards:
            break
    else:
        pytest.fail("no deal with a card to lay in seeds 0..49")
    seat = game.current_player
    afresh = pos("mau_mau", game.position(), seed=seed, **rules)
    assert game.hand_sizes()[seat] == 2
    game.step(cards[0])
    afresh.step(cards[0])
    assert game.hand_sizes()[seat] == 1 + 5
    assert game.position() == afresh.position()


def test_MM_CALL_1_a_call_with_one_card_is_not_a_false_call() -> None:
    """MM-CALL-1: a false call is one "with more than 2 cards, or 2 cards and none playable"
    (the source: "tendo mais de 2 cartas na mão, ou se tiver 2 cartas porém nenhuma adequada");
    a player who drew and laid down to one card (no call owed) and calls on a later turn
    holding that one card makes neither: no penalty; the call stands while they hold it."""
    game = mm("9D/4D 4S 9S/5D 5S 6H/6D 6S 8H", "5C", colour="C")
    assert legal(game) == {"draw", "call"}
    game.step("call")
    assert_position(
        game,
        "hands=9D/4D 4S 9S/5D 5S 6H/6D 6S 8H; discard=5C; draw=2C 3C 4C 5C 6C 8C 10C KC; "
        "colour=C; seat=0; dir=+; phase=play; called=0",
    )
    assert game.called() == [True, False, False, False]
    assert legal(game) == {"draw"}


# ================================================================ MM-SCORE-1
SCORE_POSITION = "hands=5H/AH 10C JS/QD KD 7C 2S/9S 9D 3C AD"


def test_MM_SCORE_1_points_left_in_hand_lower_is_better() -> None:
    """MM-SCORE-1: the round ends when a hand is empty; each player scores the cards left:
    face value, Jack 30, Queen and King 10, Ace 1; the winner 0; ranked by points."""
    game = mm(SCORE_POSITION[6:], "5D", colour="D")
    game.step("5H")
    outcome = game.outcome()
    assert outcome is not None
    # seat 1: 1 + 10 + 30; seat 2: 10 + 10 + 7 + 2; seat 3: 9 + 9 + 3 + 1
    assert outcome.round_points == (0, 41, 29, 22)
    assert outcome.scores == (0, 41, 29, 22)
    assert outcome.winner == 0
    assert outcome.ranking == (0, 3, 2, 1)
    assert outcome.reason == "win" and not outcome.truncated
    assert game.phase == Phase.OVER and game.current_player == -1


def test_MM_SCORE_1_ace_points_option_changes_the_ranking() -> None:
    """MM-SCORE-1 ``ace_points=11``: seat 1 scores 51, seat 3 32: seat 2 (29) now ranks
    above seat 3."""
    game = mm(SCORE_POSITION[6:], "5D", colour="D", ace_points=11)
    game.step("5H")
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.round_points == (0, 51, 29, 32)
    assert outcome.ranking == (0, 2, 3, 1)


def test_MM_SCORE_1_ties_rank_clockwise_from_the_winner() -> None:
    """MM-SCORE-1: equal points keep seat order clockwise from the winner (seat 2 wins;
    seats 3, 0 and 1 hold 5 points each)."""
    game = mm("5C/5D/6H/5S", "6D", seat=2, colour="D")
    game.step("6H")
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.round_points == (5, 5, 0, 5)
    assert outcome.ranking == (2, 3, 0, 1)


def test_MM_SCORE_1_going_out_on_a_seven_ends_the_round_without_the_draw() -> None:
    """MM-SCORE-1 (the round ends when a player has no cards): a last card 7 ends the round at
    once; the next player does not draw its 2 (``last_card_draw=false``) and everyone
    scores their own hand."""
    game = mm("7H/4D 5D 6D/7C 5S KS/9D JS QD", "4H")
    game.step("7H")
    outcome = game.outcome()
    assert outcome is not None
    assert game.hand_sizes() == [0, 3, 3, 3]
    assert outcome.round_points == (0, 15, 22, 49)
    assert (outcome.winner, outcome.ranking) == (0, (0, 1, 2, 3))


# ================================================================ MD-DECK-1
def test_MD_DECK_1_one_deck_up_to_four_players_two_above() -> None:
    """MD-DECK-1: ``RuleSet.deck_counts``: one French 52-card deck for 2-4 players, two for
    5-8; no jokers; 7 cards each; 2-8 players."""
    rules = preset("mau_mau_doubling")
    assert (rules.deck, rules.decks, rules.extra_deck_above, rules.jokers) == ("french", 1, 4, False)
    assert (rules.hand_size, rules.min_players, rules.max_players) == (7, 2, 8)
    for n in range(2, 9):
        copies = 1 if n <= 4 else 2
        counts = rules.deck_counts(n)
        assert counts[:52].tolist() == [copies] * 52, n
        assert not counts[52:].any(), n
        assert rules.deck_copies(n) == copies
        assert rules.deck_size(n) == 52 * copies


@pytest.mark.parametrize(("num_players", "copies"), [(2, 1), (4, 1), (5, 2), (8, 2)])
def test_MD_DECK_1_fresh_deal(num_players: int, copies: int) -> None:
    """MD-DECK-1: a fresh deal holds exactly one deck (up to 4 players) or two (5-8); 7 cards
    each, one starting card, the rest in the draw pile."""
    game = first_seed("mau_mau_doubling", num_players, top_rank_is(*PLAIN_RANKS["mau_mau_doubling"]))
    assert all_cards(game) == french_deck(copies)
    assert game.hand_sizes() == [7] * num_players
    assert game.draw_pile_size == 52 * copies - 7 * num_players - 1
    assert game.current_player == (dealer(game) + 1) % num_players


@pytest.mark.parametrize("num_players", [1, 9])
def test_MD_DECK_1_player_range_is_enforced(num_players: int) -> None:
    """MD-DECK-1: 2-8 players."""
    with pytest.raises(RuleError, match=re.escape("2..8")):
        Game("mau_mau_doubling", num_players, seed=0)


def test_MD_DECK_1_more_cards_than_the_engine_holds_is_refused() -> None:
    """MD-DECK-1 (``extra_deck_above``) on top of ``decks=2`` makes three copies. Three French
    decks (156 cards) fit a game's piles and play with every card conserved (E-CONS-1); three
    Uno decks (324 cards) exceed ``layout.MAX_CARDS`` and the rule set is refused."""
    rules = RuleSet(deck="french", dealer="random", decks=2, extra_deck_above=4, hand_size=1)
    assert rules.deck_size(5) == 156 <= L.MAX_CARDS
    result = uno_env.simulate(rules, 5, 20, seed=0, check_invariants=True)
    assert result.num_games == 20
    with pytest.raises(RuleError, match="at most 256"):
        RuleSet(decks=2, extra_deck_above=2)


# ================================================================ MD-DRAW-1
MD3 = "draw=2D 3D 6D 8D 10D QD KD 10H QH KH 2S 6S QS 3C; colour={c}; seat={s}; dir={d}; phase=play"


def md(hands: str, top: str, seat: int = 0, direction: str = "+", colour: str = "", **kw: Any) -> Game:
    """A ``mau_mau_doubling`` position (one deck) with a fixed draw pile."""
    colour = colour or top.split()[-1][-1]
    text = f"hands={hands}; discard={top}; " + MD3.format(c=colour, s=seat, d=direction)
    return pos("mau_mau_doubling", text, **kw)


def test_MD_DRAW_1_cannot_match_draw_one_and_the_turn_passes() -> None:
    """MD-DRAW-1: without a matching card the player must draw one card; the turn passes at
    once, even when the drawn card would match (it is not played this turn)."""
    game = md("3S 8S 9S/4H 4S 10S/5H 5S 6H", "5D")
    assert legal(game) == {"draw"}
    game.step("draw")  # 2D would match the 5D
    assert_position(
        game,
        "hands=2D 3S 8S 9S/4H 4S 10S/5H 5S 6H; discard=5D; "
        "draw=3D 6D 8D 10D QD KD 10H QH KH 2S 6S QS 3C; colour=D; seat=1; dir=+; phase=play",
    )


def test_MD_DRAW_1_no_drawing_while_a_card_matches() -> None:
    """MD-DRAW-1 (``draw_when_playable=false``): holding a matching card, drawing is not
    allowed."""
    game = md("3S 8S 5S/4H 4S 10S/5H 9S 6H", "5C")
    assert legal(game) == {"5S"}


# ================================================================ MD-ACE-1
def test_MD_ACE_1_ace_skips_the_next_player() -> None:
    """MD-ACE-1: an Ace skips the next player (three players: seat 0, then seat 2; two
    players: seat 0 again)."""
    game = md("AC 3S 8S/4H 4S 10S/5H 5S 6H", "4C")
    game.step("AC")
    assert game.current_player == 2
    assert game.hand_sizes() == [2, 3, 3]
    two = md("AC 3S 8S/4H 4S 10S", "4C")
    two.step("AC")
    assert two.current_player == 0
    assert two.phase == Phase.PLAY
    assert_position(
        two,
        "hands=3S 8S/4H 4S 10S; discard=4C AC; draw=2D 3D 6D 8D 10D QD KD 10H QH KH 2S 6S QS 3C; "
        "colour=C; seat=0; dir=+; phase=play",
    )


# ================================================================ MD-SEVEN-1
def test_MD_SEVEN_1_seven_makes_the_next_player_draw_three() -> None:
    """MD-SEVEN-1: after a 7 the next player plays a 7 or draws 3 (and the turn passes)."""
    game = md("7C 3S 8S/4H 4S 10S/5H 5S 6H", "4C")
    game.step("7C")
    assert game.current_player == 1
    assert game.phase == Phase.ANSWER
    assert field(game, "pending") == "3"
    assert legal(game) == {"accept"}
    game.step("accept")
    assert_position(
        game,
        "hands=3S 8S/2D 3D 6D 4H 4S 10S/5H 5S 6H; discard=4C 7C; "
        "draw=8D 10D QD KD 10H QH KH 2S 6S QS 3C; colour=C; seat=2; dir=+; phase=play",
    )


def test_MD_SEVEN_1_each_further_seven_doubles_3_6_12() -> None:
    """MD-SEVEN-1: each further 7 doubles the penalty: 3, 6, 12; the player without a 7
    draws all 12 (two players, so the 7s go back and forth)."""
    game = md("7C 7H 3S 8S/7S 4S 10S 9H", "4C")
    game.step("7C")
    assert (game.current_player, field(game, "pending")) == (1, "3")
    assert legal(game) == {"7S"}  # the 7 is compulsory (must_answer)
    game.step("7S")
    assert (game.current_player, field(game, "pending"), field(game, "from")) == (0, "6", "1")
    assert legal(game) == {"7H"}
    game.step("7H")
    assert (game.current_player, field(game, "pending"), field(game, "from")) == (1, "12", "0")
    assert legal(game) == {"accept"}
    game.step("accept")
    assert_position(
        game,
        "hands=3S 8S/2D 3D 6D 8D 10D QD KD 10H QH KH 2S 6S 4S 10S 9H; discard=4C 7C 7S 7H; "
        "draw=QS 3C; colour=H; seat=0; dir=+; phase=play",
    )


def test_MD_SEVEN_1_a_player_holding_a_7_must_lay_it() -> None:
    """MD-SEVEN-1 ("Força o próximo jogador a descartar também um 7. Caso o próximo jogador não
    tenha, fica forçado a comprar 3 cartas"): the next player holding a 7 must lay one, accept
    is not offered; a player without a 7 draws 3. With ``must_answer=False`` the player may take
    the 3 cards while holding a 7."""
    game = md("7C 3S 8S/7S 4S 10S/5H 5S 6H", "4C")
    game.step("7C")
    assert (game.current_player, game.phase, field(game, "pending")) == (1, Phase.ANSWER, "3")
    assert legal(game) == {"7S"}
    game.step("7S")
    assert (game.current_player, field(game, "pending"), field(game, "from")) == (2, "6", "1")
    assert legal(game) == {"accept"}
    optional = md("7C 3S 8S/7S 4S 10S/5H 5S 6H", "4C", must_answer=False)
    optional.step("7C")
    assert legal(optional) == {"7S", "accept"}
    optional.step("accept")
    assert_position(
        optional,
        "hands=3S 8S/2D 3D 6D 7S 4S 10S/5H 5S 6H; discard=4C 7C; "
        "draw=8D 10D QD KD 10H QH KH 2S 6S QS 3C; colour=C; seat=2; dir=+; phase=play",
    )


def test_MD_SEVEN_1_taking_the_penalty_proves_no_seven_is_held() -> None:
    """MD-SEVEN-1 with ``must_answer``: a player who takes the pending 7's cards held no 7, so
    the public record (``L.VOID_FACES``, what the search's samplers keep) says so, with the 6
    cards drawn as slack; where the 7 is optional, taking the cards proves nothing."""
    sevens = sum(1 << parse_face(f"7{suit}", "french") for suit in "CDHS")
    game = md("7C 3S 8S/7S 4S 10S/5H 5S 6H", "4C")
    game.step("7C")
    game.step("7S")
    game.step("accept")
    assert (game.state[L.VOID_FACES + 2], game.state[L.VOID_SLACK + 2]) == (sevens, 6)
    optional = md("7C 3S 8S/7S 4S 10S/5H 5S 6H", "4C", must_answer=False)
    optional.step("7C")
    optional.step("accept")
    assert optional.state[L.VOID_FACES + 1] == 0


def test_MD_SEVEN_1_sevens_laid_together_double_as_in_sequence() -> None:
    """MD-SEVEN-1 ("each further 7 doubles the penalty (3, 6, 12, ...)") with
    ``multi_play="same_rank"``: three 7s laid in one play send 3, 6, 12, the same 12 as
    one 7 answered by two (3 doubled twice), not 3 + 3 + 3."""
    together = md("7C 7H 7S 9D/4D 4S 9S 5C/5D 5S 6H", "4C", multi_play="same_rank")
    for card in ("7C", "7H", "7S"):
        together.step(card)
    assert (together.current_player, together.phase) == (1, Phase.ANSWER)
    assert (field(together, "pending"), field(together, "from")) == ("12", "0")
    answered = md("7C 9D/4D 4S 9S 7D 7S 7H/5D 5S 6H", "4C", multi_play="same_rank")
    for card in ("7C", "7D", "7S", "pass"):
        answered.step(card)
    assert (answered.current_player, field(answered, "pending"), field(answered, "from")) == (2, "12", "1")
    assert legal(together) == {"accept"}
    together.step("accept")
    assert_position(
        together,
        "hands=9D/2D 3D 6D 8D 10D QD KD 10H QH KH 2S 6S 4D 4S 9S 5C/5D 5S 6H; "
        "discard=4C 7C 7H 7S; draw=QS 3C; colour=S; seat=2; dir=+; phase=play",
    )


def test_MD_SEVEN_1_three_players_the_doubled_penalty_goes_round_the_table() -> None:
    """MD-SEVEN-1 with three players: 3, 6, 12 passes round the table back to the first
    player, who must lay their second 7 (24) since they hold one."""
    game = md("7C 7H 3S/7S 4S 10S/7D 5H 6H", "4C")
    game.step("7C")
    game.step("7S")
    assert (game.current_player, field(game, "pending")) == (2, "6")
    game.step("7D")
    assert (game.current_player, field(game, "pending"), field(game, "from")) == (0, "12", "2")
    assert legal(game) == {"7H"}
    game.step("7H")
    assert (game.current_player, field(game, "pending"), field(game, "from")) == (1, "24", "0")
    assert legal(game) == {"accept"}


# ================================================================ MD-NINE-1
def test_MD_NINE_1_previous_player_draws_one() -> None:
    """MD-NINE-1: after a 9 the previous player draws 1; the next player plays."""
    game = md("3S 8S 2H/9C 4S 10S/5H 5S 6H", "4C", seat=1)
    game.step("9C")
    assert_position(
        game,
        "hands=2D 3S 8S 2H/4S 10S/5H 5S 6H; discard=4C 9C; "
        "draw=3D 6D 8D 10D QD KD 10H QH KH 2S 6S QS 3C; colour=C; seat=2; dir=+; phase=play",
    )


# ================================================================ MD-JACK-1
def test_MD_JACK_1_jack_is_wild_even_on_a_seven() -> None:
    """MD-JACK-1: a Jack takes any value and suit, on any card (the doubling-sevens source has no
    7 exception); its player names the suit; the next player follows it (or plays a Jack)."""
    game = md("JS 3H 8H/4D 4S 10S JC/5H 5S 6H", "7C")
    assert legal(game) == {"JS"}
    game.step("JS")
    assert game.phase == Phase.CHOOSE_COLOUR and game.current_player == 0
    game.step("suit D")
    assert_position(
        game,
        "hands=3H 8H/4D 4S 10S JC/5H 5S 6H; discard=7C JS; "
        "draw=2D 3D 6D 8D 10D QD KD 10H QH KH 2S 6S QS 3C; colour=D; seat=1; dir=+; phase=play",
    )
    assert legal(game) == {"4D", "JC"}


def test_MD_JACK_1_jack_does_not_answer_a_pending_seven() -> None:
    """MD-JACK-1 + MD-SEVEN-1: a pending 7 is answered only by a 7 (and must be, the player
    holding one); a Jack alone does not save the player from drawing."""
    game = pos(
        "mau_mau_doubling",
        "hands=3H 8H/JS JC 7D 4S/5H 5S 6H; discard=4C 7C; draw=2D 3D 6D; colour=C; seat=1; "
        "dir=+; phase=answer; pending=3; from=0",
    )
    assert legal(game) == {"7D"}
    jacks = pos(
        "mau_mau_doubling",
        "hands=3H 8H/JS JC 4S/5H 5S 6H; discard=4C 7C; draw=2D 3D 6D; colour=C; seat=1; "
        "dir=+; phase=answer; pending=3; from=0",
    )
    assert legal(jacks) == {"accept"}


# ================================================================ MD-NOTE
def test_MD_NOTE_exactly_the_four_described_special_cards() -> None:
    """MD-NOTE: the doubling-sevens source announces five special cards and describes four; the
    preset has exactly those four (Ace skip, 7 draw 3, 9 previous draws 1, Jack wild) and no
    fifth: every other rank has no effect (the Queen does not reverse), and there are no jokers."""
    rules = preset("mau_mau_doubling")
    table = rules.effect_table()
    expected = {"A": (L.EF_SKIP, 0), "7": (L.EF_DRAW, 3), "9": (L.EF_PREVIOUS_DRAWS, 1), "J": (L.EF_WILD, 0)}
    for suit_index, suit in enumerate(FRENCH_SUITS):
        for rank_index, token in enumerate(FRENCH_RANKS):
            face = suit_index * 13 + rank_index
            assert table[face] == expected.get(token, (L.EF_NONE, 0)), f"{token}{suit}"
    assert sorted(rules.card_effects) == sorted(["A:skip", "7:draw:3", "9:previous_draws:1", "J:wild"])
    assert rules.stacking == ("7/7",) and rules.stack_growth == "double"
    assert rules.jokers is False and rules.call == "none"
    assert rules.round_score == "own_points"  # docs/rules.md: MD-NOTE scores by MM-SCORE-1


def test_MD_NOTE_starting_card_applies_its_effect_to_the_first_player() -> None:
    """MD-NOTE (docs/rules.md): the starting card applies its effect to the first player, as
    U-START-1: a 7 makes them draw 3 and skips them; an Ace skips them; a 9 makes the dealer
    draw 1; a Jack lets them name the suit, then they play."""
    n = 3
    seven = first_seed("mau_mau_doubling", n, top_rank_is("7"))
    first = (dealer(seven) + 1) % n
    sizes = [7] * n
    sizes[first] = 10
    assert seven.hand_sizes() == sizes
    assert (seven.current_player, seven.phase) == ((first + 1) % n, Phase.PLAY)
    ace = first_seed("mau_mau_doubling", n, top_rank_is("A"))
    assert ace.current_player == (dealer(ace) + 2) % n
    assert ace.hand_sizes() == [7] * n
    nine = first_seed("mau_mau_doubling", n, top_rank_is("9"))
    sizes = [7] * n
    sizes[dealer(nine)] = 8
    assert nine.hand_sizes() == sizes
    assert nine.current_player == (dealer(nine) + 1) % n
    jack = first_seed("mau_mau_doubling", n, top_rank_is("J"))
    first = (dealer(jack) + 1) % n
    assert (jack.current_player, jack.phase) == (first, Phase.CHOOSE_COLOUR)
    jack.step("suit H")
    assert (jack.current_player, jack.phase) == (first, Phase.PLAY)
    assert jack.active_colour == FRENCH_SUITS.index("H")


# ================================================================ MC-DECK-1
def test_MC_DECK_1_one_french_deck_jokers_optional() -> None:
    """MC-DECK-1: one French 52-card deck, 5 cards each, 2-8 players; MC-OPT-1 jokers add a
    black and a red joker."""
    rules = preset("macao")
    assert (rules.deck, rules.decks, rules.extra_deck_above, rules.jokers) == ("french", 1, 0, False)
    assert (rules.hand_size, rules.min_players, rules.max_players) == (5, 2, 8)
    with_jokers = rules.with_overrides({"jokers": True})
    for n in range(2, 9):
        assert rules.deck_counts(n)[:52].tolist() == [1] * 52
        assert not rules.deck_counts(n)[52:].any()
        assert with_jokers.deck_counts(n)[52:54].tolist() == [1, 1]
        assert with_jokers.deck_size(n) == 54


@pytest.mark.parametrize("num_players", [2, 5, 8])
def test_MC_DECK_1_fresh_deal(num_players: int) -> None:
    """MC-DECK-1: a fresh deal is the 52-card deck, 5 cards each; the first player is left
    of the dealer (the starting card never has an effect, MC-START-1)."""
    for seed in range(3):
        game = Game("macao", num_players, seed=seed)
        assert all_cards(game) == french_deck(1)
        assert game.hand_sizes() == [5] * num_players
        assert game.draw_pile_size == 52 - 5 * num_players - 1
        assert game.current_player == (dealer(game) + 1) % num_players
        assert game.phase == Phase.PLAY


def test_MC_DECK_1_fresh_deal_with_jokers() -> None:
    """MC-DECK-1 + MC-OPT-1: with ``jokers=True`` the deal holds the 54 cards."""
    game = Game("macao", 4, seed=1, jokers=True)
    assert all_cards(game) == french_deck(1, jokers=True)


@pytest.mark.parametrize("num_players", [1, 9])
def test_MC_DECK_1_player_range_is_enforced(num_players: int) -> None:
    """MC-DECK-1: 2-8 players."""
    with pytest.raises(RuleError, match=re.escape("2..8")):
        Game("macao", num_players, seed=0)


# ================================================================ MC-START-1
SPECIAL_MACAO = {"A", "2", "3", "4"}


@pytest.mark.parametrize("num_players", [2, 8])
def test_MC_START_1_the_starting_card_is_never_special(num_players: int) -> None:
    """MC-START-1: over 150 fresh deals the starting card is never an Ace, 2, 3 or 4 (about
    a third of random cards would be), every other rank starts sometimes; the deck stays
    whole."""
    seen = set()
    for seed in range(150):
        game = Game("macao", num_players, seed=seed)
        top = str(game.top_card)
        assert rank(top) not in SPECIAL_MACAO, (seed, top)
        assert discard(game) == [top]
        seen.add(rank(top))
        if seed < 10:
            assert all_cards(game) == french_deck(1)
    assert seen == PLAIN_RANKS["macao"]


def test_MC_START_1_with_jokers_and_kings_they_are_replaced_too() -> None:
    """MC-START-1 + MC-OPT-1: with jokers and the kings' effects on, neither a joker nor the
    King of hearts or spades starts; the other kings (no effect) may."""
    rules = preset("macao").with_overrides({"jokers": True, "card_effects": (*MACAO_EFFECTS, *MACAO_KINGS)})
    tops = Counter[str]()
    for seed in range(200):
        game = Game(rules, 3, seed=seed)
        tops[str(game.top_card)] += 1
    assert not {"JKB", "JKR", "KH", "KS"} & set(tops), tops
    assert not {rank(t) for t in tops} & SPECIAL_MACAO
    assert tops["KC"] + tops["KD"] > 0, tops


# ================================================================ MC-TURN-1
MC_DRAW = "draw=KC QC JC 10C 9C 8C 7C 6C 5C"  # the nine clubs without an effect


def mc(hands: str, top: str, seat: int = 0, colour: str = "", draw: str = MC_DRAW, **kw: Any) -> Game:
    """A ``macao`` position (one deck); the default draw pile holds no special card."""
    colour = colour or top.split()[-1][-1]
    text = f"hands={hands}; discard={top}; {draw}; colour={colour}; seat={seat}; dir=+; phase=play"
    return pos("macao", text, **kw)


def test_MC_TURN_1_several_cards_of_one_value_in_one_play() -> None:
    """MC-TURN-1: a player lays at least one matching card and may add more of the same
    value (any suit) one by one, then stops with ``pass``; the last card is the top card."""
    game = mc("5H 5S 5D 9S/7S 6D 2S 8S/QH KH JH", "4H")
    assert legal(game) == {"5H"}
    game.step("5H")
    assert game.phase == Phase.CONTINUE and game.current_player == 0
    assert legal(game) == {"5S", "5D", "pass"}
    game.step("5D")
    assert legal(game) == {"5S", "pass", "call"}  # MC-CALL-1: two cards left
    game.step("pass")
    assert_position(
        game,
        f"hands=5S 9S/7S 6D 2S 8S/QH KH JH; discard=4H 5H 5D; {MC_DRAW}; colour=D; seat=1; dir=+; phase=play",
    )
    assert legal(game) == {"6D"}


def test_MC_TURN_1_the_play_ends_by_itself_when_no_card_of_the_value_is_left() -> None:
    """MC-TURN-1: after the last card of the value the play is complete, no ``pass`` asked."""
    game = mc("5H 5S 9S 10S/7S 6D 2S 8S/QH KH JH", "4H")
    game.step("5H")
    game.step("5S")
    assert_position(
        game,
        "hands=9S 10S/7S 6D 2S 8S/QH KH JH; discard=4H 5H 5S; "
        "draw=KC QC JC 10C 9C 8C 7C 6C 5C; colour=S; seat=1; dir=+; phase=play",
    )


def test_MC_TURN_1_cannot_lay_draw_one_and_the_turn_passes() -> None:
    """MC-TURN-1: a player who cannot lay draws one card (drawing is offered only then) and
    the turn passes, even if the drawn card matches."""
    game = mc("5H 5S 9S/7S 6D 2S 8S/QH KH JH", "4C")
    assert legal(game) == {"draw"}
    game.step("draw")  # KC would match the 4C
    assert_position(
        game,
        "hands=5H 5S 9S KC/7S 6D 2S 8S/QH KH JH; discard=4C; draw=QC JC 10C 9C 8C 7C 6C 5C; "
        "colour=C; seat=1; dir=+; phase=play",
    )


def test_MC_TURN_1_draw_and_sit_out_amounts_of_one_play_add_up() -> None:
    """MC-TURN-1 + MC-DRAW-1 / MC-FOUR-1: two 2s send 4 cards, two 4s send 2 turns."""
    game = mc("2H 2S 9S/7S 6D 5S 8S/QH KH JH", "4H")
    game.step("2H")
    game.step("2S")
    assert (game.current_player, game.phase) == (1, Phase.ANSWER)
    assert field(game, "pending") == "4" and field(game, "from") == "0"
    game = mc("4H 4S 9S/7S 6D 5S 8S/QH KH JH", "6H")
    game.step("4H")
    game.step("4S")
    assert (game.current_player, game.phase) == (1, Phase.ANSWER)
    assert field(game, "skip") == "2" and field(game, "pending") is None


# ================================================================ MC-RESHUFFLE-1
def test_MC_RESHUFFLE_1_empty_draw_pile_refilled_from_the_discards_minus_the_top() -> None:
    """MC-RESHUFFLE-1: drawing from an empty pile first shuffles the discard pile except its
    top card into a new draw pile."""
    for seed in range(4):
        game = mc("5S 9S 10S/7S 6D 8S/QH KH JH", "2C 8C 9C 5H", seat=1, draw="draw=-", seed=seed)
        game.step("draw")
        drawn = Counter(hand(game, 1)) - Counter(["7S", "6D", "8S"])
        assert sum(drawn.values()) == 1
        assert Counter(draw_pile(game)) + drawn == Counter(["2C", "8C", "9C"])
        assert discard(game) == ["5H"]
        assert game.current_player == 2
        assert all_cards(game) == Counter(
            ["5S", "9S", "10S", "7S", "6D", "8S", "QH", "KH", "JH", "2C", "8C", "9C", "5H"]
        )


def test_MC_RESHUFFLE_1_a_penalty_draws_across_the_reshuffle() -> None:
    """MC-RESHUFFLE-1 + MC-DRAW-1: a 3-card penalty with one card left draws it, then the
    two reshuffled discards (all but the top 3H)."""
    game = pos(
        "macao",
        "hands=5S 9S 10S/7S 6D 8S/QH KH JH; discard=8C 9C 3H; draw=KD; colour=H; seat=1; dir=+; "
        "phase=answer; pending=3; from=0",
    )
    game.step("accept")
    assert sorted(hand(game, 1)) == sorted(["7S", "6D", "8S", "KD", "8C", "9C"])
    assert draw_pile(game) == [] and discard(game) == ["3H"]
    assert game.current_player == 2


def test_MC_RESHUFFLE_1_nothing_to_draw_the_turn_passes() -> None:
    """MC-RESHUFFLE-1 / U-DRAW-4: with the draw pile empty and only the top card on the
    discard pile, a player who cannot lay draws nothing and the turn passes."""
    game = mc("5S 9S 10S/7S 6D 8S/QH KH JH", "4C", draw="draw=-")
    assert legal(game) == {"draw"}
    game.step("draw")
    assert_position(
        game, "hands=5S 9S 10S/7S 6D 8S/QH KH JH; discard=4C; draw=-; colour=C; seat=1; dir=+; phase=play"
    )


# ================================================================ MC-CALL-1
def test_MC_CALL_1_call_then_lay_no_penalty() -> None:
    """MC-CALL-1: with two cards the player may call "macao" and lay one: no penalty."""
    game = mc("5H 9S/7S 6D 2S 8S/QH KH JH", "4H")
    assert legal(game) == {"5H", "call"}
    game.step("call")
    assert game.called() == [True, False, False]
    game.step("5H")
    assert_position(
        game,
        "hands=9S/7S 6D 2S 8S/QH KH JH; discard=4H 5H; "
        "draw=KC QC JC 10C 9C 8C 7C 6C 5C; colour=H; seat=1; dir=+; phase=play; called=0",
    )


def test_MC_CALL_1_left_with_one_card_without_the_call_draws_five() -> None:
    """MC-CALL-1: left with one card without the call: 5 cards (``uno_catch=1.0``)."""
    game = mc("5H 9S/7S 6D 2S 8S/QH KH JH", "4H")
    game.step("5H")
    assert_position(
        game,
        "hands=KC QC JC 10C 9C 9S/7S 6D 2S 8S/QH KH JH; discard=4H 5H; draw=8C 7C 6C 5C; "
        "colour=H; seat=1; dir=+; phase=play",
    )


def test_MC_CALL_1_no_call_with_three_cards_and_one_inside_a_multi_play() -> None:
    """MC-CALL-1: the call is offered only with two cards: not at three; inside a multi-card
    play, once two cards are left; calling there saves the 5 cards, not calling costs them."""
    called = mc("5H 5D 9S/7S 6D 2S 8S/QH KH JH", "4H")
    assert legal(called) == {"5H"}
    called.step("5H")
    assert legal(called) == {"5D", "pass", "call"}
    missed = called.clone()
    called.step("call")
    called.step("5D")
    assert hand(called, 0) == ["9S"] and called.current_player == 1
    missed.step("5D")
    assert sorted(hand(missed, 0)) == sorted(["9S", "KC", "QC", "JC", "10C", "9C"])
    assert missed.current_player == 1


def test_MC_CALL_1_call_offered_when_answering_with_two_cards() -> None:
    """MC-CALL-1: the call is also offered when answering a penalty with two cards."""
    game = pos(
        "macao",
        "hands=5S 9S 10S/2S 9D/QH KH JH; discard=2H; draw=KD 8D; colour=H; seat=1; dir=+; "
        "phase=answer; pending=2; from=0",
    )
    assert legal(game) == {"2S", "accept", "call"}
    game.step("call")
    game.step("2S")
    assert hand(game, 1) == ["9D"]
    assert (game.current_player, field(game, "pending")) == (2, "4")


# ================================================================ MC-FOUR-1
# four players, no special card but the 4s, no two cards of one rank in a hand
FOUR_HANDS = "4H 5D 6S 7H 8S 9D/4S 10D JS QH KS 5S/4D 6D 7S 8H 9S 10S/5H 6H 7D 8D 9H"


def test_MC_FOUR_1_a_four_makes_the_next_player_sit_out_one_turn() -> None:
    """MC-FOUR-1: after a 4 the next player answers with a 4 or sits out: accepting loses
    this turn only; play goes on with the player after them."""
    game = mc(FOUR_HANDS, "4C")
    game.step("4H")
    assert_position(
        game,
        "hands=5D 6S 7H 8S 9D/4S 10D JS QH KS 5S/4D 6D 7S 8H 9S 10S/5H 6H 7D 8D 9H; "
        f"discard=4C 4H; {MC_DRAW}; colour=H; seat=1; dir=+; phase=answer; skip=1; from=0",
    )
    assert legal(game) == {"4S", "accept"}
    game.step("accept")
    assert_position(
        game,
        "hands=5D 6S 7H 8S 9D/4S 10D JS QH KS 5S/4D 6D 7S 8H 9S 10S/5H 6H 7D 8D 9H; "
        f"discard=4C 4H; {MC_DRAW}; colour=H; seat=2; dir=+; phase=play",
    )
    assert seats_to_move(game, 4) == [2, 3, 0, 1]


def test_MC_FOUR_1_answered_fours_add_up_and_the_last_sits_them_all_out() -> None:
    """MC-FOUR-1: 4, 4, 4: the fourth player cannot answer and sits out 3 turns: this one
    and the next two of theirs, one per round; then plays again."""
    game = mc(FOUR_HANDS, "4C")
    game.step("4H")
    game.step("4S")
    assert (game.current_player, field(game, "skip"), field(game, "from")) == (2, "2", "1")
    game.step("4D")
    assert (game.current_player, field(game, "skip"), field(game, "from")) == (3, "3", "2")
    assert legal(game) == {"accept"}
    game.step("accept")
    assert field(game, "sitout") == "0 0 0 2"
    assert (game.current_player, game.phase) == (0, Phase.PLAY)
    assert seats_to_move(game, 3) == [0, 1, 2]
    assert field(game, "sitout") == "0 0 0 1"
    assert seats_to_move(game, 3) == [0, 1, 2]
    assert field(game, "sitout") is None
    assert seats_to_move(game, 4) == [0, 1, 2, 3]


def test_MC_FOUR_1_only_a_four_answers_a_four() -> None:
    """MC-FOUR-1 + MC-DRAW-1: a pending sit-out is answered by a 4 of any suit, never by a
    draw card of the same suit."""
    game = pos(
        "macao",
        "hands=5S 9S 10S/4S 2H 3H 5H 9D/QH KH JH; discard=4H; draw=KD 8D; colour=H; seat=1; "
        "dir=+; phase=answer; skip=1; from=0",
    )
    assert legal(game) == {"4S", "accept"}


def test_MC_FOUR_1_answering_with_the_last_four_leaves_and_the_next_sits_out_two() -> None:
    """MC-FOUR-1 + MC-END-1: a player who answers a 4 with their last card leaves; the next
    player in play cannot answer and sits out two turns: this one and their next."""
    game = pos(
        "macao",
        f"hands=5S 9S 10S/4S/QH KH JH; discard=4D; {MC_DRAW}; colour=D; seat=1; dir=+; "
        "phase=answer; skip=1; from=0; called=1",
    )
    game.step("4S")
    assert (game.current_player, game.phase, field(game, "skip"), field(game, "from")) == (
        2,
        Phase.ANSWER,
        "2",
        "1",
    )
    assert legal(game) == {"accept"}
    game.step("accept")
    assert_position(
        game,
        f"hands=5S 9S 10S//QH KH JH; discard=4D 4S; {MC_DRAW}; colour=S; seat=0; dir=+; phase=play; "
        "sitout=0 0 1; finished=0 1 0",
    )
    game.step("5S")  # seat 2 sits out its next turn too: seat 0 plays again
    assert_position(
        game,
        f"hands=9S 10S//QH KH JH; discard=4D 4S 5S; {MC_DRAW}; colour=S; seat=0; dir=+; phase=play; "
        "finished=0 1 0",
    )


def test_MC_FOUR_1_two_players_the_player_of_the_four_plays_again() -> None:
    """MC-FOUR-1 with two players: the other player sits out, so the player of the 4 plays
    again; two turns to sit out give them two turns in a row."""
    game = mc("4H 5H 6H 9S/7S 6D 8S", "4C")
    game.step("4H")
    assert legal(game) == {"accept"}
    game.step("accept")
    assert (game.current_player, game.phase, field(game, "sitout")) == (0, Phase.PLAY, None)
    game = mc("4H 5H 6H 9S/4S 8S 6S 2D", "4C")
    game.step("4H")
    game.step("4S")
    assert (game.current_player, field(game, "skip")) == (0, "2")
    game.step("accept")
    assert (game.current_player, game.phase, field(game, "sitout")) == (1, Phase.PLAY, "1 0")
    game.step("8S")
    assert (game.current_player, field(game, "sitout")) == (1, None)
    game.step("6S")
    assert game.current_player == 0


def test_MC_FOUR_1_a_player_sitting_out_who_takes_a_draw_penalty_still_sits_out() -> None:
    """MC-FOUR-1 (docs/rules.md): a player with a turn to sit out is still the next player for
    a 2: they draw its cards, and the turn to sit out is still owed."""
    game = pos(
        "macao",
        f"hands=2H 5S 6S/9D 8S 7D/QH KH JS; discard=6H; {MC_DRAW}; colour=H; seat=0; dir=+; phase=play; "
        "sitout=0 1 0",
    )
    game.step("2H")
    assert (game.current_player, game.phase, field(game, "pending")) == (1, Phase.ANSWER, "2")
    game.step("accept")
    assert_position(
        game,
        "hands=5S 6S/KC QC 9D 8S 7D/QH KH JS; discard=6H 2H; draw=JC 10C 9C 8C 7C 6C 5C; colour=H; "
        "seat=2; dir=+; phase=play; sitout=0 1 0",
    )
    game.step("QH")
    game.step("draw")  # seat 0 has no heart and no Queen
    assert (game.current_player, field(game, "sitout")) == (2, None)  # seat 1 sat out


def test_MC_FOUR_1_U_START_1_a_starting_four_of_two_turns_makes_the_first_player_sit_out_both() -> None:
    """MC-FOUR-1 + U-START-1 (``start_card = "official"``, the 4 sending two turns): the starting
    4's effect falls on the first player, who sits out both of its turns: this one, and one
    more owed (``sitout``, spent at their next turn as after an accepted 4)."""
    effects = ("A:choose_suit", "2:draw:2", "3:draw:3", "4:sit_out:2")
    game = first_seed("macao", 3, top_rank_is("4"), start_card="official", card_effects=effects)
    first = (dealer(game) + 1) % 3
    sitout = ["0", "0", "0"]
    sitout[first] = "1"
    assert (game.current_player, field(game, "sitout")) == ((first + 1) % 3, " ".join(sitout))
    assert game.hand_sizes() == [5, 5, 5] and game.phase == Phase.PLAY


# ================================================================ MC-DRAW-1
def test_MC_DRAW_1_twos_and_threes_add_up_answers_match_suit_or_rank() -> None:
    """MC-DRAW-1: a 2 or 3 makes the next player draw 2 or 3 unless they answer with a draw
    card matching the pile (suit or rank); totals add up; the last player draws them all
    and loses the turn."""
    game = mc("2H 9S 10S/3H 3S 2S 4H 8S/3C 2D 5H 9D/QH KH JH", "6H")
    game.step("2H")
    assert (game.current_player, field(game, "pending"), field(game, "from")) == (1, "2", "0")
    assert legal(game) == {"3H", "2S", "accept"}  # not 3S (neither suit nor rank), not 4H
    game.step("3H")
    assert (game.phase, legal(game)) == (Phase.CONTINUE, {"3S", "pass"})  # MC-TURN-1
    game.step("pass")
    assert (game.current_player, field(game, "pending"), field(game, "from")) == (2, "5", "1")
    assert legal(game) == {"3C", "accept"}
    game.step("3C")
    assert (game.current_player, field(game, "pending"), field(game, "from")) == (3, "8", "2")
    assert legal(game) == {"accept"}
    game.step("accept")
    assert_position(
        game,
        "hands=9S 10S/3S 2S 4H 8S/2D 5H 9D/KC QC JC 10C 9C 8C 7C 6C QH KH JH; "
        "discard=6H 2H 3H 3C; draw=5C; colour=C; seat=0; dir=+; phase=play",
    )


def test_MC_DRAW_1_a_two_alone_draws_two() -> None:
    """MC-DRAW-1: no answer: the next player draws 2 and the one after plays."""
    game = mc("2H 9S 10S/5S 9D 8D/QH KH JH", "6H")
    game.step("2H")
    assert legal(game) == {"accept"}
    game.step("accept")
    assert_position(
        game,
        "hands=9S 10S/KC QC 5S 9D 8D/QH KH JH; discard=6H 2H; draw=JC 10C 9C 8C 7C 6C 5C; "
        "colour=H; seat=2; dir=+; phase=play",
    )


def test_MC_DRAW_1_answering_with_the_last_card_leaves_and_passes_the_total_on() -> None:
    """MC-DRAW-1 + MC-END-1: a player who answers a pending 2 with their last card leaves;
    the total (4) goes on to the next player in play, who may answer it in turn (2H matches
    the 2S by rank)."""
    game = pos(
        "macao",
        f"hands=5S 9S 10S/2S/QH KH JH 2H; discard=2D; {MC_DRAW}; colour=D; seat=1; dir=+; "
        "phase=answer; pending=2; from=0; called=1",
    )
    game.step("2S")
    assert_position(
        game,
        f"hands=5S 9S 10S//QH KH JH 2H; discard=2D 2S; {MC_DRAW}; colour=S; seat=2; dir=+; "
        "phase=answer; pending=4; from=1; finished=0 1 0",
    )
    assert legal(game) == {"2H", "accept"}
    game.step("accept")
    assert_position(
        game,
        "hands=5S 9S 10S//KC QC JC 10C QH KH JH 2H; discard=2D 2S; draw=9C 8C 7C 6C 5C; colour=S; "
        "seat=0; dir=+; phase=play; finished=0 1 0",
    )


def test_MC_DRAW_1_a_three_of_another_suit_does_not_answer_a_two() -> None:
    """MC-DRAW-1: the answer is a draw card laid as any card, matching the pile: a 2 of any
    suit (rank) or a 3 of the active suit; a 3 of another suit, a 4 or an Ace does not."""
    game = pos(
        "macao",
        f"hands=5S 9S 10S/3S 3D 2C 4H AH 5H/QH KH JH; discard=2H; {MC_DRAW}; colour=H; seat=1; dir=+; "
        "phase=answer; pending=2; from=0",
    )
    assert legal(game) == {"2C", "accept"}
    game = pos(
        "macao",
        f"hands=5S 9S 10S/3S 3H 2C 4H AH 5H/QH KH JD; discard=2H; {MC_DRAW}; colour=H; seat=1; dir=+; "
        "phase=answer; pending=2; from=0",
    )
    assert legal(game) == {"3H", "2C", "accept"}


def test_MC_DRAW_1_MC_TURN_1_an_answer_in_progress_carries_the_pending_penalty_in_its_position() -> None:
    """MC-DRAW-1 + MC-TURN-1: seat 0 answers a pending 3 with 2H and may add 2S. Its position
    writes the answer (``kind=1``) carrying the 3 on (``carry=3``) and plays on to the same
    total (3 + 2 = 5). A position with the pending 3 but a normal play (no ``kind``/``carry``)
    would drop the 3 when the play ends (seat 1 would draw 2), so it is refused, as are an
    answer without a pending penalty and a carry that differs from it."""
    answer = (
        "hands=2H 2S 9S/9D 8S/QD; discard=6H 3H; draw=KC QC JC 10C 9C 8C 7C; colour=H; seat=0; dir=+; "
        "phase=answer; pending=3; from=2"
    )
    game = pos("macao", answer)
    game.step("2H")
    midplay = (
        "hands=2S 9S/9D 8S/QD; discard=6H 3H 2H; draw=KC QC JC 10C 9C 8C 7C; colour=H; seat=0; dir=+; "
        "phase=continue; pending=3; from=2; class=3"
    )
    assert_position(game, f"{midplay}; kind=1; carry=3")
    again = pos("macao", game.position())
    for played in (game, again):
        played.step("pass")
        assert_position(
            played,
            "hands=2S 9S/9D 8S/QD; discard=6H 3H 2H; draw=KC QC JC 10C 9C 8C 7C; colour=H; seat=1; "
            "dir=+; phase=answer; pending=5; from=0",
        )
    refusals = {
        midplay: "a penalty pending in the middle of a play is the one the play answers",
        f"{midplay}; kind=1": "so here carry=3 carryskip=0",
        f"{midplay}; kind=1; carry=2": "so here carry=3 carryskip=0",
        midplay.replace("; pending=3; from=2; class=3", "; kind=1; carry=3"): "needs the penalty it answers",
    }
    for text, message in refusals.items():
        with pytest.raises(PositionError, match=re.escape(message)):
            pos("macao", text)


# ================================================================ MC-ACE-1
def test_MC_ACE_1_ace_names_the_suit_but_is_not_wild() -> None:
    """MC-ACE-1: an Ace goes only where it matches (suit or rank); its player names a suit
    which the next player must follow (or answer the Ace's rank)."""
    game = mc("AS AH 5D 9D/6S AD 7H 10S/QH KH JH", "8H")
    assert legal(game) == {"AH"}
    game.step("AH")
    assert game.phase == Phase.CONTINUE
    assert legal(game) == {"AS", "pass"}
    game.step("pass")
    assert (game.phase, game.current_player) == (Phase.CHOOSE_COLOUR, 0)
    assert legal(game) == {"suit C", "suit D", "suit H", "suit S"}
    game.step("suit S")
    assert_position(
        game,
        "hands=AS 5D 9D/6S AD 7H 10S/QH KH JH; discard=8H AH; "
        "draw=KC QC JC 10C 9C 8C 7C 6C 5C; colour=S; seat=1; dir=+; phase=play",
    )
    assert legal(game) == {"6S", "10S", "AD"}


def test_MC_ACE_1_two_aces_in_one_play_name_one_suit() -> None:
    """MC-ACE-1 + MC-TURN-1: two Aces laid together name the suit once, at the end."""
    game = mc("AS AH 5D 9D/6S AD 7H 10S/QH KH JH", "8H")
    game.step("AH")
    game.step("AS")
    assert (game.phase, game.current_player) == (Phase.CHOOSE_COLOUR, 0)
    game.step("suit D")
    assert (game.phase, game.current_player, game.active_colour) == (Phase.PLAY, 1, 1)
    assert discard(game) == ["8H", "AH", "AS"]


def test_MC_ACE_1_the_named_suit_holds_until_a_card_is_laid() -> None:
    """MC-ACE-1: a player who cannot follow the named suit draws (the turn passes, MC-TURN-1);
    the named suit still holds for the next player."""
    game = mc("AH 5S 6S/9D 8S 7D/QH KH JS", "6H")
    game.step("AH")
    game.step("suit C")
    assert legal(game) == {"draw"}
    game.step("draw")
    assert (game.current_player, game.active_colour) == (2, FRENCH_SUITS.index("C"))
    assert legal(game) == {"draw"}  # no club, no Ace
    game.step("draw")
    assert_position(
        game,
        "hands=5S 6S/KC 9D 8S 7D/QC QH KH JS; discard=6H AH; draw=JC 10C 9C 8C 7C 6C 5C; colour=C; "
        "seat=0; dir=+; phase=play",
    )


# ================================================================ MC-OPT-1
def test_MC_OPT_1_black_joker_only_on_black_red_joker_only_on_red() -> None:
    """MC-OPT-1: the black joker goes only on clubs or spades, the red only on diamonds or
    hearts; the active suit decides (an Ace may have named it)."""
    hands = "JKB JKR 5C 9D/7S 6C 2S/8D 5D 9S"
    draw = "draw=KD QD"
    assert legal(mc(hands, "4S", draw=draw, jokers=True)) == {"JKB"}
    assert legal(mc(hands, "4C", draw=draw, jokers=True)) == {"JKB", "5C"}
    assert legal(mc(hands, "4H", draw=draw, jokers=True)) == {"JKR"}
    assert legal(mc(hands, "6D", draw=draw, jokers=True)) == {"JKR", "9D"}
    assert legal(mc(hands, "AH", colour="S", draw=draw, jokers=True)) == {"JKB"}


@pytest.mark.parametrize(("joker", "top", "amount"), [("JKB", "4S", 5), ("JKR", "4H", 10)])
def test_MC_OPT_1_jokers_make_the_next_player_draw(joker: str, top: str, amount: int) -> None:
    """MC-OPT-1: black joker: the next player draws 5; red joker: 10. The suit stays."""
    draw = ["KC", "QC", "JC", "10C", "9C", "8C", "7C", "6C", "5C", "10D", "QD", "KD"]
    game = mc("JKB JKR 5H 9D/7D 6D 8H/8D 5D 9S", top, draw="draw=" + " ".join(draw), jokers=True)
    game.step(joker)
    assert (game.current_player, game.phase) == (1, Phase.ANSWER)
    assert field(game, "pending") == str(amount)
    assert game.active_colour == FRENCH_SUITS.index(top[-1])
    game.step("accept")
    assert sorted(hand(game, 1)) == sorted(["7D", "6D", "8H", *draw[:amount]])
    assert draw_pile(game) == draw[amount:]
    assert game.current_player == 2


def test_MC_OPT_1_a_joker_answers_a_two_of_its_colour() -> None:
    """MC-OPT-1 + MC-DRAW-1: a joker answers a pending 2 of its colour: 2 + 10 = 12."""
    game = pos(
        "macao",
        "hands=5S 9S 10S/JKB JKR 9D/QH KH JH; discard=2H; draw=KD 8D; colour=H; seat=1; dir=+; "
        "phase=answer; pending=2; from=0",
        jokers=True,
    )
    assert legal(game) == {"JKR", "accept"}
    game.step("JKR")
    assert (game.current_player, field(game, "pending"), field(game, "from")) == (2, "12", "1")


def test_MC_OPT_1_MC_DRAW_1_a_joker_doubling_a_two_leaves_a_position_that_reads_back() -> None:
    """MC-OPT-1 + MC-DRAW-1 with ``stack_growth = "double"`` (MD-SEVEN-1's growth): the black
    joker laid on a pending 2 doubles it to 4, less than the joker's own 5. The position play
    leaves reads back and plays on the same; below twice the smallest draw (2) it is refused."""
    answer = (
        "hands=5S 9S/JKB 8D 10D/QD 7H; discard=6S 2S; draw=KC QC JC 10C 9C 8C 7C; colour=S; seat=1; "
        "dir=+; phase=answer; pending=2; from=0"
    )
    game = pos("macao", answer, jokers=True, stack_growth="double")
    game.step("JKB")
    after = (
        "hands=5S 9S/8D 10D/QD 7H; discard=6S 2S JKB; draw=KC QC JC 10C 9C 8C 7C; colour=S; seat=2; "
        "dir=+; phase=answer; pending=4; from=1"
    )
    assert_position(game, after)
    again = pos("macao", game.position(), jokers=True, stack_growth="double")
    for played in (game, again):
        played.step("accept")
        assert played.hand_sizes() == [2, 2, 6] and played.current_player == 0
    with pytest.raises(PositionError, match=re.escape("allowed: 4..")):
        pos("macao", after.replace("pending=4", "pending=3"), jokers=True, stack_growth="double")
    with pytest.raises(PositionError, match=re.escape("allowed: 5..")):
        pos("macao", after, jokers=True)  # adding, the joker's 5 is in the total


@pytest.mark.parametrize(
    ("name", "overrides"),
    [
        ("mau_mau", {"jokers": True}),
        ("mau_mau_doubling", {"jokers": True}),
        ("macao", {"jokers": True, "start_card": "official"}),
        ("macao", {"jokers": True, "card_effects": ("A:choose_suit",)}),
    ],
    ids=["mau_mau", "mau_mau_doubling", "macao-official-start", "macao-plain-jokers"],
)
def test_MC_OPT_1_a_starting_joker_leaves_an_active_suit(name: str, overrides: dict[str, Any]) -> None:
    """MC-OPT-1 jokers in a game whose starting card could be a joker (any starting rule but
    ``number_only`` with joker effects): a joker has no suit, yet play needs an active one, so
    a turned joker goes back into the pile like a Wild Draw Four under U-START-1 (docs/rules.md)
    and every game starts with a suit."""
    for seed in range(300):
        game = Game(name, 4, seed=seed, **overrides)
        assert str(game.top_card) not in ("JKB", "JKR"), game.position()
        assert 0 <= game.active_colour < 4, game.position()
        game.check_invariants()


KINGS = (*MACAO_EFFECTS, *MACAO_KINGS)


def test_MC_OPT_1_king_of_hearts_next_player_draws_five() -> None:
    """MC-OPT-1 (``card_effects`` + ``KH:draw:5``): after the King of hearts the next player
    owes 5 and may answer it (MC-DRAW-1: the preset's stack table pairs the kings with the
    draw cards); with no answer, accepting draws the 5 and loses the turn."""
    game = mc("KH 5S 9D/7D 6D 8H/8D 5D 9S", "4H", card_effects=KINGS)
    game.step("KH")
    assert_position(
        game,
        "hands=5S 9D/7D 6D 8H/8D 5D 9S; discard=4H KH; draw=KC QC JC 10C 9C 8C 7C 6C 5C; "
        "colour=H; seat=1; dir=+; phase=answer; pending=5; from=0",
    )
    assert legal(game) == {"accept"}
    game.step("accept")
    assert_position(
        game,
        "hands=5S 9D/KC QC JC 10C 9C 7D 6D 8H/8D 5D 9S; discard=4H KH; draw=8C 7C 6C 5C; "
        "colour=H; seat=2; dir=+; phase=play",
    )


def test_MC_OPT_1_MC_DRAW_1_enabled_king_of_hearts_answers_and_is_answered_by_default() -> None:
    """MC-DRAW-1 ("2, 3, or an enabled joker or king") with MC-OPT-1's King of hearts and the
    preset's own stack table: a 2 of hearts answers the King (5 + 2 = 7 passes on), the King
    answers a pending 2 of hearts (2 + 5 = 7), and a King without a draw effect (diamonds)
    never answers, even on its own rank's pile."""
    game = mc("KH 5S 9D/2H 6D 10S/8D 5D 9S", "4H", card_effects=KINGS)
    game.step("KH")
    assert legal(game) == {"2H", "accept"}
    game.step("2H")
    assert_position(
        game,
        "hands=5S 9D/6D 10S/8D 5D 9S; discard=4H KH 2H; draw=KC QC JC 10C 9C 8C 7C 6C 5C; "
        "colour=H; seat=2; dir=+; phase=answer; pending=7; from=1",
    )
    game = mc("2H 5S 9D/KH QD 10S/8D 5D 9S", "4H", card_effects=KINGS)
    game.step("2H")
    assert legal(game) == {"KH", "accept"}
    game.step("KH")
    assert (game.current_player, field(game, "pending"), field(game, "from")) == (2, "7", "1")
    plain = mc("KH 5S 9D/KD 6D 10S/8D 5D 9S", "4H", card_effects=KINGS)
    plain.step("KH")
    assert legal(plain) == {"accept"}  # the King of diamonds matches by rank but draws nothing


def test_MC_TURN_1_MC_OPT_1_a_plain_king_laid_after_the_king_of_hearts_passes_its_five_on() -> None:
    """MC-TURN-1 with MC-OPT-1: the King of hearts, then the King of clubs (no effect) in the
    same play: the 5 cards stand for the next player under the plain King, and the position
    (an answer with a King of clubs on top) reads back as play left it; a plain King on top
    with no penalty card of its rank under it in that play is refused."""
    game = mc(
        "KH KC 9D 10D/7D 6D 8H/8D 5D 9S", "4H", draw="draw=QC JC 10C 9C 8C 7C 6C 5C", card_effects=KINGS
    )
    game.step("KH")
    assert legal(game) == {"KC", "pass"}
    game.step("KC")
    expected = (
        "hands=9D 10D/7D 6D 8H/8D 5D 9S; discard=4H KH KC; draw=QC JC 10C 9C 8C 7C 6C 5C; "
        "colour=C; seat=1; dir=+; phase=answer; pending=5; from=0"
    )
    if game.phase != Phase.ANSWER:  # the play goes on until its player stops
        game.step("pass")
    assert_position(game, expected)
    copy = Game.from_position(game.rules, game.position())  # reads back: same text, same choices
    assert copy.position() == game.position() and copy.legal_actions() == game.legal_actions()
    with pytest.raises(PositionError, match="the top card KC sends no penalty to answer"):
        Game.from_position(game.rules, expected.replace("discard=4H KH KC", "discard=4H QH KC"))


def test_MC_TURN_1_MC_RESHUFFLE_1_the_penalty_under_a_king_reshuffled_away_still_reads_back() -> None:
    """MC-TURN-1 with MC-OPT-1 and MC-RESHUFFLE-1: the King of hearts, then the King of
    spades in one play. The previous player's 5 cards empty the draw pile, the discard pile
    under the King of spades is reshuffled into it, and the next player answers the 5 with
    only the King of spades left on the pile; that position reads back as play left it."""
    game = mc("KH KS 9D 10D/7D 6D 8H/8D 5D 9S", "4H", draw="draw=QC JC", card_effects=KINGS)
    game.step("KH")
    game.step("KS")
    assert_position(
        game,
        "hands=9D 10D/7D 6D 8H/8D 5D 9S QC JC 4H KH; discard=KS; draw=-; "
        "colour=S; seat=1; dir=+; phase=answer; pending=5; from=0",
    )
    copy = Game.from_position(game.rules, game.position())
    assert copy.position() == game.position() and copy.legal_actions() == game.legal_actions()
    copy.step("accept")
    assert_position(
        copy,
        "hands=9D 10D/7D 6D 8H/8D 5D 9S QC JC 4H KH; discard=KS; draw=-; colour=S; seat=2; dir=+; phase=play",
    )


def test_MC_OPT_1_king_of_spades_previous_player_draws_five() -> None:
    """MC-OPT-1 (``KS:previous_draws:5``): after the King of spades the previous player
    draws 5; the next player plays. Other kings have no effect."""
    game = mc("5H 9D 10H/KS 6D 8H/8D 5D 9S", "4S", seat=1, card_effects=KINGS)
    game.step("KS")
    assert_position(
        game,
        "hands=KC QC JC 10C 9C 5H 9D 10H/6D 8H/8D 5D 9S; discard=4S KS; draw=8C 7C 6C 5C; "
        "colour=S; seat=2; dir=+; phase=play",
    )
    plain = mc("5H 9D 8H/KD 6D 8S/8D 5D 9S", "4D", seat=1, card_effects=KINGS)
    plain.step("KD")
    assert plain.hand_sizes() == [3, 2, 3] and plain.current_player == 2


def test_MC_OPT_1_king_of_hearts_answers_a_pending_three_and_needs_to_match_the_pile() -> None:
    """MC-OPT-1 + MC-DRAW-1 ("2, 3, or an enabled joker or king"), the preset's stack table:
    the King of hearts answers a pending 3 of hearts, and a 2 of hearts answers it; a King of
    hearts that matches neither suit nor rank of the pile (a 2 of diamonds) does not answer."""
    game = pos(
        "macao",
        "hands=5S 9S 10S/KH 9D 8C/2H QH JH; discard=2D; draw=KD 8D; colour=D; seat=1; dir=+; "
        "phase=answer; pending=2; from=0",
        card_effects=KINGS,
    )
    assert legal(game) == {"accept"}
    game = pos(
        "macao",
        "hands=5S 9S 10S/KH 9D 8C/2H QH JH; discard=2S 2C 3H; draw=KD 8D 6C 5C 4C 7C 10C; "
        "colour=H; seat=1; dir=+; phase=answer; pending=3; from=0",
        card_effects=KINGS,
    )
    assert legal(game) == {"KH", "accept"}
    game.step("KH")
    assert (game.current_player, field(game, "pending")) == (2, "8")
    assert legal(game) == {"2H", "accept"}
    game.step("2H")
    assert (game.current_player, field(game, "pending")) == (0, "10")


# ================================================================ MC-END-1
def test_MC_END_1_players_leave_in_order_and_the_last_one_loses() -> None:
    """MC-END-1: a player who empties the hand leaves; play goes on (the penalty of the
    leaving card still hits the next player); the game ends when one player holds cards;
    the ranking is the leaving order."""
    game = mc("2H/2S 3S 6S/9S 9D 5C KC", "4H", draw="draw=QD 8D 6C 7C 10D JD")
    game.step("2H")
    assert_position(
        game,
        "hands=/2S 3S 6S/9S 9D 5C KC; discard=4H 2H; draw=QD 8D 6C 7C 10D JD; colour=H; seat=1; "
        "dir=+; phase=answer; pending=2; from=0; finished=1 0 0",
    )
    assert game.outcome() is None
    game.step("2S")
    # seat 0 has left: the penalty passes from seat 1 to seat 2
    assert (game.current_player, field(game, "pending"), field(game, "from")) == (2, "4", "1")
    game.step("accept")
    assert_position(
        game,
        "hands=/3S 6S/QD 8D 6C 7C 9S 9D 5C KC; discard=4H 2H 2S; draw=10D JD; colour=S; "
        "seat=1; dir=+; phase=play; finished=1 0 0",
    )
    game.step("call")
    game.step("3S")
    assert (game.current_player, game.phase, field(game, "pending")) == (2, Phase.ANSWER, "3")
    game.step("accept")
    assert game.current_player == 1
    game.step("6S")
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.ranking, outcome.reason) == (0, (0, 1, 2), "win")
    assert field(game, "finished") == "1 2 3"
    assert game.phase == Phase.OVER


def test_MC_END_1_ranking_is_the_leaving_order_not_the_seat_order() -> None:
    """MC-END-1: seat 2 leaves first, then seat 0; seat 1 is left holding cards and loses."""
    game = mc("5H 6H/9C 8C 7C/5S", "5D", seat=2, draw="draw=KC QC")
    game.step("5S")
    assert field(game, "finished") == "0 0 1"
    assert game.current_player == 0
    game.step("call")
    game.step("5H")
    assert game.current_player == 1
    assert legal(game) == {"draw"}
    game.step("draw")
    assert game.current_player == 0  # seat 2 has left
    game.step("6H")
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.ranking) == (2, (2, 0, 1))
    assert field(game, "finished") == "2 3 1"


def test_MC_END_1_the_round_winner_is_the_first_to_leave_not_the_last() -> None:
    """MC-END-1: the round's recorded winner (``S_ROUND_WINNER``, which the search styles read
    to value a finished rollout) is the first player to leave (seat 2), the game's winner, not
    the last one to leave (seat 0, second in the ranking)."""
    game = mc("5H 6H/9C 8C 7C/5S", "5D", seat=2, draw="draw=KC QC")
    for action in ("5S", "call", "5H", "draw", "6H"):
        game.step(action)
    outcome = game.outcome()
    assert outcome is not None and (outcome.winner, outcome.ranking) == (2, (2, 0, 1))
    assert int(game.state[L.S_ROUND_WINNER]) == 2
    assert int(game.state[L.S_WINNER]) == 2


@pytest.mark.parametrize("round_score", ["winner_takes", "own_points"])
def test_MC_END_1_the_round_is_scored_when_one_player_is_left(round_score: str) -> None:
    """MC-END-1 with U-SCORE-1 (the ``macao`` default): the first to leave scores the points
    left in the loser's hand (9C 8C 7C KC = 9 + 8 + 7 + 10); with MM-SCORE-1
    (``round_score="own_points"``) every player scores their own hand, so only the loser
    has points."""
    game = mc("5H 6H/9C 8C 7C/5S", "5D", seat=2, draw="draw=KC QC", round_score=round_score)
    for action in ("5S", "call", "5H", "draw", "6H"):
        game.step(action)
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.ranking, outcome.round_points) == (2, (2, 0, 1), (0, 34, 0))
    assert outcome.scores == ((0, 0, 34) if round_score == "winner_takes" else (0, 34, 0))


def test_MC_END_1_a_leaving_ace_still_names_the_suit() -> None:
    """MC-END-1 + MC-ACE-1: a player who leaves with an Ace names the suit; the next player
    follows it."""
    game = mc("AH/5S 6S 7D/9S 9D 5C KC", "4H", draw="draw=KD QD")
    game.step("AH")
    assert (game.phase, game.current_player, field(game, "finished")) == (Phase.CHOOSE_COLOUR, 0, "1 0 0")
    game.step("suit D")
    assert (game.phase, game.current_player, game.active_colour) == (Phase.PLAY, 1, 1)
    assert legal(game) == {"7D"}


def test_MM_CALL_1_a_false_call_that_costs_nothing_is_not_offered() -> None:
    """MM-CALL-1 with U-DRAW-4 and E-END-1: with no card left to draw (an empty draw pile, only
    the top card in the discard pile) a false call's 5 cards cannot be drawn, so it cost nothing
    and could be repeated until the decision limit: a game stalled with 10,000 decisions. It is
    not offered then; a true call still is, and a false one again once there are cards."""
    text = "hands=3H 8C 9S/4D 4S 9S/5D 5S 6H/6D 6S 8H; discard=5H; draw=; colour=H; seat=0; dir=+; phase=play"
    game = pos("mau_mau", text)
    assert legal(game) == {"3H", "draw"}
    two = pos("mau_mau", text.replace("3H 8C 9S/", "3H 8C/"))
    assert "call" in legal(two)  # two cards, one playable: a true call
    two.step("call")
    assert two.called() == [True, False, False, False]
    none_playable = pos("mau_mau", text.replace("3H 8C 9S/", "8C 9S/"))
    assert legal(none_playable) == {"draw"}
    cards_left = pos("mau_mau", text.replace("draw=", "draw=2C"))
    assert "call" in legal(cards_left)
    cards_left.step("call")  # false: the one card there is drawn
    assert cards_left.hand_sizes() == [4, 3, 3, 3]
