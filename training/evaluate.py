"""Evaluate a trained policy (or a scripted style) against opponent sets: ``uno-env evaluate``.

::

    uno-env evaluate runs/<run>/model.zip --rules uno --players 2 --vs random_playable blocker \\
        --games 10000 --seed 0 --out results/uno_eval
    python -m training.evaluate blocker --rules uno --players 2 --vs greedy --games 10000

``MODEL`` is a MaskablePPO checkpoint (``.zip`` with its ``.meta.json`` sidecar) or the name
of a compiled play style (``greedy``, ``blocker``, ``bluffer:bluff=0.3``...), so scripted
styles are measured the same way. Each ``--vs`` entry is an opponent set: one style for every
opponent seat, or ``a/b/c`` naming the seats 1, 2, 3 places clockwise from the evaluated
player.

Games and seats: game ``j`` is dealt from seed ``S + j`` (as ``uno_env.Game(rules, n,
seed=S + j)``) and the evaluated player sits at seat ``(S + j) % n``, so seats rotate
evenly. A policy plays on the native vector env (:class:`uno_env.VectorEnv`) with batched
inference: ``--batch`` games at once, one forward pass of the policy per step for the whole
batch (deterministic arg-max by default, ``--sample`` samples from the masked distribution
with a seeded generator). A style plays in the compiled batch simulator
(:func:`uno_env.simulate`).

Opponents: ``random_playable`` (the default) is the literature's random player (a random
playable card, draws only with none: RLCard's and most papers' "random"); ``random_legal``
is uniform over the legal actions (it draws while holding playable cards), a much weaker
baseline. Every "vs random" figure says which.

Reported per opponent set, each with a 95% interval (every game is its own deal, so games
are independent: Wilson intervals for rates, Student-t intervals for means, from
:mod:`uno_env.stats`): the win rate (a game truncated at the decision limit, E-END-1,
counts as not won), the truncated games next to it (a policy whose games mostly end at the
limit is flagged ``STALLING``: it is not playing the game out, whatever its other figures
say), the mean finishing rank
(1 = winner; truncated games left out) and the points per game: the evaluated player's
score at the end of the game as the rules count it (U-SCORE-1: points won from the other
hands; U-SCORE-3 / MM-SCORE-1: points held, lower is better); and the game length, in
turns (printed: a turn begins when a player enters the play phase, to play or draw) and in
decisions (in the files: every choice of every seat, colours and answers included). Printed
as a table and written to ``OUT.json`` and ``OUT.csv``.

Checkpoint safety: the sidecar is checked before the checkpoint is unpickled
(:class:`agents.PolicyAgent`): other rules, another observation spec or env version are
refused with a :class:`agents.PolicyMismatchError`. ``--allow-rules-mismatch`` (transfer
evaluation) accepts other rules, and another player count, when the observation spec, env
version and deck family agree (trained on ``uno``, evaluated on ``uno_house``: the house-rule
transfer experiment), and says so. Exported networks are held to the same rule wherever they
sit: the evaluated policy, an exported opponent, a search's guide (``search:net=NAME``).
**SB3 checkpoints are pickles: loading one can run arbitrary code.** A checkpoint this
installation did not sign (:mod:`agents.trust`) is refused unless ``--trust-checkpoint`` is given.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import uno_env
from agents.match import make_seats, play_deals
from agents.spec import AgentSpec, as_spec, check_seated_networks, parse_agent, parse_seats
from uno_env.compiler.compiling import warm_up
from uno_env.engine.rng import SEED_LIMIT, check_seed
from uno_env.engine.rules import RuleSet
from uno_env.files import json_text
from uno_env.stats import GAME_LENGTH_RANGE, POINTS_RANGE, bounded_mean_interval, wilson_interval
from uno_env.styles.params import spelled_out

from .common import (
    Subcommand,
    add_rule_arguments,
    add_trust_argument,
    check_output_file,
    check_player_count,
    load_checkpoint_actor,
    resolve_rules,
    set_torch_threads,
)
from .extras import checkpoint_needs, require

Actor = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""Batched policy: ``(obs (B, D), masks (B, A) bool) -> actions (B,)``."""


