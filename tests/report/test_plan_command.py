"""``manage.py plan STUDY`` on the CP-DUE-style study (SYNTHETIC): rows recomputed
independently (the current interval's half-width by statsmodels' two-way clustered OLS;
the ICCs by pandas), and no contradictory rows."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
import statsmodels.api as sm
from django.core.management import CommandError, call_command
from scipy import stats

from tests.report.cpdue import cpdue_study
from tests.report.worked import one, pick

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("plan", *args, stdout=out)
    return out.getvalue()


def _wilson_at(p: float, n_eff: float, crit: float) -> tuple[float, float]:
    c2 = crit * crit
    centre = (p + c2 / (2 * n_eff)) / (1 + c2 / n_eff)
    half = crit / (1 + c2 / n_eff) * np.sqrt(p * (1 - p) / n_eff + c2 / (4 * n_eff**2))
    return max(0.0, centre - half), min(1.0, centre + half)


@pytest.mark.slow
def test_plan_rows_for_accuracy_groups_and_agreement(db) -> None:
    study = cpdue_study("cpdue-plan")
    rows = json.loads(run("cpdue-plan", "--json", "--half-width", "0.08", "--n-sims", "40"))
    people = study.frame[study.frame.kind == "human"]
    ck = people[people["item"].str.startswith("ck")]
    for g in ("A", "B", "C"):
        mine = ck[ck.group == g]
        y = mine["correct"].to_numpy(dtype=float)
        row = one(rows, target="accuracy", task="ck", rater_set=f"group:{g}")
        assert row["n_now"] == 10 and row["answers_now"] == len(mine)
        assert row["value"] == pytest.approx(y.mean())
        # the report's interval now: people × items clustered (statsmodels' two-way
        # cluster-robust variance of the mean, Wilson's interval at the effective n)
        codes = np.column_stack(
            [mine["rater"].astype("category").cat.codes, mine["item"].astype("category").cat.codes]
        )
        ols = sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": codes})
        n = len(y)
        v_ind = ((y - y.mean()) ** 2).sum() / (n - 1) / n
        v = max(float(ols.cov_params()[0, 0]), v_ind)
        g_min = min(mine["rater"].nunique(), mine["item"].nunique())
        low, high = _wilson_at(y.mean(), n * v_ind / v, stats.t.ppf(0.975, g_min - 1))
        assert row["now"] == pytest.approx((high - low) / 2, rel=0.02)
        # no contradictory row: met exactly when the interval now meets the goal
        assert row["status"] == ("met" if row["now"] <= 0.08 else "short")
        if row["status"] == "met":
            assert row["n_more"] == 0 and row["n_needed"] == row["n_now"]
        elif row["n_needed"] is not None:
            assert row["n_needed"] > row["n_now"] and row["n_more"] == row["n_needed"] - 10
            assert 0.85 <= row["coverage"] <= 1.0
        else:
            assert "items" in row["reason"]
        # the person ICC by hand (pairs of answers by one person, moment estimate)
        r = y - y.mean()
        sums = mine.assign(r=r).groupby("rater")["r"].sum().to_numpy()
        sizes = mine.groupby("rater").size().to_numpy()
        icc = ((sums**2).sum() - (r**2).sum()) / (sizes * (sizes - 1)).sum() / r.var(ddof=0)
        assert row["icc_person"] == pytest.approx(max(icc, 0.0))
    assert one(rows, target="accuracy", task="au", rater_set="group:A")["field"] == "*"
    pairs = pick(rows, target="two_groups", task="ck")
    assert {(r["rater_set"], r["set_b"]) for r in pairs} == {
        ("group:A", "group:B"),
        ("group:A", "group:C"),
        ("group:B", "group:C"),
    }
    for r in pairs:
        assert r["status"] == ("met" if r["now"] >= 0.8 else "short")
        assert 0 <= r["p_now"] <= 1
        if r["status"] == "short" and r["n_needed"] is not None:
            assert r["n_needed"] > r["n_now"]
    # A and C are further apart than A and B: at least as much power now
    ac, ab = one(pairs, rater_set="group:A", set_b="group:C"), one(pairs, set_b="group:B")
    assert ac["now"] >= ab["now"]
    agreement = pick(rows, target="alpha_width", task="ck", rater_set="group:A")
    assert agreement and agreement[0]["level"] == "nominal" and agreement[0]["now"] > 0
    for r in pick(rows, target="alpha_width"):
        if "now" in r and r["now"] is not None:
            assert r["status"] == ("met" if r["now"] <= 0.2 else "short")


@pytest.mark.slow
def test_plan_text_table_and_errors(db) -> None:
    cpdue_study("cpdue-plan-text")
    text = run("cpdue-plan-text", "--n-sims", "20")
    header = text.splitlines()[0].split()
    assert header[:3] == ["target", "task", "field"] and "status" in header
    assert "accuracy" in text and "two_groups" in text and "alpha_width" in text
    with pytest.raises(CommandError, match="--half-width"):
        run("cpdue-plan-text", "--half-width", "0.9")
    with pytest.raises(CommandError, match="--power: 'x' is not a valid float"):
        run("cpdue-plan-text", "--power", "x")
    with pytest.raises(CommandError, match="no study"):
        run("nope")
