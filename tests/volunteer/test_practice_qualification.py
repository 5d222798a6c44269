"""Practice and qualification (issue 25 item 2; docs/running-a-study.md): declared in the
study file, refused at file/line/field when wrong; practice answers shown with the right
answer and its explanation and never counted (report, exports, balance, tallies,
``tallies_recount --check``); the qualification routes by score to a group, or to the
polite end page, and the report's exclusions count those who failed."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any, cast

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from annotation.exports import export_rows
from annotation.models import Assignment, Participant, Response, Tally
from scoring.report.build import build_report
from studies.models import Study, Task

pytestmark = pytest.mark.django_db

STUDY: dict[str, Any] = {
    "slug": "pq",
    "title": "练习与资格",
    "status": "open",
    "groups": [{"slug": "A", "name": "甲"}, {"slug": "C", "name": "丙"}],
    "tasks": [
        {"slug": "warm", "title": "练习", "kind": "choice"},
        {"slug": "qual", "title": "资格", "kind": "choice"},
        {"slug": "ck", "title": "常识", "kind": "choice", "per_participant": 2},
    ],
    "practice": {"task": "warm"},
    "qualification": {
        "task": "qual",
        "routes": [{"min_score": 2, "group": "C"}, {"min_score": 1, "group": "A"}],
    },
}


def item(id_: str, task: str, answer: int = 1) -> dict[str, Any]:
    options = [
        {"text": f"{id_}-甲", "explanation": f"{id_} 甲的解释"},
        {"text": f"{id_}-乙", "explanation": f"{id_} 乙的解释：正确"},
        {"text": f"{id_}-丙"},
    ]
    return {"id": id_, "task": task, "stem": f"{id_} 题干", "options": options, "answer": answer}


POOL = [
    item("w1", "warm"),
    item("w2", "warm"),
    item("q1", "qual"),
    item("q2", "qual"),
    *(item(f"c{i}", "ck") for i in range(4)),
]


def load(tmp_path: Path, study: dict[str, Any] = STUDY, pool: list[Any] = POOL) -> Study:
    (tmp_path / "study.json").write_text(json.dumps(study, ensure_ascii=False), encoding="utf-8")
    lines = "\n".join(json.dumps(r, ensure_ascii=False) for r in pool)
    (tmp_path / "pool.jsonl").write_text(lines + "\n", encoding="utf-8")
    call_command("load_study", str(tmp_path / "study.json"), stdout=io.StringIO())
    call_command("load_pool", str(tmp_path / "pool.jsonl"), "--study", "pq", stdout=io.StringIO())
    return Study.objects.get(slug="pq")


def refusal(tmp_path: Path, study: dict[str, Any]) -> str:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(study, ensure_ascii=False, indent=1), encoding="utf-8")
    with pytest.raises(CommandError) as exc:
        call_command("load_study", str(path), stdout=io.StringIO())
    return str(exc.value)


def consent(client: Client, slug: str = "pq") -> Participant:
    assert client.post(f"/s/{slug}/", {"consent": "on"}).status_code == 302
    return Participant.objects.order_by("-pk").first()  # type: ignore[return-value]


def answer_warmup(client: Client, choices: list[int]) -> list[Any]:
    """Answer the practice then qualification pages with ``choices`` in order; the pages
    that followed each answer."""
    pages = []
    for choice in choices:
        page = client.get("/s/pq/practice/")
        assert page.status_code == 200, page.status_code
        html = page.content.decode()
        item_id = html.split('name="item" value="')[1].split('"')[0]
        posted = client.post("/s/pq/practice/", {"item": item_id, "f-answer": str(choice)})
        assert posted.status_code == 302
        pages.append(client.get(posted["Location"], follow=True))
    return pages


def tallies(study: Study) -> Counter[tuple[str, int]]:
    rows = Tally.objects.filter(task__study=study).values_list("group__slug", "item_id", "taken")
    return Counter({(g, i): n for g, i, n in rows if n})


def test_the_study_file_declares_them_and_the_tasks_are_never_claimed(tmp_path: Path) -> None:
    study = load(tmp_path)
    assert study.practice_task == "warm"
    assert study.qualification["routes"][0] == {"min_score": 2, "group": "C"}
    assert Task.objects.get(study=study, slug="warm").per_participant == 0
    assert Task.objects.get(study=study, slug="qual").per_participant == 0


@pytest.mark.slow
def test_practice_shows_the_answer_and_explanation_and_is_never_counted(tmp_path: Path) -> None:
    study = load(tmp_path)
    client = Client()
    p = consent(client)
    assert p.group is None and p.warmup.get("held")
    # the questions wait: the claim path sends them to the practice first
    assert client.get("/s/pq/q/", follow=True).redirect_chain[-1][0].endswith("/practice/")
    first, second, *_ = answer_warmup(client, [0, 1, 1, 1])
    wrong = first.content.decode()
    assert "w1-乙" in wrong and "w1 乙的解释：正确" in wrong and "w1 甲的解释" in wrong
    assert 'class="right-answer"' in wrong
    right = second.content.decode()
    assert "w2 乙的解释：正确" in right
    p.refresh_from_db()
    assert (
        p.group is not None and p.group.slug == "C" and p.warmup["score"] == 2 and p.warmup["done"]
    )
    assert set(p.warmup["practice"]) == {"w1", "w2"}
    # nothing of the warm-up is a response, a claim or a tally
    warm_items = list(study.items.filter(task__slug__in=["warm", "qual"]))
    assert not Response.objects.filter(item__in=warm_items).exists()
    assert not Assignment.objects.filter(item__in=warm_items).exists()
    # the questions: only the regular task's items, then the finish
    for _ in range(2):
        page = client.get("/s/pq/q/", {"begin": "ck"})
        html = page.content.decode()
        # stems, not bare ids: a random token on the page (CSRF, resume code) may hold "w1"
        assert "w1 题干" not in html and "q1 题干" not in html
        assignment = html.split('name="assignment" value="')[1].split('"')[0]
        client.post("/s/pq/q/", {"assignment": assignment, "f-answer": "1"})
    assert client.get("/s/pq/q/")["Location"].endswith("/finish/")
    answered = Response.objects.filter(study=study)
    assert {r.item.task.slug for r in answered} == {"ck"} and answered.count() == 2
    exported = list(export_rows(study))
    assert len(exported) == 2 and not {v for r in exported for v in r} & {"w1", "w2", "q1", "q2"}
    assert not any((g, i) for g, i in tallies(study) if i in {w.pk for w in warm_items})
    call_command("tallies_recount", "--check", stdout=io.StringIO())  # exits 0: agrees
    report = build_report(study)
    (accuracy,) = [r for r in report.tables["accuracy"] if r["rater_set"] == "humans"][:1]
    assert accuracy["n_responses"] == 2
    rows = {r["reason"]: r for r in report.tables["exclusions"]}
    practice = rows["practice answers (never counted)"]
    assert (practice["n_participants"], practice["n_responses"]) == (1, 2)
    assert rows["failed qualification"]["n_participants"] == 0


@pytest.mark.parametrize(("choices", "group"), [([1, 1, 1, 1], "C"), ([1, 1, 1, 0], "A")])
def test_qualification_routes_by_score(tmp_path: Path, choices: list[int], group: str) -> None:
    load(tmp_path)
    client = Client()
    p = consent(client)
    answer_warmup(client, choices)
    p.refresh_from_db()
    assert p.group is not None and p.group.slug == group and p.warmup["routed"] == group


def test_a_score_below_every_route_ends_politely_and_is_counted(tmp_path: Path) -> None:
    study = load(tmp_path)
    client = Client()
    p = consent(client)
    *_, last = answer_warmup(client, [1, 1, 0, 0])
    p.refresh_from_db()
    assert p.group is None and p.warmup["failed"] and p.warmup["score"] == 0
    assert last.status_code == 200 and last.request["PATH_INFO"] == "/s/pq/ended/"
    html = last.content.decode()
    assert "Thank you for your time" in html or "感谢您抽出时间" in html
    # every other page of the flow leads back to the end page; nothing is claimed
    for page in ("q/", "screening/", "practice/"):
        assert client.get(f"/s/pq/{page}", follow=True).redirect_chain[-1][0].endswith("/ended/")
    assert not Assignment.objects.filter(participant=p).exists()
    rows = {r["reason"]: r for r in build_report(study).tables["exclusions"]}
    assert rows["failed qualification"]["n_participants"] == 1
    # and the quality page does not call them incomplete
    from annotation.quality import quality_checks

    (checked,) = quality_checks(study, now=p.created_at.replace(year=p.created_at.year + 1))
    assert not checked.flags


def test_the_end_page_is_only_for_those_who_failed(tmp_path: Path) -> None:
    load(tmp_path)
    client = Client()
    consent(client)
    assert client.get("/s/pq/ended/")["Location"].endswith("/q/")


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"practice": {"task": "nope"}}, "practice.task", "is not one of this file's tasks"),
        ({"practice": "warm"}, "practice", "must be an object naming a task"),
        ({"qualification": {"task": "qual"}}, "qualification.routes", "needs at least one route"),
        (
            {"qualification": {"task": "qual", "routes": [{"min_score": 1, "group": "Z"}]}},
            "qualification.routes[0].group",
            "no group 'Z' is defined",
        ),
        (
            {"qualification": {"task": "qual", "routes": [{"min_score": -1, "group": "A"}]}},
            "qualification.routes[0].min_score",
            "must be a whole number",
        ),
        (
            {"qualification": {"task": "warm", "routes": [{"min_score": 1, "group": "A"}]}},
            "qualification.task",
            "cannot be the practice task",
        ),
    ],
)
def test_bad_blocks_are_refused_at_file_line_field(
    tmp_path: Path, change: dict[str, Any], field: str, message: str
) -> None:
    text = refusal(tmp_path, {**STUDY, **change})
    assert "bad.json" in text and field in text and message in text, text
    assert ", line " in text.split(field)[0]  # the line of the field


def test_a_warmup_task_with_its_own_per_participant_is_refused(tmp_path: Path) -> None:
    given = cast(list[dict[str, Any]], STUDY["tasks"])
    tasks = [{**given[0], "per_participant": 5}, *given[1:]]
    text = refusal(tmp_path, {**STUDY, "tasks": tasks})
    assert "tasks[0].per_participant" in text and "leave per_participant out" in text


def test_a_rating_task_cannot_be_a_practice(tmp_path: Path) -> None:
    dims = [{"key": "b", "label": "美", "min": 1, "max": 5}]
    given = cast(list[dict[str, Any]], STUDY["tasks"])
    tasks = [{**given[0], "kind": "rating", "dimensions": dims}, *given[1:]]
    text = refusal(tmp_path, {**STUDY, "tasks": tasks})
    assert "practice.task" in text and "rating task" in text


def test_refusals_are_in_chinese_for_a_chinese_researcher(tmp_path: Path) -> None:
    from django.utils import translation

    from studies.loading.problems import LoadError
    from studies.loading.readers import Source
    from studies.loading.study import validate_study

    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**STUDY, "practice": {"task": "nope"}}), encoding="utf-8")
    with translation.override("zh-hans"), pytest.raises(LoadError) as exc:
        validate_study(Source.from_path(path))
    with translation.override("zh-hans"):
        text = " ".join(p.shown() for p in exc.value.problems)
    assert "不是本文件中的任务" in text, text


def test_a_bad_answer_is_refused_on_the_page_and_nothing_is_recorded(tmp_path: Path) -> None:
    load(tmp_path)
    client = Client()
    p = consent(client)
    for data in ({"item": "w1", "f-answer": "9"}, {"item": "w1", "f-answer": "x"}, {"item": "w1"}):
        page = client.post("/s/pq/practice/", data)
        assert page.status_code == 400 and 'class="error"' in page.content.decode()
    # another item than the one shown: back to the page, nothing recorded
    assert client.post("/s/pq/practice/", {"item": "q2", "f-answer": "1"}).status_code == 302
    assert client.get("/s/pq/practice/", {"after": "nope"}).status_code == 200
    p.refresh_from_db()
    assert "practice" not in p.warmup


def test_staff_previewing_go_through_it_into_the_preview_group(
    tmp_path: Path, django_user_model: Any
) -> None:
    from studies.models import PREVIEW_GROUP

    load(tmp_path)
    staff = Client()
    staff.force_login(django_user_model.objects.create_superuser("boss", "b@example.org", "pw"))
    assert staff.post("/s/pq/preview/", {"consent": "on"}).status_code == 302
    p = Participant.objects.get(is_test=True)
    answer_warmup(staff, [1, 1, 1, 1])
    p.refresh_from_db()
    assert p.group is not None and p.group.slug == PREVIEW_GROUP  # never a real group


def test_the_welcome_page_counts_the_warmup_items(tmp_path: Path) -> None:
    from annotation.selectors import study_outline

    study = load(tmp_path)
    counts = {t.slug: n for t, n in study_outline(study).tasks}
    assert counts == {"warm": 2, "qual": 2, "ck": 2}


def test_practice_alone_places_in_the_screened_group(tmp_path: Path) -> None:
    load(tmp_path, {**STUDY, "qualification": None})
    study = Study.objects.get(slug="pq")
    assert study.qualification == {}
    client = Client()
    p = consent(client)
    *_, last = answer_warmup(client, [0, 0])
    p.refresh_from_db()
    assert p.group is not None and p.group.slug == "A" and "score" not in p.warmup
    assert last.request["PATH_INFO"] == "/s/pq/q/"
