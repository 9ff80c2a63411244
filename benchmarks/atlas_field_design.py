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


def half_width_ratio(half_one: float, half_all: float) -> float | None:
    """One design's half-width over the other's; ``None`` where the "all" interval has no width
    (every game of the measure ended alike on its few deals, e.g. a weak rung that never won)."""
    return None if half_all == 0 else half_one / half_all


def print_table(both: pd.DataFrame, players: list[int]) -> None:
    """The two designs' intervals side by side (``both``: :func:`half_widths` of each, merged on the
    cell and measure with the suffixes ``_all`` and ``_one``), then the median ratios per player count."""
    print("| cell | measure | all: value [95%] | ± pp | one: value [95%] | ± pp | ratio |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for _, r in both.iterrows():
        unit = " pp" if r["measure"] == "hidden_info" else "%"
        a = f"{r['value_all']:.1%}"[:-1] + f"{unit} [{100 * r['lo_all']:.1f}, {100 * r['hi_all']:.1f}]"
        o = f"{r['value_one']:.1%}"[:-1] + f"{unit} [{100 * r['lo_one']:.1f}, {100 * r['hi_one']:.1f}]"
        ha, ho = r["half_all"], r["half_one"]
        ratio = half_width_ratio(ho, ha)
        shown = "n/a" if ratio is None else f"{ratio:.2f}"
        print(
            f"| `{r['variant']}`, {r['players']}p | {r['measure']} | {a} | ±{ha:.2f} | {o} | ±{ho:.2f} | "
            f"{shown} |"
        )
    for n in players:
        at_n = both[both["players"] == n]
        groups = [(m, at_n[at_n["measure"] == m]) for m in ("skill_vs_field", "hidden_info")]
        groups.append(("every rung against the field", at_n[at_n["measure"].str.startswith("field:")]))
        for label, rows in groups:
            ratios = [x for x in map(half_width_ratio, rows["half_one"], rows["half_all"]) if x is not None]
            if ratios:
                print(
                    f"{n} players, {label}: median half-width ratio one/all {statistics.median(ratios):.2f}"
                )
            elif len(rows):
                print(f'{n} players, {label}: no interval of the "all" design has a width')


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
    print_table(both, args.players)


if __name__ == "__main__":
    main()
