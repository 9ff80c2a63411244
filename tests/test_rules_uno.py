"""Scenario tests of the official Uno rules (``uno`` preset), one or more per rule ID.

Each test names the rule it checks (the rule reference ``docs/rules.md``), builds the situation from
position notation (or a seeded deal), applies decisions and asserts their exact effect:
hands, piles, active colour, seat to move, direction, phase, pending penalty, scores and
outcome. Whole positions are compared with :func:`assert_position`, which ignores only the
order of cards inside a hand and the decision counter.

Rules covered: U-DECK-1, U-SETUP-1, U-SETUP-2, U-START-1, U-START-2, U-MATCH-1, U-DRAW-1,
U-DRAW-2, U-DRAW-3, U-DRAW-4, U-SKIP-1, U-REV-1, U-D2-1, U-WILD-1, U-WD4-1, U-WD4-2,
U-UNO-1, U-WRONG-1, U-END-1, U-SCORE-1, U-SCORE-2, U-SCORE-3, E-DIR-1, E-CONS-1, E-END-1.

The file runs compiled and uncompiled (``NUMBA_DISABLE_JIT=1``, ``make nojit``): seed scans
stop at their first hit or stay at 200 seeds at most.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tests.scenarios import all_cards, assert_position, draw_pile, hand, legal, position_fields
from uno_env import Game, IllegalActionError, Phase, simulate
from uno_env.engine import engine
from uno_env.engine import layout as L
from uno_env.engine.cards import format_face, parse_face
from uno_env.engine.rng import rand_below, seed_rng
from uno_env.engine.rules import compile_spec, load_rules

COLOURS = "RYGB"
ACTION_SYMBOLS = ("S", "R", "D2")


# ================================================================ helpers
def pos(text: str, seed: int = 0, **overrides: Any) -> Game:
    """A game of the ``uno`` preset (with rule overrides) at a position."""
    return Game.from_position("uno", text, seed=seed, **overrides)


def official_deck() -> Counter[str]:
    """U-DECK-1 written out: per colour one 0, two each of 1-9, Skip, Reverse, Draw Two;
    four Wild and four Wild Draw Four."""
    deck: Counter[str] = Counter()
    for colour in COLOURS:
        deck[f"{colour}0"] = 1
        for symbol in [*(str(i) for i in range(1, 10)), *ACTION_SYMBOLS]:
            deck[f"{colour}{symbol}"] = 2
    deck["W"] = 4
    deck["WD4"] = 4
    return deck


def is_number(card: str) -> bool:
    """A number card (0-9 of a colour)."""
    face = parse_face(card)
    return face < 52 and face % 13 < 10


def first_seed(predicate: Callable[[Game], bool], num_players: int = 4, **overrides: Any) -> Game:
    """The fresh deal of the first seed (0, 1, ...) whose game satisfies ``predicate``."""
    for seed in range(400):
        game = Game("uno", num_players, seed=seed, **overrides)
        if predicate(game):
            return game
    pytest.fail("no seed below 400 deals the wanted situation")


def predeal(num_players: int, seed: int, **overrides: Any) -> tuple[int, list[str]]:
    """The dealer of ``Game("uno", num_players, seed)`` and the shuffled deck it deals from
    (top first), obtained by running the engine's dealer draw and shuffle on the same seed.

    The helper checks that dealing from its state gives exactly the game's position, so the
    returned deck is the one the game was dealt from.
    """
    rules = load_rules("uno", **overrides)
    spec = compile_spec(rules)
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    state[L.S_NPLAYERS] = num_players
    state[L.S_DIRECTION] = 1
    state[L.S_WINNER] = -1
    state[L.S_ROUND_WINNER] = -1
    seed_rng(state, L.RNG, seed, 0)
    seed_rng(state, L.AGENT_RNG, seed, 1)
    state[L.DECK : L.DECK + L.MAX_FACES] = rules.deck_counts(num_players)
    if rules.dealer == "draw":
        state[L.S_DEALER] = engine.draw_for_dealer(state, spec)
    else:
        state[L.S_DEALER] = rand_below(state, L.RNG, num_players)
    shuffled = state.copy()
    engine._fill_draw_pile_with_deck(shuffled, spec)
    count = int(shuffled[L.S_NDRAW])
    deck = [format_face(int(f)) for f in shuffled[L.DRAW_PILE : L.DRAW_PILE + count][::-1]]
    engine.deal_round(state, spec, True)
    game = Game("uno", num_players, seed=seed, **overrides)
    for start, size in (
        (L.HANDS, num_players * L.MAX_FACES),
        (L.DRAW_PILE, int(state[L.S_NDRAW])),
        (L.DISCARD_PILE, int(state[L.S_NDISCARD])),
    ):
        assert np.array_equal(state[start : start + size], game.state[start : start + size]), (
            "predeal no longer reproduces the engine's deal"
        )
    for scalar in (L.S_DEALER, L.S_CURRENT, L.S_DIRECTION, L.S_COLOUR, L.S_PHASE, L.S_NDRAW, L.S_NDISCARD):
        assert state[scalar] == game.state[scalar], "predeal no longer reproduces the engine's deal"
    return int(state[L.S_DEALER]), deck


def dealt_hands(dealer: int, deck: list[str], num_players: int, hand_size: int = 7) -> list[list[str]]:
    """U-SETUP-1 by hand: one card at a time, clockwise, starting left of the dealer."""
    hands: list[list[str]] = [[] for _ in range(num_players)]
    for i in range(hand_size * num_players):
        hands[(dealer + 1 + i) % num_players].append(deck[i])
    return [sorted(h, key=parse_face) for h in hands]


def play_out(game: Game, limit: int) -> None:
    """Apply up to ``limit`` decisions (a fixed, varied choice among the legal ones)."""
    for _ in range(limit):
        if game.is_over():
            return
        options = game.legal_actions()
        game.step(options[(7 * game.decisions + 3) % len(options)])


# ================================================================ U-DECK-1
@pytest.mark.parametrize("num_players", [2, 4, 10])
def test_U_DECK_1_fresh_deal_holds_the_108_card_deck(num_players: int) -> None:
    """U-DECK-1: hands + discard + draw pile of a fresh deal are exactly the 108-card deck."""
    game = Game("uno", num_players, seed=3)
    cards = all_cards(game)
    assert sum(official_deck().values()) == 108
    assert cards == official_deck()


# ================================================================ U-SETUP-1
def test_U_SETUP_1_seven_each_one_at_a_time_from_the_dealers_left() -> None:
    """U-SETUP-1: the shuffled deck is dealt one card at a time clockwise from the dealer's
    left, 7 each; the next card starts the discard pile; the rest is the draw pile."""
    game = first_seed(lambda g: is_number(str(g.top_card)))
    dealer, deck = predeal(4, game.seed)
    assert int(game.state[L.S_DEALER]) == dealer
    expected = dealt_hands(dealer, deck, 4)
    assert [hand(game, seat) for seat in range(4)] == expected
    assert [str(c) for c in game.discard_pile()] == [deck[28]]
    assert draw_pile(game) == deck[29:]
    assert game.hand_sizes() == [7, 7, 7, 7]
    assert game.draw_pile_size == 108 - 29
    assert game.current_player == (dealer + 1) % 4
    assert game.direction == 1


@pytest.mark.parametrize("num_players", [2, 3, 7, 10])
def test_U_SETUP_1_hand_and_pile_sizes_after_a_fresh_deal(num_players: int) -> None:
    """U-SETUP-1: 7 cards each (9 for the first player under a starting Draw Two, U-START-1),
    one starting card, the rest in the draw pile."""
    for seed in range(4):
        game = Game("uno", num_players, seed=seed)
        dealer = int(game.state[L.S_DEALER])
        first = (dealer + 1) % num_players
        top = str(game.top_card)
        sizes = [7] * num_players
        if top.endswith("D2"):
            sizes[first] = 9
        assert game.hand_sizes() == sizes, top
        assert len(game.discard_pile()) == 1
        assert game.draw_pile_size == 108 - sum(sizes) - 1


# ================================================================ U-SETUP-2
def _dealer_value(face: int) -> int:
    """U-SETUP-2: a number card counts its number, every action or wild card zero."""
    return face % 13 if face < 52 and face % 13 < 10 else 0


def _reference_dealer(pile: list[int], num_players: int) -> tuple[int, int, int]:
    """U-SETUP-2 by hand: contenders (in seat order) each turn a card from the top; the
    highest number deals; tied contenders draw again. Returns (dealer, rounds, dealer's card)."""
    contenders = list(range(num_players))
    at = 0
    rounds = 0
    while True:
        rounds += 1
        turned: dict[int, int] = {}
        for seat in contenders:
            assert at < len(pile), "the reference ran out of cards"
            turned[seat] = pile[at]
            at += 1
        best = max(_dealer_value(f) for f in turned.values())
        contenders = [s for s in contenders if _dealer_value(turned[s]) == best]
        if len(contenders) == 1:
            return contenders[0], rounds, turned[contenders[0]]


def _dealer_draw(deck_counts: dict[str, int], num_players: int, seed: int) -> tuple[int, list[int]]:
    """Run the compiled dealer draw on a hand-built deck; also return its shuffled pile."""
    spec = compile_spec(load_rules("uno"))
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    state[L.S_NPLAYERS] = num_players
    seed_rng(state, L.RNG, seed, 0)
    for card, copies in deck_counts.items():
        state[L.DECK + parse_face(card)] = copies
    shuffled = state.copy()
    engine._fill_draw_pile_with_deck(shuffled, spec)
    count = int(shuffled[L.S_NDRAW])
    pile = [int(f) for f in shuffled[L.DRAW_PILE : L.DRAW_PILE + count][::-1]]
    return int(engine.draw_for_dealer(state, spec)), pile


def test_U_SETUP_2_highest_number_deals_and_ties_draw_again() -> None:
    """U-SETUP-2: on the full deck, the dealer is the highest card of the dealer draw; tied
    players draw again (the seeds include ties)."""
    deck = dict(official_deck())
    tie_seen = False
    for seed in range(30):
        dealer, pile = _dealer_draw(deck, 4, seed)
        want, rounds, _ = _reference_dealer(pile, 4)
        assert dealer == want, f"seed {seed}"
        tie_seen = tie_seen or rounds > 1
    assert tie_seen


def test_U_SETUP_2_action_and_wild_cards_count_zero() -> None:
    """U-SETUP-2: with one R1 among 32 action and wild cards, whoever turns the R1 deals
    (every action card ties at zero and draws again)."""
    deck = {"R1": 1, "W": 4, "WD4": 4}
    deck.update({f"{c}{s}": 2 for c in COLOURS for s in ACTION_SYMBOLS})
    for seed in range(20):
        dealer, pile = _dealer_draw(deck, 3, seed)
        want, _, card = _reference_dealer(pile, 3)
        assert format_face(card) == "R1"
        assert dealer == want, f"seed {seed}"


@pytest.mark.parametrize("dealer_rule", ["draw", "random"])
def test_U_SETUP_2_dealer_is_roughly_uniform(dealer_rule: str) -> None:
    """U-SETUP-2: over 200 seeds every seat deals about a quarter of the games (both the
    dealer draw and the ``dealer="random"`` option); play starts left of the dealer."""
    counts = [0, 0, 0, 0]
    for seed in range(200):
        game = Game("uno", 4, seed=seed, dealer=dealer_rule)
        dealer = int(game.state[L.S_DEALER])
        counts[dealer] += 1
        if is_number(str(game.top_card)):
            assert game.current_player == (dealer + 1) % 4
    assert all(25 <= c <= 75 for c in counts), counts


def test_U_SETUP_2_random_dealer_option_deals_from_the_chosen_seat() -> None:
    """U-SETUP-2 option ``dealer="random"``: the deal still starts left of the dealer."""
    game = first_seed(lambda g: is_number(str(g.top_card)), dealer="random")
    dealer, deck = predeal(4, game.seed, dealer="random")
    assert [hand(game, seat) for seat in range(4)] == dealt_hands(dealer, deck, 4)


# ================================================================ U-START-1
def test_U_START_1_skip_skips_the_first_player() -> None:
    """U-START-1: a starting Skip skips the player left of the dealer."""
    game = first_seed(lambda g: str(g.top_card).endswith("S"))
    dealer = int(game.state[L.S_DEALER])
    assert game.current_player == (dealer + 2) % 4
    assert game.direction == 1
    assert game.phase == Phase.PLAY
    assert game.hand_sizes() == [7, 7, 7, 7]
    assert game.active_colour == COLOURS.index(str(game.top_card)[0])


def test_U_START_1_draw_two_first_player_draws_two_and_is_skipped() -> None:
    """U-START-1: a starting Draw Two: the first player takes the next two cards (9 in hand)
    and the player after them starts."""
    game = first_seed(lambda g: str(g.top_card).endswith("D2"))
    dealer, deck = predeal(4, game.seed)
    first = (dealer + 1) % 4
    assert deck[28].endswith("D2")
    expected = dealt_hands(dealer, deck, 4)
    expected[first] = sorted([*expected[first], deck[29], deck[30]], key=parse_face)
    assert [hand(game, seat) for seat in range(4)] == expected
    assert len(hand(game, first)) == 9
    assert draw_pile(game) == deck[31:]
    assert game.current_player == (dealer + 2) % 4
    assert game.direction == 1
    assert game.phase == Phase.PLAY


def test_U_START_1_reverse_dealer_plays_first_then_the_dealers_right() -> None:
    """U-START-1: a starting Reverse flips the direction; the dealer plays first, then the
    player to the dealer's right."""
    game = first_seed(lambda g: str(g.top_card)[1:] == "R")
    dealer = int(game.state[L.S_DEALER])
    assert game.direction == -1
    assert game.current_player == dealer
    assert game.hand_sizes() == [7, 7, 7, 7]
    game.step("draw")
    if game.phase == Phase.PLAY_DRAWN:
        game.step("pass")
    assert game.current_player == (dealer - 1) % 4
    assert game.direction == -1


def test_U_START_1_wild_first_player_names_the_colour_then_plays() -> None:
    """U-START-1: a starting Wild: the first player names the colour, then plays."""
    game = first_seed(lambda g: str(g.top_card) == "W")
    dealer = int(game.state[L.S_DEALER])
    first = (dealer + 1) % 4
    assert game.current_player == first
    assert game.phase == Phase.CHOOSE_COLOUR
    assert legal(game) == {"colour R", "colour Y", "colour G", "colour B"}
    game.step("colour G")
    assert game.current_player == first
    assert game.phase == Phase.PLAY
    assert game.active_colour == COLOURS.index("G")
    assert game.hand_sizes() == [7, 7, 7, 7]


def test_U_START_1_wild_draw_four_is_returned_and_another_card_turned() -> None:
    """U-START-1: when the turned card is a Wild Draw Four it goes back into the pile and
    another card starts; the hands stay as dealt."""
    found = None
    for seed in range(200):
        dealer, deck = predeal(4, seed)
        if deck[28] == "WD4":
            found = (seed, dealer, deck)
            break
    assert found is not None, "no seed below 200 turns a Wild Draw Four"
    seed, dealer, deck = found
    game = Game("uno", 4, seed=seed)
    top = str(game.top_card)
    first = (dealer + 1) % 4
    assert top != "WD4"
    assert len(game.discard_pile()) == 1
    dealt = dealt_hands(dealer, deck, 4)
    for seat in range(4):
        if seat != first:
            assert hand(game, seat) == dealt[seat]
    extra = Counter(hand(game, first)) - Counter(dealt[first])
    assert sum(extra.values()) == (2 if top.endswith("D2") else 0)
    assert len(hand(game, first)) == 7 + sum(extra.values())
    # the returned Wild Draw Four is back among the undealt cards
    assert Counter(draw_pile(game)) + Counter([top]) + extra == Counter(deck[28:])
    assert "WD4" in draw_pile(game)
    assert all_cards(game) == official_deck()


def test_U_START_1_never_a_wild_draw_four_on_top_at_the_start() -> None:
    """U-START-1: no fresh deal (200 seeds, 2 and 5 players) starts on a Wild Draw Four."""
    for num_players in (2, 5):
        for seed in range(100):
            game = Game("uno", num_players, seed=seed)
            assert str(game.top_card) != "WD4", f"seed {seed}"
            assert len(game.discard_pile()) == 1


@pytest.mark.parametrize("num_players", [2, 3])
def test_U_START_1_skip_at_two_and_three_players(num_players: int) -> None:
    """U-START-1 with U-SKIP-1: a starting Skip skips the player left of the dealer and nobody
    draws: at 2 players the dealer plays first, at 3 the player after the skipped one."""
    game = first_seed(lambda g: str(g.top_card)[1:] == "S", num_players)
    dealer, deck = predeal(num_players, game.seed)
    dealt = 7 * num_players
    assert [hand(game, seat) for seat in range(num_players)] == dealt_hands(dealer, deck, num_players)
    assert draw_pile(game) == deck[dealt + 1 :]
    assert game.current_player == (dealer + 2) % num_players
    if num_players == 2:
        assert game.current_player == dealer
    assert game.direction == 1
    assert game.phase == Phase.PLAY


@pytest.mark.parametrize("num_players", [2, 3])
def test_U_START_1_draw_two_at_two_and_three_players(num_players: int) -> None:
    """U-START-1 with U-D2-1: a starting Draw Two: the player left of the dealer takes the next
    two cards of the pile and loses the turn (at 2 players the dealer plays first)."""
    game = first_seed(lambda g: str(g.top_card)[1:] == "D2", num_players)
    dealer, deck = predeal(num_players, game.seed)
    dealt = 7 * num_players
    first = (dealer + 1) % num_players
    expected = dealt_hands(dealer, deck, num_players)
    expected[first] = sorted([*expected[first], deck[dealt + 1], deck[dealt + 2]], key=parse_face)
    assert [hand(game, seat) for seat in range(num_players)] == expected
    assert draw_pile(game) == deck[dealt + 3 :]
    assert game.current_player == (first + 1) % num_players
    assert game.direction == 1
    assert game.phase == Phase.PLAY
    assert game.pending_penalty == 0


@pytest.mark.parametrize("num_players", [2, 3])
def test_U_START_1_reverse_at_two_and_three_players(num_players: int) -> None:
    """U-START-1 with U-REV-1: a starting Reverse: the dealer plays first and play goes on to
    the dealer's right (at 2 players: the other player); nobody draws."""
    game = first_seed(lambda g: str(g.top_card)[1:] == "R", num_players)
    dealer, deck = predeal(num_players, game.seed)
    assert [hand(game, seat) for seat in range(num_players)] == dealt_hands(dealer, deck, num_players)
    assert game.current_player == dealer
    if num_players > 2:  # at 2 players the order is the same either way
        assert game.direction == -1
    game.step("draw")
    if game.phase == Phase.PLAY_DRAWN:
        game.step("pass")
    assert game.current_player == (dealer - 1) % num_players
    assert game.phase == Phase.PLAY


def _start_on_reverse(num_players: int, **overrides: Any) -> tuple[Game, int]:
    """The first seeded deal of ``num_players`` that turns a Reverse to start, with the deal
    checked against the engine's own shuffle: hands as dealt, the Reverse turned from the top of
    the rest, nobody drew. Returns the game and its dealer."""
    game = first_seed(lambda g: str(g.top_card)[1:] == "R", num_players, **overrides)
    dealer, deck = predeal(num_players, game.seed, **overrides)
    dealt = 7 * num_players
    assert deck[dealt][1:] == "R"
    assert [hand(game, seat) for seat in range(num_players)] == dealt_hands(dealer, deck, num_players)
    assert draw_pile(game) == deck[dealt + 1 :]
    assert [str(card) for card in game.discard_pile()] == [deck[dealt]]
    assert game.phase == Phase.PLAY
    assert game.pending_penalty == 0
    return game, dealer


@pytest.mark.parametrize("num_players", [3, 4])
@pytest.mark.parametrize("start_reverse", ["dealer_first", "as_dealers_play"])
def test_U_START_1_start_reverse_readings_at_three_and_four_players(
    num_players: int, start_reverse: str
) -> None:
    """U-START-1 (``start_reverse``): a starting Reverse turns play counter-clockwise in both
    readings. ``dealer_first`` (003): the dealer plays first, then the dealer's right;
    ``as_dealers_play`` (000, 002: as if the dealer had laid it): the dealer's right plays first,
    then the seat right of it. Nobody draws; the deal is the same under either reading."""
    game, dealer = _start_on_reverse(num_players, start_reverse=start_reverse)
    other = Game("uno", num_players, seed=game.seed)  # the default reading, the same deal
    assert [hand(other, seat) for seat in range(num_players)] == [
        hand(game, seat) for seat in range(num_players)
    ]
    assert draw_pile(other) == draw_pile(game)
    right = (dealer - 1) % num_players
    first = dealer if start_reverse == "dealer_first" else right
    assert game.current_player == first
    assert game.direction == -1
    assert game.hand_sizes() == [7] * num_players
    game.step("draw")
    if game.phase == Phase.PLAY_DRAWN:
        game.step("pass")
    assert game.current_player == (first - 1) % num_players
    assert game.direction == -1


@pytest.mark.parametrize(
    ("start_reverse", "reverse_with_two", "dealer_first", "direction"),
    [
        ("dealer_first", "skip", True, -1),  # 003: the dealer plays first whatever U-REV-1 says
        ("dealer_first", "reverse", True, -1),
        ("as_dealers_play", "skip", True, 1),  # the dealer's Reverse skips the other player (U-REV-1)
        ("as_dealers_play", "reverse", False, -1),  # the dealer's Reverse only flips: the other plays
    ],
)
def test_U_START_1_start_reverse_readings_at_two_players(
    start_reverse: str, reverse_with_two: str, dealer_first: bool, direction: int
) -> None:
    """U-START-1 (``start_reverse``) with U-REV-1 (``reverse_with_two``) at 2 players: under
    ``as_dealers_play`` (000, 002) the starting Reverse acts as if the dealer had laid it, so with
    ``reverse_with_two="skip"`` it skips the other player (the dealer plays first, the direction
    stays) and with ``"reverse"`` it only flips the direction (the other player plays first);
    under ``dealer_first`` (003) the dealer plays first either way. Nobody draws; after the
    first player's turn the other player moves."""
    game, dealer = _start_on_reverse(2, start_reverse=start_reverse, reverse_with_two=reverse_with_two)
    first = dealer if dealer_first else 1 - dealer
    assert game.current_player == first
    assert game.direction == direction
    assert game.hand_sizes() == [7, 7]
    game.step("draw")
    if game.phase == Phase.PLAY_DRAWN:
        game.step("pass")
    assert game.current_player == 1 - first


@pytest.mark.parametrize("num_players", [2, 3])
def test_U_START_1_wild_at_two_and_three_players(num_players: int) -> None:
    """U-START-1 with U-WILD-1: a starting Wild: the player left of the dealer names the colour,
    then takes the first turn in it; nobody draws, the Wild stays the only discard."""
    game = first_seed(lambda g: str(g.top_card) == "W", num_players)
    dealer, deck = predeal(num_players, game.seed)
    first = (dealer + 1) % num_players
    assert [hand(game, seat) for seat in range(num_players)] == dealt_hands(dealer, deck, num_players)
    assert game.current_player == first
    assert game.phase == Phase.CHOOSE_COLOUR
    game.step("colour Y")
    assert game.current_player == first
    assert game.phase == Phase.PLAY
    assert game.active_colour == COLOURS.index("Y")
    assert [str(c) for c in game.discard_pile()] == ["W"]
    assert game.hand_sizes() == [7] * num_players
    yellow_or_wild = {c for c in hand(game, first) if c[0] == "Y" or c in ("W", "WD4")}
    assert legal(game) - {"draw"} == yellow_or_wild


def test_U_START_1_wild_draw_four_returned_at_two_players() -> None:
    """U-START-1 at 2 players: a turned Wild Draw Four goes back into the pile, which is
    shuffled, and another card starts; the dealt hands are untouched (but for a Draw Two
    turned instead) and no card is lost."""
    found = None
    for seed in range(300):
        dealer, deck = predeal(2, seed)
        if deck[14] == "WD4":
            found = (seed, dealer, deck)
            break
    assert found is not None, "no seed below 300 turns a Wild Draw Four at 2 players"
    seed, dealer, deck = found
    game = Game("uno", 2, seed=seed)
    top = str(game.top_card)
    first = (dealer + 1) % 2
    assert top != "WD4"
    assert [str(c) for c in game.discard_pile()] == [top]
    dealt = dealt_hands(dealer, deck, 2)
    assert hand(game, dealer) == dealt[dealer]
    extra = Counter(hand(game, first)) - Counter(dealt[first])
    assert sum(extra.values()) == (2 if top.endswith("D2") else 0)
    assert Counter(draw_pile(game)) + Counter([top]) + extra == Counter(deck[14:])
    assert "WD4" in draw_pile(game)
    assert all_cards(game) == official_deck()


# ================================================================ U-START-2
def test_U_START_2_number_only_start_card() -> None:
    """U-START-2 (``start_card="number_only"``): over 200 seeds the starting card is always
    a number card, everyone holds 7 and play starts left of the dealer."""
    redrawn = 0
    for seed in range(200):
        game = Game("uno", 4, seed=seed, start_card="number_only")
        assert is_number(str(game.top_card)), f"seed {seed}: {game.top_card}"
        assert game.hand_sizes() == [7, 7, 7, 7]
        dealer = int(game.state[L.S_DEALER])
        assert game.current_player == (dealer + 1) % 4
        assert game.direction == 1
        assert game.phase == Phase.PLAY
        redrawn += not is_number(str(Game("uno", 4, seed=seed).top_card))
    assert redrawn > 0  # the official start turns non-number cards on some of these seeds


# ================================================================ U-MATCH-1
def test_U_MATCH_1_colour_number_or_wild_is_playable() -> None:
    """U-MATCH-1: on a red 7: any red card, any 7, any Wild / Wild Draw Four."""
    game = pos("hands=R2 G7 YS B1 W WD4/G3; discard=B5 R7; draw=G9; colour=R; seat=0; dir=+; phase=play")
    assert legal(game) == {"R2", "G7", "W", "WD4", "draw"}


def test_U_MATCH_1_symbol_matches_symbol() -> None:
    """U-MATCH-1: on a yellow Skip, a green Skip matches by symbol; a green 7 does not."""
    game = pos("hands=GS G7 Y1/B3; discard=YS; draw=G9; colour=Y; seat=0; dir=+; phase=play")
    assert legal(game) == {"GS", "Y1", "draw"}


def test_U_MATCH_1_wild_on_top_matches_the_named_colour_only() -> None:
    """U-MATCH-1: on a Wild named green, only green cards (and wilds) match."""
    game = pos("hands=G3 R3 B7/Y1; discard=R3 W; draw=G9; colour=G; seat=0; dir=+; phase=play")
    assert legal(game) == {"G3", "draw"}


def test_U_MATCH_1_playing_a_number_card_sets_its_colour() -> None:
    """U-MATCH-1: a green 7 on a red 7 turns the colour green; the next player moves."""
    game = pos("hands=R2 G7 YS B1 W WD4/G3; discard=B5 R7; draw=G9; colour=R; seat=0; dir=+; phase=play")
    game.step("G7")
    assert_position(
        game, "hands=R2 YS B1 W WD4/G3; discard=B5 R7 G7; draw=G9; colour=G; seat=1; dir=+; phase=play"
    )


# ================================================================ U-DRAW-1
DRAW_SITUATION = "hands=R2 G9 B7/B3; discard=Y5; draw={draw}; colour=Y; seat=0; dir=+; phase=play"


def test_U_DRAW_1_playable_drawn_card_may_be_played() -> None:
    """U-DRAW-1: a playable drawn card asks play-or-keep; playing it ends the turn as usual."""
    game = pos(DRAW_SITUATION.format(draw="Y1 B9"))
    assert legal(game) == {"draw"}
    game.step("draw")
    assert_position(
        game,
        "hands=R2 Y1 G9 B7/B3; discard=Y5; draw=B9; colour=Y; seat=0; dir=+; phase=drawn; drawn=Y1",
    )
    assert legal(game) == {"Y1", "pass"}
    game.step("Y1")
    assert_position(game, "hands=R2 G9 B7/B3; discard=Y5 Y1; draw=B9; colour=Y; seat=1; dir=+; phase=play")


def test_U_DRAW_1_playable_drawn_card_may_be_kept() -> None:
    """U-DRAW-1: ``pass`` keeps the playable drawn card and ends the turn."""
    game = pos(DRAW_SITUATION.format(draw="Y1 B9"))
    game.step("draw")
    game.step("pass")
    assert_position(game, "hands=R2 Y1 G9 B7/B3; discard=Y5; draw=B9; colour=Y; seat=1; dir=+; phase=play")


def test_U_DRAW_1_unplayable_drawn_card_ends_the_turn() -> None:
    """U-DRAW-1: an unplayable drawn card stays in hand and the turn passes."""
    game = pos(DRAW_SITUATION.format(draw="B9 Y1"))
    game.step("draw")
    assert_position(game, "hands=R2 G9 B7 B9/B3; discard=Y5; draw=Y1; colour=Y; seat=1; dir=+; phase=play")


def test_U_DRAW_1_only_the_drawn_card_may_be_played_after_drawing() -> None:
    """U-DRAW-1: after drawing, the player may play that card, not another one from hand."""
    game = pos("hands=R2 Y7 G9/B3; discard=Y5; draw=Y1 B9; colour=Y; seat=0; dir=+; phase=play")
    assert legal(game) == {"Y7", "draw"}
    game.step("draw")
    assert legal(game) == {"Y1", "pass"}
    with pytest.raises(IllegalActionError):
        game.step("Y7")


def test_U_DRAW_1_a_drawn_wild_may_be_played_and_names_the_colour() -> None:
    """U-DRAW-1 with U-WILD-1: a drawn Wild is playable; played at once, its player names the
    colour and the turn passes."""
    game = pos("hands=R2 G9/B3 B4; discard=Y5; draw=W B9; colour=Y; seat=0; dir=+; phase=play")
    game.step("draw")
    assert_position(
        game, "hands=R2 G9 W/B3 B4; discard=Y5; draw=B9; colour=Y; seat=0; dir=+; phase=drawn; drawn=W"
    )
    assert legal(game) == {"W", "pass"}
    game.step("W")
    assert game.phase == Phase.CHOOSE_COLOUR
    game.step("colour B")
    assert_position(game, "hands=R2 G9/B3 B4; discard=Y5 W; draw=B9; colour=B; seat=1; dir=+; phase=play")


def test_U_DRAW_1_U_WD4_2_a_drawn_wild_draw_four_bluff_is_caught() -> None:
    """U-DRAW-1 with U-WD4-2: a drawn Wild Draw Four may be played at once even while the hand
    holds the active colour (Y2): a bluff. The challenge makes its player draw the 4, yellow
    holds again, and the challenger plays."""
    game = pos(
        "hands=Y2 G9/B3 B4 B5/R1 R2; discard=Y5; draw=WD4 B9 B1 B2 B6 B7; colour=Y; seat=0; dir=+; phase=play"
    )
    game.step("draw")
    assert legal(game) == {"WD4", "pass"}
    game.step("WD4")
    game.step("colour B")
    assert_position(
        game,
        "hands=Y2 G9/B3 B4 B5/R1 R2; discard=Y5 WD4; draw=B9 B1 B2 B6 B7; colour=B; seat=1; dir=+; "
        "phase=challenge; pending=4; from=0; bluff=1; before=Y",
    )
    game.step("challenge")
    assert_position(
        game,
        "hands=Y2 G9 B9 B1 B2 B6/B3 B4 B5/R1 R2; discard=Y5 WD4; draw=B7; colour=Y; seat=1; dir=+; "
        "phase=play",
    )
    assert legal(game) == {"draw"}  # blue no longer holds


# ================================================================ U-DRAW-2
UNTIL_SITUATION = "hands=R2 G9 B7/B3; discard=Y5; draw={draw}; colour=Y; seat=0; dir=+; phase=play"


def test_U_DRAW_2_draw_until_playable_may_keep() -> None:
    """U-DRAW-2 (``draw="until_playable"``): draw until a playable card; may keep it."""
    game = pos(UNTIL_SITUATION.format(draw="B9 G2 Y1 R8"), draw="until_playable")
    game.step("draw")
    assert_position(
        game,
        "hands=R2 G2 G9 B7 B9 Y1/B3; discard=Y5; draw=R8; colour=Y; seat=0; dir=+; phase=drawn; drawn=Y1",
    )
    assert legal(game) == {"Y1", "pass"}
    game.step("pass")
    assert_position(
        game, "hands=R2 G2 G9 B7 B9 Y1/B3; discard=Y5; draw=R8; colour=Y; seat=1; dir=+; phase=play"
    )


def test_U_DRAW_2_draw_until_playable_must_play() -> None:
    """U-DRAW-2 (``drawn_card="must_play"``): the playable card that ends the drawing must be
    played."""
    game = pos(UNTIL_SITUATION.format(draw="B9 G2 Y1 R8"), draw="until_playable", drawn_card="must_play")
    game.step("draw")
    assert legal(game) == {"Y1"}
    with pytest.raises(IllegalActionError):
        game.step("pass")
    game.step("Y1")
    assert_position(
        game, "hands=R2 G2 G9 B7 B9/B3; discard=Y5 Y1; draw=R8; colour=Y; seat=1; dir=+; phase=play"
    )


def test_U_DRAW_2_must_play_with_draw_one() -> None:
    """U-DRAW-2 option with U-DRAW-1: a playable single drawn card must be played."""
    game = pos(UNTIL_SITUATION.format(draw="Y1 R8"), drawn_card="must_play")
    game.step("draw")
    assert legal(game) == {"Y1"}


def test_U_DRAW_2_until_playable_stops_when_nothing_is_left() -> None:
    """U-DRAW-2 with U-DRAW-4: no playable card in the whole pile: all are drawn, turn ends."""
    game = pos(UNTIL_SITUATION.format(draw="B9 G2"), draw="until_playable")
    game.step("draw")
    assert_position(game, "hands=R2 G2 G9 B7 B9/B3; discard=Y5; draw=-; colour=Y; seat=1; dir=+; phase=play")


@pytest.mark.parametrize("draw", ["one", "until_playable"])
def test_U_DRAW_2_U_WD4_2_must_play_a_drawn_wild_draw_four_that_is_a_bluff(draw: str) -> None:
    """U-DRAW-2 (``drawn_card="must_play"``) with U-WD4-1/2: a drawn Wild Draw Four is playable
    (a wild matches anything) even while the hand holds the colour (R2), which makes it a bluff;
    so it is the one legal play, and it may be challenged: the challenge catches it, seat 0
    draws the 4 and red holds again. Where bluffs are refused (``wd4_bluff="refused"``) it is not
    playable: under ``draw="one"`` the turn ends with it kept, under ``"until_playable"`` the
    drawing goes on to the next playable card (R4)."""
    text = (
        "hands=R2 G1/G3 G4 G5/Y5 Y6 Y7; discard=R7; draw=WD4 Y1 Y2 Y3 R4 B2 B3 B4; colour=R; seat=0; "
        "dir=+; phase=play"
    )
    game = pos(text, draw=draw, drawn_card="must_play")
    game.step("draw")
    assert (game.phase, position_fields(game.position())["drawn"]) == (Phase.PLAY_DRAWN, "WD4")
    assert legal(game) == {"WD4"}
    game.step("WD4")
    game.step("colour B")
    fields = position_fields(game.position())
    assert [fields[k] for k in ("phase", "pending", "bluff", "before")] == ["challenge", "4", "1", "R"]
    game.step("challenge")
    assert sorted(hand(game, 0)) == ["G1", "R2", "R4", "Y1", "Y2", "Y3"]  # the 4 of the penalty
    assert (game.current_player, game.phase, game.active_colour) == (1, Phase.PLAY, 0)
    refused = pos(text, draw=draw, drawn_card="must_play", wd4_bluff="refused")
    refused.step("draw")
    if draw == "one":
        assert sorted(hand(refused, 0)) == ["G1", "R2", "WD4"]
        assert (refused.current_player, refused.phase) == (1, Phase.PLAY)
    else:
        assert sorted(hand(refused, 0)) == ["G1", "R2", "R4", "WD4", "Y1", "Y2", "Y3"]
        assert legal(refused) == {"R4"}


def test_U_DRAW_2_the_one_card_a_turn_reading_is_draw_one() -> None:
    """U-DRAW-2: the Uno and Mau-Mau sheet's "deve pescar e, caso ainda continue sem a carta
    precisa, perder seu turno, repetindo o processo até sair uma carta jogável" reads two ways.
    ``draw="until_playable"`` plays the Uno wiki's "continuar a comprar": every card in one
    turn until one fits. One card a turn, the turn lost, again on the next turn until one fits,
    is ``draw="one"`` (U-DRAW-1): seat 0 draws B9, seat 1 plays, seat 0 draws G2, seat 1 plays,
    and only then does seat 0 draw the yellow card."""
    text = "hands=R2 G9 B7/B3 B4 Y4 Y6; discard=Y5; draw=B9 G2 Y1 R8; colour=Y; seat=0; dir=+; phase=play"
    at_once = pos(text, draw="until_playable")
    at_once.step("draw")
    assert_position(
        at_once,
        "hands=R2 G2 G9 B7 B9 Y1/B3 B4 Y4 Y6; discard=Y5; draw=R8; colour=Y; seat=0; dir=+; phase=drawn; "
        "drawn=Y1",
    )
    one_a_turn = pos(text, draw="one")
    for drawn, answer in (("B9", "Y4"), ("G2", "Y6")):
        one_a_turn.step("draw")
        assert drawn in hand(one_a_turn, 0) and one_a_turn.current_player == 1
        one_a_turn.step(answer)
    one_a_turn.step("draw")
    assert_position(
        one_a_turn,
        "hands=R2 G2 G9 B7 B9 Y1/B3 B4; discard=Y5 Y4 Y6; draw=R8; colour=Y; seat=0; dir=+; phase=drawn; "
        "drawn=Y1",
    )


# ================================================================ U-DRAW-3
DRAW3_SITUATION = "hands={hand}/B3; discard=R7; draw=Y1; colour=R; seat=0; dir=+; phase=play"


def test_U_DRAW_3_drawing_allowed_with_a_playable_card_by_default() -> None:
    """U-DRAW-3 (default): drawing is legal while holding a playable card."""
    assert legal(pos(DRAW3_SITUATION.format(hand="R2 B1 G9"))) == {"R2", "draw"}


def test_U_DRAW_3_option_forbids_drawing_with_a_playable_card() -> None:
    """U-DRAW-3 (``draw_when_playable=False``): no draw while a card is playable; a draw only
    when none is."""
    game = pos(DRAW3_SITUATION.format(hand="R2 B1 G9"), draw_when_playable=False)
    assert legal(game) == {"R2"}
    with pytest.raises(IllegalActionError):
        game.step("draw")
    assert legal(pos(DRAW3_SITUATION.format(hand="B1 B6 G9"), draw_when_playable=False)) == {"draw"}


# ================================================================ U-DRAW-4
def test_U_DRAW_4_reshuffle_keeps_the_top_card() -> None:
    """U-DRAW-4: an empty draw pile is refilled from the discard pile minus its top card."""
    for seed in range(4):
        game = pos(
            "hands=R1 B7 Y9/B3; discard=B5 Y5 G2; draw=-; colour=G; seat=0; dir=+; phase=play", seed=seed
        )
        game.step("draw")
        assert [str(c) for c in game.discard_pile()] == ["G2"]
        drawn = Counter(hand(game, 0)) - Counter(["R1", "B7", "Y9"])
        assert sum(drawn.values()) == 1
        assert drawn + Counter(draw_pile(game)) == Counter(["B5", "Y5"])
        assert game.current_player == 1  # neither card matches G2: the turn ended
        assert game.phase == Phase.PLAY
        game.check_invariants()


def test_U_DRAW_4_nothing_to_draw_skips_the_draw_and_ends_the_turn() -> None:
    """U-DRAW-4: draw pile empty and nothing under the top card: the draw is skipped."""
    game = pos("hands=R1 B7 Y9/B3; discard=G2; draw=-; colour=G; seat=0; dir=+; phase=play")
    assert "draw" in legal(game)
    game.step("draw")
    assert_position(game, "hands=R1 B7 Y9/B3; discard=G2; draw=-; colour=G; seat=1; dir=+; phase=play")


@pytest.mark.parametrize(
    ("rules", "overrides", "text", "after"),
    [
        (
            "uno",
            {"draw": "one_then_any"},
            "hands=R1 G7 Y9/B3; discard=G2; draw=-; colour=G; seat=0; dir=+; phase=play",
            "hands=R1 G7 Y9/B3; discard=G2; draw=-; colour=G; seat=1; dir=+; phase=play",
        ),
        (
            "mau_mau",
            {"min_players": 2},
            "hands=7C 8D 9S/3H; discard=2C; draw=-; colour=C; seat=0; dir=+; phase=play",
            "hands=7C 8D 9S/3H; discard=2C; draw=-; colour=C; seat=1; dir=+; phase=play",
        ),
    ],
)
def test_U_DRAW_4_nothing_to_draw_ends_the_turn_under_draw_one_then_any(
    rules: str, overrides: dict[str, Any], text: str, after: str
) -> None:
    """U-DRAW-4 with MM-DRAW-1 (``draw = "one_then_any"``): with nothing left to draw the
    draw is skipped and the turn ends; the player is not asked again to play a card it
    held (it stayed in phase ``drawn`` with G7 / 7C playable)."""
    game = Game.from_position(rules, text, **overrides)
    game.step("draw")
    assert_position(game, after)


def test_U_DRAW_4_reshuffle_in_the_middle_of_a_penalty() -> None:
    """U-DRAW-4 with U-D2-1: the pile runs out during a Draw Two; the discard pile under the
    Draw Two is reshuffled and the second card comes from it."""
    game = pos("hands=RD2 R1 B7/B3 Y4/G4 G6; discard=B5 Y5 R7; draw=G9; colour=R; seat=0; dir=+; phase=play")
    game.step("RD2")
    assert [str(c) for c in game.discard_pile()] == ["RD2"]
    drawn = Counter(hand(game, 1)) - Counter(["B3", "Y4", "G9"])
    assert "G9" in hand(game, 1)
    assert sum(drawn.values()) == 1
    assert drawn + Counter(draw_pile(game)) == Counter(["B5", "Y5", "R7"])
    assert game.current_player == 2
    game.check_invariants()


def test_U_DRAW_4_penalty_draws_only_what_exists() -> None:
    """U-DRAW-4: a Draw Two with one card left under the top: the victim draws that one."""
    game = pos("hands=RD2 R1 B7/B3 Y4/G4 G6; discard=R7; draw=-; colour=R; seat=0; dir=+; phase=play")
    game.step("RD2")
    assert_position(
        game, "hands=R1 B7/B3 Y4 R7/G4 G6; discard=RD2; draw=-; colour=R; seat=2; dir=+; phase=play"
    )


@pytest.mark.parametrize(
    ("under", "after"),
    [
        # the reshuffled card does not match the named green: kept, turn over
        ("B5", "hands=R1 Y9 B7 B5/B3; discard=W; draw=-; colour=G; seat=1; dir=+; phase=play"),
        # it matches the named green: play-or-keep (U-DRAW-1)
        ("G5", "hands=R1 Y9 B7 G5/B3; discard=W; draw=-; colour=G; seat=0; dir=+; phase=drawn; drawn=G5"),
    ],
)
def test_U_DRAW_4_reshuffle_under_a_wild_keeps_its_named_colour(under: str, after: str) -> None:
    """U-DRAW-4 with U-WILD-1: the draw pile is empty and a Wild named green is on top; the
    card under it becomes the draw pile and is drawn, the Wild stays alone on the pile and
    green still holds."""
    game = pos(f"hands=R1 B7 Y9/B3; discard={under} W; draw=-; colour=G; seat=0; dir=+; phase=play")
    game.step("draw")
    assert_position(game, after)


def test_U_DRAW_4_missed_uno_penalty_draws_what_the_reshuffle_gives() -> None:
    """U-DRAW-4 with U-UNO-1: the caught player draws the 2-card penalty from an empty pile: the
    discard pile under the card just laid (R7) is reshuffled and drawn, then nothing is left."""
    game = pos("hands=R3 R4/B3 B4 B5; discard=R7; draw=-; colour=R; seat=0; dir=+; phase=play")
    game.step("R3")
    assert_position(game, "hands=R4 R7/B3 B4 B5; discard=R3; draw=-; colour=R; seat=1; dir=+; phase=play")


def test_U_DRAW_4_failed_challenge_draws_only_what_exists() -> None:
    """U-DRAW-4 with U-WD4-2: a failed challenger owes 6 cards but the pile holds 2 and the
    discard pile 1 under the Wild Draw Four: 3 are drawn, the turn is still lost, the colour
    named stands."""
    game = pos(
        "hands=WD4 G1 B5/G3 G4 G5/Y5 Y6 Y7; discard=R7; draw=Y1 Y2; colour=R; seat=0; dir=+; phase=play"
    )
    game.step("WD4")
    game.step("colour B")
    game.step("challenge")
    assert_position(
        game,
        "hands=G1 B5/R7 Y1 Y2 G3 G4 G5/Y5 Y6 Y7; discard=WD4; draw=-; colour=B; seat=2; dir=+; phase=play",
    )


# ================================================================ U-SKIP-1
def test_U_SKIP_1_skip_passes_over_the_next_player() -> None:
    """U-SKIP-1: seat 3 plays a Skip: seat 0 loses the turn, seat 1 plays."""
    game = pos("hands=B3 B4/Y6 Y7/G4 G5/RS R1 R2; discard=R7; draw=G9; colour=R; seat=3; dir=+; phase=play")
    game.step("RS")
    assert_position(
        game, "hands=B3 B4/Y6 Y7/G4 G5/R1 R2; discard=R7 RS; draw=G9; colour=R; seat=1; dir=+; phase=play"
    )


def test_U_SKIP_1_skip_follows_the_direction_and_sets_the_colour() -> None:
    """U-SKIP-1 and U-MATCH-1: a green Skip on a red Skip, counter-clockwise from seat 1:
    seat 0 is skipped, seat 3 plays, colour green."""
    game = pos("hands=B3 B4/GS R1 R2/G4 G5/Y6 Y7; discard=RS; draw=G9; colour=R; seat=1; dir=-; phase=play")
    game.step("GS")
    assert_position(
        game, "hands=B3 B4/R1 R2/G4 G5/Y6 Y7; discard=RS GS; draw=G9; colour=G; seat=3; dir=-; phase=play"
    )


def test_U_SKIP_1_two_players_skip_gives_another_turn() -> None:
    """U-SKIP-1 with two players: the player who skipped plays again."""
    game = pos("hands=RS R1 R2/B3 B4; discard=R7; draw=G9; colour=R; seat=0; dir=+; phase=play")
    game.step("RS")
    assert_position(game, "hands=R1 R2/B3 B4; discard=R7 RS; draw=G9; colour=R; seat=0; dir=+; phase=play")


# ================================================================ U-REV-1
def test_U_REV_1_reverse_flips_direction_with_three_players() -> None:
    """U-REV-1: with 3 players a Reverse flips the direction; play goes on counter-clockwise."""
    game = pos("hands=RR R1 R2/B3 B4/G4 R5 B6; discard=R7; draw=G9; colour=R; seat=0; dir=+; phase=play")
    game.step("RR")
    assert_position(
        game, "hands=R1 R2/B3 B4/G4 R5 B6; discard=R7 RR; draw=G9; colour=R; seat=2; dir=-; phase=play"
    )
    game.step("R5")
    assert_position(
        game, "hands=R1 R2/B3 B4/G4 B6; discard=R7 RR R5; draw=G9; colour=R; seat=1; dir=-; phase=play"
    )


def test_U_REV_1_reverse_counter_clockwise_back_to_clockwise() -> None:
    """U-REV-1: a Reverse while playing counter-clockwise turns play clockwise again."""
    game = pos("hands=B3 B4/Y4 Y5/RR R1 R2/G6 G7; discard=R7; draw=G9; colour=R; seat=2; dir=-; phase=play")
    game.step("RR")
    assert_position(
        game, "hands=B3 B4/Y4 Y5/R1 R2/G6 G7; discard=R7 RR; draw=G9; colour=R; seat=3; dir=+; phase=play"
    )


def test_U_REV_1_two_players_reverse_acts_as_skip() -> None:
    """U-REV-1 with two players (default): a Reverse acts as a Skip."""
    game = pos("hands=RR R1 R2/B3 B4; discard=R7; draw=G9; colour=R; seat=0; dir=+; phase=play")
    game.step("RR")
    assert_position(game, "hands=R1 R2/B3 B4; discard=R7 RR; draw=G9; colour=R; seat=0; dir=+; phase=play")


def test_U_REV_1_two_players_option_reverse_only_reverses() -> None:
    """U-REV-1 option ``reverse_with_two="reverse"``: the direction flips, the other player
    moves."""
    game = pos(
        "hands=RR R1 R2/B3 B4; discard=R7; draw=G9; colour=R; seat=0; dir=+; phase=play",
        reverse_with_two="reverse",
    )
    game.step("RR")
    assert_position(game, "hands=R1 R2/B3 B4; discard=R7 RR; draw=G9; colour=R; seat=1; dir=-; phase=play")


# ================================================================ U-D2-1
def test_U_D2_1_next_player_draws_two_and_loses_the_turn() -> None:
    """U-D2-1: seat 1 draws the top two cards; seat 2 plays."""
    game = pos("hands=RD2 R1 R2/B3 B4/G4 G5; discard=R7; draw=G9 Y1 B2; colour=R; seat=0; dir=+; phase=play")
    game.step("RD2")
    assert_position(
        game,
        "hands=R1 R2/B3 B4 G9 Y1/G4 G5; discard=R7 RD2; draw=B2; colour=R; seat=2; dir=+; phase=play",
    )


def test_U_D2_1_counter_clockwise() -> None:
    """U-D2-1 with E-DIR-1: counter-clockwise from seat 0, seat 2 draws and seat 1 plays."""
    game = pos("hands=RD2 R1 R2/B3 B4/G4 G5; discard=R7; draw=G9 Y1 B2; colour=R; seat=0; dir=-; phase=play")
    game.step("RD2")
    assert_position(
        game,
        "hands=R1 R2/B3 B4/G4 G5 G9 Y1; discard=R7 RD2; draw=B2; colour=R; seat=1; dir=-; phase=play",
    )


def test_U_D2_1_draw_two_matches_draw_two_and_changes_colour() -> None:
    """U-D2-1 and U-MATCH-1: a green Draw Two on a red Draw Two turns the colour green."""
    game = pos("hands=GD2 R1 R2/B3 B4/G4 G5; discard=RD2; draw=G9 Y1; colour=R; seat=0; dir=+; phase=play")
    game.step("GD2")
    assert_position(
        game, "hands=R1 R2/B3 B4 G9 Y1/G4 G5; discard=RD2 GD2; draw=-; colour=G; seat=2; dir=+; phase=play"
    )


def test_U_D2_1_two_players_the_player_moves_again() -> None:
    """U-D2-1 at 2 players: the other player draws 2 and loses the turn: the player of the
    Draw Two moves again."""
    game = pos("hands=RD2 R1 R2/B3 B4; discard=R7; draw=G9 Y1 B2; colour=R; seat=0; dir=+; phase=play")
    game.step("RD2")
    assert_position(
        game, "hands=R1 R2/B3 B4 G9 Y1; discard=R7 RD2; draw=B2; colour=R; seat=0; dir=+; phase=play"
    )


# ================================================================ U-WILD-1
def test_U_WILD_1_wild_names_the_colour() -> None:
    """U-WILD-1: a Wild is legal on anything; its player names the colour, then the turn
    passes and the named colour must be followed."""
    game = pos("hands=W R1 R2/B3 G4 G5/Y1 Y2; discard=R7; draw=G9; colour=R; seat=0; dir=+; phase=play")
    assert "W" in legal(game)
    game.step("W")
    assert game.phase == Phase.CHOOSE_COLOUR
    assert game.current_player == 0
    assert legal(game) == {"colour R", "colour Y", "colour G", "colour B"}
    game.step("colour G")
    assert_position(
        game, "hands=R1 R2/B3 G4 G5/Y1 Y2; discard=R7 W; draw=G9; colour=G; seat=1; dir=+; phase=play"
    )
    assert legal(game) == {"G4", "G5", "draw"}


# ================================================================ U-WD4-1
WD4_TABLE = (
    "hands={hand}/G3 G4 G5/Y5 Y6 Y7; discard=R7; draw=G9 Y1 Y2 Y3 B2 B3 B4; colour=R; seat=0; dir=+; "
    "phase=play"
)


@pytest.mark.parametrize(
    ("hand_text", "legal_when", "wd4_legal"),
    [
        ("WD4 R2 B1", "no_matching_colour", False),  # holds a red card
        ("WD4 G7 B1", "no_matching_colour", True),  # G7 matches by number only
        ("WD4 W B1", "no_matching_colour", True),  # a Wild is not of the current colour
        ("WD4 G7 B1", "no_playable_card", False),  # option: G7 is playable
        ("WD4 W B1", "no_playable_card", False),  # option: the Wild is playable
        ("WD4 B1 Y3", "no_playable_card", True),
        ("WD4 WD4 B1", "no_matching_colour", True),  # another Wild Draw Four is no red card
        ("WD4 RS RD2 B1", "no_playable_number_card", True),  # option (002): action cards do not count
        ("WD4 W B1", "no_playable_number_card", True),  # option: nor does a Wild
        ("WD4 R2 B1", "no_playable_number_card", False),  # option: a number of the colour
        ("WD4 G7 B1", "no_playable_number_card", False),  # option: a number matching by number
    ],
)
def test_U_WD4_1_legal_only_without_a_card_of_the_current_colour(
    hand_text: str, legal_when: str, wd4_legal: bool
) -> None:
    """U-WD4-1: with ``wd4_bluff="refused"`` the mask offers the Wild Draw Four only when it
    is legal: no card of the current colour (official), no other playable card (option), or no
    playable number card (option, the Uno wiki); the engine's legality test agrees."""
    game = pos(WD4_TABLE.format(hand=hand_text), wd4_bluff="refused", wd4_legal_when=legal_when)
    assert ("WD4" in legal(game)) is wd4_legal
    assert bool(engine.wild_draw_legal(game.state, compile_spec(game.rules), 0)) is wd4_legal
    others = {c for c in hand_text.split() if c != "WD4" and (c == "W" or c[0] == "R" or c[1:] == "7")}
    assert legal(game) - {"WD4"} == others | {"draw"}


def test_U_WD4_1_refused_mode_legal_wild_draw_four_hits_the_next_player() -> None:
    """U-WD4-1: a legal Wild Draw Four names the colour; the next player draws 4 and loses
    the turn (no challenge when bluffs are refused)."""
    game = pos(WD4_TABLE.format(hand="WD4 G7 B1"), wd4_bluff="refused")
    game.step("WD4")
    assert game.phase == Phase.CHOOSE_COLOUR
    game.step("colour B")
    assert_position(
        game,
        "hands=G7 B1/G3 G4 G5 G9 Y1 Y2 Y3/Y5 Y6 Y7; discard=R7 WD4; draw=B2 B3 B4; colour=B; seat=2; "
        "dir=+; phase=play",
    )


def test_U_WD4_1_legal_play_asks_the_victim_to_challenge_or_accept() -> None:
    """U-WD4-1 / U-WD4-2 (default): after the colour is named, the next player decides
    (challenge or accept) with 4 cards pending; the play was legal (no bluff)."""
    game = pos(WD4_TABLE.format(hand="WD4 G7 B1"))
    game.step("WD4")
    game.step("colour B")
    assert_position(
        game,
        "hands=G7 B1/G3 G4 G5/Y5 Y6 Y7; discard=R7 WD4; draw=G9 Y1 Y2 Y3 B2 B3 B4; colour=B; seat=1; "
        "dir=+; phase=challenge; pending=4; from=0; before=R",
    )
    assert game.pending_penalty == 4
    assert legal(game) == {"challenge", "accept"}


def test_U_WD4_1_option_no_playable_card_makes_a_number_match_a_bluff() -> None:
    """U-WD4-1 option ``wd4_legal_when="no_playable_card"``: holding a card that matches by
    number makes the Wild Draw Four illegal, so a challenge succeeds."""
    game = pos(WD4_TABLE.format(hand="WD4 G7 B1"), wd4_legal_when="no_playable_card")
    game.step("WD4")
    game.step("colour B")
    assert "bluff" in position_fields(game.position())
    game.step("challenge")
    assert_position(
        game,
        "hands=G7 B1 G9 Y1 Y2 Y3/G3 G4 G5/Y5 Y6 Y7; discard=R7 WD4; draw=B2 B3 B4; colour=R; seat=1; "
        "dir=+; phase=play",
    )


NUMBER_MATCHES_ON_R7 = "R0 R1 R2 R3 R4 R5 R6 R7 R8 R9 Y7 G7 B7"
"""The number cards that match R7 on red: what a legal Wild Draw Four there shows its player
lacks under ``wd4_legal_when="no_playable_number_card"``."""


def test_U_WD4_1_option_no_playable_number_card_an_action_card_of_the_colour_leaves_it_legal() -> None:
    """U-WD4-1 option ``wd4_legal_when="no_playable_number_card"`` (the Uno wiki: illegal with "a
    card of the same number/colour that could be played, except the action cards"): seat 0 holds
    a red Skip and a Wild on red, both playable, and no number card that matches, so its Wild
    Draw Four is legal. U-WD4-2: seat 1's challenge fails: it draws 4 + 2 and loses the turn,
    and the proof names the number cards that matched (red numbers and the 7s), not the Skip."""
    game = pos(WD4_TABLE.format(hand="WD4 RS W B1"), wd4_legal_when="no_playable_number_card")
    assert legal(game) == {"RS", "W", "WD4", "draw"}
    game.step("WD4")
    game.step("colour B")
    assert_position(
        game,
        "hands=RS W B1/G3 G4 G5/Y5 Y6 Y7; discard=R7 WD4; draw=G9 Y1 Y2 Y3 B2 B3 B4; colour=B; seat=1; "
        f"dir=+; phase=challenge; pending=4; from=0; before=R; hint={NUMBER_MATCHES_ON_R7}:0/-/-",
    )
    game.step("challenge")
    assert_position(
        game,
        "hands=RS W B1/G3 G4 G5 G9 Y1 Y2 Y3 B2 B3/Y5 Y6 Y7; discard=R7 WD4; draw=B4; colour=B; seat=2; "
        f"dir=+; phase=play; void={NUMBER_MATCHES_ON_R7}:0/-/-; hint={NUMBER_MATCHES_ON_R7}:0/-/-",
    )
    game.check_invariants()


@pytest.mark.parametrize("number", ["R2", "G7"])
def test_U_WD4_1_option_no_playable_number_card_a_matching_number_makes_it_a_bluff(number: str) -> None:
    """U-WD4-1 option ``wd4_legal_when="no_playable_number_card"``: a number card of the colour
    (R2) or of the top card's number (G7) makes the Wild Draw Four illegal, Skip held or not.
    U-WD4-2: the challenge succeeds: seat 0 draws the 4, the colour before it (red) holds again
    and seat 1 takes a normal turn."""
    game = pos(WD4_TABLE.format(hand=f"WD4 RS {number}"), wd4_legal_when="no_playable_number_card")
    game.step("WD4")
    game.step("colour B")
    assert position_fields(game.position())["bluff"] == "1"
    game.step("challenge")
    assert_position(
        game,
        f"hands=RS {number} G9 Y1 Y2 Y3/G3 G4 G5/Y5 Y6 Y7; discard=R7 WD4; draw=B2 B3 B4; colour=R; "
        f"seat=1; dir=+; phase=play; hint={NUMBER_MATCHES_ON_R7}:4/-/-",
    )


# ================================================================ U-WD4-2
def _bluff_pending(**overrides: Any) -> Game:
    """Seat 0 plays a Wild Draw Four while holding a red card (a bluff) and names blue."""
    game = pos(WD4_TABLE.format(hand="WD4 R2 G1"), **overrides)
    game.step("WD4")
    game.step("colour B")
    return game


def _legal_pending(**overrides: Any) -> Game:
    """Seat 0 plays a legal Wild Draw Four (no red card) and names blue."""
    game = pos(WD4_TABLE.format(hand="WD4 G1 B5"), **overrides)
    game.step("WD4")
    game.step("colour B")
    return game


def test_U_WD4_2_bluff_is_recorded_for_the_challenge() -> None:
    """U-WD4-2: an illegal Wild Draw Four may be played; the victim faces the challenge."""
    game = _bluff_pending()
    assert_position(
        game,
        "hands=R2 G1/G3 G4 G5/Y5 Y6 Y7; discard=R7 WD4; draw=G9 Y1 Y2 Y3 B2 B3 B4; colour=B; seat=1; "
        "dir=+; phase=challenge; pending=4; from=0; bluff=1; before=R",
    )
    assert legal(game) == {"challenge", "accept"}


def test_U_WD4_2_successful_challenge_annuls_colour() -> None:
    """U-WD4-2: a caught bluffer draws the 4; the colour before the Wild Draw Four stands and
    the challenger takes a normal turn."""
    game = _bluff_pending()
    game.step("challenge")
    assert_position(
        game,
        "hands=R2 G1 G9 Y1 Y2 Y3/G3 G4 G5/Y5 Y6 Y7; discard=R7 WD4; draw=B2 B3 B4; colour=R; seat=1; "
        "dir=+; phase=play",
    )
    assert game.pending_penalty == 0


def test_U_WD4_2_successful_challenge_option_colour_stands() -> None:
    """U-WD4-2 option ``challenge_colour="stands"``: the named colour stays after a caught
    bluff."""
    game = _bluff_pending(challenge_colour="stands")
    game.step("challenge")
    assert_position(
        game,
        "hands=R2 G1 G9 Y1 Y2 Y3/G3 G4 G5/Y5 Y6 Y7; discard=R7 WD4; draw=B2 B3 B4; colour=B; seat=1; "
        "dir=+; phase=play",
    )


def test_U_WD4_2_failed_challenge_draws_six_and_loses_the_turn() -> None:
    """U-WD4-2: challenging a legal Wild Draw Four costs 4 + 2 = 6 cards and the turn."""
    game = _legal_pending()
    game.step("challenge")
    assert_position(
        game,
        "hands=G1 B5/G3 G4 G5 G9 Y1 Y2 Y3 B2 B3/Y5 Y6 Y7; discard=R7 WD4; draw=B4; colour=B; seat=2; "
        "dir=+; phase=play",
    )


RED = "R0 R1 R2 R3 R4 R5 R6 R7 R8 R9 RS RR RD2"


def test_U_WD4_1_U_WD4_2_what_the_wild_draw_four_showed_is_recorded() -> None:
    """U-WD4-1: laying a Wild Draw Four on red implies seat 0 held no red card (a hint: it may
    be a bluff); U-WD4-2: a challenge that finds it legal proves it (void), with no card gained
    since (count 0). Both are public: the position and the observation carry them."""
    game = _legal_pending()
    assert_position(
        game,
        "hands=G1 B5/G3 G4 G5/Y5 Y6 Y7; discard=R7 WD4; draw=G9 Y1 Y2 Y3 B2 B3 B4; colour=B; seat=1; "
        f"dir=+; phase=challenge; pending=4; from=0; before=R; hint={RED}:0/-/-",
    )
    game.step("challenge")
    assert_position(
        game,
        "hands=G1 B5/G3 G4 G5 G9 Y1 Y2 Y3 B2 B3/Y5 Y6 Y7; discard=R7 WD4; draw=B4; colour=B; seat=2; "
        f"dir=+; phase=play; void={RED}:0/-/-; hint={RED}:0/-/-",
    )


def test_U_WD4_2_the_proof_counts_the_cards_gained_since_the_wild_draw_four() -> None:
    """U-WD4-2 with U-UNO-1: seat 0 lays its second-last card, a Wild Draw Four on red, without
    calling UNO and draws the 2-card penalty (R1 R2) before seat 1 challenges. The failed
    challenge proves seat 0 held no red card *when it laid it*: the proof's count is the 2 cards
    gained since, not 0 (which would claim R1 R2 are not there)."""
    game = pos(
        "hands=WD4 B5/G3 G4 G5/Y5 Y6 Y7; discard=R7; draw=R1 R2 Y1 Y2 Y3 B2 B3 B4; colour=R; seat=0; "
        "dir=+; phase=play"
    )
    game.step("WD4")
    game.step("colour B")
    assert_position(
        game,
        "hands=R1 R2 B5/G3 G4 G5/Y5 Y6 Y7; discard=R7 WD4; draw=Y1 Y2 Y3 B2 B3 B4; colour=B; seat=1; "
        f"dir=+; phase=challenge; pending=4; from=0; before=R; hint={RED}:2/-/-",
    )
    game.step("challenge")
    assert_position(
        game,
        "hands=R1 R2 B5/G3 G4 G5 Y1 Y2 Y3 B2 B3 B4/Y5 Y6 Y7; discard=R7 WD4; draw=-; colour=B; seat=2; "
        f"dir=+; phase=play; void={RED}:2/-/-; hint={RED}:2/-/-",
    )
    game.check_invariants()


SPADES_BUT_JACK = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S QS KS"


def test_U_WD4_1_U_WD4_2_a_wild_draw_four_of_the_colour_is_not_in_the_record() -> None:
    """U-WD4-1: another Wild Draw Four never makes one illegal, even one that carries the colour
    (a French Jack made a Wild Draw Four). Seat 0 lays JH on spades holding JS: legal, so the
    hint and, after the failed challenge (U-WD4-2), the proof name every spade but JS. Laying JS
    later leaves the proof's count at 0 (a record naming JS would go to -1: a false proof)."""
    from uno_env import RuleSet

    rules = RuleSet(
        deck="french", card_effects=("J:wild_draw:4",), wd4_bluff="challenge", call="none",
        dealer="random", start_card="official", max_players=4,
    )  # fmt: skip
    game = Game.from_position(
        rules,
        "hands=JS JH 5C 7D/3C 4C 5D/6D 7H 8H; discard=8S; draw=2C 3D 4D 5H 6H 7C 8C 9C 10C; colour=S; "
        "seat=0; dir=+; phase=play",
    )
    game.step("JH")
    game.step("suit C")
    game.step("challenge")
    assert_position(
        game,
        "hands=5C 7D JS/2C 3C 4C 7C 3D 4D 5D 5H 6H/6D 7H 8H; discard=8S JH; draw=8C 9C 10C; colour=C; "
        f"seat=2; dir=+; phase=play; void={SPADES_BUT_JACK}:0/-/-; hint={SPADES_BUT_JACK}:0/-/-",
    )
    game.step("draw")  # 8C
    game.step("8C")
    game.step("JS")
    game.check_invariants()
    fields = position_fields(game.position())
    assert fields["void"] == f"{SPADES_BUT_JACK}:0/-/-"
    assert fields["hands"].split("/")[0] == "5C 7D"


def test_U_WD4_1_a_refused_bluff_mode_proves_the_lack_when_laid() -> None:
    """U-WD4-1 (``wd4_bluff = "refused"``): a Wild Draw Four is only offered without a card of the
    colour, so laying one proves the lack at once."""
    game = pos(WD4_TABLE.format(hand="WD4 G1 B5"), wd4_bluff="refused")
    game.step("WD4")
    assert position_fields(game.position())["void"] == f"{RED}:0/-/-"
    assert "hint" not in position_fields(game.position())


def test_U_WD4_2_a_drawn_wild_draw_four_is_asked_again_after_a_false_call() -> None:
    """U-WD4-2 (``wd4_bluff = "refused"``) with MM-CALL-1: seat 0 drew a Wild Draw Four it could
    play (no red card), then called falsely (three cards) and drew the 2-card penalty, a red
    one among them. The Wild Draw Four is now illegal: keeping it (pass) is all that is left,
    besides another call."""
    game = pos(
        "hands=G1 G2 WD4/G3 G4 G5/Y5 Y6 Y7; discard=R7; draw=R1 B2 B3 R2; colour=R; seat=0; dir=+; "
        "phase=drawn; drawn=WD4",
        wd4_bluff="refused", call="mau_mau", false_call_penalty=2,
    )  # fmt: skip
    assert legal(game) == {"WD4", "pass", "call"}
    game.step("call")
    assert_position(
        game,
        "hands=R1 G1 G2 B2 WD4/G3 G4 G5/Y5 Y6 Y7; discard=R7; draw=B3 R2; colour=R; seat=0; dir=+; "
        "phase=drawn; drawn=WD4",
    )
    assert legal(game) == {"pass", "call"}


@pytest.mark.parametrize("penalty", [0, 1, 3])
def test_U_WD4_2_challenge_penalty_parameter(penalty: int) -> None:
    """U-WD4-2: a failed challenger draws 4 + ``challenge_penalty`` cards."""
    game = _legal_pending(challenge_penalty=penalty)
    game.step("challenge")
    drawn = ["G9", "Y1", "Y2", "Y3", "B2", "B3", "B4"][: 4 + penalty]
    assert Counter(hand(game, 1)) == Counter(["G3", "G4", "G5", *drawn])
    assert game.current_player == 2
    assert game.phase == Phase.PLAY


def test_U_WD4_2_accept_draws_four_and_loses_the_turn() -> None:
    """U-WD4-2: accepting (even a bluff) draws the 4 and loses the turn; the colour stands."""
    game = _bluff_pending()
    game.step("accept")
    assert_position(
        game,
        "hands=R2 G1/G3 G4 G5 G9 Y1 Y2 Y3/Y5 Y6 Y7; discard=R7 WD4; draw=B2 B3 B4; colour=B; seat=2; "
        "dir=+; phase=play",
    )


def test_U_WD4_2_only_the_victim_may_challenge() -> None:
    """U-WD4-2: counter-clockwise, the victim is seat 2; the decision is theirs alone."""
    game = pos(WD4_TABLE.format(hand="WD4 R2 G1").replace("dir=+", "dir=-"))
    game.step("WD4")
    game.step("colour B")
    assert game.current_player == 2
    assert game.phase == Phase.CHALLENGE
    assert legal(game) == {"challenge", "accept"}
    game.step("challenge")
    assert game.current_player == 2
    assert game.phase == Phase.PLAY
    assert len(hand(game, 0)) == 6


def test_U_WD4_2_unpunished_option_has_no_challenge() -> None:
    """U-WD4-2 option ``wd4_bluff="unpunished"``: a bluff goes through, the victim draws 4."""
    game = _bluff_pending(wd4_bluff="unpunished")
    assert_position(
        game,
        "hands=R2 G1/G3 G4 G5 G9 Y1 Y2 Y3/Y5 Y6 Y7; discard=R7 WD4; draw=B2 B3 B4; colour=B; seat=2; "
        "dir=+; phase=play",
    )


def test_U_WD4_2_refused_option_removes_the_bluff() -> None:
    """U-WD4-2 option ``wd4_bluff="refused"``: the illegal Wild Draw Four cannot be played."""
    game = pos(WD4_TABLE.format(hand="WD4 R2 G1"), wd4_bluff="refused")
    before = game.position()
    with pytest.raises(IllegalActionError):
        game.step("WD4")
    assert game.position() == before


WD4_TWO = (
    "hands=WD4 {card} B5/G3 G4; discard=R7; draw=G9 Y1 Y2 Y3 B2 B3 B4; colour=R; seat=0; dir=+; phase=play"
)


def test_U_WD4_2_two_players_failed_challenge_gives_the_turn_back() -> None:
    """U-WD4-2 at 2 players: a failed challenge of a legal Wild Draw Four costs 6 cards and the
    turn, so its player moves again, in the colour named."""
    game = pos(WD4_TWO.format(card="G1"))
    game.step("WD4")
    game.step("colour B")
    assert game.current_player == 1
    assert game.phase == Phase.CHALLENGE
    game.step("challenge")
    assert_position(
        game,
        "hands=G1 B5/G3 G4 G9 Y1 Y2 Y3 B2 B3; discard=R7 WD4; draw=B4; colour=B; seat=0; dir=+; phase=play",
    )
    assert legal(game) == {"B5", "call", "draw"}


def test_U_WD4_2_two_players_successful_challenge() -> None:
    """U-WD4-2 at 2 players: the bluffer (holding R1 on red) draws the 4, red holds again and
    the challenger takes a normal turn."""
    game = pos(WD4_TWO.format(card="R1"))
    game.step("WD4")
    game.step("colour B")
    game.step("challenge")
    assert_position(
        game,
        "hands=R1 B5 G9 Y1 Y2 Y3/G3 G4; discard=R7 WD4; draw=B2 B3 B4; colour=R; seat=1; dir=+; phase=play",
    )
    assert legal(game) == {"call", "draw"}


def test_U_WD4_2_two_players_accept_draws_four_and_the_turn_comes_back() -> None:
    """U-WD4-2 / U-WD4-1 at 2 players: accepting draws 4 and loses the turn: its player moves
    again in the colour named."""
    game = pos(WD4_TWO.format(card="R1"))
    game.step("WD4")
    game.step("colour G")
    game.step("accept")
    assert_position(
        game,
        "hands=R1 B5/G3 G4 G9 Y1 Y2 Y3; discard=R7 WD4; draw=B2 B3 B4; colour=G; seat=0; dir=+; phase=play",
    )


def test_U_WD4_2_successful_challenge_restores_the_colour_named_for_a_wild() -> None:
    """U-WD4-2 with U-WILD-1: under the Wild Draw Four lies a Wild named green; the bluffer held
    G2, so the challenge succeeds and green (not the Wild's printed nothing, nor blue) holds."""
    game = pos(
        "hands=WD4 G2 B1/B3 B4 B5/R1 R2; discard=R5 W; draw=Y1 Y2 Y3 Y4 Y6 Y7; colour=G; seat=0; dir=+; "
        "phase=play"
    )
    game.step("WD4")
    game.step("colour B")
    assert position_fields(game.position())["before"] == "G"
    game.step("challenge")
    assert_position(
        game,
        "hands=G2 B1 Y1 Y2 Y3 Y4/B3 B4 B5/R1 R2; discard=R5 W WD4; draw=Y6 Y7; colour=G; seat=1; dir=+; "
        "phase=play",
    )


def test_U_WD4_2_challenger_with_two_cards_plays_in_the_restored_colour() -> None:
    """U-WD4-2 with U-UNO-1: after a successful challenge the challenger's normal turn is a
    full one: it may lay a card of the colour before the Wild Draw Four, and call at 2 cards."""
    game = pos(
        "hands=WD4 R2 G1/R3 B4/Y5 Y6; discard=R7; draw=G9 Y1 Y2 Y3 B2; colour=R; seat=0; dir=+; phase=play"
    )
    game.step("WD4")
    game.step("colour B")
    game.step("challenge")
    assert legal(game) == {"R3", "call", "draw"}
    game.step("call")
    game.step("R3")
    assert_position(
        game,
        "hands=R2 G1 G9 Y1 Y2 Y3/B4/Y5 Y6; discard=R7 WD4 R3; draw=B2; colour=R; seat=2; dir=+; phase=play; "
        "called=1",
    )


# ================================================================ U-UNO-1
UNO_TABLE = "hands={hand}/B3 B4 B5; discard=R7; draw=G1 G2 G3 G4 G5 G6; colour=R; seat=0; dir=+; phase=play"


def test_U_UNO_1_call_is_legal_at_two_cards_only() -> None:
    """U-UNO-1: ``call`` is offered to a player holding two cards, not three."""
    assert legal(pos(UNO_TABLE.format(hand="R3 R4"))) == {"R3", "R4", "draw", "call"}
    assert legal(pos(UNO_TABLE.format(hand="R3 R4 B9"))) == {"R3", "R4", "draw"}


def test_U_UNO_1_missed_call_is_caught_and_draws_two() -> None:
    """U-UNO-1 (``uno_catch=1.0``): playing the second-to-last card without a call costs 2."""
    game = pos(UNO_TABLE.format(hand="R3 R4"))
    game.step("R3")
    assert_position(
        game, "hands=R4 G1 G2/B3 B4 B5; discard=R7 R3; draw=G3 G4 G5 G6; colour=R; seat=1; dir=+; phase=play"
    )


def test_U_UNO_1_called_player_keeps_the_call() -> None:
    """U-UNO-1: after a call the player goes down to one card unpunished; the call stands
    through the other players' turns."""
    game = pos(UNO_TABLE.format(hand="R3 R4"))
    game.step("call")
    assert_position(
        game,
        "hands=R3 R4/B3 B4 B5; discard=R7; draw=G1 G2 G3 G4 G5 G6; colour=R; seat=0; dir=+; phase=play; "
        "called=0",
    )
    assert legal(game) == {"R3", "R4", "draw"}
    game.step("R3")
    assert_position(
        game,
        "hands=R4/B3 B4 B5; discard=R7 R3; draw=G1 G2 G3 G4 G5 G6; colour=R; seat=1; dir=+; phase=play; "
        "called=0",
    )
    game.step("B3")
    assert game.called() == [True, False]
    assert game.current_player == 0


def test_U_UNO_1_call_lapses_when_the_player_draws() -> None:
    """U-UNO-1: a call stands only while its player holds one card."""
    game = pos("hands=R4/BD2 B4 B5; discard=R3; draw=G1 G2 G3; colour=B; seat=1; dir=+; phase=play; called=0")
    game.step("BD2")
    assert_position(
        game, "hands=R4 G1 G2/B4 B5; discard=R3 BD2; draw=G3; colour=B; seat=1; dir=+; phase=play"
    )


def test_U_UNO_1_never_caught() -> None:
    """U-UNO-1 (``uno_catch=0.0``): a missed call is never caught."""
    game = pos(UNO_TABLE.format(hand="R3 R4"), uno_catch=0.0)
    game.step("R3")
    assert_position(
        game, "hands=R4/B3 B4 B5; discard=R7 R3; draw=G1 G2 G3 G4 G5 G6; colour=R; seat=1; dir=+; phase=play"
    )


def test_U_UNO_1_five_card_option() -> None:
    """U-UNO-1 (the Uno wiki's option, ``uno_penalty=5``): a missed call costs 5 cards."""
    game = pos(UNO_TABLE.format(hand="R3 R4"), uno_penalty=5)
    game.step("R3")
    assert_position(
        game, "hands=R4 G1 G2 G3 G4 G5/B3 B4 B5; discard=R7 R3; draw=G6; colour=R; seat=1; dir=+; phase=play"
    )


def test_U_UNO_1_catch_probability() -> None:
    """U-UNO-1 (``uno_catch=0.5``): over 100 seeds a missed call is caught about half the time."""
    caught = 0
    for seed in range(100):
        game = pos(UNO_TABLE.format(hand="R3 R4"), seed=seed, uno_catch=0.5)
        game.step("R3")
        size = len(hand(game, 0))
        assert size in (1, 3)
        caught += size == 3
    assert 30 <= caught <= 70, caught


def test_U_UNO_1_call_after_drawing_to_two_cards() -> None:
    """U-UNO-1 with U-DRAW-1: a player who draws up to two cards may call before playing the
    drawn card; without the call they are caught."""
    text = "hands=B9/B3 B4 B5; discard=R7; draw=R5 G1 G2; colour=R; seat=0; dir=+; phase=play"
    game = pos(text)
    game.step("draw")
    assert legal(game) == {"R5", "pass", "call"}
    game.step("call")
    game.step("R5")
    assert_position(
        game, "hands=B9/B3 B4 B5; discard=R7 R5; draw=G1 G2; colour=R; seat=1; dir=+; phase=play; called=0"
    )
    game = pos(text)
    game.step("draw")
    game.step("R5")
    assert_position(
        game, "hands=B9 G1 G2/B3 B4 B5; discard=R7 R5; draw=-; colour=R; seat=1; dir=+; phase=play"
    )


def test_U_UNO_1_missed_call_on_a_wild_is_caught_before_the_colour_is_named() -> None:
    """U-UNO-1 with U-WILD-1: laying a Wild as the second-to-last card without calling is caught
    at once (2 cards drawn), before the player names the colour; the turn then passes as usual."""
    game = pos("hands=W R1/G3 G4/Y1 Y2; discard=R7; draw=G9 Y9 B2 B3; colour=R; seat=0; dir=+; phase=play")
    game.step("W")
    assert_position(
        game, "hands=R1 G9 Y9/G3 G4/Y1 Y2; discard=R7 W; draw=B2 B3; colour=R; seat=0; dir=+; phase=colour"
    )
    assert legal(game) == {"colour R", "colour Y", "colour G", "colour B"}
    game.step("colour G")
    assert_position(
        game, "hands=R1 G9 Y9/G3 G4/Y1 Y2; discard=R7 W; draw=B2 B3; colour=G; seat=1; dir=+; phase=play"
    )


def test_U_UNO_1_missed_call_on_a_draw_two_penalty_then_the_draw_two() -> None:
    """U-UNO-1 with U-D2-1: the caught player draws its 2 before the Draw Two's victim draws
    its 2 (the penalty comes as the card is laid); the victim still loses the turn."""
    game = pos("hands=RD2 R1/G3 G4/Y1 Y2; discard=R7; draw=G9 Y9 B2 B3; colour=R; seat=0; dir=+; phase=play")
    game.step("RD2")
    assert_position(
        game, "hands=R1 G9 Y9/G3 G4 B2 B3/Y1 Y2; discard=R7 RD2; draw=-; colour=R; seat=2; dir=+; phase=play"
    )


def test_U_UNO_1_missed_call_on_a_skip_at_two_players() -> None:
    """U-UNO-1 with U-SKIP-1 at 2 players: the player is caught on the Skip that left it one
    card, draws 2 and moves again holding 3 (no call is offered at 3 cards)."""
    game = pos("hands=RS R1/G3 G4; discard=R7; draw=G9 Y9 B2 B3; colour=R; seat=0; dir=+; phase=play")
    game.step("RS")
    assert_position(
        game, "hands=R1 G9 Y9/G3 G4; discard=R7 RS; draw=B2 B3; colour=R; seat=0; dir=+; phase=play"
    )
    assert legal(game) == {"R1", "draw"}


def test_U_UNO_1_call_with_one_card_or_while_naming_a_colour_is_not_offered() -> None:
    """U-UNO-1: the call belongs to the second-to-last card: it is not offered with one card in
    hand, nor while naming the colour of a Wild that left two."""
    assert legal(pos("hands=R3/B3 B4 B5; discard=R7; draw=G1; colour=R; seat=0; dir=+; phase=play")) == {
        "R3",
        "draw",
    }
    game = pos("hands=W R3 B9/B3 B4 B5; discard=R7; draw=G1; colour=R; seat=0; dir=+; phase=play")
    game.step("W")
    assert "call" not in legal(game)


# ================================================================ U-WRONG-1
def test_U_WRONG_1_wrong_card_raises_and_leaves_the_game_unchanged() -> None:
    """U-WRONG-1: the engine never accepts a wrong card: IllegalActionError names the position
    and the legal actions; the game is unchanged."""
    game = pos("hands=R2 G9 B7/B3; discard=Y5 R5; draw=Y1; colour=R; seat=0; dir=+; phase=play")
    before = game.position()
    legal_before = game.legal_actions()
    for wrong in ("B7", game.parse_action("G9"), "Y5", "colour G", "challenge"):
        with pytest.raises(IllegalActionError) as info:
            game.step(wrong)
        message = str(info.value)
        assert before in message
        assert "R2" in message and "draw" in message
        assert info.value.legal == legal_before
        assert info.value.position == before
        assert game.position() == before
        assert game.legal_actions() == legal_before
        assert game.history == []


# ================================================================ U-END-1
END_TABLE = (
    "hands={card}/G5 Y3/B9 Y4; discard=R7; draw=B7 W G1 G2 B8; colour=R; seat=0; dir={dir}; phase=play"
)


def test_U_END_1_last_card_draw_two_is_still_drawn_and_scored() -> None:
    """U-END-1: going out on a Draw Two: the next player draws 2, which count in scoring."""
    game = pos(END_TABLE.format(card="RD2", dir="+"))
    game.step("RD2")
    assert game.is_over()
    assert hand(game, 1) == ["Y3", "G5", "B7", "W"]
    assert draw_pile(game) == ["G1", "G2", "B8"]
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.winner == 0
    assert outcome.round_points == (0, 3 + 5 + 7 + 50, 9 + 4)
    assert outcome.scores == (78, 0, 0)


def test_U_END_1_last_card_wild_draw_four_is_still_drawn_and_scored() -> None:
    """U-END-1: going out on a Wild Draw Four: the next player draws 4, which count."""
    game = pos(END_TABLE.format(card="WD4", dir="+"))
    game.step("WD4")
    assert game.is_over()
    assert Counter(hand(game, 1)) == Counter(["G5", "Y3", "B7", "W", "G1", "G2"])
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.round_points == (0, 5 + 3 + 7 + 50 + 1 + 2, 13)
    assert outcome.scores == (81, 0, 0)


def test_U_END_1_last_card_draw_two_counter_clockwise() -> None:
    """U-END-1 with E-DIR-1: counter-clockwise, seat 2 is the one who draws."""
    game = pos(END_TABLE.format(card="RD2", dir="-"))
    game.step("RD2")
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.round_points == (0, 8, 9 + 4 + 7 + 50)
    assert outcome.scores == (78, 0, 0)


def test_U_END_1_option_last_card_not_drawn() -> None:
    """U-END-1 option ``last_card_draw=False``: the round ends at once, nobody draws."""
    game = pos(END_TABLE.format(card="RD2", dir="+"), last_card_draw=False)
    game.step("RD2")
    assert hand(game, 1) == ["Y3", "G5"]
    assert draw_pile(game) == ["B7", "W", "G1", "G2", "B8"]
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.round_points == (0, 8, 13)
    assert outcome.scores == (21, 0, 0)


def test_U_END_1_MC_END_1_the_last_leavers_draw_two_is_drawn_by_the_player_left() -> None:
    """U-END-1 with MC-END-1 (``end="last_player"``, ``last_card_draw`` on): the round ends
    when the second-to-last player leaves; if it leaves on a Draw Two, the player left still
    draws the 2, and the winner (the first to leave) scores them. A player leaving earlier on
    a Draw Two sends it as in play."""
    table = "discard=R5; draw=Y1 Y2 Y3; colour=R; dir=+; phase=play"
    game = pos(f"hands=/RD2/G5 G6 G7; {table}; seat=1; finished=1 0 0", end="last_player")
    game.step("RD2")
    assert_position(
        game,
        "hands=//Y1 Y2 G5 G6 G7; discard=R5 RD2; draw=Y3; colour=R; seat=-1; dir=+; phase=over; "
        "scores=21 0 0; finished=1 2 3; round=1; status=won; winner=0",
    )
    early = pos(f"hands=RD2/R3 R4/G5 G6 G7; {table}; seat=0", end="last_player")
    early.step("RD2")
    assert_position(
        early,
        "hands=/R3 R4 Y1 Y2/G5 G6 G7; discard=R5 RD2; draw=Y3; colour=R; seat=2; dir=+; phase=play; "
        "finished=1 0 0",
    )


@pytest.mark.parametrize("card", ["RS", "RR", "W"])
def test_U_END_1_going_out_on_skip_reverse_or_wild_ends_the_round_at_once(card: str) -> None:
    """U-END-1: going out on a Skip, Reverse or Wild ends the round at once: no colour is named,
    nobody draws and nobody else moves; the winner scores the other hands (U-SCORE-1)."""
    game = pos(END_TABLE.format(card=card, dir="+"))
    game.step(card)
    fields = position_fields(game.position())
    assert fields["hands"] == "/Y3 G5/Y4 B9"
    assert fields["discard"] == f"R7 {card}"
    assert fields["draw"] == "B7 W G1 G2 B8"
    assert fields["colour"] == "R"
    assert fields["phase"] == "over"
    assert game.is_over()
    assert legal(game) == set()
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.winner == 0
    assert outcome.round_points == (0, 8, 13)
    assert outcome.scores == (21, 0, 0)


def test_U_END_1_two_players_last_draw_two_is_drawn_and_scored() -> None:
    """U-END-1 at 2 players: going out on a Draw Two: the other player draws its 2 (B7, W),
    which count: 5 + 3 + 7 + 50."""
    game = pos("hands=RD2/G5 Y3; discard=R7; draw=B7 W G1; colour=R; seat=0; dir=+; phase=play")
    game.step("RD2")
    assert_position(
        game,
        "hands=/Y3 G5 B7 W; discard=R7 RD2; draw=G1; colour=R; seat=-1; dir=+; phase=over; scores=65 0; "
        "round=1; status=won; winner=0",
    )


def test_U_END_1_U_SCORE_2_last_draw_two_counts_in_a_match_round() -> None:
    """U-END-1 with U-SCORE-2: in a match the cards drawn for a last Draw Two count in the
    round's points, then the next round is dealt."""
    game = pos(
        "hands=RD2/G9 Y1/B2 B3; discard=R7; draw=Y9 G8 " + NUMBER_PILE + "; colour=R; seat=0; dir=+; "
        "phase=play; scores=10 0 0; dealer=2; round=3",
        match="first_to_target",
        target=100,
    )
    universe = all_cards(game)
    game.step("RD2")
    assert not game.is_over()
    assert [int(p) for p in game.state[L.ROUND_POINTS : L.ROUND_POINTS + 3]] == [0, 9 + 1 + 9 + 8, 5]
    assert game.scores() == [10 + 27 + 5, 0, 0]
    assert int(game.state[L.S_ROUND]) == 4
    assert int(game.state[L.S_DEALER]) == 0
    assert all_cards(game) == universe


# ================================================================ U-SCORE-1
def test_U_SCORE_1_exact_points() -> None:
    """U-SCORE-1: numbers count face value, Skip/Reverse/Draw Two 20, wilds 50; the round
    winner scores every card left in the other hands."""
    game = pos(
        "hands=R5/R0 G9 YS BR GD2/W WD4 B1/Y7; discard=R7; draw=G1; colour=R; seat=0; dir=+; phase=play"
    )
    game.step("R5")
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.winner == 0
    assert outcome.reason == "win"
    assert not outcome.truncated
    assert outcome.round_points == (0, 0 + 9 + 20 + 20 + 20, 50 + 50 + 1, 7)
    assert outcome.scores == (177, 0, 0, 0)
    assert outcome.ranking == (0, 3, 1, 2)
    assert outcome.rounds == 1
    assert game.phase == Phase.OVER
    assert game.legal_actions() == []


# ================================================================ U-SCORE-2
# 30 number cards, so that every later round starts on a number card
NUMBER_PILE = "R1 R2 R3 R4 R6 R8 R9 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 G1 G2 G3 G4 G5 G6 G7 G8 B1 B4 B5 B6 B7 B8 B9"
MATCH_TABLE = (
    "hands=R5/G9 Y1/B2 B3; discard=R7; draw=" + NUMBER_PILE + "; colour=R; seat=0; dir=+; phase=play; "
    "scores={scores}; dealer=2; round=3"
)


def test_U_SCORE_2_round_below_target_deals_a_new_round() -> None:
    """U-SCORE-2 (``match="first_to_target"``): a round won below the target scores and a new
    round is dealt: the dealer moves left, scores carry, 7 cards each, play left of the dealer."""
    game = pos(MATCH_TABLE.format(scores="10 0 0"), match="first_to_target", target=100)
    universe = all_cards(game)
    game.step("R5")
    assert not game.is_over()
    assert game.outcome() is None
    assert game.scores() == [10 + 10 + 5, 0, 0]
    assert int(game.state[L.S_DEALER]) == 0
    assert int(game.state[L.S_ROUND]) == 4
    assert game.hand_sizes() == [7, 7, 7]
    assert len(game.discard_pile()) == 1
    assert is_number(str(game.top_card))
    assert game.current_player == 1
    assert game.direction == 1
    assert game.phase == Phase.PLAY
    assert all_cards(game) == universe
    game.check_invariants()


def test_U_SCORE_2_reaching_the_target_ends_the_match() -> None:
    """U-SCORE-2: the round winner reaching the target wins the match (reason "match")."""
    game = pos(MATCH_TABLE.format(scores="85 40 0"), match="first_to_target", target=100)
    game.step("R5")
    assert game.is_over()
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.winner == 0
    assert outcome.reason == "match"
    assert outcome.scores == (100, 40, 0)
    assert outcome.round_points == (0, 10, 5)
    assert outcome.rounds == 4
    assert outcome.ranking == (0, 1, 2)


def test_U_SCORE_2_whole_matches_from_a_deal() -> None:
    """U-SCORE-2: 20 matches to 150 (compiled batch, random play): each lasts rounds until the
    winner of a round reaches the target; that player wins, every other score is below it."""
    result = simulate(
        "uno",
        3,
        20,
        seed=0,
        match="first_to_target",
        target=150,
        draw_when_playable=False,
        check_invariants=True,
    )
    assert not result.truncated.any()
    assert (result.rounds > 1).any()
    for g in range(result.num_games):
        winner = int(result.winner[g])
        scores = result.scores[g].tolist()
        assert scores[winner] >= 150
        assert all(s < 150 for seat, s in enumerate(scores) if seat != winner)
        assert result.round_points[g, winner] == 0  # the match winner went out last round
        assert result.ranking[g].tolist() == sorted(range(3), key=lambda s: (-scores[s], (s - winner) % 3))


def test_U_SCORE_1_every_card_kind_including_the_mario_wilds() -> None:
    """U-SCORE-1 (``uno_mario``): every kind left in a hand scores: a 0 nothing, numbers their
    face, Skip / Reverse / Draw Two 20, Wild, Wild Draw Four, customizable wild (WC) and Super
    Star (SS) 50; the winner takes all."""
    game = Game.from_position(
        "uno_mario",
        "hands=R5/R0 Y9 GS BR RD2/W WD4 WC SS; discard=R7; draw=G1; colour=R; seat=0; dir=+; phase=play",
    )
    game.step("R5")
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.round_points == (0, 0 + 9 + 20 + 20 + 20, 4 * 50)
    assert outcome.scores == (269, 0, 0)


def test_U_SCORE_2_exactly_the_target_wins_the_match() -> None:
    """U-SCORE-2: winnings that reach the target exactly (85 + 15 = 100) win the match."""
    game = pos(MATCH_TABLE.format(scores="85 0 0"), match="first_to_target", target=100)
    game.step("R5")
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.scores == (100, 0, 0)
    assert outcome.winner == 0
    assert outcome.reason == "match"


def test_U_SCORE_2_one_below_the_target_plays_on_and_the_deal_wraps() -> None:
    """U-SCORE-2: 99 of 100 plays another round: the deal passes left (seat 1 to seat 2) and
    the player left of the new dealer, seat 0, starts clockwise (U-SETUP-2)."""
    game = pos(
        MATCH_TABLE.format(scores="84 0 0").replace("dealer=2", "dealer=1"),
        match="first_to_target",
        target=100,
    )
    game.step("R5")
    assert not game.is_over()
    assert game.scores() == [99, 0, 0]
    assert int(game.state[L.S_DEALER]) == 2
    assert game.current_player == 0
    assert game.direction == 1


# ================================================================ U-SCORE-3
def test_U_SCORE_3_everyone_adds_own_hand_points() -> None:
    """U-SCORE-3 (``match="lowest_total"``): below the target every player adds the points
    left in their own hand; a new round is dealt by the next dealer."""
    game = pos(MATCH_TABLE.format(scores="10 20 30"), match="lowest_total", target=100)
    game.step("R5")
    assert not game.is_over()
    assert game.scores() == [10, 20 + 10, 30 + 5]
    assert int(game.state[L.S_DEALER]) == 0
    assert game.hand_sizes() == [7, 7, 7]
    assert game.current_player == 1


def test_U_SCORE_3_lowest_total_wins_when_someone_reaches_the_target() -> None:
    """U-SCORE-3: when someone reaches the target, the lowest total wins (not necessarily the
    round winner)."""
    game = pos(MATCH_TABLE.format(scores="50 95 10"), match="lowest_total", target=100)
    game.step("R5")
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.scores == (50, 105, 15)
    assert outcome.winner == 2
    assert outcome.reason == "match"
    assert outcome.ranking == (2, 0, 1)


def test_U_SCORE_3_a_tie_for_the_lowest_total_goes_to_the_lowest_seat_number() -> None:
    """U-SCORE-3: the source does not say who wins when two totals tie for the lowest; the
    engine picks the lowest seat number. Seat 1 goes out (its total stays 30), seat 0 adds 10
    (30), seat 2 adds 5 and reaches the target (45): seats 0 and 1 tie and seat 0 wins, not
    the round's winner nor the next seat after it. The ranking goes on clockwise from it."""
    game = pos(
        "hands=G9 Y1/R5/B2 B3; discard=R7; draw=" + NUMBER_PILE + "; colour=R; seat=1; dir=+; phase=play; "
        "scores=20 30 40; dealer=0; round=3",
        match="lowest_total",
        target=45,
    )
    game.step("R5")
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.scores, outcome.round_points) == ((30, 30, 45), (10, 0, 5))
    assert (outcome.winner, outcome.reason, outcome.ranking) == (0, "match", (0, 1, 2))


