"""A frozen plan's exclusion rules applied by the report (annotation.quality.by_plan_rules,
scoring/report/data.py): a participant built to trip a rule leaves every table without a
decision, one built not to stays; a researcher's decision wins and is listed; each
exclusions row says whether the study, the plan or a decision is its basis."""

from __future__ import annotations

import csv
import io
import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from annotation import services
from annotation.models import Participant, QualityDecision, Response
from scoring.report import ReportSettings
from scoring.report.build import build_report
from scoring.report.bundle import bundle_files
from scoring.report.longtable import write_long_csv
from scoring.report.prereg import Commitments, PlanError, exclusion_rules, plan_freeze
from studies.models import Study
from tests.report.test_bundle import TABLES, _check, _recompute
from tests.report.test_quality_checks import take_part
from tests.volunteer.conftest import build_study

pytestmark = pytest.mark.django_db

FAST = ReportSettings(n_boot=0)


@pytest.fixture
def world() -> dict[str, Any]:
    # exclude_flagged off: only the plan's rule may take the attention failure out
    study = build_study(
        n_items=4, kinds=("choice", "rating"), per_participant=4, target=9,
        attention_max_failures=0, exclude_flagged=False,
    )  # fmt: skip
    people = {f"normal{i}": take_part(study, ms=20_000 + 1000 * i) for i in range(4)}
    people["speeder"] = take_part(study, ms=2_000)
    attention = take_part(study, ms=22_000)
    Participant.objects.filter(pk=attention.pk).update(flagged=True, attention_failures=2)
    people["attention"] = attention
    return {"study": study, "people": people}


def rows(study: Any) -> dict[str, dict[str, Any]]:
    return {r["reason"]: r for r in build_report(study, FAST).tables["exclusions"]}


def answers_of(p: Participant) -> int:
    return Response.objects.filter(rater=p.rater).count()


def humans_raters(study: Any) -> int:
    table = build_report(study, FAST).tables["accuracy"]
    return max(r["n_raters"] for r in table if r["rater_set"] == "humans")


def test_without_a_plan_no_flag_excludes_anyone(world: dict[str, Any]) -> None:
    found = rows(world["study"])
    assert not any(r["basis"] == "plan" for r in found.values())
    assert humans_raters(world["study"]) == 6
    assert {r["basis"] for r in found.values()} <= {"study", "decision"}


def test_the_plans_rule_excludes_the_participant_built_to_trip_it(world: dict[str, Any]) -> None:
    study, people = world["study"], world["people"]
    plan_freeze(study, FAST, Commitments(exclude_flags=("speeder",)))
    assert exclusion_rules(study) == ("speeder",)
    found = rows(study)
    speeders = found["excluded by the plan: speeder"]
    assert speeders["basis"] == "plan"
    assert (speeders["n_participants"], speeders["n_responses"]) == (
        1,
        answers_of(people["speeder"]),
    )
    # the attention failure is flagged but the plan names no such rule: kept
    assert "excluded by the plan: attention" not in found
    assert humans_raters(study) == 5


def test_two_rules_and_a_decision_that_wins(world: dict[str, Any]) -> None:
    study, people = world["study"], world["people"]
    plan_freeze(study, FAST, Commitments(exclude_flags=("attention", "speeder")))
    found = rows(study)
    assert found["excluded by the plan: attention"]["n_participants"] == 1
    assert found["excluded by the plan: attention"]["n_responses"] == answers_of(
        people["attention"]
    )
    assert humans_raters(study) == 4  # the four normal ones stay
    # a researcher keeps the speeder: the plan's row empties, the decision is listed
    services.participant_decide(
        participant=people["speeder"], decision="keep", reason="speeder", note="", user=None
    )
    found = rows(study)
    assert found["excluded by the plan: speeder"]["n_participants"] == 0
    kept = found["kept by a researcher despite the plan: speeder"]
    assert (kept["basis"], kept["n_participants"], kept["n_responses"]) == ("decision", 1, 0)
    # and one excluded by a decision counts in the decision's row, not the plan's
    services.participant_decide(
        participant=people["attention"],
        decision="exclude",
        reason="attention",
        note="",
        user=None,
    )
    found = rows(study)
    assert found["excluded by a researcher: attention"]["basis"] == "decision"
    assert found["excluded by a researcher: attention"]["n_participants"] == 1
    assert found["excluded by the plan: attention"]["n_participants"] == 0
    assert QualityDecision.objects.count() == 2
    assert humans_raters(study) == 5


def test_unknown_rules_are_refused_and_the_command_freezes_them(world: dict[str, Any]) -> None:
    study = world["study"]
    with pytest.raises(PlanError, match="unknown exclusion rule: incomplete"):
        plan_freeze(study, FAST, Commitments(exclude_flags=("incomplete",)))
    out = StringIO()
    call_command(
        "analysis_plan", "freeze", study.slug, "--exclude-flag", "straight_lining", stdout=out
    )
    assert exclusion_rules(study) == ("straight_lining",)
    doc = StringIO()
    call_command("analysis_plan", "export", study.slug, stdout=doc)
    assert "flagged `straight_lining` are excluded" in doc.getvalue()


@pytest.mark.slow  # runs the bundle's script in a subprocess
def test_the_bundle_and_long_table_leave_out_whom_the_report_does(
    world: dict[str, Any], tmp_path: Path
) -> None:
    """The plan's rule, an exclude and a keep decision: the long table's ``excluded``
    says why, and the bundle's standalone recompute.py gives the report's numbers."""
    study, people = world["study"], world["people"]
    Study.objects.filter(pk=study.pk).update(exclude_flagged=True)
    study.refresh_from_db()
    plan_freeze(study, FAST, Commitments(exclude_flags=("speeder",)))
    services.participant_decide(
        participant=people["attention"], decision="keep", reason="attention"
    )
    services.participant_decide(participant=people["normal0"], decision="exclude", reason="other")
    out = io.StringIO()
    write_long_csv(study, out, bom=False)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    names = {p.public_id: name for name, p in people.items()}
    why: dict[str, set[str]] = {}
    for r in rows:
        why.setdefault(names.get(r["rater"], r["rater"]), set()).add(r["excluded"])
    assert why["speeder"] == {"plan"} and why["normal0"] == {"decision"}
    assert why["attention"] == {""} and why["normal1"] == {""}
    report = build_report(study, FAST, only=tuple(TABLES))
    for name, data in bundle_files(study, report).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    design = json.loads((tmp_path / "design.json").read_text("utf-8"))
    assert sorted(r["basis"] for r in design["excluded_raters"]) == ["decision", "plan"]
    assert design["flagged_raters"] == []  # the only flagged one was kept
    _check(report.as_json(), _recompute(tmp_path))
