"""The house-rules study's analysis: from the batch files to the tables, the plots and the report.

:func:`assemble` (run at the end of ``uno-env study``) reads ``batches/*.json`` and writes
``results.csv`` (+ ``.parquet``), ``effects.csv``, ``winrate_change.png``,
``game_length.png`` and ``report.md``.

**The deal is the unit.** A study replays every deal at every seating and in every rule
variant, so the games of one deal are not independent. Each batch keeps its counts per deal
(:func:`training.study.run_batch`); a cell's rate or mean is the ratio of per-deal totals
with a cluster-robust standard error over the deals (:func:`uno_env.stats.grouped_ratio`;
Student-t interval on ``deals - 1`` degrees of freedom, Wilson at the effective sample size
for a proportion). A change against the base variant compares the two cells deal by deal
(:func:`uno_env.stats.paired_difference`): they played the same deals.

**Effects and error control.** The effects are every change against the base the report
shows, on the primary deals: each style's win rate against the field and against the fixed
reference field, the mean game length in turns and in decisions, and the first mover's win
rate, for every variation and player count. They form one family: Benjamini-Hochberg at a
false discovery rate of 5% (:data:`FDR`) marks each *detected* or *not detected*, and every
change is shown with its false-coverage-rate interval (Benjamini-Yekutieli) at level
``1 - R * 0.05 / m`` for ``R`` detections among ``m`` effects, which excludes 0 exactly for
the detected ones; for the others it bounds what the study cannot rule out ("within ±x").

**Replication.** With ``replicate = true`` the whole design is played again on fresh deals
(:func:`training.study.first_deal`). Each detected effect is estimated again there and
*replicated* when it has the same sign and is detected again (Benjamini-Hochberg at 5% over
the detected effects). Only replicated effects are called findings.

**Zero-sum.** Every game has one winner and every style holds the same number of seats in a
cell, so the styles' changes against the field sum to zero (up to truncated games): one
style's gain is the others' loss. The fixed-reference view (each style alone against
``players - 1`` copies of the reference style) measures a style apart from the others.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from training.study import (
    DEAL_ARRAYS,
    LEARNED,
    QUANTILES,
    STUDY_FORMAT,
    STYLE_ARRAYS,
    SpecError,
    StudySpec,
    deals_per_seating,
    first_deal,
    is_checkpoint,
    kind_seatings,
    load_batches,
    load_spec,
    seatings,
)
from uno_env.stats import (
    LEVEL,
    GroupedEstimate,
    benjamini_hochberg,
    fcr_level,
    grouped_ratio,
    paired_difference,
)
from uno_env.versions import ENV_VERSION

if TYPE_CHECKING:
    import pandas as pd

FDR = 0.05
"""The false discovery rate at which the study's effects are detected (Benjamini-Hochberg)."""
MEASURES = ("win_rate", "vs_reference", "turns", "decisions", "first_mover")
"""The kinds of effect, in report order: win rate against the field, against the fixed
reference field, mean turns per game, mean decisions per game, the first mover's win rate."""
PERCENT_MEASURES = ("win_rate", "vs_reference", "first_mover")
"""Measures that are rates (reported in percentage points)."""


# ================================================================ per-deal data of a cell
@dataclass
class CellData:
    """One cell's counts per deal: a variant at a player count, one kind of seatings, one deal set."""

    deals: int
    games: np.ndarray
    slots: dict[str, np.ndarray]
    per_style: dict[str, dict[str, np.ndarray]]
    seat_wins: np.ndarray
    first_mover_wins: np.ndarray
    decisions: np.ndarray
    turns: np.ndarray
    truncated: np.ndarray
    hist: dict[str, dict[int, int]]


CellKey = tuple[str, int, str, int]
"""(variant id, players, kind, replica)."""


def merge_cells(spec: StudySpec, batches: Sequence[Mapping[str, Any]]) -> dict[CellKey, CellData]:
    """Sum the batches of every cell into per-deal arrays (deal ``d`` of a cell at index ``d``)."""
    cells: dict[CellKey, CellData] = {}
    for batch in batches:
        if batch.get("format") != STUDY_FORMAT:
            raise SpecError(
                f"batch {batch.get('id')} has format {batch.get('format')!r}, not {STUDY_FORMAT!r}"
            )
        n, replica = int(batch["players"]), int(batch["replica"])
        key = (batch["variant"], n, batch["kind"], replica)
        cell = cells.get(key)
        if cell is None:
            deals = deals_per_seating(spec, n)
            cell = CellData(
                deals=deals,
                slots={},
                per_style={k: {} for k in STYLE_ARRAYS},
                seat_wins=np.zeros((n, deals), dtype=np.int64),
                hist={"decisions": {}, "turns": {}},
                **{name: np.zeros(deals, dtype=np.int64) for name in DEAL_ARRAYS},
            )
            cells[key] = cell
        lo = int(batch["first"]) - first_deal(spec, n, replica)
        hi = lo + int(batch["deals"])
        for style, count in batch["slots"].items():
            cell.slots.setdefault(style, np.zeros(cell.deals, dtype=np.int64))[lo:hi] += count
            for name in STYLE_ARRAYS:
                target = cell.per_style[name].setdefault(style, np.zeros(cell.deals, dtype=np.int64))
                target[lo:hi] += np.asarray(batch["per_style"][name][style], dtype=np.int64)
        cell.seat_wins[:, lo:hi] += np.asarray(batch["seat_wins"], dtype=np.int64)
        for name in DEAL_ARRAYS:
            getattr(cell, name)[lo:hi] += np.asarray(batch["per_deal"][name], dtype=np.int64)
        for name, hist in batch["hist"].items():
            for value, count in hist.items():
                cell.hist[name][int(value)] = cell.hist[name].get(int(value), 0) + count
    return cells


