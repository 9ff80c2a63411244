"""Scenario tests where rule families and switches meet: house rules two or three at a time,
house rules on the French presets, the end of a round and scoring under every ending
(``end``, ``match``, ``round_score``, ``last_card_draw``), and a table whose deck runs out.

The rule-by-rule scenarios live in the ``test_rules_*.py`` file of each family; this file
holds only what those do not pin: what happens when a rule of one family acts at a moment
another family's rule shapes (a player who has left the game, a running total at exactly the
target, a missed call in the middle of a play, a penalty sent back by a Queen). Each test
names the rule IDs it checks (the rule reference ``docs/rules.md``), builds the situation
from position notation and asserts the exact effect: hands, piles, colour or suit, seat to
move, direction, phase, pending penalty, players who left, scores, legal actions.

The file runs compiled and uncompiled (``NUMBA_DISABLE_JIT=1``, ``make nojit``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.scenarios import all_cards, assert_position, legal, position_fields
from uno_env import Game, Phase, PositionError, load_rules
from uno_env.engine import layout as L

UNO_FILL = "G1 G2 G3 G4 G5 G6 G7 G8 G9 B1 B2 B3"
MM_FILL = "AC AD AH AS 6C 6D"


def at(rules: str, text: str, **overrides: Any) -> Game:
    """A game of a preset (with rule overrides) at a position."""
    return Game.from_position(rules, text, seed=0, **overrides)


def play(game: Game, *actions: str) -> Game:
    """Apply decisions by notation, checking the engine invariants (E-CONS-1) after each."""
    universe = all_cards(game)
    for action in actions:
        game.step(action)
        game.check_invariants()
        assert all_cards(game) == universe
    return game


# ================================================ a player who has left (MC-END-1 on the Uno deck)
def test_MC_END_1_U_END_1_U_D2_1_a_last_draw_two_falls_on_the_next_player_and_play_goes_on() -> None:
    """MC-END-1 (``end="last_player"``) with U-END-1 and U-D2-1 on the Uno deck: seat 0 leaves
    on a Draw Two with two players still holding cards, so the round goes on: seat 1 draws two
    and loses the turn as after any Draw Two, and seat 2 plays."""
    game = at(
        "uno",
        f"hands=RD2/R1 R2/B5 B6; discard=R7; draw={UNO_FILL}; colour=R; seat=0; dir=+; phase=play",
        end="last_player",
    )
    play(game, "RD2")
    assert_position(
        game,
        "hands=/G1 G2 R1 R2/B5 B6; discard=R7 RD2; draw=G3 G4 G5 G6 G7 G8 G9 B1 B2 B3; colour=R; "
        "seat=2; dir=+; phase=play; finished=1 0 0",
    )
    assert legal(game) == {"call", "draw"}


def test_MC_END_1_M_STAR_1_a_penalty_returned_to_a_player_who_left_falls_on_the_next_in_play() -> None:
    """MC-END-1 with M-STAR-1 (docs/rules.md, M-STAR-1): seat 0 leaves on a Draw Two; seat 1
    returns it with a Super Star, but its sender has left, so the penalty falls on the next
    player in play after the star's player (seat 2), who may answer it as any penalty."""
    game = at(
        "uno_mario",
        f"hands=RD2/SS R2 R3/B5 B6 B7; discard=R7; draw={UNO_FILL}; colour=R; seat=0; dir=+; phase=play",
        end="last_player",
    )
    play(game, "RD2")
    assert (game.current_player, game.phase, legal(game)) == (1, Phase.ANSWER, {"SS", "accept"})
    play(game, "SS", "colour B")
    assert_position(
        game,
        f"hands=/R2 R3/B5 B6 B7; discard=R7 RD2 SS; draw={UNO_FILL}; colour=B; seat=2; dir=+; "
        "phase=answer; pending=2; from=1; class=D2; finished=1 0 0",
    )
    play(game, "accept")
    assert_position(
        game,
        "hands=/R2 R3/B5 B6 B7 G1 G2; discard=R7 RD2 SS; draw=G3 G4 G5 G6 G7 G8 G9 B1 B2 B3; colour=B; "
        "seat=1; dir=+; phase=play; finished=1 0 0",
    )


