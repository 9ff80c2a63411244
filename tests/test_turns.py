"""Turns as well as decisions: a turn begins when a player enters the play phase.

``Game.turns`` / ``BatchResult.turns`` / ``Outcome.turns`` count turns (the unit of published
game lengths); ``decisions`` count every choice (colours, play-or-keep, challenges, answers).
A game built from a position counts from there, so these scenarios compare differences.
"""

from __future__ import annotations

import numpy as np

import uno_env
from uno_env import Game, Phase
from uno_env.sim.records import record_simulated


def pos(text: str, **overrides: object) -> Game:
    return Game.from_position("uno", text, seed=0, **overrides)


def test_a_fresh_deal_begins_the_first_turn() -> None:
    """U-START-1: after the deal the first player is in their first turn (0 decisions)."""
    for seed in range(40):
        game = Game("uno", 4, seed=seed)
        if game.phase == Phase.PLAY:
            assert (game.turns, game.decisions) == (1, 0)
        else:  # U-START-1: a starting Wild; the turn begins once the colour is named
            assert game.phase == Phase.CHOOSE_COLOUR and game.turns == 0
            game.step(game.legal_actions()[0])
            assert (game.turns, game.decisions) == (1, 1)


def test_U_SKIP_1_the_skipped_player_has_no_turn() -> None:
    game = pos("hands=B3 B4/Y6 Y7/G4 G5/RS R1 R2; discard=R7; draw=G9; colour=R; seat=3; dir=+; phase=play")
    game.step("RS")
    assert game.current_player == 1 and game.turns == 1  # seat 1's turn; seat 0 had none


def test_U_SKIP_1_two_players_a_skip_is_another_turn() -> None:
    game = pos("hands=RS R1 R2/B3 B4; discard=R7; draw=G9; colour=R; seat=0; dir=+; phase=play")
    game.step("RS")
    assert game.current_player == 0 and game.turns == 1


def test_U_D2_1_the_victim_draws_without_a_turn() -> None:
    game = pos("hands=RD2 R1 R2/B3 B4/G4 G5; discard=R7; draw=G9 Y1 B2; colour=R; seat=0; dir=+; phase=play")
    game.step("RD2")
    assert game.current_player == 2 and (game.turns, game.decisions) == (1, 1)


def test_U_WILD_1_naming_the_colour_is_a_decision_not_a_turn() -> None:
    game = pos("hands=W R1/B3 B4/G4 G5; discard=R7; draw=G9; colour=R; seat=0; dir=+; phase=play")
    game.step("W")
    assert game.phase == Phase.CHOOSE_COLOUR and game.turns == 0
    game.step("colour G")
    assert game.current_player == 1 and (game.turns, game.decisions) == (1, 2)


def test_U_DRAW_1_drawing_and_keeping_is_one_turn() -> None:
    game = pos("hands=B3 B4/Y6 Y7; discard=R7; draw=R9 G1; colour=R; seat=0; dir=+; phase=play")
    game.step("draw")
    assert game.phase == Phase.PLAY_DRAWN and game.turns == 0
    game.step("pass")
    assert game.current_player == 1 and (game.turns, game.decisions) == (1, 2)


def test_U_WD4_2_a_challenge_is_no_turn_a_caught_bluff_gives_the_challenger_one() -> None:
    game = pos(
        "hands=WD4 R1 R2/B3 B4/G4 G5; discard=R7; draw=G9 Y1 B2 Y3 Y4 Y5; colour=R; seat=0; dir=+; phase=play"
    )
    game.step("WD4")
    game.step("colour B")
    assert game.phase == Phase.CHALLENGE and game.turns == 0
    game.step("challenge")  # seat 0 held red cards: a bluff, caught
    assert game.current_player == 1 and game.phase == Phase.PLAY and game.turns == 1


def test_batch_and_facade_count_the_same_turns() -> None:
    """The batch loop and the facade agree game by game (random and scripted play)."""
    for policies in ("random", ["greedy", "bluffer", "hoarder"]):
        result = uno_env.simulate("uno", 3, 12, seed=5, policies=policies)
        records = record_simulated(uno_env.load_rules("uno"), 3, 5, policies, range(12))
        turns = [r.outcome.turns for r in records if r.outcome is not None]
        decisions = [r.outcome.decisions for r in records if r.outcome is not None]
        assert turns == result.turns.tolist() and decisions == result.length.tolist()
        assert (result.turns <= result.length).all() and (result.turns > 0).all()


def test_first_mover_is_the_seat_of_the_first_decision() -> None:
    result = uno_env.simulate("uno", 4, 30, seed=11, policies="greedy")
    for i in range(30):
        assert result.first_mover[i] == Game("uno", 4, seed=11 + i).current_player
    assert set(np.unique(result.first_mover)) <= {0, 1, 2, 3}
