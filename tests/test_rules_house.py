"""Scenario tests of the Uno house rules (``H-*``) and the Super Mario edition (``M-*``).

Each test names the rule it checks (the rule reference ``docs/rules.md``, which also records
the open choices), builds the situation from position notation with rule switches as
overrides (or the ``uno_house`` / ``uno_mario`` presets), applies decisions by notation and
asserts their exact effect: hands, piles, active colour, seat to move, direction, phase,
pending penalty, calls, scores, and the exact legal-action set of every new phase.

Rules covered: H-STACK-1, H-REFLECT-1, H-SEVEN-1, H-ZERO-1 (rotate, swap_optional, swap,
discard_colour, zero_rule_rank=1), H-JUMP-1, H-MULTI-1, H-MULTI-2, H-SEQ-1, H-EIGHT-1,
H-TWO-1, H-NOFINISH-1, H-LASTONE-1, H-ACTION-1, H-REACT-1, H-ZEROSEE-1, H-SCOPE-1,
H-CUBE-1, M-STAR-1, M-CHAL-1, M-SCORE-1, U-DECK-2; and their interactions
(stacking + reflect + Super Star chains, jump-in around a pending penalty, swaps and UNO
calls, going out on a 7 or 0, no-finish with multi-card plays, out-of-turn windows, the
0's discard and the 2's gifts under H-LASTONE-1, stacks larger than the cards left,
two-player cases, answers and a starting wild under H-ACTION-1, the number effects and the 9's
reflex of multi-card plays and runs, and the cube rolled in the middle of a play).

The file also runs uncompiled (``NUMBA_DISABLE_JIT=1``): seed scans stop at their first hit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

import uno_env
from tests.scenarios import all_cards as cards_of
from tests.scenarios import assert_position, discard, draw_pile, hand, position_fields
from uno_env import Game, Phase, PositionError, RuleSet
from uno_env.engine import layout as L
from uno_env.engine.cards import parse_face
from uno_env.engine.rules import HOUSE_STACKING, load_rules


# ================================================================ helpers
def at(text: str, rules: str = "uno", seed: int = 0, **overrides: Any) -> Game:
    """A game of ``rules`` (a preset, with rule overrides) at a position."""
    return Game.from_position(rules, text, seed=seed, **overrides)


def assert_legal(game: Game, *notations: str) -> None:
    """The legal actions are exactly ``notations`` (compared as action ids)."""
    got = sorted(game.legal_actions())
    want = sorted(game.parse_action(t) for t in notations)
    assert got == want, (
        f"legal {[game.describe_action(a) for a in got]}, want {sorted(notations)}; {game.position()}"
    )


def play(game: Game, *actions: str) -> Game:
    """Apply decisions by notation, checking the engine invariants after each."""
    for action in actions:
        game.step(action)
        game.check_invariants()
    return game


def assert_round_trip(game: Game) -> None:
    """``Game.from_position`` reads the position back: same text, same legal actions."""
    copy = Game.from_position(game.rules, game.position())
    assert copy.position() == game.position()
    assert copy.legal_actions() == game.legal_actions()
    assert copy.phase == game.phase and copy.current_player == game.current_player


def first_deal(predicate: Callable[[Game], bool], rules: str = "uno", **overrides: Any) -> Game:
    """The fresh 4-player deal of the first seed whose game satisfies ``predicate``."""
    for seed in range(300):
        game = Game(rules, 4, seed=seed, **overrides)
        if predicate(game):
            return game
    pytest.fail("no seed below 300 deals the wanted situation")


FILL = "draw=Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3"


# ================================================================ H-STACK-1
def test_H_STACK_1_draw_two_on_draw_two_passes_four() -> None:
    """H-STACK-1: the target of a Draw Two answers with a Draw Two; the next player, who
    cannot answer, draws 4 and loses the turn."""
    game = at(
        f"hands=RD2 R5 R6/BD2 G3 G4/B4 B5 Y1/G7 G8 G9; discard=R9; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        stacking=("D2/D2",),
    )
    play(game, "RD2")
    assert game.phase == Phase.ANSWER and game.current_player == 1
    assert game.pending_penalty == 2
    assert_legal(game, "BD2", "accept")
    play(game, "BD2")
    assert_position(
        game,
        "hands=R5 R6/G3 G4/B4 B5 Y1/G7 G8 G9; discard=R9 RD2 BD2; "
        f"{FILL}; colour=B; seat=2; dir=+; phase=answer; pending=4; from=1",
    )
    assert_legal(game, "accept")
    play(game, "accept")
    assert_position(
        game,
        "hands=R5 R6/G3 G4/B4 B5 Y1 Y1 Y2 Y3 Y4/G7 G8 G9; discard=R9 RD2 BD2; "
        "draw=Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=B; seat=3; dir=+; phase=play",
    )


def test_H_STACK_1_accept_draws_at_once_counter_clockwise() -> None:
    """H-STACK-1: accepting draws the pending cards and the turn passes on in the direction."""
    game = at(
        f"hands=RD2 R5 R6/G3 G4 G5/B4 B5 B6/YD2 G8 G9; discard=R9; {FILL}; "
        "colour=R; seat=0; dir=-; phase=play",
        stacking=("D2/D2",),
    )
    play(game, "RD2")
    assert game.current_player == 3 and game.phase == Phase.ANSWER
    assert_legal(game, "YD2", "accept")
    play(game, "accept")
    assert_position(
        game,
        "hands=R5 R6/G3 G4 G5/B4 B5 B6/Y1 Y2 YD2 G8 G9; discard=R9 RD2; "
        "draw=Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=R; seat=2; dir=-; phase=play",
    )


def test_H_STACK_1_without_stacking_the_penalty_is_drawn_at_once() -> None:
    """H-STACK-1 off (official U-D2-1): no answer phase, the Draw Two is drawn at once."""
    game = at(
        f"hands=RD2 R5 R6/BD2 G3 G4/B4 B5 Y1/G7 G8 G9; discard=R9; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play"
    )
    play(game, "RD2")
    assert_position(
        game,
        "hands=R5 R6/Y1 Y2 BD2 G3 G4/B4 B5 Y1/G7 G8 G9; discard=R9 RD2; "
        "draw=Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=R; seat=2; dir=+; phase=play",
    )


def test_H_STACK_1_wild_draw_four_on_draw_two_then_the_latest_victim_challenges() -> None:
    """H-STACK-1 (``uno_house`` table): a Wild Draw Four answers a Draw Two (6 pending); its
    victim may challenge it (U-WD4-2), accept, or stack a Wild Draw Four, but not a Draw Two
    (no ``D2/WD4`` in the table)."""
    game = at(
        f"hands=RD2 R5 R6/WD4 G3 G4/WD4 GD2 B5/G7 G8 G9; discard=R9; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        stacking=HOUSE_STACKING,
    )
    play(game, "RD2")
    assert_legal(game, "WD4", "accept")
    play(game, "WD4")
    assert game.phase == Phase.CHOOSE_COLOUR and game.current_player == 1
    assert_legal(game, "colour R", "colour Y", "colour G", "colour B")
    play(game, "colour G")
    assert_position(
        game,
        "hands=R5 R6/G3 G4/WD4 GD2 B5/G7 G8 G9; discard=R9 RD2 WD4; "
        f"{FILL}; colour=G; seat=2; dir=+; phase=challenge; pending=6; from=1; before=R",
    )
    assert_legal(game, "challenge", "accept", "WD4")
    play(game, "accept")
    assert_position(
        game,
        "hands=R5 R6/G3 G4/Y1 Y2 Y3 Y4 Y5 Y6 WD4 GD2 B5/G7 G8 G9; discard=R9 RD2 WD4; "
        "draw=Y7 Y8 Y9 B1 B2 B3; colour=G; seat=3; dir=+; phase=play",
    )


def test_H_STACK_1_plus_four_only_follows_plus_four_reading() -> None:
    """H-STACK-1, the Uno and Mau-Mau sheet's other reading (no ``WD4/D2``): a Wild Draw Four
    does not answer a Draw Two; with ``D2/D2`` on, the target still answers with a Draw Two."""
    game = at(
        f"hands=RD2 R5 R6/WD4 YD2 G4/B4 B5 B6/G7 G8 G9; discard=R9; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        stacking=("D2/D2", "WD4/WD4"),
    )
    play(game, "RD2")
    assert_legal(game, "YD2", "accept")


def test_H_STACK_1_wild_draw_four_on_wild_draw_four_adds_up() -> None:
    """H-STACK-1: Wild Draw Four on Wild Draw Four: 8 pending on the next player."""
    game = at(
        "hands=G1 G2 G3/WD4 Y3 Y4/B4 B5 B6/G7 G8 G9; discard=R9 WD4; "
        f"{FILL}; colour=R; seat=1; dir=+; phase=challenge; pending=4; from=0; before=B",
        stacking=("WD4/WD4",),
    )
    assert_legal(game, "challenge", "accept", "WD4")
    play(game, "WD4", "colour B")
    assert_position(
        game,
        "hands=G1 G2 G3/Y3 Y4/B4 B5 B6/G7 G8 G9; discard=R9 WD4 WD4; "
        f"{FILL}; colour=B; seat=2; dir=+; phase=challenge; pending=8; from=1; before=R",
    )
    play(game, "accept")
    assert game.hand_sizes() == [3, 2, 11, 3]
    assert game.current_player == 3 and game.phase == Phase.PLAY


def test_H_STACK_1_stacking_gives_up_the_challenge_and_the_bluffer_draws_the_whole_stack() -> None:
    """H-STACK-1 + U-WD4-2: only the victim of the latest Wild Draw Four may challenge; a
    caught bluffer draws the whole stacked penalty, the colour before their Wild Draw Four
    returns and the challenger takes a normal turn."""
    game = at(
        "hands=G1 G2 G3/WD4 R3 R4/B4 B5 B6/G7 G8 G9; discard=R9 WD4; "
        f"{FILL}; colour=R; seat=1; dir=+; phase=challenge; pending=4; from=0; bluff=1; before=G",
        stacking=("WD4/WD4",),
    )
    play(game, "WD4", "colour Y")  # seat 1 holds red cards: a bluff on red
    assert_position(
        game,
        "hands=G1 G2 G3/R3 R4/B4 B5 B6/G7 G8 G9; discard=R9 WD4 WD4; "
        f"{FILL}; colour=Y; seat=2; dir=+; phase=challenge; pending=8; from=1; bluff=1; before=R",
    )
    play(game, "challenge")
    assert_position(
        game,
        "hands=G1 G2 G3/Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 R3 R4/B4 B5 B6/G7 G8 G9; discard=R9 WD4 WD4; "
        "draw=Y9 B1 B2 B3; colour=R; seat=2; dir=+; phase=play",
    )


def test_H_STACK_1_failed_challenge_of_a_stack_draws_the_stack_plus_two() -> None:
    """H-STACK-1 + U-WD4-2: a failed challenge of a stacked Wild Draw Four draws the whole
    stack plus the challenge penalty and loses the turn."""
    game = at(
        "hands=G1 G2 G3/WD4 Y3 Y4/B4 B5 B6/G7 G8 G9; discard=R9 WD4; "
        f"{FILL}; colour=R; seat=1; dir=+; phase=challenge; pending=4; from=0; before=B",
        stacking=("WD4/WD4",),
    )
    play(game, "WD4", "colour Y", "challenge")
    assert_position(
        game,
        "hands=G1 G2 G3/Y3 Y4/Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B4 B5 B6/G7 G8 G9; discard=R9 WD4 WD4; "
        "draw=B2 B3; colour=Y; seat=3; dir=+; phase=play",
    )


def test_H_STACK_1_draw_two_on_wild_draw_four_must_match_the_named_colour() -> None:
    """H-STACK-1 with ``D2/WD4``: a Draw Two of the named colour answers a Wild Draw Four (a
    Draw Two of another colour does not match the pile); the answer raises the penalty's
    rank to Draw Two, which nothing in this table answers, so the next player draws at once."""
    game = at(
        "hands=G1 G2 G3/GD2 BD2 Y4/WD4 B5 B6/G7 G8 G9; discard=R9 WD4; "
        f"{FILL}; colour=G; seat=1; dir=+; phase=challenge; pending=4; from=0; before=R",
        stacking=("WD4/WD4", "D2/WD4"),
    )
    assert_legal(game, "challenge", "accept", "GD2")
    play(game, "GD2")
    assert_position(
        game,
        "hands=G1 G2 G3/BD2 Y4/Y1 Y2 Y3 Y4 Y5 Y6 WD4 B5 B6/G7 G8 G9; discard=R9 WD4 GD2; "
        "draw=Y7 Y8 Y9 B1 B2 B3; colour=G; seat=3; dir=+; phase=play",
    )


def test_H_STACK_1_no_answer_card_in_hand_leaves_only_accept() -> None:
    """H-STACK-1: a target without an answering card is asked, and may only accept (a Draw
    Two of no matching colour or rank is not an answer to a Wild Draw Four without D2/WD4)."""
    game = at(
        "hands=G1 G2 G3/GD2 R3 R4/B4 B5 B6/G7 G8 G9; discard=R9 RD2; "
        f"{FILL}; colour=R; seat=1; dir=+; phase=answer; pending=2; from=0",
        stacking=("WD4/WD4", "WD4/D2"),
    )
    assert_legal(game, "accept")


# ================================================================ H-REFLECT-1
REFLECT_START = (
    f"hands=RD2 R5 R6/RR GR G4/B4 B5 Y1/G7 G8 G9; discard=R9; {FILL}; colour=R; seat=0; dir=+; phase=play"
)


def test_H_REFLECT_1_reverse_sends_the_draw_two_back_and_flips_direction() -> None:
    """H-REFLECT-1: the target of a Draw Two answers with a matching Reverse (a Reverse of
    another colour does not match); the sender must answer or draw, then play passes on in
    the new direction."""
    game = at(REFLECT_START, reverse_reflects=True)
    play(game, "RD2")
    assert game.phase == Phase.ANSWER and game.current_player == 1
    assert_legal(game, "RR", "accept")
    play(game, "RR")
    assert_position(
        game,
        "hands=R5 R6/GR G4/B4 B5 Y1/G7 G8 G9; discard=R9 RD2 RR; "
        f"{FILL}; colour=R; seat=0; dir=-; phase=answer; pending=2; from=1; class=D2",
    )
    assert_legal(game, "accept")
    play(game, "accept")
    assert_position(
        game,
        "hands=Y1 Y2 R5 R6/GR G4/B4 B5 Y1/G7 G8 G9; discard=R9 RD2 RR; "
        "draw=Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=R; seat=3; dir=-; phase=play",
    )


def test_H_REFLECT_1_the_sender_may_reflect_it_back_again() -> None:
    """H-REFLECT-1: a reflected penalty may be reflected again (any Reverse matches a
    Reverse on top); it goes to whoever reflected it, and the direction flips each time."""
    game = at(
        f"hands=RD2 YR R6 R7/RR G3 G4/B4 B5 Y1/G7 G8 G9; discard=R9; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        reverse_reflects=True,
    )
    play(game, "RD2", "RR")
    assert_legal(game, "YR", "accept")
    play(game, "YR")
    assert_position(
        game,
        "hands=R6 R7/G3 G4/B4 B5 Y1/G7 G8 G9; discard=R9 RD2 RR YR; "
        f"{FILL}; colour=Y; seat=1; dir=+; phase=answer; pending=2; from=0; class=D2",
    )
    play(game, "accept")
    assert_position(
        game,
        "hands=R6 R7/Y1 Y2 G3 G4/B4 B5 Y1/G7 G8 G9; discard=R9 RD2 RR YR; "
        "draw=Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=Y; seat=2; dir=+; phase=play",
    )


def test_H_REFLECT_1_two_players_reflect_is_not_a_skip() -> None:
    """H-REFLECT-1 with two players: the reflecting Reverse sends the penalty back (it does
    not act as a Skip, U-REV-1); after the sender draws, the reflector plays."""
    game = at(
        f"hands=RD2 R5 R6/RR G3 G4; discard=R9; {FILL}; colour=R; seat=0; dir=+; phase=play",
        reverse_reflects=True,
    )
    play(game, "RD2", "RR")
    assert game.current_player == 0 and game.phase == Phase.ANSWER and game.pending_penalty == 2
    play(game, "accept")
    assert_position(
        game,
        "hands=Y1 Y2 R5 R6/G3 G4; discard=R9 RD2 RR; draw=Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; "
        "colour=R; seat=1; dir=-; phase=play",
    )


def test_H_REFLECT_1_reflects_a_wild_draw_four_without_a_challenge() -> None:
    """H-REFLECT-1: a Reverse of the named colour reflects a Wild Draw Four; reflecting gives
    up the challenge, and the sender answers or draws the 4 (no challenge for them)."""
    game = at(
        "hands=G1 G2 G3/GR R3 R4/B4 B5 B6/G7 G8 G9; discard=R9 WD4; "
        f"{FILL}; colour=G; seat=1; dir=+; phase=challenge; pending=4; from=0; before=R",
        reverse_reflects=True,
    )
    assert_legal(game, "challenge", "accept", "GR")
    play(game, "GR")
    assert_position(
        game,
        "hands=G1 G2 G3/R3 R4/B4 B5 B6/G7 G8 G9; discard=R9 WD4 GR; "
        f"{FILL}; colour=G; seat=0; dir=-; phase=answer; pending=4; from=1; class=WD4",
    )
    assert_legal(game, "accept")
    play(game, "accept")
    assert_position(
        game,
        "hands=Y1 Y2 Y3 Y4 G1 G2 G3/R3 R4/B4 B5 B6/G7 G8 G9; discard=R9 WD4 GR; "
        "draw=Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=G; seat=3; dir=-; phase=play",
    )


def test_H_REFLECT_1_reflected_penalty_keeps_its_rank_for_stacking() -> None:
    """H-REFLECT-1 + H-STACK-1: a reflected Draw Two keeps its rank: the sender may stack a
    matching Draw Two on the Reverse; the sum goes on in the new direction."""
    game = at(
        f"hands=RD2 RD2 R6 R7/RR G3 G4/B4 B5 B6/G7 G8 G9; discard=R9; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        reverse_reflects=True,
        stacking=("D2/D2",),
    )
    play(game, "RD2", "RR")
    assert_legal(game, "RD2", "accept")
    play(game, "RD2")
    assert_position(
        game,
        "hands=R6 R7/G3 G4/B4 B5 B6/G7 G8 G9; discard=R9 RD2 RR RD2; "
        f"{FILL}; colour=R; seat=3; dir=-; phase=answer; pending=4; from=0",
    )


def test_H_REFLECT_1_off_a_reverse_is_no_answer() -> None:
    """H-REFLECT-1 off: with only D2/D2 stacking, a Reverse does not answer a Draw Two."""
    game = at(REFLECT_START, stacking=("D2/D2",))
    play(game, "RD2")
    assert_legal(game, "accept")


# ================================================================ H-SEVEN-1
def test_H_SEVEN_1_seven_swaps_hands_with_the_chosen_player() -> None:
    """H-SEVEN-1: after a 7 the player picks any other player (relative target) and they
    exchange hands; the next player then plays."""
    game = at(
        f"hands=R7 G1 G2/Y1 Y2 Y3/B1 B2 B3 B4/G4 G5 G6; discard=R5; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        seven_swap=True,
    )
    play(game, "R7")
    assert game.phase == Phase.CHOOSE_TARGET and game.current_player == 0
    assert_legal(game, "target +1", "target +2", "target +3")
    play(game, "target +2")
    assert_position(
        game,
        f"hands=B1 B2 B3 B4/Y1 Y2 Y3/G1 G2/G4 G5 G6; discard=R5 R7; {FILL}; "
        "colour=R; seat=1; dir=+; phase=play; seen=0>2 2>0",
    )


def test_H_SEVEN_1_target_is_relative_to_the_player() -> None:
    """H-SEVEN-1: ``target +3`` from seat 2 of 4 is seat 1; counter-clockwise play goes on."""
    game = at(
        f"hands=G1 G2 G3/Y1 Y2/R7 B2 B3/G4 G5 G6; discard=R5; {FILL}; colour=R; seat=2; dir=-; phase=play",
        seven_swap=True,
    )
    play(game, "R7", "target +3")
    assert_position(
        game,
        f"hands=G1 G2 G3/B2 B3/Y1 Y2/G4 G5 G6; discard=R5 R7; {FILL}; colour=R; seat=1; dir=-; phase=play; "
        "seen=1>2 2>1",
    )


def test_H_SEVEN_1_swap_voids_the_uno_calls_and_nobody_is_punished() -> None:
    """H-SEVEN-1 + U-UNO-1: a call belongs to the player, not the hand: after the swap both
    calls are void and the player now holding one uncalled card is not punished."""
    game = at(
        f"hands=R7 G1 G2/Y1 Y2 Y3/B1/G4 G5 G6; discard=R5; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play; called=2",
        seven_swap=True,
    )
    play(game, "R7", "target +2")
    assert_position(
        game,
        f"hands=B1/Y1 Y2 Y3/G1 G2/G4 G5 G6; discard=R5 R7; {FILL}; colour=R; seat=1; dir=+; phase=play; "
        "seen=0>2 2>0",
    )
    assert game.called() == [False, False, False, False]


def test_H_SEVEN_1_called_player_swapping_away_one_card_loses_the_call() -> None:
    """H-SEVEN-1 + U-UNO-1: a player who called and plays a 7 from two cards keeps the call
    for the play; after swapping, the calls of both players are void, nobody draws."""
    game = at(
        f"hands=R7 G1/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R5; {FILL}; colour=R; seat=0; dir=+; phase=play",
        seven_swap=True,
    )
    assert_legal(game, "R7", "draw", "call")
    play(game, "call", "R7")
    assert game.called() == [True, False, False, False]
    assert_legal(game, "target +1", "target +2", "target +3")
    play(game, "target +1")
    assert_position(
        game,
        f"hands=Y1 Y2 Y3/G1/B1 B2 B3/G4 G5 G6; discard=R5 R7; {FILL}; colour=R; seat=1; dir=+; phase=play; "
        "seen=0>1 1>0",
    )


def test_H_SEVEN_1_missed_call_is_caught_before_the_swap() -> None:
    """H-SEVEN-1 + U-UNO-1: a missed call is caught right after the play (2 cards), before
    the swap; the swap then exchanges the three-card hand."""
    game = at(
        f"hands=R7 G1/Y1 Y2 Y3 Y4/B1 B2 B3/G4 G5 G6; discard=R5; {FILL}; colour=R; seat=0; dir=+; phase=play",
        seven_swap=True,
    )
    play(game, "R7")
    assert game.phase == Phase.CHOOSE_TARGET
    assert hand(game, 0) == ["Y1", "Y2", "G1"]
    play(game, "target +1")
    assert_position(
        game,
        "hands=Y1 Y2 Y3 Y4/G1 Y1 Y2/B1 B2 B3/G4 G5 G6; discard=R5 R7; "
        "draw=Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=R; seat=1; dir=+; phase=play; seen=0>1 1>0",
    )


def test_H_SEVEN_1_each_player_of_a_swap_knows_the_hand_it_passed() -> None:
    """H-SEVEN-1 with the record of H-ZEROSEE-1: the player of the 7 and the chosen player
    each know the hand they passed, now the other's, until it changes; nobody else learns
    anything."""
    game = at(
        f"hands=R7 G1 G2/Y1 Y2 Y3/B1 B2 B3 B4/G4 G5 G6; discard=R5; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        seven_swap=True,
    )
    play(game, "R7", "target +2")
    assert_position(
        game,
        f"hands=B1 B2 B3 B4/Y1 Y2 Y3/G1 G2/G4 G5 G6; discard=R5 R7; {FILL}; "
        "colour=R; seat=1; dir=+; phase=play; seen=0>2 2>0",
    )
    assert [game.hands_seen(s) for s in range(4)] == [[2], [], [0], []]
    play(game, "draw", "draw")  # seat 1 draws Y1, seat 2 (G1 G2, nothing on red) draws Y2
    assert hand(game, 2) == ["Y2", "G1", "G2"]
    assert position_fields(game.position())["seen"] == "2>0"  # seat 0's look is out of date


def test_H_SEVEN_1_a_look_at_a_swapped_hand_follows_the_hand() -> None:
    """H-SEVEN-1 + H-ZEROSEE-1: seat 1 had seen seat 2's hand; after seat 0 swaps with seat 2
    it knows that hand is seat 0's, and knows nothing of seat 2's new one. Seat 3 had seen
    seat 0's hand: it saw the 7 laid from it, so it still knows the rest (G1 G2), and after
    the swap knows it at seat 2."""
    game = at(
        f"hands=R7 G1 G2/Y1 Y2 Y3/B1 B2 B3 B4/G4 G5 G6; discard=R5; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play; seen=1>2 3>0",
        seven_swap=True,
    )
    play(game, "R7")
    assert position_fields(game.position())["seen"] == "1>2 3>0"
    play(game, "target +2")
    assert_position(
        game,
        f"hands=B1 B2 B3 B4/Y1 Y2 Y3/G1 G2/G4 G5 G6; discard=R5 R7; {FILL}; "
        "colour=R; seat=1; dir=+; phase=play; seen=0>2 1>0 2>0 3>2",
    )


def test_H_SEVEN_1_going_out_on_a_seven_swaps_nothing() -> None:
    """Finishing on a 7 (docs/rules.md): the player has gone out before any swap; the round
    is scored on the hands as they are (U-SCORE-1)."""
    game = at(
        f"hands=R7/Y1 Y2 Y3/BS B2/G4 G5 W; discard=R5; {FILL}; colour=R; seat=0; dir=+; phase=play; called=0",
        seven_swap=True,
    )
    play(game, "R7")
    assert game.is_over() and game.phase == Phase.OVER
    assert hand(game, 2) == ["B2", "BS"]
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0
    assert outcome.round_points == (0, 6, 22, 59)
    assert outcome.scores == (87, 0, 0, 0)


# ================================================================ H-ZERO-1
ZERO_START = (
    f"hands=R0 G1 G2/Y1 Y2 Y3/B1 B2 B3 B4/G4 G5 G6 G7 G8; discard=R5; {FILL}; colour=R; seat=0; phase=play"
)


def test_H_ZERO_1_rotate_passes_every_hand_on_clockwise() -> None:
    """H-ZERO-1 ``rotate``: every hand passes to the next player in the direction of play."""
    game = at(ZERO_START + "; dir=+", zero_rule="rotate")
    play(game, "R0")
    assert_position(
        game,
        f"hands=G4 G5 G6 G7 G8/G1 G2/Y1 Y2 Y3/B1 B2 B3 B4; discard=R5 R0; {FILL}; colour=R; seat=1; dir=+; "
        "phase=play; seen=0>1 1>2 2>3 3>0",
    )


def test_H_ZERO_1_rotate_counter_clockwise() -> None:
    """H-ZERO-1 ``rotate`` counter-clockwise: seat 0's hand goes to seat 3, and so on."""
    game = at(ZERO_START + "; dir=-", zero_rule="rotate")
    play(game, "R0")
    assert_position(
        game,
        f"hands=Y1 Y2 Y3/B1 B2 B3 B4/G4 G5 G6 G7 G8/G1 G2; discard=R5 R0; {FILL}; colour=R; seat=3; dir=-; "
        "phase=play; seen=0>3 1>0 2>1 3>2",
    )


