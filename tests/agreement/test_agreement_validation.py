"""The pure estimators behind validation, pairwise, echo_chamber and form_length, checked
against scikit-learn, scipy and statsmodels on random data (not against themselves)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn import metrics
from statsmodels.stats.proportion import proportion_confint

from scoring.agreement.classify import classification, classifications, measures
from scoring.agreement.coding import IntArray
from scoring.agreement.gaps import gap_difference, gap_differences, not_estimable
from scoring.agreement.paired import fisher_interval, paired_estimates


@pytest.mark.parametrize("k", [2, 3, 5])
def test_classification_matches_scikit_learn(k: int) -> None:
    rng = np.random.default_rng(k)
    gold = rng.integers(0, k, 300)
    judge = np.where(rng.random(300) < 0.7, gold, rng.integers(0, k, 300))
    items = np.arange(300)
    result = classification(judge, gold, items, n_options=k, positive=1 if k == 2 else None)
    value = {e.metric: e.value for e in result.estimates}
    assert value["accuracy"] == pytest.approx(metrics.accuracy_score(gold, judge))
    assert value["cohen_kappa"] == pytest.approx(metrics.cohen_kappa_score(judge, gold))
    assert value["phi"] == pytest.approx(metrics.matthews_corrcoef(gold, judge))
    if k == 2:
        kw = {"pos_label": 1, "average": "binary"}
        # phi is Pearson's r of the 0/1 labels
        assert value["phi"] == pytest.approx(stats.pearsonr(gold, judge).statistic)
    else:
        kw = {"average": "macro", "zero_division": np.nan}
    assert value["precision"] == pytest.approx(metrics.precision_score(gold, judge, **kw))
    assert value["recall"] == pytest.approx(metrics.recall_score(gold, judge, **kw))
    assert value["f1"] == pytest.approx(metrics.f1_score(gold, judge, **kw))
    low, high = proportion_confint(int((gold == judge).sum()), 300, alpha=0.05, method="wilson")
    accuracy = result.get("accuracy")
    assert (accuracy.ci_low, accuracy.ci_high, accuracy.ci_method) == (
        pytest.approx(low),
        pytest.approx(high),
        "wilson",
    )


def test_macro_averages_leave_out_a_class_the_judge_never_used() -> None:
    gold = np.array([0, 1, 2, 2, 1, 0])
    judge = np.array([0, 1, 1, 1, 1, 0])  # never says 2: its precision is 0/0
    result = classification(judge, gold, np.arange(6), n_options=3)
    expected = metrics.precision_score(gold, judge, average="macro", zero_division=np.nan)
    assert result.get("precision").value == pytest.approx(expected) == pytest.approx(0.75)


def test_the_item_bootstrap_resamples_items_with_all_their_labels() -> None:
    # Two judges' labels per item: a replicate draws items, so both labels come along.
    gold = np.repeat(np.array([0, 1] * 20), 2)
    judge = gold.copy()
    judge[::7] = 1 - judge[::7]
    items = np.repeat(np.arange(40), 2)
    a = classification(judge, gold, items, n_options=2, n_boot=300, seed=1)
    b = classification(judge, gold, items, n_options=2, n_boot=300, seed=1)
    kappa = a.get("cohen_kappa")
    assert kappa.ci_low < kappa.value < kappa.ci_high and a == b
    assert a.n == 80 and a.n_items == 40
    stack = np.array([[[3, 1], [2, 4]], [[5, 0], [0, 5]]], dtype=float)
    assert measures(stack, 0)["accuracy"].tolist() == [0.7, 1.0]


def test_fisher_intervals_match_scipy_and_the_published_standard_errors() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=40)
    y = x + rng.normal(size=40)
    n, estimates = paired_estimates(x.tolist(), y.tolist())
    pearson = next(e for e in estimates if e.metric == "pearson")
    ci = stats.pearsonr(x, y).confidence_interval(0.95)  # scipy: Fisher z
    assert (pearson.ci_low, pearson.ci_high) == (pytest.approx(ci.low), pytest.approx(ci.high))
    rho = stats.spearmanr(x, y).statistic
    half = stats.norm.ppf(0.975) * math.sqrt(1.06 / (n - 3))
    assert fisher_interval(rho, n, "spearman", 0.95) == (
        pytest.approx(math.tanh(math.atanh(rho) - half)),
        pytest.approx(math.tanh(math.atanh(rho) + half)),
    )
    diff = next(e for e in estimates if e.metric == "mean_diff")
    t = stats.ttest_rel(x, y).confidence_interval(0.95)
    assert (diff.value, diff.ci_low, diff.ci_high) == (
        pytest.approx(float((x - y).mean())),
        pytest.approx(t.low),
        pytest.approx(t.high),
    )


def test_the_gap_difference_and_its_minimum_side() -> None:
    judge_pass, people_pass = [4.0, 4.5, 5.0, 4.0, 4.5], [4.0, 4.5, 4.0, 5.0, 4.5]
    judge_fail, people_fail = [4.0, 4.5, 4.0, 3.5, 4.5], [2.0, 1.5, 2.5, 2.0, 1.0]
    g = gap_difference(judge_pass, people_pass, judge_fail, people_fail, n_boot=500, seed=0)
    assert g.judge_gap == pytest.approx(0.3) and g.people_gap == pytest.approx(2.6)
    assert g.difference == pytest.approx(-2.3) and g.estimable
    assert g.difference_ci[0] < -2.3 < g.difference_ci[1] < 0
    one = gap_difference(judge_pass, people_pass, [3.0], [1.0], n_boot=500, seed=0)
    assert one.difference == pytest.approx((4.4 - 3.0) - (4.4 - 1.0))
    assert math.isnan(one.difference_ci[0]) and not one.estimable
    assert one.reason == not_estimable(5, 1, 4)
    assert one.reason == "not estimable: fewer than 4 poems on a side (n_fail = 1)"
    # the default minimum is 4 poems a side (docs/statistics.md §24.2): 3 failing poems
    # give no interval, 4 give one
    three = gap_difference(judge_pass, people_pass, judge_fail[:3], people_fail[:3], method="welch")
    assert three.reason == "not estimable: fewer than 4 poems on a side (n_fail = 3)"
    four = gap_difference(judge_pass, people_pass, judge_fail[:4], people_fail[:4], method="welch")
    four_want = stats.ttest_ind(
        np.subtract(judge_pass, people_pass),
        np.subtract(judge_fail[:4], people_fail[:4]),
        equal_var=False,
    ).confidence_interval(0.95)
    assert four.estimable
    assert four.difference_ci == (pytest.approx(four_want.low), pytest.approx(four_want.high))
    welch = gap_difference(
        judge_pass, people_pass, judge_fail, people_fail, method="welch"
    )  # per poem judge − people: Welch over the two sides
    d_pass = np.subtract(judge_pass, people_pass)
    d_fail = np.subtract(judge_fail, people_fail)
    want = stats.ttest_ind(d_pass, d_fail, equal_var=False).confidence_interval(0.95)
    assert welch.difference_ci == (pytest.approx(want.low), pytest.approx(want.high))
    assert welch.difference == pytest.approx(-2.3)


def test_gap_differences_share_draws_and_equal_one_call_per_pair() -> None:
    """Several (judge, people) pairs on the same poems in one call give exactly each
    pair's own ``gap_difference`` (same seed: the same bootstrap draws)."""
    rng = np.random.default_rng(3)
    passing = rng.uniform(1, 5, size=(12, 6))
    failing = rng.uniform(1, 5, size=(9, 6))
    together = gap_differences(passing, failing, n_boot=300, seed=11)
    for k, g in enumerate(together):
        a, b = 2 * k, 2 * k + 1
        alone = gap_difference(
            passing[:, a].tolist(),
            passing[:, b].tolist(),
            failing[:, a].tolist(),
            failing[:, b].tolist(),
            n_boot=300,
            seed=11,
        )
        assert g == alone
    few = gap_differences(passing[:2], failing, n_boot=300, seed=11)
    assert all(not g.estimable and math.isnan(g.difference_ci[0]) for g in few)


