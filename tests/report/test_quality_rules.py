"""Quality checks, issue 25 item 1's gaps: the thresholds are the study's (``quality_rules``,
validated, documented defaults) rather than global constants; several enrolments from one
address in a short time are flagged, from a keyed digest of the address (never the
address), with the other participants as evidence."""

from __future__ import annotations

import hashlib
import hmac
import io
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from annotation import services
from annotation.models import Participant, Response
from annotation.quality import quality_checks
from studies.models import Study
from studies.quality_rules import DEFAULTS, rules_of
from tests.volunteer.conftest import answer_for, build_study, enrol

pytestmark = pytest.mark.django_db


def take_part(study: Study, *, ms: int, ratings: dict[str, int] | None = None) -> Participant:
    p = enrol(study, group="A")
    now = timezone.now()
    while (a := services.assignment_next(participant=p, now=now)) is not None:
        given = answer_for(a.task.kind, a.option_order)
        if ratings is not None and "ratings" in given:
            given = {"ratings": ratings}
        services.response_submit(participant=p, assignment_id=a.pk, **given)
    Response.objects.filter(rater=p.rater).update(time_ms=ms)
    services.participant_finish(participant=p)
    return Participant.objects.get(pk=p.pk)


def flags(study: Study) -> dict[int, set[str]]:
    return {c.participant.pk: {f.check for f in c.flags} for c in quality_checks(study)}


def evidence(study: Study, p: Participant) -> list[str]:
    (checked,) = [c for c in quality_checks(study) if c.participant.pk == p.pk]
    return [f.evidence for f in checked.flags]


@pytest.fixture
def timed() -> dict[str, Any]:
    """Four volunteers at about 20 s an item and one at 8 s (40 % of the median)."""
    study = build_study(n_items=4, kinds=("choice", "rating"), per_participant=4, target=9)
    normal = [take_part(study, ms=20_000 + 500 * i) for i in range(4)]
    quick = take_part(study, ms=8_000)
    flat = take_part(study, ms=20_000, ratings={"beauty": 2, "form": 2})
    return {"study": study, "normal": normal, "quick": quick, "flat": flat}


def test_defaults_are_the_documented_rules() -> None:
    assert (DEFAULTS.speed_ratio, DEFAULTS.speed_share, DEFAULTS.speed_min_items) == (1 / 3, 0.5, 3)
    assert (DEFAULTS.straight_share, DEFAULTS.straight_min_pages) == (0.8, 3)
    assert (DEFAULTS.address_min_enrolments, DEFAULTS.address_window_minutes) == (3, 30)
    assert rules_of({}) == DEFAULTS and rules_of({"speed_ratio": 0.5}).speed_ratio == 0.5


def test_the_speeder_threshold_is_the_studys(timed: dict[str, Any]) -> None:
    study, quick = timed["study"], timed["quick"]
    assert "speeder" not in flags(study)[quick.pk]  # 40 % of the median: above a third
    Study.objects.filter(pk=study.pk).update(quality_rules={"speed_ratio": 0.5})
    study.refresh_from_db()
    found = flags(study)
    assert "speeder" in found[quick.pk]
    assert not any("speeder" in found[p.pk] for p in timed["normal"])
    assert any("50%" in e for e in evidence(study, quick))  # the study's threshold


def test_the_straight_lining_rule_is_the_studys(timed: dict[str, Any]) -> None:
    study, flat = timed["study"], timed["flat"]
    assert "straight_lining" in flags(study)[flat.pk]  # 4 flat pages of 4: ≥ 3 pages, ≥ 80 %
    Study.objects.filter(pk=study.pk).update(quality_rules={"straight_min_pages": 5})
    study.refresh_from_db()
    assert "straight_lining" not in flags(study)[flat.pk]  # fewer pages than the rule asks


