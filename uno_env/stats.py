"""Statistics of simulated games: intervals that match how the games were drawn.

Every rate or mean the project reports comes from one of two designs:

- **Independent games** (``uno-env simulate``, ``uno-env evaluate``): game ``j`` is dealt
  from its own seed, so games are independent draws. A rate gets the Wilson score interval
  (:func:`wilson_interval`); a mean the Student-t interval (:func:`mean_interval`).
- **Duplicate format** (the house-rules study, tournaments): every deal is replayed at many
  seatings, and in every rule variant of a study. Games of one deal share its cards, so they
  are not independent; the *deal* is the unit. :func:`grouped_ratio` takes per-deal totals
  and counts (wins and seat-games of a style in each deal, say) and returns the ratio
  estimate with a cluster-robust standard error (the CR1 sandwich: residuals summed within
  each deal, scaled by ``G / (G - 1)`` for ``G`` deals) and ``G - 1`` degrees of freedom.
  :func:`paired_difference` compares two cells that played the same deals (a rule variant
  against its base), deal by deal, so the correlation the shared deals induce is used rather
  than ignored.

Intervals of grouped estimates are Student-t intervals with ``G - 1`` degrees of freedom; a
grouped *proportion* gets the Wilson interval at its effective sample size
``p (1 - p) / se^2`` (the number of independent games that would give the same standard
error), which keeps it inside [0, 1] and sensible near 0 and 1; at 0 or 1, or from one deal, no
variance is measured and the effective sample size is the number of deals.

Rankings of agents (tournaments): :func:`plackett_luce` fits Plackett-Luce strengths to the
finishing orders by maximum likelihood, with a cluster-robust (sandwich) covariance whose
scores are summed within each deal, so the strengths' intervals also take the deal as the unit.

Smooth functions of per-deal totals (a standard deviation, a share of variance, a change of
either between two cells on the same deals): :func:`grouped_function` with the delete-one-deal
jackknife, whose standard error takes the deal as the unit like the sandwich above (for a ratio
the two agree as the deals grow). :func:`variance_split` splits duplicate outcomes into the
part the cards decide, the part the players decide and the rest. :func:`quantile_interval` is
the distribution-free interval of a quantile of independent values; :func:`rank_correlation`
Spearman's correlation with its Fisher-z interval.

Many comparisons: :func:`benjamini_hochberg` (false discovery rate) and :func:`holm`
(family-wise error) adjust p-values; :func:`fcr_level` gives the confidence level of the
Benjamini-Yekutieli false-coverage-rate intervals that go with Benjamini-Hochberg selection,
whose intervals exclude 0 exactly for the selected effects.

The Student-t distribution is computed here (regularized incomplete beta function by its
continued fraction) so that the base install needs no SciPy.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile."""
LEVEL = 0.95
"""The confidence level of every interval unless a caller asks for another."""
POINTS_RANGE = (0.0, math.inf)
"""The range of points per game: never negative, no upper end."""
GAME_LENGTH_RANGE = (1.0, math.inf)
"""The range of a game's length in decisions or in turns: every game has a first turn (a game
ends when a player lays a last card, or is truncated after at least 10 decisions, E-END-1);
there is no upper end."""

__all__ = [
    "GAME_LENGTH_RANGE",
    "LEVEL",
    "POINTS_RANGE",
    "Z95",
    "GroupedEstimate",
    "PlackettLuceFit",
    "VarianceSplit",
    "benjamini_hochberg",
    "bounded_mean_interval",
    "fcr_level",
    "grouped_function",
    "grouped_ratio",
    "holm",
    "mean_interval",
    "paired_difference",
    "plackett_luce",
    "quantile_interval",
    "rank_correlation",
    "t_cdf",
    "t_quantile",
    "variance_split",
    "wilson_interval",
]


# ================================================================ the t distribution
def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz evaluation)."""
    tiny = 1e-300
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 10_000):
        m2 = 2 * m
        # even step
        coef = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2))
        d = 1.0 + coef * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + coef / c
        c = c if abs(c) > tiny else tiny
        result *= d * c
        # odd step
        coef = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0))
        d = 1.0 + coef * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + coef / c
        c = c if abs(c) > tiny else tiny
        step = d * c
        result *= step
        if abs(step - 1.0) < 1e-15:
            break
    return result


def _regularized_beta(a: float, b: float, x: float) -> float:
    """``I_x(a, b)``, the regularized incomplete beta function, for ``0 <= x <= 1``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """``P(T <= t)`` for Student's t with ``df`` degrees of freedom (normal for infinite ``df``)."""
    if math.isinf(df):
        return NormalDist().cdf(t)
    if df <= 0:
        raise ValueError(f"degrees of freedom must be > 0, got {df}")
    tail = 0.5 * _regularized_beta(df / 2.0, 0.5, df / (df + t * t))  # P(T > |t|)
    return 1.0 - tail if t >= 0 else tail