def _quantile(hist: Mapping[int, int], total: int, q: float) -> int:
    """The smallest length whose cumulative count reaches ``q`` of the games."""
    need = q * total
    running = 0
    for value in sorted(hist):
        running += hist[value]
        if running >= need:
            return value
    return max(hist) if hist else 0


def _interval(est: GroupedEstimate, proportion: bool = False) -> tuple[float, float]:
    return est.proportion_interval() if proportion else est.interval()


def _level(prefix: str, est: GroupedEstimate, proportion: bool = False) -> dict[str, float]:
    lo, hi = _interval(est, proportion)
    return {prefix: est.value, f"{prefix}_lo": lo, f"{prefix}_hi": hi}


def _change(prefix: str, est: GroupedEstimate) -> dict[str, float]:
    lo, hi = est.interval()
    return {prefix: est.value, f"{prefix}_lo": lo, f"{prefix}_hi": hi, f"{prefix}_p": est.p_value()}


# ================================================================ estimates
def cell_estimates(cell: CellData, style: str | None = None) -> dict[str, GroupedEstimate]:
    """The grouped estimates of a cell (cell-wide ones, and a style's when ``style`` is given)."""
    out = {
        "turns": grouped_ratio(cell.turns, cell.games),
        "decisions": grouped_ratio(cell.decisions, cell.games),
        "first_mover": grouped_ratio(cell.first_mover_wins, cell.games),
        "truncated": grouped_ratio(cell.truncated, cell.games),
    }
    if style is not None:
        slots = cell.slots[style]
        out["win_rate"] = grouped_ratio(cell.per_style["wins"][style], slots)
        out["points"] = grouped_ratio(cell.per_style["points"][style], slots)
        out["rank"] = grouped_ratio(cell.per_style["rank_sum"][style], cell.per_style["ranked"][style])
    return out


def paired_changes(cell: CellData, base: CellData, style: str | None = None) -> dict[str, GroupedEstimate]:
    """A cell's changes against its base cell (same players, kind and deals), paired by deal."""
    out = {
        "turns": paired_difference(cell.turns, cell.games, base.turns, base.games),
        "decisions": paired_difference(cell.decisions, cell.games, base.decisions, base.games),
        "first_mover": paired_difference(
            cell.first_mover_wins, cell.games, base.first_mover_wins, base.games
        ),
    }
    if style is not None:
        out["win_rate"] = paired_difference(
            cell.per_style["wins"][style], cell.slots[style], base.per_style["wins"][style], base.slots[style]
        )
    return out


