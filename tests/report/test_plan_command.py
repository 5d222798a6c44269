"""``manage.py plan STUDY`` on the CP-DUE-style study (SYNTHETIC) and the known study."""

from __future__ import annotations

import io
import json
import math

import pytest
from django.core.management import CommandError, call_command
from scipy import stats

from scoring.agreement.plan import wilson_n
from tests.report.cpdue import cpdue_study
from tests.report.worked import one, pick

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("plan", *args, stdout=out)
    return out.getvalue()


def test_plan_rows_for_accuracy_groups_and_agreement(db) -> None:
    study = cpdue_study("cpdue-plan")
    rows = json.loads(run("cpdue-plan", "--json", "--half-width", "0.08", "--n-sims", "50"))
    people = study.frame[study.frame.kind == "human"]
    ck = people[people["item"].str.startswith("ck")]
    for g in ("A", "B", "C"):
        mine = ck[ck.group == g]["correct"]
        row = one(rows, target="accuracy", task="ck", rater_set=f"group:{g}")
        assert row["n_now"] == len(mine) and row["volunteers_now"] == 10
        assert row["value"] == pytest.approx(mine.mean())
        needed = wilson_n(mine.mean(), 0.08)
        assert row["n_needed"] == needed
        assert row["n_more"] == max(0, needed - len(mine))
        assert row["volunteers_more"] == math.ceil(row["n_more"] / 10)  # 10 items each
        low, high = stats.binomtest(int(mine.sum()), len(mine)).proportion_ci(method="wilson")
        assert row["now"] == pytest.approx((high - low) / 2)
        assert row["status"] == ("met" if row["n_more"] == 0 else "short")
    # all-parts task: the headline field is "*"
    assert one(rows, target="accuracy", task="au", rater_set="group:A")["field"] == "*"
    pairs = pick(rows, target="two_groups", task="ck")
    assert {(r["rater_set"], r["set_b"]) for r in pairs} == {
        ("group:A", "group:B"),
        ("group:A", "group:C"),
        ("group:B", "group:C"),
    }
    ac = one(pairs, rater_set="group:A", set_b="group:C")
    assert ac["n_needed"] < one(pairs, rater_set="group:A", set_b="group:B")["n_needed"]
    agreement = pick(rows, target="alpha_width", task="ck", rater_set="group:A")
    assert agreement and agreement[0]["level"] == "nominal" and agreement[0]["now"] > 0


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
