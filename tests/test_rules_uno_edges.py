"""Scenario tests of official Uno (``uno`` preset) at its corners: rules meeting each other, the
largest and smallest tables, and the starting card of a later round of a match.

Each test names the rules it checks (the rule reference ``docs/rules.md``), builds the
situation from position notation (or a seeded deal), applies decisions and asserts their
exact effect with :func:`assert_position` (hands, piles, colour, seat, direction, phase,
pending penalty, calls, scores) and the exact legal actions. ``tests/test_rules_uno.py``
holds one or more scenarios per rule; this file holds what happens where two rules, or a
rule and a table size, meet.

Rules covered: U-START-1, U-START-2, U-SKIP-1, U-REV-1, U-D2-1, U-WD4-1, U-WD4-2, U-UNO-1, U-DRAW-4,
U-END-1, U-SCORE-1, U-SCORE-2, E-DIR-1, E-CONS-1, E-END-1; H-MULTI-1 where it meets U-WD4-1. A
challenge given as a position must agree with its sender's hand (U-WD4-1, U-WD4-2).

The file runs compiled and uncompiled (``NUMBA_DISABLE_JIT=1``, ``make nojit``): seed scans
stop at their first hit.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.scenarios import all_cards, assert_position, hand, legal, position_fields
from uno_env import Game, Phase, PositionError
from uno_env.engine import layout as L

RED = "R0 R1 R2 R3 R4 R5 R6 R7 R8 R9 RS RR RD2"


def pos(text: str, seed: int = 0, **overrides: Any) -> Game:
    """A game of the ``uno`` preset (with rule overrides) at a position."""
    return Game.from_position("uno", text, seed=seed, **overrides)


def play(game: Game, *actions: str) -> Game:
    """Apply decisions by notation, checking the engine invariants (E-CONS-1) after each."""
    for action in actions:
        game.step(action)
        game.check_invariants()
    return game


# ================================================================ ten players (E-DIR-1)
# seats 1..8 hold two cards each that play no part; seat 0 and seat 9 are the ones that move
TEN = "{first}/Y6 Y7/G4 G5/B1 B2/B3 B4/B5 B6/B7 B8/Y1 Y2/Y3 Y4/{last}"
TEN_REST = "Y6 Y7/G4 G5/B1 B2/B3 B4/B5 B6/B7 B8/Y1 Y2/Y3 Y4"


def test_E_DIR_1_U_SKIP_1_ten_players_a_skip_from_the_last_seat_wraps_past_seat_0() -> None:
    """U-SKIP-1 with E-DIR-1 at 10 players: seat 9 lays a Skip clockwise: seat 0 loses the turn,
    seat 1 plays."""
    game = pos(
        f"hands={TEN.format(first='G1 G2', last='RS R1 R2')}; discard=R7; draw=G9 G8 G7; colour=R; "
        "seat=9; dir=+; phase=play"
    )
    play(game, "RS")
    assert_position(
        game,
        f"hands=G1 G2/{TEN_REST}/R1 R2; discard=R7 RS; draw=G9 G8 G7; colour=R; seat=1; dir=+; phase=play",
    )


def test_E_DIR_1_U_SKIP_1_ten_players_counter_clockwise_skip_from_seat_0() -> None:
    """U-SKIP-1 with E-DIR-1 at 10 players, counter-clockwise: seat 0's Skip passes over seat 9;
    seat 8 plays."""
    game = pos(
        f"hands={TEN.format(first='RS G1 G2', last='R5 R1 R2')}; discard=R7; draw=G9; colour=R; "
        "seat=0; dir=-; phase=play"
    )
    play(game, "RS")
    assert_position(
        game,
        f"hands=G1 G2/{TEN_REST}/R1 R2 R5; discard=R7 RS; draw=G9; colour=R; seat=8; dir=-; phase=play",
    )


def test_E_DIR_1_U_D2_1_ten_players_seat_0_draws_after_the_last_seat() -> None:
    """U-D2-1 with E-DIR-1 at 10 players: seat 9's Draw Two makes seat 0 draw two (G9, G8) and
    lose the turn; seat 1 plays."""
    game = pos(
        f"hands={TEN.format(first='G1 G2', last='RD2 R1 R2')}; discard=R7; draw=G9 G8 G7; colour=R; "
        "seat=9; dir=+; phase=play"
    )
    play(game, "RD2")
    assert_position(
        game,
        f"hands=G1 G2 G8 G9/{TEN_REST}/R1 R2; discard=R7 RD2; draw=G7; colour=R; seat=1; dir=+; phase=play",
    )


def test_E_DIR_1_U_REV_1_ten_players_reverse_from_seat_0_goes_to_the_last_seat() -> None:
    """U-REV-1 with E-DIR-1 at 10 players: a Reverse by seat 0 turns play counter-clockwise, so
    seat 9 plays next."""
    game = pos(
        f"hands={TEN.format(first='RR G1 G2', last='R5 R1 R2')}; discard=R7; draw=G9; colour=R; "
        "seat=0; dir=+; phase=play"
    )
    play(game, "RR")
    assert_position(
        game,
        f"hands=G1 G2/{TEN_REST}/R1 R2 R5; discard=R7 RR; draw=G9; colour=R; seat=9; dir=-; phase=play",
    )


def test_E_DIR_1_U_WD4_2_ten_players_counter_clockwise_victim_is_the_last_seat() -> None:
    """U-WD4-2 with E-DIR-1 at 10 players, counter-clockwise: seat 0's legal Wild Draw Four
    (no red card) asks seat 9, and only seat 9, to challenge; the failed challenge costs it 6
    cards and the turn, and seat 8 plays in the colour named."""
    game = pos(
        f"hands={TEN.format(first='WD4 G1 G2', last='R5 R1 R2')}; discard=R7; "
        "draw=G9 G8 G7 G6 B9 B0 G3; colour=R; seat=0; dir=-; phase=play"
    )
    play(game, "WD4", "colour G")
    assert game.current_player == 9
    assert game.phase == Phase.CHALLENGE
    assert legal(game) == {"challenge", "accept"}
    play(game, "challenge")
    assert_position(
        game,
        f"hands=G1 G2/{TEN_REST}/R1 R2 R5 G6 G7 G8 G9 B0 B9; discard=R7 WD4; draw=G3; colour=G; seat=8; "
        "dir=-; phase=play",
    )


# ================================================================ U-START-1
START_KINDS = ("S", "R", "D2", "W")


def _start_kind(card: str) -> str:
    return card if card == "W" else card[1:] if card[1:] in ("S", "R", "D2") else "number"


def test_U_START_1_every_starting_card_at_ten_players() -> None:
    """U-START-1 with E-DIR-1 at 10 players (fresh deals, the first seed of each kind): a Skip
    skips the player left of the dealer; a Reverse turns play counter-clockwise with the dealer
    first; a Draw Two gives the player left of the dealer 2 more (9) and skips it; a Wild lets
    that player name the colour, then play; a number card lets it play. Everyone else holds 7,
    and the draw pile holds the rest of the 108 cards."""
    seen: set[str] = set()
    for seed in range(300):
        game = Game("uno", 10, seed=seed)
        kind = _start_kind(str(game.top_card))
        if kind in seen:
            continue
        seen.add(kind)
        dealer = int(game.state[L.S_DEALER])
        first = (dealer + 1) % 10
        sizes = [7] * 10
        if kind == "D2":
            sizes[first] = 9
        assert game.hand_sizes() == sizes, kind
        assert game.draw_pile_size == 108 - sum(sizes) - 1
        expected_seat = {"S": (dealer + 2) % 10, "D2": (dealer + 2) % 10, "R": dealer}.get(kind, first)
        assert game.current_player == expected_seat, kind
        assert game.direction == (-1 if kind == "R" else 1), kind
        assert game.phase == (Phase.CHOOSE_COLOUR if kind == "W" else Phase.PLAY), kind
        if kind == "R":  # the dealer plays first, then the dealer's right
            game.step("draw")
            if game.phase == Phase.PLAY_DRAWN:
                game.step("pass")
            assert game.current_player == (dealer - 1) % 10
        if seen == {*START_KINDS, "number"}:
            return
    pytest.fail(f"no seed below 300 starts 10 players on each kind; seen {sorted(seen)}")


MATCH_PILE = (
    "R1 R2 R3 R4 R6 R8 R9 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 G1 G2 G3 G4 G5 G6 G7 G8 B1 B4 B5 B6 B7 B8 B9 "
    "RS GS RR GR RD2 GD2 W W"
)


def test_U_START_1_U_SCORE_2_the_starting_card_of_a_later_round() -> None:
    """U-START-1 with U-SCORE-2: a match round won below the target deals the next round from
    the new dealer (seat 2 -> seat 0, so seat 1 is first); its starting card takes effect as at
    the start of a game: Skip skips seat 1; Reverse lets the dealer play first counter-clockwise
    (after a direction of play that was counter-clockwise in the round before); Draw Two gives
    seat 1 two more cards and skips it; Wild lets seat 1 name the colour, then play. Scores carry
    and no card is created or lost (E-CONS-1)."""
    seen: set[str] = set()
    for seed in range(200):
        game = pos(
            f"hands=R5/G9 Y1/B2 B3; discard=R7; draw={MATCH_PILE}; colour=R; seat=0; dir=-; phase=play; "
            "scores=10 0 0; dealer=2; round=3",
            seed=seed,
            match="first_to_target",
            target=100,
        )
        universe = all_cards(game)
        play(game, "R5")
        kind = _start_kind(str(game.top_card))
        if kind not in START_KINDS or kind in seen:
            continue
        seen.add(kind)
        assert game.scores() == [10 + 10 + 5, 0, 0]
        assert int(game.state[L.S_DEALER]) == 0
        assert int(game.state[L.S_ROUND]) == 4
        assert all_cards(game) == universe
        assert len(game.discard_pile()) == 1
        assert game.hand_sizes() == [7, 9 if kind == "D2" else 7, 7], kind
        assert game.current_player == {"S": 2, "D2": 2, "R": 0, "W": 1}[kind], kind
        assert game.direction == (-1 if kind == "R" else 1), kind
        assert game.phase == (Phase.CHOOSE_COLOUR if kind == "W" else Phase.PLAY), kind
        if kind == "W":
            assert legal(game) == {"colour R", "colour Y", "colour G", "colour B"}
            play(game, "colour B")
            assert (game.current_player, game.phase, game.active_colour) == (1, Phase.PLAY, 3)
        if seen == set(START_KINDS):
            return
    pytest.fail(f"no seed below 200 starts the next round on each kind; seen {sorted(seen)}")


def test_U_START_1_a_deal_leaving_only_a_wild_draw_four_to_turn_is_dealt_again() -> None:
    """U-START-1 (with MC-START-1's reading for any deck): a Wild Draw Four turned to start is
    returned and another card turned. In the next round of a match from a position of 4 cards
    (R5 G9 R7 WD4) a deal can leave the Wild Draw Four alone in the pile, with no other card to
    turn: such a deal is void and the cards are dealt again, so the round starts on one of the
    other three cards, with its colour, and the Wild Draw Four is in a hand."""
    for seed in range(20):
        game = pos(
            "hands=R5/G9; discard=R7; draw=WD4; colour=R; seat=0; dir=+; phase=play",
            seed=seed,
            match="first_to_target",
            target=100,
        )
        universe = all_cards(game)
        play(game, "R5")
        fields = position_fields(game.position())
        assert all_cards(game) == universe
        assert fields["discard"] in ("R5", "G9", "R7"), game.position()
        assert fields["colour"] == fields["discard"][0]
        assert "WD4" in fields["hands"].split("/")[0].split() + fields["hands"].split("/")[1].split()
        assert (fields["draw"], fields["seat"], fields["phase"]) == ("-", "0", "play")
        assert game.hand_sizes() == [2, 1]
        assert game.pending_penalty == 0


def test_U_START_1_a_game_of_wild_draw_fours_alone_starts_as_a_wild() -> None:
    """U-START-1: when no card of the game may start (a position of four Wild Draw Fours, the next
    round of its match), dealing again cannot help: the Wild Draw Four turned stays without its
    effect and the player left of the dealer names the colour, as on a starting Wild. Play never
    starts without a colour, and nobody draws."""
    game = pos(
        "hands=WD4/WD4; discard=WD4; draw=WD4; colour=R; seat=0; dir=+; phase=play",
        match="first_to_target",
        target=1000,
    )
    play(game, "WD4")  # seat 0 goes out: 150 points (3 x 50, U-SCORE-1), the next round is dealt
    fields = position_fields(game.position())
    assert (fields["hands"], fields["discard"], fields["draw"], fields["colour"]) == (
        "WD4 WD4/WD4",
        "WD4",
        "-",
        "-",
    )
    assert (fields["seat"], fields["phase"], fields.get("after"), fields["scores"]) == (
        "0",
        "colour",
        "start",
        "150 0",
    )
    assert game.pending_penalty == 0
    assert legal(game) == {"colour R", "colour Y", "colour G", "colour B"}
    play(game, "colour Y")
    assert (game.current_player, game.phase, game.active_colour) == (0, Phase.PLAY, 1)
    assert game.hand_sizes() == [2, 1]
    assert legal(game) == {"WD4", "draw", "call"}
    assert Game.from_position("uno", game.position(), match="first_to_target", target=1000)


def test_U_START_2_a_deal_leaving_no_number_card_to_turn_is_dealt_again() -> None:
    """U-START-2 (``start_card="number_only"``): a deal of R5 G9 R7 RS (the next round of a
    match from a position of 4 cards) that leaves only the Skip in the pile is dealt again, so
    the round starts on a number card and the player left of the dealer (seat 0) plays."""
    for seed in range(20):
        game = pos(
            "hands=R5/G9; discard=R7; draw=RS; colour=R; seat=0; dir=+; phase=play",
            seed=seed,
            match="first_to_target",
            target=100,
            start_card="number_only",
        )
        play(game, "R5")
        fields = position_fields(game.position())
        assert fields["discard"] in ("R5", "G9", "R7"), game.position()
        assert (fields["draw"], fields["seat"], fields["dir"], fields["phase"]) == ("-", "0", "+", "play")
        assert game.hand_sizes() == [2, 1]


def test_U_START_2_a_game_without_a_number_card_keeps_the_last_card_turned() -> None:
    """U-START-2 with U-START-1: when no card of the game is a number card (a position of four
    Skips), the last Skip turned stays and takes effect as an official starting card: the player
    left of the dealer (seat 0) is skipped."""
    game = pos(
        "hands=RS/GS; discard=BS; draw=YS; colour=R; seat=0; dir=+; phase=play",
        match="first_to_target",
        target=1000,
        start_card="number_only",
    )
    play(game, "RS")
    fields = position_fields(game.position())
    assert fields["discard"] in ("RS", "GS", "BS", "YS")
    assert fields["colour"] == fields["discard"][0]
    assert (fields["draw"], fields["seat"], fields["dir"], fields["phase"], fields["dealer"]) == (
        "-",
        "1",
        "+",
        "play",
        "1",
    )
    assert game.hand_sizes() == [2, 1]


# ================================================================ penalties and the empty pile
def test_U_WD4_2_U_DRAW_4_a_caught_bluffer_draws_through_a_reshuffle() -> None:
    """U-WD4-2 with U-DRAW-4: the bluffer (holding R2 on red) owes 4 but the pile holds 1 (Y1):
    the discard pile under the Wild Draw Four (B7 R7) is shuffled into a new pile and drawn, 3
    cards in all; red holds again and the challenger takes a normal turn."""
    game = pos(
        "hands=WD4 R2 G1/G3 G4 R3/Y5 Y6 Y7; discard=B7 R7; draw=Y1; colour=R; seat=0; dir=+; phase=play"
    )
    play(game, "WD4", "colour G", "challenge")
    assert_position(
        game,
        "hands=R2 G1 Y1 B7 R7/G3 G4 R3/Y5 Y6 Y7; discard=WD4; draw=-; colour=R; seat=1; dir=+; phase=play",
    )
    assert legal(game) == {"R3", "draw"}


def test_U_WD4_2_U_DRAW_4_accepting_draws_only_what_exists() -> None:
    """U-WD4-2 with U-DRAW-4: accepting a Wild Draw Four with 2 cards in the pile and 1 under the
    Wild Draw Four draws those 3 and still loses the turn; the named colour holds."""
    game = pos(
        "hands=WD4 G1 B5/G3 G4 G5/Y5 Y6 Y7; discard=R7; draw=Y1 Y2; colour=R; seat=0; dir=+; phase=play"
    )
    play(game, "WD4", "colour B", "accept")
    assert_position(
        game,
        "hands=G1 B5/R7 Y1 Y2 G3 G4 G5/Y5 Y6 Y7; discard=WD4; draw=-; colour=B; seat=2; dir=+; phase=play",
    )


def test_U_END_1_U_DRAW_4_U_SCORE_1_last_draw_two_drawn_through_a_reshuffle() -> None:
    """U-END-1 with U-DRAW-4 and U-SCORE-1: going out on a Draw Two with the draw pile empty: the
    cards under it (B1 B2 R7) become the draw pile and the next player draws 2 of them, which
    count in the winner's score; the third stays in the pile."""
    for seed in range(3):
        game = pos(
            "hands=RD2/G5 Y3/B9 Y4; discard=B1 B2 R7; draw=-; colour=R; seat=0; dir=+; phase=play", seed=seed
        )
        universe = all_cards(game)
        play(game, "RD2")
        assert game.is_over()
        drawn = [c for c in hand(game, 1) if c not in ("G5", "Y3")]
        assert len(drawn) == 2
        assert sorted([*drawn, *position_fields(game.position())["draw"].split()]) == ["B1", "B2", "R7"]
        outcome = game.outcome()
        assert outcome is not None
        points = {"B1": 1, "B2": 2, "R7": 7}
        assert outcome.round_points == (0, 5 + 3 + sum(points[c] for c in drawn), 9 + 4)
        assert outcome.scores == (sum(outcome.round_points), 0, 0)
        assert all_cards(game) == universe


def test_U_END_1_two_players_last_wild_draw_four_is_drawn_without_challenge() -> None:
    """U-END-1 with U-WD4-2 at 2 players: going out on a Wild Draw Four ends the round at once:
    no colour is named, no challenge is offered, the other player draws the 4, which count:
    5 + 3 + 1 + 2 + 3 + 4."""
    game = pos("hands=WD4/G5 Y3; discard=R7; draw=B1 B2 B3 B4 B5; colour=R; seat=0; dir=+; phase=play")
    play(game, "WD4")
    assert game.is_over()
    assert legal(game) == set()
    fields = position_fields(game.position())
    assert (fields["hands"], fields["draw"], fields["colour"], fields["phase"]) == (
        "/Y3 G5 B1 B2 B3 B4",
        "B5",
        "R",
        "over",
    )
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.round_points, outcome.scores) == (0, (0, 18), (18, 0))


