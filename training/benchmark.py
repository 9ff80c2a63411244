"""Benchmark one agent against a fixed opponent: ``uno-env benchmark AGENT --vs OPPONENT``.

::

    uno-env benchmark "llm:model=my-model,base_url=http://127.0.0.1:8000/v1" --vs greedy --deals 100 \\
        --trace runs/llm_trace.jsonl
    uno-env benchmark "cmd:python my_agent.py" --vs blocker --players 4 --deals 200

The protocol of :mod:`agents.benchmark`: duplicate deals, the agent at every seat, the win
rate with its 95% interval by deal, and for agents that answer in words the illegal-answer
rate and fallback rate (each with its 95% interval by deal) and tokens per decision; seconds
per decision for every agent. ``--out`` writes the report as JSON; ``--trace`` every decision
and game (``uno-env replay`` reads it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agents.benchmark import benchmark, format_report
from agents.spec import parse_agent, parse_seats
from uno_env.files import json_text

from .common import (
    Subcommand,
    add_rule_arguments,
    add_rules_mismatch_argument,
    add_trust_argument,
    check_output_file,
    check_player_count,
    check_record_file,
    resolve_rules,
)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("agent", help="the agent to measure: any agent spec (docs/agents.md#agent-specs)")
    add_rule_arguments(parser)
    parser.add_argument("--players", type=int, default=2, help="players per game (default: 2)")
    parser.add_argument(
        "--vs",
        default="greedy",
        help="the opponent: one agent spec for every other seat, or a seat table 'a | b | c'",
    )
    parser.add_argument(
        "--deals", type=int, default=100, help="deals, each played with the agent at every seat"
    )
    parser.add_argument("--seed", type=int, default=0, help="deal d is dealt from seed + d (default: 0)")
    parser.add_argument(
        "--trace", metavar="FILE.jsonl", help="write every decision and game (uno-env replay reads it)"
    )
    parser.add_argument("--out", metavar="FILE.json", help="write the report as JSON")
    add_rules_mismatch_argument(parser)
    add_trust_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Run ``uno-env benchmark`` from parsed arguments."""

    if args.deals < 1:
        raise ValueError(f"--deals must be at least 1, got {args.deals}")
    rules = resolve_rules(args.rules, args.overrides)
    check_player_count(rules, args.players)
    parse_agent(args.agent, where="AGENT")
    parse_seats(args.vs, args.players - 1, where="--vs")
    if args.out:
        check_output_file(Path(args.out), "--out", "report.json", make_folder=True)
    if args.trace:
        check_record_file(Path(args.trace), "--trace", append=True, make_folder=True)
    report = benchmark(
        args.agent,
        args.vs,
        rules,
        args.players,
        args.deals,
        args.seed,
        trace=args.trace,
        trust=args.trust_checkpoint,
        allow_rules_mismatch=args.allow_rules_mismatch,
    )
    print(format_report(report))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json_text(report, indent=2) + "\n", encoding="utf-8")
        print(f"report: {args.out}")
    if args.trace:
        print(f"trace: {args.trace} (uno-env replay {args.trace})")
    return 0


COMMAND = Subcommand(
    "benchmark",
    "one agent against a fixed opponent: duplicate deals, every seat, intervals, answers and cost",
    _add_arguments,
    run,
    description=__doc__,
)
main = COMMAND.main


if __name__ == "__main__":
    sys.exit(main())