@dataclass
class GameRecords:
    """Per-game results from the evaluated player's seat."""

    won: np.ndarray  # bool
    rank: np.ndarray  # float, 1 = winner, NaN when truncated
    points: np.ndarray  # float
    truncated: np.ndarray  # bool
    seat: np.ndarray  # int
    decisions: np.ndarray  # int, the game's length in decisions (all seats)
    turns: np.ndarray  # int, the game's length in turns


@dataclass
class EvalResult:
    """Summary of one opponent set, with 95% intervals."""

    model: str
    opponents: str
    rules: str
    players: int
    games: int
    wins: int
    win_rate: float
    win_low: float
    win_high: float
    mean_rank: float
    rank_low: float
    rank_high: float
    points: float
    points_low: float
    points_high: float
    truncated: int
    turns: float
    turns_low: float
    turns_high: float
    decisions: float
    decisions_low: float
    decisions_high: float
    truncated_rate: float
    stalling: bool
    seconds: float
    games_per_second: float


STALLING_SHARE = 0.5
"""A policy whose games end at the decision limit more often than this is flagged as stalling."""


def opponent_seats(entry: Any, num_players: int) -> list[Any]:
    """An opponent set: one agent for every seat, or a seat table for seats 1..n-1 clockwise
    (``"a | b | c"``, ``"a/b/c"`` of names, or a list): the agent spec (:mod:`agents.spec`) of
    each opponent seat. Compiled styles come back as their texts."""

    if isinstance(entry, str | list | tuple):
        specs: list[AgentSpec] = parse_seats(entry, num_players - 1, where=f"opponent set {entry!r}")
    else:
        specs = [as_spec(entry)] * (num_players - 1)
    return [spec.target if spec.kind == "style" else spec for spec in specs]


def all_compiled(seats: Sequence[Any]) -> bool:
    """Whether every seat of an opponent set runs in the compiled simulator (styles, exported policies)."""

    return all(isinstance(s, str) or (isinstance(s, AgentSpec) and s.compiled) for s in seats)


def compiled_names(seats: Sequence[Any]) -> list[str]:
    """The simulator's policy texts of a compiled opponent set."""
    return [s if isinstance(s, str) else s.policy for s in seats]


