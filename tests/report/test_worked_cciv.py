"""Worked study 2 (SYNTHETIC): a CCiV-style generation benchmark.

Three models write ci in five cipai under two prompt conditions (``direct``,
``form_aware``), three samples each; ten human poems beside them. A stored rule rater
(``ccv``, as the CCiV rule rater would store it: ``structural_standard`` and
``structural_variant`` 0/1, ``tonal_standard`` and ``tonal_variant`` shares) scores every
poem, and three LLM judges rate informativeness and aesthetic 1–5. The report must give
CCiV's Table 2 (rule rates per model × condition), the per-cipai table of one condition,
the judges' quality per generating model (mean ± 1.96 SE), the Spearman correlation of
per-cipai accuracy with the cipai's length, and a published figure beside the computed
one. Expected values: pandas, scipy, statsmodels.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint
from statsmodels.stats.weightstats import DescrStatsW

from annotation.models import AggregateResult
from scoring.report import ReportSettings, build_report
from tests.report.factory import Builder
from tests.report.worked import SYNTHETIC, one, pick, store

pytestmark = pytest.mark.django_db
MODELS = ("gen-a", "gen-b", "gen-c")
CONDITIONS = ("direct", "form_aware")
# cipai and their standard lengths (characters): 33, 42, 44, 46, 95
CIPAI = {"如梦令": 33, "浣溪沙": 42, "菩萨蛮": 44, "清平乐": 46, "水调歌头": 95}
JUDGES = ("judge-1", "judge-2", "judge-3")
DIMENSIONS = [
    {"key": "informativeness", "label": "信息量", "min": 1, "max": 5},
    {"key": "aesthetic", "label": "审美", "min": 1, "max": 5},
]
METRICS = ("structural_standard", "structural_variant", "tonal_standard", "tonal_variant")


def cciv_frame() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(7)
    items, rows = [], []
    poems: list[tuple[str, str | None, str, int | None]] = [
        (m, c, cipai, s) for m in MODELS for c in CONDITIONS for cipai in CIPAI for s in range(3)
    ]
    poems += [("human", None, list(CIPAI)[i % 5], None) for i in range(10)]
    for n, (model, cond, cipai, sample) in enumerate(poems):
        item = f"poem-{n:03d}"
        skill = {"gen-a": 0.8, "gen-b": 0.55, "gen-c": 0.3, "human": 0.9}[model]
        skill += 0.1 if cond == "form_aware" else 0.0
        skill -= (CIPAI[cipai] - 33) / 150  # longer forms are harder
        standard = int(rng.random() < skill)
        variant = max(standard, int(rng.random() < skill + 0.15))
        tonal_standard = round(float(rng.uniform(0.5, 1.0)), 3) if standard else 0.0
        tonal_variant = max(
            tonal_standard, round(float(rng.uniform(0.5, 1.0)), 3) if variant else 0.0
        )
        items.append(
            {"item": item, "model": model, "condition": cond, "cipai": cipai, "sample": sample}
        )
        for metric, value in zip(
            METRICS, (standard, variant, tonal_standard, tonal_variant), strict=True
        ):
            rows.append({"rater": "ccv", "item": item, "field": metric, "value": value})
        for j, judge in enumerate(JUDGES):
            for d in ("informativeness", "aesthetic"):
                base = 2 + 2 * skill + 0.3 * j + rng.normal(0, 0.7)
                rows.append(
                    {
                        "rater": judge,
                        "item": item,
                        "field": d,
                        "value": int(np.clip(round(base), 1, 5)),
                    }
                )
    return pd.DataFrame(items), pd.DataFrame(rows)


@pytest.fixture
def cciv(db) -> tuple[Builder, pd.DataFrame, pd.DataFrame]:
    return build_cciv()


def build_cciv() -> tuple[Builder, pd.DataFrame, pd.DataFrame]:
    """The worked study stored in the database (also the browser test's study)."""
    items, responses = cciv_frame()
    b = Builder("cciv-worked", description=SYNTHETIC)
    b.task("ci", "rating", dimensions=DIMENSIONS)
    for r in items.itertuples(index=False):
        generated = r.model != "human"  # human poems have no condition and no sample
        b.item(
            r.item,
            "ci",
            poem_text="（合成的词）",
            poem_form=f"ci:{r.cipai}",
            poem_source=f"model:{r.model}" if generated else "human",
            poem_condition=r.condition if generated else "",
            meta={"model": r.model, "run": r.condition, "sample": int(r.sample)}
            if generated
            else {},
        )
    b.rule("ccv")
    for judge in JUDGES:
        b.model(judge)
    store(b, responses)
    AggregateResult.objects.create(
        study=b.study,
        model="gen-a",
        task="CCiV:浣溪沙",
        metric="structural_standard_accuracy",
        value=0.5,
        n=3,
        run="direct",
        source="synthetic published table",
    )
    AggregateResult.objects.create(
        study=b.study, model="gen-z", task="CiG", metric="structural_accuracy", value=0.4
    )
    return b, items, responses


def scores(items: pd.DataFrame, responses: pd.DataFrame) -> pd.DataFrame:
    rule = responses[responses.rater == "ccv"].pivot(index="item", columns="field", values="value")
    return items.set_index("item").join(rule)


@pytest.mark.slow
def test_cciv_table_2_rule_rates_per_model_and_condition(cciv) -> None:
    b, items, responses = cciv
    rows = build_report(b.study, ReportSettings(n_boot=300)).tables["rule_rates"]
    poems = scores(items, responses)
    generated = poems[poems.model != "human"]
    table2 = generated.groupby(["model", "condition"])[list(METRICS)].agg(["sum", "count", "mean"])
    assert len(pick(rows, rule="ccv", version="1")) == 4 * (len(MODELS) * len(CONDITIONS) + 1)
    for (model, cond), cell in table2.iterrows():
        for metric in METRICS:
            row = one(rows, rule="ccv", field=metric, source=model, condition=cond)
            assert row["n"] == cell[(metric, "count")] == 15
            assert row["value"] == pytest.approx(cell[(metric, "mean")])
            if metric.startswith("structural"):
                k = int(cell[(metric, "sum")])
                low, high = proportion_confint(k, 15, alpha=0.05, method="wilson")
                assert (row["kind"], row["successes"], row["ci_method"]) == ("rate", k, "wilson")
                assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low), pytest.approx(high))
            else:
                assert (row["kind"], row["ci_method"]) == ("mean", "item bootstrap (percentile)")
                assert row["ci_low"] <= row["value"] <= row["ci_high"]
    human = one(rows, rule="ccv", field="structural_standard", source="human", condition=None)
    assert human["value"] == pytest.approx(poems[poems.model == "human"].structural_standard.mean())
    # form-aware prompting helps every model, as made
    for model in MODELS:
        rates = {
            c: one(rows, field="structural_variant", source=model, condition=c)["value"]
            for c in CONDITIONS
        }
        expected = (
            generated[generated.model == model].groupby("condition").structural_variant.mean()
        )
        assert rates == pytest.approx(expected.to_dict())


