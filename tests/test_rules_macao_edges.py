"""Scenario tests of Romanian Macao (``macao``, MC-*) at the corners where its rules meet: turns
to sit out owed while another penalty arrives, the last card of a player being a penalty card,
the call at the moment a hand runs down to one card, the optional jokers and kings against
each other and against players who left, penalties larger than the cards left to draw, a
table with nothing left to draw or lay, and a deal that leaves no plain card to start the pile.

Like ``test_rules_french.py``, each test names the rules it checks (``docs/rules.md``, which
records the open choices), builds the situation from position notation, applies decisions by
their notation and asserts their exact effect: hands, piles, active suit, seat to move, phase,
pending penalty, turns to sit out, leaving order, scores and outcome. Whole positions are
compared with :func:`assert_position`, which ignores only the order of cards inside a hand, the
decision counter and the bookkeeping of a play in progress.

Rules covered: MC-DECK-1, MC-START-1, MC-TURN-1, MC-RESHUFFLE-1, MC-CALL-1, MC-FOUR-1,
MC-DRAW-1, MC-ACE-1, MC-OPT-1, MC-END-1; with U-START-2, U-END-1, U-SCORE-1 and E-END-1.

The file runs compiled and uncompiled (``NUMBA_DISABLE_JIT=1``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from tests.scenarios import all_cards, assert_position, discard, draw_pile, hand, legal
from tests.scenarios import position_fields as fields
from uno_env import Game, Phase, RuleError, preset
from uno_env.engine.cards import FRENCH_RANKS, FRENCH_SUITS
from uno_env.engine.rules import MACAO_EFFECTS, MACAO_KINGS

CLUBS = "draw=KC QC JC 10C 9C 8C 7C 6C 5C"  # the nine clubs without an effect, KC on top
KINGS = (*MACAO_EFFECTS, *MACAO_KINGS)  # MC-OPT-1: the King of hearts and the King of spades


def pos(text: str, **overrides: Any) -> Game:
    """A ``macao`` game (with rule overrides) at a position."""
    return Game.from_position("macao", text, **overrides)


def mc(hands: str, top: str, seat: int = 0, draw: str = CLUBS, extra: str = "", **overrides: Any) -> Game:
    """A ``macao`` position in the play phase, the active suit that of the top card."""
    colour = top.split()[-1][-1]
    text = f"hands={hands}; discard={top}; {draw}; colour={colour}; seat={seat}; dir=+; phase=play{extra}"
    return pos(text, **overrides)


def field(game: Game, key: str) -> str | None:
    """One field of the game's position (None when it is not printed)."""
    return fields(game.position()).get(key)


# ================================================================ MC-FOUR-1: turns owed
def test_MC_FOUR_1_a_player_owing_a_turn_answers_a_four_and_still_owes_it() -> None:
    """MC-FOUR-1 (docs/rules.md: a player who still has turns to sit out is the target of a
    new penalty and answers it as usual, which uses up no turn to sit out): seat 1 owes a turn
    and answers seat 0's 4 with its own; seat 2 sits out both gathered turns; seat 1 still
    owes its turn, so after seat 0 plays, seat 1 is passed over and seat 2 sits its second
    turn out: seat 0 plays again."""
    game = mc("4H 5H 6H 7S/4D 8S 7D/QH KH JS", "6S 9H", extra="; sitout=0 1 0")
    game.step("4H")
    assert (game.current_player, game.phase, legal(game)) == (1, Phase.ANSWER, {"4D", "accept"})
    game.step("4D")
    assert (game.current_player, field(game, "skip"), field(game, "from")) == (2, "2", "1")
    game.step("accept")
    assert_position(
        game,
        f"hands=5H 6H 7S/8S 7D/QH KH JS; discard=6S 9H 4H 4D; {CLUBS}; colour=D; seat=0; dir=+; "
        "phase=play; sitout=0 1 1",
    )
    assert legal(game) == {"draw"}  # no diamond, no 4
    game.step("draw")  # seat 1 is passed over (its owed turn), seat 2 sits its second turn out
    assert_position(
        game,
        "hands=KC 5H 6H 7S/8S 7D/QH KH JS; discard=6S 9H 4H 4D; draw=QC JC 10C 9C 8C 7C 6C 5C; "
        "colour=D; seat=0; dir=+; phase=play",
    )


