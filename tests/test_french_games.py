"""Whole random games of the French-deck games: every preset at every player count, a
correctly calling Mau-Mau player on the facade, and random French-deck rule variants.

- Every French preset (``mau_mau``, ``mau_mau_doubling``, ``macao``) at every player count of
  its range plays random games in compiled code with the engine invariants checked after
  every decision (E-CONS-1); every game ends (E-END-1: won, or truncated exactly at
  ``max_decisions``) and its result agrees with the preset's end and scoring rules
  (MM-SCORE-1: each player's own points, ranked by them; MC-END-1: leaving order, the last
  player left holding cards). Uniformly random Mau-Mau players often make false calls
  (legal but costly under MM-CALL-1), so those games often truncate.
- Mau-Mau players who call exactly when MM-CALL-1 asks finish their games.
- A hypothesis property draws French-deck rule sets from the switches (MM-DECK-1,
  MD-DECK-1, MC-DECK-1 deck sizes, MC-OPT-1 jokers, ``card_effects`` mappings, stack tables
  and growth, U-DRAW-1..3 / MM-DRAW-1 / MD-DRAW-1 draw rules, H-MULTI-1/2 and MC-TURN-1
  multi-card plays, U-UNO-1 / MM-CALL-1 calls, MM-JACK-1 ``wild_not_on``, MC-END-1 end,
  MM-SCORE-1 scoring, U-START-1 / MM-START-1 / MC-START-1 starting card) and checks the same
  invariants, plus a short facade walk with position round trips.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import uno_env
from uno_env import BatchResult, Game, Phase, RuleSet, simulate
from uno_env.engine.rules import MACAO_EFFECTS, MACAO_KINGS

FRENCH_PRESETS = ("mau_mau", "mau_mau_doubling", "macao")
PRESET_CASES = [
    (name, n)
    for name in FRENCH_PRESETS
    for n in range(uno_env.preset(name).min_players, uno_env.preset(name).max_players + 1)
]
GAMES = 12  # random games per (preset, player count)


def check_results(rules: RuleSet, num_players: int, result: BatchResult) -> None:
    """E-END-1 and the rule set's end and scoring rules, for every game of a batch."""
    n = num_players
    for g in range(result.num_games):
        winner = int(result.winner[g])
        length = int(result.length[g])
        ranking = result.ranking[g].tolist()
        points = result.round_points[g].tolist()
        scores = result.scores[g].tolist()
        if winner < 0:  # E-END-1: truncated exactly at the limit, no ranking
            assert length == rules.max_decisions, (g, length)
            assert ranking == [-1] * n
            continue
        assert 0 < length <= rules.max_decisions
        assert sorted(ranking) == list(range(n)) and ranking[0] == winner
        assert int(result.rounds[g]) >= 1
        assert all(x >= 0 for x in points + scores)
        if rules.end == "last_player":  # MC-END-1: only the last player still holds cards
            loser = ranking[-1]
            assert points[loser] > 0, (g, points, ranking)
            assert all(points[s] == 0 for s in range(n) if s != loser), (g, points, ranking)
        elif rules.match == "single_round":
            assert points[winner] == 0, (g, points)
            assert int(result.rounds[g]) == 1
            # a single round ranks the winner, then by points left in hand (MM-SCORE-1)
            assert [points[s] for s in ranking[1:]] == sorted(points[s] for s in ranking[1:])
            if rules.round_score == "own_points":
                assert scores == points
            else:  # U-SCORE-1: the winner takes the points left in the other hands
                assert scores[winner] == sum(points)


@pytest.mark.parametrize(("name", "num_players"), PRESET_CASES)
def test_french_preset_random_games_keep_the_invariants(name: str, num_players: int) -> None:
    """Every French preset at every allowed player count: invariants after every decision,
    every game won or truncated at the limit, results as the preset's rules say."""
    rules = uno_env.preset(name)
    result = simulate(name, num_players, GAMES, seed=100 * num_players, check_invariants=True)
    assert result.num_games == GAMES
    check_results(rules, num_players, result)
    if name != "mau_mau":  # these random games end well before the limit
        assert not result.truncated.any(), result.length


