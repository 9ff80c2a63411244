"""``uno-env atlas`` and ``python -m training.atlas``: the command line of the atlas (declared as
:data:`training.atlas.COMMAND`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from training.common import add_run_arguments, run_options
from training.extras import REPORT, checkpoint_needs, executor_needs, merge, require

from .report import assemble
from .run import default_out_dir, run_atlas
from .spec import AtlasSpecError, load_spec, parse_spec

KEEPS = (
    "an atlas writes each finished batch into its run folder as it goes; after an interruption "
    "uno-env atlas --resume DIR plays only the missing ones"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``uno-env atlas``."""
    parser.add_argument(
        "spec", nargs="?", type=Path, help="atlas spec TOML (default: the built-in default atlas)"
    )
    add_run_arguments(parser, "atlas", "where batches run", "runs/atlas__<name>__<seed>__<time>")
    parser.add_argument("--seed", type=int, default=None, help="override the spec's seed")
    parser.add_argument(
        "--players", type=int, nargs="+", default=None, metavar="N", help="override the spec's player counts"
    )
    parser.add_argument(
        "--pair",
        action="append",
        default=None,
        metavar="A+B",
        help="also measure two of the spec's variations together (labels joined by +); repeatable",
    )
    parser.add_argument(
        "--strong",
        default=None,
        metavar="AGENT",
        help="override the strong player (an agent spec, e.g. search:sims=300)",
    )
    parser.add_argument(
        "--replicate",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="play every cell again on fresh deals (the default atlas replicates)",
    )
    parser.add_argument(
        "--report",
        type=Path,
        default=None,
        metavar="DIR",
        help="write the tables, plots and report of the finished atlas in DIR again",
    )


def cmd_atlas(args: argparse.Namespace) -> int:
    """Run ``uno-env atlas`` from parsed arguments."""
    overrides = {
        key: value
        for key, value in (
            ("seed", args.seed),
            ("players", args.players),
            ("strong", args.strong),
            ("replicate", args.replicate),
        )
        if value is not None
    }
    if args.report is not None:
        if args.spec is not None or overrides or args.pair or args.resume is not None:
            raise AtlasSpecError(
                "--report DIR writes the report of the atlas in DIR; give no SPEC, overrides or --resume"
            )
        require("atlas", {"study": REPORT})

        assemble(args.report)
        print(f"report: {args.report / 'report.md'}")
        return 0
    spec_file = args.resume / "spec.toml" if args.resume is not None else args.spec
    if args.resume is not None:
        if args.spec is not None or overrides or args.pair or args.out is not None:
            raise AtlasSpecError(
                "--resume DIR continues DIR/spec.toml in DIR; do not give a SPEC, --out, --pair or overrides"
            )
        spec = load_spec(spec_file)
        out = args.resume
    else:
        spec = load_spec(args.spec)
        if overrides or args.pair:
            data = spec.to_dict()
            data.update(overrides)
            data["pairs"] = [*data["pairs"], *(p.split("+") for p in args.pair or [])]
            spec = parse_spec(data, source="spec with command-line overrides")
        out = args.out if args.out is not None else default_out_dir(spec)
    agents = [spec.strong, spec.oracle, spec.baseline, *spec.field, *spec.ladder, spec.learned]
    require(
        "atlas",
        merge({"study": REPORT}, checkpoint_needs([a for a in agents if a]), executor_needs(args.executor)),
        resume_dir=args.resume,
        keeps=KEEPS,
    )
    run_atlas(spec, out, **run_options(args))
    print(f"results: {out / 'atlas.csv'}\nreport: {out / 'report.md'}")
    return 0