# ================================================================ the call meets other rules
def test_U_UNO_1_U_WD4_2_a_call_lapses_when_the_caller_is_caught_bluffing() -> None:
    """U-UNO-1 with U-WD4-2: seat 0 calls, lays a Wild Draw Four as its second-to-last card while
    holding R2 (a bluff) and keeps the call while seat 1 decides; the challenge makes it draw 4,
    so its call lapses (five cards), red holds again and seat 1 plays."""
    game = pos(
        "hands=WD4 R2/G3 G4 G5/Y5 Y6 Y7; discard=R7; draw=B1 B2 B3 B4 B5; colour=R; seat=0; dir=+; phase=play"
    )
    play(game, "call", "WD4", "colour B")
    assert_position(
        game,
        "hands=R2/G3 G4 G5/Y5 Y6 Y7; discard=R7 WD4; draw=B1 B2 B3 B4 B5; colour=B; seat=1; dir=+; "
        "phase=challenge; pending=4; from=0; bluff=1; before=R; called=0",
    )
    play(game, "challenge")
    assert_position(
        game,
        "hands=R2 B1 B2 B3 B4/G3 G4 G5/Y5 Y6 Y7; discard=R7 WD4; draw=B5; colour=R; seat=1; dir=+; "
        "phase=play",
    )
    assert game.called() == [False, False, False]