# ================================================================ correct Mau-Mau calls
def correct_caller(game: Game, chooser: random.Random) -> str:
    """A random Mau-Mau player who calls exactly when MM-CALL-1 asks: holding two cards,
    one of them playable, about to lay it without drawing (a valid call, never a false one)."""
    options = [game.describe_action(a) for a in game.legal_actions()]
    seat = game.current_player
    cards = [a for a in options if a[0].isdigit() or a[0] in "AJQK"]
    if "call" in options and game.phase == Phase.PLAY and len(game.hand(seat)) == 2 and cards:
        return "call"
    options = [a for a in options if a != "call"]
    if cards and "draw" in options:
        options.remove("draw")  # a player with a card to lay lays one (not a rule: keeps games short)
    return chooser.choice(options)


@pytest.mark.parametrize("num_players", range(4, 9))
def test_MM_CALL_1_correctly_calling_players_finish_their_games(num_players: int) -> None:
    """MM-CALL-1, MM-SCORE-1, E-END-1: Mau-Mau players who always call when they must (and
    never falsely) finish their games; invariants hold after every step; the outcome ranks
    the players by the points left in their hands."""
    for k in range(2):
        seed = 10 * num_players + k
        game = Game("mau_mau", num_players, seed=seed)
        chooser = random.Random(seed)
        game.check_invariants()
        while not game.is_over():
            game.step(correct_caller(game, chooser))
            game.check_invariants()
        outcome = game.outcome()
        assert outcome is not None and not outcome.truncated, game.position()
        assert outcome.winner is not None and outcome.round_points[outcome.winner] == 0
        assert outcome.scores == outcome.round_points
        rest = [outcome.round_points[s] for s in outcome.ranking[1:]]
        assert rest == sorted(rest)


# ================================================================ random French variants
CARD_EFFECTS: tuple[tuple[str, ...], ...] = (
    (),
    uno_env.preset("mau_mau").card_effects,
    uno_env.preset("mau_mau_doubling").card_effects,
    MACAO_EFFECTS,
    (*MACAO_EFFECTS, *MACAO_KINGS),
    ("A:skip", "Q:reverse", "J:wild", "7:draw:2", "9:previous_draws:1", "8:skip"),
    ("2:draw:2", "K:reverse", "A:choose_suit", "4:sit_out:2", "JKB:wild", "JKR:wild_draw:4"),
    ("J:wild_draw:4", "Q:reverse", "10:skip", "5:previous_draws:2"),
    ("7:draw:2", "8:sit_out:1", "QS:draw:5", "KH:previous_draws:3", "A:wild"),
)
# the mappings above that give both jokers an effect
JOKER_EFFECTS = tuple(
    m for m in CARD_EFFECTS if any(e.startswith("JKB") for e in m) and any(e.startswith("JKR") for e in m)
)
STACK_POOL = (
    "7/7",
    "2/2",
    "2/3",
    "3/2",
    "3/3",
    "4/4",
    "JKB/2",
    "2/JKB",
    "JKR/3",
    "JKB/JKR",
    "K/2",
    "2/K",
    "J/J",
)


