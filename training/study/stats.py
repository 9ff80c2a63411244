"""The house-rules study's statistics: per-deal counts of a cell, estimates and the family of effects.

:func:`cell_rows` turns the batch files (``batches/*.json``) into the tidy rows of
``results.csv``; :func:`effect_rows` turns those into the rows of ``effects.csv``.
:mod:`training.study.report` writes the files and the report, :mod:`training.study.plots`
the plots.

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

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from uno_env.stats import (
    GAME_LENGTH_RANGE,
    LEVEL,
    POINTS_RANGE,
    GroupedEstimate,
    benjamini_hochberg,
    critical_value,
    fcr_level,
    grouped_ratio,
    paired_difference,
)
from uno_env.versions import ENV_VERSION

from .planning import deals_per_seating, first_deal, seatings
from .play import DEAL_ARRAYS, STYLE_ARRAYS
from .spec import QUANTILES, STUDY_FORMAT, SpecError, StudySpec

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


def _level(
    prefix: str, est: GroupedEstimate, proportion: bool = False, bounds: tuple[float, float] | None = None
) -> dict[str, float]:
    lo, hi = est.bounded_interval(*bounds) if bounds is not None else _interval(est, proportion)
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
                    **_level("turns_mean", whole["turns"], bounds=GAME_LENGTH_RANGE),
                    **{
                        f"turns_p{round(q * 100)}": _quantile(field.hist["turns"], games, q)
                        for q in QUANTILES
                    },
                    **_change("turns_delta", changes["turns"]),
                    **_level("length_mean", whole["decisions"], bounds=GAME_LENGTH_RANGE),
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
                        **_level("mean_rank", mine["rank"], bounds=(1, n)),  # a rank lies in 1..n
                        **_level("points_per_game", mine["points"], bounds=POINTS_RANGE),
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
    out = []
    for key, row in primary:
        _, variant, n, measure, style = key
        level_col, change_col, lo_col, hi_col, p_col = MEASURE_COLUMNS[measure]
        change = float(row[change_col])
        df = deals_df(row)
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
                "p": float(row[p_col]),
                "se": _se_of(row[lo_col], row[hi_col], df),
                "df": df,
                "rep_change": float(rep[change_col]) if rep else math.nan,
                "rep_lo": float(rep[lo_col]) if rep else math.nan,
                "rep_hi": float(rep[hi_col]) if rep else math.nan,
                "rep_p": float(rep[p_col]) if rep else math.nan,
            }
        )
    control_family(out, spec.replicate)
    for effect in out:
        del effect["se"], effect["df"]
    return out


def _se_of(lo: Any, hi: Any, df: float) -> float:
    """A standard error rebuilt from a 95% interval's half-width (the tidy rows carry intervals)."""
    return (float(hi) - float(lo)) / (2 * critical_value(LEVEL, df))


def control_family(effects: list[dict[str, Any]], replicate: bool, fdr: float = FDR) -> list[dict[str, Any]]:
    """Error control over a family of effects (changes), in place; returns ``effects``.

    Each effect holds its ``change`` with its two-sided p-value ``p``, standard error ``se``
    and degrees of freedom ``df``, and, with a replication, the same change on fresh deals
    (``rep_change``, ``rep_p``). Benjamini-Hochberg at false discovery rate ``fdr`` over the
    whole family sets ``p_adjusted`` and ``detected``; every change gets its
    false-coverage-rate interval (Benjamini-Yekutieli: ``lo``/``hi`` at ``level = 1 - R *
    fdr / m`` for ``R`` detections of ``m``), which excludes 0 exactly for the detected ones.
    With ``replicate``, each detected effect's replication is tested again (Benjamini-Hochberg
    at ``fdr`` over the detected effects): ``rep_p_adjusted``, ``rep_detected`` and
    ``replicated`` (``"yes"``: same sign and detected again) are set; otherwise (and for a
    detected effect without a replication, ``rep_p`` NaN) they stay empty.
    The study and the atlas both call this: one procedure, one wording in their reports.
    """
    p = np.array([float(e["p"]) for e in effects])
    adjusted = benjamini_hochberg(p)
    detected = adjusted <= fdr
    level = fcr_level(int(detected.sum()), len(effects), fdr)
    for effect, p_adj, found in zip(effects, adjusted, detected, strict=True):
        se, df = float(effect["se"]), float(effect["df"])
        half = critical_value(level, df) * se if math.isfinite(se) else math.nan
        change = float(effect["change"])
        effect.update(
            p_adjusted=float(p_adj),
            detected=bool(found),
            level=level,
            lo=change - half,
            hi=change + half,
            rep_p_adjusted=math.nan,
            rep_detected="",
            replicated="",
        )
    if replicate:
        # a detected effect whose replication was not measured (no fresh deals for it) is left
        # out of the replication family: its NaN p-value would make every adjusted one NaN
        tested = [e for e in effects if e["detected"] and math.isfinite(float(e["rep_p"]))]
        rep_adjusted = benjamini_hochberg([e["rep_p"] for e in tested])
        for effect, p_adj in zip(tested, rep_adjusted, strict=True):
            effect["rep_p_adjusted"] = float(p_adj)
            same_sign = np.sign(effect["rep_change"]) == np.sign(effect["change"])
            effect["rep_detected"] = "yes" if p_adj <= fdr else "no"
            effect["replicated"] = "yes" if p_adj <= fdr and same_sign else "no"
    return effects


def deals_df(row: Mapping[str, Any]) -> float:
    """Degrees of freedom of a cell's intervals: its deals less one."""
    return float(int(row["deals"]) - 1) if int(row["deals"]) > 1 else math.inf


__all__ = [
    "COLUMNS",
    "EFFECT_COLUMNS",
    "FDR",
    "MEASURES",
    "MEASURE_COLUMNS",
    "PERCENT_MEASURES",
    "CellData",
    "CellKey",
    "cell_estimates",
    "cell_rows",
    "control_family",
    "deals_df",
    "effect_rows",
    "merge_cells",
    "paired_changes",
]