def test_MC_FOUR_1_a_player_owing_a_turn_who_takes_another_four_sits_out_both() -> None:
    """MC-FOUR-1: seat 1 owes a turn and cannot answer seat 0's 4: taking it loses this turn
    (the 4's) and the owed one stays, spent at seat 1's next turn: two turns lost in all."""
    game = mc("4H 5H 6S/9D 8S 7D/QH KH JS", "6H", extra="; sitout=0 1 0")
    game.step("4H")
    assert legal(game) == {"accept"}
    game.step("accept")
    assert_position(
        game,
        f"hands=5H 6S/9D 8S 7D/QH KH JS; discard=6H 4H; {CLUBS}; colour=H; seat=2; dir=+; phase=play; "
        "sitout=0 1 0",
    )
    game.step("QH")
    game.step("call")
    game.step("5H")  # seat 1's owed turn: seat 2 plays
    assert_position(
        game,
        f"hands=6S/9D 8S 7D/KH JS; discard=6H 4H QH 5H; {CLUBS}; colour=H; seat=2; dir=+; phase=play; "
        "called=0",
    )


def test_MC_FOUR_1_MC_END_1_a_player_owing_a_turn_who_leaves_owes_nothing() -> None:
    """MC-FOUR-1 + MC-END-1: seat 1 owes a turn, answers seat 0's 4 with its last card and
    leaves; its owed turn goes with it; seat 2 sits out the two gathered turns, so seat 0
    plays twice in a row."""
    game = mc("4H 5H 6H 7H/4D/QH KH JS", "9H", extra="; sitout=0 1 0; called=1")
    game.step("4H")
    game.step("4D")
    assert_position(
        game,
        f"hands=5H 6H 7H//QH KH JS; discard=9H 4H 4D; {CLUBS}; colour=D; seat=2; dir=+; phase=answer; "
        "skip=2; from=1; finished=0 1 0",
    )
    game.step("accept")
    assert (game.current_player, field(game, "sitout"), field(game, "finished")) == (0, "0 0 1", "0 1 0")
    assert legal(game) == {"draw"}
    game.step("draw")
    assert (game.current_player, field(game, "sitout")) == (0, None)


def test_MC_FOUR_1_MC_TURN_1_an_answer_of_two_fours_sends_three_turns() -> None:
    """MC-FOUR-1 + MC-TURN-1: seat 1 answers a pending 4 with two 4s laid together; seat 2
    cannot answer and sits out the three gathered turns: this one and its next two."""
    game = pos(
        f"hands=5D 7H 6S 8S/4S 4D 10D JS/6D 8H 7S 9S/7D 8D 5H 6H; discard=4H; {CLUBS}; colour=H; "
        "seat=1; dir=+; phase=answer; skip=1; from=0"
    )
    assert legal(game) == {"4S", "4D", "accept"}
    game.step("4S")
    assert (game.phase, legal(game)) == (Phase.CONTINUE, {"4D", "pass"})
    game.step("4D")
    assert_position(
        game,
        f"hands=5D 7H 6S 8S/10D JS/6D 8H 7S 9S/7D 8D 5H 6H; discard=4H 4S 4D; {CLUBS}; colour=D; seat=2; "
        "dir=+; phase=answer; skip=3; from=1",
    )
    game.step("accept")
    assert (game.current_player, field(game, "sitout")) == (3, "0 0 2 0")


