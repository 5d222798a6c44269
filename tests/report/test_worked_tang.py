"""Worked study 3 (SYNTHETIC): a Tang-style three-step study.

Two models (``gpt-4o``, ``qwen``) each write 14 七绝 and 8 human poems stand beside them.
Step 1: a rule rater (``prosody:modern``) scores each poem's structure (0/1). Step 2: the
same two models, as judges, rate every poem on prosody and imagery (1–5) — each a little
kinder to its own poems and hardly punishing broken form. Step 3: three experts (group
``experts``) rate every poem, punishing broken form. The report must give the pairwise
kappa among the experts, the mean rating per generator with CIs, the echo chamber
(judges' gap vs the experts' on machine-written poems and on all) and self-preference,
and the judges' correlation with the experts per generator. Expected values: pandas,
scipy, statsmodels, scikit-learn.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.weightstats import DescrStatsW

from scoring.report import ReportSettings, build_report
from tests.agreement.hall_reference import reference_interval
from tests.report.factory import Builder
from tests.report.worked import SYNTHETIC, one, pick, store

pytestmark = pytest.mark.django_db
GENERATORS = ("gpt-4o", "qwen")
EXPERTS = ("e1", "e2", "e3")
DIMENSIONS = [
    {"key": "prosody", "label": "韵律格律", "min": 1, "max": 5},
    {"key": "imagery", "label": "意象结构", "min": 1, "max": 5},
]
SCALE = [1, 2, 3, 4, 5]


def tang_frame() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(618)
    items, rows = [], []
    poems = [(g, i) for g in GENERATORS for i in range(14)] + [("human", i) for i in range(8)]
    for n, (source, i) in enumerate(poems):
        item = f"tang-{n:02d}"
        passes = int(i % 2 == 0) if source != "human" else int(i != 3)
        quality = rng.uniform(2.5, 4.0)
        items.append({"item": item, "source": source, "structural": passes})
        rows.append(
            {"rater": "prosody:modern", "item": item, "field": "structural", "value": passes}
        )
        for dim in ("prosody", "imagery"):
            penalty = (1.6 if dim == "prosody" else 0.6) * (1 - passes)
            for e in EXPERTS:
                value = quality - penalty + rng.normal(0, 0.5)
                rows.append(
                    {
                        "rater": e,
                        "item": item,
                        "field": dim,
                        "value": int(np.clip(round(value), 1, 5)),
                    }
                )
            for judge in GENERATORS:
                own = 0.8 if judge == source else 0.0
                value = quality + 0.5 - 0.2 * (1 - passes) + own + rng.normal(0, 0.4)
                rows.append(
                    {
                        "rater": judge,
                        "item": item,
                        "field": dim,
                        "value": int(np.clip(round(value), 1, 5)),
                    }
                )
    return pd.DataFrame(items), pd.DataFrame(rows)


@pytest.fixture
def tang(db) -> tuple[Builder, pd.DataFrame, pd.DataFrame]:
    return build_tang()


def build_tang() -> tuple[Builder, pd.DataFrame, pd.DataFrame]:
    """The worked study stored in the database (also the browser test's study)."""
    items, responses = tang_frame()
    b = Builder("tang-worked", description=SYNTHETIC)
    b.group("experts")
    b.task("tang", "rating", dimensions=DIMENSIONS)
    for r in items.itertuples(index=False):
        source = "human" if r.source == "human" else f"model:{r.source}"
        b.item(
            r.item, "tang", poem_text="（合成的七绝）", poem_form="shi:jueju7", poem_source=source
        )
    for e in EXPERTS:
        b.human(e, "experts")
    for g in GENERATORS:
        b.model(g)
    b.rule("prosody:modern")
    store(b, responses)
    return b, items, responses


def wide(responses: pd.DataFrame, dim: str) -> pd.DataFrame:
    part = responses[responses.field == dim]
    return part.pivot(index="item", columns="rater", values="value")


def test_tang_pairwise_kappa_among_the_three_experts(tang) -> None:
    b, _items, responses = tang
    rows = build_report(b.study, ReportSettings(n_boot=200)).tables["pairwise"]
    for dim in ("prosody", "imagery"):
        ratings = wide(responses, dim)
        mine = pick(rows, field=dim, set_a="group:experts", set_b=None)
        for weights in ("none", "linear", "quadratic"):
            sk = None if weights == "none" else weights
            kappas = {
                (a, c): cohen_kappa_score(ratings[a], ratings[c], labels=SCALE, weights=sk)
                for a, c in combinations(EXPERTS, 2)
            }
            for (a, c), kappa in kappas.items():
                row = one(
                    mine,
                    summary="pair",
                    rater_a=a,
                    rater_b=c,
                    metric="cohen_kappa",
                    weights=weights,
                )
                assert row["value"] == pytest.approx(kappa) and row["n"] == 36
                assert row["ci_low"] <= row["value"] <= row["ci_high"]
            mean = one(mine, summary="mean", metric="cohen_kappa", weights=weights)
            values = list(kappas.values())
            assert mean["value"] == pytest.approx(np.mean(values)) and mean["n_pairs"] == 3
            assert (mean["min"], mean["max"]) == (
                pytest.approx(min(values)),
                pytest.approx(max(values)),
            )
            assert mean["ci_low"] <= mean["value"] <= mean["ci_high"]
        agreement = one(mine, summary="mean", metric="percent_agreement")
        shares = [(ratings[a] == ratings[c]).mean() for a, c in combinations(EXPERTS, 2)]
        assert agreement["value"] == pytest.approx(np.mean(shares))
    # experts against each judge, as sets: every expert × the judge
    between = pick(
        rows,
        field="prosody",
        set_a="group:experts",
        set_b="model:qwen",
        summary="pair",
        metric="cohen_kappa",
        weights="quadratic",
    )
    assert {(r["rater_a"], r["rater_b"]) for r in between} == {(e, "qwen") for e in EXPERTS}


@pytest.mark.slow
def test_tang_mean_rating_per_generator_with_t_intervals(tang) -> None:
    b, items, responses = tang
    opts = ReportSettings(n_boot=0, by=("source",), ratings_ci="t")
    rows = build_report(b.study, opts).tables["ratings"]
    rated = responses[responses.rater.isin([*EXPERTS, *GENERATORS])].merge(items, on="item")
    rated["set"] = np.where(rated.rater.isin(EXPERTS), "group:experts", "models")
    for (rater_set, source, dim), cell in rated.groupby(["set", "source", "field"]):
        item_means = cell.groupby("item").value.mean()
        low, high = DescrStatsW(item_means.to_numpy()).tconfint_mean(alpha=0.05)
        row = one(rows, rater_set=rater_set, source=source, field=dim)
        assert row["mean"] == pytest.approx(item_means.mean())
        assert row["sd"] == pytest.approx(item_means.std(ddof=1))
        assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low), pytest.approx(high))
        assert (row["n_items"], row["n_ratings"]) == (len(item_means), len(cell))
        assert row["ci_method"] == "t over item means"


