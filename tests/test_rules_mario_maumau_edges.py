"""Corner cases and rule interactions of Uno Super Mario (``uno_mario``, M-*), Mau-Mau
(``mau_mau``, MM-*) and Mau-Mau with doubling sevens (``mau_mau_doubling``, MD-*).

The rule-by-rule scenarios live in ``tests/test_rules_house.py`` (M-*) and
``tests/test_rules_french.py`` (MM-*, MD-*); this file pins what happens where two rules
meet or a rule reaches an edge: a starting Super Star or customizable wild, the dealer draw
with the Mario cards, a penalty drawn across a reshuffle, a call at the moment an answer
leaves one card, a last card that would have sent a penalty, two-player tables, a fresh 7
after a chain was taken. Each test names the rule IDs it checks and asserts the exact
effect: hands, piles, active colour or suit, seat to move, direction, phase, pending
penalty, legal actions, scores.

The file runs compiled and uncompiled (``NUMBA_DISABLE_JIT=1``); its seed scans stop at
their first hit.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from tests.scenarios import all_cards, assert_position, discard, draw_pile, hand, legal
from tests.scenarios import position_fields as fields
from uno_env import Game, Phase, load_rules
from uno_env.engine import engine
from uno_env.engine import layout as L
from uno_env.engine.cards import format_face, parse_face
from uno_env.engine.rng import seed_rng
from uno_env.engine.rules import compile_spec

FILL = "draw=Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3"
MM_DRAW = "draw=2C 3C 4C 5C 6C 8C 10C KC"
MD_DRAW = "draw=2D 3D 6D 8D 10D QD KD 10H QH KH 2S 6S QS 3C"


def at(rules: str, text: str, seed: int = 0, **overrides: Any) -> Game:
    """A game of a preset (with rule overrides) at a position."""
    return Game.from_position(rules, text, seed=seed, **overrides)


def play(game: Game, *actions: str) -> Game:
    """Apply decisions by notation, checking the engine invariants after each."""
    for action in actions:
        game.step(action)
        game.check_invariants()
    return game


def field(game: Game, key: str) -> str | None:
    """One field of the game's position (None when it is not printed)."""
    return fields(game.position()).get(key)


# ================================================================ Uno Super Mario
@pytest.mark.parametrize("card", ["SS", "WC"])
def test_U_START_1_M_STAR_1_U_DECK_2_a_starting_mario_wild_is_named_by_the_first_player(card: str) -> None:
    """U-START-1 with the Mario wilds (003: the Super Star and the customizable card, "Se
    aparecer no início, o primeiro jogador escolhe a cor"): the first player names the colour,
    then plays; a starting Super Star has no penalty to send back, nobody draws."""
    for seed in range(400):
        game = Game("uno_mario", 4, seed=seed)
        if str(game.top_card) == card:
            break
    else:
        pytest.fail(f"no seed below 400 starts with {card}")
    first = (int(game.state[L.S_DEALER]) + 1) % 4
    assert (game.current_player, game.phase, game.direction) == (first, Phase.CHOOSE_COLOUR, 1)
    assert legal(game) == {"colour R", "colour Y", "colour G", "colour B"}
    assert game.hand_sizes() == [7, 7, 7, 7]
    play(game, "colour Y")
    assert (game.current_player, game.phase, game.active_colour) == (first, Phase.PLAY, 1)
    assert game.hand_sizes() == [7, 7, 7, 7]
    assert field(game, "pending") is None