@pytest.mark.slow
def test_cciv_per_cipai_heatmap_of_one_condition(cciv) -> None:
    b, items, responses = cciv
    rows = build_report(b.study, ReportSettings(n_boot=0, by=("form",))).tables["rule_rates"]
    poems = scores(items, responses)
    direct = poems[poems.condition == "direct"]
    heatmap = direct.pivot_table(
        index="cipai", columns="model", values="tonal_standard", aggfunc="mean"
    )
    for cipai, line in heatmap.iterrows():
        for model, value in line.items():
            row = one(
                rows, field="tonal_standard", source=model, condition="direct", form=f"ci:{cipai}"
            )
            assert row["value"] == pytest.approx(value) and row["n"] == 3


@pytest.mark.slow
def test_cciv_judges_quality_per_generating_model(cciv) -> None:
    b, items, responses = cciv
    settings = ReportSettings(n_boot=0, by=("source",), ratings_ci="normal")
    rows = build_report(b.study, settings).tables["ratings"]
    rated = responses[responses.rater.isin(JUDGES)].merge(items, on="item")
    for (model, dim), cell in rated.groupby(["model", "field"]):
        row = one(rows, source=model, field=dim, rater_set="models")
        low, high = DescrStatsW(cell.value.to_numpy(float)).zconfint_mean(alpha=0.05)
        assert row["mean"] == pytest.approx(cell.value.mean())
        assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low), pytest.approx(high))
        assert row["n_ratings"] == len(cell) and row["n_raters"] == 3
        assert row["ci_method"] == "normal over ratings (mean ± z·SE)"