@pytest.mark.parametrize(
    ("last_card_draw", "loser", "points"), [(True, "B5 B6 G1 G2", 14), (False, "B5 B6", 11)]
)
def test_MC_END_1_U_END_1_U_SCORE_1_the_last_player_left_draws_the_last_draw_two_and_is_scored_with_it(
    last_card_draw: bool, loser: str, points: int
) -> None:
    """MC-END-1 with U-END-1 and U-SCORE-1: with two players left, seat 0 leaves on a Draw Two
    and the game ends (seat 1 left first and wins). With ``last_card_draw`` the loser, seat 2,
    first draws the two cards and is scored with them (5 + 6 + 1 + 2); without, only its own
    hand counts."""
    game = at(
        "uno",
        f"hands=RD2/-/B5 B6; discard=R7; draw={UNO_FILL}; colour=R; seat=0; dir=+; phase=play; "
        "finished=0 1 0",
        end="last_player",
        last_card_draw=last_card_draw,
    )
    play(game, "RD2")
    rest = UNO_FILL.split()[2 if last_card_draw else 0 :]
    assert_position(
        game,
        f"hands=//{loser}; discard=R7 RD2; draw={' '.join(rest)}; colour=R; seat=-1; dir=+; phase=over; "
        f"scores=0 {points} 0; finished=2 1 3; round=1; status=won; winner=1",
    )
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.ranking == (1, 0, 2)
    assert outcome.round_points == (0, 0, points)


def test_MC_END_1_U_WD4_2_a_last_wild_draw_four_may_be_challenged_and_a_failed_challenge_costs_6() -> None:
    """MC-END-1 with U-WD4-2 and U-END-1: where the round goes on after a player leaves, a
    Wild Draw Four laid as the last card is a penalty like any other: its victim may challenge.
    An empty hand holds no card of the colour, so the play was legal: the challenger draws
    six and loses the turn, and seat 2 plays in the colour named."""
    game = at(
        "uno",
        f"hands=WD4/R1 R2/B5 B6; discard=R7; draw={UNO_FILL}; colour=R; seat=0; dir=+; phase=play",
        end="last_player",
    )
    play(game, "WD4", "colour B")
    assert legal(game) == {"challenge", "accept"}
    play(game, "challenge")
    assert_position(
        game,
        "hands=/R1 R2 G1 G2 G3 G4 G5 G6/B5 B6; discard=R7 WD4; draw=G7 G8 G9 B1 B2 B3; colour=B; "
        "seat=2; dir=+; phase=play; finished=1 0 0",
    )
    assert legal(game) == {"B5", "B6", "call", "draw"}


def test_MC_END_1_H_EIGHT_1_going_out_on_an_eight_gives_no_extra_turn() -> None:
    """MC-END-1 with H-EIGHT-1: a player who leaves on an 8 has no turn to take again; the
    next player in play moves."""
    game = at(
        "uno",
        f"hands=R8/B5 B6/Y7 Y8; discard=R7; draw={UNO_FILL}; colour=R; seat=0; dir=+; phase=play",
        end="last_player",
        eight_again=True,
    )
    play(game, "R8")
    assert_position(
        game,
        f"hands=/B5 B6/Y7 Y8; discard=R7 R8; draw={UNO_FILL}; colour=R; seat=1; dir=+; phase=play; "
        "finished=1 0 0",
    )


