"""The typed view of the decision asked (:meth:`Game.decision`) and the action kinds.

Front ends (the terminal game), renderers and agents phrase a question from these instead of
reading state slots; each field is checked in the phase that sets it.
"""

from __future__ import annotations

import pytest

from uno_env import Card, Game, Phase
from uno_env.engine.actions import ActionKind, action_id, action_kind, num_actions, parse_action
from uno_env.engine.cards import DeckFamily
from uno_env.game.facade import TargetReason

FILL = "draw=Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 B1 B2 B3"


def test_play_phase_has_nothing_pending() -> None:
    game = Game.from_position(
        "uno", f"hands=R2 G4/Y1 Y2; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play"
    )
    decision = game.decision()
    assert decision.phase == Phase.PLAY and decision.seat == 0
    assert (decision.pending_cards, decision.pending_turns, decision.pending_from) == (0, 0, -1)
    assert not decision.penalty_pending and decision.drawn is None
    assert decision.target_reason is None and decision.give_to is None and decision.give_left == 0
    assert decision.can_call  # U-UNO-1: R2 would leave one card


def test_the_drawn_card_is_named() -> None:
    game = Game.from_position(
        "uno", "hands=R1 R2 R3/Y9 G4; discard=Y5; draw=B1; colour=Y; seat=1; dir=+; phase=drawn; drawn=Y9"
    )
    decision = game.decision()
    assert decision.phase == Phase.PLAY_DRAWN and decision.seat == 1
    assert decision.drawn == Card.parse("Y9", "uno")


def test_a_wild_draw_four_names_its_sender_and_cards() -> None:
    game = Game.from_position(
        "uno",
        "hands=Y1 B2/G3 G4; discard=R5 WD4; draw=B1 B2 B3 B4 B5; colour=G; seat=1; dir=+; "
        "phase=challenge; pending=4; from=0; before=R",
    )
    decision = game.decision()
    assert decision.phase == Phase.CHALLENGE and decision.seat == 1
    assert (decision.pending_cards, decision.pending_from) == (4, 0) and decision.penalty_pending


def test_target_reason_and_giving() -> None:
    """H-TWO-1: the target is picked to give cards to, then two cards are given."""
    game = Game.from_position(
        "uno",
        f"hands=R2 G4 B6 Y9 W/Y1 Y2 Y3/B1 B2 B3/G5 G6 G7; discard=R4; {FILL}; "
        "colour=R; seat=0; dir=+; phase=play",
        two_gives=True,
    )
    game.step("R2")
    decision = game.decision()
    assert decision.phase == Phase.CHOOSE_TARGET and decision.target_reason == TargetReason.GIVE
    game.step("target +2")
    decision = game.decision()
    assert decision.phase == Phase.GIVE and (decision.give_to, decision.give_left) == (2, 2)
    game.step("W")
    assert (game.decision().give_to, game.decision().give_left) == (2, 1)


def test_target_reason_of_a_swap() -> None:
    """H-SEVEN-1: a 7 asks for the seat to swap hands with."""
    game = Game.from_position(
        "uno",
        f"hands=R7 G4 B6/Y1 Y2 Y3/B1 B2/G5 G6 G7; discard=R4; {FILL}; colour=R; seat=0; dir=+; phase=play",
        seven_swap=True,
    )
    game.step("R7")
    assert game.decision().target_reason == TargetReason.SWAP


@pytest.mark.parametrize("deck", ["uno", "french"])
def test_action_kinds_cover_the_table_and_round_trip(deck: DeckFamily) -> None:
    seen = set()
    for action in range(num_actions(deck)):
        kind, value = action_kind(action, deck)
        assert action_id(kind, deck, value) == action
        seen.add(kind)
    assert seen == set(ActionKind)
    assert action_kind(parse_action("target +3", deck), deck) == (ActionKind.TARGET, 3)
    assert action_kind(parse_action("call", deck), deck) == (ActionKind.CALL, 0)
    with pytest.raises(ValueError, match="outside"):
        action_kind(num_actions(deck), deck)