@pytest.mark.slow
def test_cciv_accuracy_against_the_cipai_length(cciv) -> None:
    b, items, responses = cciv
    rows = build_report(b.study, ReportSettings(n_boot=0)).tables["form_length"]
    poems = scores(items, responses)
    per_cipai = poems.groupby("cipai").structural_standard.mean()
    lengths = pd.Series(CIPAI)
    rho, p = stats.spearmanr(lengths[per_cipai.index], per_cipai)
    mine = pick(rows, measure="rule:ccv/structural_standard", source="*", condition="*")
    summary = one(mine, form="*")
    assert summary["statistic"] == "spearman" and summary["n"] == 5
    assert (summary["value"], summary["p_value"]) == (pytest.approx(rho), pytest.approx(p))
    assert summary["value"] < 0  # longer cipai, lower accuracy, as made
    for cipai, rate in per_cipai.items():
        point = one(mine, form=f"ci:{cipai}")
        assert (point["length"], point["value"]) == (CIPAI[cipai], pytest.approx(rate))


@pytest.mark.slow
def test_cciv_accuracy_against_the_cipai_length_per_condition(cciv) -> None:
    # CCiV's rho of the direct prompts alone: one row per condition over every model
    b, items, responses = cciv
    rows = build_report(b.study, ReportSettings(n_boot=0)).tables["form_length"]
    poems = scores(items, responses)
    lengths = pd.Series(CIPAI)
    for condition in CONDITIONS:
        for metric in ("structural_standard", "tonal_variant"):
            mine = poems[poems.condition == condition]
            per_cipai = mine.groupby("cipai")[metric].mean()
            rho, p = stats.spearmanr(lengths[per_cipai.index], per_cipai)
            got = pick(rows, measure=f"rule:ccv/{metric}", source="*", condition=condition)
            summary = one(got, form="*")
            assert summary["n"] == len(per_cipai) == 5
            assert summary["value"] == pytest.approx(rho)
            assert summary["p_value"] == pytest.approx(p)
            for cipai, rate in per_cipai.items():
                assert one(got, form=f"ci:{cipai}")["value"] == pytest.approx(rate)
    # the human poems (no condition) are their own group, over every source
    humans = poems[poems.model == "human"].groupby("cipai").structural_standard.mean()
    got = pick(rows, measure="rule:ccv/structural_standard", source="*", condition=None)
    assert [r["value"] for r in got if r["form"] != "*"] == pytest.approx(humans.tolist())


@pytest.mark.slow
def test_cciv_published_figure_beside_the_computed_one(cciv) -> None:
    b, items, responses = cciv
    rows = build_report(b.study, ReportSettings(n_boot=0)).tables["published_vs_computed"]
    poems = scores(items, responses)
    cell = poems[
        (poems.model == "gen-a") & (poems.condition == "direct") & (poems.cipai == "浣溪沙")
    ]
    matched = one(rows, model="gen-a", task="CCiV:浣溪沙")
    assert matched["match"] == "matched" and matched["n"] == len(cell) == 3
    assert matched["computed"] == pytest.approx(cell.structural_standard.mean())
    assert matched["difference"] == pytest.approx(cell.structural_standard.mean() - 0.5)
    missing = one(rows, model="gen-z")
    assert (missing["match"], missing["computed"]) == ("no match", None)