def test_U_SCORE_3_whole_matches_from_a_deal() -> None:
    """U-SCORE-3: 20 lowest-total matches to 150 (compiled batch, random play): each ends when
    someone's total reaches the target, and the lowest total wins."""
    result = simulate(
        "uno",
        3,
        20,
        seed=0,
        match="lowest_total",
        target=150,
        draw_when_playable=False,
        check_invariants=True,
    )
    assert not result.truncated.any()
    assert (result.rounds > 1).any()
    for g in range(result.num_games):
        scores = result.scores[g].tolist()
        assert max(scores) >= 150
        assert scores[int(result.winner[g])] == min(scores)


# ================================================================ whole games against a written-out model
class ReshuffleNeededError(Exception):
    """The model was asked for a card from an empty draw pile (U-DRAW-4 shuffles: not modelled)."""


class OfficialModel:
    """Official Uno written out plainly over the fields of a position, one decision at a time:
    the legal actions (U-MATCH-1, U-DRAW-1..3, U-WD4-1, U-UNO-1) and the effect of each
    (U-SKIP-1, U-REV-1, U-D2-1, U-WILD-1, U-WD4-1/2, U-UNO-1 with every miss caught, U-END-1).
    Independent of the engine's code: it reads only position notation and the rule switches
    it is given."""

    def __init__(self, text: str, rules: dict[str, Any]) -> None:
        f = position_fields(text)
        self.rules = rules
        self.hands = [[t for t in part.split() if t != "-"] for part in f["hands"].split("/")]
        self.discard = f["discard"].split()
        self.draw = [] if f["draw"] == "-" else f["draw"].split()  # top first
        self.colour = f["colour"]
        self.seat = int(f["seat"])
        self.dir = 1 if f["dir"] == "+" else -1
        self.phase = f["phase"]
        self.drawn = f.get("drawn")
        self.pending = int(f.get("pending", 0))
        self.sender = int(f.get("from", -1))
        self.bluff = f.get("bluff") == "1"
        self.before = f.get("before")
        self.start_wild = f.get("after") == "start"
        self.called = {int(s) for s in f.get("called", "").split()}
        self.winner: int | None = None

    def rule(self, name: str, default: Any) -> Any:
        return self.rules.get(name, default)

    def next(self, seat: int, steps: int = 1) -> int:
        return (seat + self.dir * steps) % len(self.hands)

    @staticmethod
    def colour_of(card: str) -> str | None:
        return None if card in ("W", "WD4") else card[0]

    @staticmethod
    def symbol(card: str) -> str:
        return card if card in ("W", "WD4") else card[1:]

    def matches(self, card: str) -> bool:
        top = self.discard[-1]
        return card in ("W", "WD4") or card[0] == self.colour or self.symbol(card) == self.symbol(top)

    def reverse_skips(self) -> bool:
        """U-REV-1: a Reverse acts as a Skip at two players (unless ``reverse_with_two``)."""
        return len(self.hands) == 2 and self.rule("reverse_with_two", "skip") == "skip"

    def wd4_legal(self, seat: int) -> bool:
        legal_when = self.rule("wd4_legal_when", "no_matching_colour")
        for card in self.hands[seat]:
            if card == "WD4":
                continue
            if legal_when == "no_playable_card":
                if self.matches(card):
                    return False
            elif legal_when == "no_playable_number_card":
                if self.symbol(card).isdigit() and self.matches(card):
                    return False
            elif card[0] == self.colour:
                return False
        return True

    def may_lay(self, seat: int, card: str) -> bool:
        refused = card == "WD4" and self.rule("wd4_bluff", "challenge") == "refused"
        return self.matches(card) and not (refused and not self.wd4_legal(seat))

    def legal(self) -> set[str]:
        seat = self.seat
        held = self.hands[seat]
        call = {"call"} if len(held) == 2 and seat not in self.called else set()
        if self.phase == "play":
            out = {card for card in held if self.may_lay(seat, card)}
            if self.rule("draw_when_playable", True) or not out:
                out.add("draw")
            return out | call
        if self.phase == "drawn":
            assert self.drawn is not None
            out = {self.drawn} if self.may_lay(seat, self.drawn) else set()
            if not out or self.rule("drawn_card", "may_keep") == "may_keep":
                out.add("pass")
            return out | call
        if self.phase == "colour":
            return {f"colour {c}" for c in COLOURS}
        assert self.phase == "challenge"
        return {"challenge", "accept"}

    def take(self, seat: int, count: int) -> None:
        for _ in range(count):
            if not self.draw:
                raise ReshuffleNeededError
            self.hands[seat].append(self.draw.pop(0))
            self.called.discard(seat)  # a call stands only while its player holds one card

    def begin(self, seat: int) -> None:
        self.seat, self.phase, self.drawn = seat, "play", None

    def step(self, action: str) -> None:
        seat = self.seat
        if action == "call":
            self.called.add(seat)
        elif action == "draw":
            while True:  # U-DRAW-1 (one) or U-DRAW-2 (until playable)
                self.take(seat, 1)
                card = self.hands[seat][-1]
                if self.may_lay(seat, card):
                    self.phase, self.drawn = "drawn", card
                    break
                if self.rule("draw", "one") != "until_playable":
                    self.begin(self.next(seat))
                    break
        elif action == "pass":
            self.begin(self.next(seat))
        elif action.startswith("colour "):
            self.name_colour(seat, action[-1])
        elif action == "challenge":  # U-WD4-2
            if self.bluff:
                self.take(self.sender, 4)
                if self.rule("challenge_colour", "annulled") == "annulled":
                    assert self.before is not None
                    self.colour = self.before
                self.begin(seat)
            else:
                self.take(seat, 4 + self.rule("challenge_penalty", 2))
                self.begin(self.next(seat))
            self.clear_penalty()
        elif action == "accept":
            self.take(seat, 4)
            self.clear_penalty()
            self.begin(self.next(seat))
        else:
            self.lay(seat, action)
        if seat in self.called and len(self.hands[seat]) != 1 and self.seat != seat:
            self.called.discard(seat)

    def clear_penalty(self) -> None:
        self.pending, self.sender, self.bluff, self.before = 0, -1, False, None

    def name_colour(self, seat: int, colour: str) -> None:
        self.colour = colour
        if self.start_wild:  # U-START-1: the first player names it, then plays
            self.start_wild = False
            self.phase = "play"
        elif self.discard[-1] != "WD4":  # U-WILD-1
            self.begin(self.next(seat))
        elif self.rule("wd4_bluff", "challenge") == "challenge":  # U-WD4-2: the victim decides
            self.seat, self.phase, self.pending, self.sender = self.next(seat), "challenge", 4, seat
        else:  # U-WD4-1: drawn at once
            victim = self.next(seat)
            self.take(victim, 4)
            self.clear_penalty()
            self.begin(self.next(victim))

    def lay(self, seat: int, card: str) -> None:
        held = self.hands[seat]
        if card == "WD4":
            self.bluff, self.before = not self.wd4_legal(seat), self.colour
        held.remove(card)
        self.discard.append(card)
        if card not in ("W", "WD4"):
            self.colour = card[0]
        if len(held) == 1 and seat not in self.called:  # U-UNO-1, always caught
            self.take(seat, self.rule("uno_penalty", 2))
        symbol = self.symbol(card)
        if not held:  # U-END-1
            if self.rule("last_card_draw", True) and symbol in ("D2", "WD4"):
                self.take(self.next(seat), 2 if symbol == "D2" else 4)
            self.winner = seat
        elif symbol == "S" or (symbol == "R" and self.reverse_skips()):
            self.begin(self.next(seat, 2))
        elif symbol == "R":
            self.dir = -self.dir
            self.begin(self.next(seat))
        elif symbol == "D2":
            victim = self.next(seat)
            self.take(victim, 2)
            self.begin(self.next(victim))
        elif symbol in ("W", "WD4"):
            self.phase = "colour"
        else:
            self.begin(self.next(seat))

    def expected(self) -> dict[str, str]:
        """The fields of the position the engine must show ("" for one it must not show)."""
        out = {
            "hands": "/".join(" ".join(sorted(h)) for h in self.hands),
            "discard": " ".join(self.discard),
            "draw": " ".join(self.draw) or "-",
        }
        if self.winner is not None:
            return {**out, "phase": "over", "winner": str(self.winner)}
        out.update(
            colour=self.colour, seat=str(self.seat), dir="+" if self.dir > 0 else "-", phase=self.phase
        )
        out["drawn"] = (self.drawn or "") if self.phase == "drawn" else ""
        out["pending"] = str(self.pending) if self.pending else ""
        out["called"] = " ".join(str(s) for s in sorted(self.called))
        return out