def test_MC_END_1_H_EIGHT_1_H_JUMP_1_jumping_in_on_the_eight_of_one_who_left_takes_the_extra_turn() -> None:
    """MC-END-1 with H-EIGHT-1, H-JUMP-1 and U-UNO-1: seat 0 leaves on an 8; seat 2 jumps in
    with its identical 8 and takes the extra turn (H-EIGHT-1), but it laid its second-to-last
    card without calling UNO and is caught: it draws two first."""
    game = at(
        "uno",
        f"hands=R8/B5 B6/R8 Y8; discard=R7; draw={UNO_FILL}; colour=R; seat=0; dir=+; phase=play",
        end="last_player",
        eight_again=True,
        jump_in=True,
    )
    play(game, "R8")
    assert game.current_player == 2
    assert legal(game) == {"R8", "call", "pass"}
    play(game, "R8")
    assert_position(
        game,
        "hands=/B5 B6/Y8 G1 G2; discard=R7 R8 R8; draw=G3 G4 G5 G6 G7 G8 G9 B1 B2 B3; colour=R; "
        "seat=2; dir=+; phase=play; finished=1 0 0",
    )


def test_MC_END_1_H_TWO_1_giving_away_the_last_card_leaves_the_game() -> None:
    """MC-END-1 with H-TWO-1: a player whose 2 leaves one card gives that card (a hand of one
    gives what it has) and so leaves the game; play goes on with the next player in play,
    who holds the card given."""
    game = at(
        "uno",
        f"hands=R2 G5/B5 B6/Y7 Y8; discard=R7; draw={UNO_FILL}; colour=R; seat=0; dir=+; phase=play",
        end="last_player",
        two_gives=True,
    )
    play(game, "call", "R2", "target +1")
    assert legal(game) == {"G5"}
    play(game, "G5")
    assert_position(
        game,
        f"hands=/G5 B5 B6/Y7 Y8; discard=R7 R2; draw={UNO_FILL}; colour=R; seat=1; dir=+; phase=play; "
        "finished=1 0 0",
    )


def test_MC_END_1_H_ZERO_1_the_colour_discard_empties_the_hand_and_the_player_leaves() -> None:
    """MC-END-1 with H-ZERO-1 (``discard_colour``): the 0 takes the last card of its colour
    under it, the hand is empty and its player leaves; play goes on."""
    game = at(
        "uno",
        f"hands=R0 R5/B5 B6/Y7 Y8; discard=R7; draw={UNO_FILL}; colour=R; seat=0; dir=+; phase=play",
        end="last_player",
        zero_rule="discard_colour",
    )
    play(game, "call", "R0")
    assert_position(
        game,
        f"hands=/B5 B6/Y7 Y8; discard=R7 R5 R0; draw={UNO_FILL}; colour=R; seat=1; dir=+; phase=play; "
        "finished=1 0 0",
    )


# ================================================================ the last card (U-END-1), house rules
def test_H_JUMP_1_U_END_1_U_SCORE_1_going_out_on_a_jumped_in_draw_two_sends_nothing() -> None:
    """H-JUMP-1 with U-END-1 and U-SCORE-1 (``uno_house``): after the Draw Two's victim drew,
    seat 2 jumps in with its last card, an identical Draw Two. A jumped-in action card has no
    effect, so nobody draws for it: the round ends and seat 2 scores the hands as they are."""
    game = at(
        "uno_house",
        f"hands=RD2 R4 Y9/B3 B4/RD2; discard=R7; draw={UNO_FILL}; colour=R; seat=0; dir=+; phase=play",
    )
    play(game, "RD2")
    assert legal(game) == {"accept"}
    play(game, "accept")
    assert game.current_player == 2
    assert legal(game) == {"RD2", "pass"}
    play(game, "RD2")
    assert_position(
        game,
        "hands=R4 Y9/G1 G2 B3 B4/; discard=R7 RD2 RD2; draw=G3 G4 G5 G6 G7 G8 G9 B1 B2 B3; colour=R; "
        "seat=-1; dir=+; phase=over; scores=0 0 23; round=1; status=won; winner=2",
    )
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.round_points == (13, 10, 0)