@st.composite
def french_rule_sets(draw: st.DrawFn) -> tuple[RuleSet, int]:
    """A French-deck RuleSet from the switches and a player count it allows.

    More than two deck copies are left out: ``decks=2`` plus an extra deck is 156 cards,
    beyond the engine's 128, and the rule set refuses it
    (``test_MD_DECK_1_more_cards_than_the_engine_holds_is_refused``). Jokers come with every
    ``start_card``: a joker turned to start is replaced (MC-OPT-1, MC-START-1;
    ``test_MC_OPT_1_a_starting_joker_leaves_an_active_suit``).
    """
    num_players = draw(st.integers(2, 8))
    decks = draw(st.integers(1, 2))
    extra_above = draw(st.sampled_from((0, 0, 2, 3, 4, 6))) if decks == 1 else 0
    jokers = draw(st.booleans())
    copies = decks + (1 if extra_above and num_players > extra_above else 0)
    cards = copies * (54 if jokers else 52)
    hand_size = min(draw(st.integers(1, 8)), (cards - 1) // num_players)
    effects = JOKER_EFFECTS if jokers else CARD_EFFECTS
    start_card = draw(st.sampled_from(("official", "number_only", "first_discard")))
    end = draw(st.sampled_from(("first_out", "first_out", "last_player")))
    round_score = draw(st.sampled_from(("winner_takes", "own_points")))
    if end == "last_player":
        match = "single_round"
    elif round_score == "own_points":
        match = draw(st.sampled_from(("single_round", "single_round", "lowest_total")))
    else:
        match = draw(st.sampled_from(("single_round", "single_round", "first_to_target", "lowest_total")))
    kwargs: dict[str, Any] = {
        "deck": "french",
        "dealer": "random",
        "decks": decks,
        "extra_deck_above": extra_above,
        "jokers": jokers,
        "card_effects": draw(st.sampled_from(effects)),
        "min_players": 2,
        "max_players": num_players,
        "hand_size": hand_size,
        "stacking": tuple(draw(st.lists(st.sampled_from(STACK_POOL), unique=True, max_size=6))),
        "stack_growth": draw(st.sampled_from(("add", "double"))),
        "draw": draw(st.sampled_from(("one", "until_playable", "one_then_any", "one_then_pass"))),
        "drawn_card": draw(st.sampled_from(("may_keep", "must_play"))),
        "draw_when_playable": draw(st.booleans()),
        "reverse_with_two": draw(st.sampled_from(("skip", "reverse"))),
        "start_reverse": draw(st.sampled_from(("dealer_first", "as_dealers_play"))),
        "multi_play": draw(st.sampled_from(("none", "identical", "same_rank"))),
        "call": draw(st.sampled_from(("uno", "mau_mau", "none"))),
        "uno_penalty": draw(st.integers(0, 5)),
        "uno_catch": draw(st.sampled_from((0.0, 0.5, 1.0))),
        "false_call_penalty": draw(st.integers(0, 5)),
        "false_accusation": draw(st.sampled_from((0.0, 0.0, 0.3, 1.0))),
        "wild_not_on": draw(st.sampled_from(("", "", "7", "2", "Q"))),
        "wild_not_on_when": draw(st.sampled_from(("top_card", "pending"))),
        "last_card_draw": draw(st.booleans()),
        "end": end,
        "round_score": round_score,
        "ace_points": draw(st.sampled_from((1, 11))),
        "match": match,
        "target": draw(st.integers(1, 120)),
        "start_card": start_card,
        "max_decisions": draw(st.sampled_from((60, 500, 2000))),
    }
    return RuleSet(**kwargs), num_players


def _facade_walk(rules: RuleSet, num_players: int, seed: int, steps: int) -> None:
    """Step a game with a seeded random chooser: invariants after every step; the position
    of every mid-play decision (and every 10th) reads back with the same legal actions."""
    chooser = random.Random(seed)
    game = Game(rules, num_players, seed=seed)
    game.check_invariants()
    for step in range(steps):
        if game.is_over():
            break
        if step % 10 == 0 or game.phase not in (Phase.PLAY, Phase.PLAY_DRAWN):
            text = game.position()
            copy = Game.from_position(rules, text)
            assert copy.position() == text, f"\n got: {copy.position()}\nwant: {text}"
            assert copy.legal_actions() == game.legal_actions(), text
        game.step(chooser.choice(game.legal_actions()))
        game.check_invariants()


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    drawn=french_rule_sets(),
    seed=st.integers(0, 2**31),
    policy=st.sampled_from(("random", "random", "greedy")),
)
def test_random_french_rule_variants_keep_the_invariants(
    drawn: tuple[RuleSet, int], seed: int, policy: str
) -> None:
    """E-CONS-1, E-END-1 for any French-deck variant: the deck has the right size (MM-DECK-1,
    MD-DECK-1, MC-DECK-1), the invariants hold after every decision, every game is won or
    truncated at the limit, results agree with the end and scoring rules."""
    rules, num_players = drawn
    copies = rules.decks + (1 if rules.extra_deck_above and num_players > rules.extra_deck_above else 0)
    counts = rules.deck_counts(num_players)
    assert counts[:52].tolist() == [copies] * 52
    assert counts[52:54].tolist() == [copies * rules.jokers] * 2
    games = 4
    result = simulate(rules, num_players, games, seed=seed, policies=policy, check_invariants=True)
    check_results(rules, num_players, result)
    assert np.all(result.length > 0)
    _facade_walk(rules, num_players, seed, steps=40)
