"""Speed table: uno_env against RLCard 1.2.0 Uno and OpenSpiel crazy_eights, as Markdown.

Every row plays whole games with uniformly random legal actions; a step is one player
decision.  Each (row, rule preset, player count) cell is run ``--runs`` times for at least
``--seconds`` each after one discarded warm-up run, the runs of all cells interleaved, in
one process pinned to one CPU.  The table shows medians; the ratio columns divide a row's
median steps/s by that of RLCard's raw engine and of OpenSpiel's ``crazy_eights`` at the
same player count.  The speed targets are checked under the table.

Rows come from ``benchmarks/rows_*.py`` modules (see :mod:`registry`); the reference rows
(RLCard raw engine, RLCard ``env.step``, OpenSpiel ``crazy_eights``) from :mod:`baselines`
and run once per player count whatever the presets.

Usage::

    python benchmarks/bench_engine.py                     # 5 runs x 2 s, 2 and 4 players
    python benchmarks/bench_engine.py --quick             # 3 runs x 0.3 s
    python benchmarks/bench_engine.py --rows batch rlcard --players 4 --json bench.json
    python benchmarks/bench_engine.py --presets uno ...   # our rows for every preset given

Progress goes to stderr, the Markdown to stdout.  This is a tool run on demand, never a test.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import statistics
import sys
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import baselines
from registry import (
    OPENSPIEL_CRAZY_EIGHTS,
    RLCARD_ENGINE,
    Registry,
    Row,
    SkippedRow,
    Target,
    discover,
)

DEFAULT_SECONDS = 2.0
DEFAULT_RUNS = 5
QUICK_SECONDS = 0.3
QUICK_RUNS = 3
WARMUP_SECONDS = 0.5
"""Least seconds of the discarded warm-up run of each cell (at most ``--seconds``)."""
CPU_SHARE_WARNING = 0.9
"""Below this share of CPU time over wall time a run is flagged as disturbed."""
SEED_STRIDE = 1_000_000
"""Run ``r`` uses seed ``seed + r * SEED_STRIDE`` so that runs play different games."""

_VALUE_ONLY = ("cpu", "date", "affinity", "clock", "warning")
"""Machine-info entries shown without their name in the header."""

REFERENCES = ((RLCARD_ENGINE, "x RLCard raw"), (OPENSPIEL_CRAZY_EIGHTS, "x OpenSpiel C8"))
"""Ratio columns: reference row key and column header."""
CLIFF_GROUP = "cliffs"
"""The row group of the cliff table (``rows_cliffs.py``), printed as a table of its own."""
CLIFF_LIMIT = 1.5
"""No switch alone may cost a decision more than this multiple of official Uno's."""
DEFAULT_CLIFF_SECONDS = 0.5
QUICK_CLIFF_SECONDS = 0.1


def reference_rows() -> list[Row]:
    """The third-party rows of :mod:`baselines`, listed after our own rows."""
    return [
        Row(
            "RLCard 1.2.0 raw engine",
            "rlcard",
            tuple(range(2, 11)),
            baselines.rlcard_engine,
            key=RLCARD_ENGINE,
            ours=False,
            note="RLCard raw engine: `UnoGame.init_game`/`step` with the legal actions it returns.",
        ),
        Row(
            "RLCard 1.2.0 env.step",
            "rlcard",
            tuple(range(2, 11)),
            baselines.rlcard_env,
            key="rlcard_env",
            ours=False,
            note=(
                'RLCard env.step: `rlcard.make("uno")` ignores `game_num_players`, so the player '
                "count is set with `env.game.configure`."
            ),
        ),
        Row(
            "OpenSpiel crazy_eights (legal only)",
            "openspiel",
            tuple(range(2, 16)),
            baselines.openspiel_crazy_eights,
            key=OPENSPIEL_CRAZY_EIGHTS,
            ours=False,
            note=(
                "OpenSpiel crazy_eights: default parameters (52 cards, `max_draw_cards=5`, "
                "`reshuffle=False`); chance nodes are sampled but not counted as steps."
            ),
        ),
    ]


