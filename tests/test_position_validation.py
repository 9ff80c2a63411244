"""Hostile positions: every field is checked before the engine sees it, and the engine
checks the indices it writes with.

The first half are the inputs of a hostile-input probe that crashed, hung or corrupted a
game (seat fields out of range written to as hand offsets, bogus ``finished`` values
spinning the seat search forever, inconsistent counts accepted), each now a
:class:`~uno_env.PositionError` naming the field and what is allowed. The second half writes
bad values straight into a game's state, past the parser: the compiled engine skips the
write, ends the game and :class:`~uno_env.EngineError` is raised (E-CONS-1 holds).

This file also runs uncompiled (``make nojit``).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import uno_env
from uno_env import EngineError, Game, PositionError
from uno_env.engine import layout as L
from uno_env.envs.vector import VectorEnv

CHALLENGE = (
    "hands=R1 G2/R3 R4; discard=R9 WD4; draw=Y1 Y2 Y3 Y4 Y5 Y6; colour=G; seat=1; dir=+; "
    "phase=challenge; pending=4; bluff=1; before=R"
)
HANG = "hands=R7 Y5/G3 G4; discard=R5; draw=B2 G9; colour=R; seat=0; dir=+; phase=play; finished=1 2"
MACAO = "hands=7H 5C/3S 4S/2D 9S; discard=5H; draw=2C 9D; colour=H; seat=0; dir=+; phase=play"
TWO_GIVES = dataclasses.replace(uno_env.preset("uno"), two_gives=True)
GIVE = "hands=R1 R3 R4/G3 G4; discard=R5 R2; draw=B1 B2; colour=R; seat=0; dir=+; phase=give"


def _error(rules: uno_env.RuleSet | str, text: str) -> str:
    with pytest.raises(PositionError) as exc:
        Game.from_position(rules, text)
    return str(exc.value)


# ---------------------------------------------------------------- the probe's inputs
@pytest.mark.parametrize("sender", ["100000", "-100000", "2", "50", "-1"])
def test_pending_sender_must_be_a_seat(sender: str) -> None:
    """``from=100000`` then ``challenge`` wrote a hand 100000 seats away (SIGSEGV); ``from=2``
    destroyed a card (E-CONS-1), ``from=50`` left garbage."""
    assert f"from={sender} is not a seat 0..1" in _error("uno", f"{CHALLENGE}; from={sender}")
    env = uno_env.env("uno", num_players=2)
    with pytest.raises(PositionError, match=f"from={sender} is not a seat"):
        env.reset(options={"position": f"{CHALLENGE}; from={sender}"})


def test_a_valid_sender_is_caught_bluffing() -> None:
    game = Game.from_position("uno", f"{CHALLENGE}; from=0")
    game.step("challenge")
    assert game.hand_sizes() == [2 + 4, 2]  # U-WD4-2: the bluffer draws the four
    game.check_invariants()


@pytest.mark.parametrize(("extra", "expected"), [
    ("; target=100000", "target=100000 is not a seat 0..1"),
    ("; target=99", "target=99 is not a seat 0..1"),
    ("; target=-1", "target=-1 is not a seat 0..1"),
    ("; target=0", "target=0 must be another player"),
    ("", "phase=give needs target=<seat receiving the cards>"),
    ("; target=1; give=3", "give=3 is outside 0..2"),
    ("; target=1; give=0", "give=0: cards still to give, 1..2"),
])  # fmt: skip
def test_give_needs_a_target_at_the_table(extra: str, expected: str) -> None:
    """H-TWO-1: ``target=100000`` segfaulted, ``target=99`` wrote past the state, and a
    missing target destroyed the given card."""
    assert expected in _error(TWO_GIVES, GIVE + extra)


def test_a_card_given_arrives() -> None:
    game = Game.from_position(TWO_GIVES, GIVE + "; target=1")
    game.step("R1")
    assert game.hand_sizes() == [2, 3]
    game.check_invariants()


def test_bogus_finished_values_are_refused() -> None:
    """``finished=1 2`` made ``step("R7")`` spin forever in compiled code (no Ctrl-C)."""
    assert "finished needs end='last_player' (MC-END-1)" in _error("uno", HANG)
    env = uno_env.env("uno", num_players=2)
    with pytest.raises(PositionError, match="finished needs end='last_player'"):
        env.reset(options={"position": HANG})
    assert "2 of 3 players left" in _error("macao", MACAO.replace("2D 9S", "") + "; finished=0 1 2")
    assert "numbered 1, 2, ... in leaving order" in _error("macao", MACAO + "; finished=0 0 2")
    assert "numbered 1, 2, ... in leaving order" in _error("macao", MACAO + "; finished=0 3 0")
    assert "seat 2 left the game but holds cards" in _error("macao", MACAO + "; finished=0 0 1")
    assert "seat=0: that player has left the game" in _error(
        "macao", MACAO.replace("7H 5C", "") + "; finished=1 0 0"
    )


def test_a_player_in_play_holds_cards() -> None:
    """U-END-1 / MC-END-1: emptying one's hand wins the round or leaves the game, so a seat still
    in play with no cards is no position the game reaches (``hands=R7/-`` played on as if seat 1
    had not gone out); the player who left (``finished=``) and a won game are empty-handed."""
    empty = "hands=R7 Y5/-/G3; discard=R5; draw=B2 G9; colour=R; seat=0; dir=+; phase=play"
    assert "seat 1 holds no cards in a game still in play" in _error("uno", empty)
    assert "seat 1 holds no cards in a game still in play" in _error("macao", MACAO.replace("3S 4S", "-"))
    Game.from_position("macao", MACAO.replace("3S 4S", "-") + "; finished=0 1 0")  # left: fine
    won = (
        "hands=R7 Y5/-/G3; discard=R5; draw=B2 G9; colour=R; seat=-1; dir=+; phase=over; status=won; winner=1"
    )
    assert Game.from_position("uno", won).outcome().winner == 1


def test_a_player_who_left_is_skipped() -> None:
    """MC-END-1: with seat 1 gone, play passes from seat 0 to seat 2."""
    game = Game.from_position("macao", MACAO.replace("3S 4S", "") + "; finished=0 1 0")
    game.step("5C")
    assert game.current_player == 2
    game.check_invariants()


@pytest.mark.parametrize(("extra", "expected"), [
    ("; pending=-3", "pending=-3 is outside 0..1048576"),
    ("; sitout=-1 0", "sitout: seat 0 has -1, outside 0..281474976710656"),
    ("; scores=-5 0", "scores: seat 0 has -5"),
    ("; decisions=-1", "decisions=-1 is outside 0..9999"),
    ("; decisions=10000", "decisions=10000 is outside 0..9999"),
    ("; dealer=2", "dealer=2 is not a seat 0..1"),
    ("; round=-1", "round=-1 is outside"),
    ("; bluff=2", "bluff=2 is outside 0..1"),
    ("; decisions=1_0", "decisions='1_0' must be an integer"),
    ("; called=\u00b2", "called: '\u00b2' is not a seat 0..1"),
    ("; called=2", "called: '2' is not a seat 0..1"),
    ("; called=1", "called: seat 1 holds 2 cards; a standing UNO call (U-UNO-1) belongs to a player"),
    ("; called=0 0", "called: seat 0 is listed twice"),
    ("; drawn=R7", "drawn belongs to phase=drawn"),
    ("; from=1", "from belong with a pending penalty"),
    ("; after=start", "after belongs to phase=colour"),
    ("; winner=0", "winner belongs to status=won"),
    ("; seen=0>0", "seen: '0>0' must be observer>seat, two different seats"),
    ("; jumpblock=1:1", "jumpblock needs the rule jump_in"),
    ("; cuberolled=1 0", "cuberolled needs the rule cube"),
    ("; cube=1:0", "cube needs the rule cube"),
    ("; count=2", "belong to phases in the middle of a play"),
])  # fmt: skip
def test_out_of_range_and_meaningless_fields_are_named(extra: str, expected: str) -> None:
    """Negative counts and fields of another phase or rule were accepted (check_invariants
    failed at once, or the field was silently dropped)."""
    base = "hands=R7 Y5/G3 G4; discard=R5; draw=B2 G9; colour=R; seat=0; dir=+; phase=play"
    assert expected in _error("uno", base + extra)


def test_a_jump_in_block_counts_copies_of_the_top_card_its_seat_holds() -> None:
    """H-JUMP-1: ``jumpblock=seat:count`` names copies of the top card the seat drew as the
    penalty, which stay in its hand: more than it holds is refused; as many is accepted."""
    base = "hands=G1 G2/Y1 R7; discard=R4 R7; draw=Y5; colour=R; seat=0; dir=+; phase=play"
    with pytest.raises(PositionError, match=r"jumpblock=1:2: seat 1 holds 1 copy of the top card"):
        Game.from_position(uno_env.load_rules("uno", jump_in=True), base + "; jumpblock=1:2")
    with pytest.raises(PositionError, match=r"jumpblock=0:1: seat 0 holds 0 copies of the top card"):
        Game.from_position(uno_env.load_rules("uno", jump_in=True), base + "; jumpblock=0:1")
    game = Game.from_position(uno_env.load_rules("uno", jump_in=True), base + "; jumpblock=1:1")
    assert (game.state[L.S_JUMP_BLOCK_SEAT], game.state[L.S_JUMP_BLOCK_COUNT]) == (1, 1)


DRAWN = (
    "hands=R1 R2 {drawn}/G3 G4/B9 B1; discard=R5; draw=B2 G9; colour=R; seat=0; dir=+; phase=drawn; "
    "drawn={drawn}"
)


@pytest.mark.parametrize("draw", ["one", "until_playable"])
def test_a_drawn_card_that_cannot_be_played_is_not_asked_about(draw: str) -> None:
    """U-DRAW-1 / U-DRAW-2: phase ``drawn`` asks about a playable drawn card; a B3 drawn on red
    ends the turn (``draw="one"``) or the drawing goes on (``"until_playable"``), so a position
    holding it there (where only pass or call would be legal) is refused, naming the card, the
    pile and what is allowed. A playable one (R3, or a Wild) is accepted."""
    message = _error(uno_env.load_rules("uno", draw=draw), DRAWN.format(drawn="B3"))
    assert "drawn=B3: seat 0 cannot play it on R5 (colour R)" in message
    assert f"draw='{draw}'" in message and "allowed: a drawn card seat 0 can play" in message
    for playable in ("R3", "Y5", "W"):
        game = Game.from_position(uno_env.load_rules("uno", draw=draw), DRAWN.format(drawn=playable))
        assert game.describe_action(game.legal_actions()[0]) == playable


def test_a_drawn_wild_draw_four_refused_as_a_bluff_is_not_asked_about() -> None:
    """U-WD4-2 (``wd4_bluff="refused"``) with U-DRAW-1: seat 0 holds R1 R2, so a drawn Wild Draw
    Four is unplayable and the turn ended: refused. Under MM-CALL-1 (``call="mau_mau"``) play
    can leave it there: the drawn card was playable, and a false call's penalty brought a red
    card since (test_rules_uno's U-WD4-2 scenario): accepted, with pass the only decision left."""
    text = DRAWN.format(drawn="WD4")
    assert "drawn=WD4: seat 0 cannot play it" in _error(uno_env.load_rules("uno", wd4_bluff="refused"), text)
    game = Game.from_position(uno_env.load_rules("uno", wd4_bluff="refused", call="mau_mau"), text)
    assert [game.describe_action(a) for a in game.legal_actions()] == ["pass", "call"]


@pytest.mark.parametrize(
    "overrides", [{"draw": "one_then_any"}, {"cube": True}], ids=["one_then_any", "cube"]
)
def test_a_drawn_card_that_cannot_be_played_stays_where_play_leaves_one(overrides: dict[str, object]) -> None:
    """MM-DRAW-1 (``draw="one_then_any"``) asks after any drawn card (play any playable card or
    pass); with H-CUBE-1 a call in phase ``drawn`` rolls the cube, whose colour or cards may leave
    the drawn card unplayable when the decision comes back. Both accept a drawn B3 on red."""
    game = Game.from_position(uno_env.load_rules("uno", **overrides), DRAWN.format(drawn="B3"))
    assert "pass" in [game.describe_action(a) for a in game.legal_actions()]


def test_phase_drawn_never_holds_under_draw_one_then_pass() -> None:
    """MD-DRAW-1 (``draw="one_then_pass"``): the turn ends with the card drawn, so no position
    of such a game is in phase ``drawn``, playable card or not."""
    rules = uno_env.load_rules("uno", draw="one_then_pass")
    for drawn in ("B3", "R3"):
        message = _error(rules, DRAWN.format(drawn=drawn))
        assert "phase=drawn: under draw='one_then_pass' the turn ends" in message
        assert "allowed: phase=play" in message


def test_the_player_to_move_may_hold_a_call_with_two_cards() -> None:
    """U-UNO-1: the call is made before laying the second-to-last card, so the mover's call
    stands with two cards (and anyone's with one)."""
    base = "hands=R7 Y5/G3; discard=R5; draw=B2 G9; colour=R; seat=0; dir=+; phase=play; called=0 1"
    game = Game.from_position("uno", base)
    assert game.state[L.CALLED] == 1 and game.state[L.CALLED + 1] == 1


@pytest.mark.parametrize("seat", ["\u0661", "\uff10", "0_0", "1.0", " ", "10" * 10])
def test_integers_are_ascii_digits(seat: str) -> None:
    """``int()`` reads other scripts' digits and underscores; a position takes ASCII digits, at
    most 19 of them (an integer of 20 is named as one, not as "must be an integer")."""
    text = f"hands=R7 Y5/G3 G4; discard=R5; draw=B2 G9; colour=R; seat={seat}; dir=+; phase=play"
    long = seat == "10" * 10
    assert ("is an integer of 20 digits; allowed: at most 19" if long else "must be an integer") in _error(
        "uno", text
    )


@pytest.mark.parametrize(("rules", "text", "expected"), [
    ("uno", CHALLENGE.replace("pending=4", "pending=0"), "phase=challenge needs pending"),
    ("uno", CHALLENGE.replace("before=R", "before=-"), "bluff=1 needs before="),
    ("uno", CHALLENGE + "; challengeable=0", "challengeable=0: phase=challenge is the challengeable one"),
    ("uno", CHALLENGE.replace("phase=challenge", "phase=play"), "(pending, skip) is answered"),
    ("uno", CHALLENGE.replace("seat=1", "seat=-1"), "seat=-1 is not a seat 0..1"),
    ("uno", CHALLENGE.replace("phase=challenge; pending=4; bluff=1; before=R", "phase=over; status=won"),
     "seat=1: a finished game has seat=-1"),
    ("uno", "hands=/G3; discard=R5; draw=-; colour=R; seat=-1; dir=+; phase=over; status=won",
     "status=won needs winner=<seat>"),
    ("uno", "hands=R1 R2/G3; discard=R5; draw=-; colour=R; seat=0; dir=+; phase=jump; window=1; scan=1; "
     "resume=0", "phase=jump needs the rule jump_in"),
    (dataclasses.replace(uno_env.preset("uno"), jump_in=True),
     "hands=R1 R2/G3; discard=R5; draw=-; colour=R; seat=0; dir=+; phase=jump; window=1; scan=1; resume=0",
     "seat 0 must hold another copy of the top card"),
    (dataclasses.replace(uno_env.preset("uno"), jump_in=True),
     "hands=R5 R2/G3; discard=R5; draw=-; colour=R; seat=0; dir=+; phase=jump; window=1; scan=1",
     "phase=jump needs window=<seat that opened it>, scan=<k> and resume=<seat that plays next>"),
    (dataclasses.replace(uno_env.preset("uno"), jump_in=True),
     "hands=R5 R2/G3 G4/B1; discard=R5; draw=-; colour=R; seat=0; dir=+; phase=jump; window=1; scan=1; "
     "resume=2", "scan=1: the seat asked is the one scan places from window=1"),
    (dataclasses.replace(uno_env.preset("uno"), cube=True),
     "hands=R5 R2/G3; discard=R5; draw=-; colour=R; seat=0; dir=+; phase=target; cube=4:0",
     "cube='4:0' must be action:target, the action die 0..3"),
    (dataclasses.replace(uno_env.preset("uno"), cube=True),
     "hands=R5 R2/G3; discard=R5; draw=-; colour=R; seat=0; dir=+; phase=target; cube=1:2",
     "only target faces 0 and 5 ask for a player"),
    (dataclasses.replace(uno_env.preset("uno"), cube=True),
     "hands=R5 R2/G3; discard=R5; draw=-; colour=R; seat=0; dir=+; phase=target; cube=1:0; cubeuno=1; "
     "cubereturn=continue", "cubereturn=continue returns to phase=continue, which needs the rule"),
    (dataclasses.replace(uno_env.preset("uno"), cube=True, multi_play="identical"),
     "hands=R5 R2/G3; discard=R5; draw=-; colour=R; seat=0; dir=+; phase=target; cube=1:0; "
     "cubereturn=continue", "cubereturn=continue needs cubeuno=1"),
    (dataclasses.replace(uno_env.preset("uno"), cube=True),
     "hands=R5 R2/G3; discard=R5; draw=-; colour=R; seat=0; dir=+; phase=target; cube=1:0; count=2",
     "do not go with a cube roll (unless it returns to cubereturn=continue)"),
    ("macao", MACAO.replace("phase=play", "phase=colour") + "; actor=1",
     "actor=1: in phase=colour the player making the play decides"),
])  # fmt: skip
def test_phase_fields_must_fit_the_phase_and_the_rules(
    rules: uno_env.RuleSet | str, text: str, expected: str
) -> None:
    assert expected in _error(rules, text)


def test_players_outside_the_rule_sets_range() -> None:
    message = _error("mau_mau", "hands=7H/8H; discard=9H; draw=-; colour=H; seat=0; dir=+; phase=play")
    assert "position has 2 hands: num_players=2 is outside this variant's range 4..8" in message


def test_a_position_must_be_a_string() -> None:
    with pytest.raises(TypeError, match="a position is a string"):
        Game.from_position("uno", b"hands=R1/G2")  # type: ignore[arg-type]


def test_accepted_positions_print_back_to_the_same_state() -> None:
    """A position that prints back differently is refused; the accepted ones are stable."""
    for text in (CHALLENGE, GIVE + "; target=1", MACAO + "; sitout=0 2 0"):
        rules = TWO_GIVES if "give" in text else ("macao" if "7H" in text else "uno")
        game = Game.from_position(rules, text)
        again = Game.from_position(rules, game.position())
        np.testing.assert_array_equal(again.state, game.state)


# ---------------------------------------------------------------- positions the rules cannot reach
HOUSE_3 = "hands=R7 Y5/G3 G4/B1 B2; draw=B8 G9; colour=R; dir=+"
MARIO_4 = "hands=R7 Y5/G3 G4/B1 B2/Y7; discard=R5 RD2 SS; draw=B8 G9; colour=R; seat=0; dir=+; phase=answer"


@pytest.mark.parametrize("top", ["W", "G5", "GD2", "SS"])
def test_a_challenge_needs_a_wild_draw_four_on_top(top: str) -> None:
    """U-WD4-2: only a Wild Draw Four just played is challenged; with any other top card the
    challenge judged a card that is not there (a 'bluff' with a Draw Two or a number)."""
    rules = "uno_mario" if top == "SS" else "uno"
    text = CHALLENGE.replace("discard=R9 WD4", f"discard=R9 {top}") + "; from=0"
    assert f"phase=challenge: the top card is {top}; a challenge answers a Wild Draw Four" in _error(
        rules, text
    )


@pytest.mark.parametrize(
    ("direction", "sender", "allowed"), [("+", "0", "1"), ("+", "2", "1"), ("-", "1", "0")]
)
def test_the_challenge_comes_from_the_player_before_the_challenger(
    direction: str, sender: str, allowed: str
) -> None:
    """U-WD4-2: the challenger is the player after the one who laid the Wild Draw Four, so
    ``from`` is the seat before it in the direction of play (a caught bluffer elsewhere at the
    table drew the four in the wrong hand)."""
    text = (
        f"{HOUSE_3.replace('dir=+', f'dir={direction}')}; discard=R9 WD4; seat=2; phase=challenge; "
        f"pending=4; bluff=1; before=R; from={sender}"
    ).replace("colour=R", "colour=G")
    message = _error("uno", text)
    assert f"from={sender}: the penalty's sender is the player before seat=2" in message
    assert message.endswith(f"allowed: {allowed}")


def test_a_challenge_from_the_player_before_is_resolved() -> None:
    """U-WD4-2, 3 players, direction -: seat 0 laid the bluff, seat 2 challenges; seat 0 draws 4."""
    text = (
        "hands=R7 Y5/G3 G4/B1 B2; discard=R9 WD4; draw=B8 G9 Y1 Y2 Y3; colour=G; seat=2; dir=-; "
        "phase=challenge; pending=4; from=0; bluff=1; before=R"
    )
    game = Game.from_position("uno", text)
    game.step("challenge")
    assert game.hand_sizes() == [2 + 4, 2, 2]
    assert game.current_player == 2 and game.state[L.S_COLOUR] == 0  # R restored, seat 2 plays
    game.check_invariants()


@pytest.mark.parametrize(("rules", "text", "expected"), [
    # H-STACK-1: a number on top raised no penalty
    ("uno_house", f"{HOUSE_3}; discard=R5 R6; seat=1; phase=answer; pending=2; from=0",
     "phase=answer: the top card R6 sends no penalty to answer; the top must be a penalty card (D2, WD4)"),
    # official Uno stacks nothing: a Draw Two is drawn at once, never offered for an answer
    ("uno", f"{HOUSE_3}; discard=R5 RD2; seat=1; phase=answer; pending=2; from=0",
     "phase=answer: this rule set allows no answer to a D2 penalty"),
    # the class is the rank of the penalty card on top
    ("uno_house", f"{HOUSE_3}; discard=R5 RD2; seat=1; phase=answer; pending=2; from=0; class=WD4",
     "class=WD4: the penalty was raised by the top card RD2, so its class is D2"),
    ("uno_house", f"{HOUSE_3}; discard=R5 RD2; seat=1; phase=answer; pending=1; from=0",
     "pending=1: the top card RD2 alone sends 2; allowed: 2..1048576"),
    # the Draw Two's player is the one before the victim
    ("uno_house", f"{HOUSE_3}; discard=R5 RD2; seat=1; phase=answer; pending=2; from=2",
     "from=2: the penalty's sender is the player before seat=1 in the direction of play; allowed: 0"),
    # MC-FOUR-1: a 4 on top sends turns to sit out, not cards
    ("macao", MACAO.replace("5H", "4H").replace("phase=play", "phase=answer; pending=2; from=2"),
     "skip=0: the top card 4H alone sends 1"),
    # M-STAR-1: a Super Star sends a draw penalty back to a neighbour, not across the table
    ("uno_mario", f"{MARIO_4}; pending=2; from=2; class=D2",
     "from=2: the penalty's sender is the player before or after seat=0 in the direction of play; "
     "allowed: 1, 3"),
    ("uno_mario", f"{MARIO_4}; pending=2; from=1; class=S",
     "class=S: the top card SS sent back a draw penalty; allowed classes: D2, WD4"),
    ("uno_mario", f"{MARIO_4}; skip=1; from=1; class=D2", "skip=1: turns to sit out are sent by a card"),
])  # fmt: skip
def test_a_penalty_answered_was_raised_by_the_top_card(
    rules: uno_env.RuleSet | str, text: str, expected: str
) -> None:
    """H-STACK-1, MC-FOUR-1, M-STAR-1: a penalty offered for an answer was raised by the top
    card (or sent back by it) from a neighbour of the victim; a penalty no card raised was
    stacked on by the engine's table as if it were one."""
    assert expected in _error(rules, text)


@pytest.mark.parametrize("sender", ["1", "3"])
def test_a_penalty_sent_back_by_a_star_is_answered(sender: str) -> None:
    """M-STAR-1: seat 0's Draw Two came back from seat 1 (a Super Star, sent back to its
    sender) or from seat 3 (a Draw Two passed on); seat 0 accepts: it draws 2, seat 1 plays."""
    game = Game.from_position("uno_mario", f"{MARIO_4}; pending=2; from={sender}; class=D2")
    game.step("accept")
    assert game.hand_sizes() == [4, 2, 2, 1] and game.current_player == 1
    game.check_invariants()


@pytest.mark.parametrize(("rules", "extra", "expected"), [
    ("uno", "; sitout=1 0", "sitout: turns to sit out come from a card that makes the next player sit out"),
    ("uno", "; before=G", "before=G: the colour before a Wild Draw Four is kept only while it is the top"),
])  # fmt: skip
def test_records_of_cards_the_rules_do_not_have(rules: str, extra: str, expected: str) -> None:
    """MC-FOUR-1: only a 4 (or the cube's skip, H-CUBE-1) makes a player sit out; U-WD4-2:
    the colour before a Wild Draw Four belongs with it on top."""
    base = "hands=R7 Y5/G3 G4; discard=R5; draw=B2; colour=R; seat=0; dir=+; phase=play"
    assert expected in _error(rules, base + extra)
    cube = dataclasses.replace(uno_env.preset("uno"), cube=True)
    if "sitout" in extra:  # the cube's skip: a turn to sit out
        assert Game.from_position(cube, base + extra).position() == base + extra


@pytest.mark.parametrize("direction", ["+1", "-1", "1", "0", "cw", "++"])
def test_the_direction_is_plus_or_minus(direction: str) -> None:
    """E-DIR-1: ``+`` or ``-``, the printer's words; ``+1`` was taken and printed back as ``+``."""
    text = f"hands=R7 Y5/G3 G4; discard=R5; draw=B2; colour=R; seat=0; dir={direction}; phase=play"
    assert f"dir={direction!r} must be + or -" in _error("uno", text)


@pytest.mark.parametrize(("rules", "text", "expected"), [
    ("uno", "hands=7H/G3; discard=R5; draw=-; colour=R; seat=0; dir=+; phase=play",
     "'7H' is not an Uno card"),
    ("macao", "hands=R7/3S; discard=5H; draw=-; colour=H; seat=0; dir=+; phase=play", "'R7'"),
    ("uno", "hands=SS/G3; discard=R5; draw=-; colour=R; seat=0; dir=+; phase=play",
     "holds 1 x SS but the deck has 0"),
    ("macao", "hands=JKR/3S; discard=5H; draw=-; colour=H; seat=0; dir=+; phase=play",
     "holds 1 x JKR but the deck has 0"),
])  # fmt: skip
def test_cards_outside_the_rule_sets_deck(rules: str, text: str, expected: str) -> None:
    """U-DECK-1, MC-DECK-1: cards of the other deck family, or of the family but not in this
    deck (Super Stars outside Uno Super Mario, jokers without MC-OPT-1)."""
    assert expected in _error(rules, text)


# ---------------------------------------------------------------- past the parser: the engine's checks
def _broken(rules: uno_env.RuleSet | str, text: str, index: int, value: int) -> Game:
    game = Game.from_position(rules, text)
    game.state[index] = value
    return game


@pytest.mark.parametrize("value", [100000, -100000, 2, 50])
def test_engine_refuses_a_sender_outside_the_table(value: int) -> None:
    game = _broken("uno", f"{CHALLENGE}; from=0", L.S_PENDING_FROM, value)
    cards_before = int(game.state[L.DECK : L.DECK + L.MAX_FACES].sum())
    with pytest.raises(EngineError, match="a seat index in the state is not a player"):
        game.step("challenge")
    assert game.is_over() and game.legal_actions() == []
    assert sum(game.hand_sizes()) + game.draw_pile_size + len(game.discard_pile()) == cards_before
    with pytest.raises(EngineError):  # the game stays refused
        game.step("accept")


@pytest.mark.parametrize("value", [100000, 99, -1])
def test_engine_refuses_a_give_target_outside_the_table(value: int) -> None:
    game = _broken(TWO_GIVES, GIVE + "; target=1", L.S_TARGET, value)
    with pytest.raises(EngineError, match="not a player"):
        game.step("R1")
    assert sum(game.hand_sizes()) == 5  # no card left the table


def test_engine_ends_a_turn_with_nobody_to_pass_to() -> None:
    """Every player marked as left: the seat search stops after one round of the table."""
    game = Game.from_position("macao", MACAO)
    game.state[L.FINISHED : L.FINISHED + 3] = (1, 2, 3)
    game.state[L.S_NFINISHED] = 3
    with pytest.raises(EngineError, match="no player is left in play"):
        game.step("7H")
    assert game.is_over()


def test_engine_refuses_a_seat_to_move_outside_the_table() -> None:
    game = _broken("uno", f"{CHALLENGE}; from=0", L.S_CURRENT, 7)
    with pytest.raises(EngineError):
        game.step("accept")
    aec = uno_env.env("uno", num_players=2)
    aec.reset(options={"position": f"{CHALLENGE}; from=0"})
    aec.unwrapped._state[L.S_PENDING_FROM] = 100000
    with pytest.raises(EngineError, match="not a player"):
        aec.step(uno_env.parse_action("challenge", "uno"))


def test_doubling_stacks_stay_in_range() -> None:
    """MD-SEVEN-1: the doubled penalty is capped (more than any deck), not shifted past 64 bits."""
    rules = dataclasses.replace(uno_env.preset("mau_mau_doubling"), multi_play="same_rank")
    text = (
        "hands=7H 7C 2H/8H 9C; discard=7D 7S; draw=2C 3C 4C; colour=S; seat=0; dir=+; phase=answer; "
        "pending=1048576; from=1"
    )
    game = Game.from_position(rules, text)
    game.step("7C")
    game.step("7H")  # 2**20 doubled twice
    assert game.pending_penalty == L.PENALTY_LIMIT and game.current_player == 1
    game.check_invariants()


def test_vector_env_games_never_raise_engine_errors() -> None:
    """Dealt games never meet the checks: a few steps of the vector env stay error-free."""
    venv = VectorEnv(4, "uno_house", 4)
    venv.reset(seed=0)
    for _ in range(50):
        venv.step(np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()]))
    assert not venv._states[:, L.S_ENGINE_ERROR].any()