def test_U_UNO_1_U_WD4_2_a_failed_challenge_ends_the_challengers_call() -> None:
    """U-UNO-1 with U-WD4-2: seat 1 has called and holds one card; it challenges a legal Wild
    Draw Four, draws 6 and loses the turn: its call lapses with the cards."""
    game = pos(
        "hands=WD4 G1 B5/G3/Y5 Y6 Y7; discard=R7; draw=G9 Y1 Y2 Y3 B2 B3 B4; colour=R; seat=0; dir=+; "
        "phase=play; called=1"
    )
    play(game, "WD4", "colour B", "challenge")
    assert_position(
        game,
        "hands=G1 B5/G3 G9 Y1 Y2 Y3 B2 B3/Y5 Y6 Y7; discard=R7 WD4; draw=B4; colour=B; seat=2; dir=+; "
        "phase=play",
    )
    assert game.called() == [False, False, False]


def test_U_UNO_1_U_D2_1_two_players_missed_call_then_the_draw_two() -> None:
    """U-UNO-1 with U-D2-1 at 2 players: laying a Draw Two as the second-to-last card without a
    call: the player is caught and draws 2 (G9 Y9), then the other player draws the Draw Two's
    2 (B2 B3) and loses the turn, so the player moves again, holding 3 (no call offered)."""
    game = pos("hands=RD2 R1/G3 G4; discard=R7; draw=G9 Y9 B2 B3; colour=R; seat=0; dir=+; phase=play")
    play(game, "RD2")
    assert_position(
        game, "hands=R1 Y9 G9/G3 G4 B2 B3; discard=R7 RD2; draw=-; colour=R; seat=0; dir=+; phase=play"
    )
    assert legal(game) == {"R1", "draw"}