def test_U_SETUP_2_U_DECK_2_super_stars_and_customizable_wilds_count_zero_in_the_dealer_draw() -> None:
    """U-SETUP-2 (003: "considere todas as cartas de ação sem número como zero") with the
    Mario deck: a Super Star or customizable wild turned for the deal counts zero, like every
    action and wild card, so among 40 such cards and one R1 whoever turns the R1 deals."""
    spec = compile_spec(load_rules("uno_mario"))
    for card in ("SS", "WC", "W", "WD4", "RS", "RD2"):
        assert spec[L.F_DEALER_VALUE + parse_face(card)] == 0, card
    deck = {"R1": 1, "SS": 4, "WC": 4, "W": 4, "WD4": 4}
    deck.update({f"{c}{s}": 2 for c in "RYGB" for s in ("S", "R", "D2")})
    for seed in range(12):
        state = np.zeros(L.STATE_SIZE, dtype=np.int64)
        state[L.S_NPLAYERS] = 3
        seed_rng(state, L.RNG, seed, 0)
        for card, copies in deck.items():
            state[L.DECK + parse_face(card)] = copies
        pile_state = state.copy()
        engine._fill_draw_pile_with_deck(pile_state, spec)
        count = int(pile_state[L.S_NDRAW])
        pile = [format_face(int(f)) for f in pile_state[L.DRAW_PILE : L.DRAW_PILE + count][::-1]]
        dealer = int(engine.draw_for_dealer(state, spec))
        # by hand: contenders turn a card each from the top; all zero but the R1, so ties go on
        contenders, at_card = [0, 1, 2], 0
        while len(contenders) > 1:
            turned = {seat: pile[at_card + i] for i, seat in enumerate(contenders)}
            at_card += len(contenders)
            if "R1" in turned.values():
                contenders = [seat for seat, c in turned.items() if c == "R1"]
        assert dealer == contenders[0], seed


def test_U_START_1_M_STAR_1_a_starting_draw_two_cannot_be_sent_back() -> None:
    """U-START-1 + M-STAR-1: a starting Draw Two was laid by nobody ("jogada em você": a Super
    Star sends back a draw card a player laid on you), so the first player draws its 2 at once,
    with no answer offered even while holding a Super Star, and the player after them plays."""
    for seed in range(400):
        game = Game("uno_mario", 4, seed=seed)
        first = (int(game.state[L.S_DEALER]) + 1) % 4
        if str(game.top_card).endswith("D2") and "SS" in hand(game, first):
            break
    else:
        pytest.fail("no seed below 400 starts with a Draw Two and a Super Star for the first player")
    sizes = [7, 7, 7, 7]
    sizes[first] = 9
    assert game.hand_sizes() == sizes
    assert (game.current_player, game.phase) == ((first + 1) % 4, Phase.PLAY)
    assert field(game, "pending") is None and field(game, "from") is None


def test_M_STAR_1_two_players_the_sender_draws_and_the_star_player_plays_on() -> None:
    """M-STAR-1 with two players: a Draw Two starred back is drawn by its sender, who then
    loses the turn, so the Super Star's player plays next in the colour named."""
    game = at(
        "uno_mario", f"hands=RD2 R5 R6/SS G3 G4; discard=R9; {FILL}; colour=R; seat=0; dir=+; phase=play"
    )
    play(game, "RD2")
    assert (game.current_player, game.phase, legal(game)) == (1, Phase.ANSWER, {"SS", "accept"})
    play(game, "SS", "colour B")
    assert_position(
        game,
        f"hands=R5 R6/G3 G4; discard=R9 RD2 SS; {FILL}; colour=B; seat=0; dir=+; phase=answer; "
        "pending=2; from=1; class=D2",
    )
    assert legal(game) == {"accept"}
    play(game, "accept")
    assert_position(
        game,
        "hands=Y1 Y2 R5 R6/G3 G4; discard=R9 RD2 SS; draw=Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; "
        "colour=B; seat=1; dir=+; phase=play",
    )