def two_sided_p(t: float, df: float) -> float:
    """``P(|T| >= |t|)``; 1 for an undefined statistic (NaN: no evidence either way)."""
    if math.isnan(t):
        return 1.0
    if math.isinf(t):
        return 0.0
    if math.isinf(df):
        return 2.0 * NormalDist().cdf(-abs(t))
    return _regularized_beta(df / 2.0, 0.5, df / (df + t * t))


@functools.lru_cache(maxsize=4096)
def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (``0 < p < 1``)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a quantile needs 0 < p < 1, got {p}")
    z = NormalDist().inv_cdf(p)
    if math.isinf(df):
        return z
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    # bracket, then bisect on the exact CDF (the t quantile is at least the normal one)
    low, high = z, max(2.0 * z, 1.0)
    while t_cdf(high, df) < p:
        low, high = high, 2.0 * high
    for _ in range(200):
        mid = 0.5 * (low + high)
        if t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
        if high - low <= 1e-12 * max(1.0, high):
            break
    return 0.5 * (low + high)


def critical_value(level: float, df: float) -> float:
    """The two-sided critical value of a ``level`` interval with ``df`` degrees of freedom."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"a confidence level is in (0, 1), got {level}")
    return t_quantile(0.5 + level / 2.0, df)


# ================================================================ independent games
def wilson_interval(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default) from independent trials.

    ``trials`` may be an effective sample size (not an integer). No trials: ``(0, 1)``.
    ``successes`` must lie in ``0..trials`` and neither may be NaN (ValueError): a NaN used to
    give ``(0, 1)`` and 11 successes of 10 an interval, as if they were counts.
    """
    if math.isnan(successes) or math.isnan(trials):
        raise ValueError(f"wilson_interval needs numbers, got {successes} successes of {trials} trials")
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must lie in 0..trials, got {successes} of {trials}")
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p)) / trials + z * z / (4 * trials * trials)) / denom
    # the exact bounds are 0 at no success and 1 at all successes; clamp the rounding elsewhere
    low = 0.0 if p <= 0 else max(0.0, centre - half)
    high = 1.0 if p >= 1 else min(1.0, centre + half)
    return (low, high)


def mean_interval(values: np.ndarray | Sequence[float], level: float = LEVEL) -> tuple[float, float, float]:
    """Mean of independent ``values`` with its Student-t interval: ``(mean, low, high)``.

    NaN for no values; a single value gives a zero-width interval.
    """
    arr = np.asarray(values, dtype=np.float64)
    if arr.size == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(arr.mean())
    if arr.size == 1:
        return (mean, mean, mean)
    half = critical_value(level, arr.size - 1) * float(arr.std(ddof=1)) / math.sqrt(arr.size)
    return (mean, mean - half, mean + half)