def test_U_UNO_1_U_DRAW_4_a_call_and_an_empty_draw() -> None:
    """U-UNO-1 with U-DRAW-4: with nothing left to draw, a draw ends the turn with the hand as it
    was. A player who called with two cards and then drew nothing still holds two when the turn
    passes, so the call lapses; a player who called with one card keeps it."""
    game = pos("hands=B9 B8/B3 B4 B5; discard=R7; draw=-; colour=R; seat=0; dir=+; phase=play")
    play(game, "call")
    assert game.called() == [True, False]
    play(game, "draw")
    assert_position(game, "hands=B8 B9/B3 B4 B5; discard=R7; draw=-; colour=R; seat=1; dir=+; phase=play")
    assert game.called() == [False, False]
    game = pos("hands=B9/B3 B4 B5; discard=R7; draw=-; colour=R; seat=0; dir=+; phase=play; called=0")
    play(game, "draw")
    assert_position(
        game, "hands=B9/B3 B4 B5; discard=R7; draw=-; colour=R; seat=1; dir=+; phase=play; called=0"
    )


# ================================================================ U-WD4-1 on a Wild Draw Four
@pytest.mark.parametrize(
    ("held", "bluff"),
    [
        ("B2 G1", True),  # blue, the colour named for the Wild Draw Four below, is held
        ("R2 G1", False),  # red was the colour before the one below: it does not count now
    ],
)
def test_U_WD4_1_on_a_wild_draw_four_legality_follows_the_colour_named(held: str, bluff: bool) -> None:
    """U-WD4-1 / U-WD4-2: a Wild Draw Four laid on a Wild Draw Four named blue is legal only
    without a blue card; the challenge that follows restores blue if it was a bluff."""
    game = pos(
        f"hands=WD4 {held}/G3 G4 G5/Y5 Y6 Y7; discard=R7 WD4; draw=B1 B3 B4 B5 B6 B7 B8; colour=B; "
        "seat=0; dir=+; phase=play"
    )
    play(game, "WD4", "colour R")
    fields = position_fields(game.position())
    assert (fields["phase"], fields["pending"], fields["before"], fields.get("bluff")) == (
        "challenge",
        "4",
        "B",
        "1" if bluff else None,
    )
    play(game, "challenge")
    assert game.active_colour == (3 if bluff else 0)
    assert game.current_player == (1 if bluff else 2)
    assert len(hand(game, 0)) == (6 if bluff else 2)
    assert len(hand(game, 1)) == (3 if bluff else 9)


