"""The ``items`` table on the CP-DUE-style study (SYNTHETIC): every value recomputed
here with pandas and scipy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from scoring.report import ReportSettings, build_report
from tests.report.cpdue import cpdue_study
from tests.report.worked import one, pick

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(db):
    return cpdue_study()


def with_rest(frame: pd.DataFrame) -> pd.DataFrame:
    """Each response's rest score: the person's share right on their other answers."""
    out = frame.copy()
    total = out.groupby("rater")["correct"].transform("sum")
    count = out.groupby("rater")["correct"].transform("count")
    out["rest"] = (total - out["correct"]) / (count - 1)
    return out


def kelley(frame: pd.DataFrame, ids: dict[str, int]) -> tuple[set[str], set[str]]:
    share = frame.groupby("rater")["correct"].mean().rename("share").reset_index()
    share["id"] = share["rater"].map(ids)
    share = share.sort_values(["share", "id"])
    k = round(0.27 * len(share))
    return set(share["rater"].iloc[-k:]), set(share["rater"].iloc[:k])


@pytest.mark.slow
def test_item_difficulty_discrimination_and_options(study) -> None:
    rows = build_report(study.builder.study, ReportSettings(n_boot=0)).tables["item_analysis"]
    ids = {name: r.pk for name, r in study.builder.raters.items()}
    people = study.frame[study.frame.kind == "human"]
    for task in ("ck", "au"):
        part = with_rest(people[people["item"].str.startswith(task)])
        upper, lower = kelley(part, ids)
        for (item, fld), unit in part.groupby(["item", "field"]):
            row = one(rows, summary="item", rater_set="humans", item=item, field=fld)
            assert row["n"] == len(unit)
            assert row["difficulty"] == pytest.approx(unit["correct"].mean())
            if unit["correct"].nunique() > 1:
                r = stats.pearsonr(unit["correct"], unit["rest"]).statistic
                assert row["discrimination"] == pytest.approx(r)
            up = unit[unit.rater.isin(upper)]["correct"].mean()
            lo = unit[unit.rater.isin(lower)]["correct"].mean()
            assert row["d_index"] == pytest.approx(up - lo)
            for o in range(4):
                opt = one(
                    rows, summary="option", rater_set="humans", item=item, field=fld, option=o
                )
                picked = (unit["value"] == o).astype(float)
                assert opt["share"] == pytest.approx(picked.mean())
                assert opt["key"] is (o == 0)
                if picked.nunique() > 1:
                    pb = stats.pearsonr(picked, unit["rest"]).statistic
                    assert opt["point_biserial"] == pytest.approx(pb)
    # per group: difficulty over the group's people only
    group_c = people[(people.group == "C") & (people["item"] == "ck-03")]
    row = one(rows, summary="item", rater_set="group:C", item="ck-03")
    assert row["difficulty"] == pytest.approx(group_c["correct"].mean())
    # models are not in the item analysis
    assert not pick(rows, rater_set="models")


@pytest.mark.slow
def test_flags_name_the_items_that_hurt(study) -> None:
    rows = build_report(study.builder.study, ReportSettings(n_boot=0)).tables["item_analysis"]
    flags = {
        r["item"]: r["flags"].split(",")
        for r in pick(rows, summary="item", rater_set="humans", field="answer")
    }
    assert "everyone_right" in flags["ck-easy"]
    assert "negative_discrimination" in flags["ck-badkey"]
    assert "distractor_draws_strong" in flags["ck-lure"]
    lure = one(rows, summary="option", rater_set="humans", item="ck-lure", option=3)
    assert lure["flags"] == "draws_strong" and lure["share_upper"] > lure["share_lower"]
    easy = one(rows, summary="item", rater_set="humans", item="ck-easy")
    assert np.isnan(easy["discrimination"]) and "no spread" in easy["reason"]
    ordinary = [f for item, f in flags.items() if item.startswith("ck-0")]
    assert sum("negative_discrimination" in f for f in ordinary) <= 3
