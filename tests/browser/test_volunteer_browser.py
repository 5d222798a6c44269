"""A volunteer in Chromium completes the demo study (every question kind), on a phone in
Chinese and on a desktop in English; closes the browser half-way and resumes; and a
double-submitted answer is stored once. The export then holds exactly the answers given."""

from __future__ import annotations

import pytest

from annotation.models import Participant, Response
from studies.models import Study
from tests.browser.driver import Volunteer, expected_rows, exported_rows
from tests.present import present

pytestmark = [
    pytest.mark.browser,
    # Django's live server shares the in-memory SQLite connection between its request
    # threads and complains when a thread closes it; harmless here, noisy otherwise.
    pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning"),
]
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}
DESKTOP = {"viewport": {"width": 1280, "height": 860}}


def test_a_new_volunteer_completes_the_demo_in_chinese_on_a_phone(
    browser, demo, live_server, shoot
) -> None:
    context = browser.new_context(**PHONE, locale="zh-CN")
    v = Volunteer(context.new_page(), live_server.url, shoot, "zh-phone", keyboard=True)
    v.consent()
    assert v.page.locator("html[lang=zh-Hans]").count() == 1
    v.screen(option=2)
    code = v.finish()
    p = v.participant()
    assert code == p.completion_code and p.status == "finished" and present(p.group).slug == "C"
    kinds = {k.split("-")[-1] for k in v.shots if k.startswith("5-question")}
    assert kinds == {"choice", "multi", "best_worst", "rating"}
    assert len(v.given) == 13
    rows = exported_rows(demo, p)
    assert len(rows) == len(set(rows)) and set(rows) == expected_rows(v.given)
    context.close()


def test_a_new_volunteer_completes_the_demo_in_english_on_a_desktop(
    browser, demo, live_server, shoot
) -> None:
    context = browser.new_context(**DESKTOP, locale="zh-CN")  # Chinese first; then the switch
    v = Volunteer(context.new_page(), live_server.url, shoot, "en-desktop")
    v.consent(english=True)
    assert v.page.locator("html[lang=en]").count() == 1
    v.screen(option=0)
    assert "Answered 0 of 13" in v.page.content()
    code = v.finish()
    assert "Thank you! You have answered every question." in v.page.content()
    p = v.participant()
    assert code == p.completion_code and present(p.group).slug == "A" and p.language == "en"
    rows = exported_rows(demo, p)
    assert len(rows) == len(set(rows)) and set(rows) == expected_rows(v.given)
    context.close()


def test_closing_the_browser_half_way_and_resuming_with_the_code(
    browser, demo, live_server, shoot
) -> None:
    first = browser.new_context(**PHONE, locale="zh-CN")
    v = Volunteer(first.new_page(), live_server.url, shoot, "resume")
    v.consent()
    v.screen(option=1)
    for _ in range(5):
        v.answer_one()
    first.close()  # the browser is gone, and its cookie with it

    second = browser.new_context(**PHONE, locale="zh-CN")
    page = second.new_page()
    page.goto(v.url())
    with page.expect_navigation():
        page.click("a[href$='/resume/']")
    page.fill("input[name=code]", v.resume_code.lower())
    shoot(page, "resume-7-code-form")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert "已答 5 / 13" in page.content()
    v.page, v.shots = page, {"1-welcome", "2-resume-code", "3-screening", "4-instructions"}
    v.finish()
    p = v.participant()
    assert p.status == "finished" and Participant.objects.count() == 1
    rows = exported_rows(demo, p)
    assert len(rows) == len(set(rows)) and set(rows) == expected_rows(v.given)
    second.close()


def test_a_double_submitted_answer_is_stored_once(browser, demo, live_server, shoot) -> None:
    context = browser.new_context(**DESKTOP, locale="zh-CN")
    v = Volunteer(context.new_page(), live_server.url, shoot, "double")
    v.consent()
    v.screen(option=0)  # the first question follows, with its task's instructions
    v.page.wait_for_selector("form.question-form")
    v.page.locator("form.question-form label.option").nth(0).click()
    # The same POST sent twice (a re-sent request, a double click without JavaScript).
    # One after the other: the live server shares one in-memory SQLite connection between
    # its threads, so truly concurrent copies are tested with threads on PostgreSQL
    # (tests/volunteer/test_concurrency.py).
    statuses = v.page.evaluate(
        """async () => {
            const form = document.querySelector('form.question-form');
            const send = () => fetch(location.href, {method: 'POST', body: new FormData(form), redirect: 'manual'});
            const first = await send();
            const second = await send();
            return [first.type, second.type];
        }"""
    )
    assert statuses == ["opaqueredirect", "opaqueredirect"]  # both saved-and-redirected
    # Then a real double click on the next question's button (the page's script sends once).
    v.page.reload()
    v.page.locator("form.question-form label.option").nth(1).click()
    with v.page.expect_navigation():
        v.page.dblclick("form.question-form button[type=submit]")
    p = v.participant()
    assert Response.objects.filter(rater=p.rater).count() == 2
    assert p.assignments.filter(status="answered").count() == 2
    assert "已答 2 / 13" in v.page.content()
    # The researcher closes the study: the volunteer is told so, politely.
    Study.objects.filter(pk=demo.pk).update(status=Study.Status.CLOSED)
    v.page.reload()
    assert "本研究已结束" in v.page.content()
    shoot(v.page, "closed-study")
    context.close()