def enrol_from(study: Study, address: str, at: Any = None) -> Participant:
    client = Client(REMOTE_ADDR=address)
    assert client.post(f"/s/{study.slug}/", {"consent": "on"}).status_code == 302
    p = Participant.objects.filter(study=study).order_by("-pk").first()
    assert p is not None
    if at is not None:
        Participant.objects.filter(pk=p.pk).update(consented_at=at, created_at=at)
        p.refresh_from_db()
    return p


@pytest.mark.slow
def test_the_address_is_stored_as_a_keyed_digest_only() -> None:
    study = build_study(n_items=2, per_participant=1)
    a1, a2 = enrol_from(study, "203.0.113.7"), enrol_from(study, "203.0.113.7")
    other = enrol_from(study, "198.51.100.9")
    assert a1.address and a1.address == a2.address != other.address
    assert "203.0.113.7" not in a1.address
    expected = hmac.new(
        f"shiping.address:{settings.SECRET_KEY}".encode(), b"203.0.113.7", hashlib.sha256
    ).hexdigest()[:32]
    assert a1.address == expected  # keyed: a plain hash of the address is not it
    assert a1.address != hashlib.sha256(b"203.0.113.7").hexdigest()[:32]


def test_several_enrolments_from_one_address_in_a_short_time_trip() -> None:
    study = build_study(n_items=2, per_participant=1)
    same = [enrol_from(study, "203.0.113.7") for _ in range(3)]
    alone = enrol_from(study, "198.51.100.9")
    found = flags(study)
    assert all("duplicate" in found[p.pk] for p in same)
    assert "duplicate" not in found[alone.pk]
    text = " ".join(evidence(study, same[0]))
    assert same[1].public_id in text and same[2].public_id in text
    assert "203.0.113.7" not in text and same[0].address not in text


def test_two_enrolments_or_a_long_time_apart_do_not_trip() -> None:
    study = build_study(n_items=2, per_participant=1)
    start = timezone.now() - timedelta(days=1)
    spread = [enrol_from(study, "203.0.113.7", at=start + timedelta(hours=i)) for i in range(3)]
    pair = [enrol_from(study, "198.51.100.9") for _ in range(2)]
    found = flags(study)
    assert not any("duplicate" in found[p.pk] for p in spread + pair)
    # the study's own rule: two within a day are enough
    rules = {"address_min_enrolments": 2, "address_window_minutes": 24 * 60}
    Study.objects.filter(pk=study.pk).update(quality_rules=rules)
    study.refresh_from_db()
    found = flags(study)
    assert all("duplicate" in found[p.pk] for p in spread + pair)
    Study.objects.filter(pk=study.pk).update(quality_rules={"address_window_minutes": 0})
    study.refresh_from_db()
    assert not any("duplicate" in f for f in flags(study).values())  # 0: the check is off


STUDY = """\
slug: qr
title: 规则
groups:
  - {slug: A, name: 甲}
settings:
  quality_rules:
    speed_ratio: %s
    straight_min_pages: %s
tasks:
  - {slug: ck, title: 常识, kind: choice}
"""


def load(tmp_path: Path, text: str) -> str:
    path = tmp_path / "study.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        call_command("load_study", str(path), stdout=io.StringIO())
    except CommandError as exc:
        return str(exc)
    return ""


def test_the_study_file_sets_them_and_bad_values_are_refused_at_their_line(
    tmp_path: Path,
) -> None:
    assert load(tmp_path, STUDY % ("0.4", "5")) == ""
    study = Study.objects.get(slug="qr")
    assert rules_of(study.quality_rules).speed_ratio == 0.4
    assert rules_of(study.quality_rules).straight_min_pages == 5
    text = load(tmp_path, STUDY % ("1.5", "0"))
    assert "line 7, field 'settings.quality_rules.speed_ratio'" in text
    assert "line 8, field 'settings.quality_rules.straight_min_pages'" in text
    assert "2 problems" in text
    text = load(tmp_path, STUDY.replace("speed_ratio: %s", "fastest: 1") % ("5",))
    assert "settings.quality_rules.fastest" in text and "unknown quality rule" in text
