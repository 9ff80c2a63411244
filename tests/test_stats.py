"""The estimators of :mod:`uno_env.stats`: t distribution, grouped and paired estimates, functions of
per-deal totals (jackknife, the variance split), quantile and rank-correlation intervals, error control."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from uno_env.stats import (
    GAME_LENGTH_RANGE,
    POINTS_RANGE,
    benjamini_hochberg,
    bounded_mean_interval,
    critical_value,
    fcr_level,
    grouped_function,
    grouped_ratio,
    holm,
    mean_interval,
    paired_difference,
    plackett_luce,
    quantile_interval,
    rank_correlation,
    t_cdf,
    t_quantile,
    two_sided_p,
    variance_split,
    wilson_interval,
)


@pytest.mark.parametrize(
    ("df", "quantile"),
    [(1, 12.7062047), (2, 4.3026527), (10, 2.2281389), (30, 2.0422725), (120, 1.9799304)],
)
def test_t_quantiles_match_the_tables(df: int, quantile: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(quantile, abs=1e-6)
    assert t_quantile(0.025, df) == pytest.approx(-quantile, abs=1e-6)
    assert two_sided_p(quantile, df) == pytest.approx(0.05, abs=1e-7)


def test_t_tends_to_the_normal_and_is_symmetric() -> None:
    assert t_quantile(0.975, 10**7) == pytest.approx(1.959964, abs=1e-5)
    assert t_quantile(0.975, math.inf) == pytest.approx(1.959964, abs=1e-6)
    for t in (-3.0, -0.5, 0.0, 1.2, 4.0):
        assert t_cdf(t, 7) + t_cdf(-t, 7) == pytest.approx(1.0)
    assert two_sided_p(0.0, 5) == 1.0 and two_sided_p(math.nan, 5) == 1.0


def test_wilson_interval_is_exact_at_the_ends() -> None:
    assert wilson_interval(0, 50) == (0.0, pytest.approx(0.0714, abs=1e-4))
    assert wilson_interval(50, 50)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(("successes", "trials"), [(math.nan, 10), (5, math.nan), (11, 10), (-1, 10)])
def test_wilson_interval_refuses_what_is_no_count(successes: float, trials: float) -> None:
    # a NaN gave (0, 1) and 11 successes of 10 an interval below 1, as if they were counts
    with pytest.raises(ValueError, match=r"wilson_interval needs numbers|successes must lie in 0\.\.trials"):
        wilson_interval(successes, trials)


def test_a_bounded_mean_of_a_nan_has_no_interval() -> None:
    # the NaN mean came with a finite interval, [1, 1.66], from the Wilson branch
    for bounds in ((1, 2), POINTS_RANGE):
        assert all(math.isnan(x) for x in bounded_mean_interval([1.0, math.nan], *bounds))


def test_mean_interval_uses_student_t() -> None:
    mean, _lo, hi = mean_interval([1.0, 2.0, 3.0])
    assert mean == 2.0
    assert hi - mean == pytest.approx(t_quantile(0.975, 2) * 1.0 / math.sqrt(3))
    assert all(math.isnan(x) for x in mean_interval([]))


def test_grouped_ratio_with_one_game_per_deal_is_the_plain_mean() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(10, 3, size=400)
    est = grouped_ratio(x, 1)
    assert est.value == pytest.approx(x.mean())
    assert est.se == pytest.approx(x.std(ddof=1) / math.sqrt(x.size))
    assert est.groups == 400 and est.df == 399


def test_grouped_ratio_sees_deals_that_decide_the_games() -> None:
    """Four replays of each deal with the same winner: the information is the deals', not the games'."""
    rng = np.random.default_rng(2)
    deal_wins = rng.integers(0, 2, size=300).astype(float)
    est = grouped_ratio(4 * deal_wins, 4)
    naive_se = math.sqrt(est.value * (1 - est.value) / 1200)
    assert est.se == pytest.approx(2 * naive_se, rel=0.01)  # design effect 4: se doubles
    lo, hi = est.proportion_interval()
    assert 0 <= lo < est.value < hi <= 1


def test_plackett_luce_with_two_items_is_the_logistic_estimate() -> None:
    """Two items, 300 wins in 1,000 games, each its own deal: the log-odds and its standard error."""
    orders = np.array([[0, 1]] * 300 + [[1, 0]] * 700)
    fit = plackett_luce(orders, np.arange(1000), 2, ridge=0.0)
    diff = fit.difference(0, 1)
    assert diff.value == pytest.approx(math.log(300 / 700))
    assert diff.se == pytest.approx(math.sqrt(1000 / 999 / (1000 * 0.3 * 0.7)))
    assert fit.strength.sum() == pytest.approx(0.0, abs=1e-12) and fit.groups == 1000


def test_plackett_luce_recovers_strengths_and_groups_replayed_deals() -> None:
    """Four items, three places: the known strengths come back, and the same orders replayed six
    times per deal give the same estimate with standard errors sqrt(6) times those of games
    taken as independent."""
    rng = np.random.default_rng(4)
    truth = np.array([0.6, 0.1, -0.3, -0.4])
    items = np.argsort(rng.random((6000, 4)), axis=1)[:, :3]  # three random items per game
    noisy = truth[items] + rng.gumbel(size=items.shape)  # Gumbel race: Plackett-Luce orders
    orders = np.take_along_axis(items, np.argsort(-noisy, axis=1), axis=1)
    fit = plackett_luce(orders, np.arange(6000), 4)
    se = np.sqrt(np.diag(fit.covariance))
    assert np.all(np.abs(fit.strength - truth) < 4 * se)
    replayed = plackett_luce(np.repeat(orders, 6, axis=0), np.repeat(np.arange(6000), 6), 4)
    naive = plackett_luce(np.repeat(orders, 6, axis=0), np.arange(36000), 4)
    assert replayed.strength == pytest.approx(fit.strength)
    ratio = np.sqrt(np.diag(replayed.covariance) / np.diag(naive.covariance))
    # CR1 factors G / (G - 1): 6000 deals against 36000 games
    assert ratio == pytest.approx(math.sqrt(6 * (6000 / 5999) * (35999 / 36000)), rel=1e-9)
    lo, hi = replayed.estimate(0).interval()
    assert lo < replayed.strength[0] < hi and replayed.estimate(0).df == 5999


def test_plackett_luce_counts_every_copy_of_a_gauntlets_field() -> None:
    """A gauntlet: agents 0 and 1 each race three copies of the field (item 2), never each
    other. Every copy is an entrant: the known strengths come back (a fit that counted the
    copies as one entrant stayed at 0)."""
    rng = np.random.default_rng(11)
    truth = np.array([0.5, -0.3, 0.0])
    agent = np.repeat([0, 1], 4000)
    entrants = np.stack([agent, *[np.full(8000, 2)] * 3], axis=1)
    noisy = truth[entrants] + rng.gumbel(size=entrants.shape)
    orders = np.take_along_axis(entrants, np.argsort(-noisy, axis=1), axis=1)
    fit = plackett_luce(orders, np.arange(8000), 3)
    for item in (0, 1):
        diff = fit.difference(item, 2)
        assert abs(diff.value - truth[item]) < 4 * diff.se and diff.se < 0.05


def test_plackett_luce_intervals_grouped_by_deal_cover_a_symmetric_strength() -> None:
    """200 small duplicate tournaments of four equal items: each deal favours some items (the
    same for its six replays), so the true strength of every item is 0 by symmetry. The 95%
    interval grouped by deal covers it at least 93% of the time; taking the games as
    independent covers it far less often (the check can fail)."""
    rng = np.random.default_rng(7)
    studies, deals, replays = 200, 60, 6
    covered = naive_covered = 0
    for _ in range(studies):
        race = rng.normal(0.0, 0.7, size=(deals, 1, 4)) + rng.gumbel(size=(deals, replays, 4))
        orders = np.argsort(-race, axis=2).reshape(deals * replays, 4)
        lo, hi = plackett_luce(orders, np.repeat(np.arange(deals), replays), 4).estimate(0).interval()
        covered += lo <= 0.0 <= hi
        lo, hi = plackett_luce(orders, np.arange(deals * replays), 4).estimate(0).interval()
        naive_covered += lo <= 0.0 <= hi
    assert covered / studies >= 0.93, covered
    assert naive_covered / studies < 0.88, naive_covered


def test_plackett_luce_stays_finite_and_refuses_bad_orders() -> None:
    fit = plackett_luce(np.array([[0, 1]] * 10), np.arange(10), 2)  # item 0 always wins
    assert np.all(np.isfinite(fit.strength)) and fit.strength[0] > 2
    with pytest.raises(ValueError, match="item indices"):
        plackett_luce(np.array([[0, 2]]), np.array([0]), 2)
    with pytest.raises(ValueError, match="one group per game"):
        plackett_luce(np.array([[0, 1]]), np.array([0, 1]), 2)


def test_grouped_proportion_interval_at_the_ends() -> None:
    est = grouped_ratio(np.zeros(20), 4)
    assert est.value == 0 and est.proportion_interval()[0] == 0.0
    # 20 deals of 4 games: the bound of 20 independent trials (80 gave 0.052, taking the games
    # of a deal as independent)
    assert est.proportion_interval()[1] == pytest.approx(wilson_interval(0, 20, critical_value(0.95, 19))[1])


def test_paired_difference_of_identical_cells_is_zero_and_not_detected() -> None:
    y = np.arange(50, dtype=float) % 3
    est = paired_difference(y, 2, y, 2)
    assert est.value == 0 and est.se == 0 and est.p_value() == 1.0
    assert est.interval() == (0.0, 0.0)


def test_pairing_removes_the_shared_deal_noise() -> None:
    rng = np.random.default_rng(3)
    luck = rng.normal(0, 5, size=500)  # what a deal does to both cells
    a = luck + rng.normal(0.3, 1, size=500)
    b = luck + rng.normal(0.0, 1, size=500)
    paired = paired_difference(a, 1, b, 1)
    unpaired_se = math.hypot(grouped_ratio(a, 1).se, grouped_ratio(b, 1).se)
    assert paired.se < unpaired_se / 3
    assert paired.value == pytest.approx(a.mean() - b.mean())
    assert paired.p_value() < 1e-4
    with pytest.raises(ValueError, match="same deals"):
        paired_difference(a, 1, b[:10], 1)


def test_benjamini_hochberg_and_holm_adjustments() -> None:
    p = [0.01, 0.04, 0.03, 0.2]
    assert benjamini_hochberg(p) == pytest.approx([0.04, 0.0533333, 0.0533333, 0.2])
    assert holm(p) == pytest.approx([0.04, 0.09, 0.09, 0.2])
    assert benjamini_hochberg([]).size == 0


@pytest.mark.parametrize("adjust", [benjamini_hochberg, holm])
@pytest.mark.parametrize("bad", [math.nan, -0.1, 1.5])
def test_multiplicity_adjustments_refuse_p_values_outside_0_1(adjust: Any, bad: float) -> None:
    # a NaN made every Benjamini-Hochberg adjusted value NaN (nothing detected), silently
    with pytest.raises(ValueError, match=r"p-values must lie in \[0, 1\].*position 1"):
        adjust([0.001, bad, 0.04])


def test_fcr_intervals_exclude_zero_exactly_for_the_selected_effects() -> None:
    rng = np.random.default_rng(4)
    effects = np.concatenate([np.zeros(60), rng.normal(0, 3, size=40)])
    se = np.ones(100)
    estimates = effects + rng.normal(size=100)
    df = 200.0
    p = np.array([two_sided_p(e / s, df) for e, s in zip(estimates, se, strict=True)])
    detected = benjamini_hochberg(p) <= 0.05
    level = fcr_level(int(detected.sum()), p.size)
    half = critical_value(level, df) * se
    excludes = (estimates - half > 0) | (estimates + half < 0)
    assert 0 < detected.sum() < 100
    assert (excludes == detected).all()


# ================================================================ functions of per-deal totals
def test_grouped_function_of_a_ratio_agrees_with_the_sandwich() -> None:
    rng = np.random.default_rng(4)
    wins = rng.integers(0, 6, 300).astype(float)
    games = rng.integers(4, 7, 300).astype(float)
    sandwich = grouped_ratio(wins, games)
    jackknife = grouped_function(np.stack([wins, games], axis=1), lambda t: t[:, 0] / t[:, 1])
    assert jackknife.value == pytest.approx(sandwich.value)
    assert jackknife.se == pytest.approx(sandwich.se, rel=0.02)
    assert jackknife.groups == 300


def test_the_variance_split_of_coin_flips_skill_and_noise() -> None:
    """Outcomes fixed by the deal read deal share 1; fixed by the player, player share 1;
    independent of both, the deal share's interval covers 0 (the method of moments removes the
    noise that the cards' mean square carries)."""
    rng = np.random.default_rng(5)
    deals = 500
    seating = np.array([[0, 1, 1, 1], [1, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0]])  # a focal player alone
    coin = np.repeat(rng.integers(0, 4, deals)[:, None], 4, axis=1)
    split = variance_split(coin, seating, 2)
    assert split.deal.value == pytest.approx(1.0) and split.player.value == pytest.approx(0.0)
    skill = np.tile(np.arange(4), (deals, 1))  # the focal player wins wherever it sits
    split = variance_split(skill, seating, 2)
    assert split.player.value == pytest.approx(1.0) and split.deal.value == pytest.approx(0.0)
    noise = rng.integers(0, 4, (deals, 4))
    split = variance_split(noise, seating, 2)
    lo, hi = split.deal.interval()
    assert lo < 0 < hi and hi < 0.05
    assert split.deal.value + split.player.value + split.rest.value == pytest.approx(1.0)
    with pytest.raises(ValueError, match="balanced design"):
        variance_split(noise[:, :3], seating[:3], 2)


