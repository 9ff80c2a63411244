"""Before/after table of ``bench_engine.py --json`` results, as Markdown.

Give the raw results in pairs, each pair measured back to back on the same machine::

    python benchmarks/bench_compare.py before_1.json after_1.json [before_2.json after_2.json ...]

Per cell (row and player count) and pair: the median steps/s before and after with each
side's run spread ((max - min) / median of its runs, the spread ``bench_engine.py`` prints),
the change, and whether the after side is slower by more than the larger of the two spreads.
Cells skipped on either side are left out.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

Cell = Mapping[str, Any]


def load_cells(path: Path) -> dict[tuple[str, int], Cell]:
    """The measured cells of one ``--json`` file by (row name, players)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {(c["row"], int(c["players"])): c for c in data["cells"] if not c.get("skipped")}


def run_rates(cell: Cell) -> list[float]:
    """Steps per second of each run, on the clock the file was measured with."""
    rates = []
    for run in cell["runs"]:
        seconds = run.get("cpu_seconds") or run["seconds"] * run.get("cpu_share", 1.0)
        rates.append(run["steps"] / seconds)
    return rates


def spread(cell: Cell) -> float:
    """(max - min) / median of the runs' steps/s."""
    rates = run_rates(cell)
    return (max(rates) - min(rates)) / statistics.median(rates)


def table(pairs: Sequence[tuple[Path, Path]]) -> str:
    """The Markdown table of every cell measured in all the files."""
    loaded = [(load_cells(before), load_cells(after)) for before, after in pairs]
    keys = [k for k in loaded[0][0] if all(k in b and k in a for b, a in loaded)]
    columns = "".join(f" before {i} | after {i} | change {i} |" for i in range(1, len(pairs) + 1))
    lines = [
        f"| row | players |{columns} slower than the spread? |",
        "| --- | ---: |" + " ---: | ---: | ---: |" * len(pairs) + " --- |",
    ]
    for key in keys:
        cells, verdicts = [], []
        for before, after in loaded:
            b, a = before[key], after[key]
            change = a["steps_per_second"] / b["steps_per_second"] - 1
            cells.append(
                f" {b['steps_per_second']:,.0f} ({spread(b):.0%}) | {a['steps_per_second']:,.0f} "
                f"({spread(a):.0%}) | {change:+.0%} |"
            )
            verdicts.append("yes" if change < -max(spread(b), spread(a)) else "no")
        lines.append(f"| {key[0]} | {key[1]} |" + "".join(cells) + f" {', '.join(verdicts)} |")
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    """Print the table; exit code 2 for an odd number of files."""
    if not argv or len(argv) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    paths = [Path(a) for a in argv]
    print(table(list(zip(paths[::2], paths[1::2], strict=True))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
