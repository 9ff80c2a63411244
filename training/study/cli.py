"""``uno-env study`` and ``python -m training.study``: the command line of the study (declared as
:data:`training.study.COMMAND`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from training.common import add_run_arguments, add_trust_argument, run_options
from training.extras import REPORT, TRAIN, executor_needs, merge, require
from uno_env import files

from .load import load_spec, parse_spec
from .run import default_out_dir, run_study
from .spec import LEARNED, SpecError, is_checkpoint

KEEPS = (
    "a study writes each finished batch into its run folder as it goes; after an interruption "
    "uno-env study --resume DIR plays only the missing ones"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``uno-env study``."""
    parser.add_argument("spec", nargs="?", help="study spec TOML (default: the built-in default study)")
    add_run_arguments(parser, "study", "where batches run", "runs/study__<name>__<seed>__<time>")
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
    add_trust_argument(parser)


def _exports_networks(sweep: Any, here: Path) -> bool:
    """Whether the sweep folder ``sweep`` trained exported networks (an expert-iteration sweep,
    ``mode = "expert"``: its players sit in the compiled simulator, no torch), as its own
    ``spec.toml`` says; when that cannot be read, no."""
    if not isinstance(sweep, str):
        return False
    for folder in (Path(sweep), here / sweep):
        try:
            raw = files.read_toml(folder / "spec.toml", "sweep spec")
        except ValueError:
            continue
        return raw.get("mode") == "expert"
    return False


def study_needs(spec_path: Path | None, executor: str) -> dict[str, tuple[str, ...]]:
    """The optional modules a study needs, read from its spec file before anything else (the
    spec's own checks come after): pandas and matplotlib for its tables, report and plots;
    torch and sb3-contrib when a style is a checkpoint or the spec seats a sweep's policies;
    Ray for ``--executor ray``."""
    styles: list[Any] = []
    sweep = False
    if spec_path is not None:
        try:  # the same bounded read as the spec's loader (a FIFO, a device, a huge file: refused)
            raw = files.read_toml(spec_path, "study spec")
        except ValueError:
            raw = {}  # the spec's loader says what is wrong with it
        styles = raw.get("styles", []) if isinstance(raw.get("styles"), list) else []
        sweep = bool(raw.get("sweep")) and not _exports_networks(raw["sweep"], Path(spec_path).parent)
    learned = sweep or any(isinstance(s, str) and (is_checkpoint(s) or s == LEARNED) for s in styles)
    return merge({"study": REPORT}, {"train": TRAIN} if learned else {}, executor_needs(executor))


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
    spec_file = args.resume / "spec.toml" if args.resume is not None else args.spec
    require("study", study_needs(spec_file, args.executor), resume_dir=args.resume, keeps=KEEPS)
    if args.resume is not None:
        if args.spec is not None or overrides or args.out is not None:
            raise SpecError(
                "--resume DIR continues DIR/spec.toml in DIR; do not give a SPEC, --out, --games, --seed, "
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
    run_study(spec, out, **run_options(args), trust_checkpoints=args.trust_checkpoint)
    print(f"results: {out / 'results.csv'}\nreport: {out / 'report.md'}")
    return 0