@pytest.mark.parametrize(
    ("card", "hands", "draw", "scores"),
    [
        # a 7 sends two to the next player, who could have answered it with a 7 (stacking 7/7)
        ("7H", "/AC AD QH KH/9C 8S/2S 3S", "AH AS 6C 6D", "0 22 17 5"),
        # a 9 makes the previous player draw one
        ("9H", "/QH KH/9C 8S/AC 2S 3S", "AD AH AS 6C 6D", "0 20 17 6"),
    ],
)
def test_U_END_1_MM_SEVEN_1_MM_NINE_1_MM_SCORE_1_mau_mau_with_the_last_cards_penalty(
    card: str, hands: str, draw: str, scores: str
) -> None:
    """U-END-1 (``last_card_draw``, off in ``mau_mau``) added to Mau-Mau: the penalty of the
    card a player goes out on is still drawn, at once and without an answer, and counts in
    everyone's own points (MM-SCORE-1: Ace 1, King and Queen 10)."""
    game = at(
        "mau_mau",
        f"hands={card}/KH QH/9C 8S/2S 3S; discard=5H; draw={MM_FILL}; colour=H; seat=0; dir=+; phase=play",
        last_card_draw=True,
    )
    play(game, card)
    assert_position(
        game,
        f"hands={hands}; discard=5H {card}; draw={draw}; colour=H; seat=-1; dir=+; phase=over; "
        f"scores={scores}; round=1; status=won; winner=0",
    )


# ================================================================ running totals (U-SCORE-3), Mau-Mau
MM_MATCH = (
    "hands=5H/KH 8H/5S 8S/2S 3S; discard=5C; draw={draw}; colour=C; seat=0; dir=+; phase=play; "
    "scores={scores}; dealer=3; round=2"
)
# cards without an effect in Mau-Mau (MM-ACE-1, MM-QUEEN-1, MM-JACK-1, MM-SEVEN-1, MM-NINE-1 spare
# them), so whichever is turned to start the next round, the first player's discard does nothing
MM_PLAIN = "2C 2D 2H 3C 3D 3H 4C 4H 6C 6D 6H 6S 8C 8D 10C 10D 10H 10S KC KD KS"


def test_U_SCORE_3_MM_SCORE_1_a_running_total_at_exactly_the_target_ends_the_match() -> None:
    """U-SCORE-3 (``match="lowest_total"``) on ``mau_mau``: each round adds everyone's own
    points (MM-SCORE-1: 18, 13, 5); seat 1 reaches exactly the target (72 + 18 = 90), which
    ends the match, and the lowest total wins; the ranking follows the totals."""
    game = at("mau_mau", MM_MATCH.format(draw=MM_PLAIN, scores="0 72 3 10"), match="lowest_total", target=90)
    play(game, "5H")
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.reason == "match"
    assert outcome.winner == 0
    assert outcome.scores == (0, 90, 16, 15)
    assert outcome.round_points == (0, 18, 13, 5)
    assert outcome.ranking == (0, 3, 2, 1)


def test_U_SCORE_3_MM_START_1_MM_SCORE_1_below_the_target_the_next_round_is_dealt_to_the_left() -> None:
    """U-SCORE-3 on ``mau_mau`` below the target (50 + 18 = 68 < 90): the totals carry, the
    deal passes left (dealer 3 -> 0), five cards each, one card turned; the turned card is the
    first player's (seat 1's) discard, so seat 2 plays first (MM-START-1)."""
    game = at("mau_mau", MM_MATCH.format(draw=MM_PLAIN, scores="0 50 3 10"), match="lowest_total", target=90)
    universe = all_cards(game)
    play(game, "5H")
    assert not game.is_over()
    assert game.scores() == [0, 68, 16, 15]
    assert int(game.state[L.S_DEALER]) == 0
    assert int(game.state[L.S_ROUND]) == 3
    assert game.hand_sizes() == [5, 5, 5, 5]
    assert len(game.discard_pile()) == 1
    assert (game.current_player, game.direction, game.phase) == (2, 1, Phase.PLAY)
    assert all_cards(game) == universe