def test_M_STAR_1_U_UNO_1_a_super_star_laid_as_the_second_to_last_card_needs_the_call() -> None:
    """M-STAR-1 + U-UNO-1: answering a Draw Two with a Super Star from two cards leaves one,
    so the call is offered with the answer; a missed call is caught at once (2 cards, before
    the colour is named), and the Draw Two still goes back to its sender."""
    text = f"hands=RD2 R5 R6/SS G3/B4 B5 B6; discard=R9; {FILL}; colour=R; seat=0; dir=+; phase=play"
    missed = at("uno_mario", text)
    play(missed, "RD2")
    assert legal(missed) == {"SS", "accept", "call"}
    play(missed, "SS")
    assert (missed.current_player, missed.phase) == (1, Phase.CHOOSE_COLOUR)
    assert hand(missed, 1) == ["Y1", "Y2", "G3"]
    play(missed, "colour G")
    assert_position(
        missed,
        "hands=R5 R6/Y1 Y2 G3/B4 B5 B6; discard=R9 RD2 SS; draw=Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; "
        "colour=G; seat=0; dir=+; phase=answer; pending=2; from=1; class=D2",
    )
    called = at("uno_mario", text)
    play(called, "RD2", "call", "SS", "colour G", "accept")
    assert_position(
        called,
        "hands=Y1 Y2 R5 R6/G3/B4 B5 B6; discard=R9 RD2 SS; draw=Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; "
        "colour=G; seat=1; dir=+; phase=play; called=1",
    )


def test_M_STAR_1_U_WD4_1_a_super_star_held_is_no_card_of_the_colour() -> None:
    """M-STAR-1 + U-WD4-1: a Super Star is a colourless wild, so holding one does not make a
    Wild Draw Four a bluff under the Mario rule (no card of the colour on the pile); under the
    option ``wd4_legal_when="no_playable_card"`` it does, a wild being playable."""
    text = f"hands=WD4 SS G3/R3 R4/B4 B5 B6; discard=R9; {FILL}; colour=R; seat=0; dir=+; phase=play"
    legal_play = play(at("uno_mario", text), "WD4", "colour G")
    assert (legal_play.current_player, legal_play.phase) == (1, Phase.CHALLENGE)
    assert field(legal_play, "bluff") is None and field(legal_play, "before") == "R"
    play(legal_play, "challenge")
    assert hand(legal_play, 1) == ["R3", "R4", "Y1", "Y2", "Y3", "Y4", "Y5", "Y6"]  # M-CHAL-1: 6
    assert (legal_play.current_player, legal_play.active_colour) == (2, 2)
    bluff = play(at("uno_mario", text, wd4_legal_when="no_playable_card"), "WD4", "colour G")
    assert field(bluff, "bluff") == "1"
    play(bluff, "challenge")
    assert hand(bluff, 0) == ["Y1", "Y2", "Y3", "Y4", "G3", "SS"]
    assert (bluff.current_player, bluff.phase, bluff.active_colour) == (1, Phase.PLAY, 0)


def test_M_STAR_1_U_DRAW_4_a_returned_penalty_is_drawn_across_a_reshuffle() -> None:
    """M-STAR-1 + U-DRAW-4: the sender of a starred-back Draw Two draws its 2 even when the
    draw pile holds one card: the discard pile except the Super Star on top is shuffled into a
    new draw pile and the second card comes from it; no card is lost (E-CONS-1)."""
    game = at(
        "uno_mario",
        "hands=RD2 R5 R6/SS G3 G4/B4 B5 B6; discard=Y1 Y2 R9; draw=G1; colour=R; seat=0; dir=+; phase=play",
    )
    before = all_cards(game)
    play(game, "RD2", "SS", "colour B", "accept")
    held = hand(game, 0)
    assert len(held) == 4 and {"R5", "R6", "G1"} <= set(held)
    (second,) = Counter(held) - Counter(["R5", "R6", "G1"])
    assert second in ("Y1", "Y2", "R9", "RD2")
    assert discard(game) == ["SS"]
    assert sorted(draw_pile(game)) == sorted({"Y1", "Y2", "R9", "RD2"} - {second})
    assert (game.current_player, game.phase, game.active_colour) == (1, Phase.PLAY, 3)
    assert all_cards(game) == before


def test_U_END_1_M_STAR_1_M_SCORE_1_a_last_draw_two_is_drawn_without_a_super_star_answer() -> None:
    """U-END-1 + M-STAR-1 + M-SCORE-1: a player going out on a Draw Two ends the round; the
    next player draws its 2 for scoring with no chance to send it back, and the Super Star
    left in that hand scores 50 with the rest (003: "o próximo jogador ainda precisará comprar
    essas cartas para fins de pontuação")."""
    game = at(
        "uno_mario",
        f"hands=RD2/SS G3/B4 WC/G7; discard=R9; {FILL}; colour=R; seat=0; dir=+; phase=play; called=0",
    )
    play(game, "RD2")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0
    assert hand(game, 1) == ["Y1", "Y2", "G3", "SS"]
    assert outcome.round_points == (0, 1 + 2 + 3 + 50, 4 + 50, 7)
    assert outcome.scores == (56 + 54 + 7, 0, 0, 0)