@dataclass
class Cell:
    """The runs of one row at one player count."""

    row: Row
    players: int
    clock: str = "wall"
    runs: list[dict[str, float]] = field(default_factory=list)
    skipped: str | None = None
    failed: bool = False
    run_seconds: float | None = None  # least seconds per run, if not the common --seconds

    def seconds(self, run: Mapping[str, float]) -> float:
        """The time base of a run: wall time, or CPU time under ``clock="cpu"``.

        A row that reports no ``cpu_seconds`` gets its wall time scaled by the CPU share
        measured around the whole call (an estimate).
        """
        if self.clock != "cpu":
            return run["seconds"]
        if "cpu_seconds" in run:
            return run["cpu_seconds"]
        return run["seconds"] * run["cpu_share"]

    @property
    def cpu_estimated(self) -> bool:
        """Whether ``clock="cpu"`` was asked for but some run reported no CPU time."""
        return self.clock == "cpu" and any("cpu_seconds" not in r for r in self.runs)

    def _rates(self, key: str) -> list[float]:
        return [r[key] / self.seconds(r) for r in self.runs]

    def rates(self, unit: str = "steps") -> list[float]:
        """Each run's steps/s (``unit="games"``: games/s)."""
        return self._rates(unit)

    @property
    def steps_per_second(self) -> float:
        """Median steps/s over the runs."""
        return statistics.median(self._rates("steps"))

    @property
    def games_per_second(self) -> float:
        """Median games/s over the runs."""
        return statistics.median(self._rates("games"))

    @property
    def decisions_per_game(self) -> float:
        """All steps over all games of all runs."""
        return sum(r["steps"] for r in self.runs) / sum(r["games"] for r in self.runs)

    @property
    def spread(self) -> float:
        """(max - min) / median of the runs' steps/s."""
        rates = self._rates("steps")
        return (max(rates) - min(rates)) / statistics.median(rates)


# ---------------------------------------------------------------- measuring
def build_registry(presets: Sequence[str]) -> Registry:
    """Our rows from the ``rows_*`` modules, then the reference rows.

    Args:
        presets: Rule presets our rows are built for.

    Returns:
        The registry in display order.
    """
    reg = discover(presets)
    reg.add(reference_rows(), "baselines")
    return reg


def select_cells(
    reg: Registry,
    groups: Sequence[str] | None,
    players: Sequence[int],
    clock: str = "wall",
    cliff_players: Sequence[int] = (2,),
    cliff_seconds: float | None = None,
) -> list[Cell]:
    """The cells to measure: chosen rows x player counts, ordered by player count, then row.

    A player count a row cannot play becomes a skipped cell. The cliff rows
    (:data:`CLIFF_GROUP`) play at ``cliff_players`` instead, for ``cliff_seconds`` per run,
    and a cliff case that does not seat a count is left out (its own table says so).

    Args:
        reg: All registered rows.
        groups: Group names or row keys to keep; ``None`` keeps every row.
        players: Player counts asked for.
        clock: ``"wall"`` or ``"cpu"``, the time base of the cells' rates.
        cliff_players: Player counts of the cliff rows.
        cliff_seconds: Least seconds per run of the cliff rows (``None``: as the others).

    Returns:
        Cells in table order.
    """
    rows = [r for r in reg.rows if groups is None or r.group in groups or r.id in groups]
    cells: list[Cell] = []
    for n in players:
        for row in rows:
            if row.group == CLIFF_GROUP:
                continue
            cell = Cell(row, n, clock)
            if n not in row.players:
                cell.skipped = f"plays {_counts(row.players)} players only"
            cells.append(cell)
    for n in cliff_players:
        for row in rows:
            if row.group == CLIFF_GROUP and n in row.players:
                cells.append(Cell(row, n, clock, run_seconds=cliff_seconds))
    return cells


def _counts(players: Sequence[int]) -> str:
    """``2..10`` for a contiguous range, else the counts listed."""
    ordered = sorted(players)
    if len(ordered) > 2 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]}..{ordered[-1]}"
    return ", ".join(map(str, ordered))