def test_the_variance_split_sees_cards_that_decide_half_the_games() -> None:
    """Half the deals are won by a fixed seat whoever holds it, the rest at random: the cards'
    share is about half the variance of a seat's outcome."""
    rng = np.random.default_rng(6)
    deals = 2000
    seating = np.array([[0, 1], [1, 0]])
    decided = rng.random(deals) < 0.5
    fixed = rng.integers(0, 2, deals)
    winners = np.where(decided[:, None], fixed[:, None], rng.integers(0, 2, (deals, 2)))
    split = variance_split(winners, seating, 2)
    lo, hi = split.deal.interval()
    assert lo < 0.5 < hi


def test_quantile_intervals_cover_the_true_quantile() -> None:
    rng = np.random.default_rng(7)
    truth = float(np.quantile(rng.exponential(size=2_000_000), 0.9))
    covered = 0
    for _ in range(400):
        _, lo, hi = quantile_interval(rng.exponential(size=200), 0.9)
        covered += lo <= truth <= hi
    assert 0.92 <= covered / 400 <= 0.99


def test_rank_correlation() -> None:
    rho, lo, hi = rank_correlation([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, 5])
    assert rho == pytest.approx(1 - 6 * 6 / (6 * 35))
    assert lo < rho < hi
    assert rank_correlation([1, 2, 3, 4], [4, 3, 2, 1])[0] == pytest.approx(-1.0)
    assert math.isnan(rank_correlation([1, 1, 1, 1], [1, 2, 3, 4])[0])


