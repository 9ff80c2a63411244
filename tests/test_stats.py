"""The estimators of :mod:`uno_env.stats`: t distribution, grouped and paired estimates, error control."""

from __future__ import annotations

import math

import numpy as np
import pytest

from uno_env.stats import (
    benjamini_hochberg,
    critical_value,
    fcr_level,
    grouped_ratio,
    holm,
    mean_interval,
    paired_difference,
    t_cdf,
    t_quantile,
    two_sided_p,
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


def test_grouped_proportion_interval_at_the_ends() -> None:
    est = grouped_ratio(np.zeros(20), 4)
    assert est.value == 0 and est.proportion_interval()[0] == 0.0
    assert 0 < est.proportion_interval()[1] < 0.1


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
