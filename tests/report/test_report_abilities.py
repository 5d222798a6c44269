"""The ``abilities`` table on the CP-DUE-style study (SYNTHETIC): groups and models
ordered by ability as by accuracy; percentiles and summaries recomputed with pandas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from scoring.report import ReportSettings, build_report
from scoring.report.abilities import MIN_RESPONSES
from tests.report.cpdue import GROUPS, cpdue_study
from tests.report.worked import one, pick

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def report(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        from django.db import transaction

        with transaction.atomic():
            study = cpdue_study("cpdue-abilities")
            # one sparse volunteer: fewer than MIN_RESPONSES keyed answers
            study.builder.human("sparse", "A")
            for i in range(MIN_RESPONSES - 1):
                study.builder.answer("sparse", f"ck-{i:02d}", "answer", 0)
            out = build_report(study.builder.study, ReportSettings(n_boot=0)).tables
            transaction.set_rollback(True)
    return study, out["abilities"], out["accuracy"]


@pytest.mark.slow
@pytest.mark.parametrize("irt", ["1pl", "2pl"])
def test_groups_are_ordered_by_ability_as_by_accuracy(report, irt) -> None:
    study, rows, _accuracy = report
    frame = study.frame
    for task in ("ck", "au", "*"):
        dist = {
            g: one(rows, task=task, irt=irt, summary="distribution", rater_set=f"group:{g}")
            for g in GROUPS
        }
        part = frame if task == "*" else frame[frame["item"].str.startswith(task)]
        acc = part[part.kind == "human"].groupby("group")["correct"].mean()
        by_ability = sorted(GROUPS, key=lambda g: dist[g]["mean"])
        by_accuracy = sorted(GROUPS, key=lambda g: acc[g])
        assert by_ability == by_accuracy == ["A", "B", "C"], task
    # the people's abilities follow the true ones they were simulated from
    raters = pick(rows, task="*", irt=irt, summary="rater")
    est = {r["rater"]: r["ability"] for r in raters}
    names = [n for n in est if n in study.ability]
    truth = [study.ability[n] for n in names]
    assert stats.pearsonr([est[n] for n in names], truth).statistic >= 0.85
    models = {r["rater"]: r["ability"] for r in raters if r["rater_set"].startswith("model:")}
    assert models["gpt-4o"] > models["qwen"] > models["tiny"]


def test_rater_rows_percentiles_and_distributions(report) -> None:
    _study, rows, _ = report
    raters = pd.DataFrame(pick(rows, task="ck", irt="2pl", summary="rater"))
    for g in GROUPS:
        members = raters[raters.rater_set == f"group:{g}"]["ability"].to_numpy()
        d = one(rows, task="ck", irt="2pl", summary="distribution", rater_set=f"group:{g}")
        assert d["n"] == len(members)
        assert d["mean"] == pytest.approx(members.mean())
        assert d["sd"] == pytest.approx(members.std(ddof=1))
        assert d["median"] == pytest.approx(np.median(members))
        gpt = raters[raters.rater == "gpt-4o"]["ability"].iloc[0]
        pct = one(
            rows,
            task="ck",
            irt="2pl",
            summary="model_percentile",
            rater_set=f"group:{g}",
            rater="gpt-4o",
        )
        expected = stats.percentileofscore(members, gpt, kind="mean")
        assert pct["percentile_eap"] == pytest.approx(expected)
        # the plausible-value percentile and its interval (issue 23)
        assert 0 <= pct["pct_low"] <= pct["percentile"] <= pct["pct_high"] <= 100
        assert pct["pct_high"] > pct["pct_low"]
        assert pct["ability"] == pytest.approx(gpt)
    assert (raters["se"] > 0).all()
    # accuracy column is the share right over the units used
    fit = one(rows, task="ck", irt="2pl", summary="fit")
    assert fit["n_raters"] == len(raters) and fit["converged"]
    assert fit["aic"] == pytest.approx(2 * 2 * fit["n_units"] - 2 * fit["loglik"])


def test_what_was_left_out_is_said(report) -> None:
    _study, rows, _ = report
    left = pick(rows, task="ck", summary="left_out")
    reasons = {r["reason"]: r for r in left}
    assert "sparse" in reasons[f"respondents with fewer than {MIN_RESPONSES} keyed answers"]["what"]
    assert "ck-easy" in reasons["units every respondent got right"]["what"]
    assert not pick(rows, task="ck", summary="rater", rater="sparse")
    assert not pick(rows, task="ck", summary="item", item="ck-easy")


def test_item_rows_carry_their_fit(report) -> None:
    _study, rows, _ = report
    items = pick(rows, task="ck", irt="1pl", summary="item")
    assert items and all(r["outfit"] > 0 and r["infit"] > 0 for r in items)
    assert 0.5 < float(np.median([r["infit"] for r in items])) < 1.5


def test_item_rows_carry_s_x2_or_say_why_not(report) -> None:
    _study, rows, _ = report
    items = pick(rows, task="ck", summary="item")
    assert items
    for r in items:
        if r["reason"] is None:
            assert 0 <= r["sx2_p"] <= 1 and r["sx2_df"] >= 1 and r["sx2"] >= 0
        else:
            assert "S-X²" in r["reason"] and np.isnan(r["sx2_p"])
