"""Position notation: every reachable situation prints to one line that rebuilds it exactly.

Positions come from seeded random games of every preset and player count; rebuilding one
with :meth:`uno_env.Game.from_position` must print the same line, offer the same legal
actions and, given the same chance generator, continue identically (E-CONS-1: a position's
own cards are its universe). Malformed positions raise :class:`uno_env.PositionError` naming
what is wrong and what is allowed.

This file also runs uncompiled (``make nojit``): it checks about a thousand sampled positions
and stays within a few seconds.
"""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest

import uno_env
from uno_env import Game, Phase, PositionError
from uno_env.engine import layout as L
from uno_env.game.position import OPTIONAL, REQUIRED

SEEDS = (1, 2)
SHORT_WALK = 30  # decisions checked from the deal, per (preset, players, seed)
LONG_WALK_EVERY = 40  # the long walks play whole games (E-END-1) and check every 40th decision

CASES = [
    (name, n, seed)
    for name, rules in uno_env.PRESETS.items()
    for n in range(rules.min_players, rules.max_players + 1)
    for seed in SEEDS
]
LONG_CASES = [
    (name, n, 100 + n)
    for name, rules in uno_env.PRESETS.items()
    for n in sorted({rules.min_players, (rules.min_players + rules.max_players) // 2})
]


@cache
def _samples(name: str, n: int, seed: int, long: bool) -> tuple[tuple[Game, int], ...]:
    """Snapshots (a clone) of a seeded random game and the action chosen there."""
    game = Game(name, n, seed=seed)
    chooser = random.Random(seed)
    out: list[tuple[Game, int]] = []
    limit = game.rules.max_decisions + 1 if long else SHORT_WALK
    for k in range(limit):
        if game.is_over():
            out.append((game.clone(), -1))
            break
        action = chooser.choice(game.legal_actions())
        if not long or k % LONG_WALK_EVERY == 0:
            out.append((game.clone(), action))
        game.step(action)
    return tuple(out)


def _all_samples() -> list[tuple[Game, int]]:
    out = [s for case in CASES for s in _samples(*case, long=False)]
    out += [s for case in LONG_CASES for s in _samples(*case, long=True)]
    return out


def _assert_same_situation(rebuilt: Game, game: Game) -> None:
    assert rebuilt.position() == game.position()
    assert np.array_equal(rebuilt.legal_mask(), game.legal_mask()), game.position()
    assert rebuilt.legal_actions() == game.legal_actions()
    assert (rebuilt.phase, rebuilt.current_player, rebuilt.num_players) == (
        game.phase,
        game.current_player,
        game.num_players,
    )
    assert rebuilt.hand_sizes() == game.hand_sizes()
    assert rebuilt.is_over() == game.is_over()


def _rebuild_with_same_chance(game: Game) -> Game:
    """Rebuild ``game`` from its position and give it the same chance generator state.

    The generator is not part of the notation (a position is a situation, not a seed);
    copying its six words lets the two games be compared through shuffles.
    """
    rebuilt = Game.from_position(game.rules, game.position())
    rebuilt.state[L.RNG : L.RNG + L.RNG_WORDS] = game.state[L.RNG : L.RNG + L.RNG_WORDS]
    return rebuilt


@pytest.mark.parametrize(("name", "n", "seed"), CASES)
def test_positions_of_random_games_round_trip(name: str, n: int, seed: int) -> None:
    for game, _ in _samples(name, n, seed, long=False):
        rebuilt = Game.from_position(game.rules, game.position())
        _assert_same_situation(rebuilt, game)
        rebuilt.check_invariants()


@pytest.mark.parametrize(("name", "n", "seed"), LONG_CASES)
def test_positions_deep_into_random_games_round_trip(name: str, n: int, seed: int) -> None:
    samples = _samples(name, n, seed, long=True)
    assert samples[-1][0].is_over(), "a long walk plays its game to the end"
    for game, _ in samples:
        rebuilt = Game.from_position(game.rules, game.position())
        _assert_same_situation(rebuilt, game)
        rebuilt.check_invariants()


def test_random_walks_reach_every_decision_phase() -> None:
    """The sample is worth something: it holds every kind of decision (uno preset)."""
    phases = {game.phase for game, _ in _all_samples() if game.rules == uno_env.preset("uno")}
    assert {Phase.PLAY, Phase.CHOOSE_COLOUR, Phase.PLAY_DRAWN, Phase.CHALLENGE} <= phases


def test_rebuilt_positions_continue_like_the_original() -> None:
    """The notation holds everything the rules read: the next decision has the same result.

    For every sampled position, the original and the rebuilt game (same chance generator)
    apply the same action and must reach the same position.
    """
    mismatches = []
    for game, action in _all_samples():
        if action < 0:
            continue
        rebuilt = _rebuild_with_same_chance(game)
        before = game.position()
        original = game.clone()
        original.step(action)
        rebuilt.step(action)
        if rebuilt.position() != original.position():
            mismatches.append(
                f"from  {before}\n  action {game.describe_action(action)}\n"
                f"  original {original.position()}\n  rebuilt  {rebuilt.position()}"
            )
    assert not mismatches, f"{len(mismatches)} positions continue differently, e.g.\n" + "\n".join(
        mismatches[:3]
    )


def test_wild_draw_four_bluff_survives_the_colour_choice() -> None:
    """U-WD4-2: while the bluffer names the colour, the bluff and the colour before must be kept.

    Seat 0 holds R1 (a card of the active colour) and plays WD4: a bluff. In the colour
    phase that follows, the position must still say so, or a challenge from the rebuilt
    position punishes the challenger instead of the bluffer.
    """
    start = (
        "hands=R1 R2 WD4/G3 G4; discard=R5; draw=B1 B2 B3 B4 B5 B6 B7 B8; colour=R; seat=0; dir=+; phase=play"
    )
    game = Game.from_position("uno", start)
    game.step("WD4")
    assert game.phase == Phase.CHOOSE_COLOUR
    rebuilt = Game.from_position("uno", game.position())
    for g in (game, rebuilt):
        g.step("colour G")
        assert g.phase == Phase.CHALLENGE
    assert rebuilt.position() == game.position()
    assert "bluff=1" in game.position() and "before=R" in game.position()
    for g in (game, rebuilt):
        g.step("challenge")
    assert game.hand_sizes() == [2 + 4, 2]  # the bluffer draws the 4
    assert rebuilt.position() == game.position()


def test_finished_game_keeps_its_outcome() -> None:
    """U-SCORE-1: a finished position rebuilds with the same outcome (ranking, round points).

    The loser's cards are still in the position, so their points (and the ranking that
    follows from them) are part of the situation.
    """
    game = Game.from_position(
        "uno", "hands=R1/G3 G4 W/B5; discard=R5; draw=B1 B2; colour=R; seat=0; dir=+; phase=play"
    )
    game.step("R1")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0
    assert outcome.round_points == (0, 3 + 4 + 50, 5)
    assert outcome.ranking == (0, 2, 1)
    rebuilt = Game.from_position("uno", game.position())
    assert rebuilt.position() == game.position()
    assert rebuilt.outcome() == outcome


# ---------------------------------------------------------------- hand-written positions
CANONICAL = [
    "hands=R7 YS W/G3 G3/BD2; discard=B5 R5; draw=B2 G9 WD4; colour=R; seat=0; dir=+; phase=play",
    "hands=R1 R2/G3 G4/B5; discard=Y5 W; draw=B1 B2; colour=-; seat=1; dir=+; phase=colour; after=start",
    "hands=R1 R2/G3 G4/B5; discard=Y5 W; draw=B1 B2; colour=Y; seat=1; dir=-; phase=colour; dealer=2",
    "hands=R1 R2 R3/Y9 G4; discard=Y5; draw=B1; colour=Y; seat=1; dir=+; phase=drawn; drawn=Y9",
    "hands=R1 R2/G3 G4; discard=R5 WD4; draw=B1 B2 B3 B4 B5; colour=G; seat=1; dir=+; phase=challenge; "
    "pending=4; from=0; bluff=1; before=R",
    "hands=R1/G3/B5 B6; discard=R5; draw=-; colour=R; seat=2; dir=-; phase=play; called=0 1; "
    "scores=0 120 35; round=2; decisions=17",
    "hands=/G3 G4; discard=R5 R1; draw=B1; colour=R; seat=-1; dir=+; phase=over; scores=7 0; "
    "decisions=3; status=won; winner=0",
    "hands=R1 R2/G3 G4; discard=R5; draw=B1; colour=R; seat=-1; dir=+; phase=over; decisions=10000; "
    "status=truncated",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_positions_print_back_unchanged(text: str) -> None:
    game = Game.from_position("uno", text)
    assert game.position() == text
    game.check_invariants()


def test_position_input_is_forgiving() -> None:
    """Case, spacing, field order and commas do not matter; the output is canonical."""
    text = " phase=play ;dir=+; SEAT=0;colour=r; draw=b2, g9 wd4 ; discard=b5 r5; hands=w ys r7/g3 g3/bd2 ; "
    assert Game.from_position("uno", text).position() == CANONICAL[0]


def test_position_reads_the_documented_fields() -> None:
    game = Game.from_position("uno", CANONICAL[0])
    assert game.num_players == 3
    assert [str(c) for c in game.hand(0)] == ["R7", "YS", "W"]
    assert [str(c) for c in game.discard_pile()] == ["B5", "R5"]
    assert str(game.top_card) == "R5"
    assert game.draw_pile_size == 3
    assert game.current_player == 0 and game.direction == 1 and game.phase == Phase.PLAY
    game.step("draw")  # the draw pile is listed from the top: B2 comes first
    assert "B2" in [str(c) for c in game.hand(0)]


# ---------------------------------------------------------------- malformed positions
BASE = "hands=R7 YS/G3; discard=R5; draw=B2; colour=R; seat=0; dir=+; phase=play"


def _error(text: str) -> str:
    with pytest.raises(PositionError) as exc:
        Game.from_position("uno", text)
    return str(exc.value)


def test_position_error_is_a_value_error() -> None:
    assert issubclass(PositionError, ValueError)
    assert uno_env.PositionError is PositionError


def test_unknown_field_lists_the_valid_ones() -> None:
    message = _error(BASE + "; turn=3")
    assert "unknown position field 'turn'" in message
    assert f"valid fields: {', '.join(REQUIRED + OPTIONAL)}" in message


@pytest.mark.parametrize("missing", REQUIRED)
def test_missing_required_field_is_named(missing: str) -> None:
    text = "; ".join(part for part in BASE.split("; ") if not part.startswith(f"{missing}="))
    message = _error(text)
    assert f"lacks field(s) {missing}" in message
    assert f"required: {', '.join(REQUIRED)}" in message


def test_several_missing_fields_are_all_named() -> None:
    assert "lacks field(s) colour, seat, phase" in _error("hands=R7/G3; discard=R5; draw=-; dir=+")


def test_more_copies_than_the_deck_has() -> None:
    """U-DECK-1: one 0 per colour, two of each other coloured card, four of each wild."""
    assert "holds 2 x R0 but the deck has 1" in _error(BASE.replace("R7 YS", "R0 R0"))
    assert "holds 3 x G3 but the deck has 2" in _error(BASE.replace("draw=B2", "draw=G3 G3"))
    assert "holds 3 x R7 but the deck has 2" in _error(BASE.replace("draw=B2", "draw=R7 R7"))
    five_wilds = BASE.replace("hands=R7 YS", "hands=W W W").replace("draw=B2", "draw=W W")
    assert "holds 5 x W but the deck has 4" in _error(five_wilds)
    assert Game.from_position("uno", BASE.replace("draw=B2", "draw=R7")).draw_pile_size == 1


def test_bad_card_in_a_position_is_named() -> None:
    message = _error(BASE.replace("YS", "YX"))
    assert "'YX' is not an Uno card" in message


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("seat", "2", "seat=2 is not a seat 0..1"),
        ("seat", "-1", "seat=-1 is not a seat 0..1"),
        ("seat", "first", "seat='first' must be an integer"),
        ("colour", "X", "'X' is not a colour of the uno deck; expected one of R, Y, G, B"),
        ("colour", "H", "'H' is not a colour of the uno deck; expected one of R, Y, G, B"),
        ("dir", "cw", "dir='cw' must be + or -"),
        ("phase", "think", "phase='think'; allowed: play, colour, drawn, challenge, over"),
    ],
)
def test_bad_field_value_is_named_with_the_allowed_ones(field: str, value: str, expected: str) -> None:
    parts = [f"{field}={value}" if part.startswith(f"{field}=") else part for part in BASE.split("; ")]
    assert expected in _error("; ".join(parts))


def test_phase_drawn_needs_the_drawn_card() -> None:
    text = BASE.replace("phase=play", "phase=drawn")
    assert "phase=drawn needs drawn=<card>" in _error(text)
    assert "drawn=G3 is not in the hand of seat 0" in _error(text + "; drawn=G3")
    assert "'Q9' is not an Uno card" in _error(text + "; drawn=Q9")


def test_other_inconsistent_positions() -> None:
    assert "position has 1 hands; a game has 2..10 players" in _error(BASE.replace("R7 YS/G3", "R7 YS"))
    assert "position has 11 hands" in _error(BASE.replace("R7 YS/G3", "/".join(["R1"] * 11)))
    assert "needs a discard pile with a top card" in _error(BASE.replace("discard=R5", "discard=-"))
    assert "needs colour=<the active colour>" in _error(BASE.replace("colour=R", "colour=-"))
    assert "phase=challenge needs pending=" in _error(BASE.replace("phase=play", "phase=challenge"))
    assert "phase=over goes with status=won or truncated" in _error(BASE + "; status=won")
    assert "status='lost'; allowed: running, won, truncated" in _error(
        BASE.replace("phase=play", "phase=over") + "; status=lost"
    )
    assert "field 'seat' appears twice" in _error(BASE + "; seat=1")
    assert "is not key=value" in _error(BASE + "; winner")
    assert "called: '5' is not a seat 0..1" in _error(BASE + "; called=5")
    assert "scores needs 2 integers" in _error(BASE + "; scores=1 2 3")
    assert "after='later'; allowed: start, play" in _error(
        BASE.replace("phase=play", "phase=colour") + "; after=later"
    )
    assert "decisions='many' must be an integer" in _error(BASE + "; decisions=many")
