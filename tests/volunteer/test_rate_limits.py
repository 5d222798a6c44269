"""Rate limits on enrolment, resume-code guesses and answers, on pages and API alike.

Real recruiting: a class of sixty behind one school NAT address enrols within a minute
(each browser is told apart by its cookie, under a much higher per-address ceiling),
directly or behind the documented proxy; one client hammering enrolment or guessing
resume codes is still stopped, without using up its classmates' share; counting is
atomic, so parallel requests never get past a limit."""

from __future__ import annotations

import os
import threading
import uuid
from typing import Any

import pytest
from django.core.cache import caches
from django.test import Client, override_settings
from rest_framework.test import APIClient

from annotation import ratelimit
from annotation.models import Participant
from studies.ratelimits import Rate
from tests.volunteer.pages import Volunteer
from tests.volunteer.test_balance import POSTGRES

pytestmark = pytest.mark.django_db
SCHOOL = "203.0.113.50"  # one NAT address for a whole class
PROXY = "127.0.0.1"  # nginx, on the same machine as gunicorn


@pytest.fixture(autouse=True)
def _mid_window(monkeypatch):
    """The limiter's clock stands still in the middle of a window (and an hour's): a test's
    burst of requests never straddles a window's edge, where a fixed window lets up to
    twice the count through (documented in ``annotation.ratelimit``)."""
    frozen = 1_800_000_030.0  # 30 s into a minute, 30 min into an hour
    monkeypatch.setattr(ratelimit, "clock", lambda: frozen)


@pytest.fixture
def limits(settings):
    settings.RATE_LIMITS = {
        "enrol": "3/min",
        "enrol_address": "100/min",
        "resume": "2/min",
        "resume_address": "100/min",
        "answer": "2/min",
    }
    return settings.RATE_LIMITS


def _browser(**meta: Any) -> Client:
    """A browser that opened the welcome page (and so holds its cookie)."""
    client = Client(**meta)
    assert client.get("/s/song-ci-demo/").status_code == 200
    assert ratelimit.BROWSER_COOKIE in client.cookies
    return client


def _consent(client: Client, **meta: Any) -> int:
    status = client.post("/s/song-ci-demo/", {"consent": "on"}, **meta).status_code
    for name in [n for n in client.cookies if n.startswith("shiping-p")]:
        del client.cookies[name]  # forget the participation: the next POST enrols again
    return status


@pytest.mark.slow
def test_a_class_of_sixty_behind_one_address_enrols_within_a_minute(demo_study) -> None:
    # The site's default limits, as deployed.
    browsers = [_browser(REMOTE_ADDR=SCHOOL) for _ in range(60)]
    assert [_consent(b) for b in browsers] == [302] * 60
    assert Participant.objects.count() == 60