def _label(cell: Cell) -> str:
    rules = f" [{cell.row.preset}]" if cell.row.preset else ""
    return f"{cell.row.name}{rules} {cell.players}p"


def _run_once(cell: Cell, seconds: float, seed: int, tag: str) -> dict[str, float] | None:
    """One run of a cell; an exception marks the cell skipped (or failed) and gives ``None``.

    An ``ImportError`` (an optional engine not installed) marks the cell skipped; any other
    exception marks it failed with the first line of the exception as the reason (the
    traceback goes to stderr, like the progress lines).  The result gains ``cpu_share``:
    process CPU time over wall time of the timed region (of the whole call if the row
    reports no ``cpu_seconds``), near 1 unless other processes competed for the CPU.
    """
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        result = cell.row.run(cell.players, seconds, seed)
    except ImportError as exc:
        cell.skipped = f"missing optional dependency: {exc}"
        print(f"{tag:<10}{_label(cell):<48} skipped: {cell.skipped}", file=sys.stderr)
        return None
    except Exception as exc:
        traceback.print_exc(file=sys.stderr)
        first_line = (str(exc).strip().splitlines() or [""])[0]
        cell.skipped = f"failed: {type(exc).__name__}: {first_line}"
        cell.failed = True
        print(f"{tag:<10}{_label(cell):<48} {cell.skipped}", file=sys.stderr)
        return None
    out = {k: float(v) for k, v in result.items()}
    if "cpu_seconds" in out:
        out["cpu_share"] = out["cpu_seconds"] / out["seconds"]
    else:
        out["cpu_share"] = (time.process_time() - cpu) / (time.perf_counter() - wall)
    rate = out["steps"] / cell.seconds(out)
    print(f"{tag:<10}{_label(cell):<48}{rate:>14,.0f} steps/s  cpu {out['cpu_share']:.0%}", file=sys.stderr)
    return out


def measure(cells: Sequence[Cell], runs: int, seconds: float, seed: int, warmup: float = 0.0) -> None:
    """Run every cell ``runs`` times, round-robin, recording results in the cells.

    First each cell gets one discarded warm-up run of ``warmup`` seconds (none if 0): the
    first timed stretch of a fresh process runs measurably slower (interpreter, allocator
    and cache warm-up), whatever the engine.

    Args:
        cells: Cells to run (skipped ones are left alone).
        runs: Runs per cell.
        seconds: Least wall time of each run.
        seed: Base seed; run ``r`` uses ``seed + r * SEED_STRIDE``, the warm-up run
            ``seed + runs * SEED_STRIDE``.
        warmup: Least wall time of the warm-up run.
    """
    if warmup > 0:
        for cell in cells:
            if cell.skipped is None:
                _run_once(cell, min(warmup, cell.run_seconds or warmup), seed + runs * SEED_STRIDE, "warm-up")
    for r in range(runs):
        for cell in cells:
            if cell.skipped is None:
                length = cell.run_seconds or seconds
                result = _run_once(cell, length, seed + r * SEED_STRIDE, f"run {r + 1}/{runs}")
                if result is not None:
                    cell.runs.append(result)


def _reference(cells: Sequence[Cell], key: str, players: int) -> Cell | None:
    for cell in cells:
        if cell.row.id == key and cell.players == players and cell.runs:
            return cell
    return None


def ratio(cell: Cell, cells: Sequence[Cell], reference: str, unit: str = "steps") -> float | None:
    """Median steps/s (``unit="games"``: games/s) of ``cell`` over that of the reference row
    at the same player count.

    Args:
        cell: The measured cell.
        cells: All cells (the reference is looked up among them).
        reference: Key of the reference row.
        unit: ``"steps"`` or ``"games"``.

    Returns:
        The ratio, or ``None`` if either side was not measured.
    """
    ref = _reference(cells, reference, cell.players)
    if ref is None or not cell.runs:
        return None
    if unit == "games":
        return cell.games_per_second / ref.games_per_second
    return cell.steps_per_second / ref.steps_per_second