# ================================================================ E-END-1
def test_E_END_1_the_limit_during_a_wild_draw_four_leaves_the_penalty_undrawn() -> None:
    """E-END-1 with U-WD4-2: the decision limit falls on naming the colour of a Wild Draw Four:
    the game ends truncated there, with no winner and no challenge, and nobody draws the 4."""
    game = pos(
        "hands=WD4 G1 B5/G3 G4 G5/Y5 Y6 Y7; discard=R7; draw=G9 Y1 Y2 Y3 B2 B3 B4; colour=R; seat=0; "
        "dir=+; phase=play; decisions=8",
        max_decisions=10,
    )
    play(game, "WD4", "colour B")
    assert game.is_over()
    assert legal(game) == set()
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.truncated and outcome.winner is None and outcome.reason == "turn_limit"
    assert game.hand_sizes() == [2, 3, 3]
    assert game.draw_pile_size == 7


# ================================================================ a challenge given as a position
CHALLENGE = (
    "hands={sender}/G3 G4 G5/Y5 Y6 Y7; discard=R7 WD4; draw=G9 Y1 Y2 Y3 B2 B3 B4; colour=B; seat=1; "
    "dir=+; phase=challenge; pending=4; from=0; before=R{extra}"
)


@pytest.mark.parametrize(
    ("sender", "extra", "wrong"),
    [
        # a legal Wild Draw Four (no bluff=1) laid on red while holding R2, no card gained since
        ("R2 G1", "", "bluff=0"),
        # the hint says one card came since, but two red cards are held
        ("R2 R3 G1", f"; hint={RED}:1/-/-", "bluff=0"),
        # a bluff whose player holds no red card: it had none when it laid the Wild Draw Four
        ("G1 B5", "; bluff=1", "bluff=1"),
    ],
)
def test_U_WD4_2_a_challenge_position_whose_bluff_contradicts_the_hand_is_refused(
    sender: str, extra: str, wrong: str
) -> None:
    """U-WD4-1 / U-WD4-2: the player of a pending Wild Draw Four has only gained cards since it
    laid it (as many as its hint counts; none without one). ``bluff=0`` says it held no card of
    the colour before (red) then, so it holds at most that many red cards now; ``bluff=1`` says
    it held one, so it still does. A position that says otherwise would play a challenge the
    wrong way (and record a false proof): it is refused, naming the field and the cards."""
    with pytest.raises(PositionError) as info:
        pos(CHALLENGE.format(sender=sender, extra=extra))
    message = str(info.value)
    assert wrong in message and "U-WD4-1" in message and "seat 0" in message


