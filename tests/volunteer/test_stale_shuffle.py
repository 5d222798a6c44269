"""Reloading an item with another number of options never maps an answer through the
shuffle drawn for the old options (clicked 浣溪沙, stored 南乡子).

A reload that changes the options of an item with answers or open claims is refused
with its line and field, unless a remap says where each option went; then the item's
open claims are released with their shuffles, and whoever held one gets a fresh question. Whatever the path, an answer whose order does not fit
the item as it is now is refused, and the claim gets an order that fits."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from rest_framework.test import APIClient

from annotation import services
from annotation.models import Assignment, Response
from studies.loading.problems import LoadError
from studies.loading.readers import Source
from studies.models import Item
from tests.loading.helpers import loader, snapshot
from tests.present import present
from tests.volunteer.conftest import build_study, enrol
from tests.volunteer.pages import Volunteer

pytestmark = pytest.mark.django_db
pool_load = loader("pool")
ANSWERS = "/api/v1/volunteer/answers/"
NAMES = ["浣溪沙", "南乡子", "菩萨蛮", "蝶恋花"]


def _pool(study, *, options: dict[str, list[str]] | None = None, parts=None) -> Source:
    """The study's items as a pool file, with some items' options replaced."""
    lines = []
    for item in Item.objects.filter(study=study).select_related("task").order_by("pk"):
        line: dict[str, Any] = {"id": item.external_id, "task": item.task.slug, "stem": item.stem}
        if item.task.kind == "multi":
            line["parts"] = (parts or {}).get(item.external_id) or [
                {"key": p["key"], "prompt": p["prompt"], "options": [o["text"] for o in p["options"]],
                 "answer": present(item.answer)[p["key"]]}
                for p in item.parts
            ]  # fmt: skip
        else:
            opts = (options or {}).get(item.external_id) or [o["text"] for o in item.options]
            line.update(options=opts, answer=min(present(item.answer)["answer"], len(opts) - 1))
        lines.append(json.dumps(line, ensure_ascii=False))
    return Source("pool.jsonl", "\n".join(lines).encode(), "jsonl")


def _study_with_a_claim():
    study = build_study(n_items=1, per_participant=1, shuffle_options=True)
    Item.objects.update(options=[{"text": n} for n in NAMES])
    p = enrol(study)
    a = present(services.assignment_next(participant=p))
    a.option_order = {"answer": [1, 0, 2, 3]}  # shown first: 南乡子, then 浣溪沙
    a.save(update_fields=["option_order"])
    return study, p, a


def test_a_reload_changing_an_answered_items_options_is_refused() -> None:
    study, p, a = _study_with_a_claim()
    services.response_submit(participant=p, assignment_id=a.pk, answer=1)  # 浣溪沙
    before = snapshot()
    with pytest.raises(LoadError) as err:
        pool_load(_pool(study, options={"t0-choice-0000": NAMES[:3]}), study=study)
    [problem] = err.value.problems
    assert (problem.file, problem.line, problem.field) == ("pool.jsonl", 1, "options")
    assert "already has answers" in problem.message and "(4 now, 3 in this file)" in problem.message
    assert "1 rater answered it" in problem.message and "--remap" in problem.message
    assert snapshot() == before
    assert Response.objects.get().value == 0  # canonical 浣溪沙, as clicked


def test_a_text_fix_on_an_answered_item_needs_a_remap() -> None:
    study, p, a = _study_with_a_claim()
    services.response_submit(participant=p, assignment_id=a.pk, answer=1)
    fixed = _pool(study, options={"t0-choice-0000": ["浣溪沙 ", *NAMES[1:]]})
    with pytest.raises(LoadError, match="1 rater answered it"):
        pool_load(fixed, study=study)
    pool_load(fixed, study=study, remap={"t0-choice-0000": [0, 1, 2, 3]})
    assert Item.objects.get().options[0]["text"] == "浣溪沙 "
    assert Response.objects.get().value == 0


def test_a_reload_changing_a_claimed_items_options_releases_the_claim() -> None:
    study, p, a = _study_with_a_claim()
    three = _pool(study, options={"t0-choice-0000": NAMES[:3]})
    with pytest.raises(LoadError, match="1 open claim on it"):
        pool_load(three, study=study)
    summary = pool_load(three, study=study, remap={"t0-choice-0000": [0, 1, 2, None]})
    assert not Assignment.objects.filter(pk=a.pk).exists()
    assert [n.code for n in summary.notes] == ["answers_remapped", "claims_released"]
    # The answer the volunteer clicks on the page they still have is refused, not mapped.
    with pytest.raises(ValidationError) as refused:
        services.response_submit(participant=p, assignment_id=a.pk, answer=1)
    assert refused.value.code == "not_yours"
    assert not Response.objects.exists()
    # Their next question is claimed afresh, shuffled over the three options there are now.
    again = present(services.assignment_next(participant=p))
    assert sorted(again.option_order["answer"]) == [0, 1, 2]


def test_through_the_api_the_held_question_is_refused_then_served_afresh() -> None:
    study = build_study(n_items=1, per_participant=1, shuffle_options=True)
    client = APIClient()
    me = client.post(
        "/api/v1/volunteer/studies/s/enrol/", {"consent": True, "screening": {"bg": 0}}, "json"
    ).json()
    client.credentials(HTTP_AUTHORIZATION=f"Participant {me['token']}")
    held = client.get("/api/v1/volunteer/next/").json()["item"]
    assert len(held["fields"][0]["options"]) == 4
    remap = {"t0-choice-0000": [0, 1, 2, None]}
    pool_load(_pool(study, options={"t0-choice-0000": NAMES[:3]}), study=study, remap=remap)
    reply = client.post(ANSWERS, {"assignment": held["assignment"], "answer": 0}, format="json")
    assert reply.status_code == 400 and not Response.objects.exists()
    fresh = client.get("/api/v1/volunteer/next/").json()["item"]
    shown = [o["text"] for o in fresh["fields"][0]["options"]]
    assert sorted(shown) == sorted(NAMES[:3])
    assert (
        client.post(ANSWERS, {"assignment": fresh["assignment"], "answer": 0}, "json").status_code
        == 201
    )
    assert (
        Item.objects.get().options[int(present(Response.objects.get().value))]["text"] == shown[0]
    )


def test_a_multi_part_reload_is_held_to_the_same_rule() -> None:
    study = build_study(kinds=("multi",), n_items=1, per_participant=1, shuffle_options=True)
    p = enrol(study)
    a = present(services.assignment_next(participant=p))
    services.response_submit(participant=p, assignment_id=a.pk, answer={"who": 1, "what": 3})
    parts = [
        {"key": "who", "prompt": "Who?", "options": ["a", "b", "c"], "answer": 1},
        {"key": "what", "prompt": "What?", "options": ["a", "b", "c", "d"], "answer": 3},
    ]
    with pytest.raises(LoadError) as err:
        pool_load(_pool(study, parts={"t0-multi-0000": parts}), study=study)
    [problem] = err.value.problems
    assert problem.field == "parts" and "(who: 4, what: 4 now, who: 3, what: 4" in problem.message


def test_an_answer_is_never_mapped_through_an_order_that_no_longer_fits() -> None:
    """However the options changed (here behind the loader's back), the answer rule
    refuses to map through a stale order, and the claim gets one that fits."""
    _, p, a = _study_with_a_claim()
    Item.objects.update(options=[{"text": n} for n in NAMES[:3]])
    with pytest.raises(ValidationError) as refused:
        services.response_submit(participant=p, assignment_id=a.pk, answer=1)
    assert refused.value.code == "changed"
    assert not Response.objects.exists()
    a.refresh_from_db()
    order = a.option_order["answer"]
    assert sorted(order) == [0, 1, 2]
    services.response_submit(participant=p, assignment_id=a.pk, answer=1)
    assert Response.objects.get().value == order[1]  # the option shown second, as clicked


def test_on_the_page_the_changed_question_is_shown_again_as_it_is_now() -> None:
    build_study(n_items=1, per_participant=1, shuffle_options=True)
    Item.objects.update(options=[{"text": n} for n in NAMES])
    v = Volunteer("s")
    v.consent()
    v.screen(0)
    page = v.question_page()
    _, assignment, _ = Volunteer.form_of(page)
    Item.objects.update(options=[{"text": n} for n in NAMES[:3]])
    reply = v.client.post(v.url("q/"), {"assignment": assignment, "f-answer": "3"})
    assert reply.status_code == 400 and not Response.objects.exists()
    html = reply.content.decode()
    assert "蝶恋花" not in html and all(n in html for n in NAMES[:3])
    first = present(
        re.search(
            r'value="0"[^>]*>\s*<span class="num"[^<]*</span><span class="opt-text">([^<]+)<', html
        )
    )
    ok = v.client.post(v.url("q/"), {"assignment": assignment, "f-answer": "0"})
    assert ok.status_code == 302  # the option shown first is the one stored
    assert NAMES[int(present(Response.objects.get().value))] == first.group(1)