def cell_rows(spec: StudySpec, batches: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Tidy rows: one per deal set, cell and style, with levels and 95% changes against the base."""
    cells = merge_cells(spec, batches)
    rows = []
    for replica in spec.replicas():
        for variant in spec.variants():
            for n in spec.players:
                # a base variant's id is its base's: the cell a variation is compared with
                field = _cell(cells, variant.id, n, "field", replica)
                base = _cell(cells, variant.base, n, "field", replica)
                ref = _cell(cells, variant.id, n, "reference", replica) if spec.reference else None
                ref_base = _cell(cells, variant.base, n, "reference", replica) if spec.reference else None
                whole = cell_estimates(field)
                changes = paired_changes(field, base)
                seat = [grouped_ratio(field.seat_wins[j], field.games) for j in range(n)]
                seat_ci = [s.proportion_interval() for s in seat]
                games = int(field.games.sum())
                common: dict[str, Any] = {
                    "study": spec.name,
                    "replica": replica,
                    "variant": variant.id,
                    "base": variant.base,
                    "variation": variant.variation,
                    "switches": variant.switches,
                    "players": n,
                    "seatings": len(seatings(spec.styles, n)),
                    "deals": field.deals,
                    "games": games,
                    **_level("turns_mean", whole["turns"]),
                    **{
                        f"turns_p{round(q * 100)}": _quantile(field.hist["turns"], games, q)
                        for q in QUANTILES
                    },
                    **_change("turns_delta", changes["turns"]),
                    **_level("length_mean", whole["decisions"]),
                    **{
                        f"length_p{round(q * 100)}": _quantile(field.hist["decisions"], games, q)
                        for q in QUANTILES
                    },
                    **_change("length_delta", changes["decisions"]),
                    **_level("truncated_rate", whole["truncated"], proportion=True),
                    "seat_win_rates": ";".join(f"{s.value:.6f}" for s in seat),
                    "seat_win_lo": ";".join(f"{lo:.6f}" for lo, _ in seat_ci),
                    "seat_win_hi": ";".join(f"{hi:.6f}" for _, hi in seat_ci),
                    "seat0_win_rate": seat[0].value,
                    "seat0_lo": seat_ci[0][0],
                    "seat0_hi": seat_ci[0][1],
                    **_level("first_mover_win_rate", whole["first_mover"], proportion=True),
                    **_change("first_mover_delta", changes["first_mover"]),
                    "seed": spec.seed,
                    "rules": str(variant.rules),
                    "env_version": ENV_VERSION,
                }
                for style in spec.styles:
                    mine = cell_estimates(field, style)
                    delta = paired_changes(field, base, style)["win_rate"]
                    row = {
                        **common,
                        "style": style,
                        "seat_games": int(field.slots[style].sum()),
                        "wins": int(field.per_style["wins"][style].sum()),
                        **_level("win_rate", mine["win_rate"], proportion=True),
                        "fair_share": 1 / n,
                        **_change("delta_win_rate", delta),
                        "ref_style": spec.reference,
                        **_reference_columns(ref, ref_base, style),
                        **_level("mean_rank", mine["rank"]),
                        **_level("points_per_game", mine["points"]),
                    }
                    rows.append(row)
    return [{key: row.get(key, math.nan) for key in COLUMNS} for row in _rename(rows)]


def _cell(cells: Mapping[CellKey, CellData], variant: str, n: int, kind: str, replica: int) -> CellData:
    cell = cells.get((variant, n, kind, replica))
    if cell is None:
        raise SpecError(f"no results for cell {variant} at {n} players ({kind} seatings, deal set {replica})")
    return cell


def _reference_columns(ref: CellData | None, ref_base: CellData | None, style: str) -> dict[str, Any]:
    """A style's win rate against the fixed reference field, and its change against the base."""
    if ref is None or ref_base is None or style not in ref.slots:
        return {"ref_seat_games": 0}
    est = grouped_ratio(ref.per_style["wins"][style], ref.slots[style])
    delta = paired_difference(
        ref.per_style["wins"][style],
        ref.slots[style],
        ref_base.per_style["wins"][style],
        ref_base.slots[style],
    )
    return {
        "ref_seat_games": int(ref.slots[style].sum()),
        **_level("ref_win_rate", est, proportion=True),
        **_change("ref_delta", delta),
    }


_RENAMES = {"win_rate_lo": "win_lo", "win_rate_hi": "win_hi", "delta_win_rate_lo": "delta_lo",
            "delta_win_rate_hi": "delta_hi", "delta_win_rate_p": "delta_p", "ref_win_rate_lo": "ref_win_lo",
            "ref_win_rate_hi": "ref_win_hi", "turns_mean_lo": "turns_lo", "turns_mean_hi": "turns_hi",
            "length_mean_lo": "length_lo", "length_mean_hi": "length_hi", "truncated_rate_lo": "truncated_lo",
            "truncated_rate_hi": "truncated_hi", "first_mover_win_rate_lo": "first_mover_lo",
            "first_mover_win_rate_hi": "first_mover_hi", "mean_rank_lo": "rank_lo", "mean_rank_hi": "rank_hi",
            "points_per_game_lo": "points_lo", "points_per_game_hi": "points_hi"}  # fmt: skip


def _rename(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{_RENAMES.get(k, k): v for k, v in row.items()} for row in rows]


COLUMNS = (
    "study", "replica", "variant", "base", "variation", "switches", "players", "style", "seatings", "deals",
    "games", "seat_games", "wins", "win_rate", "win_lo", "win_hi", "fair_share", "delta_win_rate", "delta_lo",
    "delta_hi", "delta_p", "ref_style", "ref_seat_games", "ref_win_rate", "ref_win_lo", "ref_win_hi",
    "ref_delta", "ref_delta_lo", "ref_delta_hi", "ref_delta_p", "mean_rank", "rank_lo", "rank_hi",
    "points_per_game", "points_lo", "points_hi", "turns_mean", "turns_lo", "turns_hi", "turns_p10",
    "turns_p25", "turns_p50", "turns_p75", "turns_p90", "turns_delta", "turns_delta_lo", "turns_delta_hi",
    "turns_delta_p", "length_mean", "length_lo", "length_hi", "length_p10", "length_p25", "length_p50",
    "length_p75", "length_p90", "length_delta", "length_delta_lo", "length_delta_hi", "length_delta_p",
    "truncated_rate", "truncated_lo", "truncated_hi", "seat_win_rates", "seat_win_lo", "seat_win_hi",
    "seat0_win_rate", "seat0_lo", "seat0_hi", "first_mover_win_rate", "first_mover_lo", "first_mover_hi",
    "first_mover_delta", "first_mover_delta_lo", "first_mover_delta_hi", "first_mover_delta_p", "seed",
    "rules", "env_version",
)  # fmt: skip
"""Columns of ``results.csv``: one row per deal set (``replica``), cell and style. ``length_*``
count decisions, ``turns_*`` turns; every ``_lo``/``_hi`` pair is a 95% interval with the deal
as the unit, every ``delta``/``_delta`` a change against the base paired by deal (``_p`` its
two-sided p-value, before any multiplicity control: see ``effects.csv``)."""


# ================================================================ the family of effects
EFFECT_COLUMNS = (
    "variant", "base", "variation", "switches", "players", "measure", "style", "base_value", "value",
    "change", "p", "p_adjusted", "detected", "level", "lo", "hi", "rep_change", "rep_lo", "rep_hi",
    "rep_p", "rep_p_adjusted", "rep_detected", "replicated",
)  # fmt: skip
"""Columns of ``effects.csv``: one row per effect (a change against the base on the primary
deals), ``lo``/``hi`` its interval at the false-coverage level ``level``; ``rep_*`` the same
effect on the replication's deals (95% interval; ``rep_detected`` and ``replicated``, ``yes``
or ``no``, only for detected effects, empty without a replication)."""

MEASURE_COLUMNS: dict[str, tuple[str, str, str, str, str]] = {
    "win_rate": ("win_rate", "delta_win_rate", "delta_lo", "delta_hi", "delta_p"),
    "vs_reference": ("ref_win_rate", "ref_delta", "ref_delta_lo", "ref_delta_hi", "ref_delta_p"),
    "turns": ("turns_mean", "turns_delta", "turns_delta_lo", "turns_delta_hi", "turns_delta_p"),
    "decisions": ("length_mean", "length_delta", "length_delta_lo", "length_delta_hi", "length_delta_p"),
    "first_mover": (
        "first_mover_win_rate",
        "first_mover_delta",
        "first_mover_delta_lo",
        "first_mover_delta_hi",
        "first_mover_delta_p",
    ),
}
"""Per measure, the ``results.csv`` columns of its level, change, change interval and p-value."""


def effect_rows(spec: StudySpec, rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The family of effects with Benjamini-Hochberg detection, FCR intervals and replication.

    The intervals need the standard errors, which the tidy rows do not carry: they are
    rebuilt from the 95% interval's half-width and degrees of freedom.
    """
    from uno_env.stats import critical_value

    by_key: dict[tuple[int, str, int, str, str], Mapping[str, Any]] = {}
    for row in rows:
        if not row["variation"]:
            continue
        for measure in MEASURES:
            style = row["style"] if measure in ("win_rate", "vs_reference") else ""
            if measure == "vs_reference" and not (spec.reference and row["ref_seat_games"]):
                continue
            key = (int(row["replica"]), row["variant"], int(row["players"]), measure, style)
            if key not in by_key:
                by_key[key] = row
    primary = [(k, r) for k, r in by_key.items() if k[0] == 0]
    p = np.array([float(r[MEASURE_COLUMNS[k[3]][4]]) for k, r in primary])
    adjusted = benjamini_hochberg(p)
    detected = adjusted <= FDR
    level = fcr_level(int(detected.sum()), len(primary), FDR)
    out = []
    for (key, row), p_value, p_adj, found in zip(primary, p, adjusted, detected, strict=True):
        _, variant, n, measure, style = key
        level_col, change_col, lo_col, hi_col, _ = MEASURE_COLUMNS[measure]
        change = float(row[change_col])
        se = (float(row[hi_col]) - float(row[lo_col])) / (2 * critical_value(LEVEL, deals_df(row)))
        half = critical_value(level, deals_df(row)) * se
        rep = by_key.get((1, variant, n, measure, style))
        out.append(
            {
                "variant": variant,
                "base": row["base"],
                "variation": row["variation"],
                "switches": row["switches"],
                "players": n,
                "measure": measure,
                "style": style,
                "base_value": float(row[level_col]) - change,
                "value": float(row[level_col]),
                "change": change,
                "p": float(p_value),
                "p_adjusted": float(p_adj),
                "detected": bool(found),
                "level": level,
                "lo": change - half,
                "hi": change + half,
                "rep_change": float(rep[change_col]) if rep else math.nan,
                "rep_lo": float(rep[lo_col]) if rep else math.nan,
                "rep_hi": float(rep[hi_col]) if rep else math.nan,
                "rep_p": float(rep[MEASURE_COLUMNS[measure][4]]) if rep else math.nan,
                "rep_p_adjusted": math.nan,
                "rep_detected": "",
                "replicated": "",
            }
        )
    if spec.replicate:
        tested = [e for e in out if e["detected"]]
        rep_adjusted = benjamini_hochberg([e["rep_p"] for e in tested])
        for effect, p_adj in zip(tested, rep_adjusted, strict=True):
            effect["rep_p_adjusted"] = float(p_adj)
            same_sign = np.sign(effect["rep_change"]) == np.sign(effect["change"])
            effect["rep_detected"] = "yes" if p_adj <= FDR else "no"
            effect["replicated"] = "yes" if p_adj <= FDR and same_sign else "no"
    return out


def deals_df(row: Mapping[str, Any]) -> float:
    """Degrees of freedom of a cell's intervals: its deals less one."""
    return float(int(row["deals"]) - 1) if int(row["deals"]) > 1 else math.inf


# ================================================================ files
def results_frame(out: Path) -> pd.DataFrame:
    """The tidy results of a finished study folder as a pandas DataFrame."""
    import pandas as pd

    batches = load_batches(out)  # every planned batch, of this design (SpecError otherwise)
    spec = load_spec(out / "spec.toml")
    return pd.DataFrame(cell_rows(spec, batches), columns=list(COLUMNS))


def assemble(out: Path) -> pd.DataFrame:
    """Write ``results.csv`` (and ``.parquet``), ``effects.csv``, the plots and ``report.md``;
    return the results table."""
    import pandas as pd

    frame = results_frame(out)
    spec = load_spec(out / "spec.toml")
    effects = pd.DataFrame(effect_rows(spec, frame.to_dict("records")), columns=list(EFFECT_COLUMNS))
    for name, table in (("results", frame), ("effects", effects)):
        tmp = out / f".{name}.csv.tmp"
        table.to_csv(tmp, index=False, float_format="%.6f", lineterminator="\n")
        tmp.replace(out / f"{name}.csv")
    if importlib.util.find_spec("pyarrow") is not None:
        tmp = out / ".results.parquet.tmp"
        frame.to_parquet(tmp, index=False)
        tmp.replace(out / "results.parquet")
    plot_study(frame, effects, out)
    (out / "report.md").write_text(report_text(spec, frame, effects), encoding="utf-8")
    return frame


# ================================================================ plots
def style_label(style: str) -> str:
    """A short label for plots: a checkpoint's folder and file stem (``run/model``, the middle of
    a long one elided to ``...``), else the style."""
    if not is_checkpoint(style):
        return style
    path = Path(style)
    label = f"{path.parent.name}/{path.stem}" if path.parent.name else path.stem
    return label if len(label) <= 22 else f"{label[:8]}...{label[-11:]}"


def _mark(effect: Mapping[str, Any]) -> str:
    """``""`` detected (and replicated, when a replication ran), ``"~"`` not detected, ``"?"``
    detected but not replicated."""
    if not effect["detected"]:
        return "~"
    return "?" if effect["replicated"] == "no" else ""


def plot_study(frame: pd.DataFrame, effects: pd.DataFrame, out: Path) -> list[Path]:
    """``winrate_change.png`` (heat map per base and player count) and ``game_length.png``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    frame = frame[frame["replica"] == 0]
    panels = [(b, n) for b in frame["base"].unique() for n in sorted(frame["players"].unique())]
    marks = {
        (e["variant"], e["players"], e["style"]): _mark(e)
        for e in effects.to_dict("records")
        if e["measure"] == "win_rate"
    }
    varied = frame[frame["variation"] != ""]
    if len(varied):
        fig, axes = plt.subplots(
            1,
            len(panels),
            figsize=(4 + 3.2 * len(panels), 1.5 + 0.45 * varied["variation"].nunique()),
            squeeze=False,
        )
        for ax, (base, n) in zip(axes[0], panels, strict=True):
            part = varied[(varied["base"] == base) & (varied["players"] == n)]
            grid = part.pivot(index="variation", columns="style", values="delta_win_rate") * 100
            variant = part.pivot(index="variation", columns="style", values="variant")
            grid = grid.reindex(
                index=list(dict.fromkeys(part["variation"])), columns=list(dict.fromkeys(part["style"]))
            )
            variant = variant.reindex_like(grid)
            limit = max(1.0, float(np.nanmax(np.abs(grid.to_numpy()))) if grid.size else 1.0)
            image = ax.imshow(grid.to_numpy(), cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto")
            ax.set_xticks(
                range(grid.shape[1]), [style_label(c) for c in grid.columns], rotation=45, ha="right"
            )
            ax.set_yticks(range(grid.shape[0]), grid.index)
            for i in range(grid.shape[0]):
                for j in range(grid.shape[1]):
                    value = grid.iat[i, j]
                    mark = marks.get((variant.iat[i, j], n, grid.columns[j]), "")
                    colour = "white" if abs(value) > 0.6 * limit else "black"
                    ax.text(j, i, f"{mark}{value:+.1f}", ha="center", va="center", fontsize=7, color=colour)
            ax.set_title(f"{base}, {n} players: win rate change (pp)")
            fig.colorbar(image, ax=ax, shrink=0.8)
        fig.text(
            0.01,
            0.01,
            f"~ : not detected (Benjamini-Hochberg, FDR {FDR:.0%}); ? : detected but not replicated",
            fontsize=8,
        )
        fig.tight_layout()
        path = out / "winrate_change.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    cells = frame.drop_duplicates(["variant", "players"])
    fig, axes = plt.subplots(
        1, len(panels), figsize=(4 + 3 * len(panels), 1.5 + 0.4 * cells["variant"].nunique()), squeeze=False
    )
    for ax, (base, n) in zip(axes[0], panels, strict=True):
        part = cells[(cells["base"] == base) & (cells["players"] == n)]
        labels = [v or "(base)" for v in part["variation"]]
        y = np.arange(len(part))
        ax.hlines(y, part["turns_p10"], part["turns_p90"], color="0.7", lw=4, label="p10-p90")
        ax.hlines(y, part["turns_p25"], part["turns_p75"], color="0.35", lw=4, label="p25-p75")
        ax.plot(part["turns_mean"], y, "o", color="C3", label="mean")
        ax.set_yticks(y, labels)
        ax.invert_yaxis()
        ax.set_xlabel("turns per game (a player enters the play phase)")
        ax.set_title(f"{base}, {n} players: game length")
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    path = out / "game_length.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)
    return written


# ================================================================ the report
def _pp(value: float) -> str:
    return f"{value * 100:+.1f}"


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def _fmt_change(effect: Mapping[str, Any]) -> str:
    """A change with its FCR interval (detected) or what the interval still allows."""
    scale = 100 if effect["measure"] in PERCENT_MEASURES else 1
    change, lo, hi = effect["change"] * scale, effect["lo"] * scale, effect["hi"] * scale
    if effect["detected"]:
        text = f"**{change:+.1f}** [{lo:+.1f}, {hi:+.1f}]"
        if effect["replicated"] == "yes":
            text += " R"
        elif effect["replicated"] == "no":
            text += " (not replicated)"
        return text
    if lo == hi == 0:
        return "0 (identical)"
    return f"{change:+.1f} (within ±{max(abs(lo), abs(hi)):.1f})"


def style_line(style: str) -> str:
    """One line naming a style: its description, or what a checkpoint is."""
    from uno_env.policies import POLICY_DOCS

    if is_checkpoint(style):
        return f"`{style}`: a learned policy (MaskablePPO checkpoint)"
    if style == LEARNED:
        return f"`{style}`: the policy the sweep trained for the cell's own rules and player count"
    name, _, params = style.partition(":")
    extra = f" (parameters {params})" if params else ""
    return f"`{style}`: {POLICY_DOCS.get(name, 'compiled play style')}{extra}"


def report_text(spec: StudySpec, frame: pd.DataFrame, effects: pd.DataFrame) -> str:
    """The Markdown report: styles, design, method, then per base and player count the base
    rates, the changes against the base (field, fixed reference, lengths, first mover) with
    detection and replication, and the findings (replicated effects)."""
    primary = frame[frame["replica"] == 0]
    cells = primary.drop_duplicates(["variant", "players"])
    all_effects = effects.to_dict("records")
    detected = [e for e in all_effects if e["detected"]]
    replicated = [e for e in detected if e["replicated"] == "yes"]
    level = all_effects[0]["level"] if all_effects else 1 - FDR
    lines = [f"# House-rules study `{spec.name}`", "", "Styles:", ""]
    lines += [f"- {style_line(s)}" for s in spec.styles]
    if spec.reference and spec.reference not in spec.styles:
        lines.append(f"- {style_line(spec.reference)} (the reference field only)")
    lines += ["", "## Design", ""]
    lines.append(
        f"Seed {spec.seed}; bases {', '.join(spec.bases)}; players {', '.join(map(str, spec.players))}; "
        f"about {spec.games:,} games per cell against the field (every deal replayed at every seating: "
        f"{_describe(spec)}); {int(cells['games'].sum()):,} field games on the primary deals; env version "
        f"v{primary['env_version'].iloc[0]}."
    )
    lines += ["", "Seat-games per style and cell (every style holds as many seats):", ""]
    for n in spec.players:
        part = primary[(primary["players"] == n) & (primary["variation"] == "")]
        row = part.iloc[0]
        ref = ""
        if spec.reference:
            focal = int(part["ref_seat_games"].max())
            ref = f"; {focal:,} against the reference field (each style but `{spec.reference}`)"
        lines.append(f"- {n} players: {int(row['seat_games']):,} against the field{ref}.")
    if spec.replicate:
        lines += [
            "",
            "Replication: the whole design is played again on fresh deals "
            + ", ".join(
                f"{first_deal(spec, n, 1):,}-{first_deal(spec, n, 1) + deals_per_seating(spec, n) - 1:,} at "
                f"{n} players"
                for n in spec.players
            )
            + f" (seeds {spec.seed} + deal; primary deals from 0).",
        ]
    lines += ["", "## Method", ""]
    lines.append(
        "Each style's win rate is measured against the field of all the study's styles, every style in "
        "every seat equally often, on the same deals in every variant"
        + (
            f", and against a fixed reference field: alone at a table of `{spec.reference}` players, in "
            "every seat"
            if spec.reference
            else ""
        )
        + ". The deal is the unit: every deal is replayed at many seatings and in every variant, so its "
        "games are not independent. Rates and means are ratios of per-deal totals with cluster-robust "
        "standard errors over the deals (Student-t, deals - 1 degrees of freedom; Wilson at the effective "
        "sample size for rates), 95% unless said otherwise. Changes against the base are paired by deal."
    )
    lines += [
        "",
        f"Error control: Benjamini-Hochberg at a false discovery rate of {FDR:.0%} over all "
        f"{len(all_effects)} effects below (each style's win rate against the field"
        + (" and against the reference" if spec.reference else "")
        + ", mean turns and decisions per game, and the first mover's win rate, per variation and player "
        f"count). **{len(detected)} detected.** Changes are shown with their false-coverage-rate "
        f"intervals (Benjamini-Yekutieli) at level {level:.2%}, which exclude 0 exactly for the detected "
        'effects (**bold**); a change not detected shows what its interval still allows ("within ±x").',
    ]
    if spec.replicate:
        lines += [
            "",
            f"Replication: {len(replicated)} of the {len(detected)} detected effects replicated on the fresh "
            "deals (same sign, detected again by Benjamini-Hochberg at 5% over the detected effects; marked "
            "R). Only replicated effects are called findings.",
        ]
    lines += [
        "",
        "Zero-sum: every game has one winner and every style holds as many seats, so in each row the "
        "changes against the field sum to zero (column *sum*, up to truncated games): one style's gain is "
        "the others' loss. The fixed-reference view measures each style apart from the others.",
        "",
        "Lengths: *turns* count the times a player entered the play phase (to play or draw from their "
        "hand); *decisions* count every choice (colours, play-or-keep, challenges, answers included). "
        "The first mover is the seat that made the first decision (the dealer is drawn each deal). Rates "
        "are in percent, their changes in percentage points (pp).",
        "",
    ]
    by_cell: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for e in all_effects:
        by_cell.setdefault((e["variant"], e["players"]), []).append(e)
    lines += summary_tables(spec, primary, by_cell)
    for base in dict.fromkeys(primary["base"]):
        for n in spec.players:
            lines += _cell_section(
                spec, primary[(primary["base"] == base) & (primary["players"] == n)], by_cell
            )
    if spec.sweep:
        from training.transfer import study_skill_lines

        lines += study_skill_lines(spec, primary)
    lines += [
        "Plots: `winrate_change.png` (the field changes as a heat map; `~` not detected, `?` detected but "
        "not replicated), `game_length.png` (turns per game, mean and quantiles per variant). Tables: "
        "`results.csv` (levels and 95% changes per deal set, cell and style), `effects.csv` (the family "
        "of effects with p-values, detection and replication).",
        "",
    ]
    return "\n".join(lines)


def _compact(effect: Mapping[str, Any] | None) -> str:
    """A change in a summary cell: **bold** a finding (detected, and replicated when a
    replication ran), ``+1.3?`` detected but not replicated, ``(±1.1)`` not detected (what its
    interval still allows)."""
    if effect is None:
        return ""
    scale = 100 if effect["measure"] in PERCENT_MEASURES else 1
    change = effect["change"] * scale
    if not effect["detected"]:
        bound = max(abs(effect["lo"]), abs(effect["hi"])) * scale
        return "(0)" if bound == 0 else f"(±{bound:.1f})"
    return f"{change:+.1f}?" if effect["replicated"] == "no" else f"**{change:+.1f}**"


def summary_tables(
    spec: StudySpec, primary: pd.DataFrame, by_cell: Mapping[tuple[str, int], list[dict[str, Any]]]
) -> list[str]:
    """Compact tables of every change (the findings section of ``docs/study.md`` is copied from them)."""
    finding = "detected and replicated" if spec.replicate else "detected"
    lines = [
        "## Summary",
        "",
        "Win-rate change against the field per switch, in percentage points; **bold**: a finding "
        f"({finding}); "
        + ("`?`: detected but not replicated; " if spec.replicate else "")
        + "(±x): not detected, the change is within ±x (false-coverage interval). Last columns: the change "
        "of the mean game length in turns, and of the first mover's win rate.",
        "",
    ]
    for base in dict.fromkeys(primary["base"]):
        for n in spec.players:
            part = primary[(primary["base"] == base) & (primary["players"] == n)]
            r0 = part[part["variation"] == ""].iloc[0]
            styles = list(dict.fromkeys(part["style"]))
            rates = ", ".join(
                f"`{style_label(r['style'])}` {_pct(r['win_rate'])}"
                for _, r in part[part["variation"] == ""].iterrows()
            )
            lines += [
                f"{n} players ({base}: {r0['turns_mean']:.1f} turns, {r0['length_mean']:.1f} decisions per "
                f"game; first mover {_pct(r0['first_mover_win_rate'])}; win rates {rates}):",
                "",
                "| switch | "
                + " | ".join(f"`{style_label(s)}`" for s in styles)
                + " | turns | first mover |",
                "| --- |" + " ---: |" * (len(styles) + 2),
            ]
            varied = part[part["variation"] != ""]
            for label in dict.fromkeys(varied["variation"]):
                row = varied[varied["variation"] == label].iloc[0]
                effects = by_cell.get((row["variant"], n), [])

                def pick(measure: str, style: str = "", effects: list[dict[str, Any]] = effects) -> Any:
                    return next((e for e in effects if e["measure"] == measure and e["style"] == style), None)

                cells = [_compact(pick("win_rate", s)) for s in styles]
                cells += [_compact(pick("turns")), _compact(pick("first_mover"))]
                lines.append(f"| `{row['switches']}` | " + " | ".join(cells) + " |")
            lines.append("")
    return lines


def _describe(spec: StudySpec) -> str:
    parts = []
    for n in spec.players:
        text = (
            f"{len(seatings(spec.styles, n))} seatings x {deals_per_seating(spec, n):,} deals at {n} players"
        )
        if spec.reference:
            text += f" (+{len(kind_seatings(spec, 'reference', n))} reference seatings)"
        parts.append(text)
    return ", ".join(parts)


def _cell_section(
    spec: StudySpec, part: pd.DataFrame, by_cell: Mapping[tuple[str, int], list[dict[str, Any]]]
) -> list[str]:
    base_rows = part[part["variation"] == ""]
    r0 = base_rows.iloc[0]
    n = int(r0["players"])
    seat_rates = [float(x) for x in str(r0["seat_win_rates"]).split(";")]
    seat_lo = [float(x) for x in str(r0["seat_win_lo"]).split(";")]
    seat_hi = [float(x) for x in str(r0["seat_win_hi"]).split(";")]
    lines = [
        f"## {r0['base']}, {n} players",
        "",
        f"Base rules: {r0['turns_mean']:.1f} turns per game [{r0['turns_lo']:.1f}, {r0['turns_hi']:.1f}] "
        f"(median {r0['turns_p50']}, p90 {r0['turns_p90']}); {r0['length_mean']:.1f} decisions "
        f"[{r0['length_lo']:.1f}, {r0['length_hi']:.1f}]; the first mover wins "
        f"{_pct(r0['first_mover_win_rate'])} [{_pct(r0['first_mover_lo'])}, {_pct(r0['first_mover_hi'])}] "
        f"(fair share {1 / n:.1%}); truncated {r0['truncated_rate']:.2%}.",
        "",
        "| seat | " + " | ".join(str(j) for j in range(n)) + " |",
        "| --- |" + " ---: |" * n,
        "| win rate [95%] | "
        + " | ".join(f"{_pct(seat_rates[j])} [{_pct(seat_lo[j])}, {_pct(seat_hi[j])}]" for j in range(n))
        + " |",
        "",
        "| style | seat-games | win rate vs field [95%] |"
        + (f" vs `{spec.reference}` field [95%] |" if spec.reference else "")
        + " mean rank [95%] | points/game [95%] |",
        "| --- | ---: | --- |" + (" --- |" if spec.reference else "") + " --- | --- |",
    ]
    for _, r in base_rows.iterrows():
        ref = ""
        if spec.reference:
            ref = (
                f" {_pct(r['ref_win_rate'])} [{_pct(r['ref_win_lo'])}, {_pct(r['ref_win_hi'])}] |"
                if r["ref_seat_games"]
                else " (the reference) |"
            )
        lines.append(
            f"| `{r['style']}` | {int(r['seat_games']):,} | {_pct(r['win_rate'])} [{_pct(r['win_lo'])}, "
            f"{_pct(r['win_hi'])}] |{ref} {r['mean_rank']:.2f} [{r['rank_lo']:.2f}, {r['rank_hi']:.2f}] | "
            f"{r['points_per_game']:.1f} [{r['points_lo']:.1f}, {r['points_hi']:.1f}] |"
        )
    varied = part[part["variation"] != ""]
    styles = list(dict.fromkeys(part["style"]))
    labels = list(dict.fromkeys(varied["variation"]))
    variant_of = dict(zip(varied["variation"], varied["variant"], strict=False))
    switches_of = dict(zip(varied["variation"], varied["switches"], strict=False))

    def effect(label: str, measure: str, style: str = "") -> dict[str, Any] | None:
        for e in by_cell.get((variant_of[label], n), []):
            if e["measure"] == measure and e["style"] == style:
                return e
        return None

    lines += ["", "### Findings (replicated effects)" if spec.replicate else "### Detected effects", ""]
    any_finding = False
    for label in labels:
        found = sorted(
            (
                e
                for e in by_cell.get((variant_of[label], n), [])
                if e["detected"] and (e["replicated"] == "yes" or not spec.replicate)
            ),
            key=lambda e: (MEASURES.index(e["measure"]), -abs(e["change"])),
        )
        if not found:
            continue
        any_finding = True
        lines.append(
            f"- **{label}** (`{switches_of[label]}`): " + "; ".join(_finding(e) for e in found) + "."
        )
    if not any_finding:
        lines.append("- none.")
    if spec.replicate:
        failed = [
            f"{label}: {_effect_name(e)} {_fmt_change(e)}"
            for label in labels
            for e in by_cell.get((variant_of[label], n), [])
            if e["detected"] and e["replicated"] == "no"
        ]
        if failed:
            lines += ["", "Detected on the primary deals but not replicated: " + "; ".join(failed) + "."]
    if not labels:
        return [*lines, ""]
    lines += [
        "",
        "Win-rate change against the field (percentage points; interval at the false-coverage level):",
        "",
        "| variation | " + " | ".join(f"`{style_label(s)}`" for s in styles) + " | sum | first mover |",
        "| --- |" + " ---: |" * (len(styles) + 2),
    ]
    for label in labels:
        rows = varied[varied["variation"] == label].set_index("style")
        cells = []
        for s in styles:
            e = effect(label, "win_rate", s)
            cells.append(_fmt_change(e) if e else "")
        total = float(rows["delta_win_rate"].sum())
        fm = effect(label, "first_mover")
        cells.append(f"{total * 100:+.1f}")
        cells.append(_fmt_change(fm) if fm else "")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if spec.reference:
        focal = [s for s in styles if s != spec.reference]
        lines += [
            "",
            f"Win-rate change against the fixed `{spec.reference}` field (percentage points):",
            "",
            "| variation | " + " | ".join(f"`{style_label(s)}`" for s in focal) + " |",
            "| --- |" + " ---: |" * len(focal),
        ]
        for label in labels:
            cells = []
            for s in focal:
                e = effect(label, "vs_reference", s)
                cells.append(_fmt_change(e) if e else "")
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Game length against the base (turns and decisions per game):",
        "",
        "| variation | turns | change | decisions | change |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for label in labels:
        x = varied[varied["variation"] == label].iloc[0]
        turns, decisions = effect(label, "turns"), effect(label, "decisions")
        lines.append(
            f"| {label} | {x['turns_mean']:.1f} | {_fmt_change(turns) if turns else ''} | "
            f"{x['length_mean']:.1f} | {_fmt_change(decisions) if decisions else ''} |"
        )
    lines.append("")
    return lines


def _effect_name(e: Mapping[str, Any]) -> str:
    return {
        "win_rate": f"`{e['style']}`",
        "vs_reference": f"`{e['style']}` vs the reference",
        "turns": "turns per game",
        "decisions": "decisions per game",
        "first_mover": "the first mover",
    }[e["measure"]]


def _finding(e: Mapping[str, Any]) -> str:
    unit = " pp" if e["measure"] in PERCENT_MEASURES else ""
    scale = 100 if e["measure"] in PERCENT_MEASURES else 1
    text = (
        f"{_effect_name(e)} {e['change'] * scale:+.1f}{unit} [{e['lo'] * scale:+.1f}, {e['hi'] * scale:+.1f}]"
    )
    if e["replicated"] == "yes":
        text += f" (replication {e['rep_change'] * scale:+.1f})"
    return text


__all__ = [
    "COLUMNS",
    "EFFECT_COLUMNS",
    "FDR",
    "MEASURES",
    "MEASURE_COLUMNS",
    "CellData",
    "assemble",
    "cell_rows",
    "effect_rows",
    "merge_cells",
    "plot_study",
    "report_text",
    "results_frame",
]
