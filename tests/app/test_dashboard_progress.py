"""The dashboard's items below target (research.dashboard.running, and the from-scratch
reference tests/app/progress_reference.below_target), counted
by hand on a small study: distinct human raters per item and group, attention checks,
test participants and machine raters left out."""

from __future__ import annotations

import pytest

from annotation.models import Participant, Rater, Response
from research.dashboard import running
from studies.models import Group, Item, Study, Task
from tests.app.progress_reference import below_target


@pytest.mark.django_db
def test_below_target_by_hand() -> None:
    study = Study.objects.create(slug="p", title="p")
    a = Group.objects.create(study=study, slug="a", name="a", position=0, target_per_item=2)
    b = Group.objects.create(study=study, slug="b", name="b", position=1, target_per_item=1)
    task = Task.objects.create(study=study, slug="t", title="t", kind="rating", position=0,
                               dimensions=[{"key": "x", "label": "x", "min": 1, "max": 5},
                                           {"key": "y", "label": "y", "min": 1, "max": 5}])  # fmt: skip
    i1, i2, check = (
        Item.objects.create(
            study=study, task=task, external_id=e, position=k, is_attention_check=e == "c"
        )
        for k, e in enumerate(("i1", "i2", "c"))
    )

    def person(name: str, group: Group, *, test: bool = False) -> Rater:
        rater = Rater.objects.create(study=study, kind="human", name=name)
        Participant.objects.create(study=study, rater=rater, group=group, public_id=name,
                                   status="finished", is_test=test)  # fmt: skip
        return rater

    def answer(rater: Rater, item: Item) -> None:
        for field in ("x", "y"):  # two responses per answer: one rater still counts once
            Response.objects.create(study=study, task=task, item=item, rater=rater,
                                    field=field, value=3.0)  # fmt: skip

    p1, p2, p3 = person("p1", a), person("p2", a), person("p3", b)
    tester = person("t", b, test=True)
    model = Rater.objects.create(study=study, kind="model", name="m")
    for rater, item in ((p1, i1), (p2, i1), (p3, i1)):  # i1: a 2/2, b 1/1 -> reached
        answer(rater, item)
    for rater in (p1, tester, model):  # i2: a 1/2, b 0/1 (test and model aside) -> 2 missing
        answer(rater, i2)
    answer(p1, check)  # checks never count
    # By hand: 2 regular items, 1 below target, 2 answers missing (a needs 1, b needs 1).
    assert below_target(study) == [
        {"task": "t", "title": "t", "items": 2, "below": 1, "missing": 2}
    ]
    # and the dashboard's own counts (kept up to date between views), the same by hand
    assert [(r["n_items"], r["below"], r["missing"]) for r in running.task_progress(study)] == [
        (2, 1, 2)
    ]