def engine_fields(game: Game, keys: list[str]) -> dict[str, str]:
    """The position fields ``keys`` of ``game``, hands sorted card by card like the model's."""
    fields = position_fields(game.position())
    fields["hands"] = "/".join(
        " ".join(sorted(t for t in h.split() if t != "-")) for h in fields["hands"].split("/")
    )
    return {key: fields.get(key, "") for key in keys}


MODEL_RULES: list[dict[str, Any]] = [
    {},
    {"draw_when_playable": False},
    {"draw": "until_playable", "drawn_card": "must_play"},
    {"reverse_with_two": "reverse", "challenge_colour": "stands", "challenge_penalty": 0},
    {"wd4_legal_when": "no_playable_card", "uno_penalty": 5},
    {"wd4_legal_when": "no_playable_number_card"},
    {"wd4_bluff": "unpunished", "last_card_draw": False},
    {"wd4_bluff": "refused"},
]


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize(
    "rules", MODEL_RULES, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()) or "uno"
)
def test_official_rules_agree_with_a_written_out_model(rules: dict[str, Any], num_players: int) -> None:
    """U-MATCH-1, U-DRAW-1..3, U-SKIP-1, U-REV-1, U-D2-1, U-WILD-1, U-WD4-1/2, U-UNO-1, U-END-1:
    a seeded game of varied legal decisions (calls mostly made), each decision checked against
    :class:`OfficialModel` from the position before it: the same legal actions, then the same
    hands, piles, colour, seat, direction, phase, drawn card, pending penalty, calls and winner.
    Where the draw pile runs out, the engine's shuffle (U-DRAW-4) is checked to leave only the
    top card on the discard pile and every card in play (E-CONS-1)."""
    game = Game("uno", num_players, seed=7 + num_players, **rules)
    choose = random.Random(num_players)
    for _ in range(150):
        if game.is_over():
            break
        before = game.position()
        model = OfficialModel(before, rules)
        actions = legal(game)
        assert actions == model.legal(), before
        action = "call" if "call" in actions and choose.random() < 0.7 else choose.choice(sorted(actions))
        laid = action not in ("draw", "pass", "call", "challenge", "accept") and not action.startswith(
            "colour"
        )
        top = action if laid else model.discard[-1]
        game.step(action)
        try:
            model.step(action)
        except ReshuffleNeededError:
            game.check_invariants()
            if not game.is_over():
                assert [str(c) for c in game.discard_pile()] == [top], (
                    f"{before}\n{action}\n{game.position()}"
                )
            continue
        want = model.expected()
        assert engine_fields(game, list(want)) == want, (
            f"\nbefore: {before}\naction: {action}\n   got: {game.position()}"
        )