def test_U_SCORE_3_M_SCORE_1_the_running_total_counts_fifty_for_each_mario_wild() -> None:
    """U-SCORE-3 (003's alternative: "manter uma contagem contínua dos pontos que cada jogador
    tem") + M-SCORE-1: each player adds the points left in their own hand, a Super Star and a
    customizable wild 50 each; below the target a new round is dealt."""
    game = at(
        "uno_mario",
        f"hands=R5/SS WC G3/B4 Y7/G7 RS; discard=R9; {FILL}; colour=R; seat=0; dir=+; phase=play; called=0; "
        "scores=10 20 30 40",
        match="lowest_total",
        target=150,
    )
    play(game, "R5")
    assert game.outcome() is None
    assert game.scores() == [10, 20 + 50 + 50 + 3, 30 + 4 + 7, 40 + 7 + 20]
    assert field(game, "round") == "1"


# ================================================================ Mau-Mau
def mm(hands: str, top: str, seat: int = 0, colour: str = "", **overrides: Any) -> Game:
    """A ``mau_mau`` position with a fixed club draw pile."""
    colour = colour or top.split()[-1][-1]
    text = f"hands={hands}; discard={top}; {MM_DRAW}; colour={colour}; seat={seat}; dir=+; phase=play"
    return at("mau_mau", text, **overrides)


def md(hands: str, top: str, seat: int = 0, colour: str = "", **overrides: Any) -> Game:
    """A ``mau_mau_doubling`` position (one deck) with a fixed draw pile."""
    colour = colour or top.split()[-1][-1]
    text = f"hands={hands}; discard={top}; {MD_DRAW}; colour={colour}; seat={seat}; dir=+; phase=play"
    return at("mau_mau_doubling", text, **overrides)


def test_MM_JACK_1_a_jack_laid_on_a_seven_of_its_suit_still_names_the_suit() -> None:
    """MM-JACK-1: on a 7 the Jack loses only its right to go anywhere ("esta regra não é válida
    quando a carta no topo da mesa for um 7"); laid on a 7 of its own suit, its player still
    names the suit, and the next player follows it."""
    game = mm("JH JC 3S/4D 4S 9S/5D 5S 6H/6D 6S 8H", "7H")
    assert legal(game) == {"JH", "draw", "call"}
    play(game, "JH")
    assert (game.current_player, game.phase) == (0, Phase.CHOOSE_COLOUR)
    assert legal(game) == {"suit C", "suit D", "suit H", "suit S"}
    play(game, "suit S")
    assert_position(
        game,
        f"hands=JC 3S/4D 4S 9S/5D 5S 6H/6D 6S 8H; discard=7H JH; {MM_DRAW}; colour=S; seat=1; dir=+; "
        "phase=play",
    )
    assert legal(game) == {"4S", "9S", "draw", "call"}


def test_MM_CALL_1_MM_JACK_1_a_jack_laid_as_the_second_to_last_card_without_the_call() -> None:
    """MM-CALL-1 + MM-JACK-1: a Jack laid from two cards without the call is caught before its
    player names the suit (5 cards); the suit is then named and play passes."""
    game = mm("JH 3S/4D 4S 9S/7C 5S 6H/6D 6S 8H", "4C")
    play(game, "JH")
    assert_position(
        game,
        "hands=2C 3C 4C 5C 6C 3S/4D 4S 9S/7C 5S 6H/6D 6S 8H; discard=4C JH; draw=8C 10C KC; colour=H; "
        "seat=0; dir=+; phase=colour",
    )
    play(game, "suit D")
    assert (game.current_player, game.phase, game.active_colour) == (1, Phase.PLAY, 1)