def play_policy(
    actor: Actor,
    rules: RuleSet,
    num_players: int,
    opponents: Sequence[str],
    games: int,
    seed: int,
    batch: int = 1024,
    learner_seat: int | None = None,
    trust: bool = False,
    allow_rules_mismatch: bool = False,
) -> GameRecords:
    """Play ``games`` games (game ``j`` from seed ``seed + j``) with ``actor`` in the rotating seat
    (or always in ``learner_seat``: replaying the same deals once per seat balances the seats by deal).

    ``opponents``: one entry per opponent seat (clockwise from the actor): a style's text, an
    agent spec (:mod:`agents.spec`) or an agent object; ``trust`` loads checkpoints this
    installation did not sign; ``allow_rules_mismatch`` seats networks trained for other rules
    or players (a transfer)."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    won = np.zeros(games, dtype=bool)
    rank = np.full(games, np.nan)
    points = np.zeros(games)
    truncated = np.zeros(games, dtype=bool)
    seat = np.zeros(games, dtype=np.int64)
    decisions = np.zeros(games, dtype=np.int64)
    turns = np.zeros(games, dtype=np.int64)
    layout = uno_env.envs.obs_layout(rules.deck_family)
    score_slot = layout.field("scores").start  # relative seat 0: the learner
    target = float(rules.target) if rules.target else 1.0
    table = _vector_table(opponents, rules, num_players, trust, allow_rules_mismatch)
    for start in range(0, games, batch):
        rows = min(batch, games - start)
        venv = uno_env.VectorEnv(
            num_envs=rows, rules=rules, num_players=num_players, opponents=table, seat=learner_seat,
            reward="rank", copy=False, allow_rules_mismatch=allow_rules_mismatch,
        )  # fmt: skip
        obs, _ = venv.reset(seed=seed + start)
        seat[start : start + rows] = venv.learner_seats
        open_rows = np.ones(rows, dtype=bool)
        while open_rows.any():
            masks = venv.action_masks()
            # rows whose evaluation game ended play on with their first legal action (not
            # counted): the policy runs only on the open rows, so long games cost little
            actions = np.argmax(masks, axis=1).astype(np.int64)
            live = np.flatnonzero(open_rows)
            actions[live] = actor(obs[live], masks[live])
            obs, rewards, term, trunc, info = venv.step(actions)
            done = (term | trunc) & open_rows
            for i in np.flatnonzero(done):
                g = start + i
                truncated[g] = bool(trunc[i] and not term[i])
                if not truncated[g]:
                    r = round((1.0 - float(rewards[i])) * (num_players - 1) / 2.0)
                    rank[g] = r + 1
                    won[g] = r == 0
                points[g] = float(info["final_obs"][i][score_slot]) * target
                decisions[g] = info["final_info"]["decisions"][i]
                turns[g] = info["final_info"]["turns"][i]
            open_rows &= ~done
    return GameRecords(won, rank, points, truncated, seat, decisions, turns)


def _vector_table(
    opponents: Sequence[Any],
    rules: RuleSet,
    num_players: int,
    trust: bool,
    allow_rules_mismatch: bool = False,
) -> list[Any]:
    """The vector env's entries for an opponent set (styles as texts, the others made ready)."""
    from .pool import vector_opponent

    return [
        vector_opponent(
            o, rules, num_players, trust=trust, seed=k + 1, allow_rules_mismatch=allow_rules_mismatch
        )
        for k, o in enumerate(opponents)
    ]


def play_style(
    style: str,
    rules: RuleSet,
    num_players: int,
    opponents: Sequence[str],
    games: int,
    seed: int,
    allow_rules_mismatch: bool = False,
) -> GameRecords:
    """The same games as :func:`play_policy` with a compiled style in the rotating seat;
    ``allow_rules_mismatch`` seats networks trained for other rules or players (a transfer)."""

    def play(k: int, rows: np.ndarray) -> SeatResults:
        names = seat_table(k, style, opponents, num_players, empty="")
        result = uno_env.simulate(
            rules, num_players, games, seed=seed, policies=names, allow_rules_mismatch=allow_rules_mismatch
        )
        return SeatResults(
            result.winner[rows], result.truncated[rows], result.ranking[rows], result.scores[rows, k],
            result.length[rows], result.turns[rows],
        )  # fmt: skip

    return rotating_seat_records(games, seed, num_players, play)


@dataclass
class SeatResults:
    """What one rotation of :func:`rotating_seat_records` played: a row per game of its rows."""

    winner: np.ndarray  # the winning seat, -1 when truncated
    truncated: np.ndarray  # bool
    ranking: np.ndarray  # (rows, players): seats in finishing order
    points: np.ndarray  # the evaluated seat's score
    decisions: np.ndarray
    turns: np.ndarray


def seat_table(seat: int, mine: Any, opponents: Sequence[Any], num_players: int, *, empty: Any) -> list[Any]:
    """The table with ``mine`` at ``seat`` and the opponents after it in seat order."""
    table = [empty] * num_players
    table[seat] = mine
    for j, other in enumerate(opponents, start=1):
        table[(seat + j) % num_players] = other
    return table


