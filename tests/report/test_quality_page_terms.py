"""The quality page's three counts, each under one name (research/quality.py): volunteers
with a quality signal (any check fired; it excludes no one), flagged ones
(``Participant.flagged``: the dashboard's progress table), and those the report excludes
(its ``exclusions`` table); and each answer shown as the volunteer saw it (the option's
shown number and text, a rating's dimension label and scale), in zh-Hans and in English.
A demo study's volunteers behind one address all had a signal, and the page said "8 of 8
flagged" while the dashboard's 已标记 column summed to 4: the words now say which is which."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from annotation import services
from annotation.models import Participant, Response
from research.dashboard.progress import funnel
from scoring.report.build import build_report
from studies.models import Study, Task
from studies.verse import first_words
from tests.report.test_quality_checks import exclusion, take_part, world  # noqa: F401
from tests.report.visible_text import english_sentences, visible_text
from tests.volunteer.conftest import build_study, enrol

pytestmark = pytest.mark.django_db


def counts(page: str) -> dict[str, int]:
    return {k: int(n) for k, n in re.findall(r'data-count="(\w+)" data-n="(\d+)"', page)}


def text_of(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


@pytest.fixture
def boss(django_user_model: Any) -> Client:
    client = Client()
    client.force_login(django_user_model.objects.create_superuser("boss", "b@example.org", "pw"))
    return client


def test_signals_flagged_and_excluded_are_counted_apart_and_match_the_dashboard_and_report(
    world: dict[str, Any],  # noqa: F811
    boss: Client,
) -> None:
    study, people = world["study"], world["people"]
    url = reverse("research:quality", args=[study.pk])
    # Everyone of the same address: every one of them gets the duplicate signal, as in the
    # demo; none of them is flagged or excluded for it.
    Participant.objects.filter(study=study).update(address="a" * 32)
    boss.cookies["django_language"] = "zh-hans"
    data = {"participant": people["speeder"].public_id, "decision": "exclude", "reason": "speeder"}
    assert boss.post(url, data).status_code == 302
    page = boss.get(url).content.decode()
    n_all = Participant.objects.filter(study=study, is_test=False).count()
    dashboard_flagged = sum(f.flagged for f in funnel(study))
    report = build_report(study)
    by_flag = exclusion(report, "flagged participants")["n_participants"]
    by_decision = exclusion(report, "excluded by a researcher: speeder")["n_participants"]
    assert (dashboard_flagged, by_flag, by_decision) == (1, 1, 1)
    assert counts(page) == {"signals": n_all, "flagged": dashboard_flagged, "excluded": 2}
    assert counts(page)["excluded"] == by_flag + by_decision
    text = text_of(page)
    assert (
        f"有质量提示：{n_all} 名志愿者中 {n_all} 名" in text
        and "仅有质量提示不会排除任何人" in text
    )
    assert "已标记：1 名" in text and "被排除（报告不计入）：2 名" in text
    assert "名被标记" not in text  # the old sentence that called every signal "flagged"
    # No English on the zh-Hans page but the study's own title (data).
    assert english_sentences(visible_text(page), min_words=2) == [study.title]
    # Each row says whether the report leaves that volunteer out, and why.
    excluded = {}
    for section in page.split('<section class="participant" id="p-')[1:]:
        found = re.search(r'data-excluded="(\w+)"', section)
        if found:
            excluded[section.split('"')[0]] = found.group(1)
    assert excluded[people["attention"].public_id] == "flagged"
    assert excluded[people["speeder"].public_id] == "decision"
    assert len(re.findall(r"data-excluded=", page)) == 2
    assert len(re.findall(r'data-flagged="1"', page)) == dashboard_flagged
    # With the study's rule off, the flagged stay in the report, and the page says so.
    Study.objects.filter(pk=study.pk).update(exclude_flagged=False)
    study.refresh_from_db()
    page = boss.get(url).content.decode()
    report = build_report(study)
    by_flag_off = exclusion(report, "flagged participants")
    assert by_flag_off["n_responses"] == 0 and counts(page)["excluded"] == 1
    assert "已标记者仍计入" in text_of(page)
    boss.cookies["django_language"] = "en"
    page = boss.get(url).content.decode()
    assert "With a quality signal:" in page and "volunteers flagged" not in page


CHINESE_DIMENSIONS = [
    {"key": "informativeness", "label": "信息量", "min": 1, "max": 5},
    {"key": "aesthetic", "label": "审美", "min": 1, "max": 7, "labels": {"7": "极美"}},
]


@pytest.fixture
def answered(boss: Client) -> dict[str, Any]:
    study = build_study(
        n_items=1, kinds=("choice", "best_worst", "multi", "rating"), per_participant=1,
        shuffle_options=True,
    )  # fmt: skip
    Task.objects.filter(study=study, kind="rating").update(dimensions=CHINESE_DIMENSIONS)
    p = enrol(study, group="A")
    shown_at: dict[str, dict[str, list[int]]] = {}
    while (a := services.assignment_next(participant=p)) is not None:
        order = a.option_order
        shown_at[a.task.kind] = order
        given: dict[str, Any]
        if a.task.kind == "choice":
            given = {"answer": 0}  # the first option shown
        elif a.task.kind == "best_worst":
            given = {"answer": {"best": 1, "worst": 2}}
        elif a.task.kind == "multi":
            given = {"answer": {"who": 3, "what": 0}}
        else:
            given = {"ratings": {"informativeness": 4, "aesthetic": 7}}
        services.response_submit(participant=p, assignment_id=a.pk, **given)
    Participant.objects.filter(pk=p.pk).update(flagged=True)  # listed on the page
    return {"study": study, "participant": p, "orders": shown_at}


def answer_rows(page: str) -> list[tuple[str, str, str]]:
    rows = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td><td[^>]*>([^<]*)</td>", page)
    return [(html.unescape(i), html.unescape(f), html.unescape(a)) for i, f, a in rows]


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_answers_show_the_option_and_the_dimension_the_volunteer_saw(
    answered: dict[str, Any], boss: Client, language: str
) -> None:
    study, orders = answered["study"], answered["orders"]
    boss.cookies["django_language"] = language
    page = boss.get(reverse("research:quality", args=[study.pk])).content.decode()
    rows = answer_rows(page)
    assert len(rows) == Response.objects.filter(study=study).count() == 7
    shown = {(item.split("-")[1], field): answer for item, field, answer in rows}
    zh = language == "zh-hans"
    # choice: the first option shown, by its number and text (canonical index as stored).
    first = orders["choice"]["answer"][0]
    assert shown[("choice", "您的答案" if zh else "Your answer")] == f"1 · opt0-{first}"
    stored = Response.objects.get(study=study, task__kind="choice").value
    assert stored == first  # the stored 0-based value is not what the page shows
    # best–worst: whole poems, "Poem n" and the first words, under the page's headings.
    best = orders["best_worst"]["answer"][1]
    heading = "哪一首最好？" if zh else "Which poem is the best?"
    poem = ("第 2 首" if zh else "Poem 2") + f" · {first_words(f'opt0-{best}')}"
    assert shown[("best_worst", heading)] == poem
    # multi: each part under its prompt.
    assert shown[("multi", "Who?")] == f"4 · opt0-{orders['multi']['who'][3]}"
    assert shown[("multi", "What?")] == f"1 · opt0-{orders['multi']['what'][0]}"
    # rating: the dimension's label (not its key), the point on its scale, a point's label.
    assert shown[("rating", "信息量")] == "4 / 1–5"
    assert shown[("rating", "审美")] == "7 / 1–7 · 极美"
    answers_table = " ".join(f"{f} {a}" for _, f, a in rows)
    assert "informativeness" not in answers_table and "aesthetic" not in answers_table
    assert not re.search(r"\d\.0\b", answers_table)