def ratio_range(
    cell: Cell, cells: Sequence[Cell], reference: str, unit: str = "steps"
) -> tuple[float, float] | None:
    """The least and the greatest ratio of one run of ``cell`` to one run of the reference
    (the runs interleaved in the same process): the ratio's spread over the runs."""
    ref = _reference(cells, reference, cell.players)
    if ref is None or not cell.runs:
        return None
    ours, theirs = cell.rates(unit), ref.rates(unit)
    return min(ours) / max(theirs), max(ours) / min(theirs)


# ---------------------------------------------------------------- reporting
def machine_info(cpu: int | None, clock: str = "wall") -> dict[str, str]:
    """CPU model, library versions, date, pinning and clock, for the header and the JSON file.

    Args:
        cpu: The CPU the process is pinned to, or ``None``.
        clock: ``"wall"`` or ``"cpu"``, the time base of the rates.

    Returns:
        Name -> value, in header order.
    """
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info = {"cpu": model, "python": platform.python_version()}
    for dist in ("numpy", "numba", "uno-env", "rlcard", "open_spiel"):
        try:
            info[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            info[dist] = "not installed"
    info["date"] = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    info["affinity"] = f"pinned to cpu {cpu}" if cpu is not None else "not pinned"
    info["clock"] = "rates per CPU second" if clock == "cpu" else "rates per wall-clock second"
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        info["warning"] = "NUMBA_DISABLE_JIT is set: uno_env runs uncompiled"
    return info


def _number(value: float, digits: int) -> str:
    return f"{value:,.{digits}f}"


def render_table(cells: Sequence[Cell]) -> list[str]:
    """The Markdown table of the measured cells (skipped cells are listed separately).

    Args:
        cells: Cells in table order.

    Returns:
        Table lines.
    """
    head = ["Row", "Rules", "Players", "steps/s", "run spread", "games/s", "decisions/game"]
    head += [title for _, title in REFERENCES]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join([":---"] * 2 + ["---:"] * (len(head) - 2)) + "|"]
    for cell in cells:
        if not cell.runs or cell.row.group == CLIFF_GROUP:
            continue
        ratios = []
        for key, _ in REFERENCES:
            value = ratio(cell, cells, key) if cell.row.ours else None
            ratios.append("" if value is None else f"{value:,.1f}x")
        values = [
            cell.row.name,
            cell.row.preset or "",
            str(cell.players),
            _number(cell.steps_per_second, 0),
            f"{100 * cell.spread:.1f}%",
            _number(cell.games_per_second, 1),
            _number(cell.decisions_per_game, 1),
            *ratios,
        ]
        lines.append("| " + " | ".join(values) + " |")
    return lines


def footnotes(cells: Sequence[Cell], runs: int, seconds: float, warmup: float = 0.0) -> list[str]:
    """Notes printed under the table: method, comparability of games/s, row notes.

    Args:
        cells: Cells in table order.
        runs: Runs per cell asked for.
        seconds: Least seconds per run.
        warmup: Least seconds of the discarded warm-up run (0: none).

    Returns:
        Markdown list lines.
    """
    ours = [c for c in cells if c.row.ours and c.runs and c.row.group != CLIFF_GROUP]
    lengths = ""
    if ours:
        low = min(c.decisions_per_game for c in ours)
        high = max(c.decisions_per_game for c in ours)
        span = f"{low:,.0f}" if round(low) == round(high) else f"{low:,.0f}-{high:,.0f}"
        lengths = f"; here {span} decisions per game on average"
    notes = [
        f"- A step is one player decision. Each cell is the median of {runs} runs of at least "
        f"{seconds:g} s, the runs of all cells interleaved"
        + (f" after a discarded {warmup:g} s warm-up run of each" if warmup > 0 else "")
        + "; run spread is (max - min) / median of the runs' steps/s. Ratio columns: the row's "
        "median steps/s over the reference's at the same player count.",
        "- **games/s is not comparable across engines; compare steps/s.** Random uno_env games "
        "are long: random agents draw voluntarily, and uno_env asks for every decision (colour "
        "after a wild, play or keep a drawn card, challenge)" + lengths + ". RLCard "
        "folds the colour into the wild play, plays a matching drawn card itself and has no "
        "challenge; OpenSpiel crazy_eights is another game whose random games mostly end with "
        "an empty deck.",
    ]
    if any(c.clock == "cpu" for c in cells):
        estimated = ", ".join(dict.fromkeys(c.row.name for c in cells if c.cpu_estimated))
        notes.insert(
            1,
            "- Rates are per second of process CPU time (`time.process_time`) of the timed "
            "region, which discounts the time other processes took from this CPU (they still "
            "share caches)."
            + (
                f" Rows reporting no CPU time of their own ({estimated}) use wall time times the CPU "
                "share of the whole call, an estimate."
                if estimated
                else ""
            ),
        )
    shares = [r["cpu_share"] for c in cells for r in c.runs if "cpu_share" in r]
    starved = [x for x in shares if x < CPU_SHARE_WARNING]
    if starved:
        remedy = (
            "which rates per CPU second mostly discount; rerun on an idle machine for final numbers"
            if any(c.clock == "cpu" for c in cells)
            else "so rates and ratios are unreliable; rerun on an idle machine, or with `--clock cpu`"
        )
        notes.insert(
            0,
            f"- **Warning: the machine was busy.** In {len(starved)} of {len(shares)} runs this "
            f"process got less than {CPU_SHARE_WARNING:.0%} of its CPU (lowest {min(starved):.0%}): "
            f"other processes competed for it, {remedy}.",
        )
    seen: set[str] = set()
    for cell in cells:
        note = cell.row.note
        if note and note not in seen and cell.runs and cell.row.group != CLIFF_GROUP:
            seen.add(note)
            notes.append(f"- {note}")
    return notes