def test_a_grouped_proportion_at_0_or_1_counts_deals_not_games() -> None:
    """A rate that sits at 0% or 100% shows no variance to measure how the games of a deal hang
    together, so its interval must not take the games as independent: 30 deals replayed at two
    seatings, won every time, is evidence from 30 deals (the upper bound of a rate at 0 is the
    Wilson bound at 30, not at 60). A single deal gives a finite interval holding the estimate."""
    est = grouped_ratio(np.full(30, 2.0), 2)
    lo, hi = est.proportion_interval()
    z = critical_value(0.95, 29)
    assert hi == 1.0 and lo == pytest.approx(wilson_interval(30, 30, z)[0])
    none = grouped_ratio(np.zeros(30), 2).proportion_interval()
    assert none == (0.0, pytest.approx(wilson_interval(0, 30, z)[1]))
    for totals in ([3.0], [0.0], [6.0]):
        single = grouped_ratio(totals, 6)
        lo, hi = single.proportion_interval()
        assert 0.0 <= lo <= single.value <= hi <= 1.0 and hi - lo >= 0.5


def test_grouped_proportion_interval_covers_a_rare_deal_level_event() -> None:
    """Coverage by simulation: an event the deal decides (every replay of a deal alike) with
    probability 2% over 100 deals at 20 seatings; 2,000 replicated experiments. A third of them
    see no event at all, and an interval that took those 2,000 games as independent missed 2%
    in every one of them."""
    rng = np.random.default_rng(7)
    covered = 0
    for _ in range(2000):
        est = grouped_ratio(20.0 * (rng.random(100) < 0.02), 20)
        lo, hi = est.proportion_interval()
        covered += lo <= 0.02 <= hi
    assert covered / 2000 >= 0.93


