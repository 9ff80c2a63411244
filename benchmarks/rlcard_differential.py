"""Differential check against RLCard 1.2.0: the same random two-player games, side by side.

The engine is configured to RLCard 1.2.0's Uno rules as far as the rule switches reach
(:data:`RLCARD_RULES`), both sides play at least 100,000 two-player games between random
players, and the script prints the turn-count mean, its mode and the first mover's win rate
(also without the deals that start with a Draw Two, which the rules treat differently), each
with a 95% interval, for both engines, with the differences::

    python benchmarks/rlcard_differential.py                 # 100,000 games a side
    python benchmarks/rlcard_differential.py --games 20000   # quicker

**The random player** is RLCard's: ``RandomAgent`` picks uniformly among the legal action
ids of ``UnoEnv`` (``np.random.choice(list(state['legal_actions']))``), where every distinct
card string is one id (two Red 5s in hand are one action), a Wild or a Wild Draw Four is four
ids (one per colour) and ``draw`` is an id only when nothing can be laid. Here that is
reproduced exactly on both sides: RLCard's raw ``UnoGame`` is driven with a uniform choice
among the de-duplicated ``get_legal_actions()`` (the env's ids, without the observation
encoding), and this engine's compiled loop gives each legal card face weight 1, a wild face
weight 4 (then a uniform colour), and every other legal action weight 1 (draws from each
game's own agent generator).

**Turns.** An RLCard step is a turn (a play or a draw; a drawn card is played or kept by the
engine). Here a turn begins each time a player enters the play phase
(:attr:`uno_env.BatchResult.turns`); decisions (colours, the drawn card) are more. The first
mover is the player of the first decision: RLCard seats it at player 0 (1 after a starting
Skip or Reverse); here the dealer is random, so its seat varies, and its win rate is what is
compared.

**RLCard rules the switches cannot express** (see the table in ``docs/statistics.md``): a starting Draw Two is
drawn by the first player, who still plays first; a drawn card is played automatically when
it has the target's colour or is a wild (a drawn Wild Draw Four is played as a plain wild,
without the four-card penalty), and kept when it matches by number or symbol only; wild
colours are picked by the engine at random when a wild is drawn or turned up at the start;
the reshuffle takes the whole discard pile, top card included; no dealer (player 0 starts).

Run alone on a quiet machine; RLCard's side takes a few minutes for 100,000 games.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
from baselines import RLCARD_RULES, UNEXPRESSED, MissingBenchDependencyError, require_bench
from numba import njit

from uno_env.engine import engine
from uno_env.engine import layout as L
from uno_env.engine.rng import rand_below
from uno_env.engine.rules import compile_spec, load_rules
from uno_env.stats import Z95, mean_interval, wilson_interval


@njit(cache=True)
def _rlcard_random_action(state: np.ndarray, spec: np.ndarray, mask: np.ndarray) -> int:
    """RLCard's random agent: uniform over its action ids (a wild face counts four)."""
    nf = spec[L.SP_NUM_FACES]
    total = 0
    for action in range(spec[L.SP_NUM_ACTIONS]):
        if mask[action]:
            total += 4 if action < nf and spec[L.F_COLOUR + action] < 0 else 1
    k = rand_below(state, L.AGENT_RNG, total)
    for action in range(spec[L.SP_NUM_ACTIONS]):
        if mask[action]:
            k -= 4 if action < nf and spec[L.F_COLOUR + action] < 0 else 1
            if k < 0:
                return action
    return -1


@njit(cache=True)
def play_ours(
    spec: np.ndarray,
    deck: np.ndarray,
    seed: int,
    winner: np.ndarray,
    first: np.ndarray,
    turns: np.ndarray,
    decisions: np.ndarray,
    start_draw_two: np.ndarray,
) -> None:
    """Play ``len(winner)`` two-player games (game ``g`` from seed ``seed + g``) with RLCard's
    random player in both seats; write the winner, first mover, turns, decisions and whether
    the starting card was a Draw Two."""
    state = np.zeros(L.STATE_SIZE, dtype=np.int64)
    mask = np.zeros(L.MAX_ACTIONS, dtype=np.int8)
    for g in range(len(winner)):
        engine.new_game(state, spec, 2, deck, seed + g, 0, True)
        first[g] = state[L.S_CURRENT]
        start_draw_two[g] = spec[L.F_EFFECT + state[L.DISCARD_PILE]] == L.EF_DRAW
        while state[L.S_STATUS] == L.ST_RUNNING:
            engine.fill_mask(state, spec, mask, True)
            engine.apply_action(state, spec, _rlcard_random_action(state, spec, mask), True)
        winner[g] = state[L.S_WINNER]
        turns[g] = state[L.S_TURNS]
        decisions[g] = state[L.S_DECISIONS]


def ours(games: int, seed: int) -> dict[str, np.ndarray]:
    """This engine's side: ``games`` games under :data:`RLCARD_RULES`."""
    rules = load_rules("uno", **RLCARD_RULES)
    names = ("winner", "first", "turns", "decisions", "start_draw_two")
    out = {k: np.zeros(games, dtype=np.int64) for k in names}
    play_ours(compile_spec(rules), rules.deck_counts(2), seed, *(out[k] for k in names))
    return out


