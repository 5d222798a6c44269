"""The report's table registry (scoring/report/registry.py): every table is named once,
and the report, the files, the dashboard and the API schema all follow it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from drf_spectacular.generators import SchemaGenerator

from research.api.serializers import ReportOut
from research.dashboard.tables import SHOWN
from scoring.report import TABLES
from scoring.report.build import PAPER_TABLES
from scoring.report.registry import BY_NAME, SPECS
from scoring.report.writers import KNOWN_COLUMNS, WHOLE

DOCS = Path(__file__).resolve().parents[2] / "docs" / "report.md"


def test_every_table_has_a_builder_columns_and_a_unique_name() -> None:
    assert len(BY_NAME) == len(SPECS) == len(TABLES)
    for spec in SPECS:
        assert callable(spec.build), spec.name
        assert spec.columns and len(set(spec.columns)) == len(spec.columns), spec.name
        assert set(spec.native) <= {"source", "condition", "form", "generator"}, spec.name


def test_every_table_has_a_section_in_the_docs() -> None:
    headings = [
        line for line in DOCS.read_text(encoding="utf-8").splitlines() if line.startswith("#")
    ]
    missing = [n for n in TABLES if not any(re.search(rf"\b{n}\b", h) for h in headings)]
    assert missing == []


def test_files_dashboard_and_paper_panels_follow_the_registry() -> None:
    assert list(KNOWN_COLUMNS) == list(TABLES)
    assert all(KNOWN_COLUMNS[s.name] == list(s.columns) for s in SPECS)
    assert set(WHOLE) == {s.name for s in SPECS if not s.split}
    assert set(SHOWN) == {s.name for s in SPECS if s.shown is not None}
    assert tuple(s.name for s in SPECS if s.paper) == PAPER_TABLES


def test_the_api_schema_has_every_table() -> None:
    assert set(TABLES) <= set(ReportOut().fields)
    schema = SchemaGenerator().get_schema(request=None, public=True)
    report = schema["components"]["schemas"]["ReportOut"]["properties"]
    assert [n for n in TABLES if n not in report] == []


@pytest.mark.django_db
def test_a_table_added_to_the_registry_reaches_the_report(monkeypatch: pytest.MonkeyPatch) -> None:
    # The worked example of docs/architecture.md: one spec, nothing else.
    from scoring.report import build, registry
    from scoring.report.registry import TableSpec
    from studies.models import Study

    extra = TableSpec("n_raters", lambda c: [{"n": len(c.data.raters)}], columns=("n",))
    monkeypatch.setattr(registry, "SPECS", (*registry.SPECS, extra))
    study = Study.objects.create(slug="empty", title="empty")
    report = build.build_report(study, only=("n_raters",))
    assert report.tables["n_raters"] == [{"n": 0}]