def test_a_bounded_mean_that_never_varies_keeps_an_interval() -> None:
    """A mean rank (values in 1..4) from 30 deals all won, or all lost: the standard error is 0,
    which measures nothing, so the interval is the Wilson interval of the rescaled mean at the
    number of deals; it was [1, 1]. With variation: the t interval, kept inside the range."""
    won = grouped_ratio(np.full(30, 4.0), 4)  # four seat-games per deal, each ranked first
    low, high = won.bounded_interval(1, 4)
    assert (won.value, low) == (1.0, 1.0)
    t29 = critical_value(0.95, 29)  # the deals' degrees of freedom, as proportion_interval
    assert high == pytest.approx(1 + 3 * wilson_interval(0, 30, t29)[1]) and high > 1.3
    lost = grouped_ratio(np.full(30, 16.0), 4)
    assert lost.bounded_interval(1, 4) == (pytest.approx(1 + 3 * wilson_interval(30, 30, t29)[0]), 4.0)
    one_deal = grouped_ratio([4.0], [4])
    assert one_deal.bounded_interval(1, 4)[1] == pytest.approx(1 + 3 * wilson_interval(0, 1)[1])
    varied = grouped_ratio([4.0, 5.0, 4.0, 8.0, 4.0, 4.0], 4)
    low, high = varied.bounded_interval(1, 4)
    assert low == 1.0 and high == pytest.approx(varied.interval()[1])  # the t interval, clipped at 1
    mean, low, high = bounded_mean_interval(np.ones(10), 1, 2)
    assert (mean, low) == (1.0, 1.0) and high == pytest.approx(1 + wilson_interval(0, 10)[1])
    assert bounded_mean_interval([1.0, 2.0, 2.0], 1, 2)[1:] == pytest.approx(
        (max(1.0, mean_interval([1.0, 2.0, 2.0])[1]), min(2.0, mean_interval([1.0, 2.0, 2.0])[2]))
    )