# ================================================================ E-DIR-1
def test_E_DIR_1_clockwise_wraps_from_last_seat_to_zero() -> None:
    """E-DIR-1: seats 0..n-1 clockwise; +1 is clockwise: seat 3 of 4 is followed by seat 0."""
    game = pos("hands=B3 B4/Y6 Y7/G4 G5/R5 R1 R2; discard=R7; draw=G9; colour=R; seat=3; dir=+; phase=play")
    assert game.direction == 1
    game.step("R5")
    assert game.current_player == 0


def test_E_DIR_1_counter_clockwise_order() -> None:
    """E-DIR-1: -1 is counter-clockwise: 0 -> 2 -> 1 with three players."""
    game = pos("hands=R5 R1 R2/R6 Y7 Y8/R4 G5 G6; discard=R7; draw=G9; colour=R; seat=0; dir=-; phase=play")
    assert game.direction == -1
    game.step("R5")
    assert game.current_player == 2
    game.step("R4")
    assert game.current_player == 1
    game.step("R6")
    assert game.current_player == 0


# ================================================================ E-CONS-1
def test_E_CONS_1_cards_conserved_through_a_game() -> None:
    """E-CONS-1: after every decision of a game the 108 cards are all somewhere, once."""
    game = Game("uno", 4, seed=11)
    for _ in range(120):
        if game.is_over():
            break
        play_out(game, 1)
        game.check_invariants()
        assert all_cards(game) == official_deck()
    assert game.decisions > 30