def _meta(cell: Cell, name: str) -> str:
    return dict(cell.row.meta).get(name, "")


@dataclass(frozen=True)
class CliffCheck:
    """The cliff target at one player count and random player: the costliest switch alone."""

    policy: str
    players: int
    worst_case: str
    worst: float

    @property
    def passed(self) -> bool:
        """Whether no switch costs more than :data:`CLIFF_LIMIT` times official Uno."""
        return self.worst <= CLIFF_LIMIT

    def line(self) -> str:
        """A Markdown list line like the targets'."""
        verdict = "PASS" if self.passed else "FAIL"
        return (
            f"- **{verdict}** no switch above {CLIFF_LIMIT:g}x official Uno ({self.policy}, {self.players} "
            f"players): the costliest is {self.worst_case}, {self.worst:.2f}x"
        )


def render_cliffs(cells: Sequence[Cell]) -> tuple[list[str], list[CliffCheck]]:
    """The cliff table: nanoseconds of CPU per decision for official Uno, each switch alone and
    each preset, per random player, and each as a multiple of official Uno's (same player, same
    player count, same run); and the cliff target per player and player count.

    Args:
        cells: All cells (the cliff cells are picked out).

    Returns:
        Table lines (empty without cliff cells) and the checks.
    """
    cliff = [c for c in cells if c.row.group == CLIFF_GROUP and c.runs]
    if not cliff:
        return [], []
    policies = list(dict.fromkeys(_meta(c, "policy") for c in cliff))
    lines: list[str] = []
    checks: list[CliffCheck] = []
    for n in sorted({c.players for c in cliff}):
        at_n = [c for c in cliff if c.players == n]
        cases = list(dict.fromkeys(_meta(c, "case") for c in at_n))
        by = {(_meta(c, "policy"), _meta(c, "case")): c for c in at_n}
        base = {
            p: next((c for c in at_n if _meta(c, "policy") == p and _meta(c, "kind") == "base"), None)
            for p in policies
        }
        head = ["Rules", "kind"]
        for p in policies:
            head += [f"{p} ns/decision", "run spread", "x official"]
        lines += [
            f"Cliff table, {n} players: CPU nanoseconds per decision (median of the runs; run spread "
            "(max - min) / median), and each as a multiple of official Uno's with the same player in "
            "the same run.",
            "",
            "| " + " | ".join(head) + " |",
            "|" + "|".join([":---"] * 2 + ["---:"] * (len(head) - 2)) + "|",
        ]
        for case in cases:
            kind = ""
            values = []
            for p in policies:
                cell = by.get((p, case))
                if cell is None:
                    values += ["", "", ""]
                    continue
                kind = _meta(cell, "kind")
                ns = 1e9 / cell.steps_per_second
                ref = base[p]
                times = ns / (1e9 / ref.steps_per_second) if ref is not None else None
                values += [
                    f"{ns:,.1f}",
                    f"{100 * cell.spread:.1f}%",
                    "" if times is None else f"{times:.2f}x",
                ]
            lines.append("| " + " | ".join([case, kind, *values]) + " |")
        lines.append("")
        for p in policies:
            ref = base[p]
            switches = [c for c in at_n if _meta(c, "policy") == p and _meta(c, "kind") == "switch"]
            if ref is None or not switches:
                continue
            worst = max(switches, key=lambda c: ref.steps_per_second / c.steps_per_second)
            checks.append(
                CliffCheck(p, n, _meta(worst, "case"), ref.steps_per_second / worst.steps_per_second)
            )
    return lines, checks


