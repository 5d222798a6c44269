"""The raw export reads the study in a fixed number of queries, whatever its size and its
tasks' kinds, and each row still names its item, rater, group and chosen option."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.exports import COLUMNS, export_rows
from annotation.models import Participant, Rater, Response
from studies.kinds import KINDS as REGISTERED
from studies.models import Group, Item, Study
from tests.volunteer.conftest import build_study

pytestmark = pytest.mark.django_db
KINDS = ("choice", "best_worst", "multi", "rating")


def _answered(slug: str, n_items: int) -> Study:
    """A study of every kind with ``n_items`` items each; a volunteer of group B (with a
    recruitment id) and a model answered every item."""
    study = build_study(n_items=n_items, kinds=KINDS, slug=slug)
    volunteer = Rater.objects.create(study=study, kind="human", name=f"{slug}-v1")
    Participant.objects.create(
        study=study, rater=volunteer, group=Group.objects.get(study=study, slug="B"),
        public_id=f"{slug}-v1", resume_code=f"R-{slug}", recruitment={"PROLIFIC_PID": "p1"},
    )  # fmt: skip
    model = Rater.objects.create(study=study, kind="model", name="m", run="r1")
    rows = []
    for item in Item.objects.filter(study=study).select_related("task"):
        fields = {"choice": ["answer"], "best_worst": ["best", "worst"],
                  "multi": ["who", "what"], "rating": ["beauty", "form"]}[item.task.kind]  # fmt: skip
        for rater in (volunteer, model):
            rows += [Response(study=study, task=item.task, item=item, rater=rater, field=f,
                              value=2) for f in fields]  # fmt: skip
    Response.objects.bulk_create(rows)
    return study


def _read(study: Study) -> tuple[list[dict[str, Any]], int]:
    with CaptureQueriesContext(connection) as queries:
        rows = [dict(zip(COLUMNS, row, strict=True)) for row in export_rows(study)]
    return rows, len(queries)


def test_an_export_reads_a_fixed_number_of_queries_whatever_the_study_size() -> None:
    assert set(KINDS) == set(REGISTERED)  # a new kind is exported here too
    small, small_queries = _read(_answered("small", 2))
    large, large_queries = _read(_answered("large", 20))
    assert len(small) == Response.objects.filter(study__slug="small").count() == 2 * 2 * 7
    assert len(large) == Response.objects.filter(study__slug="large").count() == 20 * 2 * 7
    # Tasks, items, raters, the preview's test raters (left out) and the responses (one
    # chunk each here): not one per item or row.
    assert small_queries == large_queries <= 5


def test_each_row_names_its_item_rater_group_and_chosen_option() -> None:
    rows, _ = _read(_answered("s", 1))
    by = {(r["rater"], r["task"], r["field"]): r for r in rows}
    mine = by[("s-v1", "t0-choice", "answer")]
    assert (mine["item"], mine["rater_kind"], mine["group"], mine["group_name"]) == (
        "t0-choice-0000", "human", "B", "Group B")  # fmt: skip
    assert mine["option_text"] == "opt0-2" and mine["value"] == 2
    assert mine["recruitment"] == '{"PROLIFIC_PID": "p1"}'
    assert mine["answered_at"].endswith("Z")  # no answered_at: the row's creation time
    assert by[("s-v1", "t2-multi", "who")]["option_text"] == "opt0-2"
    assert by[("m", "t1-best_worst", "worst")]["option_text"] == "opt0-2"
    model = by[("m", "t3-rating", "beauty")]
    assert (model["run"], model["group"], model["recruitment"], model["option_text"]) == (
        "r1", "", "", "")  # fmt: skip


def test_a_rater_of_another_study_is_named_too() -> None:
    """A response whose rater belongs to another study (no loader of the platform makes
    one, but a database may hold it) is exported with that rater's name and kind."""
    study = _answered("s", 1)
    other = Study.objects.create(slug="other", title="Other", consent="ok")
    stranger = Rater.objects.create(study=other, kind="model", name="stranger", run="x")
    item = Item.objects.filter(study=study, task__kind="choice").first()
    assert item is not None
    Response.objects.create(study=study, task=item.task, item=item, rater=stranger,
                            field="answer", value=1)  # fmt: skip
    rows, _ = _read(study)
    [row] = [r for r in rows if r["rater"] == "stranger"]
    assert (row["rater_kind"], row["run"], row["group"], row["option_text"]) == (
        "model", "x", "", "opt0-1")  # fmt: skip