def test_MM_JACK_1_MM_SCORE_1_a_last_jack_ends_the_round_without_naming_a_suit() -> None:
    """MM-JACK-1 + MM-SCORE-1: a Jack laid as the last card ends the round at once (no suit
    is named); everyone scores their own hand."""
    game = mm("JH/4D 4S 9S/7C 5S 6H/6D 6S 8H", "4C")
    play(game, "JH")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0
    assert game.phase == Phase.OVER
    assert outcome.round_points == (0, 17, 18, 20)
    assert outcome.ranking == (0, 1, 2, 3)


@pytest.mark.parametrize(
    ("rules", "hands", "amount"),
    [
        ("mau_mau", "7H 3C 8S/4D 4S 9S/7C 5S 6H/6D 6S 8H", "2"),
        ("mau_mau_doubling", "7H 5C 8S/4D 4S 9S/7C 5S 6H", "3"),
    ],
)
def test_MM_SEVEN_1_MD_SEVEN_1_a_seven_after_a_taken_chain_starts_afresh(
    rules: str, hands: str, amount: str
) -> None:
    """MM-SEVEN-1 / MD-SEVEN-1: the penalty grows only over 7s laid in sequence; once a player
    has taken it, the 7 on top is spent, and a new 7 laid on it sends the plain amount again
    (2 in Mau-Mau, 3 with doubling sevens), not more."""
    game = mm(hands, "4H") if rules == "mau_mau" else md(hands, "4H")
    play(game, "7H", "accept")
    assert (game.current_player, game.phase, field(game, "pending")) == (2, Phase.PLAY, None)
    assert "7C" in legal(game)
    play(game, "7C")
    target = 3 if rules == "mau_mau" else 0
    assert (game.current_player, game.phase) == (target, Phase.ANSWER)
    assert (field(game, "pending"), field(game, "from")) == (amount, "2")


def test_MM_SEVEN_1_U_DRAW_4_a_stacked_penalty_is_drawn_across_a_reshuffle() -> None:
    """MM-SEVEN-1 + U-DRAW-4: the 4 cards of two 7s are drawn even when the draw pile holds
    one: the discard pile except the top 7 becomes the new draw pile; the victim loses the
    turn and no card is lost (E-CONS-1)."""
    game = at(
        "mau_mau",
        "hands=7H 3C 8S/7S 2D 3D KD/4C 5S 6S 8S/4D 5D 6D 8D; discard=2H 3H 5H 4H; draw=KC; "
        "colour=H; seat=0; dir=+; phase=play",
    )
    before = all_cards(game)
    play(game, "7H", "7S")
    assert (game.current_player, field(game, "pending"), field(game, "from")) == (2, "4", "1")
    assert legal(game) == {"accept"}
    play(game, "accept")
    gained = Counter(hand(game, 2)) - Counter(["4C", "5S", "6S", "8S"])
    assert sum(gained.values()) == 4 and gained["KC"] == 1
    assert set(gained) - {"KC"} <= {"2H", "3H", "4H", "5H", "7H"}
    assert discard(game) == ["7S"] and len(draw_pile(game)) == 2
    assert (game.current_player, game.phase, game.active_colour) == (3, Phase.PLAY, 3)
    assert all_cards(game) == before


def test_MM_NINE_1_MM_ACE_1_the_nine_after_an_ace_hits_the_skipped_seat() -> None:
    """MM-NINE-1 + MM-ACE-1: "the previous player" is the player seated before, in the
    direction of play (docs/rules.md), not the last one who laid a card: after seat 0's Ace
    skips seat 1, seat 2's 9 makes seat 1 draw; seat 3 plays next."""
    game = mm("AH 3C 8S/4D 4S 9S/9H 5S 6H/6D 6S 8H", "4H")
    play(game, "AH")
    assert game.current_player == 2
    play(game, "9H")
    assert_position(
        game,
        "hands=3C 8S/2C 4D 4S 9S/5S 6H/6D 6S 8H; discard=4H AH 9H; draw=3C 4C 5C 6C 8C 10C KC; "
        "colour=H; seat=3; dir=+; phase=play",
    )