def rotating_seat_records(
    games: int, seed: int, num_players: int, play: Callable[[int, np.ndarray], SeatResults]
) -> GameRecords:
    """Game ``i`` puts the evaluated player at seat ``(seed + i) % num_players``; ``play(k, rows)``
    plays the games ``rows`` with it at seat ``k``. The records, from that seat."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    seat = (seed + np.arange(games)) % num_players
    won = np.zeros(games, dtype=bool)
    rank = np.full(games, np.nan)
    points = np.zeros(games)
    truncated = np.zeros(games, dtype=bool)
    decisions = np.zeros(games, dtype=np.int64)
    turns = np.zeros(games, dtype=np.int64)
    for k in range(num_players):
        rows = np.flatnonzero(seat == k)
        if rows.size == 0:
            continue
        result = play(k, rows)
        won[rows] = result.winner == k
        truncated[rows] = result.truncated
        order = np.argmax(result.ranking == k, axis=1)
        rank[rows] = np.where(truncated[rows], np.nan, order + 1)
        points[rows] = result.points
        decisions[rows] = result.decisions
        turns[rows] = result.turns
    return GameRecords(won, rank, points, truncated, seat, decisions, turns)


def summarize(
    records: GameRecords, *, model: str, opponents: str, rules: RuleSet, players: int, seconds: float
) -> EvalResult:
    """Win rate, mean rank and points per game with 95% intervals."""
    games = int(records.won.size)
    wins = int(records.won.sum())
    lo, hi = wilson_interval(wins, games)
    ranks = records.rank[~np.isnan(records.rank)]
    rank_mean, rank_lo, rank_hi = bounded_mean_interval(ranks, 1, players)  # a rank lies in 1..players
    pts, pts_lo, pts_hi = bounded_mean_interval(records.points, *POINTS_RANGE)  # never negative
    turns, turns_lo, turns_hi = bounded_mean_interval(records.turns, *GAME_LENGTH_RANGE)
    decisions, decisions_lo, decisions_hi = bounded_mean_interval(records.decisions, *GAME_LENGTH_RANGE)
    return EvalResult(
        model=model,
        opponents=opponents,
        rules=rules.preset_name() or str(rules),
        players=players,
        games=games,
        wins=wins,
        win_rate=wins / games,
        win_low=lo,
        win_high=hi,
        mean_rank=rank_mean,
        rank_low=rank_lo,
        rank_high=rank_hi,
        points=pts,
        points_low=pts_lo,
        points_high=pts_hi,
        truncated=int(records.truncated.sum()),
        turns=turns,
        turns_low=turns_lo,
        turns_high=turns_hi,
        decisions=decisions,
        decisions_low=decisions_lo,
        decisions_high=decisions_hi,
        truncated_rate=float(records.truncated.mean()),
        stalling=bool(records.truncated.mean() > STALLING_SHARE),
        seconds=seconds,
        games_per_second=games / seconds if seconds > 0 else float("inf"),
    )


# the two random players every client example reports against: the literature's first (the
# headline figures), then the uniform-over-legal one (the baseline most environments ship)
BASELINES: tuple[str, ...] = ("random_playable", "random_legal")


def report_against_baseline(
    actor: Actor,
    *,
    model: str,
    players: int,
    games: int,
    opponent: str = "random_playable",
    rules: str = "uno",
    seed: int = 10_000,
) -> EvalResult:
    """Play ``games`` fresh deals (from ``seed``) with ``actor`` in the rotating seat and
    ``opponent`` in every other seat, and print the win rate's 95% interval against the fair
    share 1/n with the games cut at the decision limit: the client examples' closing line."""
    rule_set = uno_env.load_rules(rules)
    start = time.perf_counter()
    records = play_policy(actor, rule_set, players, [opponent] * (players - 1), games, seed)
    result = summarize(
        records, model=model, opponents=opponent, rules=rule_set, players=players,
        seconds=time.perf_counter() - start,
    )  # fmt: skip
    fair = 1 / players
    verdict = "above" if result.win_low > fair else "not above"
    print(
        f"Win rate vs {spelled_out(opponent)} {result.win_rate:.3f} "
        f"(95% CI {result.win_low:.3f}-{result.win_high:.3f}; "
        f"fair share {fair:.3f}: {verdict}), {result.truncated} truncated of {result.games}."
    )
    return result