def test_H_ZERO_1_rotate_each_player_knows_the_hand_it_passed_on() -> None:
    """H-ZERO-1 ``rotate`` with the record of H-ZEROSEE-1: every player knows the hand it
    passed on, now its neighbour's in the direction of play (counter-clockwise here). Seat 1
    had seen seat 3's hand: it knows it is seat 2's now. Seat 2 had seen seat 3's hand too,
    which is now its own: no look at itself. Seat 3's look at seat 0's hand was out of date
    once seat 0 laid its 0."""
    game = at(ZERO_START + "; dir=-; seen=1>3 2>3 3>0", zero_rule="rotate")
    play(game, "R0")
    assert_position(
        game,
        f"hands=Y1 Y2 Y3/B1 B2 B3 B4/G4 G5 G6 G7 G8/G1 G2; discard=R5 R0; {FILL}; colour=R; seat=3; dir=-; "
        "phase=play; seen=0>3 1>0 1>2 2>1 3>2",
    )
    assert [game.hands_seen(s) for s in range(4)] == [[3], [0, 2], [1], [2]]


def test_H_ZERO_1_rotate_at_two_players_exchanges_the_hands() -> None:
    """H-ZERO-1 ``rotate`` (``uno_house``) at two players: passing every hand on is an
    exchange; the other player, now holding the two cards of the 0's player, plays next
    and may call."""
    game = at(
        f"hands=R0 R5 R6/G3 G4 G5 G6; discard=R9; {FILL}; colour=R; seat=0; dir=+; phase=play", "uno_house"
    )
    play(game, "R0")
    assert_position(
        game,
        f"hands=G3 G4 G5 G6/R5 R6; discard=R9 R0; {FILL}; colour=R; seat=1; dir=+; phase=play; seen=0>1 1>0",
    )
    assert_legal(game, "R5", "R6", "call", "draw")


def test_H_ZERO_1_rotation_voids_every_call() -> None:
    """H-ZERO-1 + U-UNO-1: after a rotation the calls of everyone are void; the player who
    now holds one uncalled card is not punished."""
    game = at(
        f"hands=R0 G1 G2/Y1/B1 B2 B3/G4 G5 G6; discard=R5; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play; called=1",
        zero_rule="rotate",
    )
    play(game, "R0")
    assert_position(
        game,
        f"hands=G4 G5 G6/G1 G2/Y1/B1 B2 B3; discard=R5 R0; {FILL}; colour=R; seat=1; dir=+; phase=play; "
        "seen=0>1 1>2 2>3 3>0",
    )


def test_H_ZERO_1_swap_optional_may_pass() -> None:
    """H-ZERO-1 ``swap_optional``: after a 0 the player swaps with a chosen player or not."""
    game = at(ZERO_START + "; dir=+", zero_rule="swap_optional")
    play(game, "R0")
    assert game.phase == Phase.CHOOSE_TARGET and game.current_player == 0
    assert_legal(game, "target +1", "target +2", "target +3", "pass")
    keep = game.clone()
    play(keep, "pass")
    assert_position(
        keep,
        f"hands=G1 G2/Y1 Y2 Y3/B1 B2 B3 B4/G4 G5 G6 G7 G8; discard=R5 R0; {FILL}; colour=R; seat=1; dir=+; "
        "phase=play",
    )
    play(game, "target +3")
    assert_position(
        game,
        f"hands=G4 G5 G6 G7 G8/Y1 Y2 Y3/B1 B2 B3 B4/G1 G2; discard=R5 R0; {FILL}; colour=R; seat=1; dir=+; "
        "phase=play; seen=0>3 3>0",
    )


def test_H_ZERO_1_swap_must_choose_a_player() -> None:
    """H-ZERO-1 ``swap`` (Uno wiki): the chosen player must swap; there is no pass."""
    game = at(ZERO_START + "; dir=+", zero_rule="swap")
    play(game, "R0")
    assert_legal(game, "target +1", "target +2", "target +3")
    play(game, "target +1")
    assert_position(
        game,
        f"hands=Y1 Y2 Y3/G1 G2/B1 B2 B3 B4/G4 G5 G6 G7 G8; discard=R5 R0; {FILL}; colour=R; seat=1; dir=+; "
        "phase=play; seen=0>1 1>0",
    )


def test_H_ZERO_1_discard_colour_puts_the_colour_under_the_zero() -> None:
    """H-ZERO-1 ``discard_colour`` (Uno wiki, "regra de descarte"): the player also discards every
    card of the 0's colour, under the 0 (their effects do not apply: no skip here)."""
    game = at(
        f"hands=R0 R3 R3 RS G2 Y4/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R5; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        zero_rule="discard_colour",
    )
    play(game, "R0")
    assert_position(
        game,
        "hands=Y4 G2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R5 R3 R3 RS R0; "
        f"{FILL}; colour=R; seat=1; dir=+; phase=play",
    )


def test_H_ZERO_1_discard_colour_emptying_the_hand_goes_out() -> None:
    """H-ZERO-1 ``discard_colour``: emptying the hand by the discard goes out (round won)."""
    game = at(
        f"hands=R0 R3 R4/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R5; {FILL}; colour=R; seat=0; dir=+; phase=play",
        zero_rule="discard_colour",
    )
    play(game, "R0")
    assert game.is_over()
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0
    assert [str(c) for c in game.discard_pile()] == ["R5", "R3", "R4", "R0"]
    assert outcome.scores == (6 + 6 + 15, 0, 0, 0)


@pytest.mark.parametrize("rule", ["rotate", "swap"])
def test_H_ZERO_1_going_out_on_a_zero_rotates_nothing(rule: str) -> None:
    """Finishing on a 0 (docs/rules.md): the player has gone out before any rotation or swap."""
    game = at(
        f"hands=R0/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R5; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play; called=0",
        zero_rule=rule,
    )
    play(game, "R0")
    assert game.is_over() and game.phase == Phase.OVER
    assert [hand(game, s) for s in range(4)] == [
        [],
        ["Y1", "Y2", "Y3"],
        ["B1", "B2", "B3"],
        ["G4", "G5", "G6"],
    ]
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.scores == (27, 0, 0, 0)


def test_H_ZERO_1_rule_of_one_rotates_on_a_one_not_on_a_zero() -> None:
    """H-ZERO-1 ``zero_rule_rank=1`` (Uno wiki, "regra do 1"): the rotation happens on a 1; a 0
    is a plain number card."""
    game = at(
        f"hands=R1 R0 G2/Y1 Y2 Y3/B1 B2 B3 B4/G4 G5 G6 G7 G8; discard=R5; {FILL}; colour=R; seat=0; dir=+; "
        "phase=play",
        zero_rule="rotate",
        zero_rule_rank=1,
    )
    zero = game.clone()
    play(zero, "R0")
    assert_position(
        zero,
        f"hands=R1 G2/Y1 Y2 Y3/B1 B2 B3 B4/G4 G5 G6 G7 G8; discard=R5 R0; {FILL}; colour=R; seat=1; dir=+; "
        "phase=play",
    )
    play(game, "R1")
    assert_position(
        game,
        f"hands=G4 G5 G6 G7 G8/R0 G2/Y1 Y2 Y3/B1 B2 B3 B4; discard=R5 R1; {FILL}; colour=R; seat=1; dir=+; "
        "phase=play; seen=0>1 1>2 2>3 3>0",
    )


def test_H_ZERO_1_rule_of_one_moves_the_discard_to_the_one() -> None:
    """H-ZERO-1 ``zero_rule_rank=1`` with ``discard_colour``: the 1 discards its colour."""
    game = at(
        f"hands=G1 G0 G7 R2 B7/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=G5; {FILL}; "
        "colour=G; seat=0; dir=+; phase=play",
        zero_rule="discard_colour",
        zero_rule_rank=1,
    )
    play(game, "G1")
    assert_position(
        game,
        "hands=R2 B7/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=G5 G0 G7 G1; "
        f"{FILL}; colour=G; seat=1; dir=+; phase=play",
    )


@pytest.mark.parametrize("rule", ["swap_optional", "swap"])
def test_H_ZERO_1_rule_of_one_swap_options(rule: str) -> None:
    """H-ZERO-1 ``zero_rule_rank=1`` with the swap readings: the 1 asks for a target (and
    only ``swap_optional`` may pass); a 0 asks for nothing."""
    game = at(
        f"hands=R1 R0 G2/Y1 Y2 Y3/B1 B2 B3 B4/G4 G5 G6 G7 G8; discard=R5; {FILL}; colour=R; seat=0; dir=+; "
        "phase=play",
        zero_rule=rule,
        zero_rule_rank=1,
    )
    zero = game.clone()
    play(zero, "R0")
    assert zero.phase == Phase.PLAY and zero.current_player == 1
    play(game, "R1")
    targets = ("target +1", "target +2", "target +3")
    assert_legal(game, *targets, *(("pass",) if rule == "swap_optional" else ()))


# ================================================================ H-JUMP-1
JUMP_START = f"hands=R5 G1 G2/Y1 Y2 Y3/R5 B1 B2/R4 G4 G5 G6; discard=R4; {FILL}; colour=R; seat=0; phase=play"


def test_H_JUMP_1_holder_of_the_identical_card_is_asked_and_play_continues_from_them() -> None:
    """H-JUMP-1: after a play, a player holding the identical card is asked out of turn; the
    jumped-in card has no effect and play continues from the jumper (seat 1 is passed over)."""
    game = at(JUMP_START + "; dir=+", jump_in=True)
    play(game, "R5")
    assert game.phase == Phase.JUMP_IN and game.current_player == 2
    assert_legal(game, "R5", "pass")
    play(game, "R5")
    assert_position(
        game,
        f"hands=G1 G2/Y1 Y2 Y3/B1 B2/R4 G4 G5 G6; discard=R4 R5 R5; {FILL}; "
        "colour=R; seat=3; dir=+; phase=play",
    )


def test_H_JUMP_1_passing_the_window_lets_the_next_player_play() -> None:
    """H-JUMP-1: if every asked player passes, the player whose turn it is plays."""
    game = at(JUMP_START + "; dir=+", jump_in=True)
    play(game, "R5", "pass")
    assert_position(
        game,
        f"hands=G1 G2/Y1 Y2 Y3/R5 B1 B2/R4 G4 G5 G6; discard=R4 R5; {FILL}; "
        "colour=R; seat=1; dir=+; phase=play",
    )