def test_U_SCORE_3_the_round_winner_loses_the_match_to_a_lower_total() -> None:
    """U-SCORE-3 on ``uno``: seat 2 goes out and seat 1 passes the target, but seat 0 holds
    the lowest total (0 + 6): seat 0 wins the match, not the winner of the round."""
    game = at(
        "uno",
        f"hands=R5 R1/R9 R1/R3; discard=R7; draw={UNO_FILL}; colour=R; seat=2; dir=+; phase=play; "
        "scores=0 95 7",
        match="lowest_total",
        target=100,
    )
    play(game, "R3")
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (0, "match")
    assert outcome.scores == (6, 105, 7)
    assert outcome.ranking == (0, 2, 1)


def test_E_END_1_U_SCORE_2_a_match_cut_by_the_decision_limit_has_no_winner_and_keeps_its_scores() -> None:
    """E-END-1 with U-SCORE-2 and U-UNO-1: the decision that reaches the limit (a missed call,
    caught: two cards) truncates the match: no winner, no ranking, the scores so far kept."""
    game = at(
        "uno",
        "hands=R5 R6/G9 Y1/B2 B3; discard=R7; draw=G1 G2 G3; colour=R; seat=0; dir=+; phase=play; "
        "scores=40 30 0; decisions=9",
        match="first_to_target",
        target=100,
        max_decisions=10,
    )
    play(game, "R5")
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.truncated
    assert (outcome.winner, outcome.ranking, outcome.reason) == (None, (), "turn_limit")
    assert outcome.scores == (40, 30, 0)
    assert_position(
        game,
        "hands=R6 G1 G2/G9 Y1/B2 B3; discard=R7 R5; draw=G3; colour=R; seat=-1; dir=+; phase=over; "
        "scores=40 30 0; decisions=10; status=truncated",
    )


# ================================================================ calls in the middle of a play or a swap
def test_H_ZERO_1_U_UNO_1_a_missed_call_is_caught_before_the_hands_rotate_counter_clockwise() -> None:
    """H-ZERO-1 (``uno_house``: rotate) with U-UNO-1 at three players, counter-clockwise: seat
    0 lays its second-to-last card, a 0, without calling; the catch comes right after the play,
    so seat 0 draws two first, and then its three cards pass on to seat 2 with every other
    hand (1 -> 0, 2 -> 1); seat 2 plays."""
    game = at(
        "uno_house",
        "hands=R0 G1/B5 B6 B7/Y7 Y8 Y9 Y1; discard=R7; draw=G1 G2 G3 G4 G5 G6 G7 G8 G9; colour=R; seat=0; "
        "dir=-; phase=play",
    )
    play(game, "R0")
    assert_position(
        game,
        "hands=B5 B6 B7/Y1 Y7 Y8 Y9/G1 G1 G2; discard=R7 R0; draw=G3 G4 G5 G6 G7 G8 G9; colour=R; "
        "seat=2; dir=-; phase=play; seen=0>2 1>0 2>1",
    )


@pytest.mark.parametrize("called", [False, True])
def test_H_MULTI_1_U_UNO_1_the_second_card_of_a_play_is_the_second_to_last(called: bool) -> None:
    """H-MULTI-1 with U-UNO-1: from three cards, two identical 5s laid together leave one; the
    call is offered in the middle of the play, before the second card. Without it the player is
    caught and draws two; with it nothing happens."""
    game = at(
        "uno",
        f"hands=R5 R5 G1/B5 B6/Y7 Y8; discard=R7; draw={UNO_FILL}; colour=R; seat=0; dir=+; phase=play",
        multi_play="identical",
    )
    play(game, "R5")
    assert legal(game) == {"R5", "call", "pass"}
    play(game, *(["call"] if called else []), "R5")
    kept, rest = ("G1", UNO_FILL) if called else ("G1 G1 G2", UNO_FILL.split(" ", 2)[2])
    extra = "; called=0" if called else ""
    assert_position(
        game,
        f"hands={kept}/B5 B6/Y7 Y8; discard=R7 R5 R5; draw={rest}; colour=R; seat=1; dir=+; "
        f"phase=play{extra}",
    )


