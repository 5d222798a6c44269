"""A study of generated poems only (issue 24 item 7): no groups, no task people answer, a
rating task without dimensions to hold the models' poems. The loaded poems are
rule-scored and the report gives the rule tables; expected rates: pandas means of the
scores the rule rater stored. Without the exemption, the file needed a dummy group and a
dummy rating dimension."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from annotation.models import Response
from scoring.report import ReportSettings, build_report
from studies.loading.readers import Source
from studies.models import Study
from studies.services import studies_open
from tests.loading.helpers import loader, write_jsonl

pytestmark = pytest.mark.django_db

STUDY: dict[str, Any] = {
    "slug": "gen-only",
    "title": "生成词的格律",
    "tasks": [{"slug": "ci", "title": "生成的词", "kind": "rating", "per_participant": 0}],
    "rule_raters": ["classical"],
}
POEMS = (
    "春风又绿江南岸，明月何时照我还。",
    "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回。无可奈何花落去，似曾相识燕归来。小园香径独徘徊。",
)


def load_study(tmp_path: Path, data: dict[str, Any]) -> str:
    path = tmp_path / "study.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    out = io.StringIO()
    call_command("load_study", str(path), stdout=out)
    return out.getvalue()


def load_poems(tmp_path: Path, study: Study) -> None:
    lines = [
        {"model": m, "run": cond, "generation": {"id": f"g-{m}-{cond}-{k}", "task": "ci",
         "prompt": {"cipai": "浣溪沙", "condition": cond}, "text": POEMS[(k + j) % 2]}}
        for j, m in enumerate(("gen-a", "gen-b")) for cond in ("direct", "form_aware")
        for k in range(3)
    ]  # fmt: skip
    source = Source.from_path(write_jsonl(tmp_path / "gen.jsonl", lines))
    loader("llm_outputs")(source, study=study)


def test_a_study_of_generated_poems_only_loads_and_reports_the_rule_tables(
    tmp_path: Path,
) -> None:
    load_study(tmp_path, STUDY)
    study = Study.objects.get(slug="gen-only")
    assert (study.groups.count(), study.status) == (0, "draft")
    assert list(study.tasks.values_list("dimensions", flat=True)) == [[]]
    load_poems(tmp_path, study)
    stored = pd.DataFrame(
        Response.objects.filter(study=study, rater__kind="rule").values(
            "item__poem_source", "item__poem_condition", "field", "value"
        )
    )
    assert len(stored) > 0
    rates = build_report(study, ReportSettings(n_boot=0)).tables["rule_rates"]
    expected = stored.groupby(["item__poem_source", "item__poem_condition", "field"])["value"]
    checked = 0
    for (source, condition, fld), values in expected:
        rows = [
            r
            for r in rates
            if (r["source"], r["condition"], r["field"]) == (source.split(":")[-1], condition, fld)
        ]
        assert len(rows) == 1, (source, condition, fld)
        assert rows[0]["value"] == pytest.approx(values.mean())
        assert rows[0]["n"] == len(values)
        checked += 1
    assert checked == len(expected) and checked > 0


def test_such_a_study_cannot_be_opened_to_volunteers(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no groups has no volunteers"):
        load_study(tmp_path, {**STUDY, "status": "open"})
    path = tmp_path / "study.json"
    path.write_text(json.dumps(STUDY, ensure_ascii=False), encoding="utf-8")
    out = io.StringIO()
    call_command("load_study", str(path), "--open", stdout=out)
    assert "没有分组" in out.getvalue()  # the command speaks zh-Hans: "has no groups"
    study = Study.objects.get(slug="gen-only")
    assert studies_open(studies=[study]) == 0
    study.refresh_from_db()
    assert study.status == "draft"


def test_the_dashboard_of_such_a_study_shows_its_rule_rates(tmp_path: Path) -> None:
    load_study(tmp_path, STUDY)
    study = Study.objects.get(slug="gen-only")
    load_poems(tmp_path, study)
    user = get_user_model().objects.create_user("r", password="pw")
    study.researchers.add(user)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    page = client.get(f"/research/studies/{study.pk}/")
    assert page.status_code == 200


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"tasks": [{"slug": "ci", "title": "词", "kind": "rating"}]}, "groups"),
        (
            {"tasks": [{"slug": "ci", "title": "词", "kind": "rating", "per_participant": 5}],
             "groups": [{"slug": "A", "name": "A"}]},
            "tasks[0].dimensions",
        ),
        ({"screening": [{"key": "q", "prompt": "?", "options": []}]}, "groups"),
    ],
)  # fmt: skip
def test_a_task_people_answer_still_needs_groups_and_dimensions(
    tmp_path: Path, changes: dict[str, Any], field: str
) -> None:
    with pytest.raises(CommandError, match=rf"field '{field.replace('[', '.').replace(']', '.')}'"):
        load_study(tmp_path, {**STUDY, **changes})