@pytest.mark.parametrize(
    ("sender", "extra", "wrong"),
    [
        # a number that matched (G7 on R7) made it illegal: bluff=0 is refused
        ("G7 B5", "", "bluff=0"),
        # a red Skip did not: bluff=1 is refused
        ("RS W B5", "; bluff=1", "bluff=1"),
    ],
)
def test_U_WD4_2_a_challenge_position_is_judged_by_the_number_card_reading(
    sender: str, extra: str, wrong: str
) -> None:
    """U-WD4-1 option ``wd4_legal_when="no_playable_number_card"`` (the Uno wiki): the bluff
    flag of a challenge position must fit that reading: a number card that matched the pile
    makes the Wild Draw Four a bluff, an action card or a Wild does not. The same hands with
    the flag the other way are accepted."""
    rules = {"wd4_legal_when": "no_playable_number_card"}
    with pytest.raises(PositionError) as info:
        pos(CHALLENGE.format(sender=sender, extra=extra), **rules)
    message = str(info.value)
    assert wrong in message and "U-WD4-1" in message and "seat 0" in message
    other = "; bluff=1" if not extra else ""
    game = pos(CHALLENGE.format(sender=sender, extra=other), **rules)
    play(game, "challenge")
    caught = bool(other)
    assert len(hand(game, 0)) == len(sender.split()) + (4 if caught else 0)
    assert len(hand(game, 1)) == 3 + (0 if caught else 6)