@pytest.mark.parametrize(
    ("rules", "pending", "options"),
    [
        ("mau_mau", "2", {"7S", "accept", "call"}),  # the 7 may be taken; a call with one card costs nothing
        ("mau_mau_doubling", "3", {"7S"}),  # ``must_answer``; no call
    ],
)
def test_MM_SEVEN_1_MD_SEVEN_1_answering_a_seven_with_the_last_card_ends_the_round(
    rules: str, pending: str, options: set[str]
) -> None:
    """MM-SEVEN-1 / MD-SEVEN-1 + MM-SCORE-1: a player who answers a pending 7 with their last
    card goes out; the round ends at once, nobody draws the grown penalty (``last_card_draw``
    is off in both presets) and everyone scores their own hand."""
    text = (
        f"hands=3C 4C 5D/7S/8S 9S KS/2C 2D 5S; discard=4H 7H; draw=KC QC JC 10C 6C 8D 8H; colour=H; "
        f"seat=1; dir=+; phase=answer; pending={pending}; from=0"
    )
    game = at(rules, text)
    assert legal(game) == options
    play(game, "7S")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 1
    assert game.hand_sizes() == [3, 0, 3, 3]
    assert draw_pile(game) == ["KC", "QC", "JC", "10C", "6C", "8D", "8H"]
    assert outcome.round_points == (12, 0, 27, 9)
    assert outcome.ranking == (1, 3, 0, 2)


def test_MM_CALL_1_MM_DRAW_1_a_call_after_drawing_to_three_cards_is_false() -> None:
    """MM-CALL-1 + MM-DRAW-1: a player who drew to three cards and calls makes a false call
    ("tendo mais de 2 cartas na mão"): 5 cards at once; the turn goes on where it was (any
    playable card, or pass), and no second draw is offered."""
    game = mm("3H 8S/4D 4S 9S/5D 5S 6H/6D 6S 8H", "9H")
    play(game, "draw", "call")
    assert_position(
        game,
        "hands=2C 3C 4C 5C 6C 8C 3H 8S/4D 4S 9S/5D 5S 6H/6D 6S 8H; discard=9H; draw=10C KC; colour=H; "
        "seat=0; dir=+; phase=drawn; drawn=2C",
    )
    assert legal(game) == {"3H", "pass", "call"}
    assert game.called() == [False] * 4


def test_MM_CALL_1_MM_SEVEN_1_a_false_call_while_answering_costs_five_and_the_answer_stays_open() -> None:
    """MM-CALL-1 + MM-SEVEN-1: a call holding three cards is false even while answering a 7:
    the caller draws 5 at once, the 7 is still pending on them and they still choose between
    answering with their 7 and taking the 2."""
    game = at(
        "mau_mau",
        "hands=3C 4C 5D/7S 6D 9D/8S 9S 3S/2C 2D 5S; discard=4H 7H; draw=KC QC JC 10C 6C 8D 8H; "
        "colour=H; seat=1; dir=+; phase=answer; pending=2; from=0",
    )
    assert legal(game) == {"7S", "accept", "call"}
    play(game, "call")
    assert_position(
        game,
        "hands=3C 4C 5D/6C 10C JC QC KC 7S 6D 9D/8S 9S 3S/2C 2D 5S; discard=4H 7H; draw=8D 8H; "
        "colour=H; seat=1; dir=+; phase=answer; pending=2; from=0",
    )
    assert game.called() == [False] * 4
    assert legal(game) == {"7S", "accept", "call"}
    play(game, "7S")
    assert (game.current_player, field(game, "pending"), field(game, "from")) == (2, "4", "1")