def test_E_CONS_1_position_cards_conserved_through_penalties_and_reshuffles() -> None:
    """E-CONS-1: a position's own cards are conserved through a Draw Two, a Wild Draw Four
    challenge and reshuffles."""
    game = pos(
        "hands=RD2 WD4 R1 B7/B3 Y4 G7/R4 G6 G8; discard=B5 Y5 R7; draw=G9; colour=R; seat=0; dir=+; "
        "phase=play"
    )
    universe = all_cards(game)
    for action in ("RD2", "R4", "draw"):
        game.step(action)
        game.check_invariants()
        assert all_cards(game) == universe
    play_out(game, 40)
    game.check_invariants()
    assert all_cards(game) == universe


def test_E_CONS_1_next_round_from_a_short_position_creates_no_card() -> None:
    """E-CONS-1 with U-SCORE-2: a position's cards are its game's universe. When a match deals
    its next round from fewer cards than a full deal needs (5 cards, 2 x 7 + 1 wanted), the
    deal may come up short but must not create a card (nor leave a negative pile count)."""
    game = pos(
        "hands=R5/G9 Y1; discard=R7; draw=B2; colour=R; seat=0; dir=+; phase=play",
        match="first_to_target",
        target=100,
    )
    universe = all_cards(game)
    game.step("R5")
    assert game.scores() == [10, 0]
    assert game.draw_pile_size >= 0
    assert all_cards(game) == universe, game.position()
    game.check_invariants()


