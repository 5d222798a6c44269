"""The report's clustered intervals (``cluster`` setting): each accuracy, rate and mean
row's design effect, ICCs and interval recomputed here by hand with pandas from the
simulated answers (Cameron, Gelbach & Miller's two-way variance; Wilson's interval at
the effective n), and the old Wilson interval under ``cluster=none`` against statsmodels."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from scoring.report import ReportSettings, build_report
from tests.report.cpdue import cpdue_study
from tests.report.factory import Builder
from tests.report.worked import one

pytestmark = pytest.mark.django_db


def _one_way(r: np.ndarray, codes: list[object]) -> float:
    sums = pd.Series(r).groupby(codes).sum()
    g = len(sums)
    return g / (g - 1) * float((sums**2).sum())


def hand(y: np.ndarray, people: list[object], items: list[object]) -> dict[str, float]:
    """Two-way clustered variance of a share, its design effect and Wilson at n / deff."""
    n = len(y)
    p = float(y.mean())
    r = (y - p) / n
    v_ind = n / (n - 1) * float((r**2).sum())
    v_p, v_i = _one_way(r, people), _one_way(r, items)
    v_pi = _one_way(r, [f"{a}|{b}" for a, b in zip(people, items, strict=True)])
    v = max(v_p + v_i - v_pi, v_p, v_i, v_ind)
    deff = v / v_ind
    t = stats.t.ppf(0.975, min(len(set(people)), len(set(items))) - 1)
    m = n / deff
    centre = (p + t * t / (2 * m)) / (1 + t * t / m)
    half = t / (1 + t * t / m) * math.sqrt(p * (1 - p) / m + t * t / (4 * m * m))
    return {"deff": deff, "low": centre - half, "high": centre + half}


def _pair_icc(y: np.ndarray, codes: list[object]) -> float:
    frame = pd.DataFrame({"r": y - y.mean(), "c": codes})
    total = float((frame["r"] ** 2).mean())
    sums = frame.groupby("c")["r"].agg(["sum", "count"])
    cov = (float((sums["sum"] ** 2).sum()) - float((frame["r"] ** 2).sum())) / float(
        (sums["count"] * (sums["count"] - 1)).sum()
    )
    return max(0.0, cov / total)


def test_accuracy_rows_are_clustered_in_people_and_items(db) -> None:
    cp = cpdue_study()
    report = build_report(cp.builder.study, ReportSettings(n_boot=0))
    rows = report.tables["accuracy"]
    frame = cp.frame
    for group in ("A", "B", "C"):
        mine = frame.loc[(frame.group == group) & (frame.item.str.startswith("ck"))]
        y = mine["correct"].to_numpy(dtype=float)
        want = hand(y, mine["rater"].tolist(), mine["item"].tolist())
        row = one(rows, task="ck", field="answer", rater_set=f"group:{group}")
        assert row["ci_method"] == "person+item-clustered Wilson (CGM)"
        assert row["design_effect"] == pytest.approx(want["deff"], rel=1e-9)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((want["low"], want["high"]))
        assert row["icc_person"] == pytest.approx(_pair_icc(y, mine["rater"].tolist()))
        assert row["icc_item"] == pytest.approx(_pair_icc(y, mine["item"].tolist()))
        low, high = proportion_confint(int(y.sum()), len(y), method="wilson")
        assert row["ci_high"] - row["ci_low"] >= high - low
    # A model answering every item once: one answer per item, nothing is clustered.
    model = one(rows, task="ck", field="answer", rater_set="model:gpt-4o")
    assert model["ci_method"] == "Wilson"
    assert math.isnan(model["icc_person"])


def test_cluster_none_gives_wilson_and_model_vs_groups_has_both_intervals(db) -> None:
    cp = cpdue_study()
    tables = build_report(cp.builder.study, ReportSettings(n_boot=0, cluster="none")).tables
    frame = cp.frame
    mine = frame.loc[(frame.group == "B") & (frame.item.str.startswith("ck"))]
    row = one(tables["accuracy"], task="ck", field="answer", rater_set="group:B")
    low, high = proportion_confint(int(mine.correct.sum()), len(mine), method="wilson")
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), rel=1e-12)
    assert row["ci_method"] == "Wilson" and row["design_effect"] == pytest.approx(1.0)
    crossed = build_report(cp.builder.study, ReportSettings(n_boot=0)).tables
    vs = one(
        crossed["model_vs_groups"], task="ck", field="answer", model="model:qwen", group="group:B"
    )
    acc = one(crossed["accuracy"], task="ck", field="answer", rater_set="group:B")
    assert (vs["group_ci_low"], vs["group_ci_high"]) == (acc["ci_low"], acc["ci_high"])
    assert vs["ci_method"] == acc["ci_method"]
    q = frame.loc[(frame.rater == "qwen") & frame.item.str.startswith("ck"), "correct"]
    assert vs["model_value"] == pytest.approx(q.mean())
    assert vs["model_ci_low"] < vs["model_value"] < vs["model_ci_high"]


def _generation_study() -> tuple[Builder, pd.DataFrame]:
    """A model writes 3 samples for each of 12 prompts; prompts differ a lot in how hard
    they are (a prompt effect), so its samples are not independent poems."""
    rng = np.random.default_rng(4)
    b = Builder("gen-clusters")
    b.task("ci", "rating", dimensions=[{"key": "q", "label": "q", "min": 1, "max": 5}])
    b.rule("ccv")
    rows = []
    for p in range(12):
        ease = rng.normal(0, 2.0)
        prompt = {"cipai": f"牌{p}", "condition": "direct"}
        for s in range(3):
            item = f"g{p}-{s}"
            b.item(
                item,
                "ci",
                poem_text="（合成）",
                poem_source="model:gen-a",
                poem_condition="direct",
                meta={"prompt": prompt, "model": "gen-a", "run": "direct", "sample": s},
            )
            value = int(rng.random() < 1 / (1 + np.exp(-ease)))
            b.answer("ccv", item, "structural", value)
            rows.append({"item": item, "prompt": p, "value": value})
    return b, pd.DataFrame(rows)


def test_rule_rates_cluster_the_samples_of_one_prompt(db) -> None:
    b, frame = _generation_study()
    y = frame["value"].to_numpy(dtype=float)
    rows = build_report(b.study, ReportSettings(n_boot=0)).tables["rule_rates"]
    row = one(rows, rule="ccv", field="structural", source="gen-a")
    n = len(y)
    r = (y - y.mean()) / n
    deff = max(_one_way(r, frame["prompt"].tolist()), n / (n - 1) * (r**2).sum()) / (
        n / (n - 1) * (r**2).sum()
    )
    assert row["ci_method"] == "item-clustered Wilson (CGM)"
    assert row["design_effect"] == pytest.approx(deff, rel=1e-9)
    wilson = proportion_confint(int(y.sum()), n, method="wilson")
    assert row["ci_high"] - row["ci_low"] > wilson[1] - wilson[0]
    flat = one(
        build_report(b.study, ReportSettings(n_boot=0, cluster="none")).tables["rule_rates"],
        rule="ccv",
        field="structural",
        source="gen-a",
    )
    assert flat["ci_method"] == "wilson"
    assert (flat["ci_low"], flat["ci_high"]) == pytest.approx(wilson)


def test_ratings_mean_of_item_means_is_clustered_in_raters_and_items(db) -> None:
    rng = np.random.default_rng(9)
    b = Builder("rated-clusters")
    b.group("g")
    b.task("q", "rating", dimensions=[{"key": "v", "label": "v", "min": 1, "max": 5}])
    rows = []
    for i in range(20):
        b.item(f"p{i}", "q", poem_text="（合成）")
    leniency = rng.normal(0, 0.8, 8)
    quality = rng.normal(0, 0.6, 20)
    for r in range(8):
        b.human(f"r{r}", "g")
        for i in rng.choice(20, 12, replace=False):
            value = int(np.clip(round(3 + leniency[r] + quality[i] + rng.normal(0, 0.7)), 1, 5))
            b.answer(f"r{r}", f"p{i}", "v", value)
            rows.append({"rater": r, "item": int(i), "value": value})
    frame = pd.DataFrame(rows)
    row = one(
        build_report(b.study, ReportSettings(n_boot=0)).tables["ratings"], rater_set="group:g"
    )
    counts = frame.groupby("item")["value"].transform("count").to_numpy()
    w = 1 / counts
    y = frame["value"].to_numpy(dtype=float)
    theta = float(np.dot(w, y) / w.sum())
    assert theta == pytest.approx(frame.groupby("item")["value"].mean().mean())
    u = w * (y - theta) / w.sum()
    n = len(y)
    v_ind = n / (n - 1) * float((u**2).sum())
    v_p, v_i = _one_way(u, frame["rater"].tolist()), _one_way(u, frame["item"].tolist())
    pairs = (frame["rater"].astype(str) + "|" + frame["item"].astype(str)).tolist()
    v = max(v_p + v_i - _one_way(u, pairs), v_p, v_i, v_ind)
    t = stats.t.ppf(0.975, 8 - 1)
    assert row["ci_method"] == "person+item-clustered t (CGM)"
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        (theta - t * math.sqrt(v), theta + t * math.sqrt(v))
    )
    assert row["design_effect"] == pytest.approx(v / v_ind)
    assert row["icc_person"] > 0.05  # the raters' leniency
