"""The ``uno-env`` command line: the engine, studies, tournaments, training and play.

Subcommands defined here:

``uno-env simulate``
    play many games with compiled policies on the batch engine and print game length,
    seat win rates and throughput; every rate and mean with its 95% interval (game ``i`` is
    dealt from seed ``seed + i``, so games are independent: Wilson intervals for rates,
    Student-t intervals for means). On built-in defaults: 100,000
    official-Uno games at 4 players, uniform random legal play.
``uno-env rules [PRESET|FILE.toml]``
    list the presets, or print a rule set as TOML (with ``--fields``: every switch, its
    rule ID, type, allowed values and default; with ``--explain ID``: one rule of the rule
    reference, ``docs/rules.md``).

Help text is plain text: :class:`PlainHelpFormatter` strips the docstring markup the
subcommands' descriptions are written in and shows every option's default.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import textwrap
import time
from collections.abc import Sequence

import numpy as np

import uno_env
from agents.spec import check_seated_networks, split_seats
from uno_env.compiler.compiling import PARTS, compiling
from uno_env.engine.rng import check_seed
from uno_env.engine.rules import rule_fields
from uno_env.game import reference
from uno_env.game.records import save_records
from uno_env.sim.records import record_simulated
from uno_env.stats import wilson_interval

from .common import (
    PlainHelpFormatter,
    add_rule_arguments,
    add_rules_mismatch_argument,
    check_player_count,
    record_target,
    resolve_rules,
    run_parsed,
)


def simulate_policies(
    text: str, players: int, rules: uno_env.RuleSet | None = None, *, allow_rules_mismatch: bool = False
) -> str | list[str]:
    """``--policy``: one compiled agent for every seat, or a seat table with one per seat
    (:mod:`agents.spec`; a path is always a path). The batch simulator runs compiled agents
    only: styles and exported policies. Given ``rules``, a network trained for other rules or
    another player count is refused unless ``allow_rules_mismatch`` (as in a tournament)."""

    specs = split_seats(text, where="--policy")
    for spec in specs:
        if not spec.compiled:
            raise ValueError(
                f"--policy {spec.text!r}: simulate runs compiled agents only (styles, shipped or exported "
                f"policies); a {spec.kind} agent plays in uno-env tournament or evaluate"
            )
    if rules is not None:
        check_seated_networks(specs, rules, players, allow_rules_mismatch=allow_rules_mismatch)
    if len(specs) == 1:
        return specs[0].policy
    if len(specs) != players:
        raise ValueError(
            f"--policy {text!r} names {len(specs)} seats; {players} players need {players} (or one)"
        )
    return [spec.policy for spec in specs]


def _cmd_simulate(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
    if args.record_games < 1:
        raise ValueError(f"--record-games must be at least 1, got {args.record_games}")
    check_seed(args.seed)
    rules = resolve_rules(args.rules, args.overrides)
    check_player_count(rules, args.players)
    policies = simulate_policies(
        args.policy, args.players, rules, allow_rules_mismatch=args.allow_rules_mismatch
    )
    with record_target(args.record, append=False):
        return _simulate(args, rules, policies)


def _simulate(args: argparse.Namespace, rules: uno_env.RuleSet, policies: str | list[str]) -> int:
    print(
        f"rules: {args.rules}{''.join(' --set ' + o for o in args.overrides)} "
        f"({rules.preset_name() or 'custom'}); {args.players} players; "
        f"{args.games:,} games; policy: {args.policy}; seed {args.seed}"
    )
    with compiling("batch"):
        uno_env.simulate(  # load the compiled loop
            rules, args.players, 1, seed=args.seed, policies=policies,
            allow_rules_mismatch=args.allow_rules_mismatch,
        )  # fmt: skip
    start = time.perf_counter()
    result = uno_env.simulate(
        rules, args.players, args.games, seed=args.seed, policies=policies,
        allow_rules_mismatch=args.allow_rules_mismatch,
    )  # fmt: skip
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
    cut = int(result.truncated.sum())
    cut_lo, cut_hi = wilson_interval(cut, result.num_games)
    print(
        f"truncated at the decision limit ({rules.max_decisions:,}): {cut / result.num_games:.2%} of games "
        f"[{cut_lo:.2%}, {cut_hi:.2%}] (95%, Wilson)"
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
    if args.explain is not None:
        if args.explain.lower() == "all":
            print(reference.explain_index())
        else:
            print(reference.explain(args.explain))
        return 0
    if args.fields:
        print("field                rule          allowed values (default)\n" + " " * 35 + "what it does\n")
        for f in rule_fields():
            print(f"{f['name']:<20} {f['rule']:<13} {f['allowed']} (default {f['default']})")
            print(
                textwrap.fill(
                    f["doc"], 100, initial_indent=" " * 35, subsequent_indent=" " * 35, break_on_hyphens=False
                )
            )
        return 0
    if args.rules is None:
        for name, rules in uno_env.PRESETS.items():
            print(f"{name:<18} {rules.min_players}-{rules.max_players} players, deck {rules.deck}")
        return 0
    print(uno_env.load_rules(args.rules).to_toml(), end="")
    return 0


def _cmd_compile(args: argparse.Namespace) -> int:
    uno_env.compile_all(args.parts or None, progress=lambda line: print(line, flush=True))
    return 0


# Modules that contribute a subcommand: each declares it as ``COMMAND``, a ``common.Subcommand``
# whose ``add_to(subparsers)`` adds its parser and sets ``func`` to a callable taking the
# parsed arguments and returning an exit code. These modules import heavy dependencies
# (torch, pandas, Ray) inside the functions that need them, so building the parser stays fast
# and ``uno-env simulate`` never loads torch.
SUBCOMMAND_MODULES: tuple[str, ...] = (
    "training.study",
    "training.atlas",
    "training.tournament",
    "training.play",
    "training.replay",
    "training.train",
    "training.selfplay",
    "training.evaluate",
    "training.sweep",
    "training.export",
    "training.distill",
    "training.serve.cli",
    "training.serve.results",
    "training.expert",
    "training.benchmark",
    "training.exploitability",
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``uno-env``."""
    parser = argparse.ArgumentParser(
        prog="uno-env", description=__doc__.split("\n\n")[0], formatter_class=PlainHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)

    sim = sub.add_parser("simulate", help="play many games on the compiled batch engine")
    add_rule_arguments(sim)
    sim.add_argument("--players", type=int, default=4, help="players per game (default: 4)")
    sim.add_argument("--games", type=int, default=100_000, help="games to play (default: 100000)")
    sim.add_argument("--seed", type=int, default=0, help="seed of game 0; game i uses seed+i")
    sim.add_argument(
        "--policy",
        default="random",
        help="compiled agent of every seat, or one per seat as a seat table 'a | b' ('a/b' of names): "
        "a play style with parameters as name:key=value,... or an exported policy (a shipped name or "
        "a .npz path, always read as a path), e.g. 'greedy/random', 'bluffer:bluff=0.3', "
        "'/abs/p.npz | blocker' (docs/agents.md#agent-specs) "
        "(default: random, the same as random_legal: uniform over the legal actions; styles: "
        + ", ".join(sorted(uno_env.styles.registry.POLICIES))
        + ")",
    )
    sim.add_argument(
        "--record", metavar="FILE.jsonl", help="write the first games as replayable records to this new file"
    )
    sim.add_argument(
        "--record-games",
        type=int,
        default=10,
        metavar="K",
        help="games to record with --record (default: 10)",
    )
    add_rules_mismatch_argument(sim)
    sim.set_defaults(func=_cmd_simulate)

    rules = sub.add_parser("rules", help="list presets, print a rule set, explain a rule ID")
    rules.add_argument("rules", nargs="?", help="preset name or TOML file to print")
    rules.add_argument(
        "--fields", action="store_true", help="every rule field: rule ID, allowed values, default"
    )
    rules.add_argument(
        "--explain",
        metavar="ID",
        help="one rule of the rule reference (e.g. U-WD4-2) with its fields and presets; 'all' lists the IDs",
    )
    rules.set_defaults(func=_cmd_rules)

    warm = sub.add_parser(
        "compile",
        help="compile every entry point of the engine into the cache now (install step, images, clusters)",
    )
    warm.add_argument(
        "parts",
        nargs="*",
        metavar="PART",
        help="parts of the engine to compile (default: all): "
        + "; ".join(f"{name} ({what})" for name, (what, _) in PARTS.items()),
    )
    warm.set_defaults(func=_cmd_compile)

    for module_name in SUBCOMMAND_MODULES:
        importlib.import_module(module_name).COMMAND.add_to(sub)
    for subparser in sub.choices.values():
        subparser.formatter_class = PlainHelpFormatter
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``uno-env`` console script.

    Bad input (unknown rules, malformed files, impossible settings) and a missing optional
    package end with ``uno-env: error: <what and what is allowed>`` and exit code 2.
    """
    words = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(words)
    # the subcommand's own words (no option comes before it): given_options reads them
    args.command_argv = words[1:] if words and words[0] == args.command else None
    return run_parsed(args)


if __name__ == "__main__":
    sys.exit(main())
