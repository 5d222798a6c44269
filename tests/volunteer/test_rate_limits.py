"""Rate limits on enrolment, resume-code guesses and answers, on pages and API alike."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotation.models import Participant
from tests.volunteer.pages import Volunteer

pytestmark = pytest.mark.django_db


@pytest.fixture
def limits(settings):  # type: ignore[no-untyped-def]
    settings.RATE_LIMITS = {"enrol": "3/min", "resume": "2/min", "answer": "2/min"}
    return settings.RATE_LIMITS


def test_enrolment_pages_are_limited_per_client_address(demo_study, limits) -> None:  # type: ignore[no-untyped-def]
    for _ in range(3):
        assert (
            Volunteer(demo_study.slug)
            .client.post(f"/s/{demo_study.slug}/", {"consent": "on"})
            .status_code
            == 302
        )
    refused = Volunteer(demo_study.slug).client.post(f"/s/{demo_study.slug}/", {"consent": "on"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert Participant.objects.count() == 3
    other = Volunteer(demo_study.slug).client.post(
        f"/s/{demo_study.slug}/", {"consent": "on"}, REMOTE_ADDR="127.0.0.9"
    )
    assert other.status_code == 302


def test_enrolment_api_is_limited_and_says_when_to_retry(demo_study, limits) -> None:  # type: ignore[no-untyped-def]
    url = f"/api/v1/volunteer/studies/{demo_study.slug}/enrol/"
    body = {"consent": True, "screening": {"education": 0}}
    codes = [APIClient().post(url, body, format="json").status_code for _ in range(4)]
    assert codes == [201, 201, 201, 429]


def test_resume_code_guessing_is_limited(demo_study, limits) -> None:  # type: ignore[no-untyped-def]
    client = Volunteer(demo_study.slug).client
    codes = [
        client.post(f"/s/{demo_study.slug}/resume/", {"code": f"WRONG{i}"}).status_code
        for i in range(3)
    ]
    assert codes == [400, 400, 429]
    api = [
        APIClient()
        .post(
            f"/api/v1/volunteer/studies/{demo_study.slug}/resume/", {"code": "NOPE"}, format="json"
        )
        .status_code
        for _ in range(3)
    ]
    assert api[-1] == 429


def test_answers_are_limited_per_participant_not_per_address(demo_study, limits) -> None:  # type: ignore[no-untyped-def]
    def volunteer() -> Volunteer:
        v = Volunteer(demo_study.slug)
        v.consent()
        assert v.client.post(v.url("screening/"), {"q-education": "0"}).status_code == 302
        return v

    first, second = volunteer(), volunteer()
    assert first.answer_current().status_code == 302
    assert first.answer_current().status_code == 302
    assert first.answer_current().status_code == 429  # the third answer within a minute
    assert second.answer_current().status_code == 302  # same address, another participant
