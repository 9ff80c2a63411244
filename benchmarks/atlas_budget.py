"""The atlas' CPU budget, from the batches a run has finished: its total, and the full catalogue's.

Every batch of an atlas logs the CPU seconds it took (``log.jsonl``). Batches of one class
(player count, kind of games, and whether a costly rung plays alone: ``a`` the cheap rungs
together, ``s`` a searching rung alone, ``t`` a traced or fitting table) play the same kind of
games, so their CPU per game measured on the finished ones, times the games every batch of the
plan holds (:func:`training.atlas.planning.plan`), projects the run's total batch CPU. A traced
class not yet reached takes the rate of its fitting games (the same tables on other deals).
CPU seconds, not wall seconds: on a busy machine the wall time stretches with the load while
the CPU time stays near a quiet machine's; total / 2 is the time on two idle cores.

``--precision`` reads the skill depth (against the baseline, under strong and under scripted
play; against the field) and the value of hidden information of every cell whose batches of
that kind and deal set are all finished, with the 95% interval's half-width: on both deal
sets when both are there, else on one, with the half-width both would give (``/ sqrt(2)``:
twice the deals) beside it.

``--players 2 3 ... 10`` projects the same catalogue at other player counts from the 2- and
4-player rates (a searching rung alone at the larger of the two; tables where every seat
plays, linear in the players); ``--spec SPEC`` projects another spec's plan (``default``: the
built-in default atlas) from this run's rates, e.g. the default atlas at other deals from a
small run of the same players::

    python benchmarks/atlas_budget.py runs/atlas-default
    python benchmarks/atlas_budget.py runs/atlas-default --players 2 3 4 5 6 7 8 9 10
    python benchmarks/atlas_budget.py runs/atlas-default --precision
    python benchmarks/atlas_budget.py runs/atlas-field-design/one --spec default
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import statistics
from pathlib import Path

from training.atlas import stats
from training.atlas.planning import TRACED, AtlasTask, measure_tasks, plan
from training.atlas.spec import COIN_FLIP, AtlasSpec, load_spec, parse_spec

Class = tuple[int, str, str]


def task_class(task_id: str) -> Class:
    """(players, kind, group) of a batch id ``variant__Np__kindR__gNNNN`` or ``variant__Np__fit_kind``."""
    parts = task_id.split("__")
    players = int(parts[1][:-1])
    kind = "".join(c for c in parts[2] if not c.isdigit()).removeprefix("fit_")
    group = parts[3][0] if len(parts) > 3 and parts[3][0] in "as" else "t"
    return players, kind, group


def measured(out: Path) -> tuple[dict[Class, tuple[float, int]], set[str]]:
    """CPU seconds and games per batch class over the run's finished batches, and their ids."""
    sums: dict[Class, list[float]] = collections.defaultdict(lambda: [0.0, 0.0])
    seen = set()
    for line in (out / "log.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event.get("cpu_seconds") is None:
            continue
        key = task_class(event["id"])
        sums[key][0] += float(event["cpu_seconds"])
        sums[key][1] += float(event["games"])
        seen.add(event["id"])
    return {k: (v[0], int(v[1])) for k, v in sums.items()}, seen


def rate(rates: dict[Class, tuple[float, int]], key: Class) -> float:
    """CPU seconds per game of a class; at a player count not measured, from the 2- and 4-player rates."""
    if key in rates and rates[key][1]:
        return rates[key][0] / rates[key][1]
    n, kind, group = key
    two, four = rates.get((2, kind, group)), rates.get((4, kind, group))
    if not two or not four or not two[1] or not four[1]:
        return math.nan
    r2, r4 = two[0] / two[1], four[0] / four[1]
    if group == "s":
        return max(r2, r4)
    return r2 + (r4 - r2) * (n - 2) / 2


def full_plan(spec: AtlasSpec) -> list[AtlasTask]:
    """Every batch of the spec, the traced ones included (their models' weights do not change the games)."""
    models = {(v.id, n, k): (0.0,) for v, n in spec.cells() for k in TRACED}
    return plan(spec, models)


PRECISION = (
    ("skill_vs_baseline", "strong", "baseline"),
    ("skill_vs_baseline", "scripted", "baseline"),
    ("skill_vs_field", "strong", "field"),
    ("hidden_info", "strong", "field"),
)
"""(measure, play, kind of games it reads) of ``--precision``."""


def precision(spec: AtlasSpec, out: Path) -> None:
    """Print each finished cell's skill depth and hidden-information value with their half-widths."""
    groups: dict[tuple[str, int, int, str], list[AtlasTask]] = collections.defaultdict(list)
    for task in measure_tasks(spec):
        if task.kind in ("baseline", "field"):
            groups[(task.variant, task.players, task.replica, task.kind)].append(task)
    batches, finished = [], set()
    for key, tasks in groups.items():
        paths = [out / "batches" / f"{t.id}.json" for t in tasks]
        if all(p.exists() for p in paths):
            finished.add(key)
            batches += [json.loads(p.read_text(encoding="utf-8")) for p in paths]
    cells = stats.merge(spec, batches)
    print("| cell | measure | play | deal sets | value | half-width (pp) | with both sets (pp) |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    widest: dict[tuple[str, str, int], list[float]] = collections.defaultdict(list)
    for name, play, kind in PRECISION:
        measure = stats.MEASURE_BY_NAME[name]
        for variant, n in spec.cells():
            sets = [r for r in spec.replicas() if (variant.id, n, r, kind) in finished]
            if variant.id == COIN_FLIP or not sets:
                continue
            est = stats.estimate(spec, [cells[(variant.id, n, r)] for r in sets], measure, play)
            if est is None:
                continue
            wilson = name in stats.WILSON and 0.0 <= est.value <= 1.0
            lo, hi = est.proportion_interval() if wilson else est.interval()
            half = (hi - lo) / 2 * 100
            both = half if len(sets) == len(spec.replicas()) else half / math.sqrt(2)
            widest[(name, play, n)].append(both)
            print(
                f"| `{variant.id}`, {n}p | {name} | {play} | {len(sets)} | {100 * est.value:.1f} | "
                f"±{half:.2f} | ±{both:.2f} |"
            )
    print()
    for (name, play, n), halves in sorted(widest.items()):
        print(
            f"{name} ({play}), {n} players: at most ±{max(halves):.2f} pp, median "
            f"±{statistics.median(halves):.2f} over {len(halves)} cells (with both deal sets)"
        )


def main(argv: list[str] | None = None) -> None:
    """Print the per-class rates and the projected total of a run (or of its catalogue at ``--players``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run", type=Path, help="an atlas run folder (finished or still running)")
    parser.add_argument("--players", type=int, nargs="+", help="project the catalogue at these player counts")
    parser.add_argument("--precision", action="store_true", help="the finished cells' skill-depth intervals")
    parser.add_argument(
        "--spec", help="project this spec (default: the built-in default atlas) from the rates"
    )
    args = parser.parse_args(argv)
    spec = load_spec(args.run / "spec.toml")
    if args.precision:
        precision(spec, args.run)
        return
    rates, seen = measured(args.run)
    if args.spec:
        spec = load_spec(None if args.spec == "default" else Path(args.spec))
    if args.players:
        spec = parse_spec({**spec.to_dict(), "players": args.players})
    need: dict[Class, int] = collections.Counter()
    for task in full_plan(spec):
        need[task_class(task.id)] += task.games
    total = spent = 0.0
    print("| players | kind | group | games done | games planned | ms per game | projected CPU s |")
    print("| ---: | --- | --- | ---: | ---: | ---: | ---: |")
    for key in sorted(need):
        cpu, games = rates.get(key, (0.0, 0))
        r = rate(rates, key)
        total += r * need[key]
        spent += cpu
        cost = r * need[key]
        print(
            f"| {key[0]} | {key[1]} | {key[2]} | {games:,} | {need[key]:,} | {1000 * r:.3f} | {cost:,.0f} |"
        )
    by_players: dict[int, float] = collections.defaultdict(float)
    for key in need:
        by_players[key[0]] += rate(rates, key) * need[key]
    print()
    for n in sorted(by_players):
        cells = sum(1 for _, m in spec.cells() if m == n)
        print(f"{n} players: {cells} cells, {by_players[n]:,.0f} s of CPU")
    print(
        f"batch CPU measured {spent:,.0f} s over {len(seen):,} batches; projected total {total:,.0f} s "
        f"= {total / 2 / 60:.1f} min of two idle cores"
    )


if __name__ == "__main__":
    main()