def test_U_WD4_2_a_challenge_position_with_cards_gained_since_plays_as_a_legal_one() -> None:
    """U-WD4-2 with U-UNO-1: seat 0 holds R1 R2 but drew both after laying a legal Wild Draw
    Four (a missed call: the hint counts 2 cards gained since): the position is accepted, the
    challenge fails and costs seat 1 six cards, and the proof keeps the count of 2."""
    game = pos(CHALLENGE.format(sender="R1 R2 B5", extra=f"; hint={RED}:2/-/-"))
    play(game, "challenge")
    assert_position(
        game,
        "hands=R1 R2 B5/G3 G4 G5 G9 Y1 Y2 Y3 B2 B3/Y5 Y6 Y7; discard=R7 WD4; draw=B4; colour=B; seat=2; "
        f"dir=+; phase=play; void={RED}:2/-/-",
    )


def test_U_WD4_2_two_wild_draw_fours_laid_together_leave_a_challenge_that_reads_back() -> None:
    """U-WD4-1 (``wd4_legal_when="no_playable_card"``) with H-MULTI-1: seat 0 lays two Wild Draw
    Fours together on a green Reverse while holding a blue Reverse (a match: a bluff), without
    calling UNO (it draws B1 B2). The position of the challenge, with another Wild Draw Four under
    the top one, is one play leaves, so it reads back; the challenge makes seat 0 draw the 8."""
    rules = {"multi_play": "identical", "wd4_legal_when": "no_playable_card"}
    game = pos(
        "hands=WD4 WD4 BR/G3 G4/Y5 Y6; discard=R7 GR; draw=B1 B2 B3 B4 B5 B6 B7 B8 B9; colour=G; seat=0; "
        "dir=+; phase=play",
        **rules,
    )
    play(game, "WD4", "WD4", "colour Y")
    text = game.position()
    fields = position_fields(text)
    assert (fields["phase"], fields["pending"], fields["bluff"], fields["before"]) == (
        "challenge",
        "8",
        "1",
        "G",
    )
    assert pos(text, **rules).position() == text
    play(game, "challenge")
    assert (len(hand(game, 0)), game.current_player, game.active_colour) == (3 + 8, 1, 2)