@dataclass(frozen=True)
class TargetCheck:
    """One target evaluated at one preset and player count."""

    target: Target
    preset: str | None
    players: int
    value: float

    @property
    def passed(self) -> bool:
        """Whether the measured value reaches the target's minimum."""
        return self.value >= self.target.minimum

    spread: tuple[float, float] | None = None

    def line(self) -> str:
        """A Markdown list line: PASS/FAIL, the target and the measured value."""
        where = f"{self.preset}, {self.players} players" if self.preset else f"{self.players} players"
        verdict = "PASS" if self.passed else "FAIL"
        unit = "games/s" if self.target.unit == "games" else "steps/s"
        value = f"{self.value:,.1f}x" if self.target.reference else f"{self.value:,.0f} {unit}"
        if self.target.reference and self.target.unit == "games":
            value += " in games/s"
        if self.spread is not None:
            value += f" (runs {self.spread[0]:,.1f}x-{self.spread[1]:,.1f}x)"
        return f"- **{verdict}** {self.target.label} ({where}): measured {value}"


def check_targets(targets: Sequence[Target], cells: Sequence[Cell]) -> tuple[list[TargetCheck], list[str]]:
    """Evaluate every target on every measured cell of its row.

    Args:
        targets: Targets from the row modules.
        cells: Measured cells.

    Returns:
        The checks, and lines for targets that could not be checked (row or reference not run).
    """
    checks: list[TargetCheck] = []
    unchecked: list[str] = []
    for target in targets:
        found = False
        for cell in cells:
            if cell.row.id != target.row or not cell.runs:
                continue
            absolute = cell.games_per_second if target.unit == "games" else cell.steps_per_second
            value = (
                absolute if target.reference is None else ratio(cell, cells, target.reference, target.unit)
            )
            if value is None:
                continue
            found = True
            spread = None
            if target.reference is not None and target.unit == "games":
                spread = ratio_range(cell, cells, target.reference, target.unit)
            checks.append(TargetCheck(target, cell.row.preset, cell.players, value, spread))
        if not found:
            unchecked.append(f"- n/a {target.label}: row or reference not measured")
    return checks, unchecked


def report(
    info: Mapping[str, str],
    cells: Sequence[Cell],
    skipped: Sequence[SkippedRow],
    targets: Sequence[Target],
    runs: int,
    seconds: float,
    warmup: float = 0.0,
) -> tuple[str, list[TargetCheck]]:
    """The whole Markdown report: header, table, notes, skipped rows and targets.

    Args:
        info: Machine information (see :func:`machine_info`).
        cells: Cells in table order.
        skipped: Row modules that could not be loaded.
        targets: Targets to check.
        runs: Runs per cell.
        seconds: Least seconds per run.
        warmup: Least seconds of the discarded warm-up run of each cell.

    Returns:
        The Markdown text and the target checks.
    """
    header = " · ".join(v if k in _VALUE_ONLY else f"{k} {v}" for k, v in info.items())
    out = ["## uno_env speed, random legal play", "", header, "", *render_table(cells), ""]
    out += footnotes(cells, runs, seconds, warmup)
    not_run = [f"- {s.name}: {s.reason}" for s in skipped]
    not_run += [f"- {_label(c)}: {c.skipped}" for c in cells if c.skipped is not None]
    if not_run:
        out += ["", "Skipped:", "", *not_run]
    cliff_lines, cliff_checks = render_cliffs(cells)
    if cliff_lines:
        out += ["", *cliff_lines]
    checks, unchecked = check_targets(targets, cells)
    if checks or unchecked or cliff_checks:
        out += [
            "",
            "Targets:",
            "",
            *(c.line() for c in checks),
            *(c.line() for c in cliff_checks),
            *unchecked,
        ]
    return "\n".join(out), checks