@pytest.mark.slow
def test_a_class_of_sixty_behind_the_proxy_enrols_and_each_school_has_its_ceiling(
    demo_study,
    settings,
) -> None:
    settings.NUM_PROXIES = 1
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "enrol_address": "61/min"}
    via = {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": SCHOOL}
    browsers = [_browser(**via) for _ in range(61)]
    assert [_consent(b) for b in browsers] == [302] * 61
    assert _consent(_browser(**via)) == 429  # the school's ceiling, not the proxy's
    # Another school behind the same proxy has its own ceiling; a forged left-hand entry
    # does not make a client another school (the proxy's own entry is the last one).
    other = {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": f"{SCHOOL}, 198.51.100.1"}
    forged = {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": f"198.51.100.1, {SCHOOL}"}
    assert _consent(_browser(**other)) == 302
    assert _consent(_browser(**forged)) == 429


@pytest.mark.slow
def test_without_num_proxies_every_volunteer_behind_the_proxy_shares_its_address(
    demo_study,
    settings,
) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "enrol_address": "2/min"}
    a = {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": "198.51.100.1"}
    b = {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": "198.51.100.2"}
    assert [_consent(_browser(**a)), _consent(_browser(**b)), _consent(_browser(**a))] == [
        302,
        302,
        429,
    ]


@pytest.mark.slow
def test_one_browser_hammering_enrolment_is_stopped_and_its_class_still_enrols(
    demo_study,
    limits,
) -> None:
    abuser = _browser(REMOTE_ADDR=SCHOOL)
    codes = [_consent(abuser) for _ in range(50)]
    assert codes[:3] == [302] * 3 and set(codes[3:]) == {429}
    refused = abuser.post("/s/song-ci-demo/", {"consent": "on"})
    assert int(refused["Retry-After"]) > 0
    # Its 47 refused tries did not count against the school's ceiling.
    assert [_consent(_browser(REMOTE_ADDR=SCHOOL)) for _ in range(60)] == [302] * 60
    assert Participant.objects.count() == 63


@pytest.mark.slow
def test_a_client_without_the_cookie_counts_as_one_browser_per_address(
    demo_study,
    limits,
) -> None:
    codes = [Client().post("/s/song-ci-demo/", {"consent": "on"}).status_code for _ in range(5)]
    assert codes == [302, 302, 302, 429, 429]
    url = "/api/v1/volunteer/studies/song-ci-demo/enrol/"
    body = {"consent": True, "screening": {"education": 0}}
    # The API counts in the same buckets as the pages (here, from another address).
    api = [
        APIClient(REMOTE_ADDR="127.0.0.8").post(url, body, format="json").status_code
        for _ in range(4)
    ]
    assert api == [201, 201, 201, 429]
    other = Client().post("/s/song-ci-demo/", {"consent": "on"}, REMOTE_ADDR="127.0.0.9")
    assert other.status_code == 302


@pytest.mark.slow
def test_resume_code_guessing_is_limited(demo_study, limits) -> None:
    guesser = _browser()
    codes = [
        guesser.post("/s/song-ci-demo/resume/", {"code": f"WRONG{i}"}).status_code for i in range(4)
    ]
    assert codes == [400, 400, 429, 429]
    api = [
        APIClient()
        .post("/api/v1/volunteer/studies/song-ci-demo/resume/", {"code": "NOPE"}, format="json")
        .status_code
        for _ in range(3)
    ]
    assert api == [404, 404, 429]


@pytest.mark.slow
def test_a_study_file_sets_its_own_limits(demo_study, limits, make_study) -> None:
    demo_study.rate_limits = {"enrol": "1/min", "resume": "off"}
    demo_study.save(update_fields=["rate_limits"])
    browser = _browser()
    assert [_consent(browser), _consent(browser)] == [302, 429]
    assert {
        browser.post("/s/song-ci-demo/resume/", {"code": "NOPE"}).status_code for _ in range(10)
    } == {400}
    make_study(slug="other")  # the site's limits (3/min), counted apart
    codes = [Client().post("/s/other/", {"consent": "on"}).status_code for _ in range(4)]
    assert codes == [302, 302, 302, 429]


@pytest.mark.slow
def test_answers_are_limited_per_participant_not_per_address(demo_study, limits) -> None:
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


def test_client_addresses_behind_proxies(settings, rf) -> None:
    request = rf.get("/", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="9.9.9.9, 10.0.0.1, 10.0.0.2")
    settings.NUM_PROXIES = 0
    assert ratelimit.client_address(request) == PROXY
    settings.NUM_PROXIES = 1
    assert ratelimit.client_address(request) == "10.0.0.2"
    settings.NUM_PROXIES = 2
    assert ratelimit.client_address(request) == "10.0.0.1"
    settings.NUM_PROXIES = 9  # fewer hops than proxies: the furthest there is
    assert ratelimit.client_address(request) == "9.9.9.9"
    settings.NUM_PROXIES = 1
    assert ratelimit.client_address(rf.get("/", REMOTE_ADDR=PROXY)) == PROXY
    garbage = rf.get("/", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="not-an-address")
    assert ratelimit.client_address(garbage) == PROXY
    # One IPv6 client owns a whole /64: counted as one address.
    assert ratelimit._address_key("2001:db8:1:2::5") == ratelimit._address_key("2001:db8:1:2::7")
    assert ratelimit._address_key("::ffff:203.0.113.5") == "203.0.113.5"


def _parallel(n: int, work) -> list:
    barrier = threading.Barrier(n)
    out: list = []

    def run() -> None:
        barrier.wait()
        out.append(work())

    threads = [threading.Thread(target=run) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_parallel_hits_never_get_past_the_limit() -> None:
    rate = Rate(30, 60)
    allowed = _parallel(40, lambda: ratelimit.hit("t:parallel", rate, now=1_000_000.0))
    assert allowed.count(None) == 30 and len(allowed) == 40


REDIS = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/14")


@pytest.mark.redis
def test_parallel_hits_on_redis_never_get_past_the_limit() -> None:
    """The production cache, shared by every worker: still exactly the limit."""
    from tests.jobs.test_jobs_worker import redis_is_up

    if not redis_is_up():
        pytest.skip("Redis is not running")
    shared = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS,
            "KEY_PREFIX": f"test-{uuid.uuid4().hex}",  # apart from any other run
        }
    }
    with override_settings(CACHES=shared):
        caches._settings = None  # type: ignore[attr-defined]  # re-read CACHES
        try:
            rate = Rate(30, 60)
            allowed = _parallel(40, lambda: ratelimit.hit("t:redis", rate, now=2_000_000.0))
        finally:
            caches._settings = None  # type: ignore[attr-defined]
    assert allowed.count(None) == 30


@pytest.mark.skipif(not POSTGRES, reason="threads need DATABASE_URL=postgres://…")
@pytest.mark.django_db(transaction=True)
def test_forty_parallel_enrolments_against_a_limit_of_thirty_admit_exactly_thirty(
    settings,
) -> None:
    from django.core.management import call_command
    from django.db import connections

    call_command("demo", "--no-users", stdout=open(os.devnull, "w"))  # noqa: SIM115
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "enrol": "off", "enrol_address": "30/min"}
    url = "/api/v1/volunteer/studies/song-ci-demo/enrol/"
    body = {"consent": True, "screening": {"education": 0}}

    def enrol() -> int:
        try:
            return APIClient().post(url, body, format="json").status_code
        finally:
            connections.close_all()

    codes = _parallel(40, enrol)
    assert sorted(codes) == [201] * 30 + [429] * 10
    assert Participant.objects.count() == 30