def report_against_baselines(actor: Actor, *, model: str, players: int, games: int) -> list[EvalResult]:
    """:func:`report_against_baseline` against each random player of :data:`BASELINES` in turn
    (the literature's first): the closing lines of the client examples."""
    return [
        report_against_baseline(actor, model=model, players=players, games=games, opponent=opponent)
        for opponent in BASELINES
    ]


def play_agent(
    model: Any,
    rules: RuleSet,
    num_players: int,
    opponents: Sequence[Any],
    games: int,
    seed: int,
    *,
    trust: bool = False,
) -> GameRecords:
    """The same games as :func:`play_policy` with any agent (a Python, out-of-process or chat-model
    agent, or any spec) in the rotating seat, played at :class:`uno_env.Game` tables
    (:func:`agents.match.play_deals`)."""

    def play(k: int, rows: np.ndarray) -> SeatResults:
        table = seat_table(k, model, opponents, num_players, empty=None)
        players = make_seats(table, rules, trust=trust)
        try:
            result = play_deals(rules, table, [seed + int(r) for r in rows], agents=players)
        finally:  # also when an agent failed: no program is left running
            for agent in players:
                close = getattr(agent, "close", None)
                if callable(close):
                    close()
        return SeatResults(
            result["winner"], result["winner"] < 0, result["ranking"], result["scores"][:, k],
            result["length"], result["turns"],
        )  # fmt: skip

    return rotating_seat_records(games, seed, num_players, play)


MAX_GAMES = 10_000_000
"""Most games per opponent set: the per-game records take 56 bytes a game (560 MB here)."""


def check_games(games: int, seed: int = 0) -> None:
    """Raise ValueError unless ``games`` is an integer 1..:data:`MAX_GAMES` and the deals'
    seeds ``seed .. seed + games - 1`` are all game seeds (``0..2**63-1``)."""
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise ValueError(
            f"--games {games}: allowed 1..{MAX_GAMES:,} games per opponent set (each game's record is kept "
            "in memory); evaluate more games as several runs with different --seed"
        )
    check_seed(seed)  # before NumPy adds it to the game numbers (an OverflowError past 2**63)
    if seed + games > SEED_LIMIT:
        raise ValueError(
            f"seed + games must stay within 2**63 (game j is dealt from seed + j), got seed {seed} and "
            f"{games} games"
        )


def evaluate(
    model: Any,
    rules: RuleSet,
    num_players: int,
    vs: Sequence[Any],
    games: int,
    seed: int = 0,
    *,
    deterministic: bool = True,
    batch: int = 1024,
    allow_rules_mismatch: bool = False,
    trust: bool = False,
    actor: Actor | None = None,
    log: Callable[[str], None] = print,
) -> list[EvalResult]:
    """Evaluate ``model`` (any agent spec, :mod:`agents.spec`, an agent object, or a ready
    batched ``actor``) against each opponent set.

    Compiled agents (styles, exported policies) against compiled opponents play in the batch
    simulator; a checkpoint (or ``actor``) plays on the vector env with batched inference;
    any other agent plays at :class:`uno_env.Game` tables. The same deals either way.
    ``games`` is 1..:data:`MAX_GAMES` (ValueError otherwise, before anything is allocated).
    Every network seated (an exported model or opponent, a search's guide) must have been
    trained for these rules and player count unless ``allow_rules_mismatch`` (a transfer:
    then only its observation size, action table and versions must fit).
    """

    check_games(games, seed)
    rules.check_players(num_players)
    sets = [(entry, opponent_seats(entry, num_players)) for entry in vs]
    spec = None if actor is not None else as_spec(model, where="model")
    if spec is not None and spec.kind == "checkpoint":
        actor = load_checkpoint_actor(
            spec.target, rules, num_players, deterministic=deterministic, seed=seed,
            allow_rules_mismatch=allow_rules_mismatch, trust=trust, log=log,
        )  # fmt: skip
    measured = [] if spec is None else [spec]
    opponents = [as_spec(seat) for _, seats in sets for seat in seats]
    # exported policies and searches' guides, measured or opposing
    check_seated_networks(
        [*measured, *opponents], rules, num_players, allow_rules_mismatch=allow_rules_mismatch
    )
    label = str(model) if spec is None else spec.text
    results = []
    for entry, seats in sets:
        start = time.perf_counter()
        if spec is not None and spec.compiled and all_compiled(seats):
            records = play_style(
                spec.policy, rules, num_players, compiled_names(seats), games, seed, allow_rules_mismatch
            )
        elif actor is not None:
            records = play_policy(
                actor, rules, num_players, seats, games, seed, batch=batch, trust=trust,
                allow_rules_mismatch=allow_rules_mismatch,
            )  # fmt: skip
        else:
            records = play_agent(model, rules, num_players, seats, games, seed, trust=trust)
        seconds = time.perf_counter() - start
        results.append(
            summarize(
                records,
                model=label,
                opponents=entry if isinstance(entry, str) else str(entry),
                rules=rules,
                players=num_players,
                seconds=seconds,
            )
        )
    return results