def test_H_JUMP_1_no_identical_card_no_window() -> None:
    """H-JUMP-1: a card of the same number but another colour is not identical: no window."""
    game = at(
        f"hands=R5 G1 G2/Y1 Y2 Y3/Y5 B1 B2/G4 G5 G6; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        jump_in=True,
    )
    play(game, "R5")
    assert game.phase == Phase.PLAY and game.current_player == 1


@pytest.mark.parametrize(("direction", "order"), [("+", (2, 4)), ("-", (4, 2))])
def test_H_JUMP_1_windows_ask_holders_in_turn_order(direction: str, order: tuple[int, int]) -> None:
    """H-JUMP-1: several holders of the identical card (two decks) are asked out of turn in
    turn order from the player who laid it; when the first passes the next is asked; when
    all pass, the player whose turn it is plays."""
    game = at(
        f"hands=R5 G1 G2/Y1 Y2 Y3/R5 B1 B2/G4 G5 G6/R5 B4 B5; discard=R4; {FILL}; colour=R; seat=0; "
        f"dir={direction}; phase=play",
        jump_in=True,
        decks=2,
    )
    play(game, "R5")
    assert game.phase == Phase.JUMP_IN and game.current_player == order[0]
    assert_legal(game, "R5", "pass")
    play(game, "pass")
    assert game.phase == Phase.JUMP_IN and game.current_player == order[1]
    assert_legal(game, "R5", "pass")
    play(game, "pass")
    assert game.phase == Phase.PLAY and game.current_player == (1 if direction == "+" else 4)
    assert [len(hand(game, s)) for s in range(5)] == [2, 3, 3, 3, 3]


def test_H_JUMP_1_second_holder_jumps_after_the_first_passes() -> None:
    """H-JUMP-1: the second holder in turn order jumps after the first passed; play
    continues from the jumper, and nobody else holds the card, so no window follows."""
    game = at(
        f"hands=R5 G1 G2/Y1 Y2 Y3/R5 B1 B2/G4 G5 G6/R5 B4 B5; discard=R4; {FILL}; colour=R; seat=0; "
        "dir=+; phase=play",
        jump_in=True,
        decks=2,
    )
    play(game, "R5", "pass", "R5")
    assert_position(
        game,
        f"hands=G1 G2/Y1 Y2 Y3/R5 B1 B2/G4 G5 G6/B4 B5; discard=R4 R5 R5; {FILL}; colour=R; seat=2; dir=+; "
        "phase=jump",
    )
    assert_legal(game, "R5", "pass")
    play(game, "pass")
    assert game.phase == Phase.PLAY and game.current_player == 0


def test_H_JUMP_1_jumped_in_skip_has_no_effect() -> None:
    """H-JUMP-1: a jumped-in action card has no effect: after a Skip and a jumped-in Skip,
    play continues from the jumper (not two players skipped)."""
    game = at(
        f"hands=RS G1 G2/Y1 Y2 Y3/B1 B2 B3/RS G4 G5 G6; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        jump_in=True,
    )
    play(game, "RS")
    assert game.phase == Phase.JUMP_IN and game.current_player == 3
    play(game, "RS")
    assert_position(
        game,
        f"hands=G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4 RS RS; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
    )


def test_H_JUMP_1_jumped_in_reverse_has_no_effect() -> None:
    """H-JUMP-1: a jumped-in Reverse (an action card) does not flip the direction."""
    game = at(
        f"hands=RR G1 G2/Y1 Y2 Y3/RR B1 B2/G4 G5 G6; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        jump_in=True,
    )
    play(game, "RR")
    assert game.direction == -1 and game.current_player == 2 and game.phase == Phase.JUMP_IN
    play(game, "RR")
    assert_position(
        game,
        f"hands=G1 G2/Y1 Y2 Y3/B1 B2/G4 G5 G6; discard=R4 RR RR; {FILL}; colour=R; seat=1; dir=-; phase=play",
    )


def test_H_JUMP_1_H_SEVEN_1_a_jumped_in_seven_swaps_for_the_jumper() -> None:
    """H-JUMP-1 + H-SEVEN-1: only action and wild cards lose their effect when jumped in; a
    7 is a number card, so the jumper swaps hands with a player of its choice, then play
    continues after the jumper."""
    seven = at(
        f"hands=R7 G1 G2/Y1 Y2 Y3/R7 B1 B2/G4 G5 G6; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        jump_in=True,
        seven_swap=True,
    )
    play(seven, "R7", "target +1")
    assert seven.phase == Phase.JUMP_IN and seven.current_player == 2
    play(seven, "R7")
    assert seven.phase == Phase.CHOOSE_TARGET and seven.current_player == 2
    assert_legal(seven, "target +1", "target +2", "target +3")
    play(seven, "target +1")
    assert_position(
        seven,
        f"hands=Y1 Y2 Y3/G1 G2/G4 G5 G6/B1 B2; discard=R4 R7 R7; {FILL}; "
        "colour=R; seat=3; dir=+; phase=play; seen=0>1 1>0 2>3 3>2",
    )


def test_H_JUMP_1_H_ZERO_1_intercepting_a_one_discards_its_colour() -> None:
    """H-JUMP-1 + H-ZERO-1 (``discard_colour`` on the 1, the Uno wiki's rule of the 1): the
    player who intercepts a 1 with the identical 1 discards every card of its colour, under
    the top card ("se cortar(interceptar), com outra carta 1 e descartar todas as cartas da
    cor"); play continues after the jumper."""
    game = at(
        f"hands=R1 G1 G2/Y1 Y2 Y3/R1 R5 RS B2/G4 G5 G6; discard=R4;"
        f" {FILL}; colour=R; seat=0; dir=+; phase=play",
        jump_in=True,
        zero_rule="discard_colour",
        zero_rule_rank=1,
    )
    play(game, "R1")
    assert game.phase == Phase.JUMP_IN and game.current_player == 2
    play(game, "R1")
    assert_position(
        game,
        f"hands=G1 G2/Y1 Y2 Y3/B2/G4 G5 G6; discard=R4 R1 R5 RS R1;"
        f" {FILL}; colour=R; seat=3; dir=+; phase=play",
    )


def test_H_JUMP_1_H_ZERO_1_a_jumped_in_zero_rotates_the_hands_again() -> None:
    """H-JUMP-1 + H-ZERO-1 (``uno_house``, two decks): the 0 rotates the hands; the player who
    then holds the other red 0 jumps in with it, and the hands rotate once more, from the
    jumper in the direction of play; play continues after the jumper. Seat 2 passed R0 B1 B2
    to seat 3 and saw the R0 laid, so it knows B1 B2 where the second rotation takes them."""
    game = at(
        f"hands=R0 G1 G2/Y1 Y2 Y3/R0 B1 B2/G4 G5 G6; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        "uno_house",
        decks=2,
    )
    play(game, "R0")
    assert_position(
        game,
        f"hands=G4 G5 G6/G1 G2/Y1 Y2 Y3/R0 B1 B2; discard=R4 R0; {FILL}; "
        "colour=R; seat=3; dir=+; phase=jump; seen=0>1 1>2 2>3 3>0",
    )
    play(game, "R0")
    assert_position(
        game,
        f"hands=B1 B2/G4 G5 G6/G1 G2/Y1 Y2 Y3; discard=R4 R0 R0; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play; seen=0>1 0>2 1>2 1>3 2>0 2>3 3>0 3>1",
    )


def test_H_JUMP_1_H_TWO_1_the_jumper_of_a_two_gives_two_cards() -> None:
    """H-JUMP-1 + H-TWO-1: a jumped-in 2 is a number card; its jumper gives two cards to a
    player of its choice, then play continues after the jumper."""
    game = at(
        f"hands=R2 G1 G2 G3/Y1 Y2 Y3/R2 B1 B2 B3/G4 G5 G6; discard=R4;"
        f" {FILL}; colour=R; seat=0; dir=+; phase=play",
        jump_in=True,
        two_gives=True,
    )
    play(game, "R2", "target +1", "G1", "G2")
    assert game.phase == Phase.JUMP_IN and game.current_player == 2
    play(game, "R2")
    assert game.phase == Phase.CHOOSE_TARGET and game.current_player == 2
    play(game, "target +2", "B1", "B2")
    assert_position(
        game,
        f"hands=G3 B1 B2/Y1 Y2 Y3 G1 G2/B3/G4 G5 G6; discard=R4 R2 R2;"
        f" {FILL}; colour=R; seat=3; dir=+; phase=play",
    )


def test_H_JUMP_1_a_jumped_in_wild_names_no_colour() -> None:
    """H-JUMP-1: a Wild is identical to a Wild: its holder may jump in, and the jumped-in
    wild card has no effect: no colour is named, the colour named before stands, and play
    continues after the jumper."""
    game = at(
        f"hands=W G1 G2/Y1 Y2 Y3/W B2 B3/G4 G5 G6; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        jump_in=True,
    )
    play(game, "W", "colour B")
    assert game.phase == Phase.JUMP_IN and game.current_player == 2
    assert_legal(game, "W", "pass")
    play(game, "W")
    assert_position(
        game,
        f"hands=G1 G2/Y1 Y2 Y3/B2 B3/G4 G5 G6; discard=R4 W W; {FILL}; colour=B; seat=3; dir=+; phase=play",
    )


def test_H_JUMP_1_a_wild_draw_four_jumped_in_after_the_draw_sends_nothing() -> None:
    """H-JUMP-1 + U-WD4-1: once the victim of a Wild Draw Four drew the four cards, a holder
    of another Wild Draw Four may jump in with it: no penalty, no colour, no challenge; play
    continues after the jumper. The victim's own copy, drawn as the penalty, is no jump-in on
    the card that caused it, but may jump in on the jumper's copy, a card of its own."""
    game = at(
        "hands=G1 G2 G3/Y1 Y2 Y3/B4 B5 B6/WD4 G8 G9; discard=R9 WD4; "
        "draw=WD4 Y4 Y5 Y6 Y7 Y8; colour=G; seat=1; dir=+; phase=challenge; pending=4; from=0; before=R",
        jump_in=True,
    )
    play(game, "accept")
    assert game.phase == Phase.JUMP_IN and game.current_player == 3
    assert_legal(game, "WD4", "pass")
    play(game, "WD4")
    assert game.phase == Phase.JUMP_IN and game.current_player == 1
    assert_legal(game, "WD4", "pass")
    play(game, "pass")
    assert_position(
        game,
        "hands=G1 G2 G3/Y1 Y2 Y3 Y4 Y5 Y6 WD4/B4 B5 B6/G8 G9; discard=R9 WD4 WD4; draw=Y7 Y8; "
        "colour=G; seat=0; dir=+; phase=play",
    )


def test_H_JUMP_1_U_WD4_2_window_after_a_challenge_not_with_the_copies_drawn() -> None:
    """H-JUMP-1 + U-WD4-2: a challenge ends with a penalty drawn, so the holders of another
    Wild Draw Four are asked as after an accepted one; a copy the loser of the challenge drew
    is no jump-in on it. Failed challenge: the window asks after the Wild Draw Four's player,
    and play goes on after the challenger. Caught bluff: the challenger, who then plays, is
    asked too (with a copy held before)."""
    failed = at(
        "hands=G1 G2 G3/Y1 Y2 Y3/B4 B5 B6/WD4 G8 G9; discard=R9 WD4; "
        "draw=WD4 Y4 Y5 Y6 Y7 Y8 Y9; colour=G; seat=1; dir=+; phase=challenge; pending=4; from=0; before=R",
        jump_in=True,
    )
    play(failed, "challenge")
    assert failed.phase == Phase.JUMP_IN and failed.current_player == 3
    assert hand(failed, 1) == ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8", "WD4"]
    play(failed, "pass")
    assert failed.phase == Phase.PLAY and failed.current_player == 2
    caught = at(
        "hands=G1 R2 WD4/WD4 Y2 Y3/B4 B5 B6/G7 G8 G9; discard=R9 WD4; "
        f"{FILL}; colour=G; seat=1; dir=+; phase=challenge; pending=4; from=0; bluff=1; before=R",
        jump_in=True,
    )
    play(caught, "challenge")
    assert caught.phase == Phase.JUMP_IN and caught.current_player == 1
    assert hand(caught, 0) == ["R2", "Y1", "Y2", "Y3", "Y4", "G1", "WD4"]
    play(caught, "pass")
    assert_position(
        caught,
        "hands=Y1 Y2 Y3 Y4 G1 R2 WD4/WD4 Y2 Y3/B4 B5 B6/G7 G8 G9; discard=R9 WD4; "
        "draw=Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=R; seat=1; dir=+; phase=play",
    )


def test_H_JUMP_1_H_NOFINISH_1_no_jump_in_with_a_last_wild() -> None:
    """H-JUMP-1 + H-NOFINISH-1: a last card that is a wild may not be laid, out of turn either."""
    game = at(
        f"hands=W G1 G2/Y1 Y2 Y3/W/G4 G5 G6; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        jump_in=True,
        no_finish_on_action=True,
    )
    play(game, "W", "colour B")
    assert game.phase == Phase.PLAY and game.current_player == 1


def test_H_JUMP_1_no_window_while_a_penalty_is_pending_then_window_after_the_draw() -> None:
    """H-JUMP-1 + H-STACK-1: while the Draw Two is pending only its target decides (no
    jump-in window); after the target drew, the holder of the identical card is asked,
    and the jumped-in Draw Two sends no penalty."""
    game = at(
        f"hands=RD2 G1 G2/Y1 Y2 Y3/RD2 B1 B2/G4 G5 G6; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        "uno_house",
    )
    play(game, "RD2")
    assert game.phase == Phase.ANSWER and game.current_player == 1 and game.pending_penalty == 2
    assert_legal(game, "accept")
    play(game, "accept")
    assert game.phase == Phase.JUMP_IN and game.current_player == 2
    assert game.pending_penalty == 0
    assert_legal(game, "RD2", "pass")
    play(game, "RD2")
    assert_position(
        game,
        "hands=G1 G2/Y1 Y2 Y1 Y2 Y3/B1 B2/G4 G5 G6; discard=R4 RD2 RD2; "
        "draw=Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=R; seat=3; dir=+; phase=play",
    )


def test_H_JUMP_1_window_after_a_penalty_drawn_at_once() -> None:
    """H-JUMP-1 without stacking: the Draw Two is drawn at once, then the window opens."""
    game = at(
        f"hands=RD2 G1 G2/Y1 Y2 Y3/RD2 B1 B2/G4 G5 G6; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        jump_in=True,
    )
    play(game, "RD2")
    assert game.phase == Phase.JUMP_IN and game.current_player == 2
    assert hand(game, 1) == ["Y1", "Y1", "Y2", "Y2", "Y3"]
    play(game, "pass")
    assert game.phase == Phase.PLAY and game.current_player == 2


def test_H_JUMP_1_victim_cannot_jump_with_a_copy_drawn_as_the_penalty() -> None:
    """H-JUMP-1: the target of a penalty cannot jump in with a copy it drew as that penalty."""
    game = at(
        "hands=RD2 G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; draw=Y4 RD2 Y5; colour=R; seat=0; dir=+; "
        "phase=play",
        jump_in=True,
    )
    play(game, "RD2")
    assert_position(
        game,
        "hands=G1 G2/Y1 Y2 Y3 Y4 RD2/B1 B2 B3/G4 G5 G6; discard=R4 RD2; draw=Y5; colour=R; seat=2; dir=+; "
        "phase=play; jumpblock=1:1",
    )
    assert_round_trip(game)


def test_H_JUMP_1_no_jump_with_a_copy_drawn_as_the_reflex_penalty() -> None:
    """H-JUMP-1 with H-REACT-1: "a card drawn as a penalty cannot be used to jump in on the card
    that caused it" holds for the reflex penalty too. Seat 0 lays R9; the slowest hand (seat 2
    with seed 1) draws two, the other R9 among them: seat 2 is not asked to jump in with it,
    and seat 1 plays."""
    game = at(
        "hands=R9 G1 G2/Y1 Y2 Y3/B1 B2 B3; discard=R4; draw=R9 Y4 Y5; colour=R; seat=0; dir=+; phase=play",
        seed=1,
        jump_in=True,
        react_nine=True,
    )
    play(game, "R9")
    assert_position(
        game,
        "hands=G1 G2/Y1 Y2 Y3/B1 B2 B3 R9 Y4; discard=R4 R9; draw=Y5; colour=R; seat=1; dir=+; "
        "phase=play; jumpblock=2:1",
    )
    assert_round_trip(game)


def test_H_JUMP_1_no_jump_with_a_copy_drawn_as_the_previous_players_penalty() -> None:
    """H-JUMP-1 with a "previous player draws" card (``card_effects``, as MM-NINE-1): two decks;
    seat 0 lays R5 and the previous player, seat 2, draws two, an R5 among them. Seat 1, who
    held an R5 before, is asked to jump in and lets it go; seat 2 is not asked."""
    game = at(
        "hands=R5 G1 G2/R5 Y2 Y3/B1 B2 B3; discard=R4; draw=R5 Y4 Y5; colour=R; seat=0; dir=+; phase=play",
        jump_in=True,
        decks=2,
        card_effects=("R5:previous_draws:2",),
    )
    play(game, "R5")
    assert game.phase == Phase.JUMP_IN and game.current_player == 1
    assert_legal(game, "R5", "pass")
    play(game, "pass")
    assert_position(
        game,
        "hands=G1 G2/R5 Y2 Y3/B1 B2 B3 R5 Y4; discard=R4 R5; draw=Y5; colour=R; seat=1; dir=+; "
        "phase=play; jumpblock=2:1",
    )


def test_H_JUMP_1_victim_may_jump_with_a_copy_held_before() -> None:
    """H-JUMP-1: a copy the target held before the penalty may jump in."""
    game = at(
        "hands=RD2 G1 G2/RD2 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; draw=Y4 Y5 Y6; colour=R; seat=0; dir=+; "
        "phase=play",
        jump_in=True,
    )
    play(game, "RD2")
    assert game.phase == Phase.JUMP_IN and game.current_player == 1
    assert_legal(game, "RD2", "pass")
    play(game, "RD2")
    assert_position(
        game,
        "hands=G1 G2/Y2 Y3 Y4 Y5/B1 B2 B3/G4 G5 G6; discard=R4 RD2 RD2; draw=Y6; colour=R; seat=2; dir=+; "
        "phase=play",
    )


def test_H_JUMP_1_jumping_in_with_the_last_card_goes_out() -> None:
    """H-JUMP-1: jumping in with the last card (called) wins the round."""
    game = at(
        f"hands=R5 G1 G2/Y1 Y2 Y3/R5/G4 G5 G6; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play; called=2",
        jump_in=True,
    )
    play(game, "R5")
    assert game.current_player == 2 and game.phase == Phase.JUMP_IN
    play(game, "R5")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 2


