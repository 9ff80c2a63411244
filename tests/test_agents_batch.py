"""The compiled styles in the batch simulator: legal play, determinism, hidden information.

- Every style plays thousands of decisions of every preset (smallest, a middle and the
  largest player count) with the engine invariants checked after every step and every
  chosen action checked against the legal mask (``simulate(..., check_invariants=True)``).
- Same seed, same games; a batch game equals the same game stepped one decision at a time
  at a :class:`~uno_env.Game` with the same compiled policies.
- Hidden information: changing the other players' cards (same counts), the order of the
  draw pile and the engine's bluff flag never changes any style's choice (the Monte-Carlo
  sampler's and the search agent's included, given the same agent-generator state); the
  oracle, which cheats by design, is the one exception.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.scenarios import deal_hidden, redeal_jump_block
from uno_env import PRESETS, Game, PositionError, simulate
from uno_env.engine import layout as L
from uno_env.engine.rules import RuleSet, compile_spec, preset
from uno_env.styles import registry
from uno_env.styles.dispatch import choose_action, planning_needed
from uno_env.styles.registry import parse_policy, policy_table

FAST = {
    "monte_carlo": "monte_carlo:samples=3,depth=10",
    "search": "search:sims=12,depth=8",
    "oracle": "oracle:sims=12,depth=8",
}
STYLES = [FAST.get(name, name) for name in registry.STYLES]
FAIR = [FAST.get(name, name) for name, style in registry.STYLES.items() if not style.cheats]
"""The styles that see no hidden information (all but the oracle)."""


def player_counts(name: str) -> list[int]:
    """Smallest, a middle (4 where allowed) and largest player count of a preset."""
    rules = preset(name)
    middle = min(max(4, rules.min_players), rules.max_players)
    return sorted({rules.min_players, middle, rules.max_players})


CASES = [(name, n) for name in PRESETS for n in player_counts(name)]


# ================================================================ legal play, invariants
@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(("name", "num_players"), CASES)
def test_compiled_styles_only_pick_legal_actions(name: str, num_players: int, style: str) -> None:
    """A table of the style alone, then the style against random players, >= 2000 decisions
    each; any illegal action or broken invariant raises AssertionError naming the game."""
    decisions = games = 0
    while decisions < 2000:
        result = simulate(name, num_players, 4, seed=100 + games, policies=style, check_invariants=True)
        decisions += int(result.length.sum())
        games += 4
    mixed = [style if seat % 2 == 0 else "random" for seat in range(num_players)]
    result = simulate(name, num_players, 2, seed=7, policies=mixed, check_invariants=True)
    assert result.length.sum() > 0


# ================================================================ determinism
@pytest.mark.parametrize("style", STYLES)
def test_same_seed_same_games(style: str) -> None:
    a = simulate("uno", 4, 6, seed=9, policies=[style, "greedy", style, "random"])
    b = simulate("uno", 4, 6, seed=9, policies=[style, "greedy", style, "random"])
    for field in ("winner", "length", "ranking", "scores", "round_points"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field


def test_a_batch_game_equals_the_game_stepped_with_the_same_policies() -> None:
    """One source: game i of simulate() is Game(seed + i) played by choose_action."""
    names = ["bluffer:bluff=0.7,challenge=0.6", FAST["search"], FAST["monte_carlo"]]
    result = simulate("uno", 3, 4, seed=21, policies=names)
    codes, params = policy_table(names)
    for i in range(4):
        game = Game("uno", 3, seed=21 + i)
        spec = compile_spec(game.rules)
        state = game.state  # the game's own agent generator, as in the batch
        mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
        while not game.is_over():
            seat = game.current_player
            mask[:] = 0
            mask[: game.num_actions] = game.legal_mask()
            game.step(choose_action(state, spec, mask, int(mask.sum()), codes[seat], params[seat]))
        outcome = game.outcome()
        assert outcome is not None
        assert outcome.winner == result.winner[i]
        assert outcome.decisions == result.length[i]


def test_policies_never_touch_the_chance_generator() -> None:
    """Policies draw only from the agent generator: the game's chance words are unchanged."""
    game = Game("uno", 4, seed=3)
    spec = compile_spec(game.rules)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    mask[: game.num_actions] = game.legal_mask()
    for style in STYLES:
        style_, params = parse_policy(style)
        state = game.state.copy()
        choose_action(state, spec, mask, int(mask.sum()), style_.code, params)
        changed = np.flatnonzero(state != game.state)
        agent_words = set(range(L.AGENT_RNG, L.AGENT_RNG + L.RNG_WORDS))
        assert set(changed.tolist()) <= agent_words, style


# ================================================================ hidden information
def _fields(text: str) -> list[tuple[str, str]]:
    out = []
    for part in text.split(";"):
        if part.strip():
            key, _, value = part.partition("=")
            out.append((key.strip(), value.strip()))
    return out