def theirs(games: int, seed: int) -> dict[str, np.ndarray]:
    """RLCard's side: its raw ``UnoGame`` with its random agent's choice (uniform over the ids)."""
    from rlcard.games.uno.game import UnoGame

    game = UnoGame(num_players=2)
    game.np_random = np.random.RandomState(seed)
    choice = np.random.default_rng(seed)
    out = {k: np.zeros(games, dtype=np.int64) for k in ("winner", "first", "turns", "start_draw_two")}
    for g in range(games):
        state, player = game.init_game()
        out["first"][g] = player
        out["start_draw_two"][g] = game.round.played_cards[0].trait == "draw_2"
        steps = 0
        while not game.is_over():
            legal = list(dict.fromkeys(state["legal_actions"]))  # the env's action ids
            state, _ = game.step(legal[int(choice.integers(len(legal)))])
            steps += 1
        out["winner"][g] = game.round.winner[0]
        out["turns"][g] = steps
    return out


def mode_interval(values: np.ndarray, seed: int, resamples: int = 1000) -> tuple[int, int, int]:
    """The most frequent value with a 95% bootstrap interval (games resampled with replacement)."""
    counts = np.bincount(values)
    mode = int(np.argmax(counts))
    rng = np.random.default_rng(seed)
    modes = [int(np.argmax(rng.multinomial(values.size, counts / values.size))) for _ in range(resamples)]
    lo, hi = np.percentile(modes, [2.5, 97.5])
    return mode, math.floor(lo), math.ceil(hi)


def summary(side: dict[str, np.ndarray], seed: int) -> dict[str, tuple[float, float, float]]:
    """Turn-count mean and mode and the first mover's win rate (also without the deals that
    start with a Draw Two, a rule the switches do not reach), each with its 95% interval."""
    won = side["winner"] == side["first"]
    plain = side["start_draw_two"] == 0
    return {
        "turns_mean": mean_interval(side["turns"]),
        "turns_mode": mode_interval(side["turns"], seed),
        "first_mover": _rate(won),
        "first_mover_plain": _rate(won[plain]),
    }


def _rate(won: np.ndarray) -> tuple[float, float, float]:
    lo, hi = wilson_interval(int(won.sum()), won.size)
    return (float(won.mean()), lo, hi)


def main(argv: list[str] | None = None) -> int:
    """Play both sides and print the table (exit status 2, before anything is played, without RLCard)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000, help="games per side (default 100000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of both sides (default 0)")
    args = parser.parse_args(argv)
    try:
        require_bench("rlcard")
    except MissingBenchDependencyError as exc:
        print(f"rlcard_differential.py: {exc}", file=sys.stderr)
        return 2
    ours(10, args.seed)  # compile
    start = time.perf_counter()
    mine = ours(args.games, args.seed)
    mine_seconds = time.perf_counter() - start
    start = time.perf_counter()
    rl = theirs(args.games, args.seed)
    rl_seconds = time.perf_counter() - start
    a, b = summary(mine, args.seed), summary(rl, args.seed + 1)
    print(
        f"{args.games:,} two-player games a side, random players (RLCard's RandomAgent choice), seed "
        f"{args.seed}; uno_env {mine_seconds:.1f} s, RLCard 1.2.0 raw engine {rl_seconds:.1f} s\n"
    )
    print("| quantity | uno_env (RLCard rules) | RLCard 1.2.0 | difference [95%] |")
    print("| --- | ---: | ---: | ---: |")
    (am, alo, ahi), (bm, blo, bhi) = a["turns_mean"], b["turns_mean"]
    dm, half = am - bm, math.hypot(ahi - am, bhi - bm)
    print(
        f"| turns per game, mean | {am:.2f} [{alo:.2f}, {ahi:.2f}] | {bm:.2f} [{blo:.2f}, {bhi:.2f}] "
        f"| {dm:+.2f} [{dm - half:+.2f}, {dm + half:+.2f}] |"
    )
    print(
        f"| turns per game, mode | {a['turns_mode'][0]} [{a['turns_mode'][1]}, {a['turns_mode'][2]}] "
        f"| {b['turns_mode'][0]} [{b['turns_mode'][1]}, {b['turns_mode'][2]}] "
        f"| {a['turns_mode'][0] - b['turns_mode'][0]:+d} |"
    )
    for key, label in (
        ("first_mover", "first mover's win rate"),
        ("first_mover_plain", "first mover's win rate, no starting Draw Two"),
    ):
        (pa, alo, ahi), (pb, blo, bhi) = a[key], b[key]
        na = mine["turns"].size if key == "first_mover" else int((mine["start_draw_two"] == 0).sum())
        nb = rl["turns"].size if key == "first_mover" else int((rl["start_draw_two"] == 0).sum())
        diff, se = pa - pb, math.sqrt(pa * (1 - pa) / na + pb * (1 - pb) / nb)
        print(
            f"| {label} | {pa:.2%} [{alo:.2%}, {ahi:.2%}] | {pb:.2%} [{blo:.2%}, {bhi:.2%}] "
            f"| {diff * 100:+.2f} pp [{(diff - Z95 * se) * 100:+.2f}, {(diff + Z95 * se) * 100:+.2f}] |"
        )
    print(
        f"\nuno_env decisions per game (turns plus colours and drawn cards): {mine['decisions'].mean():.2f}"
    )
    print("\nRLCard rules the switches cannot express:")
    for rule in UNEXPRESSED:
        print(f"- {rule}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
