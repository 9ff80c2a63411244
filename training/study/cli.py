"""``uno-env study`` and ``python -m training.study``: the command line of the study."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from training.common import add_trust_argument
from training.runner import (
    EXECUTORS,
)

if TYPE_CHECKING:
    pass
from .run import default_out_dir, run_study
from .spec import SpecError, load_spec, parse_spec


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", nargs="?", help="study spec TOML (default: the built-in default study)")
    parser.add_argument(
        "--out", type=Path, help="output folder (default: runs/study__<name>__<seed>__<time>)"
    )
    parser.add_argument("--resume", type=Path, metavar="DIR", help="continue the study in DIR")
    parser.add_argument("--executor", choices=EXECUTORS, default="process", help="where batches run")
    parser.add_argument("--workers", type=int, default=None, help="processes / Ray CPUs (default: cores)")
    parser.add_argument("--ray-address", default=None, help="address of an existing Ray cluster")
    parser.add_argument("--games", type=int, default=None, help="override the spec's games per cell")
    parser.add_argument("--seed", type=int, default=None, help="override the spec's seed")
    parser.add_argument(
        "--replicate",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="play the design again on fresh deals and report which detected effects replicate "
        "(overrides the spec's replicate; the default study replicates)",
    )
    parser.add_argument(
        "--reference",
        default=None,
        metavar="STYLE",
        help="style of the fixed reference field (overrides the spec's reference; '' for none)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress display")
    add_trust_argument(parser)


def cmd_study(args: argparse.Namespace) -> int:
    """Run ``uno-env study`` from parsed arguments."""
    overrides = {
        k: v
        for k, v in (
            ("games", args.games),
            ("seed", args.seed),
            ("replicate", args.replicate),
            ("reference", args.reference),
        )
        if v is not None
    }
    if args.resume is not None:
        if args.spec is not None or overrides:
            raise SpecError(
                "--resume DIR continues DIR/spec.toml; do not give a SPEC, --games, --seed, "
                "--replicate or --reference"
            )
        out = args.resume
        spec = load_spec(out / "spec.toml")
    else:
        spec = load_spec(args.spec)
        if overrides:
            data = spec.to_dict()
            data.update(overrides)
            spec = parse_spec(data, source="spec with command-line overrides")
        out = args.out if args.out is not None else default_out_dir(spec)
    run_study(
        spec,
        out,
        executor=args.executor,
        workers=args.workers,
        ray_address=args.ray_address,
        resume=args.resume is not None,
        progress=not args.quiet,
        trust_checkpoints=args.trust_checkpoint,
    )
    print(f"results: {out / 'results.csv'}\nreport: {out / 'report.md'}")
    return 0


def add_subcommand(subparsers: argparse._SubParsersAction) -> None:
    """Add ``uno-env study`` to the ``uno-env`` command line."""
    import training.study

    parser = subparsers.add_parser(
        "study",
        help="factorial house-rules study (rule variants x players x styles)",
        description=training.study.__doc__,
    )
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    _add_arguments(parser)
    parser.set_defaults(func=cmd_study)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m training.study``: the same as ``uno-env study``."""
    from training.cli import run_module

    return run_module("study", argv)