def fair_share_verdict(result: EvalResult) -> str:
    """How the win rate's 95% interval stands to the fair share ``1/players``: ``above``,
    ``below`` or ``within`` (the interval contains it)."""
    fair = 1 / result.players
    if result.win_low > fair:
        return "above"
    if result.win_high < fair:
        return "below"
    return "within"


def format_table(results: Sequence[EvalResult]) -> str:
    """The results as a fixed-width table, each win rate beside the fair share ``1/players``
    (what a player as strong as its opponents wins) and where its interval stands to it."""
    lines = [
        f"{'opponents':<24} {'games':>7} {'win rate (95% CI)':<26} {'fair share':<17} "
        f"{'mean rank (95% CI)':<22} {'points/game (95% CI)':<28} {'turns/game (95% CI)':<24} "
        f"{'truncated':>11} {'games/s':>8}"
    ]
    for r in results:
        opponents = spelled_out(r.opponents)
        lines.append(
            f"{opponents:<24} {r.games:>7,} "
            f"{f'{r.win_rate:.1%} ({r.win_low:.1%}-{r.win_high:.1%})':<26} "
            f"{f'{1 / r.players:.1%}: {fair_share_verdict(r)}':<17} "
            f"{f'{r.mean_rank:.3f} ({r.rank_low:.3f}-{r.rank_high:.3f})':<22} "
            f"{f'{r.points:.1f} ({r.points_low:.1f}-{r.points_high:.1f})':<28} "
            f"{f'{r.turns:.1f} ({r.turns_low:.1f}-{r.turns_high:.1f})':<24} "
            f"{f'{r.truncated} ({r.truncated_rate:.0%})':>11} {r.games_per_second:>8,.0f}"
            + ("  STALLING" if r.stalling else "")
        )
    if any(r.stalling for r in results):
        lines.append(
            f"STALLING: more than {STALLING_SHARE:.0%} of the games ended at the decision limit (E-END-1): "
            "the policy does not play its games out, and its win rate says little"
        )
    return "\n".join(lines)


def result_paths(out: str | Path) -> tuple[Path, Path]:
    """The files ``--out OUT`` names: ``OUT.json`` and ``OUT.csv`` (a ``.json`` or ``.csv``
    suffix of ``OUT`` is dropped first)."""
    base = Path(out)
    if base.suffix in (".json", ".csv"):
        base = base.with_suffix("")
    return base.with_name(base.name + ".json"), base.with_name(base.name + ".csv")


