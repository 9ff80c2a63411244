"""The atlas' statistics: per-deal data of every cell, the measures, their changes and the family.

:func:`merge` sums the batch files into per-deal arrays of every cell (:class:`CellData`);
each measure (:data:`MEASURES`) is a smooth function of per-deal totals, so its level and its
change against the base rules (paired by deal: the variants play the same deals) both come
from :func:`uno_env.stats.grouped_function` with the deal as the unit (a rate's level gets the
Wilson interval at its effective sample size, as everywhere). Levels pool both deal sets
(:func:`level_rows`); changes are estimated on each deal set (:func:`effect_rows`): the
primary deals form the family under Benjamini-Hochberg (:func:`training.study.stats.control_family`,
the study's procedure) and the fresh deals replicate it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from training.study.stats import control_family
from uno_env.sim import winprob
from uno_env.stats import (
    LEVEL,
    GroupedEstimate,
    grouped_function,
    quantile_interval,
    rank_correlation,
    variance_split_shares,
    variance_split_sums,
)
from uno_env.versions import ENV_VERSION

from .planning import SHARED, TRACED
from .spec import COIN_FLIP, AtlasSpec, AtlasSpecError, AtlasVariant

PLAYS = ("strong", "scripted")
"""Whose play a measure describes: the strong player's, or the field of scripted styles'."""


# ================================================================ per-deal data of a cell
@dataclass
class CellData:
    """One cell's per-deal data on one deal set: for the ``baseline`` and ``field`` kinds, per
    focal agent its winners ``(deals, tables)`` (with one rotation of the field per deal, the
    deal's tables: one per seat) and the focal seat of each table; for the
    traced kinds, per game column (:data:`training.atlas.play.GAME_COLUMNS`) an array over the
    deals, and the reliability table's sums."""

    players: int
    winners: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    focal_seat: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    traced: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    reliability: dict[str, np.ndarray] = field(default_factory=dict)


CellKey = tuple[str, int, int]
"""(variant id, players, replica)."""


def merge(spec: AtlasSpec, batches: Sequence[Mapping[str, Any]]) -> dict[CellKey, CellData]:
    """The measuring batches summed into per-deal arrays of every cell and deal set."""
    cells: dict[CellKey, CellData] = {}
    for batch in batches:
        if batch.get("stage") != "measure":
            continue
        kind, n, replica = batch["kind"], int(batch["players"]), int(batch["replica"])
        cell = cells.setdefault((batch["variant"], n, replica), CellData(n))
        count = spec.deal_count(kind)
        lo = int(batch["first"]) - replica * count
        hi = lo + int(batch["deals"])
        if kind in TRACED:
            columns = cell.traced.setdefault(kind, {})
            for name, values in batch["games"].items():
                target = columns.setdefault(name, np.full(count, math.nan))
                target[lo:hi] = [math.nan if v is None else v for v in values]
            table = np.asarray(batch["reliability"], dtype=np.float64)
            cell.reliability[kind] = cell.reliability.get(kind, np.zeros_like(table)) + table
            continue
        # with one rotation of the field per deal, the rows are the places of a deal's block
        # of tables (every rung at every seat), the same rungs in every block
        slots = int(batch.get("block", 0)) or len(batch["focal"])
        blocks: dict[str, list[int]] = {}
        for t, agent in enumerate(batch["focal"][:slots]):
            blocks.setdefault(agent, []).append(t)
        for agent, rows in blocks.items():
            key = (kind, agent)
            won = np.asarray([batch["winners"][t] for t in rows], dtype=np.int64).T  # (deals, tables)
            target = cell.winners.setdefault(key, np.full((count, len(rows)), -2, dtype=np.int64))
            target[lo:hi] = won
            cell.focal_seat[key] = np.arange(len(rows)) % n
    for (variant_id, players, replica), cell in cells.items():
        for (kind, agent), won in cell.winners.items():
            if (won == -2).any():
                raise AtlasSpecError(
                    f"cell {variant_id} at {players} players, deal set {replica}: "
                    f"{kind} games of {agent} are missing"
                )
    return cells


# ================================================================ measures as functions of per-deal totals
Sums = Callable[[AtlasSpec, CellData, str], "np.ndarray | None"]


@dataclass(frozen=True)
class Measure:
    """One measure: its name, the plays it is defined for, how it reads a cell (``sums``: per-deal
    totals, ``(deals, k)``, or None when the cell lacks its games) and the statistic of the
    totals (``function``: ``(m, k)`` totals to ``m`` values). ``rate``: a proportion (shown in
    percent, changes in percentage points); ``family``: its changes enter the family of
    effects; ``unit`` and ``text`` say what it is. ``paired``: how a change against the base
    reads a cell, when not as ``sums`` (the trajectory measures: with the base rules' win-chance
    model in both cells, so the change holds no difference between two fitted models)."""

    name: str
    plays: tuple[str, ...]
    sums: Sums
    function: Callable[[np.ndarray], np.ndarray]
    rate: bool
    family: bool
    unit: str
    text: str
    paired: Sums | None = None


def _focal_sums(cell: CellData, kind: str, agents: Sequence[str]) -> np.ndarray | None:
    """Per deal: the focal agents' wins and seat-games (summed over ``agents``)."""
    out: np.ndarray | None = None
    for agent in agents:
        won, seat = cell.winners.get((kind, agent)), cell.focal_seat.get((kind, agent))
        if won is None or seat is None:
            return None
        part = np.stack([(won == seat[None, :]).sum(axis=1), np.full(won.shape[0], won.shape[1])], axis=1)
        out = part.astype(np.float64) if out is None else out + part
    return out


def _focal_agents(spec: AtlasSpec, play: str) -> list[str]:
    return [spec.strong] if play == "strong" else list(spec.field)


def _ratio(t: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return t[:, 0] / t[:, 1]


def _skill_baseline(spec: AtlasSpec, cell: CellData, play: str) -> np.ndarray | None:
    return _focal_sums(cell, "baseline", _focal_agents(spec, play))


def _skill_field(spec: AtlasSpec, cell: CellData, play: str) -> np.ndarray | None:
    return _focal_sums(cell, "field", [spec.strong])


def _hidden(spec: AtlasSpec, cell: CellData, play: str) -> np.ndarray | None:
    oracle = _focal_sums(cell, "field", [spec.oracle]) if spec.oracle else None
    strong = _focal_sums(cell, "field", [spec.strong])
    return None if oracle is None or strong is None else np.hstack([oracle, strong])


def _hidden_value(t: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return t[:, 0] / t[:, 1] - t[:, 2] / t[:, 3]


def split_design(spec: AtlasSpec, cell: CellData, play: str) -> tuple[np.ndarray, np.ndarray, int] | None:
    """The duplicate design of the variance split: winners ``(deals, tables)``, the seating
    (player per seat; the baseline is the last player) and the number of players."""
    agents = _focal_agents(spec, play)
    blocks = [cell.winners.get(("baseline", a)) for a in agents]
    if any(b is None for b in blocks):
        return None
    n = cell.players
    winners = np.hstack([b for b in blocks if b is not None])
    seating = np.full((winners.shape[1], n), len(agents), dtype=np.int64)
    for k, block in enumerate(blocks):
        assert block is not None
        for t in range(block.shape[1]):
            seating[k * block.shape[1] + t, t % n] = k
    return winners, seating, len(agents) + 1


def _split(spec: AtlasSpec, cell: CellData, play: str) -> np.ndarray | None:
    design = split_design(spec, cell, play)
    if design is None:
        return None
    winners, seating, players = design
    sums = variance_split_sums(winners, seating, players)
    # the shares need the design's sizes: two columns holding them in every deal, read back as
    # their totals over the deals column (index 4: one per deal), so any subset of deals keeps them
    extra = np.tile(np.array([players, cell.players], dtype=np.float64), (sums.shape[0], 1))
    return np.hstack([sums, extra])


def _share(which: int) -> Callable[[np.ndarray], np.ndarray]:
    def function(t: np.ndarray) -> np.ndarray:
        deals = t[0, 4]
        players, seats = round(t[0, -2] / deals), round(t[0, -1] / deals)
        return variance_split_shares(t[:, :-2], players, seats)[:, which]

    return function


def _luck(spec: AtlasSpec, cell: CellData, play: str) -> np.ndarray | None:
    """Per deal: the baseline players' wins and seat-games at the tables of the focal agents,
    and the seats (Jaffe's luck: their win rate over the fair share)."""
    agents = _focal_agents(spec, play)
    wins = np.zeros(0)
    slots = np.zeros(0)
    for a in agents:
        won = cell.winners.get(("baseline", a))
        seat = cell.focal_seat.get(("baseline", a))
        if won is None or seat is None:
            return None
        base_wins = ((won >= 0) & (won != seat[None, :])).sum(axis=1).astype(np.float64)
        base_slots = np.full(won.shape[0], won.shape[1] * (cell.players - 1), dtype=np.float64)
        wins = base_wins if wins.size == 0 else wins + base_wins
        slots = base_slots if slots.size == 0 else slots + base_slots
    seats = np.full_like(wins, float(cell.players))
    return np.stack([wins, slots, seats, np.ones_like(wins)], axis=1)


def _luck_value(t: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return t[:, 0] / t[:, 1] * (t[:, 2] / t[:, 3])


def _traced_column(kind_of: Callable[[str], str], column: str) -> Sums:
    def sums(spec: AtlasSpec, cell: CellData, play: str) -> np.ndarray | None:
        games = cell.traced.get(kind_of(play))
        if games is None:
            return None
        values = games[column]
        valid = np.isfinite(values) & (games["winner"] >= 0)
        return np.stack([np.where(valid, values, 0.0), valid.astype(np.float64)], axis=1)

    return sums


def _play_kind(play: str) -> str:
    return "strong" if play == "strong" else "scripted"


def _first_mover(spec: AtlasSpec, cell: CellData, play: str) -> np.ndarray | None:
    games = cell.traced.get(_play_kind(play))
    if games is None:
        return None
    won = (games["winner"] == games["first_mover"]).astype(np.float64)
    return np.stack([won, np.ones_like(won)], axis=1)


def _turns(spec: AtlasSpec, cell: CellData, play: str) -> np.ndarray | None:
    games = cell.traced.get(_play_kind(play))
    if games is None:
        return None
    x = games["turns"]
    return np.stack([x, x * x, np.ones_like(x)], axis=1)


def _sd(t: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = t[:, 0] / t[:, 2]
        var = (t[:, 1] - t[:, 2] * mean * mean) / (t[:, 2] - 1.0)
        return np.sqrt(np.maximum(var, 0.0))


BOTH = PLAYS
STRONG = ("strong",)
MEASURES: tuple[Measure, ...] = (
    Measure("skill_vs_baseline", BOTH, _skill_baseline, _ratio, True, True, "win rate",
            "win rate alone against players of the baseline (the literature's random player)"),
    Measure("skill_vs_field", STRONG, _skill_field, _ratio, True, True, "win rate",
            "win rate alone against the field of scripted styles"),
    Measure("hidden_info", STRONG, _hidden, _hidden_value, True, True, "win rate",
            "the oracle's win rate against the field minus the strong player's (what seeing every hand is "
            "worth)"),
    Measure("deal_share", BOTH, _split, _share(0), True, True, "share",
            "share of the outcome variance the cards decide, whoever holds them (against the baseline)"),
    Measure("player_share", BOTH, _split, _share(1), True, False, "share",
            "share of the outcome variance the players decide"),
    Measure("luck", BOTH, _luck, _luck_value, False, False, "ratio",
            "Jaffe's luck: the baseline players' win rate at those tables over the fair share (1: all luck)"),
    Measure("first_mover", BOTH, _first_mover, _ratio, True, True, "win rate",
            "the first mover's win rate at a table of equals"),
    Measure("turns_mean", BOTH, _turns, lambda t: t[:, 0] / t[:, 2], False, True, "turns",
            "mean game length"),
    Measure("turns_sd", BOTH, _turns, _sd, False, True, "turns",
            "spread of the game length (standard deviation)"),
    Measure("lead_changes", BOTH, _traced_column(_play_kind, "lead_changes"), _ratio, False, True, "per game",
            "times the most likely winner changes", _traced_column(_play_kind, SHARED + "lead_changes")),
    Measure("winner_low", BOTH, _traced_column(_play_kind, "winner_low"), _ratio, True, True, "chance",
            "the eventual winner's lowest win chance (higher: fewer comebacks)",
            _traced_column(_play_kind, SHARED + "winner_low")),
    Measure("comeback", BOTH, _traced_column(_play_kind, "comeback"), _ratio, True, False, "share of games",
            f"games won after the winner's chance fell below {winprob.COMEBACK:.0%}",
            _traced_column(_play_kind, SHARED + "comeback")),
    Measure("decided_at", BOTH, _traced_column(_play_kind, "decided_at"), _ratio, True, True,
            "share of the game",
            "share of the game's decisions made before the winner's chance stays at or above "
            f"{winprob.DECIDED:.0%}", _traced_column(_play_kind, SHARED + "decided_at")),
    Measure("drama", BOTH, _traced_column(_play_kind, "drama"), _ratio, True, True, "chance",
            "mean distance by which the eventual winner trails the leader",
            _traced_column(_play_kind, SHARED + "drama")),
)  # fmt: skip
"""Every measure, in report order (see :class:`Measure`)."""
MEASURE_BY_NAME = {m.name: m for m in MEASURES}
FAMILY = tuple((m.name, play) for m in MEASURES if m.family for play in m.plays)
"""(measure, play) pairs whose changes against the base form the family of effects."""


def estimate(
    spec: AtlasSpec, cells: Sequence[CellData], measure: Measure, play: str
) -> GroupedEstimate | None:
    """A measure's level on the cells' deals together (deal sets pooled), grouped by deal."""
    parts = [measure.sums(spec, c, play) for c in cells]
    if not parts or any(p is None for p in parts):
        return None
    return grouped_function(np.vstack([p for p in parts if p is not None]), measure.function)


def change(
    spec: AtlasSpec, cell: CellData, base: CellData, measure: Measure, play: str
) -> GroupedEstimate | None:
    """A measure's change from ``base`` to ``cell`` on one deal set, paired by deal (a trajectory
    measure read with the base rules' model in both cells: :attr:`Measure.paired`)."""
    sums = measure.paired or measure.sums
    a, b = sums(spec, cell, play), sums(spec, base, play)
    if a is None or b is None or a.shape[0] != b.shape[0]:
        return None
    k = a.shape[1]
    return grouped_function(
        np.hstack([a, b]), lambda t: measure.function(t[:, :k]) - measure.function(t[:, k:])
    )


# ================================================================ tables
LEVEL_COLUMNS = (
    "atlas", "variant", "kind", "base", "variation", "switches", "players", "play", "measure", "value", "lo",
    "hi", "deals", "unit", "rules", "env_version",
)  # fmt: skip
"""Columns of ``atlas.csv``: one row per cell, play and measure; ``value`` with its 95%
interval ``lo``/``hi`` over both deal sets, the deal the unit (rates as fractions)."""


WILSON = ("skill_vs_baseline", "skill_vs_field", "first_mover", "comeback")
"""Measures that are win rates (or shares of games): Wilson intervals at the effective sample size."""


UNIT_RANGE = ("winner_low", "decided_at", "drama")
"""Measures that are means of values in [0, 1] but not rates: their t intervals are kept inside it."""


def _interval(est: GroupedEstimate, wilson: bool, unit: bool = False) -> tuple[float, float]:
    """A level's 95% interval. A rate (``wilson``) gets the Wilson interval at its effective
    sample size; one never or always seen (0 or 1, so no spread between deals to measure) the
    Wilson interval at the number of deals (:meth:`GroupedEstimate.proportion_interval`): a
    player that won none of 56 games is not known to win exactly 0%. Any other measure with no
    spread between deals is a control's exact value and gets a zero-width interval. A mean of
    values in [0, 1] (``unit``) has its t interval kept inside [0, 1]."""
    if wilson and est.value in (0.0, 1.0):
        return est.proportion_interval()
    if est.se == 0.0:
        return (est.value, est.value)
    if wilson and 0.0 <= est.value <= 1.0:
        return est.proportion_interval()
    low, high = est.interval()
    return (max(0.0, low), min(1.0, high)) if unit else (low, high)


def level_rows(spec: AtlasSpec, cells: Mapping[CellKey, CellData]) -> list[dict[str, Any]]:
    """The tidy level table (:data:`LEVEL_COLUMNS`)."""
    rows = []
    for variant, n in spec.cells():
        data = [cells[(variant.id, n, r)] for r in spec.replicas() if (variant.id, n, r) in cells]
        for measure in MEASURES:
            for play in measure.plays:
                est = estimate(spec, data, measure, play)
                if est is None:
                    continue
                lo, hi = _interval(est, measure.name in WILSON, measure.name in UNIT_RANGE)
                rows.append(
                    _row(spec, variant, n, play, measure.name, est.value, lo, hi, est.groups, measure.unit)
                )
        for play in PLAYS:
            kind = _play_kind(play)
            turns = [c.traced[kind]["turns"] for c in data if kind in c.traced]
            if turns:
                q, lo, hi = quantile_interval(np.concatenate(turns), 0.9)
                rows.append(
                    _row(spec, variant, n, play, "turns_p90", q, lo, hi, sum(len(t) for t in turns), "turns")
                )
            rows += _seat_rows(spec, variant, n, play, data)
        rows += _ladder_rows(spec, variant, n, data)
    return rows


def _row(
    spec: AtlasSpec,
    variant: AtlasVariant,
    n: int,
    play: str,
    measure: str,
    value: float,
    lo: float,
    hi: float,
    deals: int,
    unit: str,
) -> dict[str, Any]:
    return {
        "atlas": spec.name,
        "variant": variant.id,
        "kind": variant.kind,
        "base": variant.base,
        "variation": variant.variation,
        "switches": variant.switches,
        "players": n,
        "play": play,
        "measure": measure,
        "value": value,
        "lo": lo,
        "hi": hi,
        "deals": deals,
        "unit": unit,
        "rules": str(variant.rules),
        "env_version": ENV_VERSION,
    }


def _seat_rows(
    spec: AtlasSpec, variant: AtlasVariant, n: int, play: str, data: Sequence[CellData]
) -> list[dict[str, Any]]:
    """Win rate of each place in the turn order (``seat_k``: ``k`` seats after the first mover,
    clockwise), at the table of equals."""
    kind = _play_kind(play)
    games = [c.traced[kind] for c in data if kind in c.traced]
    if not games:
        return []
    winner = np.concatenate([g["winner"] for g in games])
    first = np.concatenate([g["first_mover"] for g in games])
    rows = []
    for k in range(n):
        won = (winner == (first + k) % n).astype(np.float64)
        est = grouped_function(np.stack([won, np.ones_like(won)], axis=1), _ratio)
        lo, hi = _interval(est, True)
        rows.append(_row(spec, variant, n, play, f"seat_{k}", est.value, lo, hi, est.groups, "win rate"))
    return rows


def _ladder_rows(
    spec: AtlasSpec, variant: AtlasVariant, n: int, data: Sequence[CellData]
) -> list[dict[str, Any]]:
    """Every rung's win rate against the field and against the baseline (``ladder_field:AGENT``,
    ``ladder_baseline:AGENT``; play ``ladder``)."""
    rows = []
    for rung in spec.rungs(variant, n):
        for kind in ("field", "baseline"):
            parts = [_focal_sums(c, kind, [rung.agent]) for c in data]
            if not parts or any(p is None for p in parts):
                continue
            est = grouped_function(np.vstack([p for p in parts if p is not None]), _ratio)
            lo, hi = _interval(est, True)
            rows.append(
                _row(
                    spec,
                    variant,
                    n,
                    "ladder",
                    f"{kind}:{rung.agent}",
                    est.value,
                    lo,
                    hi,
                    est.groups,
                    rung.role,
                )
            )
    return rows


CALIBRATION_COLUMNS = (
    "variant", "players", "play", "positions", "games", "brier", "brier_lo", "brier_hi", "brier_hand",
    "brier_hand_lo", "brier_hand_hi", "brier_fair", "skill_score", "skill_lo", "skill_hi", "fit_games",
    "fit_positions", "fit_log_loss",
)  # fmt: skip
"""Columns of ``calibration.csv``: per cell and play, the held-out Brier score of the fitted
win-chance model, of the search's hand model and of the fair-share guess, each per position
with its interval grouped by game, and the model's skill over the hand model (``1 - brier /
brier_hand``, paired by game)."""


def calibration_rows(
    spec: AtlasSpec, cells: Mapping[CellKey, CellData], fits: Mapping[tuple[str, int, str], Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The calibration table (:data:`CALIBRATION_COLUMNS`)."""
    rows = []
    for variant, n in spec.cells():
        for play in PLAYS:
            kind = _play_kind(play)
            games = [
                cells[(variant.id, n, r)].traced.get(kind)
                for r in spec.replicas()
                if (variant.id, n, r) in cells
            ]
            if not games or any(g is None for g in games):
                continue
            g = {
                c: np.concatenate([x[c] for x in games if x is not None])
                for c in ("brier", "brier_hand", "brier_fair", "positions")
            }
            ok = np.isfinite(g["brier"]) & (g["positions"] > 0)
            sums = np.stack([g["brier"], g["brier_hand"], g["brier_fair"], g["positions"]], axis=1)[ok]
            model = grouped_function(sums[:, [0, 3]], _ratio)
            hand = grouped_function(sums[:, [1, 3]], _ratio)
            fair = grouped_function(sums[:, [2, 3]], _ratio)
            skill = grouped_function(sums[:, [0, 1]], lambda t: 1.0 - t[:, 0] / t[:, 1])
            fit = fits.get((variant.id, n, kind), {})
            rows.append(
                {
                    "variant": variant.id,
                    "players": n,
                    "play": play,
                    "positions": int(sums[:, 3].sum()),
                    "games": int(ok.sum()),
                    "brier": model.value,
                    "brier_lo": model.interval()[0],
                    "brier_hi": model.interval()[1],
                    "brier_hand": hand.value,
                    "brier_hand_lo": hand.interval()[0],
                    "brier_hand_hi": hand.interval()[1],
                    "brier_fair": fair.value,
                    "skill_score": skill.value,
                    "skill_lo": skill.interval()[0],
                    "skill_hi": skill.interval()[1],
                    "fit_games": fit.get("games", 0),
                    "fit_positions": fit.get("positions", 0),
                    "fit_log_loss": fit.get("log_loss", math.nan),
                }
            )
    return rows


def reliability_table(
    spec: AtlasSpec, cells: Mapping[CellKey, CellData], players: int, play: str
) -> np.ndarray:
    """The reliability table's sums (``(bins, 3)``: predictions, their sum, wins) over every
    cell of a player count (the coin flip left out)."""
    total = np.zeros((winprob.RELIABILITY_BINS, 3))
    kind = _play_kind(play)
    for (variant, n, _), cell in cells.items():
        if n == players and variant != COIN_FLIP and kind in cell.reliability:
            total += cell.reliability[kind]
    return total


# ================================================================ the family of effects
EFFECT_COLUMNS = (
    "variant", "kind", "base", "variation", "switches", "players", "play", "measure", "base_value", "value",
    "change", "p", "p_adjusted", "detected", "level", "lo", "hi", "rep_change", "rep_lo", "rep_hi", "rep_p",
    "rep_p_adjusted", "rep_detected", "replicated",
)  # fmt: skip
"""Columns of ``effects.csv``: one row per change against the base rules (primary deals);
``lo``/``hi`` its interval at the false-coverage level ``level``; ``rep_*`` the same change on
the fresh deals (95%) and whether it replicated (as in the study's ``effects.csv``)."""


def effect_rows(spec: AtlasSpec, cells: Mapping[CellKey, CellData]) -> list[dict[str, Any]]:
    """The family: every change of a :data:`FAMILY` measure against the base at the same
    player count, for every variant but the base and the coin flip, with Benjamini-Hochberg
    detection, false-coverage intervals and replication (:func:`training.study.stats.control_family`)."""
    out = []
    for variant, n in spec.cells():
        if variant.id == spec.base or variant.coin_flip or (spec.base, n, 0) not in cells:
            continue
        for name, play in FAMILY:
            measure = MEASURE_BY_NAME[name]
            est = change(spec, cells[(variant.id, n, 0)], cells[(spec.base, n, 0)], measure, play)
            if est is None or not math.isfinite(est.value):
                continue
            level = estimate(spec, [cells[(variant.id, n, 0)]], measure, play)
            base_level = estimate(spec, [cells[(spec.base, n, 0)]], measure, play)
            rep = None
            if spec.replicate and (variant.id, n, 1) in cells:
                rep = change(spec, cells[(variant.id, n, 1)], cells[(spec.base, n, 1)], measure, play)
            rep_lo, rep_hi = rep.interval() if rep is not None else (math.nan, math.nan)
            out.append(
                {
                    "variant": variant.id,
                    "kind": variant.kind,
                    "base": spec.base,
                    "variation": variant.variation,
                    "switches": variant.switches,
                    "players": n,
                    "play": play,
                    "measure": name,
                    "base_value": base_level.value if base_level is not None else math.nan,
                    "value": level.value if level is not None else math.nan,
                    "change": est.value,
                    "p": est.p_value(),
                    "se": est.se,
                    "df": est.df,
                    "rep_change": rep.value if rep is not None else math.nan,
                    "rep_lo": rep_lo,
                    "rep_hi": rep_hi,
                    "rep_p": rep.p_value() if rep is not None else math.nan,
                }
            )
    control_family(out, spec.replicate)
    for effect in out:
        del effect["se"], effect["df"]
    return [{key: e.get(key, math.nan) for key in EFFECT_COLUMNS} for e in out]


def is_finding(effect: Mapping[str, Any], replicate: bool) -> bool:
    """A finding: detected, and replicated on the fresh deals when the atlas replicates."""
    return bool(effect["detected"]) and (effect["replicated"] == "yes" or not replicate)


# ================================================================ strong against scripted play
AGREEMENT_COLUMNS = ("measure", "players", "pairs", "rho", "lo", "hi")
"""Columns of ``agreement.csv``: per measure defined for both plays (and player count, or
``0`` for all), Spearman's correlation of the rules' effects under scripted and strong play."""


def agreement_rows(spec: AtlasSpec, effects: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Rank correlations of the effects (changes against the base) under the two plays, over
    the variants that are rules (the A/A copy left out), per measure and over both counts."""
    rows = []
    both = [m.name for m in MEASURES if m.family and len(m.plays) == 2]
    for name in both:
        for players in (*spec.players, 0):
            pairs = _paired_effects(effects, name, players)
            if len(pairs) < 3:
                continue
            scripted = [s["change"] for s, _ in pairs]
            strong = [t["change"] for _, t in pairs]
            rho, lo, hi = rank_correlation(scripted, strong, LEVEL)
            rows.append(
                {"measure": name, "players": players, "pairs": len(pairs), "rho": rho, "lo": lo, "hi": hi}
            )
    return rows


def _paired_effects(
    effects: Sequence[Mapping[str, Any]], name: str, players: int
) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    by: dict[tuple[str, int, str], Mapping[str, Any]] = {}
    for e in effects:
        if e["measure"] == name and e["kind"] != "control" and (players == 0 or int(e["players"]) == players):
            by[(e["variant"], int(e["players"]), e["play"])] = e
    return [
        (by[(v, n, "scripted")], by[(v, n, "strong")])
        for (v, n, play) in by
        if play == "scripted" and (v, n, "strong") in by
    ]


def reversals(
    spec: AtlasSpec, effects: Sequence[Mapping[str, Any]]
) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """Every effect that is a finding under both plays with opposite signs: (scripted, strong)."""
    out = []
    for m in MEASURES:
        if not (m.family and len(m.plays) == 2):
            continue
        for scripted, strong in _paired_effects(effects, m.name, 0):
            if (
                is_finding(scripted, spec.replicate)
                and is_finding(strong, spec.replicate)
                and np.sign(scripted["change"]) != np.sign(strong["change"])
            ):
                out.append((scripted, strong))
    return out