def bounded_mean_interval(
    values: np.ndarray | Sequence[float], lower: float, upper: float, level: float = LEVEL
) -> tuple[float, float, float]:
    """:func:`mean_interval` of independent ``values`` that lie in ``[lower, upper]`` (a rank
    in 1..n): the Student-t interval kept inside the range, and where nothing varies (every
    value alike, or a single one) the Wilson interval of the rescaled mean, which holds for any
    variable in the range (none varies more than one at its two ends): ten first places in ten
    games give a mean rank of 1 with an upper end above 1, not ``[1, 1]``. A range with no
    upper end (points, game lengths) has no such interval: where nothing varies the interval
    is the whole range ``[lower, inf]`` (the limit of the Wilson interval as the upper end
    grows), never ``[x, x]``. No values, or a NaN among them: NaN throughout, as
    :func:`mean_interval` gives (not an interval beside an undefined mean)."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.size == 0:
        return (math.nan, math.nan, math.nan)
    mean, low, high = mean_interval(arr, level)
    if math.isnan(mean):
        return (math.nan, math.nan, math.nan)
    if high > low:  # something varies: the t interval, kept inside the range
        return (mean, max(lower, low), min(upper, high))
    low, high = _bounded_wilson(mean, lower, upper, float(arr.size), critical_value(level, math.inf))
    return (mean, low, high)


def _bounded_wilson(mean: float, lower: float, upper: float, n: float, z: float) -> tuple[float, float]:
    """The Wilson interval of ``mean`` rescaled from ``[lower, upper]`` to [0, 1], at ``n``.

    A range with no upper (or lower) end gives the whole range: nothing varied, so nothing in
    the data bounds how far the mean may lie (the Wilson interval's limit as the range grows).
    """
    width = upper - lower
    if width <= 0:
        return (mean, mean)  # a variable that cannot vary
    if not math.isfinite(width):
        return (lower, upper)
    p = min(1.0, max(0.0, (mean - lower) / width))
    low, high = wilson_interval(p * n, n, z)
    return (lower + low * width, lower + high * width)


# ================================================================ grouped by deal
@dataclass(frozen=True)
class GroupedEstimate:
    """A ratio or a difference estimated over groups (deals), with its cluster-robust error.

    ``value``: the estimate; ``se``: its standard error; ``groups``: the deals it rests on
    (the interval has ``groups - 1`` degrees of freedom); ``observations``: the games (or
    seat-games) it counts.
    """

    value: float
    se: float
    groups: int
    observations: float

    @property
    def df(self) -> float:
        """Degrees of freedom of the interval: ``groups - 1`` (infinite for a single group)."""
        return float(self.groups - 1) if self.groups > 1 else math.inf

    def interval(self, level: float = LEVEL) -> tuple[float, float]:
        """The Student-t interval ``value +- t * se``."""
        if math.isnan(self.value):
            return (math.nan, math.nan)
        half = critical_value(level, self.df) * self.se
        return (self.value - half, self.value + half)

    def proportion_interval(self, level: float = LEVEL) -> tuple[float, float]:
        """For a proportion: the Wilson interval at the effective sample size ``p(1-p)/se^2``.

        When the estimate sits at 0 or 1, or rests on one deal, there is no variance to measure
        how the games of a deal hang together, so the effective sample size is the number of
        deals (the worst case: every game of a deal alike; the design effect of ``m`` games per
        deal is at most ``m``). Counting the games instead took them as independent: an event
        the deal decides, never seen in 100 deals at 20 seatings, got an upper bound 20 times
        too tight.
        """
        p = self.value
        if math.isnan(p):
            return (math.nan, math.nan)
        variance = p * (1 - p)
        measured = self.se > 0 and variance > 0  # False for a NaN se (one deal)
        n_eff = variance / (self.se * self.se) if measured else float(min(self.groups, self.observations))
        return wilson_interval(p * n_eff, n_eff, critical_value(level, self.df))

    def bounded_interval(self, lower: float, upper: float, level: float = LEVEL) -> tuple[float, float]:
        """For a mean of values that lie in ``[lower, upper]`` (a rank in 1..n): the Student-t
        interval kept inside the range. When nothing varies between deals, or there is one deal,
        the standard error measures nothing, so the interval is the Wilson interval of the
        rescaled mean at the number of deals (as :meth:`proportion_interval` does; it holds for
        any variable in the range): 30 deals all won give a mean rank of 1 with an upper end
        above 1, not ``[1, 1]``. A range with no upper end (points per game, game lengths:
        :data:`POINTS_RANGE`, :data:`GAME_LENGTH_RANGE`) has no such interval: where nothing
        varies, or from one deal, the interval is the whole range ``[lower, inf]``, which says
        the data do not bound the mean, rather than the false certainty of ``[x, x]``."""
        if math.isnan(self.value):
            return (math.nan, math.nan)
        if self.se > 0:  # False for a NaN se (one deal)
            low, high = self.interval(level)
            return (max(lower, low), min(upper, high))
        n = float(min(self.groups, self.observations))
        return _bounded_wilson(self.value, lower, upper, n, critical_value(level, self.df))

    def p_value(self) -> float:
        """Two-sided p-value of ``value = 0`` (1 when nothing varies: identical results)."""
        if math.isnan(self.value):
            return 1.0
        if self.se == 0:
            return 1.0 if self.value == 0 else 0.0
        return two_sided_p(self.value / self.se, self.df)


def _as_groups(
    totals: np.ndarray | Sequence[float], counts: np.ndarray | Sequence[float] | float
) -> tuple[np.ndarray, np.ndarray]:
    y = np.asarray(totals, dtype=np.float64)
    m = np.broadcast_to(np.asarray(counts, dtype=np.float64), y.shape)
    if y.ndim != 1:
        raise ValueError(f"per-deal totals must be one-dimensional, got shape {y.shape}")
    return y, m


def grouped_ratio(
    totals: np.ndarray | Sequence[float], counts: np.ndarray | Sequence[float] | float
) -> GroupedEstimate:
    """``sum(totals) / sum(counts)`` over deals, with its cluster-robust (CR1) standard error.

    ``totals[d]`` is the sum of the outcome over the games of deal ``d`` (wins, decisions,
    points...), ``counts[d]`` how many games (or seat-games) it sums (a scalar when every
    deal has as many). Deals with a zero count are left out.
    """
    y, m = _as_groups(totals, counts)
    keep = m > 0
    y, m = y[keep], m[keep]
    total = float(m.sum())
    groups = int(y.size)
    if groups == 0 or total == 0:
        return GroupedEstimate(math.nan, math.nan, groups, total)
    ratio = float(y.sum()) / total
    if groups == 1:
        return GroupedEstimate(ratio, math.nan, 1, total)
    residual = (y - ratio * m) / total
    se = math.sqrt(groups / (groups - 1) * float(np.dot(residual, residual)))
    return GroupedEstimate(ratio, se, groups, total)


def paired_difference(
    totals: np.ndarray | Sequence[float],
    counts: np.ndarray | Sequence[float] | float,
    base_totals: np.ndarray | Sequence[float],
    base_counts: np.ndarray | Sequence[float] | float,
) -> GroupedEstimate:
    """The change of a ratio between two cells that played the same deals, paired by deal.

    Both cells give per-deal totals and counts over the same deals (index ``d`` is the same
    deal in both). The estimate is ``ratio - base_ratio``; its standard error comes from the
    per-deal linearized residuals of both ratios, subtracted deal by deal and summed
    (cluster-robust, CR1), so what the two cells share through their deals cancels.
    """
    y1, m1 = _as_groups(totals, counts)
    y0, m0 = _as_groups(base_totals, base_counts)
    if y1.shape != y0.shape:
        raise ValueError(f"paired cells need the same deals, got {y1.size} and {y0.size}")
    keep = (m1 > 0) & (m0 > 0)
    y1, m1, y0, m0 = y1[keep], m1[keep], y0[keep], m0[keep]
    groups = int(y1.size)
    t1, t0 = float(m1.sum()), float(m0.sum())
    if groups == 0:
        return GroupedEstimate(math.nan, math.nan, 0, 0.0)
    r1, r0 = float(y1.sum()) / t1, float(y0.sum()) / t0
    if groups == 1:
        return GroupedEstimate(r1 - r0, math.nan, 1, t1 + t0)
    residual = (y1 - r1 * m1) / t1 - (y0 - r0 * m0) / t0
    se = math.sqrt(groups / (groups - 1) * float(np.dot(residual, residual)))
    return GroupedEstimate(r1 - r0, se, groups, t1 + t0)


def grouped_function(
    sums: np.ndarray | Sequence[Sequence[float]], function: Callable[[np.ndarray], np.ndarray]
) -> GroupedEstimate:
    """A smooth function of per-deal totals with its delete-one-deal jackknife standard error.

    ``sums[d]`` holds deal ``d``'s totals (``(deals, k)``); ``function`` maps totals to the
    statistic and must accept a ``(m, k)`` array, returning ``m`` values (it is called once on
    the totals over every deal and once on the ``G`` totals that leave one deal out). The
    estimate is the function of all the totals; its standard error
    ``sqrt((G - 1) / G * sum((theta_(d) - mean)^2))`` treats the deal as the unit, as
    :func:`grouped_ratio` does (Student-t interval on ``G - 1`` degrees of freedom). A change
    between two cells on the same deals is one function of both cells' totals side by side,
    so it is paired by deal.
    """
    data = np.asarray(sums, dtype=np.float64)
    if data.ndim != 2:
        raise ValueError(f"per-deal totals must be (deals, k), got shape {data.shape}")
    groups = int(data.shape[0])
    if groups == 0:
        return GroupedEstimate(math.nan, math.nan, 0, 0.0)
    total = data.sum(axis=0)
    value = float(np.asarray(function(total[None, :]), dtype=np.float64).reshape(-1)[0])
    if groups == 1:
        return GroupedEstimate(value, math.nan, 1, 1.0)
    leave_one_out = np.asarray(function(total[None, :] - data), dtype=np.float64).reshape(-1)
    if leave_one_out.shape != (groups,):
        raise ValueError(f"function must return one value per row, got shape {leave_one_out.shape}")
    finite = leave_one_out[np.isfinite(leave_one_out)]
    if math.isnan(value) or finite.size < groups:
        return GroupedEstimate(value, math.nan, groups, float(groups))
    spread = float(np.sum((finite - finite.mean()) ** 2))
    return GroupedEstimate(value, math.sqrt((groups - 1) / groups * spread), groups, float(groups))


@dataclass(frozen=True)
class VarianceSplit:
    """Shares of the outcome variance of duplicate games (:func:`variance_split`), each with
    its jackknife error over the deals: ``deal`` (the cards: whoever holds them), ``player``
    (who plays them) and ``rest`` (how cards and players interact, and chance in the play:
    the players' own randomness). The three add up to 1."""

    deal: GroupedEstimate
    player: GroupedEstimate
    rest: GroupedEstimate


def variance_split_sums(winners: np.ndarray, seating: np.ndarray, players: int) -> np.ndarray:
    """Per-deal sufficient statistics of :func:`variance_split` (``(deals, 5 + 3 * players)``);
    the split is :func:`variance_split_shares` of their totals, so two cells' columns side by
    side give a change paired by deal (:func:`grouped_function`)."""
    winners = np.asarray(winners, dtype=np.int64)
    seating = np.asarray(seating, dtype=np.int64)
    if winners.ndim != 2 or seating.ndim != 2:
        raise ValueError(f"winners must be (deals, tables) and seating (tables, seats), got {winners.shape}")
    deals, tables = winners.shape
    n = seating.shape[1]
    if seating.shape[0] != tables:
        raise ValueError(f"seating has {seating.shape[0]} tables, the winners {tables}")
    if seating.min() < 0 or seating.max() >= players:
        raise ValueError(f"seating must name players 0..{players - 1}")
    counts = np.stack([np.bincount(seating[:, s], minlength=players) for s in range(n)])
    if not (counts == counts[:1]).all():
        raise ValueError(
            "the variance split needs a balanced design: every player in every seat equally often"
        )
    y = (winners[:, :, None] == np.arange(n)[None, None, :]).astype(np.float64)  # (deals, tables, seats)
    base = 1.0 / n
    cards = y.mean(axis=1) - base  # (deals, seats): what each seat's cards win, whoever holds them
    resid = y - base - cards[:, None, :]
    onehot = (seating[:, :, None] == np.arange(players)[None, None, :]).astype(np.float64)  # (t, s, p)
    out = np.zeros((deals, 5 + 3 * players))
    out[:, 0] = ((y - base) ** 2).sum(axis=(1, 2))  # the total sum of squares
    out[:, 1] = tables * (cards**2).sum(axis=1)  # the cards' sum of squares
    out[:, 2] = (resid**2).sum(axis=(1, 2))  # what the cards leave
    out[:, 3] = tables * n  # seat-games
    out[:, 4] = 1.0  # deals
    out[:, 5 : 5 + players] = np.einsum("dts,tsp->dp", resid, onehot)
    out[:, 5 + players : 5 + 2 * players] = np.einsum("dts,tsp->dp", y, onehot)
    out[:, 5 + 2 * players :] = onehot.sum(axis=(0, 1))[None, :]
    return out


def variance_split_shares(totals: np.ndarray, players: int, seats: int) -> np.ndarray:
    """The deal, player and rest shares (``(m, 3)``) from totals of :func:`variance_split_sums`
    (``(m, 5 + 3 * players)``); see :func:`variance_split`."""
    t = np.atleast_2d(np.asarray(totals, dtype=np.float64))
    total, ss_cards, left, obs, deals = t[:, 0], t[:, 1], t[:, 2], t[:, 3], t[:, 4]
    resid = t[:, 5 : 5 + players]
    wins = t[:, 5 + players : 5 + 2 * players]
    slots = t[:, 5 + 2 * players :]
    with np.errstate(invalid="ignore", divide="ignore"):
        tables = obs / (seats * deals)  # games of each deal
        effect = np.where(slots > 0, wins / np.where(slots > 0, slots, 1.0), 1.0 / seats) - 1.0 / seats
        ss_player = (slots * effect**2).sum(axis=1)
        ss_error = left - 2.0 * (effect * resid).sum(axis=1) + ss_player
        error = ss_error / (obs * (1.0 - 1.0 / tables))  # per seat-game, one mean per cards cell taken out
        deal = (ss_cards / obs - error / tables) / (total / obs)
        player = ss_player / total
    return np.stack([deal, player, 1.0 - deal - player], axis=1)


def variance_split(winners: np.ndarray, seating: np.ndarray, players: int) -> VarianceSplit:
    """How much of the outcome of duplicate games the deal decides, and how much the players.

    ``winners[d, t]``: the winning seat (-1: none) of deal ``d`` played at table ``t``, where
    ``seating[t, s]`` is the player (``0 .. players - 1``) at seat ``s``; the design must be
    balanced (every player in every seat equally often, every deal at every table), as the
    duplicate format is. Each seat's outcome (1 if it won) is split by an analysis of
    variance into the *cards* (deal ``d``, seat ``s``: what those cards win whoever holds them),
    the *player* (each player's edge over the fair share ``1/n``) and the *rest* (how cards
    and players interact, and chance in the play). The cards' variance is the method-of-moments
    component: the mean square of the cards' effects less the part the rest puts into it
    (``error / tables``), so a deal that decides nothing reads 0 however few tables it has.
    Shares of the total outcome variance, each with a delete-one-deal jackknife error.

    Outcomes fixed by the deal (a coin flip of the deal) read deal share 1, player share 0;
    outcomes fixed by the player read player share 1.
    """
    winners = np.asarray(winners, dtype=np.int64)
    seats = int(np.asarray(seating).shape[1])
    sums = variance_split_sums(winners, seating, players)

    def share(k: int) -> Callable[[np.ndarray], np.ndarray]:
        return lambda t: variance_split_shares(t, players, seats)[:, k]

    parts = [grouped_function(sums, share(k)) for k in range(3)]
    return VarianceSplit(*parts)


def quantile_interval(
    values: np.ndarray | Sequence[float], q: float, level: float = LEVEL
) -> tuple[float, float, float]:
    """The ``q`` quantile of independent ``values`` with its distribution-free interval:
    ``(quantile, low, high)``. The bounds are order statistics whose ranks come from the
    binomial distribution of the count below the quantile (normal approximation with a
    continuity correction), so the interval holds whatever the values' distribution."""
    if not 0.0 < q < 1.0:
        raise ValueError(f"a quantile needs 0 < q < 1, got {q}")
    x = np.sort(np.asarray(values, dtype=np.float64))
    n = x.size
    if n == 0:
        return (math.nan, math.nan, math.nan)
    point = float(np.quantile(x, q, method="inverted_cdf"))
    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    half = z * math.sqrt(n * q * (1.0 - q))
    low = math.floor(n * q - half - 0.5)
    high = math.ceil(n * q + half + 0.5)
    return (point, float(x[max(low, 0)]), float(x[min(high, n - 1)]))


def rank_correlation(
    x: np.ndarray | Sequence[float], y: np.ndarray | Sequence[float], level: float = LEVEL
) -> tuple[float, float, float]:
    """Spearman's rank correlation of paired values with its interval: ``(rho, low, high)``.

    Ties get average ranks. The interval is Fisher's z with the standard error
    ``sqrt((1 + rho^2 / 2) / (k - 3))`` of Bonett and Wright (2000) for ``k`` pairs; NaN
    bounds below 4 pairs.
    """
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"rank_correlation needs two equal-length vectors, got {a.shape} and {b.shape}")
    k = a.size
    if k < 2:
        return (math.nan, math.nan, math.nan)
    ra, rb = _ranks(a), _ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return (math.nan, math.nan, math.nan)
    rho = float(np.corrcoef(ra, rb)[0, 1])
    if k < 4:
        return (rho, math.nan, math.nan)
    z = math.atanh(max(-0.999999, min(0.999999, rho)))
    half = NormalDist().inv_cdf(0.5 + level / 2.0) * math.sqrt((1.0 + rho * rho / 2.0) / (k - 3))
    return (rho, math.tanh(z - half), math.tanh(z + half))


def _ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..k, ties averaged."""
    order = np.argsort(values, kind="stable")
    ranks = np.empty(values.size)
    ranks[order] = np.arange(1, values.size + 1)
    for value in np.unique(values):
        tied = values == value
        if tied.sum() > 1:
            ranks[tied] = ranks[tied].mean()
    return ranks


# ================================================================ rankings
@dataclass(frozen=True)
class PlackettLuceFit:
    """Plackett-Luce log-strengths with their cluster-robust covariance.

    ``strength[k]``: item ``k``'s log-strength, centred so the items average 0 (item ``a``
    finishes ahead of item ``b`` in a two-item game with probability
    ``1 / (1 + exp(strength[b] - strength[a]))``); ``covariance``: the CR1 sandwich
    covariance of ``strength``, scores summed within each group (deal); ``groups``: the groups
    with at least one ranked game (the intervals have ``groups - 1`` degrees of freedom);
    ``games``: the orders fitted.
    """

    strength: np.ndarray
    covariance: np.ndarray
    groups: int
    games: int

    def estimate(self, item: int) -> GroupedEstimate:
        """Item ``item``'s strength as a :class:`GroupedEstimate` (its interval, p-value...)."""
        return GroupedEstimate(
            float(self.strength[item]), math.sqrt(max(0.0, float(self.covariance[item, item]))),
            self.groups, float(self.games),
        )  # fmt: skip

    def difference(self, item: int, other: int) -> GroupedEstimate:
        """``strength[item] - strength[other]`` with its standard error."""
        c = self.covariance
        var = float(c[item, item] + c[other, other] - 2.0 * c[item, other])
        return GroupedEstimate(
            float(self.strength[item] - self.strength[other]), math.sqrt(max(0.0, var)),
            self.groups, float(self.games),
        )  # fmt: skip