def test_MC_FOUR_1_two_players_three_fours_give_three_turns_in_a_row() -> None:
    """MC-FOUR-1 with two players: 4, 4, 4 answered back and forth; seat 1 cannot answer the
    third and sits out three turns, so seat 0 plays three times in a row."""
    game = mc("4H 4D 5D 6D 7D 9S/4S 8S 6S 2C", "4C")
    game.step("4H")
    game.step("pass")  # keeps 4D for the answer
    game.step("4S")
    assert (game.current_player, field(game, "skip")) == (0, "2")
    game.step("4D")
    assert (game.current_player, field(game, "skip"), legal(game)) == (1, "3", {"accept"})
    game.step("accept")
    assert (game.current_player, field(game, "sitout")) == (0, "0 2")
    game.step("5D")
    assert (game.current_player, field(game, "sitout")) == (0, "0 1")
    game.step("6D")
    assert (game.current_player, field(game, "sitout")) == (0, None)
    game.step("call")
    game.step("7D")
    assert_position(
        game,
        f"hands=9S/8S 6S 2C; discard=4C 4H 4S 4D 5D 6D 7D; {CLUBS}; colour=D; seat=1; dir=+; phase=play; "
        "called=0",
    )


# ================================================================ the last card is a penalty card
@pytest.mark.parametrize("last", ["4H", "2H", "3H", "AH", "KH", "KS"])
def test_MC_END_1_a_last_special_card_between_two_players_ends_the_game_undrawn(last: str) -> None:
    """MC-END-1 with a special last card when two players hold cards: a 4 (MC-FOUR-1), a 2 or
    a 3 (MC-DRAW-1), an Ace (MC-ACE-1), the King of hearts or of spades (MC-OPT-1). The player
    leaves, one player is left holding cards and the game is over at once: nobody is asked to
    answer, no suit is named, and the loser draws nothing (``last_card_draw`` is off in
    ``macao``, U-END-1); the first to leave scores the loser's hand (5 + 6 + 7, U-SCORE-1)."""
    top = f"6{last[-1]}"
    game = mc(f"{last}/5D 6D 7D", top, draw="draw=KC QC", card_effects=KINGS)
    game.step(last)
    assert_position(
        game,
        f"hands=/5D 6D 7D; discard={top} {last}; draw=KC QC; colour={last[-1]}; seat=-1; dir=+; phase=over; "
        "scores=18 0; finished=1 2; round=1; status=won; winner=0",
    )
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.ranking, outcome.round_points) == (0, (0, 1), (0, 18))


def test_MC_DRAW_1_MC_END_1_a_last_two_among_three_still_hits_the_next_player() -> None:
    """MC-DRAW-1 + MC-END-1 with three players: the last card is a 2; its player leaves and
    the next player owes the 2 cards, answers with a 3 of the suit, and the 5 go on to the
    player after, passing over the one who left."""
    game = mc("2H/3H 6S 7D/9S 8D KD", "6H")
    game.step("2H")
    assert (game.current_player, game.phase, field(game, "pending")) == (1, Phase.ANSWER, "2")
    assert legal(game) == {"3H", "accept"}
    game.step("3H")
    assert_position(
        game,
        f"hands=/6S 7D/9S 8D KD; discard=6H 2H 3H; {CLUBS}; colour=H; seat=2; dir=+; phase=answer; "
        "pending=5; from=1; finished=1 0 0",
    )
    game.step("accept")
    assert_position(
        game,
        "hands=/6S 7D/KC QC JC 10C 9C 9S 8D KD; discard=6H 2H 3H; draw=8C 7C 6C 5C; colour=H; seat=1; "
        "dir=+; phase=play; finished=1 0 0",
    )


def test_MC_DRAW_1_two_players_the_player_of_the_two_plays_again() -> None:
    """MC-DRAW-1 with two players: the other player draws the 2 cards and loses the turn, so
    the player of the 2 plays again."""
    game = mc("2H 9S 10S/5S 9D 8D", "6H")
    game.step("2H")
    assert legal(game) == {"accept"}
    game.step("accept")
    assert_position(
        game,
        "hands=9S 10S/KC QC 5S 9D 8D; discard=6H 2H; draw=JC 10C 9C 8C 7C 6C 5C; colour=H; seat=0; dir=+; "
        "phase=play",
    )


