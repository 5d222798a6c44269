"""The frozen analysis plan: freeze, change a setting, see the deviation listed with the
number of answers the study held when a report first saw it; the plan's hash, the
refusal to freeze twice silently, the preregistration export and the CLI."""

from __future__ import annotations

import hashlib
import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Response
from scoring.report import ReportSettings
from scoring.report.prereg import Commitments, PlanError, current_plan, plan_freeze
from scoring.report.service import fingerprint, report_for
from studies.models import AnalysisPlan, Study
from tests.report.factory import Builder

pytestmark = pytest.mark.django_db

ONLY = ("plan_deviations",)
PLANNED = ReportSettings(pass_threshold=0.8)


def small(humans: tuple[str, ...] = ("a1",)) -> Builder:
    """A study of one choice task with three keyed items and the humans named, all in A."""
    b = Builder("prereg")
    b.group("A")
    b.task("ck", "choice")
    for n in range(3):
        b.item(f"ck-{n}", "ck", {"answer": n % 2})
    for name in humans:
        b.human(name, "A")
    return b


def deviations(study: Study, settings: ReportSettings = PLANNED) -> list[dict[str, object]]:
    return report_for(study, settings, only=ONLY).tables["plan_deviations"]


def test_the_plan_is_stored_as_canonical_json_with_its_sha256() -> None:
    b = small()
    plan = plan_freeze(
        b.study, PLANNED, Commitments(primary=("A vs model",), sample_sizes=(("A", 40),))
    )
    text = json.dumps(plan.content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert plan.sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert plan.content["analysis"]["pass_threshold"] == 0.8
    assert plan.content["design"]["tasks"]["ck"]["n_items"] == 3
    assert plan.content["commitments"]["sample_sizes"] == {"A": 40}
    assert plan.n_responses == 0


def test_no_deviation_while_nothing_changed() -> None:
    b = small()
    plan_freeze(b.study, PLANNED, Commitments())
    assert deviations(b.study) == []


def test_a_changed_threshold_is_listed_with_the_answers_held_when_first_seen() -> None:
    b = small()
    plan_freeze(b.study, PLANNED, Commitments())
    for n in range(3):
        b.answer("a1", f"ck-{n}", "answer", n % 2)
    rows = deviations(b.study, ReportSettings(pass_threshold=0.9))
    assert [(r["setting"], r["planned"], r["actual"]) for r in rows] == [
        ("analysis.pass_threshold", 0.8, 0.9)
    ]
    assert rows[0]["first_seen_after"] == 3
    # more answers later: the deviation keeps the count of when it was first seen
    b.human("a2", "A")
    b.answer("a2", "ck-0", "answer", 0)
    again = deviations(b.study, ReportSettings(pass_threshold=0.9))
    assert again[0]["first_seen_after"] == 3 and Response.objects.count() == 4


def test_design_changes_after_freezing_are_deviations() -> None:
    b = small()
    plan_freeze(b.study, PLANNED, Commitments())
    Study.objects.filter(pk=b.study.pk).update(attention_max_failures=5)
    b.study.refresh_from_db()
    b.item("ck-new", "ck", {"answer": 0})
    found = {r["setting"]: r for r in deviations(b.study)}
    assert found["design.attention_max_failures"]["actual"] == 5
    assert found["design.tasks.ck.n_items"]["planned"] == 3
    assert found["design.tasks.ck.n_items"]["actual"] == 4
    assert "design.tasks.ck.items_sha256" in found


def test_freezing_moves_the_fingerprint_and_the_provenance_names_the_plan() -> None:
    b = small()
    before = fingerprint(b.study)
    plan = plan_freeze(b.study, PLANNED, Commitments())
    assert fingerprint(b.study) != before
    report = report_for(b.study, PLANNED, only=ONLY)
    assert report.provenance["plan"]["sha256"] == plan.sha256


def test_a_second_plan_needs_replace_and_both_stay_on_record() -> None:
    b = small()
    plan_freeze(b.study, PLANNED, Commitments())
    with pytest.raises(PlanError, match="already has a frozen plan"):
        plan_freeze(b.study, ReportSettings(pass_threshold=0.9), Commitments())
    newer = plan_freeze(b.study, ReportSettings(pass_threshold=0.9), Commitments(), replace=True)
    assert current_plan(b.study) == newer and AnalysisPlan.objects.count() == 2
    assert deviations(b.study, ReportSettings(pass_threshold=0.9)) == []


def test_a_sample_size_for_an_unknown_group_is_refused() -> None:
    b = small()
    with pytest.raises(PlanError, match="unknown group: Z"):
        plan_freeze(b.study, PLANNED, Commitments(sample_sizes=(("Z", 10),)))


def test_the_command_freezes_shows_and_exports(tmp_path: Path) -> None:
    b = small()
    out = StringIO()
    call_command(
        "analysis_plan",
        "freeze",
        "prereg",
        "--pass-threshold",
        "0.8",
        "--primary",
        "A 组对模型的正确率",
        "--sample",
        "A=40",
        "--exclusion",
        "注意力题错两题以上",
        stdout=out,
    )
    plan = current_plan(b.study)
    assert plan is not None and plan.sha256 in out.getvalue()
    shown = StringIO()
    call_command("analysis_plan", "show", "prereg", "--pass-threshold", "0.9", stdout=shown)
    assert "analysis.pass_threshold: 0.8 → 0.9 (first seen after 0 answers)" in shown.getvalue()
    doc = tmp_path / "plan.md"
    call_command("analysis_plan", "export", "prereg", "--out", str(doc), stdout=StringIO())
    text = doc.read_text("utf-8")
    assert plan.sha256 in text and "A 组对模型的正确率" in text and "- A: 40 participants" in text
    assert "注意力题错两题以上" in text and "| `pass_threshold` | 0.8 |" in text
    as_json = StringIO()
    call_command("analysis_plan", "export", "prereg", "--format", "json", stdout=as_json)
    assert json.loads(as_json.getvalue())["sha256"] == plan.sha256


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["freeze", "nope"], "no study 'nope'"),
        (["freeze", "prereg", "--sample", "A:40"], "is not GROUP=N"),
        (["freeze", "prereg", "--confidence", "2"], "--confidence"),
        (["show", "prereg"], "has no frozen plan"),
    ],
)
def test_the_command_refuses_with_a_reason(argv: list[str], message: str) -> None:
    small()
    with pytest.raises(CommandError, match=message):
        call_command("analysis_plan", *argv, stdout=StringIO())


def test_the_bundle_carries_the_plan() -> None:
    from scoring.report.bundle import bundle_files

    b = small()
    plan = plan_freeze(b.study, PLANNED, Commitments(primary=("A vs model",)))
    files = bundle_files(b.study, report_for(b.study, PLANNED, only=ONLY))
    assert json.loads(files["plan.json"])["sha256"] == plan.sha256
    assert "A vs model" in files["plan.md"].decode("utf-8")