# ================================================================ Mau-Mau with doubling sevens
def test_MD_NINE_1_two_players_the_opponent_draws_and_then_plays() -> None:
    """MD-NINE-1 with two players: the previous player is the opponent, who draws 1 and then
    takes their turn as usual (the 9 does not skip them)."""
    game = md("9C 3S 8S/4H 4S 10S", "4C")
    play(game, "9C")
    assert_position(
        game,
        "hands=3S 8S/2D 4H 4S 10S; discard=4C 9C; draw=3D 6D 8D 10D QD KD 10H QH KH 2S 6S QS 3C; "
        "colour=C; seat=1; dir=+; phase=play",
    )
    assert legal(game) == {"draw"}  # MD-DRAW-1: nothing matches the 9C


def test_MD_SEVEN_1_U_DRAW_4_a_doubled_penalty_larger_than_the_cards_left_draws_them_all() -> None:
    """MD-SEVEN-1 + U-DRAW-4 with two players: four 7s in sequence send 3, 6, 12, 24; the
    player who takes 24 draws every card there is (the draw pile, then the discard pile but
    its top 7), and the game goes on: the other player, with nothing to lay on the 7D and
    nothing left to draw, draws nothing and the turn passes (E-CONS-1 holds)."""
    game = at(
        "mau_mau_doubling",
        "hands=7C 7H 3S/7S 7D 4S; discard=4C; draw=2D 3D; colour=C; seat=0; dir=+; phase=play",
    )
    before = all_cards(game)
    play(game, "7C", "7S", "7H", "7D")
    assert (game.current_player, game.phase, field(game, "pending"), field(game, "from")) == (
        0,
        Phase.ANSWER,
        "24",
        "1",
    )
    assert legal(game) == {"accept"}
    play(game, "accept")
    assert sorted(hand(game, 0), key=lambda c: parse_face(c, "french")) == sorted(
        ["3S", "2D", "3D", "4C", "7C", "7S", "7H"], key=lambda c: parse_face(c, "french")
    )
    assert discard(game) == ["7D"] and draw_pile(game) == []
    assert (game.current_player, game.phase, legal(game)) == (1, Phase.PLAY, {"draw"})
    play(game, "draw")
    assert (game.current_player, game.phase) == (0, Phase.PLAY)
    assert hand(game, 1) == ["4S"]
    assert all_cards(game) == before


def test_MD_NOTE_MD_SEVEN_1_a_starting_seven_is_drawn_even_by_a_first_player_holding_a_seven() -> None:
    """MD-NOTE + MD-SEVEN-1 (docs/rules.md: the starting card applies its effect to the first
    player, as U-START-1): a starting 7 was laid by nobody, so the first player draws its 3 and
    is skipped, with no chance to answer it with a 7 of their own."""
    for seed in range(400):
        game = Game("mau_mau_doubling", 3, seed=seed)
        first = (int(game.state[L.S_DEALER]) + 1) % 3
        held = [card for card in hand(game, first) if card[:-1] == "7"]
        if str(game.top_card)[:-1] == "7" and held:
            break
    else:
        pytest.fail("no seed below 400 starts with a 7 and a 7 for the first player")
    sizes = [7, 7, 7]
    sizes[first] = 10
    assert game.hand_sizes() == sizes
    assert (game.current_player, game.phase) == ((first + 1) % 3, Phase.PLAY)
    assert field(game, "pending") is None


def test_MD_NOTE_the_starting_card_reading_is_written_with_its_off_switch() -> None:
    """MD-NOTE (U-START-1, U-START-2): source 001 gives the special cards their meaning when
    discarded and has the first player match the turned card; the reference records the Uno
    reading ``mau_mau_doubling`` plays, in the source's words, and the value that turns it off,
    which does: with ``start_card = "number_only"`` no Ace, 7, 9 or Jack starts the pile."""
    from uno_env.game import reference

    note = reference.reference().rules["MD-NOTE"].open
    for words in (
        "quando descastartadas",
        "carta virada",
        'start_card = "official"',
        'start_card = "number_only"',
    ):
        assert words in note
    for seed in range(60):
        game = Game("mau_mau_doubling", 3, seed=seed, start_card="number_only")
        assert str(game.top_card)[:-1] not in ("A", "7", "9", "J"), seed
        assert (game.current_player, game.hand_sizes()) == ((int(game.state[L.S_DEALER]) + 1) % 3, [7, 7, 7])