def test_H_JUMP_1_jump_in_with_two_cards_may_call_and_a_missed_call_is_caught() -> None:
    """H-JUMP-1 + U-UNO-1: a jumper left with one card must have called; the window offers
    the call."""
    game = at(
        f"hands=R5 G1 G2/Y1 Y2 Y3/R5 B1/G4 G5 G6; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        jump_in=True,
    )
    play(game, "R5")
    assert_legal(game, "R5", "pass", "call")
    missed = game.clone()
    play(missed, "R5")
    assert hand(missed, 2) == ["Y1", "Y2", "B1"]
    play(game, "call", "R5")
    assert hand(game, 2) == ["B1"] and game.called()[2]
    assert game.current_player == 3 and game.phase == Phase.PLAY


# ================================================================ H-MULTI-1
def test_H_MULTI_1_identical_cards_in_one_play() -> None:
    """H-MULTI-1: after a card the player may lay an identical one (not another colour) or
    stop; then the turn passes once."""
    game = at(
        f"hands=R5 R5 Y5 G1/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        multi_play="identical",
    )
    play(game, "R5")
    assert game.phase == Phase.CONTINUE and game.current_player == 0
    assert_legal(game, "R5", "pass")
    play(game, "R5")
    assert_position(
        game,
        f"hands=Y5 G1/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4 R5 R5; {FILL}; "
        "colour=R; seat=1; dir=+; phase=play",
    )


def test_H_MULTI_1_stop_after_one_card() -> None:
    """H-MULTI-1: ``pass`` ends the play after one card."""
    game = at(
        f"hands=R5 R5 Y5 G1/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        multi_play="identical",
    )
    play(game, "R5", "pass")
    assert_position(
        game,
        f"hands=R5 Y5 G1/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4 R5; {FILL}; "
        "colour=R; seat=1; dir=+; phase=play",
    )


def test_H_MULTI_1_two_skips_skip_two_players() -> None:
    """H-MULTI-1: the play takes effect as a whole: two Skips skip two players."""
    game = at(
        f"hands=RS RS G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        multi_play="identical",
    )
    play(game, "RS", "RS")
    assert_position(
        game,
        f"hands=G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4 RS RS; {FILL}; "
        "colour=R; seat=3; dir=+; phase=play",
    )


def test_H_MULTI_1_two_reverses_flip_twice() -> None:
    """H-MULTI-1: each Reverse flips the direction: two leave it unchanged."""
    game = at(
        f"hands=RR RR G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        multi_play="identical",
    )
    play(game, "RR", "RR")
    assert game.direction == 1 and game.current_player == 1


@pytest.mark.parametrize("card", ["RS", "RR"])
def test_H_MULTI_1_U_SKIP_1_U_REV_1_two_skips_or_reverses_at_two_players(card: str) -> None:
    """H-MULTI-1 + U-SKIP-1 / U-REV-1 (a Reverse skips at two players): the first card skips
    the opponent, the second the player who laid them, so the opponent moves next; two
    Reverses leave the direction as it was."""
    game = at(
        f"hands={card} {card} G1 G2/Y1 Y2 Y3; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        multi_play="identical",
    )
    play(game, card, card)
    assert_position(
        game,
        f"hands=G1 G2/Y1 Y2 Y3; discard=R4 {card} {card}; {FILL}; colour=R; seat=1; dir=+; phase=play",
    )


def test_H_MULTI_1_two_draw_twos_add_up() -> None:
    """H-MULTI-1: draw amounts add up: two Draw Twos make the next player draw 4."""
    game = at(
        f"hands=RD2 RD2 G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        multi_play="identical",
    )
    play(game, "RD2", "RD2")
    assert_position(
        game,
        "hands=G1 G2/Y1 Y2 Y3 Y4 Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4 RD2 RD2; "
        "draw=Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=R; seat=2; dir=+; phase=play",
    )


def test_H_MULTI_1_two_wilds_name_one_colour() -> None:
    """H-MULTI-1: a colour is named once, at the end of the play."""
    game = at(
        f"hands=W W G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        multi_play="identical",
    )
    play(game, "W")
    assert_legal(game, "W", "pass")
    play(game, "W")
    assert game.phase == Phase.CHOOSE_COLOUR and game.current_player == 0
    play(game, "colour B")
    assert_position(
        game,
        f"hands=G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4 W W; {FILL}; "
        "colour=B; seat=1; dir=+; phase=play",
    )


def test_H_MULTI_1_H_SEVEN_1_two_sevens_laid_together_make_one_swap() -> None:
    """H-MULTI-1 + H-SEVEN-1: the number effect is the play's, once: two 7s laid together
    ask for one target and swap once; then the next player plays."""
    game = at(
        f"hands=R7 R7 G1 G2/Y1 Y2 Y3/B1 B2 B3 B4/G4 G5 G6; discard=R5; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        multi_play="identical",
        seven_swap=True,
    )
    play(game, "R7", "R7")
    assert game.phase == Phase.CHOOSE_TARGET and game.current_player == 0
    assert_legal(game, "target +1", "target +2", "target +3")
    play(game, "target +2")
    assert_position(
        game,
        f"hands=B1 B2 B3 B4/Y1 Y2 Y3/G1 G2/G4 G5 G6; discard=R5 R7 R7; {FILL}; "
        "colour=R; seat=1; dir=+; phase=play; seen=0>2 2>0",
    )


def test_H_MULTI_1_stacking_with_two_draw_twos() -> None:
    """H-MULTI-1 + H-STACK-1: answering a Draw Two with two Draw Twos passes 6 on."""
    game = at(
        "hands=G1 G2 G3/RD2 YD2 YD2 Y3/B1 B2 B3/G4 G5 G6; discard=R4 RD2; "
        f"{FILL}; colour=R; seat=1; dir=+; phase=answer; pending=2; from=0",
        multi_play="identical",
        stacking=("D2/D2",),
    )
    assert_legal(game, "RD2", "YD2", "accept")
    play(game, "YD2")
    assert_legal(game, "YD2", "pass")
    play(game, "YD2")
    assert_position(
        game,
        "hands=G1 G2 G3/RD2 Y3/B1 B2 B3/G4 G5 G6; discard=R4 RD2 YD2 YD2; "
        f"{FILL}; colour=Y; seat=2; dir=+; phase=answer; pending=6; from=1",
    )


# ================================================================ H-MULTI-2
def test_H_MULTI_2_same_number_any_colour() -> None:
    """H-MULTI-2: several cards of the same number, any colours; the last card's colour
    is the active colour."""
    game = at(
        f"hands=R5 Y5 B5 G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G6 G7; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        multi_play="same_rank",
    )
    play(game, "R5")
    assert_legal(game, "Y5", "B5", "pass")
    play(game, "B5")
    assert_legal(game, "Y5", "pass")
    play(game, "Y5")
    assert_position(
        game,
        f"hands=G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G6 G7; discard=R4 R5 B5 Y5; {FILL}; "
        "colour=Y; seat=1; dir=+; phase=play",
    )


def test_H_MULTI_2_number_cards_only_on_the_uno_deck() -> None:
    """H-MULTI-2: on the Uno deck only number cards combine: a Skip ends the play at once."""
    game = at(
        f"hands=RS YS G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G6 G7; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        multi_play="same_rank",
    )
    play(game, "RS")
    assert game.phase == Phase.PLAY and game.current_player == 2


# ================================================================ H-SEQ-1
def test_H_SEQ_1_run_up_in_one_colour() -> None:
    """H-SEQ-1: a run of same-colour numbers: after R3 both R4 and R2 continue; the second
    card fixes the direction (R4: up, so not R3 again); the turn then passes once."""
    game = at(
        f"hands=R3 R3 R4 R5 R2 G4/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R9; {FILL}; colour=R; seat=0; dir=+; "
        "phase=play",
        runs=True,
    )
    play(game, "R3")
    assert game.phase == Phase.CONTINUE
    assert_legal(game, "R4", "R2", "pass")
    play(game, "R4")
    assert_legal(game, "R5", "pass")
    play(game, "R5")
    assert_position(
        game,
        f"hands=R2 R3 G4/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R9 R3 R4 R5; {FILL}; colour=R; seat=1; dir=+; "
        "phase=play",
    )


def test_H_SEQ_1_run_down() -> None:
    """H-SEQ-1: a descending run; once down, an ascending card is refused."""
    game = at(
        f"hands=R3 R4 R2 R1 G4/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R9; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        runs=True,
    )
    play(game, "R3", "R2")
    assert_legal(game, "R1", "pass")
    play(game, "R1")
    assert_position(
        game,
        f"hands=R4 G4/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R9 R3 R2 R1; {FILL}; "
        "colour=R; seat=1; dir=+; phase=play",
    )


def test_H_SEQ_1_H_EIGHT_1_H_SEVEN_1_only_the_top_cards_number_effect() -> None:
    """H-SEQ-1: a run's number effect is its top card's: 6-7-8 gives the 8's extra turn
    (H-EIGHT-1) and no swap for the 7 laid inside it (H-SEVEN-1); 5-6-7 swaps."""
    game = at(
        f"hands=R6 R7 R8 G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R5; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        runs=True,
        seven_swap=True,
        eight_again=True,
    )
    play(game, "R6", "R7", "R8")
    assert_position(
        game,
        f"hands=G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R5 R6 R7 R8; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
    )
    assert_legal(game, "draw", "call")
    seven = at(
        f"hands=R5 R6 R7 G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        runs=True,
        seven_swap=True,
        eight_again=True,
    )
    play(seven, "R5", "R6", "R7")
    assert seven.phase == Phase.CHOOSE_TARGET and seven.current_player == 0


def test_H_SEQ_1_no_run_of_other_colours_or_actions() -> None:
    """H-SEQ-1: a number of another colour or an action card does not continue a run."""
    game = at(
        f"hands=R8 G9 RS Y7 B8/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R2; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        runs=True,
    )
    play(game, "R8")
    assert game.phase == Phase.PLAY and game.current_player == 1


# ================================================================ H-LASTONE-1
def test_H_LASTONE_1_multi_play_must_leave_one_card() -> None:
    """H-LASTONE-1: a multi-card play may not empty the hand: the last card stays."""
    game = at(
        f"hands=R5 Y5 B5/Y1 Y2 Y3/B1 B2 B3/G4 G6 G7; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        multi_play="same_rank",
        multi_leave_one=True,
    )
    play(game, "R5")
    assert_legal(game, "Y5", "B5", "pass", "call")
    play(game, "call", "Y5")
    assert_position(
        game,
        f"hands=B5/Y1 Y2 Y3/B1 B2 B3/G4 G6 G7; discard=R4 R5 Y5; {FILL}; "
        "colour=Y; seat=1; dir=+; phase=play; "
        "called=0",
    )


def test_H_LASTONE_1_without_the_rule_a_multi_play_may_empty_the_hand() -> None:
    """H-LASTONE-1 off: the same play may lay every card and go out."""
    game = at(
        f"hands=R5 Y5 B5/Y1 Y2 Y3/B1 B2 B3/G4 G6 G7; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        multi_play="same_rank",
    )
    play(game, "R5", "call", "Y5")
    assert_legal(game, "B5", "pass")
    play(game, "B5")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0


def test_H_LASTONE_1_forgetting_the_call_costs_five_with_the_002_options() -> None:
    """H-LASTONE-1 with ``uno_penalty=5``, ``uno_catch=1.0``: passing through UNO without
    the call costs 5 cards."""
    game = at(
        f"hands=R5 Y5 B5 G1/Y1 Y2 Y3/B1 B2 B3/G4 G6 G7; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        multi_play="same_rank",
        multi_leave_one=True,
        uno_penalty=5,
        uno_catch=1.0,
    )
    play(game, "R5", "Y5", "B5")
    assert_position(
        game,
        "hands=Y1 Y2 Y3 Y4 Y5 G1/Y1 Y2 Y3/B1 B2 B3/G4 G6 G7; discard=R4 R5 Y5 B5; "
        "draw=Y6 Y7 Y8 Y9 B1 B2 B3; colour=B; seat=1; dir=+; phase=play",
    )


# ================================================================ H-EIGHT-1
def test_H_EIGHT_1_an_eight_gives_another_turn() -> None:
    """H-EIGHT-1: after an 8 the same player plays again."""
    game = at(
        f"hands=R8 G1 G2 G3/Y1 Y2 Y3/B1 B2 B3/G4 G6 G7; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        eight_again=True,
    )
    play(game, "R8")
    assert_position(
        game,
        f"hands=G1 G2 G3/Y1 Y2 Y3/B1 B2 B3/G4 G6 G7; discard=R4 R8; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
    )
    assert_legal(game, "draw")


def test_H_EIGHT_1_jumping_in_on_an_eight_takes_the_extra_turn() -> None:
    """H-EIGHT-1 + H-JUMP-1: a player who jumps in on the 8 takes the extra turn instead."""
    game = at(
        f"hands=R8 G1 G2/Y1 Y2 Y3/R8 B2 B3/G4 G6 G7; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        eight_again=True,
        jump_in=True,
    )
    play(game, "R8")
    assert game.phase == Phase.JUMP_IN and game.current_player == 2
    play(game, "R8")
    assert_position(
        game,
        f"hands=G1 G2/Y1 Y2 Y3/B2 B3/G4 G6 G7; discard=R4 R8 R8; {FILL}; colour=R; seat=2; dir=+; phase=play",
    )


def test_H_EIGHT_1_going_out_on_an_eight_ends_the_round() -> None:
    """H-EIGHT-1: an 8 as the last card goes out; there is no extra turn."""
    game = at(
        f"hands=R8/Y1 Y2 Y3/B1 B2 B3/G4 G6 G7; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play; called=0",
        eight_again=True,
    )
    play(game, "R8")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0


# ================================================================ H-TWO-1
def test_H_TWO_1_a_two_gives_two_chosen_cards_to_a_chosen_player() -> None:
    """H-TWO-1: after a 2 the player picks a player (target), then each of two cards."""
    game = at(
        f"hands=R2 G4 B6 Y9 W/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        two_gives=True,
    )
    play(game, "R2")
    assert game.phase == Phase.CHOOSE_TARGET and game.current_player == 0
    assert_legal(game, "target +1", "target +2", "target +3")
    play(game, "target +2")
    assert game.phase == Phase.GIVE and game.current_player == 0
    assert_legal(game, "G4", "B6", "Y9", "W")
    play(game, "W")
    assert game.phase == Phase.GIVE
    assert_legal(game, "G4", "B6", "Y9")
    play(game, "G4")
    assert_position(
        game,
        f"hands=Y9 B6/Y1 Y2 Y3/G4 B1 B2 B3 W/G5 G6 G7; discard=R4 R2; {FILL}; "
        "colour=R; seat=1; dir=+; phase=play",
    )


def test_H_TWO_1_H_ZEROSEE_1_only_the_giver_and_the_receiver_keep_knowing_the_hands() -> None:
    """H-TWO-1 + H-ZEROSEE-1: the cards pass face down. Seat 0 knew seat 1's hand and seat 1
    seat 0's; seat 2 knew both. After seat 0 lays the 2 (seen by all: nothing changes) and
    gives two cards to seat 1, each of the two still knows the other's hand (it saw the cards
    go across); seat 2 knows neither."""
    game = at(
        f"hands=R2 G4 B6 Y9/Y1 Y2/B1 B2 B3; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play; "
        "seen=0>1 1>0 2>0 2>1",
        two_gives=True,
    )
    play(game, "R2", "target +1")
    assert position_fields(game.position())["seen"] == "0>1 1>0 2>0 2>1"
    play(game, "G4", "B6")
    assert_position(
        game,
        f"hands=Y9/Y1 Y2 G4 B6/B1 B2 B3; discard=R4 R2; {FILL}; colour=R; seat=1; dir=+; phase=play; "
        "seen=0>1 1>0",
    )
    assert game.hands_seen(0) == [1] and game.hands_seen(1) == [0] and game.hands_seen(2) == []


def test_H_TWO_1_giving_voids_the_receivers_call() -> None:
    """H-TWO-1 + U-UNO-1: the receiver's call is void once it holds more cards."""
    game = at(
        f"hands=R2 G4 B6 Y9/Y1/B1 B2 B3/G5 G6 G7; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play; called=1",
        two_gives=True,
    )
    play(game, "R2", "target +1", "G4", "B6")
    assert_position(
        game,
        f"hands=Y9/Y1 G4 B6/B1 B2 B3/G5 G6 G7; discard=R4 R2; {FILL}; colour=R; seat=1; dir=+; phase=play",
    )


def test_H_TWO_1_giving_away_the_last_card_goes_out() -> None:
    """H-TWO-1: a player with one card after the 2 gives it (all they have) and goes out."""
    game = at(
        f"hands=R2 G4/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        two_gives=True,
    )
    play(game, "call", "R2", "target +3")
    assert_legal(game, "G4")
    play(game, "G4")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0
    assert hand(game, 3) == ["G4", "G5", "G6", "G7"]
    assert outcome.scores == (6 + 6 + 22, 0, 0, 0)


# ================================================================ H-NOFINISH-1
@pytest.mark.parametrize(
    ("last", "legal"),
    [("RS", ("draw",)), ("RD2", ("draw",)), ("W", ("draw",)), ("WD4", ("draw",)), ("R5", ("R5", "draw"))],
)
def test_H_NOFINISH_1_the_last_card_may_not_be_an_action_or_wild(last: str, legal: tuple[str, ...]) -> None:
    """H-NOFINISH-1: a player with one card may lay it only if it is a number card."""
    game = at(
        f"hands={last}/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play; called=0",
        no_finish_on_action=True,
    )
    assert_legal(game, *legal)


def test_H_NOFINISH_1_off_the_last_card_may_be_an_action() -> None:
    """H-NOFINISH-1 off: the last card may be a Skip."""
    game = at(
        f"hands=RS/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play; called=0"
    )
    assert_legal(game, "RS", "draw")


def test_H_NOFINISH_1_multi_play_may_not_end_on_an_action_card() -> None:
    """H-NOFINISH-1 + H-MULTI-1: no card that would empty the hand may be an action or wild
    card, whichever card of the play it is: the second Skip stays in hand."""
    game = at(
        f"hands=RS RS/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        no_finish_on_action=True,
        multi_play="identical",
    )
    assert_legal(game, "RS", "draw", "call")
    play(game, "call", "RS")
    assert_position(
        game,
        f"hands=RS/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4 RS; {FILL}; "
        "colour=R; seat=2; dir=+; phase=play; called=0",
    )


def test_H_NOFINISH_1_multi_play_may_end_on_a_number() -> None:
    """H-NOFINISH-1 + H-MULTI-2: a play emptying the hand on number cards goes out."""
    game = at(
        f"hands=R5 Y5/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        no_finish_on_action=True,
        multi_play="same_rank",
    )
    play(game, "call", "R5")
    assert_legal(game, "Y5", "pass")
    play(game, "Y5")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0


