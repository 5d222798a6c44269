"""``--by`` splits only the tables it applies to (issue 24 item 7): each ``TableSpec``
declares the keys it ``accepts``; the others are computed once on the whole study and the
report's ``provenance["by"]`` says which tables were split. Worked study: Tang (SYNTHETIC)."""

from __future__ import annotations

import io

import pytest

from scoring.report import ReportSettings, build_report
from scoring.report.registry import BY_NAME
from scoring.report.writers import table_csv
from tests.report.test_worked_tang import build_tang

pytestmark = pytest.mark.django_db


def test_by_source_leaves_the_tables_it_does_not_apply_to_as_they_are(db) -> None:
    b, items, _ = build_tang()
    whole = build_report(b.study, ReportSettings(n_boot=50)).as_json()
    split = build_report(b.study, ReportSettings(n_boot=50, by=("source",))).as_json()
    # echo_chamber compares machine poems with all, validation is per generator already
    for name in ("echo_chamber", "validation", "exclusions", "aggregates"):
        assert "source" not in BY_NAME[name].split_keys(("source",))
        assert split[name] == whole[name], name
        assert all("source" not in row for row in split[name]), name
    # ratings is split: one block of rows per source, the source a column
    sources = set(items["source"])  # human, gpt-4o, qwen
    assert {row["source"] for row in split["ratings"]} == sources
    assert len(split["ratings"]) == len(sources) * len(whole["ratings"])


def test_the_provenance_says_which_tables_were_split(db) -> None:
    b, _, _ = build_tang()
    report = build_report(b.study, ReportSettings(n_boot=0, by=("source",)))
    record = report.provenance["by"]
    assert record["asked"] == ["source"]
    assert record["split"]["ratings"] == ["source"]
    assert "echo_chamber" not in record["split"] and "echo_chamber" in record["once"]
    assert "validation" in record["once"] and "exclusions" in record["once"]
    assert record["own_columns"]["self_preference"] == ["source"]
    assert build_report(b.study, ReportSettings(n_boot=0)).provenance["by"] is None


def test_the_files_of_a_table_not_split_have_no_split_column(db) -> None:
    b, _, _ = build_tang()
    report = build_report(b.study, ReportSettings(n_boot=0, by=("source",)))
    out = io.StringIO()
    table_csv("echo_chamber", report.tables["echo_chamber"], out, report.settings.by)
    assert "source" not in out.getvalue().splitlines()[0].split(",")
    out = io.StringIO()
    table_csv("ratings", report.tables["ratings"], out, report.settings.by)
    assert out.getvalue().splitlines()[0].split(",")[0] == "source"


@pytest.mark.slow
def test_the_cciv_recipe_is_one_run(db) -> None:
    # Table 2 (rule_rates) and form_length have the source as a column of their own, so
    # the run that splits the judges' ratings by generating model leaves them as they are
    from tests.report.test_worked_cciv import MODELS, build_cciv

    b, _, _ = build_cciv()
    plain = build_report(b.study, ReportSettings(n_boot=50)).as_json()
    one_run = build_report(
        b.study, ReportSettings(n_boot=50, by=("source",), ratings_ci="normal")
    ).as_json()
    for name in ("rule_rates", "form_length", "published_vs_computed"):
        assert one_run[name] == plain[name], name
    assert {r["source"] for r in one_run["ratings"]} == {*MODELS, "human"}
    assert one_run["provenance"]["by"]["own_columns"]["rule_rates"] == ["source"]
