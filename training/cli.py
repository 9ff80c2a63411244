"""The ``uno-env`` command line.

Subcommands:

``uno-env simulate``
    play many games with compiled policies on the batch engine and print game length,
    seat win rates and throughput; every rate and mean with its 95% interval (game ``i`` is
    dealt from seed ``seed + i``, so games are independent: Wilson intervals for rates,
    Student-t intervals for means). On built-in defaults: 100,000
    official-Uno games at 4 players, uniform random legal play.
``uno-env rules [PRESET|FILE.toml]``
    list the presets, or print a rule set as TOML (with ``--fields``: every switch, its
    rule ID, default and allowed values).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Sequence

import numpy as np

import uno_env
from uno_env.rules import rule_fields


def _cmd_simulate(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
    rules = uno_env.load_rules(args.rules)
    rules.check_players(args.players)
    print(
        f"rules: {args.rules} ({rules.preset_name() or 'custom'}); {args.players} players; "
        f"{args.games:,} games; policy: {args.policy}; seed {args.seed}"
    )
    policies: str | list[str] = args.policy.split("/") if "/" in args.policy else args.policy
    uno_env.simulate(rules, args.players, 1, seed=args.seed, policies=policies)  # compile
    start = time.perf_counter()
    result = uno_env.simulate(rules, args.players, args.games, seed=args.seed, policies=policies)
    seconds = time.perf_counter() - start
    lengths = result.length
    summary = result.summary()
    print()
    for name, (mean, lo, hi), values, what in (
        ("turns", summary.turns, result.turns, "a player enters the play phase to play or draw"),
        (
            "decisions",
            summary.decisions,
            lengths,
            "every choice a player makes, colours and answers included",
        ),
    ):
        print(
            f"game length in {name} ({what}): mean {mean:.1f} "
            f"[{lo:.1f}, {hi:.1f}], median {np.median(values):.0f}, p10 {np.percentile(values, 10):.0f}, "
            f"p90 {np.percentile(values, 90):.0f}"
        )
    print(
        f"truncated at the decision limit ({rules.max_decisions:,}): {result.truncated.mean():.2%} of games"
    )
    print("\nseat  win rate  95% interval (Wilson; each game its own deal, so games are independent)")
    for seat, (rate, lo, hi) in enumerate(summary.seat_win_rates):
        print(f"{seat:>4}  {rate:8.2%}  [{lo:.2%}, {hi:.2%}]")
    rate, lo, hi = summary.first_mover_win_rate
    print(
        f"first mover (the seat of the first decision; the dealer is drawn each deal): "
        f"{rate:.2%} [{lo:.2%}, {hi:.2%}]"
    )
    print(
        f"\nthroughput: {lengths.sum() / seconds:,.0f} decisions/s, "
        f"{result.num_games / seconds:,.0f} games/s ({seconds:.1f} s, one core)"
    )
    if args.record:
        _record_simulated(args, rules, policies, result)
    return 0


def _record_simulated(
    args: argparse.Namespace, rules: uno_env.RuleSet, policies: str | list[str], result: uno_env.BatchResult
) -> None:
    """Write the first ``--record-games`` games as records, checked against the batch results."""
    from uno_env.records import record_simulated, save_records

    count = min(args.record_games, result.num_games)
    records = record_simulated(rules, args.players, args.seed, policies, range(count))
    for i, record in enumerate(records):
        outcome = record.outcome
        assert outcome is not None
        winner = -1 if outcome.winner is None else outcome.winner
        if (
            outcome.decisions != result.length[i]
            or outcome.turns != result.turns[i]
            or winner != result.winner[i]
        ):
            raise AssertionError(f"recorded game {i} (seed {args.seed + i}) differs from the simulated one")
    save_records(args.record, records)
    print(f"\nrecorded games 0..{count - 1} (seeds {args.seed}..{args.seed + count - 1}) to {args.record}")


def _cmd_rules(args: argparse.Namespace) -> int:
    if args.fields:
        for f in rule_fields():
            print(f"{f['name']:<20} {f['rule']:<10} default={f['default']!r:<22} allowed={f['allowed']}")
            print(f"{'':<20} {f['doc']}")
        return 0
    if args.rules is None:
        for name, rules in uno_env.PRESETS.items():
            print(f"{name:<18} {rules.min_players}-{rules.max_players} players, deck {rules.deck}")
        return 0
    print(uno_env.load_rules(args.rules).to_toml(), end="")
    return 0


# Modules that contribute a subcommand: each defines ``add_subcommand(subparsers)``, which adds
# its parser and sets ``func`` to a callable taking the parsed arguments and returning an exit
# code. These modules import heavy dependencies (torch, pandas, Ray) inside the functions that
# need them, so building the parser stays fast and ``uno-env simulate`` never loads torch.
SUBCOMMAND_MODULES: tuple[str, ...] = (
    "training.study",
    "training.tournament",
    "training.play",
    "training.replay",
    "training.train",
    "training.selfplay",
    "training.evaluate",
    "training.sweep",
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``uno-env``."""
    parser = argparse.ArgumentParser(prog="uno-env", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    sim = sub.add_parser("simulate", help="play many games on the compiled batch engine")
    sim.add_argument("--rules", default="uno", help="preset name or rule TOML file (default: uno)")
    sim.add_argument("--players", type=int, default=4, help="players per game (default: 4)")
    sim.add_argument("--games", type=int, default=100_000, help="games to play (default: 100000)")
    sim.add_argument("--seed", type=int, default=0, help="seed of game 0; game i uses seed+i")
    sim.add_argument(
        "--policy",
        default="random",
        help="compiled play style of every seat, or one per seat separated by '/', with "
        "parameters as name:key=value,... e.g. 'greedy/random' or 'bluffer:bluff=0.3' "
        "(default: random; styles: " + ", ".join(sorted(uno_env.batch.POLICIES)) + ")",
    )
    sim.add_argument("--record", metavar="FILE.jsonl", help="write the first games as replayable records")
    sim.add_argument(
        "--record-games",
        type=int,
        default=10,
        metavar="K",
        help="games to record with --record (default: 10)",
    )
    sim.set_defaults(func=_cmd_simulate)

    rules = sub.add_parser("rules", help="list presets or print a rule set")
    rules.add_argument("rules", nargs="?", help="preset name or TOML file to print")
    rules.add_argument("--fields", action="store_true", help="describe every rule switch")
    rules.set_defaults(func=_cmd_rules)

    for module_name in SUBCOMMAND_MODULES:
        importlib.import_module(module_name).add_subcommand(sub)
    return parser


class MissingPackageError(RuntimeError):
    """An optional package a command needs is not installed; the message names the extra."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``uno-env`` console script.

    Bad input (unknown rules, malformed files, impossible settings) and a missing optional
    package end with ``uno-env: error: <what and what is allowed>`` and exit code 2.
    """
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (uno_env.RuleError, ValueError, MissingPackageError) as exc:
        print(f"uno-env: error: {exc}", file=sys.stderr)
        return 2


def run_module(command: str, argv: Sequence[str] | None = None) -> int:
    """``python -m training.<module>``: exactly ``uno-env <command> ...``, same options and errors."""
    return main([command, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