def test_H_NOFINISH_1_a_last_penalty_card_is_no_answer() -> None:
    """H-NOFINISH-1 + H-STACK-1: a last Draw Two cannot be stacked (it would empty the hand)."""
    game = at(
        "hands=G1 G2 G3/RD2/B1 B2 B3/G5 G6 G7; discard=R4 YD2; "
        f"{FILL}; colour=Y; seat=1; dir=+; phase=answer; pending=2; from=0; called=1",
        no_finish_on_action=True,
        stacking=("D2/D2",),
    )
    assert_legal(game, "accept")


def test_H_NOFINISH_1_no_jump_in_with_a_last_action_card() -> None:
    """H-NOFINISH-1 + H-JUMP-1: jumping in with a last Skip would go out on an action card,
    so its holder is not asked."""
    game = at(
        f"hands=RS G1 G2/Y1 Y2 Y3/RS/G5 G6 G7; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play; called=2",
        no_finish_on_action=True,
        jump_in=True,
    )
    play(game, "RS")
    assert game.phase == Phase.PLAY and game.current_player == 2
    assert_legal(game, "draw")


def test_H_NOFINISH_1_H_ZERO_1_a_zero_going_out_through_its_colour_discard() -> None:
    """H-NOFINISH-1 + H-ZERO-1 ``discard_colour``: R0 laid from R0 RS: the Skip leaves with
    the 0's discard, under it, and the player goes out on the 0, a number card."""
    game = at(
        f"hands=R0 RS/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        zero_rule="discard_colour",
        no_finish_on_action=True,
    )
    assert_legal(game, "R0", "RS", "draw", "call")
    play(game, "call", "R0")
    assert_position(
        game,
        f"hands=/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4 RS R0; {FILL}; colour=R; seat=-1; dir=+; "
        "phase=over; scores=27 0 0 0; round=1; status=won; winner=0",
    )


# ================================================================ H-ACTION-1
def test_H_ACTION_1_action_on_action_only_with_the_same_symbol() -> None:
    """H-ACTION-1: on a Skip, another Skip (any colour) and numbers of the colour are
    playable; a Reverse, a Draw Two or a wild (action cards of another symbol) are not."""
    game = at(
        f"hands=RR RD2 YS W WD4 R5 G5/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4 RS; {FILL}; "
        "colour=R; seat=0; dir=+; "
        "phase=play",
        action_same_symbol=True,
    )
    assert_legal(game, "YS", "R5", "draw")
    plain = at(
        f"hands=RR RD2 YS W WD4 R5 G5/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4 RS; {FILL}; "
        "colour=R; seat=0; dir=+; "
        "phase=play",
    )
    assert_legal(plain, "RR", "RD2", "YS", "W", "WD4", "R5", "draw")


def test_H_ACTION_1_on_a_wild_only_a_wild_of_the_same_symbol() -> None:
    """H-ACTION-1: wilds are action cards: on a Wild, a Wild goes, a Wild Draw Four (another
    symbol) and coloured action cards do not; numbers of the named colour do."""
    game = at(
        f"hands=GS W WD4 G5 R5/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4 W; {FILL}; "
        "colour=G; seat=0; dir=+; phase=play",
        action_same_symbol=True,
    )
    assert_legal(game, "W", "G5", "draw")


def test_H_ACTION_1_any_card_on_a_number() -> None:
    """H-ACTION-1: on a number card every matching card goes."""
    game = at(
        f"hands=RS RR W WD4 G5 B8/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R5; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        action_same_symbol=True,
    )
    assert_legal(game, "RS", "RR", "W", "WD4", "G5", "draw")


def test_H_ACTION_1_H_STACK_1_a_wild_draw_four_answers_a_draw_two() -> None:
    """H-ACTION-1 + H-STACK-1: answers to a pending penalty follow the stacking table, not
    H-ACTION-1: a Wild Draw Four (another symbol) answers the Draw Two and the penalty passes
    on as 6; the Skip is no answer."""
    game = at(
        f"hands=G1 G2 G3/WD4 Y3 RS/B1 B2 B3/G4 G5 G6; discard=R4 RD2; {FILL}; "
        "colour=R; seat=1; dir=+; phase=answer; pending=2; from=0",
        stacking=HOUSE_STACKING,
        action_same_symbol=True,
    )
    assert_legal(game, "WD4", "accept")
    play(game, "WD4", "colour G")
    assert_position(
        game,
        f"hands=G1 G2 G3/RS Y3/B1 B2 B3/G4 G5 G6; discard=R4 RD2 WD4; {FILL}; "
        "colour=G; seat=2; dir=+; phase=challenge; pending=6; from=1; bluff=1; before=R",
    )


def test_H_ACTION_1_H_REFLECT_1_a_reverse_sends_a_draw_two_back() -> None:
    """H-ACTION-1 + H-REFLECT-1: a Reverse answers a Draw Two by the reflect rule although it
    is another symbol: the 2 cards go back to the sender and the direction flips."""
    game = at(
        f"hands=G1 G2 G3/RR Y3 RS/B1 B2 B3/G4 G5 G6; discard=R4 RD2; {FILL}; "
        "colour=R; seat=1; dir=+; phase=answer; pending=2; from=0",
        reverse_reflects=True,
        action_same_symbol=True,
    )
    assert_legal(game, "RR", "accept")
    play(game, "RR")
    assert_position(
        game,
        f"hands=G1 G2 G3/RS Y3/B1 B2 B3/G4 G5 G6; discard=R4 RD2 RR; {FILL}; "
        "colour=R; seat=0; dir=-; phase=answer; pending=2; from=1; class=D2",
    )
    assert_legal(game, "accept")


def test_H_ACTION_1_H_SCOPE_1_holds_on_a_starting_wild() -> None:
    """H-ACTION-1 + H-SCOPE-1 + U-START-1: H-SCOPE-1 spares the starting card's own house-rule
    effects, not what may be laid on it: on a starting Wild the first player names green and
    may lay a green number or a Wild, not the green Skip or Reverse nor a Wild Draw Four."""
    text = (
        f"hands=G1 G2 G3/GS G5 W WD4 GR R5/B1 B2 B3/G4 G5 G6; discard=W; {FILL}; colour=-; "
        "seat=1; dir=+; phase=colour; after=start"
    )
    game = at(text, action_same_symbol=True)
    play(game, "colour G")
    assert game.phase == Phase.PLAY and game.current_player == 1
    assert_legal(game, "G5", "W", "draw")
    plain = play(at(text), "colour G")
    assert_legal(plain, "GS", "G5", "W", "WD4", "GR", "draw")


# ================================================================ H-REACT-1
def _react_victims(card: str, **overrides: Any) -> Counter[int]:
    victims: Counter[int] = Counter()
    for seed in range(60):
        game = at(
            f"hands={card} G1 G2/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4; {FILL}; "
            "colour=R; seat=0; dir=+; phase=play",
            seed=seed,
            **overrides,
        )
        before = [hand(game, s) for s in range(4)]
        play(game, card)
        gained = [s for s in range(4) if len(hand(game, s)) != len(before[s]) - (s == 0)]
        assert len(gained) == 1, game.position()
        victim = gained[0]
        penalty = overrides.get("react_penalty", 2)
        want = sorted(before[victim] + FILL.split("=")[1].split()[:penalty], key=parse_face)
        if victim == 0:
            want.remove(card)
        assert hand(game, victim) == want
        assert game.current_player == 1 and game.phase == Phase.PLAY
        victims[victim] += 1
    return victims


@pytest.mark.parametrize(
    ("card", "overrides"),
    [
        ("R9", {"react_nine": True}),
        ("R7", {"react_seven": True}),
        ("R9", {"react_nine": True, "react_penalty": 3}),
    ],
)
def test_H_REACT_1_a_random_player_draws_the_reflex_penalty(card: str, overrides: dict[str, Any]) -> None:
    """H-REACT-1: when a 9 (or 7) is laid, a uniformly random player in play draws
    ``react_penalty`` cards from the top of the pile; over 60 seeds every seat is hit."""
    victims = _react_victims(card, **overrides)
    assert set(victims) == {0, 1, 2, 3}, victims
    assert all(5 <= v <= 30 for v in victims.values()), victims


def test_H_REACT_1_other_numbers_cost_nothing() -> None:
    """H-REACT-1: with the 9 rule on, a 7 or a 5 is a plain card; with the 7 rule, a 9 is."""
    for card, rule in (("R7", "react_nine"), ("R5", "react_nine"), ("R9", "react_seven")):
        overrides: dict[str, Any] = {rule: True}
        game = at(
            f"hands={card} G1 G2/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4; {FILL}; "
            "colour=R; seat=0; dir=+; phase=play",
            **overrides,
        )
        play(game, card)
        assert game.hand_sizes() == [2, 3, 3, 3], (card, rule)


@pytest.mark.parametrize(
    ("cards", "overrides", "drawn"),
    [
        (("R9", "Y9", "B9"), {"multi_play": "same_rank"}, 6),
        (("R9", "R9"), {"multi_play": "identical", "react_penalty": 3}, 6),
        (("R7", "R8", "R9"), {"runs": True}, 2),
        (("R9", "R8"), {"runs": True}, 0),
    ],
)
def test_H_REACT_1_H_MULTI_2_H_SEQ_1_the_nine_penalty_counts_the_nines_laid(
    cards: tuple[str, ...], overrides: dict[str, Any], drawn: int
) -> None:
    """H-REACT-1 with H-MULTI-1/2 and H-SEQ-1: the slowest hand draws ``react_penalty`` for
    each 9 the play laid (the Uno wiki: "as many cards as there are 9s"): three 9s at 2 cost
    6, two at 3 cost 6, a run ending on its one 9 costs 2, a run leaving the 9 under an 8
    nothing. One random player in play draws it all."""
    for seed in range(8):
        game = at(
            f"hands={' '.join(cards)} G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; "
            "colour=R; seat=0; dir=+; phase=play",
            seed=seed,
            react_nine=True,
            **overrides,
        )
        play(game, *cards)
        sizes = game.hand_sizes()
        gained = [size - before for size, before in zip(sizes, [2, 3, 3, 3], strict=True)]
        assert sum(gained) == drawn and sorted(gained)[-1] == drawn, (seed, game.position())
        assert game.current_player == 1 and game.phase == Phase.PLAY
        assert draw_pile(game) == FILL.split("=")[1].split()[drawn:]


# ================================================================ H-ZEROSEE-1
def test_H_ZEROSEE_1_nobody_blocks_the_player_sees_every_hand() -> None:
    """H-ZEROSEE-1: after a 0 with no 0 held elsewhere, the player sees every other hand;
    the knowledge is dropped once a seen hand changes."""
    game = at(
        f"hands=R0 G1 G2/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        zero_reveals=True,
    )
    play(game, "R0")
    assert_position(
        game,
        f"hands=G1 G2/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4 R0; {FILL}; "
        "colour=R; seat=1; dir=+; phase=play; "
        "seen=0>1 0>2 0>3",
    )
    play(game, "draw")  # seat 1 draws Y1 (not playable on red): its hand changed
    assert position_fields(game.position())["seen"] == "0>2 0>3"


def test_H_ZEROSEE_1_a_seen_hand_stays_known_while_its_player_lays_cards() -> None:
    """H-ZEROSEE-1: everyone sees a laid card go, so a hand seen stays known (as it is now)
    when its player lays a card; the card it draws next is unseen, and the knowledge ends."""
    game = at(
        f"hands=R0 G1 G2/R7 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        zero_reveals=True,
    )
    play(game, "R0")
    play(game, "R7")  # seat 1 lays a card in view of everyone
    assert_position(
        game,
        f"hands=G1 G2/Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4 R0 R7; {FILL}; "
        "colour=R; seat=2; dir=+; phase=play; "
        "seen=0>1 0>2 0>3",
    )
    assert game.hands_seen(0) == [1, 2, 3]
    play(game, "draw")  # seat 2 draws Y1 (not playable on red): its turn ends
    assert game.hands_seen(0) == [1, 3]
    play(game, "draw")  # seat 3 draws Y2
    assert position_fields(game.position())["seen"] == "0>1"


def test_H_ZEROSEE_1_holders_of_a_zero_are_asked_in_turn_order_and_may_block() -> None:
    """H-ZEROSEE-1: holders of a 0 are asked in turn order whether to lay it to block the
    look; a block lays the 0 (its colour becomes active) and nobody sees anything."""
    game = at(
        f"hands=R0 G1 G2/Y0 Y2 Y3/B1 B2 B3/G0 G6 G7; discard=R4; {FILL}; colour=R; seat=0; dir=-; phase=play",
        zero_reveals=True,
    )
    play(game, "R0")
    assert game.phase == Phase.BLOCK and game.current_player == 3
    assert_legal(game, "G0", "pass")
    play(game, "pass")
    assert game.phase == Phase.BLOCK and game.current_player == 1
    assert_legal(game, "Y0", "pass")
    play(game, "Y0")
    assert_position(
        game,
        f"hands=G1 G2/Y2 Y3/B1 B2 B3/G0 G6 G7; discard=R4 R0 Y0; {FILL}; colour=Y; seat=3; dir=-; phase=play",
    )


def test_H_ZEROSEE_1_H_JUMP_1_the_blocker_is_not_asked_to_jump_in_on_its_own_zero() -> None:
    """H-ZEROSEE-1 with H-JUMP-1 (two decks): seat 1 blocks the look with one of its two Y0s.
    It laid the top card, so it is not asked to jump in on it with the other (H-JUMP-1: the
    players "other than the one who laid it" are asked); play goes on to seat 1's turn."""
    game = at(
        f"hands=R0 G2 B5/Y0 Y0 Y3/B1 B2 B3; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        zero_reveals=True,
        jump_in=True,
        decks=2,
    )
    play(game, "R0")
    assert game.phase == Phase.BLOCK and game.current_player == 1
    play(game, "Y0")
    assert_position(
        game,
        f"hands=G2 B5/Y0 Y3/B1 B2 B3; discard=R4 R0 Y0; {FILL}; colour=Y; seat=1; dir=+; phase=play",
    )


def test_H_ZEROSEE_1_all_pass_then_the_player_looks() -> None:
    """H-ZEROSEE-1: when every asked player passes, the player sees the other hands."""
    game = at(
        f"hands=R0 G1 G2/Y0 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        zero_reveals=True,
    )
    play(game, "R0")
    assert game.phase == Phase.BLOCK and game.current_player == 1
    play(game, "pass")
    assert_position(
        game,
        f"hands=G1 G2/Y0 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4 R0; {FILL}; "
        "colour=R; seat=1; dir=+; phase=play; "
        "seen=0>1 0>2 0>3",
    )


# ================================================================ H-SCOPE-1
@pytest.mark.parametrize(
    ("rank", "overrides"),
    [
        ("7", {"seven_swap": True}),
        ("0", {"zero_rule": "rotate"}),
        ("0", {"zero_rule": "swap"}),
        ("0", {"zero_reveals": True}),
        ("2", {"two_gives": True}),
        ("8", {"eight_again": True}),
        ("9", {"react_nine": True}),
    ],
)
def test_H_SCOPE_1_house_effects_never_apply_to_the_starting_card(
    rank: str, overrides: dict[str, Any]
) -> None:
    """H-SCOPE-1: a starting 7, 0, 2, 8 or 9 has no house-rule effect: the player left of
    the dealer simply plays, every hand holds its 7 dealt cards, nobody has seen anything."""
    game = first_deal(lambda g: str(g.top_card)[1:] == rank, **overrides)
    dealer = int(game.state[L.S_DEALER])
    assert game.phase == Phase.PLAY and game.current_player == (dealer + 1) % 4
    assert game.hand_sizes() == [7, 7, 7, 7]
    assert "seen" not in position_fields(game.position())


def test_H_SCOPE_1_no_jump_in_on_the_starting_card() -> None:
    """H-SCOPE-1 + H-JUMP-1: the starting card is no play: a player holding its identical
    copy is not asked; the player left of the dealer plays."""

    def holds_the_copy(game: Game) -> bool:
        top = str(game.top_card)
        return top[1:].isdigit() and any(top in hand(game, s) for s in range(4))

    game = first_deal(holds_the_copy, jump_in=True)
    dealer = int(game.state[L.S_DEALER])
    assert game.phase == Phase.PLAY and game.current_player == (dealer + 1) % 4


def test_H_SCOPE_1_starting_draw_two_is_drawn_even_with_stacking() -> None:
    """H-SCOPE-1 + U-START-1: a starting Draw Two applies its printed effect under
    ``uno_house``: the first player draws 2 at once (no answer) and is skipped."""
    game = first_deal(lambda g: str(g.top_card).endswith("D2"), "uno_house")
    dealer = int(game.state[L.S_DEALER])
    first = (dealer + 1) % 4
    sizes = [7, 7, 7, 7]
    sizes[first] = 9
    assert game.hand_sizes() == sizes
    assert game.phase == Phase.PLAY and game.current_player == (dealer + 2) % 4
    assert game.pending_penalty == 0


def test_H_SCOPE_1_players_without_cards_are_not_swapped_with() -> None:
    """H-SCOPE-1 (with MC-END-1 ``end="last_player"``): a player who left holds no cards and
    is neither a 7's target nor part of a rotation."""
    seven = at(
        f"hands=R7 G1 G2/Y1 Y2 Y3/-/G5 G6 G7; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play; "
        "finished=0 0 1 0",
        seven_swap=True,
        end="last_player",
    )
    play(seven, "R7")
    assert_legal(seven, "target +1", "target +3")
    rotate = at(
        f"hands=R0 G1 G2/Y1 Y2 Y3/-/G5 G6 G7 G8; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play; "
        "finished=0 0 1 0",
        zero_rule="rotate",
        end="last_player",
    )
    play(rotate, "R0")
    assert_position(
        rotate,
        f"hands=G5 G6 G7 G8/G1 G2/-/Y1 Y2 Y3; discard=R4 R0; {FILL}; colour=R; seat=1; dir=+; phase=play; "
        "finished=0 0 1 0; seen=0>1 1>3 3>0",
    )


def test_H_SCOPE_1_no_cards_given_to_a_player_who_left() -> None:
    """H-SCOPE-1: a player who left is no target of H-TWO-1."""
    game = at(
        f"hands=R2 G1 G2/-/Y1 Y2 Y3/G5 G6 G7; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play; "
        "finished=0 1 0 0",
        two_gives=True,
        end="last_player",
    )
    play(game, "R2")
    assert_legal(game, "target +2", "target +3")


# ================================================================ H-CUBE-1
CUBE_FILL = "draw=Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3 B4 B5 B6 B7"


def _cube_call(seed: int) -> Game:
    """Seat 0 holds two cards and calls UNO with the cube on (H-CUBE-1), from ``seed``."""
    game = at(
        f"hands=R1 G5/G2 G3 R4/B4 B5 R6; discard=R9; {CUBE_FILL}; colour=R; seat=0; dir=+; phase=play",
        seed=seed,
        cube=True,
    )
    game.step("call")
    return game


