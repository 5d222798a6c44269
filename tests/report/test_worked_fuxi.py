"""Worked study 1 (SYNTHETIC): a Fùxì-style validation of an LLM evaluator.

Three categories of evaluation task (poem generation ``pg``, couplet generation ``cg``,
appreciation ``ap``), each a yes/no task with the same options (合格 / 不合格), 40 items
each. Three experts (group ``E``) judge every item; the gold answer key is their
majority. An LLM evaluator (``fuxi-eval``) judges every item too. The report's
``validation`` table must give Fùxì's Table 6: accuracy, Cohen's kappa, precision, recall,
F1 and Pearson (phi) of the evaluator against the gold, overall (pooled over the three
categories), without each category, and per category; the expected values here come
from pandas, scikit-learn, scipy and statsmodels.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn import metrics
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import proportion_confint

from scoring.report import ReportSettings, build_report
from tests.report.factory import Builder
from tests.report.worked import SYNTHETIC, one, pick, store

pytestmark = pytest.mark.django_db
CATEGORIES = ("pg", "cg", "ap")
OPTIONS = ["合格", "不合格"]
N_ITEMS = 40


def fuxi_frame() -> tuple[pd.DataFrame, pd.DataFrame]:
    """(items: item, task, gold; responses: rater, item, field, value)."""
    rng = np.random.default_rng(20261125)
    items, rows = [], []
    for c, cat in enumerate(CATEGORIES):
        for i in range(N_ITEMS):
            item = f"{cat}-{i:03d}"
            truth = int(rng.random() < 0.4 + 0.1 * c)  # 1 = 不合格
            votes = [truth if rng.random() < 0.85 else 1 - truth for _ in range(3)]
            gold = int(sum(votes) >= 2)
            items.append({"item": item, "task": cat, "gold": gold})
            for e, v in enumerate(votes):
                rows.append({"rater": f"e{e + 1}", "item": item, "field": "answer", "value": v})
            accuracy = (0.92, 0.85, 0.7)[c]  # the evaluator is weakest on appreciation
            said = gold if rng.random() < accuracy else 1 - gold
            rows.append({"rater": "fuxi-eval", "item": item, "field": "answer", "value": said})
    return pd.DataFrame(items), pd.DataFrame(rows)


@pytest.fixture
def fuxi(db) -> tuple[Builder, pd.DataFrame, pd.DataFrame]:
    return build_fuxi()


def build_fuxi() -> tuple[Builder, pd.DataFrame, pd.DataFrame]:
    """The worked study stored in the database (also the browser test's study)."""
    items, responses = fuxi_frame()
    b = Builder("fuxi-worked", description=SYNTHETIC)
    b.group("E")
    for cat in CATEGORIES:
        b.task(cat, "choice")
    for r in items.itertuples(index=False):
        b.item(
            r.item,
            r.task,
            {"answer": int(r.gold)},
            stem=f"{r.task} sample",
            options=[{"text": t} for t in OPTIONS],
            meta={"category": r.task},
        )
    for e in ("e1", "e2", "e3"):
        b.human(e, "E")
    b.model("fuxi-eval")
    store(b, responses)
    return b, items, responses


def expected(items: pd.DataFrame, responses: pd.DataFrame, tasks: list[str]) -> dict[str, float]:
    """Table 6 figures of the evaluator on ``tasks``, computed with scikit-learn."""
    judged = responses[responses.rater == "fuxi-eval"].merge(items, on="item")
    judged = judged[judged.task.isin(tasks)]
    y_true, y_pred = judged.gold.to_numpy(), judged.value.astype(int).to_numpy()
    binary = {"pos_label": 0, "average": "binary", "zero_division": np.nan}
    return {
        "n": len(judged),
        "accuracy": metrics.accuracy_score(y_true, y_pred),
        "cohen_kappa": metrics.cohen_kappa_score(y_pred, y_true),
        "precision": metrics.precision_score(y_true, y_pred, **binary),
        "recall": metrics.recall_score(y_true, y_pred, **binary),
        "f1": metrics.f1_score(y_true, y_pred, **binary),
        # Pearson's r of the "合格" indicators: the phi coefficient
        "phi": stats.pearsonr(y_true == 0, y_pred == 0).statistic,
        "correct": int((y_true == y_pred).sum()),
        "kappa_table": pd.crosstab(y_pred, y_true).to_numpy(),
    }


def check(rows: list[dict[str, Any]], want: dict[str, Any]) -> None:
    by_metric = {r["metric"]: r for r in rows}
    assert set(by_metric) == {"accuracy", "cohen_kappa", "precision", "recall", "f1", "phi"}
    for metric, row in by_metric.items():
        assert row["value"] == pytest.approx(want[metric], abs=1e-12), metric
        assert row["n"] == want["n"] and row["positive"] == "0: 合格"
    low, high = proportion_confint(want["correct"], want["n"], alpha=0.05, method="wilson")
    accuracy = by_metric["accuracy"]
    assert (accuracy["ci_low"], accuracy["ci_high"]) == (pytest.approx(low), pytest.approx(high))
    assert accuracy["ci_method"] == "wilson"
    # kappa: an item bootstrap, beside statsmodels' large-sample interval
    kappa = by_metric["cohen_kappa"]
    asymptotic = cohens_kappa(want["kappa_table"])
    assert kappa["ci_method"] == "item bootstrap (percentile)"
    assert kappa["ci_low"] < kappa["value"] < kappa["ci_high"]
    assert kappa["ci_low"] == pytest.approx(asymptotic.kappa_low, abs=0.06)
    assert kappa["ci_high"] == pytest.approx(asymptotic.kappa_upp, abs=0.06)


@pytest.mark.slow
def test_fuxi_table_6_overall_without_each_category_and_per_category(fuxi) -> None:
    b, items, responses = fuxi
    report = build_report(b.study, ReportSettings(n_boot=400)).tables["validation"]
    mine = pick(report, judge="model:fuxi-eval", reference="key", field="answer")
    overall = pick(mine, scope="pooled")
    assert {r["task"] for r in overall} == {"pg+cg+ap"}
    check(overall, expected(items, responses, list(CATEGORIES)))
    for left in CATEGORIES:
        rest = [c for c in CATEGORIES if c != left]
        rows = pick(mine, scope="without", left_out=left)
        assert {r["task"] for r in rows} == {"+".join(rest)}
        check(rows, expected(items, responses, rest))
    for cat in CATEGORIES:
        check(pick(mine, scope="task", task=cat), expected(items, responses, [cat]))
    # the per-category figures differ as made: best on pg, worst on ap
    acc = {c: one(mine, scope="task", task=c, metric="accuracy")["value"] for c in CATEGORIES}
    assert acc["pg"] > acc["ap"]


def test_against_the_expert_majority_and_per_category_by_split(fuxi) -> None:
    b, items, responses = fuxi
    report = build_report(b.study, ReportSettings(n_boot=0, by=("category",)))
    rows = report.tables["validation"]
    # The key is the experts' majority, so both references give the same figures
    for cat in CATEGORIES:
        key = one(
            rows,
            category=cat,
            scope="task",
            task=cat,
            judge="model:fuxi-eval",
            reference="key",
            metric="f1",
        )
        majority = one(
            rows,
            category=cat,
            scope="task",
            task=cat,
            judge="model:fuxi-eval",
            reference="humans majority",
            metric="f1",
        )
        assert (
            key["value"]
            == majority["value"]
            == pytest.approx(expected(items, responses, [cat])["f1"])
        )
    # the experts against their own majority: every expert set is validated too
    experts = one(
        rows,
        category="pg",
        scope="task",
        task="pg",
        judge="group:E",
        reference="key",
        metric="accuracy",
    )
    votes = responses[(responses.rater != "fuxi-eval")].merge(items, on="item")
    votes = votes[votes.task == "pg"]
    assert experts["value"] == pytest.approx((votes.value == votes.gold).mean())
    assert experts["n"] == len(votes) and experts["n_items"] == N_ITEMS