# ================================================================ E-END-1
def test_E_END_1_turn_limit_truncates() -> None:
    """E-END-1 (``max_decisions=10``): the game ends after 10 decisions as truncated, not won."""
    game = Game("uno", 4, seed=5, max_decisions=10)
    while not game.is_over():
        game.step(game.legal_actions()[0])
    assert game.decisions == 10
    assert game.phase == Phase.OVER
    assert game.current_player == -1
    assert game.legal_actions() == []
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.truncated
    assert outcome.winner is None
    assert outcome.reason == "turn_limit"
    assert outcome.ranking == ()
    assert outcome.decisions == 10
    with pytest.raises(IllegalActionError):
        game.step("draw")


def test_E_END_1_limit_reached_from_a_position() -> None:
    """E-END-1: a position at 9 decisions with a limit of 10 is truncated by the next step."""
    game = pos(
        "hands=R5 R1 R2/B3 B4; discard=R7; draw=G9; colour=R; seat=0; dir=+; phase=play; decisions=9",
        max_decisions=10,
    )
    game.step("R5")
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.truncated and outcome.winner is None and outcome.reason == "turn_limit"
    assert hand(game, 0) == ["R1", "R2"]


def test_E_END_1_U_DRAW_4_a_table_that_cannot_move_is_truncated() -> None:
    """E-END-1 with U-DRAW-4: nobody can play and nothing is left to draw, so every turn is an
    empty draw; the decision limit ends the game as truncated, hands untouched."""
    game = pos(
        "hands=R1 Y3 B7/R9 Y4 B3; discard=G2; draw=-; colour=G; seat=0; dir=+; phase=play", max_decisions=10
    )
    for turn in range(10):
        assert game.current_player == turn % 2
        assert legal(game) == {"draw"}
        game.step("draw")
    assert game.is_over()
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.truncated and outcome.winner is None and outcome.reason == "turn_limit"
    assert hand(game, 0) == ["R1", "Y3", "B7"]
    assert hand(game, 1) == ["R9", "Y4", "B3"]