def _first_roll(action: int, face: int) -> Game:
    """The first seed whose UNO call rolls ``action`` and ``face``."""
    for seed in range(2000):
        game = _cube_call(seed)
        if (game.state[L.S_CUBE_ACTION], game.state[L.S_CUBE_FACE]) == (action, face):
            return game
    pytest.fail(f"no seed rolls {action}:{face}")


def test_H_CUBE_1_calling_uno_rolls_two_fair_dice() -> None:
    """H-CUBE-1: an UNO call rolls the action and target dice from the game's generator, each
    face about a sixth of the time; off, the call rolls nothing."""
    actions: Counter[int] = Counter()
    faces: Counter[int] = Counter()
    for seed in range(600):
        game = _cube_call(seed)
        actions[int(game.state[L.S_CUBE_ACTION])] += 1
        faces[int(game.state[L.S_CUBE_FACE])] += 1
        game.check_invariants()
    assert set(actions) == set(faces) == set(range(6))
    assert all(60 < c < 140 for c in [*actions.values(), *faces.values()]), (actions, faces)
    plain = at(f"hands=R1 G5/G2 G3 R4/B4 B5 R6; discard=R9; {CUBE_FILL}; colour=R; seat=0; dir=+; phase=play")
    plain.step("call")
    assert plain.phase == Phase.PLAY and plain.hand_sizes() == [2, 3, 3]


def test_H_CUBE_1_blank_face_does_nothing() -> None:
    """H-CUBE-1: a blank action face: the caller simply goes on with the turn."""
    game = _first_roll(4, 1)
    assert (game.phase, game.current_player, game.hand_sizes()) == (Phase.PLAY, 0, [2, 3, 3])
    assert game.called()[0]


def test_H_CUBE_1_draw_two_hits_everyone_else() -> None:
    """H-CUBE-1: +2 for everyone else: both opponents draw 2; the caller plays on."""
    game = _first_roll(L.CUBE_DRAW_TWO, L.CUBE_OTHERS)
    assert (game.phase, game.current_player, game.hand_sizes()) == (Phase.PLAY, 0, [2, 5, 5])
    assert game.called()[0]


def test_H_CUBE_1_draw_four_on_a_chosen_player() -> None:
    """H-CUBE-1: +4 on a chosen player: the roller picks a seat (not itself), who draws 4."""
    game = _first_roll(L.CUBE_DRAW_FOUR, L.CUBE_CHOSEN)
    assert (game.phase, game.current_player) == (Phase.CHOOSE_TARGET, 0)
    assert "cube=1:0" in game.position()
    assert sorted(game.legal_actions()) == sorted(game.parse_action(t) for t in ("target +1", "target +2"))
    assert_round_trip(game)
    game.step("target +2")
    assert (game.phase, game.current_player, game.hand_sizes()) == (Phase.PLAY, 0, [2, 3, 7])


def test_H_CUBE_1_skip_on_yourself_costs_your_next_turn() -> None:
    """H-CUBE-1: skip, only you: the roller sits out its next turn (MC-FOUR-1 counter)."""
    game = _first_roll(L.CUBE_SKIP, L.CUBE_YOU)
    assert (game.phase, game.current_player) == (Phase.PLAY, 0)
    assert position_fields(game.position())["sitout"] == "1 0 0"


def test_H_CUBE_1_choose_colour_faces_set_the_colour_in_play() -> None:
    """H-CUBE-1: +2 for everyone with "choose the colour": the roller names a colour, everyone
    (the roller too) draws 2, and play goes on in the named colour."""
    game = _first_roll(L.CUBE_DRAW_TWO, L.CUBE_ALL_COLOUR)
    assert (game.phase, game.current_player) == (Phase.CHOOSE_COLOUR, 0)
    assert_round_trip(game)
    game.step("colour B")
    assert (game.phase, game.current_player, game.hand_sizes()) == (Phase.PLAY, 0, [4, 5, 5])
    assert game.active_colour == 3


def test_H_CUBE_1_discard_a_colour_keeps_one_card() -> None:
    """H-CUBE-1: discard, chosen player + colour: the roller picks a seat and a colour; that
    player discards every card of it under the top card, but never the last card."""
    game = _first_roll(L.CUBE_DISCARD, L.CUBE_CHOSEN_COLOUR)
    game.step("target +1")
    assert game.phase == Phase.CHOOSE_COLOUR
    game.step("colour G")
    assert hand(game, 1) == ["R4"]
    assert discard(game) == ["G2", "G3", "R9"] and game.active_colour == 2
    game = _first_roll(L.CUBE_DISCARD, L.CUBE_OTHERS)
    game.step("colour B")
    assert hand(game, 2) == ["R6"] and hand(game, 1) == ["R4", "G2", "G3"]


def test_H_CUBE_1_discard_on_yourself_at_uno_draws_two() -> None:
    """H-CUBE-1: "nobody goes out with the discard face": a roller at UNO who hits only
    itself with it draws 2 instead."""
    game = _first_roll(L.CUBE_DISCARD, L.CUBE_YOU)
    game.step("colour R")
    assert (game.phase, game.current_player, game.hand_sizes()) == (Phase.PLAY, 0, [4, 3, 3])
    assert not game.called()[0]


def test_H_CUBE_1_discard_for_everyone_at_uno_discards_the_rollers_colour_too() -> None:
    """H-CUBE-1: the +2 instead of the discard face is for a roller at UNO who hits only
    itself (the source: "conseguiu só para ele"); with "everyone + choose colour" the roller
    discards its cards of the colour like everyone else, keeping one card, and its call stands."""
    game = _first_roll(L.CUBE_DISCARD, L.CUBE_ALL_COLOUR)
    game.step("colour R")
    assert_position(
        game,
        f"hands=G5/G2 G3/B4 B5; discard=R1 R4 R6 R9; {CUBE_FILL}; "
        "colour=R; seat=0; dir=+; phase=play; called=0",
    )
    assert game.called()[0]


def test_H_CUBE_1_ten_cards_roll_once_at_the_start_of_the_turn() -> None:
    """H-CUBE-1: a player starting a turn with 10 cards rolls, once until the hand drops
    below 10 again."""
    ten = "R2 R3 R4 R5 R6 R7 R8 Y5 Y6 Y7"
    rolled = 0
    for seed in range(40):
        game = at(
            f"hands=R1 G5/{ten}/B4 B5 B6; discard=R9; {CUBE_FILL}; colour=R; seat=0; dir=+; phase=play",
            seed=seed,
            cube=True,
        )
        game.step("R1")
        assert position_fields(game.position())["cuberolled"] == "0 1 0"
        rolled += int(game.state[L.S_CUBE_ROLLER] == 1)
    assert rolled == 40
    again = at(
        f"hands=R1 G5/{ten}/B4 B5 B6; discard=R9; {CUBE_FILL}; colour=R; seat=0; dir=+; phase=play; "
        "cuberolled=0 1 0",
        cube=True,
    )
    again.step("R1")
    assert (again.phase, again.current_player, again.state[L.S_CUBE_ROLLER]) == (Phase.PLAY, 1, 0)


def test_H_CUBE_1_a_successful_challenger_with_ten_cards_rolls_at_the_start_of_its_turn() -> None:
    """H-CUBE-1 with U-WD4-2: the turn a successful challenger takes begins like any other, so
    a challenger holding 10 cards rolls at its start (as it would after accepting, at its
    next turn)."""
    ten = "R2 R3 R4 R5 R6 R7 R8 Y5 Y6 Y7"
    for seed in range(10):
        game = at(
            f"hands=WD4 R1 G5/{ten}/B4 B5 B6; discard=R9; {CUBE_FILL}; colour=R; seat=0; dir=+; phase=play",
            seed=seed,
            cube=True,
        )
        game.step("WD4")
        game.step("colour B")
        assert game.phase == Phase.CHALLENGE and game.current_player == 1
        game.step("challenge")
        assert hand(game, 0) == ["R1", "Y1", "Y2", "Y3", "Y4", "G5"]
        assert position_fields(game.position())["cuberolled"] == "0 1 0"
        assert game.state[L.S_CUBE_ROLLER] == 1
        game.check_invariants()


def test_H_CUBE_1_U_START_1_ten_cards_dealt_roll_at_the_first_turn() -> None:
    """H-CUBE-1 with ``hand_size=10``: the first turn of a round begins like any other, so its
    player, dealt 10 cards, rolls at its start: the first player, the dealer after a starting
    Reverse, the player after a skipped one (U-START-1), and the first player once it has named
    the colour of a starting Wild."""
    starts: set[str] = set()
    for seed in range(400):
        game = Game("uno", 3, seed=seed, cube=True, hand_size=10)
        top = str(game.top_card)
        if top == "W":  # the first player names the colour, then its turn begins
            assert game.phase == Phase.CHOOSE_COLOUR and "cuberolled" not in game.position()
            game.step("colour R")
        first = game.current_player  # the turn's player, or the roller asked for a choice: the same
        rolled = position_fields(game.position()).get("cuberolled", "0 0 0").split()
        assert rolled == ["1" if seat == first else "0" for seat in range(3)], (seed, game.position())
        assert game.state[L.S_CUBE_ROLLER] == first and game.hand_sizes()[first] >= 10
        starts.add(top if top == "W" else top[1:] if not top[1:].isdigit() else "number")
        if len(starts) == 5:
            break
    assert starts == {"number", "S", "R", "D2", "W"}


def test_H_CUBE_1_U_SCORE_2_a_roll_at_ten_cards_is_not_carried_into_the_next_round() -> None:
    """H-CUBE-1 in a match (U-SCORE-2, ``hand_size=10``): seat 1 has rolled at 10 cards when
    seat 0 goes out. The next round deals new hands, so seat 1, first to play and dealt 10
    cards, rolls at the start of that turn, as a player who never rolled would."""
    ten = "R2 R3 R4 R5 R6 R7 R8 Y5 Y6 Y7"
    game = at(
        f"hands=R1/{ten}; discard=R9; draw=Y1 Y2 Y3 Y4 Y8 Y9 B1 B2 B3 B4 B5 B6 B7 B8 B9 G1 G2 G3 G4 G5; "
        "colour=R; seat=0; dir=+; phase=play; cuberolled=0 1; scores=0 0; dealer=1",
        cube=True,
        hand_size=10,
        match="first_to_target",
    )
    play(game, "R1")
    fields = position_fields(game.position())
    assert (fields["round"], fields["scores"], game.current_player) == ("1", "53 0", 1)
    assert game.hand_sizes() == [10, 10] and fields["cuberolled"] == "0 1"
    assert game.state[L.S_CUBE_ROLLER] == 1


def _cube_call_mid_play(seed: int) -> Game:
    """Seat 0 lays R5 of R5 R5 G5 (H-MULTI-1) and, with two cards left, calls UNO before
    deciding whether to lay the second R5, with the cube on (H-CUBE-1), from ``seed``."""
    game = at(
        f"hands=R5 R5 G5/G2 G3 R4/B4 B5 R6; discard=R9; {CUBE_FILL}; colour=R; seat=0; dir=+; phase=play",
        seed=seed,
        multi_play="identical",
        cube=True,
    )
    play(game, "R5")
    assert_legal(game, "R5", "pass", "call")
    game.step("call")
    return game


def _first_mid_play_roll(action: int, face: int) -> Game:
    """The first seed whose mid-play UNO call rolls ``action`` and ``face``."""
    for seed in range(2000):
        game = _cube_call_mid_play(seed)
        if (game.state[L.S_CUBE_ACTION], game.state[L.S_CUBE_FACE]) == (action, face):
            return game
    pytest.fail(f"no seed rolls {action}:{face}")


def test_H_CUBE_1_H_MULTI_1_an_uno_call_in_the_middle_of_a_play_rolls_then_the_play_resumes() -> None:
    """H-CUBE-1 + H-MULTI-1: calling UNO in the middle of one's own multi-card play rolls the
    cube too. Discard, chosen player + colour: the roller picks seat 1 and red, seat 1's R4
    goes under the cards of the play, and the play resumes: lay the second R5 or stop. Each
    choice of the roll prints a position that reads back (``cubereturn=continue``)."""
    game = _first_mid_play_roll(L.CUBE_DISCARD, L.CUBE_CHOSEN_COLOUR)
    assert (game.phase, game.current_player) == (Phase.CHOOSE_TARGET, 0)
    fields = position_fields(game.position())
    assert (fields["cube"], fields["cubeuno"], fields["cubereturn"]) == ("3:5", "1", "continue")
    assert_legal(game, "target +1", "target +2")
    assert_round_trip(game)
    play(game, "target +1")
    assert game.phase == Phase.CHOOSE_COLOUR and position_fields(game.position())["cubechosen"] == "1"
    assert_round_trip(game)
    play(game, "colour R")
    assert_position(
        game,
        f"hands=R5 G5/G2 G3/B4 B5 R6; discard=R9 R4 R5; {CUBE_FILL}; colour=R; seat=0; dir=+; "
        "phase=continue; called=0",
    )
    assert_legal(game, "R5", "pass")
    play(game, "R5")
    assert_position(
        game,
        f"hands=G5/G2 G3/B4 B5 R6; discard=R9 R4 R5 R5; {CUBE_FILL}; colour=R; seat=1; dir=+; "
        "phase=play; called=0",
    )


def test_H_CUBE_1_H_MULTI_1_a_roll_without_a_choice_mid_play_returns_to_the_play_at_once() -> None:
    """H-CUBE-1 + H-MULTI-1: +2 for everyone else, rolled by a call in the middle of a play:
    both opponents draw 2 and the roller, its call standing, decides on the next card."""
    game = _first_mid_play_roll(L.CUBE_DRAW_TWO, L.CUBE_OTHERS)
    assert_position(
        game,
        "hands=R5 G5/G2 G3 R4 Y1 Y2/B4 B5 R6 Y3 Y4; discard=R9 R5; "
        "draw=Y5 Y6 Y7 Y8 Y9 B1 B2 B3 B4 B5 B6 B7; colour=R; seat=0; dir=+; phase=continue; called=0",
    )
    assert_legal(game, "R5", "pass")


def test_H_CUBE_1_H_SEQ_1_a_discard_rolled_mid_run_goes_under_the_run() -> None:
    """H-CUBE-1 + H-SEQ-1: a call after R3 R4 of a run rolls discard, everyone else: the roller
    names red, the opponents' red cards go under the run's cards (which stay together on
    top), and the run goes on with R5."""
    for seed in range(2000):
        game = at(
            f"hands=R3 R4 R5 G5/G2 G3 R6/B4 B5 R7; discard=R2; {CUBE_FILL}; colour=R; seat=0; dir=+; "
            "phase=play",
            seed=seed,
            runs=True,
            cube=True,
        )
        play(game, "R3", "R4", "call")
        if (game.state[L.S_CUBE_ACTION], game.state[L.S_CUBE_FACE]) == (L.CUBE_DISCARD, L.CUBE_OTHERS):
            break
    else:
        pytest.fail("no seed rolls discard, everyone else")
    assert_round_trip(game)
    play(game, "colour R")
    assert_position(
        game,
        f"hands=R5 G5/G2 G3/B4 B5; discard=R2 R6 R7 R3 R4; {CUBE_FILL}; colour=R; seat=0; dir=+; "
        "phase=continue; called=0",
    )
    assert_legal(game, "R5", "pass")
    play(game, "R5")
    assert discard(game) == ["R2", "R6", "R7", "R3", "R4", "R5"] and game.current_player == 1


def test_H_CUBE_1_H_STACK_1_a_roll_in_the_middle_of_an_answer_keeps_the_penalty() -> None:
    """H-CUBE-1 + H-STACK-1 + H-MULTI-1: seat 1 answers a Draw Two with YD2, calls UNO with
    YD2 G3 left and rolls; the pending penalty and the play answering it (``kind=1``,
    ``carry=2``) print with the roll and read back; after the roll the second YD2 sends 6 on."""
    for seed in range(2000):
        game = at(
            f"hands=G1 G2 G3/YD2 YD2 G3/B1 B2 B3/G4 G5 G6; discard=R4 RD2; {CUBE_FILL}; colour=R; "
            "seat=1; dir=+; phase=answer; pending=2; from=0",
            seed=seed,
            multi_play="identical",
            stacking=("D2/D2",),
            cube=True,
        )
        play(game, "YD2", "call")
        if game.phase == Phase.CHOOSE_TARGET:
            break
    else:
        pytest.fail("no seed rolls a chosen player")
    fields = position_fields(game.position())
    play_fields = (fields["pending"], fields["kind"], fields["carry"], fields["cubereturn"])
    assert play_fields == ("2", "1", "2", "continue")
    assert_round_trip(game)
    while game.phase != Phase.CONTINUE:
        play(game, game.describe_action(game.legal_actions()[0]))
    assert game.current_player == 1 and game.pending_penalty == 2
    play(game, "YD2")
    assert game.phase == Phase.ANSWER and game.current_player == 2 and game.pending_penalty == 6


@pytest.mark.parametrize("overrides", [{}, {"multi_play": "identical", "runs": True}])
def test_H_CUBE_1_random_games_keep_the_invariants(overrides: dict[str, Any]) -> None:
    """H-CUBE-1 with stacking and Seven-O (and multi-card plays, where a call in the middle of
    a play rolls): random and scripted games keep every invariant."""
    for policy in ("random", "greedy"):
        result = uno_env.simulate(
            "uno_house", 4, 60, seed=3, policies=policy, check_invariants=True, cube=True, **overrides
        )
        assert (result.winner >= 0).sum() + result.truncated.sum() == 60


# ================================================================ M-STAR-1
def test_M_STAR_1_super_star_sends_a_draw_two_back() -> None:
    """M-STAR-1: a Super Star played on a pending Draw Two sends it back to the player who
    played the draw card; the star's player names the colour."""
    game = at(
        f"hands=RD2 R5 R6/SS G3 G4/B4 B5 B6/G7 G8 G9; discard=R9; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        "uno_mario",
    )
    play(game, "RD2")
    assert game.phase == Phase.ANSWER and game.current_player == 1
    assert_legal(game, "SS", "accept")
    play(game, "SS")
    assert game.phase == Phase.CHOOSE_COLOUR and game.current_player == 1
    play(game, "colour B")
    assert_position(
        game,
        "hands=R5 R6/G3 G4/B4 B5 B6/G7 G8 G9; discard=R9 RD2 SS; "
        f"{FILL}; colour=B; seat=0; dir=+; phase=answer; pending=2; from=1; class=D2",
    )
    assert_legal(game, "accept")
    play(game, "accept")
    assert_position(
        game,
        "hands=Y1 Y2 R5 R6/G3 G4/B4 B5 B6/G7 G8 G9; discard=R9 RD2 SS; "
        "draw=Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=B; seat=1; dir=+; phase=play",
    )