def test_classifications_share_draws_and_equal_one_call_per_case() -> None:
    """Judges on the same items share bootstrap draws; each result is exactly its own
    ``classification`` (resampled tables are sums of whole counts), including a judge on
    other items and a judge with no labels."""
    rng = np.random.default_rng(5)
    items = np.repeat(np.arange(30), 3)
    gold = rng.integers(0, 3, size=items.size)
    cases: list[tuple[IntArray, IntArray, IntArray]] = [
        (rng.integers(0, 3, size=items.size), gold, items) for _ in range(3)
    ]
    cases.append((rng.integers(0, 3, size=20), gold[:20], items[:20]))  # other items
    cases.append(
        (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    )
    together = classifications(cases, n_options=3, n_boot=200, seed=9)
    for case, got in zip(cases, together, strict=True):
        alone = classification(*case, n_options=3, n_boot=200, seed=9)
        assert got == alone or (got.n == alone.n == 0)
    assert together[0].estimates != together[1].estimates


def test_welch_difference_equals_statsmodels_unequal_variance_interval() -> None:
    from statsmodels.stats.weightstats import CompareMeans, DescrStatsW

    from scoring.agreement.gaps import welch_difference

    rng = np.random.default_rng(8)
    a, b = rng.normal(3.2, 0.4, 4), rng.normal(2.5, 1.3, 9)
    w = welch_difference(a, b, confidence=0.9)
    low, high = CompareMeans(DescrStatsW(a), DescrStatsW(b)).tconfint_diff(
        alpha=0.1, usevar="unequal"
    )
    assert (w.ci_low, w.ci_high) == (pytest.approx(low), pytest.approx(high))
    assert w.diff == pytest.approx(a.mean() - b.mean())
    short = welch_difference(a[:3], b)
    assert math.isnan(short.ci_low) and "fewer than 4" in (short.reason or "")
    flat = welch_difference([4.0, 4.0, 4.0, 4.0], [2.0, 2.0, 2.0, 2.0])
    assert math.isnan(flat.ci_low) and "no variation" in (flat.reason or "")


def test_welch_for_several_pairs_at_once_equals_scipy_column_by_column() -> None:
    rng = np.random.default_rng(21)
    passing, failing = rng.normal(3, 1, (7, 6)), rng.normal(2.5, 0.6, (4, 6))
    failing[:, 4] = 2.0  # a constant column on one side only: still estimable
    found = gap_differences(passing, failing, method="welch")
    for j, g in enumerate(found):
        a, b = 2 * j, 2 * j + 1
        for got, (x, y) in (
            (g.judge_ci, (passing[:, a], failing[:, a])),
            (g.people_ci, (passing[:, b], failing[:, b])),
            (g.difference_ci, (passing[:, a] - passing[:, b], failing[:, a] - failing[:, b])),
        ):
            want = stats.ttest_ind(x, y, equal_var=False).confidence_interval(0.95)
            assert got == (pytest.approx(want.low), pytest.approx(want.high))
        assert g.reason is None
    flat = gap_differences(np.full((4, 2), 4.0), np.full((4, 2), 2.0), method="welch")[0]
    assert math.isnan(flat.difference_ci[0]) and "no variation" in (flat.reason or "")
