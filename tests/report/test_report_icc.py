"""The ``icc`` table on a small rating study (SYNTHETIC), checked against pingouin."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from scoring.report import ReportSettings, build_report
from scoring.report.icc import balanced_subset
from tests.report.factory import Builder
from tests.report.worked import SYNTHETIC, one, pick, store

pytestmark = pytest.mark.django_db
EXPERTS = ("e1", "e2", "e3", "e4")
JUDGES = ("gpt-4o", "qwen")
DIMS = [{"key": "imagery", "label": "意象", "min": 1, "max": 5}]
FORMS = {
    "ICC(1,1)": "ICC(1,1)",
    "ICC(2,1)": "ICC(A,1)",
    "ICC(3,1)": "ICC(C,1)",
    "ICC(1,k)": "ICC(1,k)",
    "ICC(2,k)": "ICC(A,k)",
    "ICC(3,k)": "ICC(C,k)",
}


def frame() -> pd.DataFrame:
    rng = np.random.default_rng(15)
    rows = []
    for i in range(10):
        quality = rng.uniform(1.5, 4.5)
        for j, e in enumerate(EXPERTS):
            if e == "e4" and i % 2:  # e4 rated only half the poems
                continue
            value = np.clip(round(quality + 0.3 * j - 0.4 + rng.normal(0, 0.6)), 1, 5)
            rows.append({"rater": e, "item": f"p{i}", "field": "imagery", "value": value})
        for judge in JUDGES:
            value = np.clip(round(quality + 0.7 + rng.normal(0, 0.8)), 1, 5)
            rows.append({"rater": judge, "item": f"p{i}", "field": "imagery", "value": value})
    return pd.DataFrame(rows)


@pytest.fixture
def study(db):
    b = Builder("icc-worked", description=SYNTHETIC)
    b.group("experts")
    b.task("rate", "rating", dimensions=DIMS)
    for i in range(10):
        b.item(f"p{i}", "rate", poem_text="（合成）", poem_source="human")
    for e in EXPERTS:
        b.human(e, "experts")
    for j in JUDGES:
        b.model(j)
    responses = frame()
    store(b, responses)
    return b, responses


def reference(wide: pd.DataFrame) -> pd.DataFrame:
    pingouin = pytest.importorskip("pingouin")
    long = wide.stack().rename("score").reset_index()
    long.columns = ["target", "rater", "score"]
    out = pingouin.intraclass_corr(long, targets="target", raters="rater", ratings="score")
    return out.set_index("Type")


@pytest.mark.slow
def test_icc_complete_case_subset_matches_pingouin(study) -> None:
    b, responses = study
    rows = build_report(b.study, ReportSettings(n_boot=0)).tables["icc"]
    wide = responses.pivot(index="item", columns="rater", values="value")
    # experts: dropping e4 (5 ratings) leaves 10 poems × 3 raters (30 cells > 5 × 4 = 20)
    experts = pick(rows, rater_set="group:experts")
    assert len(experts) == 6
    ref = reference(wide[["e1", "e2", "e3"]])
    for form, ptype in FORMS.items():
        row = one(experts, form=form)
        assert row["value"] == pytest.approx(ref.loc[ptype, "ICC"])
        assert row["f"] == pytest.approx(ref.loc[ptype, "F"])
        low, high = ref.loc[ptype, "CI95"]
        assert row["ci_low"] == pytest.approx(low, abs=0.006)
        assert row["ci_high"] == pytest.approx(high, abs=0.006)
        assert (row["n_items"], row["n_raters"]) == (10, 3)
        assert (row["n_items_all"], row["n_raters_all"]) == (10, 4)
        assert row["subset"] == "complete-case: 10 of 10 items × 3 of 4 raters"
    # the two judges rated everything: no subset note
    models = one(pick(rows, rater_set="models"), form="ICC(2,1)")
    assert models["subset"] == "all ratings"
    assert models["value"] == pytest.approx(reference(wide[list(JUDGES)]).loc["ICC(A,1)", "ICC"])
    both = one(pick(rows, rater_set="humans+models"), form="ICC(3,k)")
    assert both["n_raters"] == 5


def test_balanced_subset_prefers_more_cells() -> None:
    nan = np.nan
    wide = pd.DataFrame(
        {"a": [1, 2, 3, 4], "b": [1, 2, 3, nan], "c": [2, nan, nan, nan], "d": [1, 2, 3, 5]},
        index=["i1", "i2", "i3", "i4"],
    )
    items, raters = balanced_subset(wide)
    # drop c (1 rating): 3 items × 3 raters = 9 cells; then b: 4 × 2 = 8; keep the first
    assert (items, raters) == (["i1", "i2", "i3"], ["a", "b", "d"])
    sparse = pd.DataFrame({"a": [1, nan, nan], "b": [nan, 2, nan], "c": [nan, nan, 3]})
    assert balanced_subset(sparse) == ([], [])


def _greedy_subset_loop(wide: pd.DataFrame) -> tuple[list[object], list[object]]:
    """The greedy path step by step (the code before it was vectorised)."""
    rated = wide.notna().to_numpy()
    n = rated.shape[1]
    missing = (~rated).sum(axis=1)
    counts = rated.sum(axis=0)
    order = sorted(range(n), key=lambda j: (counts[j], -j))
    best = (0, -1)
    for dropped in range(n - 1):
        complete = int((missing == 0).sum())
        if complete >= 2 and complete * (n - dropped) > best[0]:
            best = (complete * (n - dropped), dropped)
        missing -= ~rated[:, order[dropped]]
    if best[1] < 0:
        return [], []
    keep = np.ones(n, dtype=bool)
    keep[order[: best[1]]] = False
    rows = rated[:, keep].all(axis=1)
    return list(wide.index[rows]), list(wide.columns[keep])


@pytest.mark.parametrize("seed", range(40))
def test_balanced_subset_is_the_step_by_step_greedy_path(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_items, n_raters = int(rng.integers(1, 30)), int(rng.integers(1, 25))
    values = rng.integers(1, 6, size=(n_items, n_raters)).astype(float)
    values[rng.random(values.shape) < rng.uniform(0, 0.9)] = np.nan
    wide = pd.DataFrame(values, columns=[f"r{j}" for j in range(n_raters)])
    assert balanced_subset(wide) == _greedy_subset_loop(wide)


def test_a_crowd_without_common_items_gets_a_reason(db) -> None:
    b = Builder("icc-crowd")
    b.group("A")
    b.task("rate", "rating", dimensions=DIMS)
    for i in range(4):
        b.item(f"p{i}", "rate", poem_text="（合成）")
    for i in range(4):
        b.human(f"v{i}", "A")
        b.answer(f"v{i}", f"p{i}", "imagery", 3)
    rows = build_report(b.study, ReportSettings(n_boot=0)).tables["icc"]
    row = one(rows, rater_set="group:A")
    assert row["form"] is None and "complete" in row["reason"]


def test_a_mixed_set_whose_subset_kept_only_models_is_refused(db) -> None:
    """Issue 23: "humans + models" whose complete-case subset kept the 2 models only
    (each person rated a few poems) must not report their ICC under the mixed label."""
    b = Builder("icc-mislabel")
    b.group("A")
    b.task("rate", "rating", dimensions=DIMS)
    rng = np.random.default_rng(2)
    for i in range(10):
        b.item(f"p{i}", "rate", poem_text="（合成）")
    for m in ("m1", "m2"):
        b.model(m)
        for i in range(10):
            b.answer(m, f"p{i}", "imagery", int(rng.integers(1, 6)))
    for h in range(6):
        b.human(f"v{h}", "A")
        b.answer(f"v{h}", f"p{h}", "imagery", int(rng.integers(1, 6)))
    rows = build_report(b.study, ReportSettings(n_boot=0)).tables["icc"]
    mixed = [r for r in rows if r["rater_set"] == "humans+models"]
    assert len(mixed) == 1 and mixed[0]["form"] is None
    assert mixed[0]["raters_used"] == "2 models" and "no human rater" in mixed[0]["reason"]
    models = [r for r in rows if r["rater_set"] == "models"]
    assert len(models) == 6 and {r["raters_used"] for r in models} == {"2 models"}