# ================================================================ MC-CALL-1 when a hand runs down
def test_MC_CALL_1_MC_TURN_1_going_out_with_two_cards_of_one_value_needs_no_call() -> None:
    """MC-CALL-1 + MC-TURN-1: a player with two 5s lays both in one play and leaves; the hand
    never stays at one card, so no call is owed and no card is drawn."""
    game = mc("5H 5D/5S 6S 7D/8D 9D 10D", "6H")
    assert legal(game) == {"5H", "call"}
    game.step("5H")
    assert (game.phase, legal(game)) == (Phase.CONTINUE, {"5D", "pass"})  # one card left: no call now
    game.step("5D")
    assert_position(
        game,
        f"hands=/5S 6S 7D/8D 9D 10D; discard=6H 5H 5D; {CLUBS}; colour=D; seat=1; dir=+; phase=play; "
        "finished=1 0 0",
    )


def test_MC_CALL_1_MC_TURN_1_stopping_a_play_at_one_card_without_the_call_costs_five() -> None:
    """MC-CALL-1 + MC-TURN-1: the same player stops after the first 5 and keeps the other; it
    did not call before laying, so it is left with one card without the call and draws 5."""
    game = mc("5H 5D/5S 6S 7D/8D 9D 10D", "6H")
    game.step("5H")
    game.step("pass")
    assert_position(
        game,
        "hands=KC QC JC 10C 9C 5D/5S 6S 7D/8D 9D 10D; discard=6H 5H; draw=8C 7C 6C 5C; colour=H; seat=1; "
        "dir=+; phase=play",
    )


def test_MC_CALL_1_MC_RESHUFFLE_1_the_five_cards_are_drawn_across_a_reshuffle() -> None:
    """MC-CALL-1 + MC-RESHUFFLE-1: a missed call with two cards left to draw draws them, then
    three of the discard pile shuffled (all but the card just laid, which stays on top)."""
    under = ["8C", "9C", "10C", "JC", "4H"]
    for seed in range(3):
        game = pos(
            f"hands=5H 9S/7S 6D 8S/QH KH JH; discard={' '.join(under)}; draw=KD 8D; colour=H; seat=0; "
            "dir=+; phase=play",
            seed=seed,
        )
        game.step("5H")
        drawn = Counter(hand(game, 0)) - Counter(["9S", "KD", "8D"])
        assert Counter(hand(game, 0)) == Counter(["9S", "KD", "8D"]) + drawn
        assert sum(drawn.values()) == 3
        assert Counter(draw_pile(game)) + drawn == Counter(under)
        assert discard(game) == ["5H"]
        assert (game.current_player, game.phase) == (1, Phase.PLAY)


def test_MC_CALL_1_no_call_with_two_cards_and_no_answer_to_a_penalty() -> None:
    """MC-CALL-1 in the answer phase: the call comes with a card laid; a player holding two
    cards and no answer to the pending 2 can only take it, and is not offered the call."""
    game = pos(
        "hands=5S 9S 10S/7S 9D/QH KH JH; discard=2H; draw=KD 8D 6C; colour=H; seat=1; dir=+; phase=answer; "
        "pending=2; from=0"
    )
    assert legal(game) == {"accept"}
    game.step("accept")
    assert_position(
        game, "hands=5S 9S 10S/KD 8D 7S 9D/QH KH JH; discard=2H; draw=6C; colour=H; seat=2; dir=+; phase=play"
    )


