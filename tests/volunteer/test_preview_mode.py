"""Preview and test mode (docs/running-a-study.md): staff open a draft study as a volunteer
(consent, screening, questions) behind a banner, as a test participant whose claims take
the preview group's tallies only and whose answers never reach the report, the exports,
the dashboard's counts or the API; tallies_recount agrees; one action clears them."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation import services
from annotation.exports import export_rows
from annotation.models import Participant, Response, Tally
from research.dashboard.progress import funnel
from scoring.report.build import build_report
from studies.models import PREVIEW_GROUP, Group, Study
from tests.volunteer.conftest import answer_for, build_study, enrol

pytestmark = pytest.mark.django_db


def tallies(study: Study) -> Counter[tuple[str, int]]:
    rows = Tally.objects.filter(task__study=study).values_list("group__slug", "item_id", "taken")
    return Counter({(g, i): n for g, i, n in rows if n})


def rows_count(p: Participant) -> int:
    return Response.objects.filter(rater=p.rater).count()


def answer_all(p: Participant) -> int:
    now, n = timezone.now(), 0
    while (a := services.assignment_next(participant=p, now=now)) is not None:
        services.response_submit(
            participant=p, assignment_id=a.pk, **answer_for(a.task.kind, a.option_order)
        )
        n += 1
    return n


@pytest.fixture
def staff(django_user_model: Any) -> Client:
    client = Client()
    client.force_login(django_user_model.objects.create_superuser("boss", "b@example.org", "pw"))
    return client


def test_staff_preview_a_draft_as_a_volunteer_behind_a_banner(staff: Client) -> None:
    study = build_study(n_items=4, per_participant=2, status="draft")
    assert Client().get(f"/s/{study.slug}/").status_code == 404  # volunteers: nothing
    assert Client().get(f"/s/{study.slug}/preview/").status_code == 302  # to the login
    welcome = staff.get(f"/s/{study.slug}/preview/")
    assert welcome.status_code == 200 and 'id="preview-banner"' in welcome.content.decode()
    assert study.consent in welcome.content.decode()
    started = staff.post(f"/s/{study.slug}/preview/", {"consent": "on"})
    assert started.status_code == 302
    p = Participant.objects.get(study=study)
    assert p.is_test and p.group is None  # the screening comes next, as for a volunteer
    screening = staff.get(reverse("volunteer:screening", args=[study.slug]))
    assert screening.status_code == 200 and 'id="preview-banner"' in screening.content.decode()
    staff.post(reverse("volunteer:screening", args=[study.slug]), {"q-bg": "0"})
    p.refresh_from_db()
    assert p.group is not None and p.group.slug == PREVIEW_GROUP and p.group.is_test
    page = staff.get(reverse("volunteer:question", args=[study.slug]), follow=True)
    assert page.status_code == 200 and 'id="preview-banner"' in page.content.decode()
    # The group lists (screening, report, dashboard, admin) do not show the preview group.
    assert list(study.groups.values_list("slug", flat=True)) == ["A", "B"]


def test_test_answers_stay_out_of_tallies_report_exports_dashboard_and_api(
    staff: Client,
) -> None:
    study = build_study(n_items=4, per_participant=2, target=2)
    real = enrol(study, group="A")
    answer_all(real)
    before = tallies(study)
    rows_before = list(export_rows(study))
    report_before = build_report(study).tables["accuracy"]
    funnel_before = funnel(study)
    tester = services.participant_enrol(study=study, consent=True, test=True)
    tester = services.participant_screen(participant=tester, answers={"bg": 0})
    assert answer_all(tester) == 2 and Response.objects.filter(rater=tester.rater).exists()
    after = tallies(study)
    assert {k: v for k, v in after.items() if k[0] != PREVIEW_GROUP} == before  # balance
    assert sum(v for k, v in after.items() if k[0] == PREVIEW_GROUP) == 2
    call_command("tallies_recount", study.slug)  # a recount from the assignments agrees
    assert tallies(study) == after
    report = build_report(study)
    assert report.tables["accuracy"] == report_before
    rows = report.tables["exclusions"]
    (excluded,) = [r for r in rows if r["reason"].startswith("test participants")]
    assert (excluded["n_participants"], excluded["n_responses"]) == (1, 2)
    assert list(export_rows(study)) == rows_before
    assert funnel(study) == funnel_before
    detail = staff.get(reverse("api:study", args=[study.pk])).json()
    assert (detail["n_participants"], detail["n_responses"]) == (1, rows_count(real))
    listed = staff.get(reverse("api:responses", args=[study.pk])).json()
    assert {r["rater"] for r in listed["results"]} <= {real.rater_id, real.rater.name}


def test_one_action_clears_the_tests_and_nothing_else(staff: Client) -> None:
    study = build_study(n_items=4, per_participant=2)
    real = enrol(study, group="B")
    answer_all(real)
    tester = services.participant_enrol(study=study, consent=True, test=True)
    answer_all(services.participant_screen(participant=tester, answers={"bg": 0}))
    kept = Response.objects.exclude(rater=tester.rater).count()
    url = reverse("admin:annotation_participant_changelist")
    staff.post(
        url,
        {"action": "clear_tests", "_selected_action": [tester.pk]},
        follow=True,
    )
    assert not Participant.objects.filter(is_test=True).exists()
    assert not Group.every.filter(study=study, is_test=True).exists()
    assert Response.objects.count() == kept and Participant.objects.get() == real
    assert PREVIEW_GROUP not in {g for g, _i in tallies(study)}
