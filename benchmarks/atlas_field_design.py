"""The atlas' games against the field, two designs at equal games: how wide their intervals are.

``field_rotations = "all"`` plays each rung alone against every rotation of the ``k`` field
styles on every deal (``k * n`` games a deal); ``"one"`` seats one rotation a deal (``n``
games a deal) on ``k`` times the deals. The games of one deal are alike (the same cards), so
with the deal as the unit the first design's effective sample is small. This plays official
Uno and one variation with the default atlas' players and deals, once each way with the same
number of field games (``--deals`` for ``"all"``, ``k`` times as many for ``"one"``), and
prints each interval's half-width against the field (the strong player's skill depth, the
oracle's edge over it, every rung's win rate) on both deal sets pooled, as ``atlas.csv``
gives them::

    python benchmarks/atlas_field_design.py --out runs/atlas-field-design
    python benchmarks/atlas_field_design.py --out runs/atlas-field-design --players 2 4

Each design's run folder (``OUT/all``, ``OUT/one``) is a complete atlas:
``python benchmarks/atlas_budget.py OUT/one --spec`` projects the default atlas from its
CPU rates. A run that was interrupted resumes.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import Any

import pandas as pd

from training import atlas


def design(rotations: str, deals: int, players: list[int], variation: str) -> dict[str, Any]:
    """The comparison's spec: official Uno and one variation, the default's players and deals."""
    default = atlas.load_spec(None).to_dict()
    return {
        **default,
        "name": f"field_{rotations}",
        "players": players,
        "presets": ["uno"],
        "variations": {variation: default["variations"][variation]},
        "pairs": [],
        "controls": False,
        "field_rotations": rotations,
        "deals": {**default["deals"], "field": deals},
    }


def half_widths(run: Path) -> pd.DataFrame:
    """Half-widths (pp) of every level read against the field, per cell."""
    frame = pd.read_csv(run / "atlas.csv")
    field = frame["measure"].isin(["skill_vs_field", "hidden_info"]) | frame["measure"].str.startswith(
        "field:"
    )
    out = frame[field].copy()
    out["half"] = (out["hi"] - out["lo"]) / 2 * 100
    return out


def main(argv: list[str] | None = None) -> None:
    """Run both designs and print their intervals side by side."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the two runs")
    parser.add_argument("--players", type=int, nargs="+", default=[2])
    parser.add_argument("--deals", type=int, default=30, help='field deals of "all" per deal set')
    parser.add_argument("--variation", default="stacking", help="a variation of the default atlas")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    k = len(atlas.load_spec(None).field)
    runs = {}
    for rotations, deals in (("all", args.deals), ("one", args.deals * k)):
        spec = atlas.parse_spec(design(rotations, deals, args.players, args.variation))
        out = args.out / rotations
        runs[rotations] = out
        if not (out / "atlas.csv").exists():
            atlas.run_atlas(spec, out, workers=args.workers, resume=(out / "spec.toml").exists())
    all_, one = half_widths(runs["all"]), half_widths(runs["one"])
    keys = ["variant", "players", "measure"]
    both = all_.merge(one, on=keys, suffixes=("_all", "_one"))
    print(f"field games per deal set and cell: {args.deals} deals x {k} rotations (all) = {args.deals * k} "
          "deals x 1 rotation (one), every seat")  # fmt: skip
    print("| cell | measure | all: value [95%] | ± pp | one: value [95%] | ± pp | ratio |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for _, r in both.iterrows():
        unit = " pp" if r["measure"] == "hidden_info" else "%"
        a = f"{r['value_all']:.1%}"[:-1] + f"{unit} [{100 * r['lo_all']:.1f}, {100 * r['hi_all']:.1f}]"
        o = f"{r['value_one']:.1%}"[:-1] + f"{unit} [{100 * r['lo_one']:.1f}, {100 * r['hi_one']:.1f}]"
        ha, ho = r["half_all"], r["half_one"]
        print(
            f"| `{r['variant']}`, {r['players']}p | {r['measure']} | {a} | ±{ha:.2f} | {o} | ±{ho:.2f} | "
            f"{ho / ha:.2f} |"
        )
    for n in args.players:
        for measure in ("skill_vs_field", "hidden_info"):
            rows = both[(both["players"] == n) & (both["measure"] == measure)]
            if len(rows):
                ratio = statistics.median(rows["half_one"] / rows["half_all"])
                print(f"{n} players, {measure}: median half-width ratio one/all {ratio:.2f}")
        rows = both[(both["players"] == n) & both["measure"].str.startswith("field:")]
        ratio = statistics.median(rows["half_one"] / rows["half_all"])
        print(f"{n} players, every rung against the field: median half-width ratio one/all {ratio:.2f}")


if __name__ == "__main__":
    main()