def _plackett_luce_terms(
    orders: np.ndarray, weights: np.ndarray, theta: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """Weighted log-likelihood, the score of each order ``(orders, items)`` and the Hessian."""
    count, places = orders.shape
    items = theta.size
    rows = np.arange(count)
    loglik = 0.0
    scores = np.zeros((count, items))
    hessian = np.zeros((items, items))
    for k in range(places - 1):
        remaining = orders[:, k:]
        t = theta[remaining]
        top = t.max(axis=1, keepdims=True)
        w = np.exp(t - top)
        total = w.sum(axis=1, keepdims=True)
        loglik += float(weights @ (theta[orders[:, k]] - top[:, 0] - np.log(total[:, 0])))
        chance = np.zeros((count, items))  # each remaining item's chance to take place k
        for j in range(remaining.shape[1]):  # summed over an item's copies (a gauntlet's field)
            chance[rows, remaining[:, j]] += w[:, j] / total[:, 0]
        scores[rows, orders[:, k]] += 1.0
        scores -= chance
        hessian -= np.diag(weights @ chance) - chance.T @ (weights[:, None] * chance)
    return loglik, scores, hessian


def plackett_luce(
    orders: np.ndarray, groups: np.ndarray, items: int, *, ridge: float = 1e-4
) -> PlackettLuceFit:
    """Plackett-Luce strengths of ``items`` items from finishing orders, grouped for the errors.

    Args:
        orders: ``(games, places)`` item indices in finishing order, best first (leave
            unranked games out). An item may hold several places of a game (copies of one
            agent, as a gauntlet's field): each copy is one more entrant of that strength.
        groups: ``(games,)`` the group (deal) of each game: the unit of the standard errors.
        items: How many items there are (indices ``0 .. items - 1``).
        ridge: Weight of a weak penalty ``ridge / 2 * sum(strength^2)`` that keeps the
            estimate finite when an item wins or loses every game it plays (negligible
            otherwise: the log-likelihood grows with the number of games).

    Returns:
        The maximum (penalized) likelihood strengths, centred at 0, with the CR1 sandwich
        covariance ``G/(G-1) H^-1 B H^-1``: ``H`` the Hessian, ``B`` the sum over groups of
        the outer products of the groups' summed scores. The finishing orders of one deal
        are correlated (the same cards at every seating), so summing the scores within each
        deal first is what makes the interval match the duplicate design.
    """
    orders = np.asarray(orders, dtype=np.int64)
    groups = np.asarray(groups)
    if orders.ndim != 2 or orders.shape[1] < 2:
        raise ValueError(f"orders must be (games, places >= 2), got shape {orders.shape}")
    if groups.shape != (orders.shape[0],):
        raise ValueError(f"groups must give one group per game ({orders.shape[0]}), got shape {groups.shape}")
    if orders.size and (orders.min() < 0 or orders.max() >= items):
        raise ValueError(f"item indices must be in 0..{items - 1}")
    games = orders.shape[0]
    if games == 0 or items < 2:
        return PlackettLuceFit(np.full(items, math.nan), np.full((items, items), math.nan), 0, games)
    # the likelihood depends on the distinct orders and their counts only (at most
    # items!/(items-places)! of them), so the fit costs little however many games there are
    code = orders @ (items ** np.arange(orders.shape[1], dtype=np.int64))
    _, first, which, counts = np.unique(code, return_index=True, return_inverse=True, return_counts=True)
    distinct, weights = orders[first], counts.astype(np.float64)
    # the strengths are identified up to a common shift: fit in the sum-zero subspace
    basis = np.linalg.qr(np.eye(items) - 1.0 / items)[0][:, : items - 1]
    penalty = ridge * np.eye(items)
    beta = np.zeros(items - 1)
    for _ in range(100):
        theta = basis @ beta
        loglik, scores, hessian = _plackett_luce_terms(distinct, weights, theta)
        penalized = loglik - 0.5 * ridge * float(theta @ theta)
        step = np.linalg.solve(
            -basis.T @ (hessian - penalty) @ basis, basis.T @ (weights @ scores - ridge * theta)
        )
        scale = 1.0
        while scale > 1e-8:  # Newton with step halving: the penalized likelihood never falls
            trial = basis @ (beta + scale * step)
            value = _plackett_luce_terms(distinct, weights, trial)[0] - 0.5 * ridge * float(trial @ trial)
            if value >= penalized - 1e-12 * abs(penalized):
                break
            scale /= 2.0
        beta = beta + scale * step
        if float(np.abs(scale * step).max()) < 1e-10:
            break
    theta = basis @ beta
    _, scores, hessian = _plackett_luce_terms(distinct, weights, theta)
    _, group_index = np.unique(groups, return_inverse=True)
    clusters = int(group_index.max()) + 1
    if clusters < 2:
        return PlackettLuceFit(theta, np.full((items, items), math.nan), clusters, games)
    order = np.argsort(group_index, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(group_index[order]) != 0])
    summed = np.add.reduceat(scores[which[order]], starts, axis=0)  # each deal's summed scores
    meat = basis.T @ (summed.T @ summed) @ basis
    bread = np.linalg.inv(-basis.T @ (hessian - penalty) @ basis)
    covariance = clusters / (clusters - 1) * basis @ bread @ meat @ bread @ basis.T
    return PlackettLuceFit(theta, covariance, clusters, games)