def test_MC_CALL_1_MC_DRAW_1_a_penalty_drawn_ends_the_call() -> None:
    """MC-CALL-1: seat 1 called and holds one card; the 2 it takes gives it three, and its
    call lapses: the next time it runs down to one card it must call again."""
    game = mc("2H 5S 6S/9D/QH KH JS", "6H", extra="; called=1")
    assert game.called() == [False, True, False]
    game.step("2H")
    game.step("accept")
    assert_position(
        game,
        "hands=5S 6S/KC QC 9D/QH KH JS; discard=6H 2H; draw=JC 10C 9C 8C 7C 6C 5C; colour=H; seat=2; "
        "dir=+; phase=play",
    )
    assert game.called() == [False, False, False]


# ================================================================ MC-OPT-1: jokers and kings
def test_MC_OPT_1_a_joker_does_not_answer_the_joker_of_the_other_colour() -> None:
    """MC-OPT-1 + MC-DRAW-1: a pending red joker (on hearts) is answered by a card of the
    hearts suit that draws (2H), never by the black joker, which goes only on a black suit;
    a pending black joker (on spades) is not answered by the red joker."""
    game = pos(
        "hands=5S 9S 10S/JKB 2H 9D/QH KH JH; discard=6H JKR; draw=KD 8D; colour=H; seat=1; dir=+; "
        "phase=answer; pending=10; from=0",
        jokers=True,
    )
    assert legal(game) == {"2H", "accept"}
    game.step("2H")
    assert (game.current_player, field(game, "pending"), field(game, "from")) == (2, "12", "1")
    game = pos(
        "hands=5S 9S 10S/JKR 9D 8C/QH KH JH; discard=6S JKB; draw=KD 8D; colour=S; seat=1; dir=+; "
        "phase=answer; pending=5; from=0",
        jokers=True,
    )
    assert legal(game) == {"accept"}


def test_MC_OPT_1_MC_DRAW_1_twos_of_the_suit_under_a_black_joker_answer_it() -> None:
    """MC-OPT-1 + MC-DRAW-1 + MC-TURN-1: the black joker left spades active; seat 1 answers
    with the 2 of spades and adds the 2 of hearts in the same play: 5 + 2 + 2 = 9 go on."""
    game = pos(
        "hands=5S 9S 10S/2H 2S 9D 8D/QH KH JH; discard=6S JKB; draw=KD 7D; colour=S; seat=1; dir=+; "
        "phase=answer; pending=5; from=0",
        jokers=True,
    )
    assert legal(game) == {"2S", "accept"}  # 2H matches neither the spades nor the joker
    game.step("2S")
    assert (game.phase, legal(game)) == (Phase.CONTINUE, {"2H", "pass"})
    game.step("2H")
    assert_position(
        game,
        "hands=5S 9S 10S/9D 8D/QH KH JH; discard=6S JKB 2S 2H; draw=KD 7D; colour=H; seat=2; dir=+; "
        "phase=answer; pending=9; from=1",
    )


def test_MC_OPT_1_king_of_spades_with_two_players_hits_the_other_player() -> None:
    """MC-OPT-1 (``KS:previous_draws:5``) with two players: the previous player is the other
    one, who draws 5 and then plays its turn (the King of spades makes nobody lose a turn)."""
    game = mc("5H 9D 10H/KS 6D 8H", "4S", seat=1, card_effects=KINGS)
    game.step("KS")
    assert_position(
        game,
        "hands=KC QC JC 10C 9C 5H 9D 10H/6D 8H; discard=4S KS; draw=8C 7C 6C 5C; colour=S; seat=0; dir=+; "
        "phase=play",
    )
    assert legal(game) == {"KC"}


def test_MC_OPT_1_MC_END_1_king_of_spades_passes_over_a_player_who_left() -> None:
    """MC-OPT-1 + MC-END-1: the player before the King of spades has left, so the 5 cards go
    to the player in play before it (seat 1, two seats back); seat 3 plays next."""
    game = mc(
        "/5H 9D/KS 6D 8D/7H 8H",
        "4S",
        seat=2,
        draw="draw=KC QC JC 10C 9C",
        extra="; finished=1 0 0 0",
        card_effects=KINGS,
    )
    game.step("KS")
    assert_position(
        game,
        "hands=/KC QC JC 10C 9C 5H 9D/6D 8D/7H 8H; discard=4S KS; draw=-; colour=S; seat=3; dir=+; "
        "phase=play; finished=1 0 0 0",
    )