def test_MC_TURN_1_MC_CALL_1_a_missed_macao_call_in_a_multi_card_play_costs_five() -> None:
    """MC-TURN-1 with MC-CALL-1 (``macao``): two 5s laid together leave one card; the call is
    due before the second 5 and, missed, costs five cards."""
    game = at(
        "macao",
        "hands=5H 5C 9D/KH QH/9C 8S; discard=5D; draw=AC AD AH AS 6C 6D 6H 6S 8C 8D; colour=D; seat=0; "
        "dir=+; phase=play",
    )
    play(game, "5H")
    assert legal(game) == {"5C", "call", "pass"}
    play(game, "5C")
    assert_position(
        game,
        "hands=9D AC AD AH AS 6C/KH QH/9C 8S; discard=5D 5H 5C; draw=6D 6H 6S 8C 8D; colour=C; seat=1; "
        "dir=+; phase=play",
    )


# ================================================================ house rules on the French presets
def test_H_REFLECT_1_MM_QUEEN_1_MM_SEVEN_1_a_queen_sends_the_seven_back_in_mau_mau() -> None:
    """H-REFLECT-1 (``reverse_reflects``) added to ``mau_mau``: the Queen is Mau-Mau's Reverse
    (MM-QUEEN-1), so with a 7's two cards pending (MM-SEVEN-1) a Queen that fits sends them back
    to the 7's player and flips the direction. That player holds no 7 or Queen: it can only
    draw, and loses the turn; play goes on counter-clockwise with seat 3."""
    game = at(
        "mau_mau",
        f"hands=7H 5C 4D/QH KH/9C 8S/2S 3S; discard=5H; draw={MM_FILL}; colour=H; seat=0; dir=+; phase=play",
        reverse_reflects=True,
    )
    play(game, "7H")
    assert legal(game) == {"QH", "accept", "call"}
    play(game, "call", "QH")
    assert_position(
        game,
        f"hands=5C 4D/KH/9C 8S/2S 3S; discard=5H 7H QH; draw={MM_FILL}; colour=H; seat=0; dir=-; "
        "phase=answer; pending=2; from=1; class=7; called=1",
    )
    assert legal(game) == {"accept"}
    play(game, "accept")
    assert_position(
        game,
        "hands=5C 4D AC AD/KH/9C 8S/2S 3S; discard=5H 7H QH; draw=AH AS 6C 6D; colour=H; seat=3; dir=-; "
        "phase=play; called=1",
    )


def test_H_JUMP_1_MM_SEVEN_1_MM_CALL_1_a_seven_jumped_in_after_the_draw_sends_nothing() -> None:
    """H-JUMP-1 added to ``mau_mau`` (two decks: identical cards exist): once the 7's victim
    has drawn, the holder of the other 7 of hearts may jump in (calling Mau-Mau first, as it
    lays its second-to-last card, MM-CALL-1). A jumped-in 7 sends no penalty: play continues
    from the jumper, and seat 3 plays."""
    game = at(
        "mau_mau",
        f"hands=7H 5C 4D/QH KH/7H 8S/2S 3S; discard=5H; draw={MM_FILL}; colour=H; seat=0; dir=+; phase=play",
        jump_in=True,
    )
    play(game, "7H")
    assert legal(game) == {"accept"}
    play(game, "accept")
    assert game.current_player == 2
    assert legal(game) == {"7H", "call", "pass"}
    play(game, "call", "7H")
    assert_position(
        game,
        "hands=5C 4D/AC AD QH KH/8S/2S 3S; discard=5H 7H 7H; draw=AH AS 6C 6D; colour=H; seat=3; dir=+; "
        "phase=play; called=2",
    )