# ---------------------------------------------------------------- command line
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse the command line (``--quick`` only sets what is not given explicitly)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=None, help=f"least seconds per run ({DEFAULT_SECONDS:g})"
    )
    parser.add_argument(
        "--runs", type=int, default=None, help=f"runs per cell, median shown ({DEFAULT_RUNS})"
    )
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4], help="player counts (2 4)")
    parser.add_argument(
        "--cliff-players", type=int, nargs="+", default=[2], help="player counts of the cliff table (2)"
    )
    parser.add_argument(
        "--cliff-seconds",
        type=float,
        default=None,
        help=(
            f"least seconds per run of the cliff rows ({DEFAULT_CLIFF_SECONDS:g}; "
            f"--quick {QUICK_CLIFF_SECONDS:g})"
        ),
    )
    parser.add_argument("--rows", nargs="+", default=None, help="row groups or row keys to run (all)")
    parser.add_argument(
        "--preset",
        "--presets",
        dest="presets",
        nargs="+",
        default=["uno"],
        help="rule presets for our rows (uno); reference rows run once per player count",
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"{QUICK_RUNS} runs x {QUICK_SECONDS:g} s unless given"
    )
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="time base of the rates: wall time (default) or process CPU time, for busy machines",
    )
    parser.add_argument(
        "--warmup",
        type=float,
        default=WARMUP_SECONDS,
        help=f"discarded first run per cell ({WARMUP_SECONDS:g} s)",
    )
    parser.add_argument("--seed", type=int, default=0, help="base seed (0)")
    parser.add_argument("--cpu", type=int, default=None, help="CPU to pin to (the last one allowed)")
    parser.add_argument("--no-pin", action="store_true", help="do not pin the process to one CPU")
    parser.add_argument("--json", type=Path, default=None, help="also write the raw results here")
    parser.add_argument("--list", action="store_true", help="list row groups, rows and targets, then exit")
    args = parser.parse_args(argv)
    if args.seconds is None:
        args.seconds = QUICK_SECONDS if args.quick else DEFAULT_SECONDS
    if args.runs is None:
        args.runs = QUICK_RUNS if args.quick else DEFAULT_RUNS
    if args.cliff_seconds is None:
        args.cliff_seconds = QUICK_CLIFF_SECONDS if args.quick else DEFAULT_CLIFF_SECONDS
    if args.cliff_seconds <= 0:
        parser.error(f"--cliff-seconds must be > 0, got {args.cliff_seconds:g}")
    if any(n < 1 for n in args.cliff_players):
        parser.error(f"--cliff-players must be positive, got {args.cliff_players}")
    if args.seconds <= 0:
        parser.error(f"--seconds must be > 0, got {args.seconds:g}")
    if args.warmup < 0:
        parser.error(f"--warmup must be >= 0, got {args.warmup:g}")
    if args.runs < 1:
        parser.error(f"--runs must be >= 1, got {args.runs}")
    if any(n < 1 for n in args.players):
        parser.error(f"--players must be positive, got {args.players}")
    if args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")

    try:
        from uno_env import PRESETS
    except ImportError:  # our rows will be reported as skipped with the reason
        PRESETS = {}
    unknown = [p for p in args.presets if PRESETS and p not in PRESETS]
    if unknown:
        parser.error(f"unknown preset {unknown[0]!r}; available: {', '.join(PRESETS)}")
    if args.cpu is not None and hasattr(os, "sched_getaffinity") and args.cpu not in os.sched_getaffinity(0):
        parser.error(f"--cpu {args.cpu} is not available; allowed: {sorted(os.sched_getaffinity(0))}")
    return args


