"""Issue 25, the finish page with results, in Chromium at 360×640 and 390×844: after the
last answer the page shows the score, the place in the group and each answer's
explanation, fits the screen's width, and has no accessibility violation; its share
image link returns a PNG that decodes (Pillow) at the documented 750 × 1000 px. With the
study's ``finish_results`` off, the same volunteer's page shows the code and no results,
and the share image is a 404."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.utils import timezone
from PIL import Image

from annotation import services
from annotation.models import Participant
from studies.models import Study
from tests.browser.conftest import Axe
from tests.browser.layout import PHONES
from tests.volunteer.conftest import answer_for, build_study, enrol

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning"),
]
N_ITEMS = 4

WIDTH = """() => ({page: document.scrollingElement.scrollWidth, screen: innerWidth})"""


def _others(study: Study, rights: list[bool]) -> None:
    """Finished volunteers of group A, each answering every item right or wrong."""
    for right in rights:
        p = enrol(study, group="A")
        while (a := services.assignment_next(participant=p, now=timezone.now())) is not None:
            given = answer_for(a.task.kind, a.option_order, correct=right)
            services.response_submit(participant=p, assignment_id=a.pk, **given)
        services.participant_finish(participant=p)


def _take_part(page: Any, base: str, slug: str) -> None:
    """Consent, resume code, screening (group A), then every question: the option whose
    text the item's key names is chosen (all right)."""
    page.set_default_timeout(30_000)
    page.goto(f"{base}/s/{slug}/")
    page.click("label.check")
    with page.expect_navigation():
        page.click("form.consent-form button[type=submit]")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    page.locator("label.option").first.click()  # screening: Option A
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    for _ in range(N_ITEMS + 2):
        if "/finish/" in page.url:
            return
        # build_study's key is the canonical option 2, whose text ends in "-2"
        page.locator("label.option", has_text="-2").first.click()
        with page.expect_navigation():
            page.click("form.question-form button[type=submit]")
    assert "/finish/" in page.url, page.url


@pytest.mark.parametrize("size", list(PHONES))
def test_the_finish_page_shows_results_and_a_share_image_that_decodes(
    browser: Any, live_server: Any, transactional_db: Any, size: str
) -> None:
    study = build_study(
        n_items=N_ITEMS, per_participant=N_ITEMS, target=9, slug="fin", finish_results=True
    )
    _others(study, [False, False, True])  # 0 %, 0 % and 100 % right before this volunteer
    context = browser.new_context(**PHONES[size], locale="zh-CN")
    page = context.new_page()
    try:
        _take_part(page, live_server.url, study.slug)
        me = Participant.objects.filter(study=study).order_by("-pk").first()
        assert me is not None and me.status == Participant.Status.FINISHED
        assert page.locator("#completion-code").inner_text().strip() == me.completion_code
        score = page.locator("#score")
        assert score.is_visible() and f"{N_ITEMS}" in score.inner_text()
        # hand-checked mid-rank place: below it 2 of 4 (the two at 0 %), tied with 2
        # (the one at 100 % and itself): (2 + 2/2) / 4 = 75 %
        place = page.locator("#place")
        assert place.is_visible() and "75" in place.inner_text(), place.inner_text()
        explanations = page.locator("ol.answers .explanation")
        assert explanations.count() == N_ITEMS
        assert all(e.is_visible() for e in explanations.all()[:1])
        assert "SECRET-EXPLANATION" in explanations.first.inner_text()
        width = page.evaluate(WIDTH)
        assert width["page"] <= width["screen"], width
        Axe().check(page, f"finish page at {size}")
        href = page.get_attribute("#share-link", "href")
        assert href is not None
        reply = page.request.get(f"{live_server.url}{href}")
        assert reply.status == 200 and reply.headers["content-type"] == "image/png"
        body = reply.body()
        assert 10_000 < len(body) < 2_000_000, len(body)
        image = Image.open(io.BytesIO(body))
        image.load()  # decodes the whole image
        assert image.format == "PNG" and image.size == (750, 1000)
        # the setting off: the code stays, the results and the image go
        Study.objects.filter(pk=study.pk).update(finish_results=False)
        page.reload()
        assert page.locator("#completion-code").is_visible()
        assert page.locator("#score").count() == 0 and page.locator("#share-link").count() == 0
        assert page.request.get(f"{live_server.url}{href}").status == 404
    finally:
        context.close()