def write_results(
    results: Sequence[EvalResult], out: str | Path, extra: dict[str, Any] | None = None
) -> Path:
    """Write ``OUT.json`` (results plus ``extra``) and ``OUT.csv``; return the JSON path."""
    json_path, csv_path = result_paths(out)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    rows = [dataclasses.asdict(r) for r in results]
    json_path.write_text(json_text({**(extra or {}), "results": rows}, indent=2) + "\n", encoding="utf-8")
    with csv_path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=[f.name for f in dataclasses.fields(EvalResult)])
        writer.writeheader()
        writer.writerows(rows)
    return json_path


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model",
        help="the agent to evaluate, any agent spec: a style (greedy), a shipped or exported policy "
        "(ppo_uno_2p, ./p.npz), a checkpoint (.zip with its .meta.json), FILE.py:NAME, MODULE:ATTR, "
        "cmd:COMMAND or llm:... (docs/agents.md#agent-specs)",
    )
    add_rule_arguments(parser)
    parser.add_argument("--players", type=int, default=2, help="players per game (default: 2)")
    parser.add_argument(
        "--vs",
        nargs="+",
        default=["random_playable"],
        help="opponent sets: one agent spec for every opponent seat, or a seat table 'a | b | c' "
        "(a/b/c of names) per seat clockwise (default: random_playable, the literature's random "
        "player; random_legal is uniform over the legal actions)",
    )
    parser.add_argument("--games", type=int, default=10_000, help="games per opponent set (default: 10000)")
    parser.add_argument("--seed", type=int, default=0, help="game j is dealt from seed+j (default: 0)")
    parser.add_argument("--sample", action="store_true", help="sample actions instead of the arg-max")
    parser.add_argument("--batch", type=int, default=1024, help="games played at once (default: 1024)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default: 1)")
    parser.add_argument("--out", help="write OUT.json and OUT.csv")
    parser.add_argument(
        "--allow-rules-mismatch",
        action="store_true",
        help="transfer evaluation: accept a checkpoint or network (evaluated, opponent or a search's guide) "
        "trained on other rules / player count of the same deck family (observation spec and env version "
        "must still agree)",
    )
    add_trust_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Run ``uno-env evaluate`` from parsed arguments."""
    check_games(args.games, args.seed)
    if args.batch < 1 or args.threads < 1:
        raise ValueError(f"--batch and --threads must be >= 1, got {args.batch} and {args.threads}")

    require("evaluate", checkpoint_needs([args.model, *args.vs]))
    rules = resolve_rules(args.rules, args.overrides)
    check_player_count(rules, args.players)
    model = parse_agent(args.model, where="MODEL")
    for entry in args.vs:
        opponent_seats(entry, args.players)  # every spec checked before any game
    if args.out:
        for path in result_paths(args.out):
            check_output_file(path, "--out", f"results{path.suffix}", make_folder=True)
    style = model.compiled
    if model.kind == "checkpoint":  # a compiled agent plays in the compiled batch loop: no torch
        set_torch_threads(args.threads)
    warm_up("batch" if style else "vector")
    results = evaluate(
        args.model, rules, args.players, args.vs, args.games, args.seed,
        deterministic=not args.sample, batch=args.batch, allow_rules_mismatch=args.allow_rules_mismatch,
        trust=args.trust_checkpoint,
    )  # fmt: skip
    print(
        f"{args.model} on {rules.preset_name() or 'custom rules'}, {args.players} players, seed {args.seed}; "
        f"fair share {1 / args.players:.1%} (1/{args.players}: what a player as strong as its opponents wins)"
    )
    print(format_table(results))
    if args.out:
        path = write_results(
            results,
            args.out,
            {"model": args.model, "rules_string": str(rules), "seed": args.seed, "sample": args.sample},
        )
        print(f"wrote {path} and {path.with_suffix('.csv')}")
    return 0


COMMAND = Subcommand("evaluate", "win rate / rank / points of a policy or style", _add_arguments, run)
main = COMMAND.main


if __name__ == "__main__":
    sys.exit(main())