def test_MC_OPT_1_MC_CALL_1_king_of_spades_ends_the_previous_players_call() -> None:
    """MC-OPT-1 + MC-CALL-1: seat 1 called with one card left; the King of spades laid by seat
    2 makes it draw 5, and its call lapses."""
    game = mc("5H 9H/9D/KS 6D 8H", "4S", seat=2, extra="; called=1", card_effects=KINGS)
    game.step("KS")
    assert_position(
        game,
        "hands=5H 9H/KC QC JC 10C 9C 9D/6D 8H; discard=4S KS; draw=8C 7C 6C 5C; colour=S; seat=0; dir=+; "
        "phase=play",
    )
    assert game.called() == [False, False, False]


# ================================================================ MC-ACE-1 with a penalty card
def test_MC_ACE_1_MC_DRAW_1_a_two_of_the_named_suit_follows_the_ace() -> None:
    """MC-ACE-1 + MC-DRAW-1: seat 0's Ace of hearts names clubs; seat 1 follows with the 2 of
    clubs, whose 2 cards are pending for seat 2."""
    game = mc("AH 5S 6S/2C 9D 7D/QH KH JS", "6H")
    game.step("AH")
    game.step("suit C")
    assert (game.current_player, legal(game)) == (1, {"2C"})
    game.step("2C")
    assert_position(
        game,
        f"hands=5S 6S/9D 7D/QH KH JS; discard=6H AH 2C; {CLUBS}; colour=C; seat=2; dir=+; phase=answer; "
        "pending=2; from=1",
    )


# ================================================================ MC-RESHUFFLE-1 runs dry
def test_MC_RESHUFFLE_1_a_penalty_larger_than_the_cards_left_draws_what_there_is() -> None:
    """MC-RESHUFFLE-1 + MC-DRAW-1: 5 cards pending, one card in the draw pile and one under the
    top card: the player draws those two, the rest of the penalty lapses, and play goes on."""
    game = pos(
        "hands=5S 9S 10S/7S 6D 8S/QH KH JH; discard=8C 3H; draw=KD; colour=H; seat=1; dir=+; "
        "phase=answer; pending=5; from=0"
    )
    game.step("accept")
    assert_position(
        game,
        "hands=5S 9S 10S/8C KD 7S 6D 8S/QH KH JH; discard=3H; draw=-; colour=H; seat=2; dir=+; phase=play",
    )
    assert legal(game) == {"QH", "KH", "JH"}


def test_MC_RESHUFFLE_1_E_END_1_a_table_with_nothing_to_draw_or_lay_is_truncated() -> None:
    """MC-RESHUFFLE-1 + MC-TURN-1 + E-END-1: nobody can lay a card and there is nothing to draw
    or reshuffle; each player's only action is the empty draw, the turn passes round the table
    and the game ends at the decision limit as truncated, with no winner."""
    game = mc("5S 9S/7S 6D/QS KS", "4C", draw="draw=-", max_decisions=10)
    seats = []
    while not game.is_over():
        assert legal(game) == {"draw", "call"}  # MC-CALL-1: two cards each
        seats.append(game.current_player)
        game.step("draw")
    assert seats == [0, 1, 2, 0, 1, 2, 0, 1, 2, 0]
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.ranking, outcome.truncated, outcome.decisions) == (None, (), True, 10)
    assert game.hand_sizes() == [2, 2, 2] and discard(game) == ["4C"]


# ================================================================ MC-START-1: no plain card left to start
# every rank but the King makes the next player draw: 12 plain cards of 52 (54 with the jokers)
ALL_BUT_KINGS = (*MACAO_EFFECTS, *(f"{rank}:draw:1" for rank in ("5", "6", "7", "8", "9", "10", "J", "Q")))