def hide_differently(text: str, seat: int, rules: RuleSet, rng: np.random.Generator) -> str:
    """The same position with the cards ``seat`` cannot see dealt anew (same hand sizes) and
    the bluff flag of a pending Wild Draw Four drawn at random among those the redealt hand of
    its player admits (a position must agree with it, U-WD4-1). Hands ``seat`` knows (``seen=``:
    a look, H-ZEROSEE-1, or a hand it passed, H-SEVEN-1, H-ZERO-1) stay."""
    fields = _fields(text)
    values = dict(fields)
    hands = values["hands"].split("/")
    draw: list[str] = values["draw"].split() if values["draw"] != "-" else []
    known = {seat} | {
        int(pair.split(">")[1]) for pair in values.get("seen", "").split() if pair.startswith(f"{seat}>")
    }
    hidden = {
        other: [t for t in hand.split() if t != "-"] for other, hand in enumerate(hands) if other not in known
    }

    def shuffle(cards: list[str]) -> None:
        cards[:] = [cards[i] for i in rng.permutation(len(cards))]

    dealt, rest = deal_hidden(hidden, draw, values, shuffle)  # proven records (void=) are public
    for other, cards in dealt.items():
        hands[other] = " ".join(cards)
    redeal_jump_block(values, [h.split() for h in hands], known)
    keys = [k for k, _ in fields if k in values]  # (a jumpblock the redeal cannot keep is dropped)
    values["hands"] = "/".join(hands)
    values["draw"] = " ".join(rest) if rest else "-"
    keys += ["bluff"] if "bluff" not in dict(fields) else []
    flags = ["0", "1"] if rng.integers(2) == 0 else ["1", "0"]
    for flag in flags if "pending" in values and values.get("phase") == "challenge" else [None]:
        if flag is not None:
            values["bluff"] = flag
        redealt = "; ".join(f"{k}={values[k]}" for k in keys if k in values)
        try:
            Game.from_position(rules, redealt)
        except PositionError:
            continue
        return redealt
    raise AssertionError(f"no bluff flag fits the redealt position of {text}")


@pytest.mark.parametrize(("name", "num_players"), CASES)
def test_hidden_cards_never_change_a_choice(name: str, num_players: int) -> None:
    rng = np.random.default_rng(num_players)
    codes, params = policy_table(FAIR)
    checked = 0
    for seed in range(40):
        game = Game(name, num_players, seed=seed)
        spec = compile_spec(game.rules)
        mask_a = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
        mask_b = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
        while not game.is_over() and checked < 60 * (seed + 1):
            text = game.position()
            seat = game.current_player
            a = Game.from_position(game.rules, text, seed=seed)
            b = Game.from_position(game.rules, hide_differently(text, seat, game.rules, rng), seed=seed)
            assert a.hand(seat) == b.hand(seat) and a.hand_sizes() == b.hand_sizes()
            assert a.legal_actions() == b.legal_actions()
            mask_a[:] = 0
            mask_a[: a.num_actions] = a.legal_mask()
            mask_b[:] = mask_a
            count = int(mask_a.sum())
            for code, row, style in zip(codes, params, FAIR, strict=True):
                choice_a = choose_action(a.state.copy(), spec, mask_a, count, code, row)
                choice_b = choose_action(b.state.copy(), spec, mask_b, count, code, row)
                assert choice_a == choice_b, f"{style} at {text}"
            checked += 1
            legal = game.legal_actions()
            game.step(legal[int(rng.integers(len(legal)))])
        if checked >= 150:
            break
    assert checked >= 150


def test_loops_without_planning_styles_compile_without_them_and_play_the_same_games() -> None:
    """A shorter cold start: simulate() passes planning=None when no seat plans, so the
    compiled loop leaves the planning styles out; its games are the full loop's games."""
    from uno_env.sim import batch
    from uno_env.sim import results as results_record

    names = ["greedy", "random", "bluffer:bluff=0.7,challenge=0.6"]
    codes, _ = policy_table(names)
    assert not planning_needed(codes)
    assert planning_needed(policy_table([*names, FAST["monte_carlo"]])[0])
    assert planning_needed(policy_table([FAST["search"]])[0])
    lean = simulate("uno", 3, 5, seed=4, policies=names)
    if hasattr(batch.play_games_with_params, "signatures"):  # compiled
        planning_types = {str(signature[-1]) for signature in batch.play_games_with_params.signatures}
        assert "none" in planning_types
    game = Game("uno", 3, seed=4)
    spec, deck = compile_spec(game.rules), game.compiled.deck_counts
    codes, params = policy_table(names)
    results = results_record.GameResults.allocate(5, 3)
    failed, _ = batch.play_games_with_params(
        game.compiled.new_state(),
        game.compiled.new_mask(),
        spec,
        3,
        deck,
        4,
        codes,
        params,
        False,
        results,
        None,
    )
    assert failed == -1
    assert np.array_equal(results.winner, lean.winner) and np.array_equal(results.length, lean.length)