def test_M_STAR_1_super_star_answers_a_wild_draw_four_instead_of_a_challenge() -> None:
    """M-STAR-1: the victim of a Wild Draw Four may challenge, accept or play a Super Star;
    the star gives up the challenge and the sender (who may star it back) draws 4."""
    game = at(
        "hands=SS G2 G3/SS R3 R4/B4 B5 B6/G7 G8 G9; discard=R9 WD4; "
        f"{FILL}; colour=G; seat=1; dir=+; phase=challenge; pending=4; from=0; before=R",
        "uno_mario",
    )
    assert_legal(game, "challenge", "accept", "SS")
    play(game, "SS", "colour R")
    assert_position(
        game,
        "hands=SS G2 G3/R3 R4/B4 B5 B6/G7 G8 G9; discard=R9 WD4 SS; "
        f"{FILL}; colour=R; seat=0; dir=+; phase=answer; pending=4; from=1; class=WD4",
    )
    assert_legal(game, "SS", "accept")
    play(game, "SS", "colour Y")
    assert_position(
        game,
        "hands=G2 G3/R3 R4/B4 B5 B6/G7 G8 G9; discard=R9 WD4 SS SS; "
        f"{FILL}; colour=Y; seat=1; dir=+; phase=answer; pending=4; from=0; class=WD4",
    )
    play(game, "accept")
    assert hand(game, 1) == ["R3", "R4", "Y1", "Y2", "Y3", "Y4"]
    assert game.current_player == 2 and game.phase == Phase.PLAY


def test_M_STAR_1_super_star_is_a_wild_without_a_penalty() -> None:
    """M-STAR-1: with nothing pending a Super Star plays as a wild: name a colour, next plays."""
    game = at(
        f"hands=SS G2 G3/R3 R4 R5/B4 B5 B6/G7 G8 G9; discard=R9; {FILL}; colour=B; seat=0; dir=+; phase=play",
        "uno_mario",
    )
    assert_legal(game, "SS", "draw")
    play(game, "SS", "colour R")
    assert_position(
        game,
        f"hands=G2 G3/R3 R4 R5/B4 B5 B6/G7 G8 G9; discard=R9 SS; {FILL}; colour=R; seat=1; dir=+; phase=play",
    )


@pytest.mark.parametrize(
    ("rules", "overrides"),
    [
        ("uno_mario", {"super_stars": 0, "card_effects": ("WC:star",)}),  # the customizable card
        ("uno", {"card_effects": ("W:star",)}),
        ("uno", {"card_effects": ("W:star",), "stacking": ("WD4/WD4",)}),  # another answer rule
    ],
)
def test_M_STAR_1_a_card_given_the_star_effect_sends_a_draw_two_back(
    rules: str, overrides: dict[str, Any]
) -> None:
    """M-STAR-1 through ``card_effects``: a card given the star effect is a Super Star, whether
    or not the deck holds printed Super Stars (``super_stars``) and whatever else can answer a
    penalty: its holder is asked to answer a Draw Two and sends it back to the sender, who
    draws it."""
    star = str(overrides["card_effects"][0]).split(":")[0]
    game = at(
        f"hands=RD2 R5 R6/{star} G3 G4/B4 B5 B6/G7 G8 G9; discard=R9; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        rules,
        **overrides,
    )
    play(game, "RD2")
    assert game.phase == Phase.ANSWER and game.current_player == 1
    assert_legal(game, star, "accept")
    play(game, star, "colour B")
    assert_position(
        game,
        f"hands=R5 R6/G3 G4/B4 B5 B6/G7 G8 G9; discard=R9 RD2 {star}; {FILL}; colour=B; seat=0; dir=+; "
        "phase=answer; pending=2; from=1; class=D2",
    )
    play(game, "accept")
    assert_position(
        game,
        "hands=Y1 Y2 R5 R6/G3 G4/B4 B5 B6/G7 G8 G9; discard=R9 RD2 " + star + "; "
        "draw=Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=B; seat=1; dir=+; phase=play",
    )


def test_M_STAR_1_a_super_star_given_another_effect_answers_nothing() -> None:
    """M-STAR-1 through ``card_effects``: Super Stars made plain wilds (``SS:wild``) do not
    answer a penalty, so a Draw Two is drawn at once, as in official Uno."""
    game = at(
        f"hands=RD2 R5 R6/SS G3 G4/B4 B5 B6/G7 G8 G9; discard=R9; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        "uno_mario",
        card_effects=("SS:wild",),
    )
    play(game, "RD2")
    assert_position(
        game,
        "hands=R5 R6/Y1 Y2 G3 G4 SS/B4 B5 B6/G7 G8 G9; discard=R9 RD2; "
        "draw=Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=R; seat=2; dir=+; phase=play",
    )


# ================================================================ M-CHAL-1
def test_M_CHAL_1_failed_challenge_costs_six() -> None:
    """M-CHAL-1 (``uno_mario``): a failed challenge costs the challenger 6 cards and the turn."""
    game = at(
        "hands=G1 G2 G3/R3 R4 R5/B4 B5 B6/G7 G8 G9; discard=R9 WD4; "
        f"{FILL}; colour=G; seat=1; dir=+; phase=challenge; pending=4; from=0; before=B",
        "uno_mario",
    )
    play(game, "challenge")
    assert_position(
        game,
        "hands=G1 G2 G3/Y1 Y2 Y3 Y4 Y5 Y6 R3 R4 R5/B4 B5 B6/G7 G8 G9; discard=R9 WD4; "
        "draw=Y7 Y8 Y9 B1 B2 B3; colour=G; seat=2; dir=+; phase=play",
    )


# ================================================================ M-SCORE-1 and U-DECK-2
def test_M_SCORE_1_super_star_and_customizable_score_fifty() -> None:
    """M-SCORE-1: a Super Star and a customizable wild left in hand score 50 each."""
    game = at(
        f"hands=R5/SS WC/B4 WC/G7; discard=R9; {FILL}; colour=R; seat=0; dir=+; phase=play; called=0",
        "uno_mario",
    )
    play(game, "R5")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0
    assert outcome.round_points == (0, 100, 54, 7)
    assert outcome.scores == (161, 0, 0, 0)


def test_U_DECK_2_mario_deck_adds_super_stars_and_customizable_wilds() -> None:
    """U-DECK-2: the ``uno_mario`` deck is the 108 cards plus 4 Super Stars and 4
    customizable wilds (parameters); the counts are parameters."""
    game = Game("uno_mario", 4, seed=5)
    deck = cards_of(game)
    assert sum(deck.values()) == 116
    assert deck["SS"] == 4 and deck["WC"] == 4 and deck["W"] == 4 and deck["WD4"] == 4
    other = Game("uno_mario", 3, seed=5, super_stars=2, custom_wilds=0)
    deck = cards_of(other)
    assert sum(deck.values()) == 110 and deck["SS"] == 2 and deck["WC"] == 0
    with pytest.raises(PositionError, match="holds 1 x SS"):
        at(f"hands=SS G1/R1 R2; discard=R9; {FILL}; colour=R; seat=0; dir=+; phase=play")


def test_U_DECK_2_customizable_wild_plays_as_a_plain_wild() -> None:
    """U-DECK-2: a customizable card plays as a plain Wild: anywhere, a colour, no penalty,
    and it does not answer a pending Draw Two."""
    game = at(
        f"hands=WC G2 G3/R3 R4 R5/B4 B5 B6/G7 G8 G9; discard=R9; {FILL}; colour=B; seat=0; dir=+; phase=play",
        "uno_mario",
    )
    assert_legal(game, "WC", "draw")
    play(game, "WC")
    assert_legal(game, "colour R", "colour Y", "colour G", "colour B")
    play(game, "colour G")
    assert_position(
        game,
        f"hands=G2 G3/R3 R4 R5/B4 B5 B6/G7 G8 G9; discard=R9 WC; {FILL}; colour=G; seat=1; dir=+; phase=play",
    )
    pending = at(
        "hands=G1 G2 G3/WC R3 R4/B4 B5 B6/G7 G8 G9; discard=R9 RD2; "
        f"{FILL}; colour=R; seat=1; dir=+; phase=answer; pending=2; from=0",
        "uno_mario",
    )
    assert_legal(pending, "accept")


# ================================================================ interactions
def test_H_STACK_1_H_REFLECT_1_M_STAR_1_chain_is_drawn_by_the_right_player() -> None:
    """Stacking + reflect + Super Star (docs/rules.md): a Draw Two is stacked (4), reflected
    by a Reverse back to the stacker (direction flips), starred back to the reflector, who
    stacks a Wild Draw Four on it (8, the Draw Two rank kept for the table); the stacker,
    now the victim of the latest Wild Draw Four, accepts and draws all 8."""
    game = at(
        "hands=RD2 R5 R6/BD2 SS G3 G4/BR WD4 Y5 Y6/G7 G8 G9; discard=R9; "
        "draw=Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=R; seat=0; dir=+; phase=play",
        "uno_mario",
        stacking=HOUSE_STACKING,
        reverse_reflects=True,
    )
    play(game, "RD2")
    assert_legal(game, "BD2", "SS", "accept")
    play(game, "BD2")
    assert (game.current_player, game.phase, game.pending_penalty) == (2, Phase.ANSWER, 4)
    assert_legal(game, "BR", "WD4", "accept")
    play(game, "BR")
    assert_position(
        game,
        "hands=R5 R6/SS G3 G4/WD4 Y5 Y6/G7 G8 G9; discard=R9 RD2 BD2 BR; "
        "draw=Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=B; seat=1; dir=-; phase=answer; pending=4; "
        "from=2; class=D2",
    )
    assert_legal(game, "SS", "accept")
    play(game, "SS", "colour Y")
    assert_position(
        game,
        "hands=R5 R6/G3 G4/WD4 Y5 Y6/G7 G8 G9; discard=R9 RD2 BD2 BR SS; "
        "draw=Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=Y; seat=2; dir=-; phase=answer; pending=4; "
        "from=1; class=D2",
    )
    assert_legal(game, "WD4", "accept")
    play(game, "WD4", "colour G")
    assert_position(
        game,
        "hands=R5 R6/G3 G4/Y5 Y6/G7 G8 G9; discard=R9 RD2 BD2 BR SS WD4; "
        "draw=Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=G; seat=1; dir=-; phase=challenge; pending=8; "
        "from=2; bluff=1; before=Y",
    )
    assert_legal(game, "challenge", "accept")
    play(game, "accept")
    assert_position(
        game,
        "hands=R5 R6/Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 G3 G4/Y5 Y6/G7 G8 G9; discard=R9 RD2 BD2 BR SS WD4; "
        "draw=Y9 B1 B2 B3; colour=G; seat=0; dir=-; phase=play",
    )


def test_H_STACK_1_H_REFLECT_1_M_STAR_1_chain_challenge_of_the_bluff() -> None:
    """The same chain, but the victim challenges the bluffed Wild Draw Four (its player held
    yellow): the bluffer draws the whole 8, yellow returns, the challenger plays."""
    game = at(
        "hands=RD2 R5 R6/BD2 SS G3 G4/BR WD4 Y5 Y6/G7 G8 G9; discard=R9; "
        "draw=Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=R; seat=0; dir=+; phase=play",
        "uno_mario",
        stacking=HOUSE_STACKING,
        reverse_reflects=True,
    )
    play(game, "RD2", "BD2", "BR", "SS", "colour Y", "WD4", "colour G", "challenge")
    assert_position(
        game,
        "hands=R5 R6/G3 G4/Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y5 Y6/G7 G8 G9; discard=R9 RD2 BD2 BR SS WD4; "
        "draw=Y9 B1 B2 B3; colour=Y; seat=1; dir=-; phase=play",
    )


def test_H_STACK_1_H_SEVEN_1_H_ZERO_1_H_JUMP_1_uno_house_preset_turns_on_the_starred_rules() -> None:
    """``uno_house`` = H-STACK-1 (D2/D2, WD4/WD4, WD4/D2), H-SEVEN-1, H-ZERO-1 rotate,
    H-JUMP-1; everything else as ``uno``."""
    rules = load_rules("uno_house")
    assert rules.stacking == ("D2/D2", "WD4/WD4", "WD4/D2")
    assert rules.seven_swap and rules.jump_in and rules.zero_rule == "rotate"
    assert rules == RuleSet(stacking=HOUSE_STACKING, seven_swap=True, zero_rule="rotate", jump_in=True)
    mario = load_rules("uno_mario")
    assert mario == RuleSet(super_stars=4, custom_wilds=4)


# ================================================================ more interactions
def test_H_STACK_1_last_card_stacked_penalty_is_still_drawn() -> None:
    """H-STACK-1 + U-END-1: a player going out on a stacked Draw Two wins; the next player
    still draws the whole stack (4), with no chance to answer."""
    game = at(
        "hands=G1 G2 G3/BD2/BD2 B5 B6/G7 G8 G9; discard=R4 RD2; "
        f"{FILL}; colour=R; seat=1; dir=+; phase=answer; pending=2; from=0; called=1",
        stacking=("D2/D2",),
    )
    assert_legal(game, "BD2", "accept")
    play(game, "BD2")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 1
    assert hand(game, 2) == ["Y1", "Y2", "Y3", "Y4", "B5", "B6", "BD2"]


