"""A frozen plan records the model and rule raters (with their runs: a rule rater's rules
version) and the participants a researcher excluded; every report then lists a rater
added, removed or re-versioned after freezing, and each exclusion decision made after
freezing (how many, which public ids), with the answers held when a report first saw it,
in the dashboard's Chinese too. A plan of format 1 (neither section) still loads, is never
rewritten, and is compared against the record as of its freezing."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone, translation

from annotation import services
from annotation.models import Participant, QualityDecision, Rater, Response
from research.dashboard.labels import Labels, column_label
from scoring.prosody import RULES_VERSION
from scoring.report import ReportSettings
from scoring.report.prereg import (
    Commitments,
    analysis,
    canonical,
    design,
    digest,
    plan_freeze,
    preregistration,
)
from scoring.report.service import report_for
from scoring.rules import rule_scores_compute
from studies.models import AnalysisPlan, PlanDeviation, Study
from tests.report import test_prereg as prereg
from tests.report.factory import DIMENSIONS, Builder

pytestmark = pytest.mark.django_db

ONLY = ("plan_deviations",)
PLANNED = ReportSettings(pass_threshold=0.8)


def small() -> Builder:
    b = prereg.small(("a1", "a2", "a3"))
    b.model("gpt", "direct")
    b.rule("prosody:classical")
    return b


def rows(study: Study) -> dict[str, dict[str, Any]]:
    table = report_for(study, PLANNED, only=ONLY).tables["plan_deviations"]
    return {r["setting"]: r for r in table}


def in_chinese(study: Study, row: dict[str, Any]) -> str:
    with translation.override("zh-hans"):
        return str(Labels(study).value("reason", row["reason"], row))


def person(b: Builder, name: str) -> Participant:
    return Participant.objects.get(rater=b.raters[name])


def exclude(b: Builder, name: str, reason: str = "other") -> None:
    services.participant_decide(participant=person(b, name), decision="exclude", reason=reason)


def test_the_plan_records_the_model_and_rule_raters_with_their_versions() -> None:
    b = small()
    plan = plan_freeze(b.study, PLANNED, Commitments())
    assert plan.content["format"] == 2
    assert plan.content["raters"] == {
        "model": {"gpt": ["direct"]},
        "rule": {"prosody:classical": ["1"]},
    }
    assert plan.content["exclusions"] == {"decided": {}, "n_decided": 0}
    assert plan.sha256 == digest(canonical(plan.content))
    doc = preregistration(plan)
    assert "| model | `gpt` | direct |" in doc and "| rule | `prosody:classical` | 1 |" in doc
    assert "Excluded by a researcher's decision when frozen: 0" in doc
    assert rows(b.study) == {}  # nothing changed: nothing listed


def test_a_model_rater_added_after_freezing_is_listed_in_english_and_chinese() -> None:
    b = small()
    plan_freeze(b.study, PLANNED, Commitments())
    for n in range(3):
        b.answer("a1", f"ck-{n}", "answer", n % 2)
    b.model("qwen")  # an LLM judge loaded after the data were seen
    b.answer("qwen", "ck-0", "answer", 0)
    found = rows(b.study)
    assert set(found) == {"raters.model.qwen"}
    row = found["raters.model.qwen"]
    assert (row["planned"], row["actual"]) == ("(absent)", [""])
    assert row["first_seen_after"] == Response.objects.filter(study=b.study).count() == 4
    assert row["reason"] == "model rater added after freezing: qwen"
    assert in_chinese(b.study, row) == "冻结后新增的模型评分者：qwen"
    with translation.override("zh-hans"):
        assert column_label("setting") == "设置"
    # later answers do not move when it was first seen
    b.answer("a2", "ck-0", "answer", 0)
    assert rows(b.study)["raters.model.qwen"]["first_seen_after"] == 4


def test_a_new_rules_version_a_new_run_and_a_removed_rater_are_listed() -> None:
    b = small()
    plan_freeze(b.study, PLANNED, Commitments())
    Rater.objects.create(study=b.study, kind="rule", name="prosody:classical", run="2")
    b.model("gpt", "form_aware")
    b.model("old")
    found = rows(b.study)
    rule = found["raters.rule.prosody:classical"]
    assert (rule["planned"], rule["actual"]) == (["1"], ["1", "2"])
    assert rule["reason"] == "rule rater's version changed after freezing: prosody:classical"
    assert in_chinese(b.study, rule) == "规则评分者的版本在冻结后更改：prosody:classical"
    runs = found["raters.model.gpt"]
    assert (runs["planned"], runs["actual"]) == (["direct"], ["direct", "form_aware"])
    assert found["raters.model.old"]["reason"] == "model rater added after freezing: old"
    Rater.objects.filter(study=b.study, name="gpt").delete()
    gone = rows(b.study)["raters.model.gpt"]
    assert (gone["planned"], gone["actual"]) == (["direct"], "(absent)")
    assert gone["reason"] == "model rater removed after freezing: gpt"
    assert in_chinese(b.study, gone) == "冻结后删除的模型评分者：gpt"


def test_rule_raters_the_settings_call_for_are_planned_before_the_poems_are_scored() -> None:
    """A large load leaves scoring to ``score_poems``: scored after freezing, as the plan
    said, no departure; scored again against another 词谱 (a new rule run), one."""
    b = Builder("poems")
    b.group("A")
    b.task("q", "rating", dimensions=DIMENSIONS)
    b.item("p-1", "q", poem_text="春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。")
    plan = plan_freeze(b.study, PLANNED, Commitments())
    families = list(b.study.rule_raters)
    assert families and plan.content["raters"] == {
        "rule": {f"prosody:{f}": [RULES_VERSION] for f in families}
    }
    rule_scores_compute(study=b.study)
    assert Rater.objects.filter(study=b.study, kind="rule").count() == len(families)
    assert rows(b.study) == {}
    Study.objects.filter(pk=b.study.pk).update(cipu_source="qinding")
    b.study.refresh_from_db()
    rule_scores_compute(study=b.study)
    found = rows(b.study)
    first = found[f"raters.rule.prosody:{families[0]}"]
    assert (first["planned"], first["actual"]) == (
        [RULES_VERSION],
        sorted([RULES_VERSION, f"{RULES_VERSION}+qinding"]),
    )
    assert "design.cipu_source" in found


def test_each_exclusion_decision_after_freezing_is_listed_with_its_count_and_ids() -> None:
    b = small()
    exclude(b, "a1", "speeder")  # decided before freezing: part of the plan
    plan = plan_freeze(b.study, PLANNED, Commitments())
    assert plan.content["exclusions"] == {"decided": {"prereg-a1": "speeder"}, "n_decided": 1}
    assert "`prereg-a1` (answers far faster than others)" in preregistration(plan)
    assert rows(b.study) == {}
    for n in range(3):
        b.answer("a2", f"ck-{n}", "answer", n % 2)
    services.participant_decide(participant=person(b, "a3"), decision="keep", reason="other")
    exclude(b, "a2", "other")
    found = rows(b.study)
    assert set(found) == {"exclusions.decided.prereg-a2", "exclusions.n_decided"}
    one = found["exclusions.decided.prereg-a2"]
    assert (one["planned"], one["actual"], one["first_seen_after"]) == ("(absent)", "other", 3)
    assert one["reason"] == "participant prereg-a2 excluded by a researcher after freezing (other)"
    assert in_chinese(b.study, one) == "参与者 prereg-a2 在冻结后由研究者排除（其他）"
    count = found["exclusions.n_decided"]
    assert (count["planned"], count["actual"]) == (1, 2)
    assert count["reason"] == "1 participant(s) excluded by a researcher after freezing: prereg-a2"
    assert in_chinese(b.study, count) == "冻结后由研究者排除的参与者 1 人：prereg-a2"
    # a second decision after more answers: its own row, the first keeps its count
    b.answer("a3", "ck-0", "answer", 0)
    exclude(b, "a3", "speeder")
    found = rows(b.study)
    assert found["exclusions.decided.prereg-a2"]["first_seen_after"] == 3
    assert found["exclusions.decided.prereg-a3"]["first_seen_after"] == 4
    assert found["exclusions.n_decided"]["actual"] == 3
    assert found["exclusions.n_decided"]["reason"].startswith(
        "2 participant(s) excluded by a researcher after freezing: prereg-a2, prereg-a3"
    )
    # the decision taken before freezing, withdrawn after: listed too
    services.participant_decide(participant=person(b, "a1"), decision="keep", reason="speeder")
    back = rows(b.study)["exclusions.decided.prereg-a1"]
    assert (back["planned"], back["actual"]) == ("speeder", "(absent)")
    assert in_chinese(b.study, back) == "参与者 prereg-a1 的排除在冻结后撤销"


def test_a_report_limited_to_some_tasks_is_a_view_not_a_departure() -> None:
    b = small()
    b.task("other", "choice")
    b.item("o-0", "other", {"answer": 0})
    plan_freeze(b.study, PLANNED, Commitments())
    b.model("qwen")
    whole = rows(b.study)
    view = report_for(b.study, replace(PLANNED, tasks=("ck",)), only=ONLY)
    assert {r["setting"]: r for r in view.tables["plan_deviations"]} == whole
    assert set(whole) == {"raters.model.qwen"}


def test_the_command_shows_the_departures_in_words() -> None:
    b = small()
    plan_freeze(b.study, PLANNED, Commitments())
    b.model("qwen")
    exclude(b, "a2")
    out = StringIO()
    call_command("analysis_plan", "show", "prereg", "--pass-threshold", "0.8", stdout=out)
    text = out.getvalue()
    assert 'raters.model.qwen: (absent) → [""] (first seen after 0 answers) — model rater' in text
    assert "exclusions.n_decided: 0 → 1 (first seen after 0 answers) — 1 participant(s)" in text
    assert PlanDeviation.objects.filter(plan__study=b.study).count() == 3


def test_a_format_1_plan_loads_unchanged_and_is_compared_with_the_record() -> None:
    """A plan frozen before this change: no raters, no exclusions. Its content and hash
    stay; a model with an answer stored before its freezing and a decision taken before
    it are not departures, a model and a decision after it are."""
    b = small()
    b.answer("gpt@direct", "ck-0", "answer", 0)
    b.answer("prosody:classical", "ck-0", "answer", 0)
    exclude(b, "a1", "speeder")
    content = {
        "format": 1,
        "study": "prereg",
        "design": design(b.study),
        "analysis": analysis(PLANNED),
        "commitments": {"primary": [], "sample_sizes": {}, "exclusions": [], "note": ""},
    }
    old = AnalysisPlan.objects.create(
        study=b.study, content=content, sha256=digest(canonical(content))
    )
    frozen = timezone.now() - timedelta(hours=1)
    AnalysisPlan.objects.filter(pk=old.pk).update(frozen_at=frozen)
    Response.objects.update(created_at=frozen - timedelta(hours=1))
    QualityDecision.objects.update(decided_at=frozen - timedelta(hours=1))
    assert rows(b.study) == {}  # the record as of freezing: nothing departs
    b.model("qwen")
    b.answer("qwen", "ck-0", "answer", 1)  # stored now, after the freezing
    exclude(b, "a2")
    found = rows(b.study)
    assert set(found) == {
        "raters.model.qwen",
        "exclusions.decided.prereg-a2",
        "exclusions.n_decided",
    }
    assert found["exclusions.n_decided"]["planned"] == 1
    old.refresh_from_db()
    assert old.content == content and old.sha256 == digest(canonical(content))
    assert "not recorded: a plan of format 1" in preregistration(old)


@pytest.mark.slow  # renders the whole dashboard of the known study
def test_the_chinese_dashboard_lists_both_in_chinese(known: Builder) -> None:
    from django.contrib.auth import get_user_model
    from django.test import Client

    from tests.report.visible_text import english_sentences, visible_text

    study = known.study
    plan_freeze(study, ReportSettings(), Commitments())
    known.model("qwen-judge")
    known.answer("qwen-judge", "ck-1", "answer", 0)
    exclude(known, "b2")
    user = get_user_model().objects.create_user("reader")
    study.researchers.add(user)
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-Hans")
    client.force_login(user)
    page = client.get(f"/research/studies/{study.pk}/", {"n_boot": 50})
    assert page.status_code == 200
    text = visible_text(page.content.decode())
    assert "冻结后新增的模型评分者：qwen-judge" in text
    assert "参与者 known-b2 在冻结后由研究者排除（其他）" in text
    assert "冻结后由研究者排除的参与者 1 人：known-b2" in text
    assert {"设置", "计划值", "实际值", "首次发现时的答案数"} <= set(text)
    assert '<td translate="no">（无）</td>' in page.content.decode()  # "(absent)"
    assert not english_sentences(text)