def test_points_intervals_stay_at_or_above_zero() -> None:
    """Points per game are never negative: a t interval reaching below 0 (few deals, one big
    win) is cut at 0, its upper end kept."""
    few = grouped_ratio([0.0, 0.0, 0.0, 90.0], 2)
    assert few.interval()[0] < 0
    assert few.bounded_interval(*POINTS_RANGE) == (0.0, few.interval()[1])
    values = [0.0, 0.0, 0.0, 120.0]
    assert bounded_mean_interval(values, *POINTS_RANGE) == (30.0, 0.0, mean_interval(values)[2])


def test_game_length_intervals_stay_at_or_above_one() -> None:
    """A game lasts at least one decision and one turn: a t interval of the mean length that
    reaches below 1 (two deals, one of them long) is cut at 1, its upper end kept; it reached
    below 0 before."""
    assert (1.0, math.inf) == GAME_LENGTH_RANGE
    two_deals = grouped_ratio([2.0, 120.0], 2)  # deal 0: two one-turn games; deal 1: 60 turns each
    assert two_deals.interval()[0] < 0
    assert two_deals.bounded_interval(*GAME_LENGTH_RANGE) == (1.0, two_deals.interval()[1])
    lengths = [1.0, 1.0, 1.0, 90.0]
    mean, low, high = bounded_mean_interval(lengths, *GAME_LENGTH_RANGE)
    assert mean_interval(lengths)[1] < 1
    assert (mean, low, high) == (23.25, 1.0, mean_interval(lengths)[2])


def test_an_unbounded_mean_that_never_varies_spans_its_range() -> None:
    """Points and game lengths have no upper end, so where nothing varies (every game scoring
    0 points, every game of the same length, or a single deal or game) no interval can be
    measured: it is the whole range [lower, inf], the Wilson interval's limit as the upper end
    grows. It was the zero-width [x, x], a false certainty (or NaN for lengths of one deal)."""
    assert grouped_ratio([0.0, 0.0], 2).bounded_interval(*POINTS_RANGE) == (0.0, math.inf)
    assert grouped_ratio([40.0, 40.0, 40.0], 2).bounded_interval(*POINTS_RANGE) == (0.0, math.inf)
    one_deal = grouped_ratio([77.0], [3])  # three games of one deal: the deals' spread is unknown
    assert one_deal.bounded_interval(*GAME_LENGTH_RANGE) == (1.0, math.inf)
    assert one_deal.bounded_interval(*POINTS_RANGE) == (0.0, math.inf)
    assert bounded_mean_interval(np.zeros(50), *POINTS_RANGE) == (0.0, 0.0, math.inf)
    assert bounded_mean_interval([31.0], *GAME_LENGTH_RANGE) == (31.0, 1.0, math.inf)
    assert bounded_mean_interval(np.full(8, 12.0), *GAME_LENGTH_RANGE) == (12.0, 1.0, math.inf)
    # the limit: a large finite upper end gives nearly the same interval
    big = grouped_ratio([0.0, 0.0], 2).bounded_interval(0.0, 1e9)
    assert big[0] == 0.0 and big[1] > 1e8
    # a range of one value cannot vary: its mean is known exactly
    assert grouped_ratio([2.0, 2.0], 2).bounded_interval(1.0, 1.0) == (1.0, 1.0)
