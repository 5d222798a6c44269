"""What the pages say and how (server side; the browser tests check the layout): counts
that match, the time, hidden authors, scale anchors, verse and blanks, the first problem
in focus after a refused answer, the resume-code page."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from annotation.models import Assignment
from studies.models import Item, Study, Task
from tests.present import present
from tests.volunteer.conftest import build_study
from tests.volunteer.pages import Volunteer

pytestmark = pytest.mark.django_db
WECHAT = (
    "Mozilla/5.0 (Linux; Android 13; V2148A Build/TP1A.220624.014; wv) AppleWebKit/537.36 "
    "(KHTML, like Gecko) Version/4.0 Chrome/116.0.0.0 Mobile Safari/537.36 XWEB/1160065 "
    "MMWEBSDK/20231202 MMWEBID/2309 MicroMessenger/8.0.47.2560(0x28002F35) WeChat/arm64 "
    "Weixin NetType/WIFI Language/zh_CN ABI/arm64"
)


def on_question(kind: str, **study: Any) -> tuple[Volunteer, str]:
    build_study(kinds=(kind,), **study)
    v = Volunteer("s")
    v.consent()
    v.screen()
    return v, v.question_page().content.decode()


def test_the_welcome_page_counts_what_progress_counts_and_says_how_long() -> None:
    # 3 items due per task, and 1 attention check each on top (not in rating tasks).
    build_study(kinds=("choice", "best_worst", "rating"), checks=1, per_participant=3)
    html = Client().get("/s/s/").content.decode()
    assert "Task choice · 4 道题" in html and "Task best_worst · 4 道题" in html
    assert "Task rating · 3 道题" in html
    # 60 s setup + 4×20 + 4×90 + 3×(20 + 8×2 dimensions) = 608 s: 11 minutes, rounded up.
    assert "共 11 道题，约需 11 分钟。" in html
    v = Volunteer("s")
    v.consent()
    v.screen()
    assert "已答 0 / 11 题" in v.question_page().content.decode()  # the same 11


def test_the_study_may_announce_its_own_time() -> None:
    build_study(estimated_minutes=25)
    assert "约需 25 分钟" in Client().get("/s/s/").content.decode()


@pytest.mark.parametrize(
    ("kind", "hide", "shown"),
    [
        ("rating", None, False),  # rating and best/worst: hidden unless the study shows them
        ("rating", False, True),
        ("choice", None, True),  # other kinds: shown unless the study hides them
        ("choice", True, False),
    ],
)
def test_authors_are_hidden_where_they_bias_a_judgment(
    kind: str, hide: bool | None, shown: bool
) -> None:
    build_study(kinds=(kind,), hide_authors=hide)
    Item.objects.update(poem_text="床前明月光\n疑是地上霜", poem_author="王炎2")
    v = Volunteer("s")
    v.consent()
    v.screen()
    page = v.question_page().content.decode()
    assert "王炎2" not in page  # a corpus's homonym number, never shown
    assert ('<span class="poem-author">王炎</span>' in page) is shown


def test_best_worst_poems_lose_an_attribution_line_when_authors_are_hidden() -> None:
    study = build_study(kinds=("best_worst",))
    for item in Item.objects.all():
        item.options = [{"text": f"春眠不觉晓{k}\n处处闻啼鸟\n——孟浩然"} for k in range(3)]
        item.save()
    v = Volunteer("s")
    v.consent()
    v.screen()
    page = v.question_page().content.decode()
    assert "孟浩然" not in page and "处处闻啼鸟" in page
    # Each poem is named by its first words in the tabs and in the choices.
    assert page.count('<span class="first-words" lang="zh-Hans">春眠不觉晓…</span>') == 3 * 3
    Study.objects.filter(pk=study.pk).update(hide_authors=False)
    assert "——孟浩然" in v.question_page().content.decode()


def test_the_api_hides_authors_as_the_pages_do() -> None:
    from rest_framework.test import APIClient

    build_study(kinds=("rating",))
    Item.objects.update(poem_author="李清照")
    client = APIClient()
    me = client.post(
        "/api/v1/volunteer/studies/s/enrol/",
        {"consent": True, "screening": {"bg": 0}},
        format="json",
    ).json()
    client.credentials(HTTP_AUTHORIZATION=f"Participant {me['token']}")
    item = client.get("/api/v1/volunteer/next/").json()["item"]
    assert item["item"]["poem"]["author"] == ""
    assert item["fields"][0]["labels"] == {"1": "很差", "5": "很好"}


def test_every_scale_has_its_anchors_at_the_ends_read_with_the_points() -> None:
    _, html = on_question("rating")
    for key in ("beauty", "form"):
        labels = re.findall(
            rf'<label class="option"><input type="radio" name="f-{key}"[^>]*>(.*?)</label>', html
        )
        assert labels[0] == '<span class="opt-text">1</span> <span class="anchor">很差</span>'
        assert labels[-1] == '<span class="opt-text">5</span> <span class="anchor">很好</span>'
        assert all('class="anchor"' not in label for label in labels[1:-1])


def test_a_study_files_point_labels_replace_the_default_anchors() -> None:
    build_study(kinds=("rating",))
    task = Task.objects.get()
    task.dimensions = [
        {"key": "beauty", "label": "Beauty", "min": 1, "max": 3, "labels": {"1": "丑", "3": "美"}},
        {
            "key": "form",
            "label": "Form",
            "min": 1,
            "max": 3,
            "labels": {"1": "乱", "2": "平", "3": "齐"},
        },
    ]
    task.save()
    v = Volunteer("s")
    v.consent()
    v.screen()
    html = v.question_page().content.decode()
    assert '<span class="anchor">丑</span>' in html and '<span class="anchor">美</span>' in html
    assert "很差" not in html
    # Every point labelled: shown as a list (class "labelled"), each label with its point.
    assert 'class="field scale labelled" data-field="form"' in html
    assert '<span class="opt-text">2</span> <span class="anchor">平</span>' in html


def test_anchors_speak_english_on_the_english_pages() -> None:
    build_study(kinds=("rating",))
    v = Volunteer("s")
    v.client.post("/i18n/setlang/", {"language": "en", "next": "/s/s/"})
    v.consent()
    v.screen()
    html = v.question_page().content.decode()
    assert '<span class="anchor">very poor</span>' in html
    assert '<span class="anchor">very good</span>' in html


def test_verse_lines_carry_the_longest_lines_length_and_their_phrases() -> None:
    build_study(kinds=("rating",))
    Item.objects.update(poem_text="明月几时有，把酒问青天。\n不知天上宫阙\n")
    v = Volunteer("s")
    v.consent()
    v.screen()
    html = v.question_page().content.decode()
    assert '<div class="poem" lang="zh-Hans" style="--n: 12">' in html
    assert (
        '<span class="vl"><span class="ph">明月几时有，</span><wbr>'
        '<span class="ph">把酒问青天。</span></span><span class="vl">'
        '<span class="ph">不知天上宫阙</span></span>'
    ) in html


def test_a_blank_is_a_labelled_blank_not_boxes() -> None:
    build_study(kinds=("choice",))
    Item.objects.update(stem="补全：□□□□□，把酒问青天。", poem_text="明月□□□，把酒问青天。")
    v = Volunteer("s")
    v.consent()
    v.screen()
    html = v.question_page().content.decode()
    assert "□" not in html
    assert (
        '补全：<span class="blank" role="img" aria-label="空缺：5 个字" style="--len: 5"></span>'
        in html
    )
    assert (
        '<span class="blank" role="img" aria-label="空缺：3 个字" style="--len: 3"></span>' in html
    )


@pytest.mark.parametrize("kind", ["multi", "rating"])
def test_a_refused_answer_opens_on_the_first_problem(kind: str) -> None:
    v, html = on_question(kind)
    _, assignment, names = v.form_of(v.question_page())
    first, second = names[0], names[1]
    page = v.client.post(v.url("q/"), {"assignment": assignment, first: "1"})
    html = page.content.decode()
    assert page.status_code == 400
    assert html.count("autofocus") == 1  # the page opens on the second part's first option
    assert re.search(
        rf'<input type="radio" name="{second}" value="[^"]+" required  autofocus>', html
    )
    assert 'role="alert"' in html
    assert 'aria-describedby="' in html and f"err-{second[2:]}" in html


def test_a_refused_screening_opens_on_its_first_problem() -> None:
    build_study()
    v = Volunteer("s")
    v.consent()
    html = v.client.post(v.url("screening/"), {}).content.decode()
    assert re.search(r'name="q-bg" value="0" required\s+ autofocus>', html)


def test_the_resume_code_page_says_what_it_is_and_continues_in_one_tap() -> None:
    build_study()
    client = Client()
    start = client.get(client.post("/s/s/", {"consent": "on"})["Location"]).content.decode()
    assert "<h1>您的续答码</h1>" in start and "感谢您的参与" not in start
    assert '<a class="button primary" id="continue" href="/s/s/screening/">' in start
    assert "wechat-note" not in start
    wechat = Client(HTTP_USER_AGENT=WECHAT)
    page = wechat.get(wechat.post("/s/s/", {"consent": "on"})["Location"]).content.decode()
    assert 'id="wechat-note"' in page and "在微信中" in page


def test_an_invited_volunteer_continues_straight_to_the_questions() -> None:
    study = build_study()
    client = Client()
    token = study.groups.get(slug="A").invite_token
    start = client.get(
        client.post(f"/s/s/i/{token}/", {"consent": "on"})["Location"]
    ).content.decode()
    assert '<a class="button primary" id="continue" href="/s/s/q/">开始答题</a>' in start


def test_code_pages_keep_digits_from_becoming_phone_links() -> None:
    build_study()
    assert (
        '<meta name="format-detection" content="telephone=no">'
        in Client().get("/s/s/").content.decode()
    )


def test_the_welcome_page_gives_a_link_preview_its_title_and_description() -> None:
    build_study(description="一项关于宋词的研究。")
    html = Client().get("/s/s/").content.decode()
    assert '<meta property="og:title" content="Test study">' in html
    assert '<meta name="description" content="一项关于宋词的研究。">' in html


def test_assignments_are_untouched_by_showing_a_page() -> None:
    # Showing the page twice serves the same question (the layout reads, never writes).
    v, first = on_question("best_worst")
    again = v.question_page().content.decode()
    pick = re.compile(r'name="assignment" value="(\d+)"')
    assert present(pick.search(first)).group(1) == present(pick.search(again)).group(1)
    assert Assignment.objects.count() == 1