def test_H_STACK_1_U_SCORE_1_going_out_on_a_stacked_wild_draw_four_scores_the_drawn_stack() -> None:
    """H-STACK-1 + U-END-1 + U-SCORE-1 (``uno_house``): a Wild Draw Four laid as the last card
    on a Draw Two ends the round without a colour or a challenge; the next player draws the
    whole stack (6), and the winner scores it with the rest of the hands."""
    game = at(
        f"hands=RD2 R5 R6/WD4/B4 B5 Y1/G7 G8 G9; discard=R9; {FILL}; colour=R; seat=0; dir=+; phase=play; "
        "called=1",
        "uno_house",
    )
    play(game, "RD2")
    assert_legal(game, "WD4", "accept")
    play(game, "WD4")
    assert game.phase == Phase.OVER
    assert hand(game, 2) == ["Y1", "Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "B4", "B5"]
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 1
    assert outcome.round_points == (11, 0, 31, 24)
    assert outcome.scores == (0, 66, 0, 0)


def test_H_STACK_1_U_DRAW_2_drawing_until_playable_reshuffles_then_stops_when_nothing_is_left() -> None:
    """U-DRAW-2 ``until_playable`` under ``uno_house``: the draw pile runs out, the discard pile
    under its top is shuffled in and the drawing goes on until a card fits; with nothing left
    to draw, the turn ends with the cards drawn (U-DRAW-4)."""
    game = at(
        "hands=R5 R6/G3 G4/B4 B5; discard=Y1 Y2 Y9; draw=G1; colour=Y; seat=0; dir=+; phase=play",
        "uno_house",
        draw="until_playable",
    )
    play(game, "draw")
    assert game.phase == Phase.PLAY_DRAWN and game.current_player == 0
    assert hand(game, 0) in (["R5", "R6", "Y1", "G1"], ["R5", "R6", "Y2", "G1"])  # G1, then a yellow
    assert discard(game) == ["Y9"] and len(draw_pile(game)) == 1
    empty = at(
        "hands=R5 R6/G3 G4/B4 B5; discard=Y9; draw=G1; colour=Y; seat=0; dir=+; phase=play",
        "uno_house",
        draw="until_playable",
    )
    play(empty, "draw")
    assert_position(
        empty,
        "hands=R5 R6 G1/G3 G4/B4 B5; discard=Y9; draw=-; colour=Y; seat=1; dir=+; phase=play",
    )


def test_H_REFLECT_1_last_card_reflect_sends_the_penalty_back() -> None:
    """H-REFLECT-1 + U-END-1: going out on a reflecting Reverse wins; the sender draws."""
    game = at(
        "hands=G1 G2 G3/RR/B4 B5 B6/G7 G8 G9; discard=R4 RD2; "
        f"{FILL}; colour=R; seat=1; dir=+; phase=answer; pending=2; from=0; called=1",
        reverse_reflects=True,
    )
    play(game, "RR")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 1
    assert hand(game, 0) == ["Y1", "Y2", "G1", "G2", "G3"]
    assert game.hand_sizes() == [5, 0, 3, 3]


def test_M_STAR_1_last_card_super_star_sends_the_penalty_back() -> None:
    """M-STAR-1 + U-END-1: going out on a Super Star wins (no colour to name); the sender of
    the pending penalty draws it."""
    game = at(
        "hands=G1 G2 G3/SS/B4 B5 B6/G7 G8 G9; discard=R4 WD4; "
        f"{FILL}; colour=R; seat=1; dir=+; phase=challenge; pending=4; from=0; before=B; called=1",
        "uno_mario",
    )
    play(game, "SS")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 1
    assert game.hand_sizes() == [7, 0, 3, 3]


def test_H_STACK_1_doubling_growth_on_the_uno_deck() -> None:
    """H-STACK-1 with ``stack_growth="double"`` (MD-SEVEN-1's reading): each stacked card
    doubles the total: 2, 4, 8."""
    game = at(
        f"hands=RD2 R5 R6/BD2 G3 G4/GD2 B5 B6/G7 G8 G9; discard=R9; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        stacking=("D2/D2",),
        stack_growth="double",
    )
    play(game, "RD2")
    assert game.pending_penalty == 2
    play(game, "BD2")
    assert game.pending_penalty == 4
    play(game, "GD2")
    assert game.pending_penalty == 8 and game.current_player == 3
    play(game, "accept")
    assert game.hand_sizes() == [2, 2, 2, 11]


def test_H_JUMP_1_window_after_a_stacked_penalty_blocks_only_the_drawn_copies() -> None:
    """H-JUMP-1 + H-STACK-1: after a stack of two Draw Twos is drawn, the victim cannot jump
    with the copy drawn as the penalty; another holder of the identical card is asked."""
    game = at(
        "hands=RD2 G1 G2/BD2 R7 R8/Y7 Y8 Y9/G5 BD2 G7 G8; discard=R4; "
        "draw=Y1 Y2 BD2 Y3 Y4 Y5; colour=R; seat=0; dir=+; phase=play",
        stacking=("D2/D2",),
        jump_in=True,
        decks=2,
    )
    play(game, "RD2", "BD2")
    assert (game.current_player, game.phase, game.pending_penalty) == (2, Phase.ANSWER, 4)
    play(game, "accept")
    assert hand(game, 2) == ["Y1", "Y2", "Y3", "Y7", "Y8", "Y9", "BD2"]
    assert game.phase == Phase.JUMP_IN and game.current_player == 3
    assert_legal(game, "BD2", "pass")
    play(game, "pass")
    assert_position(
        game,
        "hands=G1 G2/R7 R8/Y1 Y2 Y3 Y7 Y8 Y9 BD2/G5 G7 G8 BD2; discard=R4 RD2 BD2; draw=Y4 Y5; "
        "colour=B; seat=3; dir=+; phase=play; jumpblock=2:1",
    )


def test_H_REACT_1_only_players_in_play_are_hit() -> None:
    """H-REACT-1: the reflex victim is a player in play: one who left (MC-END-1) never draws."""
    for seed in range(40):
        game = at(
            f"hands=R9 G1 G2/Y1 Y2 Y3/-/G5 G6 G7; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play; "
            "finished=0 0 1 0",
            seed=seed,
            react_nine=True,
            end="last_player",
        )
        play(game, "R9")
        assert hand(game, 2) == []
        assert sum(game.hand_sizes()) == 10


def test_H_ZEROSEE_1_look_after_a_rotation_sees_the_new_hands() -> None:
    """H-ZEROSEE-1 + H-ZERO-1 ``rotate``: the rotation comes first; the player sees the
    rotated hands (unchanged since the look), and each other player knows the hand it passed
    on."""
    game = at(
        f"hands=R0 G1 G2/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        zero_rule="rotate",
        zero_reveals=True,
    )
    play(game, "R0")
    assert_position(
        game,
        f"hands=G5 G6 G7/G1 G2/Y1 Y2 Y3/B1 B2 B3; discard=R4 R0; {FILL}; "
        "colour=R; seat=1; dir=+; phase=play; "
        "seen=0>1 0>2 0>3 1>2 2>3 3>0",
    )


def test_H_SEVEN_1_H_ZERO_1_H_JUMP_1_uno_house_preset_together() -> None:
    """``uno_house``: a 7 swaps, then the holder of the identical 7 may jump in (no swap)."""
    game = at(
        f"hands=R7 G1 G2/Y1 Y2 Y3 Y4/R7 B2 B3/G5 G6 G7; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        "uno_house",
    )
    play(game, "R7")
    assert_legal(game, "target +1", "target +2", "target +3")
    play(game, "target +2")
    # seat 0 now holds R7 B2 B3 (seat 2's hand) and is the one who laid the card: not asked;
    # seat 2 holds G1 G2: nobody else holds R7
    assert_position(
        game,
        f"hands=R7 B2 B3/Y1 Y2 Y3 Y4/G1 G2/G5 G6 G7; discard=R4 R7; {FILL}; "
        "colour=R; seat=1; dir=+; phase=play; seen=0>2 2>0",
    )
    play(game, "draw")  # Y1: not playable on red, the turn passes to seat 2
    assert game.current_player == 2
    zero = at(
        f"hands=R0 G1 G2/Y1 Y2 Y3 Y4/B2 B3 B4/G5 G6 G7; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        "uno_house",
    )
    play(zero, "R0")
    assert_position(
        zero,
        f"hands=G5 G6 G7/G1 G2/Y1 Y2 Y3 Y4/B2 B3 B4; discard=R4 R0; {FILL}; "
        "colour=R; seat=1; dir=+; phase=play; seen=0>1 1>2 2>3 3>0",
    )


@pytest.mark.parametrize(
    ("text", "overrides", "before"),
    [
        (
            f"hands=R5 G1 G2/Y1 Y2 Y3/R5 B1/G4 G5 G6; discard=R4; {FILL}; "
            "colour=R; seat=0; dir=+; phase=play",
            {"jump_in": True},
            ("R5",),
        ),
        (
            f"hands=R5 R5 G1/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; "
            "colour=R; seat=0; dir=+; phase=play",
            {"multi_play": "identical"},
            ("R5",),
        ),
    ],
    ids=["H-JUMP-1 window", "H-MULTI-1 continue"],
)
def test_H_JUMP_1_H_MULTI_1_a_call_without_the_card_does_not_stand(
    text: str, overrides: dict[str, Any], before: tuple[str, ...]
) -> None:
    """U-UNO-1 in the out-of-turn and continue phases (docs/rules.md: "a call stands while
    its player holds one card"): a player who calls at two cards and then lays nothing
    (passes the jump-in window, stops the play) holds two cards without a standing call."""
    game = play(at(text, **overrides), *before)
    seat = game.current_player
    assert "call" in {game.describe_action(a) for a in game.legal_actions()}
    play(game, "call", "pass")
    assert len(hand(game, seat)) == 2
    assert game.called()[seat] is False, game.position()


def test_H_ZERO_1_swap_optional_pass_is_only_for_the_zero() -> None:
    """H-ZERO-1 ``swap_optional`` + H-SEVEN-1: the optional pass belongs to the 0; a 7's
    swap is never optional."""
    game = at(
        f"hands=R7 R0 G2/Y1 Y2 Y3/B1 B2 B3 B4/G4 G5 G6; discard=R5; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        seven_swap=True,
        zero_rule="swap_optional",
    )
    seven = game.clone()
    play(seven, "R7")
    assert_legal(seven, "target +1", "target +2", "target +3")
    play(game, "R0")
    assert_legal(game, "target +1", "target +2", "target +3", "pass")


# ================================================================ edge cases: rules together
def test_H_LASTONE_1_H_ZERO_1_the_colour_discard_keeps_one_card() -> None:
    """H-LASTONE-1 + H-ZERO-1 ``discard_colour``: the cards of the 0's colour leave in the 0's
    play, which may not empty the hand: the last of them in face order stays. Without
    H-LASTONE-1 the same play goes out."""
    text = (
        f"hands=R0 R5 R6/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play"
    )
    game = play(at(text, zero_rule="discard_colour", multi_leave_one=True), "R0")
    assert_position(
        game,
        f"hands=R6/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4 R5 R0; {FILL}; colour=R; seat=1; dir=+; phase=play",
    )
    # two cards: the 0 leaves one (the call was made), and that one stays
    two = at(text.replace("R0 R5 R6", "R0 R5"), zero_rule="discard_colour", multi_leave_one=True)
    play(two, "call", "R0")
    assert_position(
        two,
        f"hands=R5/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4 R0; {FILL}; colour=R; seat=1; dir=+; phase=play; "
        "called=0",
    )
    plain = play(at(text, zero_rule="discard_colour"), "R0")
    outcome = plain.outcome()
    assert outcome is not None and outcome.winner == 0 and discard(plain) == ["R4", "R5", "R6", "R0"]


def test_H_LASTONE_1_H_TWO_1_the_gifts_leave_one_card() -> None:
    """H-LASTONE-1 + H-TWO-1: the 2's gifts are part of its play, which may not empty the
    hand: a hand of two after the 2 gives one card, a hand of one gives none (no target is
    asked, play passes on)."""
    game = at(
        f"hands=R2 G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        two_gives=True,
        multi_leave_one=True,
    )
    play(game, "R2")
    assert game.phase == Phase.CHOOSE_TARGET and game.state[L.S_GIVE_LEFT] == 1
    play(game, "target +3")
    assert_legal(game, "G1", "G2")
    play(game, "G2")
    assert_position(
        game,
        f"hands=G1/Y1 Y2 Y3/B1 B2 B3/G2 G4 G5 G6; discard=R4 R2; {FILL}; colour=R; seat=1; dir=+; phase=play",
    )
    last = at(
        f"hands=R2 G1/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        two_gives=True,
        multi_leave_one=True,
    )
    play(last, "call", "R2")
    assert_position(
        last,
        f"hands=G1/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4 R2; {FILL}; colour=R; seat=1; dir=+; phase=play; "
        "called=0",
    )


@pytest.mark.parametrize(
    ("hands", "phase", "message"),
    [
        ("G1 G2", "target; reason=1; give=2", "give=2: cards still to give, 1..1"),
        ("G1", "target; reason=1; give=1", "a hand of one card gives none"),
        ("G1 G2", "give; reason=1; target=1; give=2", "give=2: cards still to give, 1..1"),
    ],
)
def test_H_LASTONE_1_H_TWO_1_a_position_giving_the_hand_away_is_refused(
    hands: str, phase: str, message: str
) -> None:
    """H-LASTONE-1 + H-TWO-1 in position notation: ``give`` may not exceed the cards the
    gifts may take (all but one); the error names the field and the rule."""
    text = (
        f"hands={hands}/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4 R2; {FILL}; colour=R; seat=0; dir=+; "
        f"phase={phase}"
    )
    at(text, two_gives=True)  # without H-LASTONE-1 the hand may be given away
    with pytest.raises(PositionError, match=message) as caught:
        at(text, two_gives=True, multi_leave_one=True)
    assert "H-LASTONE-1" in str(caught.value)


def test_H_STACK_1_U_DRAW_4_a_stack_larger_than_every_card_left() -> None:
    """H-STACK-1 + U-DRAW-4 (``uno_house``): a stack of 8 on a table with one card to draw and
    four under the top card: the victim draws those five (the pile is reshuffled, the top
    stays) and loses the turn; nothing is owed afterwards."""
    game = at(
        "hands=G1 G2/YD2 Y2 Y3/WD4 B2 B3/G4 G5 G6; discard=R4 RD2; draw=Y1; "
        "colour=R; seat=1; dir=+; phase=answer; pending=2; from=0",
        "uno_house",
    )
    play(game, "YD2", "WD4", "colour G")
    assert game.phase == Phase.CHALLENGE and game.pending_penalty == 8
    play(game, "accept")
    assert sorted(hand(game, 3)) == sorted(["G4", "G5", "G6", "Y1", "R4", "RD2", "YD2"])
    assert discard(game) == ["WD4"] and draw_pile(game) == []
    assert game.current_player == 0 and game.phase == Phase.PLAY and game.pending_penalty == 0
    assert_legal(game, "G1", "G2", "call", "draw")


def test_H_STACK_1_uno_house_draw_two_wild_draw_four_wild_draw_four_chain() -> None:
    """H-STACK-1 (``uno_house`` table): Draw Two, then a Wild Draw Four on it, then another on
    that: each Wild Draw Four's victim may challenge, stack or accept; the last accepts and
    draws all 10, and the player after it plays."""
    game = at(
        "hands=RD2 G1 G2/WD4 Y2 Y3/WD4 B2 B3/G4 G5 G6; discard=R4; "
        "draw=Y1 Y1 Y5 Y5 Y6 Y6 Y7 Y7 Y8 Y8 Y9 Y9 B1; colour=R; seat=0; dir=+; phase=play",
        "uno_house",
    )
    play(game, "RD2")
    assert_legal(game, "WD4", "accept")
    play(game, "WD4", "colour G")
    assert_legal(game, "WD4", "accept", "challenge")
    play(game, "WD4", "colour B")
    assert game.current_player == 3 and game.pending_penalty == 10
    assert_legal(game, "accept", "challenge")
    play(game, "accept")
    assert_position(
        game,
        "hands=G1 G2/Y2 Y3/B2 B3/Y1 Y1 Y5 Y5 Y6 Y6 Y7 Y7 Y8 Y8 G4 G5 G6; discard=R4 RD2 WD4 WD4; "
        "draw=Y9 Y9 B1; colour=B; seat=0; dir=+; phase=play",
    )


def test_H_STACK_1_U_UNO_1_answering_with_the_second_to_last_card() -> None:
    """H-STACK-1 + U-UNO-1 (``uno_house``): the target answering with its second-to-last card
    may call in the answer phase; without the call it is caught (2 cards) and the stack still
    passes on whole to the next player."""
    game = at(
        f"hands=RD2 G1 G2/YD2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        "uno_house",
    )
    play(game, "RD2")
    assert_legal(game, "YD2", "accept", "call")
    called = play(game.clone(), "call", "YD2")
    assert_position(
        called,
        f"hands=G1 G2/Y3/B1 B2 B3/G4 G5 G6; discard=R4 RD2 YD2; {FILL}; colour=Y; seat=2; dir=+; "
        "phase=answer; pending=4; from=1; called=1",
    )
    play(game, "YD2")
    assert_position(
        game,
        "hands=G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4 RD2 YD2; draw=Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; "
        "colour=Y; seat=2; dir=+; phase=answer; pending=4; from=1",
    )


def test_H_MULTI_1_U_END_1_going_out_on_two_draw_twos() -> None:
    """H-MULTI-1 + U-END-1: the last two cards, identical Draw Twos laid together: the next
    player still draws their 4, and those count in the winner's score (U-SCORE-1)."""
    game = at(
        f"hands=RD2 RD2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        multi_play="identical",
    )
    play(game, "call", "RD2", "RD2")
    assert hand(game, 1) == ["Y1", "Y1", "Y2", "Y2", "Y3", "Y3", "Y4"]
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0
    assert outcome.round_points == (0, 16, 6, 15) and outcome.scores == (37, 0, 0, 0)


def test_H_EIGHT_1_U_UNO_1_an_eight_as_second_to_last_card() -> None:
    """H-EIGHT-1 + U-UNO-1: an 8 laid as the second-to-last card without the call is caught
    (2 cards) and the extra turn follows; with the call, the call stands through the extra
    turn and the last card goes out."""
    text = f"hands=R8 R1/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play"
    missed = play(at(text, eight_again=True), "R8")
    assert_position(
        missed,
        "hands=R1 Y1 Y2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4 R8; "
        "draw=Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3; colour=R; seat=0; dir=+; phase=play",
    )
    called = play(at(text, eight_again=True), "call", "R8")
    assert called.current_player == 0 and called.called()[0] is True
    assert_legal(called, "R1", "draw")
    play(called, "R1")
    outcome = called.outcome()
    assert outcome is not None and outcome.winner == 0


def test_H_JUMP_1_two_players_jump_in_on_the_opponents_skip() -> None:
    """H-JUMP-1 at two players (``uno_house``): after a Skip (its player plays again) the
    opponent holding the identical Skip may jump in; it has no effect, and play continues
    from the jumper: the Skip's player moves next."""
    game = at(
        f"hands=RS G1 G2/RS Y2 Y3; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        "uno_house",
    )
    play(game, "RS")
    assert game.phase == Phase.JUMP_IN and game.current_player == 1
    assert_legal(game, "RS", "pass")
    play(game, "RS")
    assert_position(
        game,
        f"hands=G1 G2/Y2 Y3; discard=R4 RS RS; {FILL}; colour=R; seat=0; dir=+; phase=play",
    )


def test_H_SEVEN_1_two_players_uno_house() -> None:
    """H-SEVEN-1 at two players (``uno_house``): the only target is the opponent; the hands
    are exchanged and the opponent plays next."""
    game = at(
        f"hands=R7 G1 G2/Y1 Y2 Y3; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        "uno_house",
    )
    play(game, "R7")
    assert_legal(game, "target +1")
    play(game, "target +1")
    assert_position(
        game,
        f"hands=Y1 Y2 Y3/G1 G2; discard=R4 R7; {FILL}; colour=R; seat=1; dir=+; phase=play; seen=0>1 1>0",
    )


def test_H_TWO_1_two_players_the_opponent_receives_and_plays() -> None:
    """H-TWO-1 at two players: the opponent is the only target; after the two cards play
    passes to it."""
    game = at(
        f"hands=R2 G1 G2 G3/Y1 Y2 Y3; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        two_gives=True,
    )
    play(game, "R2")
    assert_legal(game, "target +1")
    play(game, "target +1", "G1", "G3")
    assert_position(
        game,
        f"hands=G2/G1 G3 Y1 Y2 Y3; discard=R4 R2; {FILL}; colour=R; seat=1; dir=+; phase=play",
    )


def test_H_REFLECT_1_H_NOFINISH_1_a_last_reverse_reflects_nothing() -> None:
    """H-REFLECT-1 + H-NOFINISH-1: a last Reverse would go out on an action card, so it cannot
    send the penalty back: only accept."""
    game = at(
        f"hands=RD2 G1 G2/RR/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        reverse_reflects=True,
        no_finish_on_action=True,
    )
    play(game, "RD2")
    assert game.phase == Phase.ANSWER and game.current_player == 1
    assert_legal(game, "accept")


# ================================================================ phases: round trips
ROUND_TRIP_CASES: list[tuple[str, str, dict[str, Any], tuple[str, ...], Phase]] = [
    ("answer", REFLECT_START, {"reverse_reflects": True}, ("RD2",), Phase.ANSWER),
    ("reflected", REFLECT_START, {"reverse_reflects": True}, ("RD2", "RR"), Phase.ANSWER),
    (
        "target",
        f"hands=R7 G1 G2/Y1 Y2 Y3/B1 B2 B3 B4/G4 G5 G6; discard=R5; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        {"seven_swap": True},
        ("R7",),
        Phase.CHOOSE_TARGET,
    ),
    ("optional swap", ZERO_START + "; dir=-", {"zero_rule": "swap_optional"}, ("R0",), Phase.CHOOSE_TARGET),
    (
        "give",
        f"hands=R2 G4 B6 Y9 W/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        {"two_gives": True},
        ("R2", "target +2", "W"),
        Phase.GIVE,
    ),
    ("jump", JUMP_START + "; dir=+", {"jump_in": True}, ("R5",), Phase.JUMP_IN),
    (
        "block",
        f"hands=R0 G1 G2/Y0 Y2 Y3/B1 B2 B3/G0 G6 G7; discard=R4; {FILL}; colour=R; seat=0; dir=-; phase=play",
        {"zero_reveals": True},
        ("R0", "pass"),
        Phase.BLOCK,
    ),
    (
        "continue run",
        f"hands=R3 R4 R5 R2 G4/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R9; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        {"runs": True},
        ("R3", "R4"),
        Phase.CONTINUE,
    ),
    (
        "continue skips",
        f"hands=RS RS G1 G2/Y1 Y2 Y3/B1 B2 B3/G4 G5 G6; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        {"multi_play": "identical"},
        ("RS",),
        Phase.CONTINUE,
    ),
    (
        "stacked wild colour",
        f"hands=RD2 R5 R6/WD4 G3 G4/WD4 GD2 B5/G7 G8 G9; discard=R9; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        {"stacking": HOUSE_STACKING},
        ("RD2", "WD4"),
        Phase.CHOOSE_COLOUR,
    ),
    (
        "stacked challenge",
        f"hands=RD2 R5 R6/WD4 G3 G4/WD4 GD2 B5/G7 G8 G9; discard=R9; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        {"stacking": HOUSE_STACKING},
        ("RD2", "WD4", "colour G"),
        Phase.CHALLENGE,
    ),
]


@pytest.mark.parametrize(
    ("text", "overrides", "actions", "phase"),
    [case[1:] for case in ROUND_TRIP_CASES],
    ids=[case[0] for case in ROUND_TRIP_CASES],
)
def test_H_rules_mid_play_phases_round_trip_through_position_notation(
    text: str, overrides: dict[str, Any], actions: tuple[str, ...], phase: Phase
) -> None:
    """Every house-rule phase reached in play prints a position that reads back to the same
    situation and the same legal actions; continuing from the copy gives the same result."""
    game = play(at(text, **overrides), *actions)
    assert game.phase == phase
    assert_round_trip(game)
    copy = Game.from_position(game.rules, game.position())
    action = game.legal_actions()[0]
    game.step(action)
    copy.step(action)
    assert copy.position().split("; decisions=")[0] == game.position().split("; decisions=")[0]