def test_H_MULTI_1_MD_SEVEN_1_two_sevens_laid_together_double_the_penalty() -> None:
    """H-MULTI-1 added to ``mau_mau_doubling`` at five players (two decks): two 7s of hearts
    laid in one play are a 7 and a further 7, so the penalty doubles to six (MD-SEVEN-1:
    3, 6, 12), and the next player, holding no 7, may only draw."""
    game = at(
        "mau_mau_doubling",
        "hands=7H 7H 5C 4D/KH QH/9C 8S/2S 3S/4C 4S; discard=5H; draw=AC AD AH AS 6C 6D 6H 6S 8C 8D; "
        "colour=H; seat=0; dir=+; phase=play",
        multi_play="identical",
    )
    play(game, "7H")
    assert legal(game) == {"7H", "pass"}
    play(game, "7H")
    assert_position(
        game,
        "hands=5C 4D/KH QH/9C 8S/2S 3S/4C 4S; discard=5H 7H 7H; draw=AC AD AH AS 6C 6D 6H 6S 8C 8D; "
        "colour=H; seat=1; dir=+; phase=answer; pending=6; from=0",
    )
    assert legal(game) == {"accept"}


# ================================================ the deck running out (U-DRAW-4), the smallest table
def test_MD_SEVEN_1_U_DRAW_4_two_players_a_doubled_penalty_larger_than_every_card_left() -> None:
    """MD-SEVEN-1 with U-DRAW-4 at two players (``mau_mau_doubling``'s smallest table): three
    7s make the penalty 12 (3, 6, 12); the pile holds one card and the reshuffle six more, so
    seat 1 draws the seven that exist. Seat 0 then has nothing to lay and nothing to draw: its
    draw is skipped and the turn passes."""
    game = at(
        "mau_mau_doubling",
        "hands=7H 7C 2D/7S 3D; discard=5H 6H 8H 10H; draw=KC; colour=H; seat=0; dir=+; phase=play",
    )
    play(game, "7H", "7S", "7C")
    assert_position(
        game,
        "hands=2D/3D; discard=5H 6H 8H 10H 7H 7S 7C; draw=KC; colour=C; seat=1; dir=+; phase=answer; "
        "pending=12; from=0",
    )
    play(game, "accept")
    assert_position(
        game,
        "hands=2D/KC 3D 5H 6H 7H 8H 10H 7S; discard=7C; draw=-; colour=C; seat=0; dir=+; phase=play",
    )
    assert legal(game) == {"draw"}
    play(game, "draw")
    assert_position(
        game,
        "hands=2D/KC 3D 5H 6H 7H 8H 10H 7S; discard=7C; draw=-; colour=C; seat=1; dir=+; phase=play",
    )


def test_E_END_1_U_DRAW_4_nothing_to_draw_and_nothing_to_lay_ends_at_the_decision_limit() -> None:
    """E-END-1 with U-DRAW-4: every card is in a hand or on top of the pile and no hand holds a
    card that fits: each player's only way on is a draw that finds nothing and ends the turn
    (a call is allowed but changes nothing). No round ends that way: the decision limit
    truncates the game, with no winner and nobody scored."""
    game = at(
        "uno",
        "hands=R5 R6/G9 Y1; discard=R7; draw=-; colour=B; seat=0; dir=+; phase=play",
        max_decisions=12,
    )
    for turn in range(12):
        assert game.current_player == turn % 2
        assert legal(game) == {"call", "draw"}
        play(game, "draw")
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.truncated and outcome.reason == "turn_limit"
    assert (outcome.winner, outcome.scores, outcome.round_points) == (None, (0, 0), (0, 0))
    assert game.hand_sizes() == [2, 2]


