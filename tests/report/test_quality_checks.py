"""Quality checks with reasons (annotation/quality.py): each flag on a participant built
to trip it and on no participant built not to; decisions recorded on the researcher's
page change the report's exclusions, counted by reason; a decision to keep wins over
the attention flag."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation import services
from annotation.models import Participant, QualityDecision, Response
from annotation.quality import quality_checks
from scoring.report.build import build_report
from studies.models import Study
from tests.volunteer.conftest import answer_for, build_study, enrol

pytestmark = pytest.mark.django_db


def take_part(
    study: Study, *, ms: int, ratings: dict[str, int] | None = None, finish: bool = True
) -> Participant:
    p = enrol(study, group="A")
    now = timezone.now()
    while (a := services.assignment_next(participant=p, now=now)) is not None:
        given = answer_for(a.task.kind, a.option_order)
        if ratings is not None and "ratings" in given:
            given = {"ratings": ratings}
        services.response_submit(participant=p, assignment_id=a.pk, **given)
        if not finish:
            break
    Response.objects.filter(rater=p.rater).update(time_ms=ms)
    if finish:
        services.participant_finish(participant=p)
    return Participant.objects.get(pk=p.pk)


@pytest.fixture
def world() -> dict[str, Any]:
    study = build_study(
        n_items=4, kinds=("choice", "rating"), per_participant=4, target=9,
        attention_max_failures=0,
    )  # fmt: skip
    people = {f"normal{i}": take_part(study, ms=20_000 + 1000 * i) for i in range(4)}
    people["speeder"] = take_part(study, ms=2_000)
    people["straight"] = take_part(study, ms=21_000, ratings={"beauty": 3, "form": 3})
    attention = take_part(study, ms=22_000)
    Participant.objects.filter(pk=attention.pk).update(flagged=True, attention_failures=2)
    people["attention"] = attention
    for name in ("twin1", "twin2"):
        twin = take_part(study, ms=20_500)
        Participant.objects.filter(pk=twin.pk).update(device="d" * 32)
        people[name] = twin
    people["incomplete"] = take_part(study, ms=20_000, finish=False)
    return {"study": study, "people": people}


def flags_of(world: dict[str, Any], now: Any = None) -> dict[str, set[str]]:
    names = {p.pk: name for name, p in world["people"].items()}
    checked = quality_checks(world["study"], now=now)
    return {names[c.participant.pk]: {f.check for f in c.flags} for c in checked}


def test_each_flag_trips_on_its_participant_and_on_no_other(world: dict[str, Any]) -> None:
    later = timezone.now() + timedelta(days=2)
    flags = flags_of(world, now=later)
    assert flags["speeder"] == {"speeder"}
    assert flags["straight"] == {"straight_lining"}
    assert flags["attention"] == {"attention"}
    assert flags["twin1"] == flags["twin2"] == {"duplicate"}
    assert flags["incomplete"] == {"incomplete"}
    assert all(flags[f"normal{i}"] == set() for i in range(4))
    # An unfinished session is not stale an hour later.
    assert flags_of(world)["incomplete"] == set()
    evidence = {
        f.check: f.evidence
        for c in quality_checks(world["study"], now=later)
        for f in c.flags
        if c.participant.pk == world["people"]["speeder"].pk
    }
    # 8 of 8 timed items (4 questions, 4 poems), at 10% of the items' median time
    assert "8" in evidence["speeder"] and "10%" in evidence["speeder"]


def exclusion(report: Any, start: str) -> dict[str, Any]:
    rows = [r for r in report.tables["exclusions"] if r["reason"].startswith(start)]
    assert len(rows) <= 1
    return rows[0] if rows else {}


def test_decisions_on_the_page_change_the_reports_exclusions(
    world: dict[str, Any], django_user_model: Any
) -> None:
    study, people = world["study"], world["people"]
    client = Client()
    client.force_login(django_user_model.objects.create_superuser("boss", "b@example.org", "pw"))
    url = reverse("research:quality", args=[study.pk])
    page = client.get(url).content.decode()
    assert people["speeder"].public_id in page and people["normal0"].public_id not in page
    before = build_report(study)
    assert exclusion(before, "flagged participants")["n_participants"] == 1
    answered = Response.objects.filter(rater=people["speeder"].rater).count()
    for name, decision, reason in (
        ("speeder", "exclude", "speeder"),
        ("straight", "exclude", "straight_lining"),
        ("attention", "keep", "attention"),
    ):
        data = {"participant": people[name].public_id, "decision": decision, "reason": reason}
        assert client.post(url, data).status_code == 302
    assert QualityDecision.objects.count() == 3
    after = build_report(study)
    speeders = exclusion(after, "excluded by a researcher: speeder")
    assert (speeders["n_participants"], speeders["n_responses"]) == (1, answered)
    assert exclusion(after, "excluded by a researcher: straight_lining")["n_participants"] == 1
    assert exclusion(after, "flagged participants")["n_participants"] == 0  # kept
    assert client.post(url, {"participant": "nobody", "decision": "x"}).status_code == 400
