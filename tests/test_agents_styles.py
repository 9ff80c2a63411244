"""Scenario tests of the play styles: each style's defining behaviour, from one-line positions.

Every test builds a situation in position notation (``uno`` preset unless stated) and asserts
the exact action a style takes there, through its Python agent (:class:`agents.ScriptedAgent`
at the :class:`~uno_env.Game`). :func:`decide` also asks the compiled kernel directly on the
full state buffer with the agent's generator and checks both agree, so the redacted view and
the batch path make the same choice. Where a style's idea is a contrast with another style,
the test shows both choices.

Rules involved: U-MATCH-1, U-DRAW-1, U-DRAW-3, U-SKIP-1, U-REV-1, U-D2-1, U-WILD-1, U-WD4-1,
U-WD4-2, U-UNO-1, U-SCORE-1, H-STACK-1, H-JUMP-1, MM-CALL-1.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents import ScriptedAgent, make
from uno_env import Game
from uno_env.engine import layout as L
from uno_env.engine.cards import parse_face
from uno_env.engine.rules import compile_spec
from uno_env.styles.dispatch import choose_action
from uno_env.styles.facts import bluff_probability_ppm, fallback_action, is_bluff
from uno_env.styles.monte_carlo import POLICY_MONTE_CARLO
from uno_env.styles.registry import POLICIES, STYLES, parse_policy
from uno_env.styles.scripted import POLICY_BLOCKER

SCRIPTED = [name for name in STYLES if name not in ("random_legal", "random_playable", "search", "oracle")]
"""The styles with a scripted idea per decision (the search agents have tests of their own)."""


def position(text: str, seed: int = 0, rules: str = "uno", **overrides: Any) -> Game:
    """A game of a preset (``uno`` by default) at a position."""
    return Game.from_position(rules, text, seed=seed, **overrides)


def decide(style: str, game: Game, seed: int = 0) -> str:
    """The notation of the action ``style`` takes in ``game`` (Python agent == compiled kernel)."""
    agent = ScriptedAgent(style, seed=seed)
    full = game.state.copy()
    full[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS] = agent._generator
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    mask[: game.num_actions] = game.legal_mask()
    spec = compile_spec(game.rules)
    compiled = choose_action(full, spec, mask, int(mask.sum()), agent.style.code, agent.params)
    action = agent.act(None, game.legal_mask(), game)
    assert action == compiled, f"{style}: agent chose {action}, compiled kernel {compiled}"
    assert action in game.legal_actions()
    return game.describe_action(action)


def at(text: str, style: str, seed: int = 0, rules: str = "uno", **overrides: Any) -> str:
    """The action of ``style`` at position ``text`` of preset ``rules``."""
    return decide(style, position(text, rules=rules, **overrides), seed)


def play_position(
    hands: str, top: str = "R5", colour: str = "R", draw: str = "B1 B2 G7", **extra: str
) -> str:
    """Position text in the play phase with seat 0 to move, clockwise."""
    fields = [f"hands={hands}", f"discard={top}", f"draw={draw}", f"colour={colour}", "seat=0", "dir=+"]
    fields.append(f"phase={extra.pop('phase', 'play')}")
    fields += [f"{k}={v}" for k, v in extra.items()]
    return "; ".join(fields)


# ================================================================ every scripted style
@pytest.mark.parametrize("style", SCRIPTED)
def test_every_style_calls_uno_before_its_second_to_last_card(style: str) -> None:
    """U-UNO-1: with two cards and a playable one, every scripted style calls first."""
    assert at(play_position("R3 R4/G1 G2 G3"), style) == "call"


@pytest.mark.parametrize("style", [s for s in SCRIPTED if s != "monte_carlo"])
def test_every_style_names_the_colour_it_holds_most_of(style: str) -> None:
    """U-WILD-1: after a wild, the colour with the most cards in hand (here yellow)."""
    text = play_position("Y1 Y2 B3/G1 G2 G3", top="R5 W", colour="-", phase="colour")
    assert at(text, style) == "colour Y"


def test_colour_ties_go_to_the_colour_with_more_points() -> None:
    """U-WILD-1: one yellow and one blue card: the blue 9 outweighs the yellow 1."""
    text = play_position("Y1 B9/G1 G2 G3", top="R5 W", colour="-", phase="colour")
    assert at(text, "greedy") == "colour B"


@pytest.mark.parametrize("style", [s for s in SCRIPTED if s not in ("bluffer", "monte_carlo")])
def test_no_style_but_the_bluffer_bluffs_a_wild_draw_four(style: str) -> None:
    """U-WD4-1/2: holding a red card on red, a Wild Draw Four would be a bluff: never played."""
    assert at(play_position("R2 WD4 G7/G1 G2 G3"), style) != "WD4"


@pytest.mark.parametrize("style", [s for s in SCRIPTED if s != "monte_carlo"])
def test_a_style_draws_when_nothing_is_playable(style: str) -> None:
    """U-DRAW-1: no playable card: draw."""
    assert at(play_position("Y2 G3 B4/G1 G2 G3"), style) == "draw"


@pytest.mark.parametrize("style", [s for s in SCRIPTED if s != "monte_carlo"])
def test_a_playable_drawn_number_is_played(style: str) -> None:
    """U-DRAW-1: the drawn card is playable (and no style keeps numbers): play it."""
    text = play_position("Y2 G3 R7/G1 G2 G3", phase="drawn", drawn="R7")
    assert at(text, style) == "R7"


@pytest.mark.parametrize("style", [s for s in SCRIPTED if s != "monte_carlo"])
def test_an_unknown_phase_gets_the_documented_fallback(style: str) -> None:
    """A decision no style knows yet (a phase added later): the first legal non-draw action."""
    game = position(play_position("R3 G4 Y1/G1 G2 G3"))
    state = game.state.copy()
    state[L.S_PHASE] = L.PHASE_SLOTS - 1  # a phase number no rule uses (yet)
    spec = compile_spec(game.rules)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    nf = game.rules.num_faces
    mask[nf + L.A_DRAW_OFFSET] = 1
    mask[game.parse_action("G4")] = 1
    mask[game.parse_action("Y1")] = 1
    style_, params = parse_policy(style)
    action = choose_action(state, spec, mask, 3, style_.code, params)
    assert game.describe_action(action) == "Y1"  # Y1 (face 14) comes before G4 (face 30)


def test_a_target_decision_names_the_opponent_with_fewest_cards() -> None:
    """Fallback for target phases: the seat with the fewest cards (here 2 places clockwise)."""
    game = position(play_position("R3 G4/G1 G2 G3 G4 G5/B1/Y1 Y2 Y3"))
    state = game.state.copy()
    state[L.S_PHASE] = L.PHASE_SLOTS - 1
    spec = compile_spec(game.rules)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    nf = game.rules.num_faces
    for k in (1, 2, 3):
        mask[nf + L.A_TARGET_OFFSET + k - 1] = 1
    action = fallback_action(state, spec, mask)
    assert game.describe_action(action) == "target +2"
    assert choose_action(state, spec, mask, 3, POLICY_BLOCKER, np.full(4, -1)) == action


def test_the_dispatcher_returns_minus_one_when_nothing_is_legal() -> None:
    game = position(play_position("R3 G4/G1 G2 G3"))
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    spec = compile_spec(game.rules)
    for code in POLICIES.values():
        assert choose_action(game.state.copy(), spec, mask, 0, code, np.full(4, -1)) == -1


# ================================================================ greedy
def test_greedy_plays_its_highest_scoring_card() -> None:
    """U-SCORE-1 points: Skip (20) over 9 over 2; a wild (50) over all."""
    assert at(play_position("R2 R9 RS Y3/G1 G2 G3"), "greedy") == "RS"
    assert at(play_position("R2 R9 Y3/G1 G2 G3"), "greedy") == "R9"
    assert at(play_position("R2 RS W/G1 G2 G3"), "greedy") == "W"


def test_greedy_breaks_a_points_tie_towards_its_longest_colour() -> None:
    """Two 5s worth 5 each: the yellow 5 keeps play in yellow, where it holds more cards."""
    assert at(play_position("G5 Y5 Y1 Y2/B1 B2 B3"), "greedy") == "Y5"


def test_greedy_plays_a_legal_wild_draw_four() -> None:
    """U-WD4-1: no red card in hand on red: the Wild Draw Four (50) is legal and played."""
    assert at(play_position("Y2 WD4 G7/G1 G2 G3"), "greedy") == "WD4"


# ================================================================ aggressor
def test_aggressor_plays_the_draw_two_when_it_could_play_a_number() -> None:
    """U-D2-1 first: the Draw Two before the 9."""
    assert at(play_position("R9 RD2 Y3/G1 G2 G3"), "aggressor") == "RD2"


def test_aggressor_prefers_attacks_to_points() -> None:
    """Draw Two before Skip before a number; a plain wild only after a number."""
    assert at(play_position("RS RD2 W/G1 G2 G3"), "aggressor") == "RD2"
    assert at(play_position("RS R9 W/G1 G2 G3"), "aggressor") == "RS"
    assert at(play_position("R1 W B8/G1 G2 G3"), "aggressor") == "R1"
    assert at(play_position("R9 RD2 W/G1 G2 G3"), "greedy") == "W"  # the contrast


def test_aggressor_skips_before_reversing_with_more_than_two_players() -> None:
    """U-REV-1: with three players a Reverse does not skip; the Skip hits harder."""
    assert at(play_position("RR RS Y1/G1 G2/B1 B2"), "aggressor") == "RS"


# ================================================================ hoarder
def test_hoarder_keeps_its_wild_while_nobody_is_close_to_out() -> None:
    """The opponent holds 5 cards: the 3 is played and the wild kept (greedy plays the wild)."""
    text = play_position("R3 W B8/G1 G2 G3 G4 G5")
    assert at(text, "hoarder") == "R3"
    assert at(text, "greedy") == "W"


def test_hoarder_draws_rather_than_play_a_kept_card() -> None:
    """U-DRAW-3: only the wild and the Draw Two are playable: it draws and keeps them."""
    assert at(play_position("Y3 W RD2/G1 G2 G3 G4 G5"), "hoarder") == "draw"


def test_hoarder_attacks_once_an_opponent_is_close_to_out() -> None:
    """The opponent holds 2 cards (= threat): the Draw Two first, before the 3 and the wild."""
    assert at(play_position("R3 RD2 W/G1 G2"), "hoarder") == "RD2"
    assert at(play_position("R3 RD2 W/G1 G2"), "hoarder:threat=1") == "R3"


def test_hoarder_stops_hoarding_past_its_hand_limit() -> None:
    """With more cards than ``limit`` it plays its kept cards."""
    hands = "Y3 W G4 G6 G7 G8 G9 B1 B2 B3 B4/G1 G2 G3 G4 G5"
    assert at(play_position(hands), "hoarder") == "W"  # 11 cards > limit 10
    assert at(play_position(hands), "hoarder:limit=11") == "draw"


# ================================================================ colour controller
def test_controller_switches_into_its_longest_colour() -> None:
    """On a red 4 it plays the green 4 (three greens left) where greedy plays the red 9."""
    text = play_position("R9 G4 G1 G2 G3/B1 B2 B3", top="R4")
    assert at(text, "controller") == "G4"
    assert at(text, "greedy") == "R9"


def test_controller_uses_a_wild_to_reach_its_long_colour() -> None:
    """No green is playable on red: the wild (naming green) leaves three greens in play."""
    assert at(play_position("R9 W G1 G2 G3/B1 B2 B3"), "controller") == "W"


def test_controller_keeps_its_wild_when_a_coloured_card_keeps_the_colour() -> None:
    """Playing in red (its longest colour) keeps the wild for later."""
    assert at(play_position("R1 R2 R9 W/B1 B2 B3"), "controller") == "R9"


# ================================================================ blocker
def test_blocker_skips_the_leader_when_it_plays_next() -> None:
    """Three players; seat 1 (next) holds one card: Skip it (U-SKIP-1)."""
    assert at(play_position("R3 RS RR/G1/G2 G3 G4 G5 G6"), "blocker") == "RS"


def test_blocker_reverses_play_away_from_the_leader() -> None:
    """Seat 1 (next) holds one card and no Skip is at hand: the Reverse turns play away."""
    assert at(play_position("R3 RR B8/G1/G2 G3 G4 G5 G6"), "blocker") == "RR"


def test_blocker_never_reverses_towards_the_leader() -> None:
    """Seat 2 (previous) holds one card: a Reverse would hand it the turn: draw instead."""
    assert at(play_position("Y3 RR B8/G1 G2 G3 G4 G5/G6"), "blocker") == "draw"
    assert at(play_position("Y3 RR B8/G1 G2 G3 G4 G5/G6"), "greedy") == "RR"  # the contrast


def test_blocker_saves_its_action_cards_while_the_leader_is_not_next() -> None:
    """The leader is seat 2 (previous): the 3 is shed, the Skip saved (greedy plays it)."""
    text = play_position("R3 RS B8/G1 G2 G3 G4 G5/G6")
    assert at(text, "blocker") == "R3"
    assert at(text, "greedy") == "RS"


# ================================================================ bluffer
def test_bluffer_bluffs_at_its_rate() -> None:
    """U-WD4-2: holding red on red, the Wild Draw Four is a bluff: rate 1 plays it, 0 never."""
    text = play_position("R2 WD4 B8/G1 G2 G3")
    assert at(text, "bluffer:bluff=1") == "WD4"
    assert at(text, "bluffer:bluff=0") == "R2"


def test_bluffer_bluffs_sometimes_at_half_rate() -> None:
    """Rate 0.5: over 200 seeds both choices occur, each in 30-70% of them."""
    text = play_position("R2 WD4 B8/G1 G2 G3")
    bluffs = sum(at(text, "bluffer", seed=s) == "WD4" for s in range(200))
    assert 60 <= bluffs <= 140


CHALLENGE = (
    "hands=R1 R2 Y5/{sender}; discard=G5 WD4; draw={draw}; colour=G; seat=0; dir=+; phase=challenge; "
    "pending=4; from=1; before=G"
)


def challenge(sender: str, draw: str) -> str:
    """Seat 0 to challenge seat 1's Wild Draw Four laid on green: a bluff (``bluff=1``, hidden
    from seat 0) exactly when seat 1 holds a green card (U-WD4-1)."""
    bluff = any(card.startswith("G") for card in sender.split())
    return CHALLENGE.format(sender=sender, draw=draw) + ("; bluff=1" if bluff else "")


def test_bluffer_challenges_at_its_rate() -> None:
    """U-WD4-2: rate 1 always challenges, rate 0 always accepts."""
    text = challenge("Y1", "B1 B2")
    assert at(text, "bluffer:challenge=1") == "challenge"
    assert at(text, "bluffer:challenge=0") == "accept"


# ================================================================ challenge on evidence
def test_evidence_style_challenges_a_big_hand_among_many_cards_of_the_old_colour() -> None:
    """U-WD4-2: the sender holds 8 cards and most unseen cards are green: a bluff is likely."""
    text = challenge("G1 G2 G3 G4 G6 G7 G8 G9", "G1 G2 G3 G4 G6 G7 G8 G9 B1")
    assert at(text, "greedy") == "challenge"


def test_evidence_style_accepts_from_a_one_card_hand_among_few_green_cards() -> None:
    """U-WD4-2: the sender holds one card and 1 of the 9 unseen cards is green: accept."""
    text = challenge("B9", "G1 B1 B2 B3 B4 B5 B6 B7")
    assert at(text, "greedy") == "accept"


def test_cautious_doubts_less_readily_than_greedy() -> None:
    """Two sender cards, half of the unseen cards green: P(bluff) = 1 - 5/10 * 4/9 ~ 0.78 for
    greedy (doubt 0.5) and cautious (0.75); one sender card (0.5): greedy only."""
    two = challenge("G1 B9", "G2 G3 G4 G6 B1 B2 B3 B4")
    assert at(two, "greedy") == "challenge"
    assert at(two, "cautious") == "challenge"
    one = challenge("G1", "G2 G3 G4 G6 B1 B2 B3 B4 B5")
    assert at(one, "greedy") == "challenge"
    assert at(one, "cautious") == "accept"


def test_bluff_probability_is_the_hypergeometric_estimate() -> None:
    """One sender card among 10 unseen cards, 5 of them green: exactly 0.5."""
    game = position(challenge("G1", "G2 G3 G4 G6 B1 B2 B3 B4 B5"))
    spec = compile_spec(game.rules)
    assert bluff_probability_ppm(game.state, spec, 0) == 500_000


def test_bluff_probability_counts_only_the_cards_that_make_it_illegal_under_each_reading() -> None:
    """U-WD4-1 / U-WD4-2: seat 1 holds one card, the Wild Draw Four lies on G5, 10 cards are
    unseen. A green card makes it a bluff (5 of them: GS GR GD2 G2 G3); under
    ``no_playable_card`` so do a Wild and the 5s (8); under ``no_playable_number_card`` only
    the number cards that matched: G2 G3 Y5 B5 (4)."""
    text = challenge("B1", "GS GR GD2 W G2 G3 Y5 B5 B2")
    for legal_when, ppm in (
        ("no_matching_colour", 500_000),
        ("no_playable_card", 800_000),
        ("no_playable_number_card", 400_000),
    ):
        game = position(text, wd4_legal_when=legal_when)
        assert bluff_probability_ppm(game.state, compile_spec(game.rules), 0) == ppm, legal_when


@pytest.mark.parametrize("style", [s for s in SCRIPTED if s not in ("bluffer", "monte_carlo")])
def test_no_style_bluffs_a_wild_draw_four_under_the_number_card_reading(style: str) -> None:
    """U-WD4-1 option ``no_playable_number_card``: on R5, G5 matches by number, so the Wild Draw
    Four would be a bluff (the styles' test, ``is_bluff``, says so) and no style but the bluffer
    plays it; with a red Skip instead it is no bluff."""
    text = play_position("G5 WD4 Y7/G1 G2 G3")
    game = position(text, wd4_legal_when="no_playable_number_card")
    spec = compile_spec(game.rules)
    assert is_bluff(game.state, spec, 0, parse_face("WD4"))
    assert at(text, style, wd4_legal_when="no_playable_number_card") != "WD4"
    assert at(text, "bluffer:bluff=1", wd4_legal_when="no_playable_number_card") == "WD4"
    skip = position(play_position("RS WD4 Y7/G1 G2 G3"), wd4_legal_when="no_playable_number_card")
    assert not is_bluff(skip.state, spec, 0, parse_face("WD4"))


# ================================================================ cautious
def test_cautious_keeps_a_wild_back_as_its_last_card() -> None:
    """It sheds the 3 and keeps the wild (greedy plays the wild first)."""
    assert at(play_position("R3 W Y7/G1 G2 G3"), "cautious") == "R3"


def test_cautious_draws_rather_than_spend_its_reserve_wild() -> None:
    assert at(play_position("Y7 W G4/G1 G2 G3"), "cautious") == "draw"
    assert at(play_position("Y7 W G4/G1 G2 G3"), "cautious:reserve=0") == "W"


def test_cautious_plays_a_spare_wild_and_goes_out_with_the_last() -> None:
    assert at(play_position("Y7 W W G4/G1 G2 G3"), "cautious") == "W"
    assert at(play_position("W/G1 G2 G3"), "cautious") == "W"


# ================================================================ Monte-Carlo sampler
def test_monte_carlo_takes_the_immediate_win() -> None:
    """One card left and playable: it plays it rather than draw (U-DRAW-3 allows drawing)."""
    assert at(play_position("R3/G1 G2 G3", called="0"), "monte_carlo") == "R3"


def test_monte_carlo_finds_the_skip_that_wins_in_two_moves() -> None:
    """Opponent on one card, most unseen cards red. Greedy plays the wild (50 points), naming
    red, and the opponent goes out on it; the Skip keeps the turn and the wild then wins."""
    text = play_position("RS W/R0", draw="R1 R2 R3 R4 R6 R7 R8", called="0")
    assert at(text, "greedy") == "W"
    assert at(text, "monte_carlo") == "RS"


def test_monte_carlo_with_one_legal_action_draws_nothing_from_its_generator() -> None:
    game = position(play_position("Y2/G1 G2 G3", top="R5 WD4", phase="challenge", pending="4", before="B"))
    assert game.legal_actions() == [game.parse_action("challenge"), game.parse_action("accept")]
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    mask[game.parse_action("accept")] = 1
    state = game.state.copy()
    before = state[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS].copy()
    spec = compile_spec(game.rules)
    params = parse_policy("monte_carlo")[1]
    assert choose_action(state, spec, mask, 1, POLICY_MONTE_CARLO, params) == mask.argmax()
    assert np.array_equal(state[L.AGENT_RNG : L.AGENT_RNG + L.RNG_WORDS], before)


def test_styles_read_parameters_from_make() -> None:
    """``agents.make`` passes parameters to the compiled kernel (hoarder threat=1 keeps)."""
    agent = make("hoarder:threat=1", seed=0)
    game = position(play_position("R3 RD2 W/G1 G2"))
    assert game.describe_action(agent.act(None, game.legal_mask(), game)) == "R3"


# ================================================================ house rules and other decks
@pytest.mark.parametrize("style", [s for s in SCRIPTED if s != "monte_carlo"])
def test_a_stackable_penalty_is_passed_on(style: str) -> None:
    """H-STACK-1 (``uno_house``): a Draw Two hits; every style answers with its Draw Two."""
    text = (
        "hands=R3 BD2 Y5/G1 G2 G3; discard=G5 GD2; draw=B1 B2 B3 B4; colour=G; seat=0; dir=+; "
        "phase=answer; pending=2; from=1"
    )
    assert at(text, style, rules="uno_house") == "BD2"


@pytest.mark.parametrize("style", [s for s in SCRIPTED if s != "monte_carlo"])
def test_every_style_jumps_in_with_an_identical_card(style: str) -> None:
    """H-JUMP-1 (``uno_house``): seat 2 holds the identical green 5 and lays it out of turn."""
    text = (
        "hands=G1 G2 G3/R1 R2 R3/G5 R1 Y2; discard=R5 G5; draw=B1 B2 B3 B4; colour=G; seat=2; "
        "dir=+; phase=jump; window=0; scan=2; resume=1"
    )
    assert at(text, style, rules="uno_house") == "G5"


MAU_MAU = (
    "hands={hand}/3C 4C 5C 6C/3D 4D/5D 6D; discard=9H; draw=2S 3S 4S; colour=H; seat=0; dir=+; phase=play"
)


@pytest.mark.parametrize("style", SCRIPTED)
def test_no_style_makes_a_false_mau_mau_call(style: str) -> None:
    """MM-CALL-1 (``mau_mau``): calling is legal at any hand size but false (5 cards) unless
    two cards are held and one is laid: with three cards no style calls, with two it does."""
    assert at(MAU_MAU.format(hand="7H 8H 2C"), style, rules="mau_mau") != "call"
    assert at(MAU_MAU.format(hand="7H 2C"), style, rules="mau_mau") == "call"
    if style != "monte_carlo":
        assert at(MAU_MAU.format(hand="2C 3C"), style, rules="mau_mau") == "draw"