# ================================================================ many comparisons
def _p_values(p_values: Sequence[float] | np.ndarray, caller: str) -> np.ndarray:
    """``p_values`` as a float vector, checked to lie in [0, 1] (no NaN)."""
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"{caller} needs a vector of p-values, got shape {p.shape}")
    bad = np.flatnonzero(~((p >= 0.0) & (p <= 1.0)))  # NaN fails both comparisons
    if bad.size:
        raise ValueError(
            f"{caller}: p-values must lie in [0, 1], got {p[bad[0]]!r} at position {int(bad[0])} "
            f"({bad.size} of {p.size} outside); leave untested effects out of the family"
        )
    return p


def benjamini_hochberg(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (step-up; reject where adjusted <= q for FDR q).

    Every p-value must lie in [0, 1]: a NaN is refused (ValueError) rather than adjusted, since
    the step-up carries it into every other adjusted value and nothing would be detected.
    """
    p = _p_values(p_values, "benjamini_hochberg")
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    ranked = p[order] * m / np.arange(1, m + 1)
    adjusted = np.minimum.accumulate(ranked[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def holm(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm adjusted p-values (step-down; reject where adjusted <= alpha for FWER alpha).

    Every p-value must lie in [0, 1] (ValueError otherwise, a NaN included)."""
    p = _p_values(p_values, "holm")
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    ranked = p[order] * (m - np.arange(m))
    adjusted = np.maximum.accumulate(ranked)
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def fcr_level(selected: int, tests: int, q: float = 1 - LEVEL) -> float:
    """Confidence level of the false-coverage-rate intervals after selecting ``selected`` of
    ``tests`` effects by Benjamini-Hochberg at ``q``: ``1 - selected * q / tests``.

    With nothing selected it is ``1 - q / tests`` (the Bonferroni level). At this level an
    effect's interval excludes 0 exactly when Benjamini-Hochberg selects it.
    """
    if tests <= 0:
        return 1 - q
    return 1 - max(selected, 1) * q / tests
