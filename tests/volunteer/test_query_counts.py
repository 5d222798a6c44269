"""Every volunteer page costs a small constant number of queries, whatever the study's
size (10 or 500 items per task)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.volunteer.conftest import build_study
from tests.volunteer.pages import Volunteer

pytestmark = pytest.mark.django_db
KINDS = ("choice", "multi", "best_worst", "rating")
# Page -> most queries allowed (SQLite and PostgreSQL alike). Inside a test transaction each
# service's atomic block adds two SAVEPOINT statements, which count here. "instructions"
# is the GET that claims the next item (and shows a task's instructions when it starts).
# "first" also makes the group's tallies and the participant's task counts (once each);
# "submit" on SQLite stores the answer, marks the assignment and counts the answer in
# three statements (PostgreSQL: one, so 5 there).
LIMITS = {
    "welcome": 2,
    "enrol": 7,
    "start": 2,
    "screening": 3,
    "screen": 8,
    "first": 18,
    "instructions": 9,
    "question": 3,
    "submit": 7,
    "finish": 2,
    "resume": 2,
}


def measure(n_items: int) -> dict[str, int]:
    build_study(n_items=n_items, kinds=KINDS, per_participant=2, checks=1, slug=f"q{n_items}")
    v = Volunteer(f"q{n_items}")
    counts: dict[str, int] = {}

    def count(name: str, call):
        with CaptureQueriesContext(connection) as ctx:
            response = call()
        counts[name] = max(counts.get(name, 0), len(ctx.captured_queries))
        return response

    count("welcome", lambda: v.client.get(v.url()))
    start = count("enrol", lambda: v.client.post(v.url(), {"consent": "on"}))
    count("start", lambda: v.client.get(start.url))
    count("screening", lambda: v.client.get(v.url("screening/")))
    count("screen", lambda: v.client.post(v.url("screening/"), {"q-bg": "0"}))
    for n in range(20):
        # The first claim of a group on new items also makes their tallies (a constant
        # number of set-based statements, annotation/hotpath/tally.py): counted apart.
        page = count("first" if n == 0 else "instructions", lambda: v.client.get(v.url("q/")))
        if page.status_code == 302:
            break
        html = page.content.decode()
        if 'id="begin"' in html:
            slug = html.split("?begin=")[1].split('"')[0]
            page = count("question", lambda slug=slug: v.client.get(v.url("q/"), {"begin": slug}))
        data = Volunteer.answer_data(*Volunteer.form_of(page))
        count("submit", lambda data=data: v.client.post(v.url("q/"), data))
    count("finish", lambda: v.client.get(v.url("finish/")))
    count("resume", lambda: v.client.post(v.url("resume/"), {"code": "WRONG"}))
    return counts


@pytest.mark.parametrize("n_items", [10, 500])
def test_each_volunteer_page_needs_a_small_constant_number_of_queries(n_items: int) -> None:
    counts = measure(n_items)
    over = {page: (n, LIMITS[page]) for page, n in counts.items() if n > LIMITS[page]}
    assert over == {}, counts


def steady(counts: dict[str, int]) -> dict[str, int]:
    """Without the first claim, whose count depends on whether it drew an attention check
    (two statements fewer than a regular item); it is bounded by its limit instead."""
    return {page: n for page, n in counts.items() if page != "first"}


def test_query_counts_do_not_grow_with_the_study() -> None:
    small, large = measure(10), measure(500)
    assert steady(small) == steady(large)
    assert max(small["first"], large["first"]) <= LIMITS["first"]


@pytest.mark.parametrize("n_items", [10, 500])
def test_the_question_page_and_saving_an_answer_stay_within_their_budget(
    n_items: int,
    django_assert_max_num_queries,
) -> None:
    build_study(n_items=n_items, kinds=KINDS, per_participant=2, slug=f"b{n_items}")
    v = Volunteer(f"b{n_items}")
    v.consent()
    v.screen()
    v.client.get(v.url("q/"))  # claims the first item (instructions)
    with django_assert_max_num_queries(LIMITS["question"]):
        page = v.client.get(v.url("q/"), {"begin": "t0-choice"})
    data = Volunteer.answer_data(*Volunteer.form_of(page))
    with django_assert_max_num_queries(LIMITS["submit"]):
        assert v.client.post(v.url("q/"), data).status_code == 302


def api_counts(n_items: int) -> dict[str, int]:
    from rest_framework.test import APIClient

    build_study(n_items=n_items, kinds=KINDS, per_participant=2, checks=1, slug=f"a{n_items}")
    client = APIClient()
    me = client.post(
        f"/api/v1/volunteer/studies/a{n_items}/enrol/",
        {"consent": True, "screening": {"bg": 0}},
        format="json",
    ).json()
    client.credentials(HTTP_AUTHORIZATION=f"Participant {me['token']}")
    counts: dict[str, int] = {}
    while True:
        with CaptureQueriesContext(connection) as ctx:
            item = client.get("/api/v1/volunteer/next/").json()["item"]
        name = "next" if counts else "first"  # the first also makes the tallies (above)
        counts[name] = max(counts.get(name, 0), len(ctx.captured_queries))
        if item is None:
            break
        kind = item["task"]["kind"]
        body: dict = {"assignment": item["assignment"]}
        if kind == "rating":
            body["ratings"] = {f["key"]: f["scale"][0] for f in item["fields"]}
        elif kind == "choice":
            body["answer"] = 0
        elif kind == "best_worst":
            body["answer"] = {"best": 0, "worst": 1}
        else:
            body["answer"] = {f["key"]: 0 for f in item["fields"]}
        with CaptureQueriesContext(connection) as ctx:
            assert client.post("/api/v1/volunteer/answers/", body, format="json").status_code == 201
        counts["answer"] = max(counts.get("answer", 0), len(ctx.captured_queries))
    with CaptureQueriesContext(connection) as ctx:
        client.get("/api/v1/volunteer/progress/")
    counts["progress"] = len(ctx.captured_queries)
    return counts


def test_the_api_needs_the_same_few_queries_whatever_the_study_size() -> None:
    small, large = api_counts(10), api_counts(500)
    assert steady(small) == steady(large)
    assert max(small["first"], large["first"]) <= 20, (small, large)
    # answer: read, INSERT, UPDATE (+2 savepoint statements here, +2 for a failed check)
    assert small["answer"] <= 7 and small["next"] <= 15 and small["progress"] <= 3, small


def test_the_pages_need_no_more_queries_than_the_api() -> None:
    """An answer through the pages (the form's POST, then the next question's GET) costs
    no more statements than through the API (answer, then next), and the GET that
    claims the next item (instructions) no more than the API's next."""
    pages, api = measure(10), api_counts(10)
    assert pages["submit"] + pages["instructions"] <= api["answer"] + api["next"], (pages, api)
    assert pages["instructions"] <= api["next"], (pages, api)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the claim in one statement")
def test_an_answered_page_claims_the_next_item_in_two_statements_on_postgresql() -> None:
    """POST the answer, then GET the next question: the GET's claim of a regular item is
    the participant's read and the claim itself (no BEGIN, no participant lock, no
    sweep while nothing has expired, no COMMIT: ``annotation.hotpath.claim.at_once``)."""
    build_study(n_items=30, kinds=("choice",), per_participant=6, slug="three")
    v = Volunteer("three")
    v.consent()
    v.screen()
    page = v.question_page()
    for _ in range(4):
        data = Volunteer.answer_data(*Volunteer.form_of(page))
        assert v.client.post(v.url("q/"), data).status_code == 302
        with CaptureQueriesContext(connection) as ctx:
            page = v.client.get(v.url("q/"))
        statements = [q["sql"].split()[0:2] for q in ctx.captured_queries]
        assert len(statements) == 2, [q["sql"][:60] for q in ctx.captured_queries]
        assert ["WITH", "pick"] in statements