def test_single_agent_env_raises_on_a_broken_state() -> None:
    """The single-agent env takes no positions; a state written directly still raises, it is
    never reported as an ordinary truncated game."""
    env = uno_env.SingleAgentEnv("uno", 2, seat=0)
    _, info = env.reset(seed=3)
    env.unwrapped._state[L.S_CURRENT] = 7
    with pytest.raises(EngineError, match="not a player"):
        env.step(int(np.flatnonzero(info["action_mask"])[0]))


def test_a_player_who_went_out_on_an_ace_still_names_the_suit() -> None:
    """MC-END-1 with MC-ACE-1: seat 3 laid its last card, an Ace (AD on top), and left (finished=2), but
    the suit is still its choice. A position of a real game (macao, 4 players, seed 2); the
    check that a player who left is never asked refused it."""
    text = (
        "hands=4C 3D 10H//AC 3C 8C JC 5D 6H 5S 6S KS/; discard=JS JD 8D 4D 6D 6C 2C QC 5C KC 9C 7C "
        "10C 10S 8S 8H 7H 9H 3H 3S 2S QS QD 7D KD KH AH AD; draw=4S 5H 7S 9D 2H AS 4H 2D 9S JH QH "
        "10D; colour=D; seat=3; dir=+; phase=colour; finished=0 1 0 2; dealer=2; decisions=47"
    )
    game = Game.from_position("macao", text)
    assert game.position() == text
    game.step("suit H")
    assert game.current_player == 0 and game.state[L.S_COLOUR] == 2  # C D H S
    game.check_invariants()
    message = _error("macao", text.replace("phase=colour", "phase=play"))
    assert "seat=3: that player has left the game" in message


@pytest.mark.parametrize("opponents", ["random", "external"])
def test_vector_env_raises_on_a_broken_state(opponents: str) -> None:
    """The vector env takes no positions; a state written directly raises like the other envs,
    and the broken game is not paid, reported as truncated or redealt."""

    def first_legal(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return masks.argmax(axis=1).astype(np.int64)

    venv = VectorEnv(3, "uno", 2, opponents="random" if opponents == "random" else first_legal, seat=0)
    venv.reset(seed=5)
    venv._states[1, L.S_CURRENT] = 7
    actions = np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()])
    with pytest.raises(EngineError, match=r"game 1: .*not a player"):
        venv.step(actions)
    assert venv._states[1, L.S_ENGINE_ERROR] == L.ERR_SEAT