def test_tang_echo_chamber_on_machine_poems_and_on_all(tang) -> None:
    b, items, responses = tang
    rows = build_report(b.study, ReportSettings(n_boot=500)).tables["echo_chamber"]
    for poems in ("machine", "all"):
        chosen = items if poems == "all" else items[items.source != "human"]
        ratings = responses[responses.field == "prosody"].merge(chosen, on="item")
        judges = ratings[ratings.rater.isin(GENERATORS)].groupby("item").value.mean()
        people = ratings[ratings.rater.isin(EXPERTS)].groupby("item").value.mean()
        passing = chosen.set_index("item").structural

        def gap(means: pd.Series, passing: pd.Series = passing) -> float:
            ok = passing[means.index] == 1
            return means[ok].mean() - means[~ok].mean()

        row = one(
            rows,
            field="prosody",
            rule="rule:prosody:modern/structural",
            poems=poems,
            judges="models",
            people="group:experts",
        )
        assert (row["n_pass"], row["n_fail"]) == (
            int((passing == 1).sum()),
            int((passing == 0).sum()),
        )
        assert row["judges_gap"] == pytest.approx(gap(judges))
        assert row["people_gap"] == pytest.approx(gap(people))
        assert row["difference"] == pytest.approx(gap(judges) - gap(people))
        assert row["estimable"] and row["reason"] is None
        assert row["ci_low"] <= row["difference"] <= row["ci_high"] < 0  # the echo chamber
        # Welch's t over the per-poem judge − people means of the two sides, corrected
        # for skewness: recomputed with scipy (tests/agreement/hall_reference.py)
        d = (judges - people).dropna()
        ok = passing[d.index] == 1
        low, high = reference_interval(d[ok].to_numpy(), d[~ok].to_numpy())
        assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low), pytest.approx(high))
        assert row["ci_method"] == "Welch's t, skewness-corrected (Hall 1992)"
    assert (
        one(
            rows,
            field="prosody",
            poems="machine",
            judges="models",
            people="group:experts",
            rule="rule:prosody:modern/structural",
        )["n_fail"]
        == 14
    )


@pytest.mark.slow
def test_tang_echo_chamber_is_not_estimable_below_the_minimum_side(tang) -> None:
    b, _items, _responses = tang
    rows = build_report(b.study, ReportSettings(n_boot=100, min_side=16)).tables["echo_chamber"]
    # on all 36 poems 15 fail: fewer than a minimum of 16
    everything = one(rows, field="prosody", poems="all", judges="models", people="group:experts")
    assert (everything["n_fail"], everything["estimable"]) == (15, False)
    assert everything["reason"] == "not estimable: fewer than 16 poems on a side (n_fail = 15)"
    # among the 8 human poems only one fails: below the default minimum (4); the table's
    # own poems = human rows (a --by source split leaves echo_chamber whole)
    humans_only = build_report(b.study, ReportSettings(n_boot=100)).tables["echo_chamber"]
    row = one(
        humans_only,
        field="prosody",
        poems="human",
        judges="models",
        people="group:experts",
    )
    assert (row["n_pass"], row["n_fail"], row["estimable"]) == (7, 1, False)
    assert row["ci_low"] is None or row["ci_low"] != row["ci_low"]
    assert row["reason"] == "not estimable: fewer than 4 poems on a side (n_fail = 1)"


