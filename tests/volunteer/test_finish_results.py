"""A finish page worth sharing (issue 25 item 9; ``Study.finish_results``, off by
default): the volunteer's score, their place among the finished volunteers of their group
(from the stored responses), each answer with the right one and its explanation from the
pool, and a share image (PNG, drawn on the server) at its own address. A study that must
not reveal answers (the setting off) shows none of it, and the image's address is a 404."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
import zxingcpp
from django.test import Client
from django.utils import timezone
from PIL import Image
from scipy.stats import percentileofscore

from annotation import services
from annotation.models import Participant
from annotation.results import percentile
from annotation.share_image import HEIGHT, WIDTH
from studies.models import Study
from tests.volunteer.conftest import answer_for, build_study, enrol
from tests.volunteer.pages import Volunteer

pytestmark = pytest.mark.django_db


def finish_all(p: Participant, *, right: int) -> Participant:
    """Answer every claim, the first ``right`` of them right, then finish."""
    now, n = timezone.now(), 0
    while (a := services.assignment_next(participant=p, now=now)) is not None:
        given = answer_for(a.task.kind, a.option_order, correct=n < right)
        services.response_submit(participant=p, assignment_id=a.pk, **given)
        n += 1
    return services.participant_finish(participant=p)


def volunteer_finishing(study: Study, *, right: int) -> Volunteer:
    """A volunteer through the pages: consent, screening into group A, every question
    (the first ``right`` answered right), the finish page."""
    v = Volunteer(study.slug)
    v.consent()
    v.screen(0)
    p = Participant.objects.order_by("-pk").first()
    assert p is not None
    finish_all(p, right=right)
    return v


@pytest.fixture
def study() -> Study:
    return build_study(n_items=6, per_participant=4, target=9, finish_results=True)


@pytest.mark.parametrize(
    ("mine", "scores"),
    [
        (0.5, [0.25, 0.5, 0.75, 1.0]),
        (1.0, [0.0, 1.0]),
        (0.5, [0.5, 0.5, 0.5, 0.25, 0.75, 0.75, 1.0]),
        (0.0, [0.0, 0.2, 0.4, 0.6]),
    ],
)
def test_percentile_is_scipys_mean_percentile_of_score(mine: float, scores: list[float]) -> None:
    # the mid-rank percentile is scipy's percentileofscore(kind="mean"): the average of
    # the shares strictly below and at or below
    assert percentile(mine, scores) == round(percentileofscore(scores, mine, kind="mean"))


def test_alone_there_is_no_place_to_give() -> None:
    assert percentile(1.0, [1.0]) is None


@pytest.mark.slow
def test_off_by_default_shows_no_score_and_the_image_is_a_404() -> None:
    study = build_study(n_items=6, per_participant=4, target=9)
    assert study.finish_results is False
    v = volunteer_finishing(study, right=3)
    page = v.client.get(v.url("finish/"))
    html = page.content.decode()
    assert page.status_code == 200 and 'id="completion-code"' in html
    assert 'id="score"' not in html and "SECRET-EXPLANATION" not in html
    assert "share.png" not in html
    assert v.client.get(v.url("finish/share.png")).status_code == 404


def test_on_the_page_shows_score_place_and_explanations(study: Study) -> None:
    for right in (0, 1, 2):  # three others of group A finished before
        finish_all(enrol(study, group="A"), right=right)
    finish_all(enrol(study, group="B"), right=4)  # another group: not compared
    v = volunteer_finishing(study, right=3)
    html = v.client.get(v.url("finish/")).content.decode()
    score = re.search(r'id="score">([^<]*)<', html)
    assert score is not None and {"3", "4"} <= set(score.group(1))  # 3 of 4 right
    # ahead of 3 of the 4 finished volunteers of group A (itself counted half): 88 %
    assert "88%" in html and 'id="place"' in html
    assert html.count('class="answer ') == 4 and "SECRET-EXPLANATION" in html
    assert html.count("right-answer") == 4 and "opt" in html
    assert 'src="/s/s/finish/share.png"' in html


def test_the_share_image_is_a_png_of_the_expected_size(study: Study) -> None:
    v = volunteer_finishing(study, right=2)
    response = v.client.get(v.url("finish/share.png"))
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    image = Image.open(io.BytesIO(response.content))
    image.verify()
    image = Image.open(io.BytesIO(response.content))
    assert image.format == "PNG" and image.size == (WIDTH, HEIGHT)
    # drawn: the page is not blank (the QR code's dark modules and the text)
    dark = sum(image.convert("L").histogram()[:80])
    assert dark > 5000
    # its QR code reads as the study's public link
    (code,) = zxingcpp.read_barcodes(image)
    assert code.text == "http://testserver/s/s/"


def test_no_image_before_finishing_or_without_a_participation(study: Study) -> None:
    assert Client().get("/s/s/finish/share.png").status_code == 404
    v = Volunteer(study.slug)
    v.consent()
    v.screen(0)
    assert v.client.get(v.url("finish/share.png")).status_code == 404


def test_the_answer_keys_never_reach_an_unfinished_volunteer(study: Study) -> None:
    v = Volunteer(study.slug)
    v.consent()
    v.screen(0)
    page: Any = v.question_page()
    assert "SECRET-EXPLANATION" not in page.content.decode()
    assert v.client.get(v.url("finish/")).status_code == 302  # to the questions