def _list(reg: Registry) -> str:
    lines = ["groups: " + ", ".join(reg.groups()), "rows:"]
    lines += [
        f"  {r.group:<10} {r.id:<24} {r.name}" + (f" [{r.preset}]" if r.preset else "") for r in reg.rows
    ]
    lines += ["targets:"] + [f"  {t.label}" for t in reg.targets]
    lines += [f"skipped: {s.name}: {s.reason}" for s in reg.skipped]
    return "\n".join(lines)


def to_json(
    info: Mapping[str, str], args: argparse.Namespace, cells: Sequence[Cell], checks: Sequence[TargetCheck]
) -> dict[str, Any]:
    """The raw results as a JSON-ready dict (every run of every cell, medians, targets).

    Args:
        info: Machine information.
        args: Parsed command line.
        cells: All cells, measured or skipped.
        checks: Target checks.

    Returns:
        A dict of plain values.
    """
    return {
        "machine": dict(info),
        "settings": {
            "runs": args.runs,
            "seconds": args.seconds,
            "warmup": min(args.warmup, args.seconds),
            "clock": args.clock,
            "seed": args.seed,
            "players": args.players,
            "presets": args.presets,
            "rows": args.rows,
            "cliff_players": args.cliff_players,
            "cliff_seconds": args.cliff_seconds,
        },
        "cells": [
            {
                "row": c.row.name,
                "key": c.row.id,
                "group": c.row.group,
                "preset": c.row.preset,
                "players": c.players,
                "meta": dict(c.row.meta),
                "skipped": c.skipped,
                "runs": c.runs,
                **(
                    {
                        "steps_per_second": c.steps_per_second,
                        "games_per_second": c.games_per_second,
                        "decisions_per_game": c.decisions_per_game,
                        "ratios": {key: ratio(c, cells, key) for key, _ in REFERENCES} if c.row.ours else {},
                    }
                    if c.runs
                    else {}
                ),
            }
            for c in cells
        ],
        "targets": [
            {
                "label": t.target.label,
                "row": t.target.row,
                "reference": t.target.reference,
                "minimum": t.target.minimum,
                "preset": t.preset,
                "players": t.players,
                "value": t.value,
                "passed": t.passed,
                "unit": t.target.unit,
                "run_range": t.spread,
            }
            for t in checks
        ],
        "cliffs": [
            {
                "policy": c.policy,
                "players": c.players,
                "worst_case": c.worst_case,
                "worst": c.worst,
                "passed": c.passed,
            }
            for c in render_cliffs(cells)[1]
        ],
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Measure the selected rows and print the Markdown report.

    Returns:
        0, or 1 if a row raised something other than ``ImportError`` (targets never fail the
        exit status: this is a measurement, not a test).
    """
    args = parse_args(argv)
    reg = build_registry(args.presets)
    if args.list:
        print(_list(reg))
        return 0
    if args.rows is not None:
        valid = reg.groups() + [r.id for r in reg.rows]
        unknown = [g for g in args.rows if g not in valid]
        if unknown:
            sys.exit(f"bench_engine.py: unknown row group {unknown[0]!r}; available: {', '.join(valid)}")
    cpu = None if args.no_pin else baselines.pin_to_one_cpu(args.cpu)
    cells = select_cells(reg, args.rows, args.players, args.clock, args.cliff_players, args.cliff_seconds)
    warmup = min(args.warmup, args.seconds)
    measure(cells, args.runs, args.seconds, args.seed, warmup)
    info = machine_info(cpu, args.clock)
    text, checks = report(info, cells, reg.skipped, reg.targets, args.runs, args.seconds, warmup)
    print(text)
    if args.json is not None:
        args.json.write_text(json.dumps(to_json(info, args, cells, checks), indent=2) + "\n")
        print(f"raw results written to {args.json}", file=sys.stderr)
    return 1 if any(c.failed for c in cells) else 0


if __name__ == "__main__":
    sys.exit(main())
