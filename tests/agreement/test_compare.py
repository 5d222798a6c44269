"""Paired comparisons against independent references: statsmodels' McNemar and
multiple-testing adjustments, and a paired bootstrap written here."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from scoring.agreement.compare import (
    benjamini_hochberg,
    cohens_h,
    holm,
    mcnemar_exact,
    paired_bootstrap,
)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mcnemar_exact_equals_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = (rng.random(60) < 0.7).astype(float)
    b = np.where(rng.random(60) < 0.8, a, 1 - a)
    b[:5] = 0
    ours = mcnemar_exact(a, b)
    table = [[((a == 1) & (b == 1)).sum(), ((a == 1) & (b == 0)).sum()],
             [((a == 0) & (b == 1)).sum(), ((a == 0) & (b == 0)).sum()]]  # fmt: skip
    assert ours.p_value == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)
    assert (ours.n10, ours.n01) == (table[0][1], table[1][0])


def test_holm_and_bh_equal_statsmodels_multipletests() -> None:
    p = np.array([0.001, 0.04, 0.03, 0.2, 0.0105, 0.5, 0.049, np.nan])
    ok = np.isfinite(p)
    want_holm = multipletests(p[ok], method="holm")[1]
    want_bh = multipletests(p[ok], method="fdr_bh")[1]
    assert holm(p)[ok] == pytest.approx(want_holm, rel=1e-12)
    assert benjamini_hochberg(p)[ok] == pytest.approx(want_bh, rel=1e-12)
    assert np.isnan(holm(p)[-1]) and np.isnan(benjamini_hochberg(p)[-1])


def test_cohens_h_equals_statsmodels_proportion_effectsize() -> None:
    from statsmodels.stats.proportion import proportion_effectsize

    for p1, p2 in ((0.65, 0.45), (0.9, 0.5), (0.1, 0.3)):
        assert cohens_h(p1, p2) == pytest.approx(proportion_effectsize(p1, p2), rel=1e-12)


def test_paired_bootstrap_matches_a_hand_rolled_paired_bootstrap() -> None:
    """Two models on 80 shared items: resampling items (each with both answers)."""
    rng = np.random.default_rng(4)
    ease = rng.normal(0, 1.2, 80)
    a = (rng.random(80) < 1 / (1 + np.exp(-(ease + 0.5)))).astype(float)
    b = (rng.random(80) < 1 / (1 + np.exp(-ease))).astype(float)
    values = np.r_[a, b]
    items = np.r_[np.arange(80), np.arange(80)]
    side = np.r_[np.zeros(80), np.ones(80)]
    people = np.r_[np.zeros(80), np.ones(80)]
    ours = paired_bootstrap(values, items, people, side, n_boot=4000, seed=1)
    hand_rng = np.random.default_rng(99)
    draws = hand_rng.integers(0, 80, (4000, 80))
    reps = a[draws].mean(axis=1) - b[draws].mean(axis=1)
    assert ours.diff == pytest.approx(a.mean() - b.mean())
    assert ours.se == pytest.approx(reps.std(ddof=1), rel=0.08)
    low, high = np.quantile(reps, [0.025, 0.975])
    assert ours.ci_low == pytest.approx(low, abs=0.02)
    assert ours.ci_high == pytest.approx(high, abs=0.02)


def test_a_group_side_resamples_its_people_too() -> None:
    """A model against 10 people who differ a lot: resampling people widens the
    interval beyond the item-only bootstrap."""
    rng = np.random.default_rng(6)
    skill = rng.normal(0, 1.5, 10)
    people = np.repeat(np.arange(10), 20)
    items = np.tile(np.arange(20), 10)
    group = (rng.random(200) < 1 / (1 + np.exp(-skill[people]))).astype(float)
    model = (rng.random(20) < 0.6).astype(float)
    values = np.r_[model, group]
    item_codes = np.r_[np.arange(20), items]
    who = np.r_[np.full(20, 100), people]
    side = np.r_[np.zeros(20), np.ones(200)]
    both = paired_bootstrap(values, item_codes, who, side, n_boot=2000, seed=0)
    flat = paired_bootstrap(values, item_codes, np.zeros(220), side, n_boot=2000, seed=0)
    assert both.se > flat.se
    assert both.value_b == pytest.approx(group.mean())