def test_tang_self_preference(tang) -> None:
    b, items, responses = tang
    rows = build_report(b.study, ReportSettings(n_boot=300)).tables["self_preference"]
    for judge in GENERATORS:
        for dim in ("prosody", "imagery"):
            mine = responses[(responses.rater == judge) & (responses.field == dim)].merge(
                items, on="item"
            )
            own = mine[mine.source == judge].value.mean()
            other = mine[(mine.source != judge) & (mine.source != "human")].value.mean()
            row = one(rows, judge=f"model:{judge}", field=dim)
            assert (row["model"], row["n_own"], row["n_other"]) == (judge, 14, 14)
            assert (row["mean_own"], row["mean_other"]) == (
                pytest.approx(own),
                pytest.approx(other),
            )
            assert row["diff"] == pytest.approx(own - other)
            assert row["diff"] > 0  # each prefers its own poems, as made
            assert row["ci_low"] <= row["diff"] <= row["ci_high"]
            # Controlled for quality: minus the other judges' rating of the same poem.
            rated = responses[responses.field == dim]
            others = rated[rated.rater.isin([g for g in GENERATORS if g != judge])]
            control = others.groupby(["rater", "item"]).value.mean().groupby("item").mean()
            j = mine.groupby("item").value.mean()
            source = items.set_index("item").source
            gap = (j - control).dropna()
            own_gap = gap[source[gap.index] == judge]
            other_gap = gap[(source[gap.index] != judge) & (source[gap.index] != "human")]
            # 14 poems a side: the skewness correction is 0 and the interval Welch's
            want = stats.ttest_ind(own_gap, other_gap, equal_var=False).confidence_interval()
            assert row["ci_method"] == "Welch's t, skewness-corrected (Hall 1992)"
            assert row["controlled_diff"] == pytest.approx(own_gap.mean() - other_gap.mean())
            assert (row["controlled_ci_low"], row["controlled_ci_high"]) == (
                pytest.approx(want.low),
                pytest.approx(want.high),
            )
            j_own, j_other = (
                j[source[j.index] == judge],
                j[(source[j.index] != judge) & (source[j.index] != "human")],
            )
            c = control.reindex(j.index)
            assert row["others_diff"] == pytest.approx(
                c[j_own.index].mean() - c[j_other.index].mean()
            )
            assert row["controlled_diff"] == pytest.approx(row["diff"] - row["others_diff"])


def test_tang_judges_against_the_experts_per_generator(tang) -> None:
    b, items, responses = tang
    rows = build_report(b.study, ReportSettings(n_boot=0)).tables["validation"]
    ratings = responses[responses.field == "prosody"].merge(items, on="item")
    for generator in ("*", *GENERATORS, "human"):
        part = ratings if generator == "*" else ratings[ratings.source == generator]
        judge = part[part.rater == "qwen"].groupby("item").value.mean()
        experts = part[part.rater.isin(EXPERTS)].groupby("item").value.mean()
        where = {
            "judge": "model:qwen",
            "reference": "group:experts mean",
            "field": "prosody",
            "generator": generator,
        }
        pearson = stats.pearsonr(judge, experts[judge.index])
        got = {r["metric"]: r for r in pick(rows, **where)}
        assert got["pearson"]["value"] == pytest.approx(pearson.statistic)
        ci = pearson.confidence_interval(0.95)
        assert (got["pearson"]["ci_low"], got["pearson"]["ci_high"]) == (
            pytest.approx(ci.low),
            pytest.approx(ci.high),
        )
        assert got["spearman"]["value"] == pytest.approx(
            stats.spearmanr(judge, experts[judge.index]).statistic
        )
        assert got["kendall"]["value"] == pytest.approx(
            stats.kendalltau(judge, experts[judge.index]).statistic
        )
        assert got["mean_diff"]["value"] == pytest.approx((judge - experts[judge.index]).mean())
        assert got["pearson"]["n"] == len(judge)


def test_tang_judge_vs_judge_and_rule_vs_judge_correlations(tang) -> None:
    b, items, responses = tang
    rows = build_report(b.study, ReportSettings(n_boot=0)).tables["correlation"]
    prosody = wide(responses, "prosody")
    judges = one(rows, field="prosody", a="model:qwen", b="model:gpt-4o")
    assert judges["pearson"] == pytest.approx(
        stats.pearsonr(prosody["qwen"], prosody["gpt-4o"]).statistic
    )
    rule = one(rows, field="prosody", a="rule:prosody:modern/structural", b="model:qwen")
    structural = items.set_index("item").structural[prosody.index]
    assert rule["spearman"] == pytest.approx(stats.spearmanr(structural, prosody["qwen"]).statistic)
    assert rule["n"] == 36
