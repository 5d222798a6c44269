"""The ``bws`` table on a small best/worst study (SYNTHETIC), recomputed with pandas,
choix and scipy."""

from __future__ import annotations

import choix
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from scoring.report import ReportSettings, build_report
from tests.report.factory import Builder
from tests.report.worked import SYNTHETIC, one, pick

pytestmark = pytest.mark.django_db
# 5 items of 3 poems; poem "p<i>-<j>" has quality QUALITY[j] + a little per item
QUALITY = (1.0, 0.0, -1.0)
PEOPLE = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "b2": "B"}
MODELS = ("gpt-4o", "qwen")


def answers() -> pd.DataFrame:
    rng = np.random.default_rng(42)
    rows = []
    for rater in (*PEOPLE, *MODELS):
        noise = 0.5 if rater in PEOPLE else 1.5
        for i in range(5):
            u = np.array(QUALITY) + 0.2 * i * np.array([0, 1, 0]) + rng.gumbel(size=3) * noise
            rows.append(
                {
                    "rater": rater,
                    "item": f"oq-{i}",
                    "best": int(u.argmax()),
                    "worst": int(u.argmin()),
                }
            )
    return pd.DataFrame(rows)


@pytest.fixture
def study(db):
    b = Builder("bws-worked", description=SYNTHETIC)
    b.group("A", 0)
    b.group("B", 1)
    b.task("oq", "best_worst")
    for i in range(5):
        options = [{"text": f"诗{i}-{j}"} for j in range(3)]
        b.item(f"oq-{i}", "oq", {"best": 0, "worst": 2}, options=options)
    for name, group in PEOPLE.items():
        b.human(name, group)
    for m in MODELS:
        b.model(m)
    frame = answers()
    for r in frame.itertuples(index=False):
        b.answer(r.rater, r.item, "best", r.best)
        b.answer(r.rater, r.item, "worst", r.worst)
    return b, frame


def expected_counts(frame: pd.DataFrame) -> pd.DataFrame:
    long = []
    for r in frame.itertuples(index=False):
        for j in range(3):
            score = 1 if j == r.best else -1 if j == r.worst else 0
            long.append({"poem": f"{r.item}#{j}", "score": score})
    table = pd.DataFrame(long).groupby("poem")["score"].agg(["mean", "count", "sem"])
    return table


@pytest.mark.slow
def test_counting_scores_per_poem(study) -> None:
    b, frame = study
    rows = build_report(b.study, ReportSettings(n_boot=50)).tables["bws"]
    for set_name, raters in (
        ("humans", list(PEOPLE)),
        ("group:A", ["a1", "a2", "a3"]),
        ("model:qwen", ["qwen"]),
    ):
        exp = expected_counts(frame[frame.rater.isin(raters)])
        mine = pick(rows, summary="poem", rater_set=set_name, method="count")
        assert len(mine) == 15
        for poem, e in exp.iterrows():
            row = one(mine, poem=poem)
            assert row["value"] == pytest.approx(e["mean"])
            assert row["n_shown"] == e["count"] == len(raters)
            if len(raters) > 1 and e["sem"] > 0:
                low, _ = stats.t.interval(0.95, e["count"] - 1, loc=e["mean"], scale=e["sem"])
                assert row["ci_low"] == pytest.approx(max(low, -1))
        best = min(mine, key=lambda r: r["rank"])
        assert best["value"] == pytest.approx(exp["mean"].max())


@pytest.mark.slow
def test_bradley_terry_per_poem_and_spearman(study) -> None:
    b, frame = study
    rows = build_report(b.study, ReportSettings(n_boot=50)).tables["bws"]
    people = frame[frame.rater.isin(list(PEOPLE))]
    # each item's three poems are compared only with each other: one fit per item
    mine = pick(rows, summary="poem", rater_set="humans", method="bradley_terry")
    for i, answers_i in people.groupby("item"):
        pairs = []
        for r in answers_i.itertuples(index=False):
            mid = 3 - r.best - r.worst
            pairs += [(r.best, mid), (r.best, r.worst), (mid, r.worst)]
        params = choix.ilsr_pairwise(3, pairs, alpha=0.01)
        params = params - params.mean()
        for j in range(3):
            row = one(mine, poem=f"{i}#{j}")
            assert row["value"] == pytest.approx(params[j], abs=1e-5)
            assert row["ci_low"] - 1e-9 <= row["value"] <= row["ci_high"] + 1e-9
    # the agreement between people's and a model's rankings: Spearman over the 15 poems
    humans = {
        r["poem"]: r["value"]
        for r in pick(rows, summary="poem", rater_set="humans", method="count")
    }
    model = {
        r["poem"]: r["value"]
        for r in pick(rows, summary="poem", rater_set="model:gpt-4o", method="count")
    }
    poems = sorted(humans)
    rho = stats.spearmanr([humans[p] for p in poems], [model[p] for p in poems]).statistic
    row = one(rows, summary="spearman", rater_set="humans", set_b="model:gpt-4o", method="count")
    assert row["value"] == pytest.approx(rho) and row["n"] == 15
    assert row["ci_low"] < row["value"] < row["ci_high"]
    # a single model has no rater bootstrap
    single = pick(rows, summary="poem", rater_set="model:qwen", method="bradley_terry")
    assert all(r["ci_low"] != r["ci_low"] for r in single)  # NaN
    assert all("one rater" in r["reason"] for r in single)