# ================================================ the starting card (H-SCOPE-1) as a first discard
def test_H_SCOPE_1_H_JUMP_1_MM_START_1_no_jump_in_on_a_starting_card_that_counts_as_a_discard() -> None:
    """H-SCOPE-1 with H-JUMP-1 and MM-START-1 (``mau_mau`` with jump-in, two decks: identical
    cards exist): the source's optional rules "não valem no início do jogo (caso seja a carta
    que começa)", so although the turned 5 of spades counts as the first player's discard, the
    player holding the other 5 of spades is not asked to jump in on it: the player after the
    first plays (the dealer is seat 2, the first player seat 3, so seat 0)."""
    rules = load_rules("mau_mau", jump_in=True)
    game = Game(rules, num_players=4, seed=6)
    assert str(game.top_card) == "5S" and "5S" in [str(c) for c in game.hand(0)]
    assert int(game.state[L.S_DEALER]) == 2
    assert (game.current_player, game.phase) == (0, Phase.PLAY)
    assert position_fields(game.position())["jumpblock"] == "start"
    again = Game.from_position(rules, game.position())
    assert again.position() == game.position()
    assert "5S" in legal(game)  # seat 0 lays it in its turn, as any card that matches


def test_H_SCOPE_1_H_JUMP_1_MM_START_1_no_jump_in_on_a_starting_seven_after_its_penalty() -> None:
    """H-SCOPE-1 with H-JUMP-1, MM-START-1 and MM-SEVEN-1: a starting 7 is the first player's
    discard, so the next player (seat 1) draws two or answers with a 7; it draws, and the
    holder of the other 7 of hearts (seat 2) is still not asked to jump in on the starting
    card (``jumpblock=start``): seat 2 plays its turn as the player after the victim."""
    game = at(
        "mau_mau",
        f"hands=5C 4D/KH QH/7H 8S/2S 3S; discard=7H; draw={MM_FILL}; colour=H; seat=1; dir=+; "
        "phase=answer; pending=2; from=0; jumpblock=start",
        jump_in=True,
    )
    assert legal(game) == {"accept"}
    play(game, "accept")
    assert_position(
        game,
        "hands=5C 4D/AC AD QH KH/7H 8S/2S 3S; discard=7H; draw=AH AS 6C 6D; colour=H; seat=2; dir=+; "
        "phase=play; jumpblock=start",
    )
    assert legal(game) == {"7H", "call", "draw"}
    play(game, "call", "7H")  # laid on it in turn: the card on top is no longer the starting card
    assert "jumpblock" not in position_fields(game.position())


@pytest.mark.parametrize(
    ("discard", "overrides", "message"),
    [
        ("5H 7H", {"jump_in": True}, "start_card='first_discard' and a discard pile of 2"),
        ("7H", {}, "jumpblock needs the rule jump_in"),
    ],
)
def test_H_SCOPE_1_jumpblock_start_needs_a_first_discard_alone_on_the_pile(
    discard: str, overrides: dict[str, Any], message: str
) -> None:
    """H-SCOPE-1: ``jumpblock=start`` says the top card is the starting card (MM-START-1); a
    position where a card was laid on it, or without jump-in, is refused with what is wrong."""
    with pytest.raises(PositionError, match=message):
        at(
            "mau_mau",
            f"hands=5C 4D/KH QH/7H 8S/2S 3S; discard={discard}; draw={MM_FILL}; colour=H; seat=1; dir=+; "
            "phase=answer; pending=2; from=0; jumpblock=start",
            **overrides,
        )


def test_H_SCOPE_1_a_jump_in_window_on_the_starting_card_is_refused() -> None:
    """H-SCOPE-1: a position asking a player to jump in on the starting card (``phase=jump``
    with ``jumpblock=start``) is one play cannot leave, and is refused."""
    with pytest.raises(PositionError, match="nobody jumps in on the starting card"):
        at(
            "mau_mau",
            f"hands=5C 4D/KH QH/5H 8S/2S 3S; discard=5H; draw={MM_FILL}; colour=H; seat=2; dir=+; "
            "phase=jump; resume=1; window=0; scan=2; jumpblock=start",
            jump_in=True,
        )