@pytest.mark.parametrize("jokers", [False, True])
def test_MC_START_1_a_deal_that_leaves_no_plain_card_to_start_is_dealt_again(jokers: bool) -> None:
    """MC-START-1 (U-START-2, ``start_card = "number_only"``): a special starting card is
    replaced from the draw pile. With eight players 40 cards are dealt, and when every card
    left is special there is none to replace it with: the deal is void and the cards are dealt
    again, so that every game starts on a plain card (here a King, the one rank left plain),
    with the deck whole, five cards in each hand and an active suit (a joker names none)."""
    rules = preset("macao").with_overrides({"card_effects": ALL_BUT_KINGS, "jokers": jokers})
    deck = Counter({f"{rank}{suit}": 1 for suit in FRENCH_SUITS for rank in FRENCH_RANKS})
    if jokers:
        deck.update(["JKB", "JKR"])
    for seed in range(40):  # about a third of these deals leave only special cards to draw
        game = Game(rules, 8, seed=seed)
        assert str(game.top_card)[:-1] == "K", (seed, game.position())
        assert discard(game) == [str(game.top_card)]
        assert 0 <= game.active_colour < 4
        assert game.hand_sizes() == [5] * 8 and all_cards(game) == deck
        game.check_invariants()


def test_MC_START_1_a_deck_without_a_plain_card_is_refused() -> None:
    """MC-START-1 (U-START-2): with every rank given an effect no card may start the pile; the
    rule set is refused with an error naming the cause and the ways out, instead of a game
    that starts on a special card."""
    with pytest.raises(RuleError, match=r"start_card='number_only' .* every card of the deck has an effect"):
        preset("macao").with_overrides({"card_effects": (*ALL_BUT_KINGS, "K:draw:1")})
    preset("macao").with_overrides({"card_effects": (*ALL_BUT_KINGS, "K:draw:1"), "start_card": "official"})


# ================================================================ MC-DECK-1 at eight players
def test_MC_DECK_1_MC_OPT_1_eight_players_with_jokers() -> None:
    """MC-DECK-1 + MC-OPT-1: eight players with the jokers: 54 cards, 5 each, 13 left to draw
    after the starting card (MC-START-1: never a joker or a special card)."""
    deck = Counter({f"{rank}{suit}": 1 for suit in FRENCH_SUITS for rank in FRENCH_RANKS})
    deck.update(["JKB", "JKR"])
    for seed in range(3):
        game = Game("macao", 8, seed=seed, jokers=True)
        assert all_cards(game) == deck
        assert game.hand_sizes() == [5] * 8 and game.draw_pile_size == 13
        assert str(game.top_card)[:-1] not in ("A", "2", "3", "4") and not str(game.top_card).startswith("JK")


# ================================================================ H-SEQ-1 on a French deck
def test_H_SEQ_1_a_run_of_plain_french_cards_goes_jack_queen_king_and_stops_at_the_king() -> None:
    """H-SEQ-1 on Macao's French deck (docs/rules.md: plain cards in the order Ace, 2 to 10,
    Jack, Queen, King, no wrap): after the Jack of hearts the Queen continues, after the Queen
    the King; the Ace of hearts (an effect card in Macao, MC-ACE-1) follows no King."""
    game = mc("JH QH KH AH 9S/5D 8S", "10H", runs=True)
    game.step("JH")
    assert (game.phase, legal(game)) == (Phase.CONTINUE, {"QH", "pass"})
    game.step("QH")
    assert legal(game) == {"KH", "pass"}  # up from the Jack: the 10 and the Jack are gone
    game.step("KH")
    assert game.current_player == 1  # nothing follows the King: the turn passed
    assert_position(
        game, f"hands=AH 9S/5D 8S; discard=10H JH QH KH; {CLUBS}; colour=H; seat=1; dir=+; phase=play"
    )
