"""Report settings from every interface: the command, the API, report jobs; echoed in the
JSON, part of the cache key, and tables split by item provenance (``by``)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import CommandError, call_command

from scoring.report import ReportSettings, SettingsError, build_report, settings_from
from scoring.report.service import report_for
from tests.report.factory import Builder

pytestmark = pytest.mark.django_db


def test_settings_are_read_from_text_and_checked() -> None:
    s = settings_from(
        {"n_boot": "50", "by": "source, condition", "tasks": ["quality"], "min_side": "3"}
    )
    assert (s.n_boot, s.by, s.tasks, s.min_side) == (50, ("source", "condition"), ("quality",), 3)
    assert s.as_json()["by"] == ["source", "condition"]
    assert settings_from({}) == ReportSettings()
    for values, name in (
        ({"by": "source,author"}, "by"),
        ({"confidence": "1.5"}, "confidence"),
        ({"n_boot": "2.5"}, "n_boot"),
        ({"min_side": "0"}, "min_side"),
        ({"pass_threshold": "2"}, "pass_threshold"),
        ({"ratings_ci": "wald"}, "ratings_ci"),
        ({"cluster": "rater"}, "cluster"),
    ):
        with pytest.raises(SettingsError) as caught:
            settings_from(values)
        assert caught.value.name == name


@pytest.mark.slow
def test_the_command_takes_every_setting_and_the_json_echoes_them(known: Builder) -> None:
    out = io.StringIO()
    call_command(
        "report",
        "known",
        "--n-boot",
        "0",
        "--by",
        "source",
        "--min-side",
        "2",
        "--pass-threshold",
        "0.5",
        "--tasks",
        "quality",
        "--confidence",
        "0.9",
        "--ratings-ci",
        "normal",
        "--cluster",
        "person",
        stdout=out,
    )
    data = json.loads(out.getvalue())
    assert data["settings"] == {
        "n_boot": 0,
        "seed": 20261122,
        "confidence": 0.9,
        "pass_threshold": 0.5,
        "min_side": 2,
        "by": ["source"],
        "tasks": ["quality"],
        "ratings_ci": "normal",
        "cluster": "person",
    }
    assert data["accuracy"] == []  # only the quality task
    ratings = [r for r in data["ratings"] if (r["field"], r["rater_set"]) == ("prosody", "humans")]
    # split by source: the humans' prosody ratings of human poems and of qwen's
    assert {r["source"]: r["mean"] for r in ratings} == {"human": 3.25, "qwen": 3.0}
    assert {r["ci_method"] for r in ratings} == {"normal over ratings (mean ± z·SE)"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--by", "author"], "--by"),
        (["--tasks", "nope"], "no task 'nope'"),
        (["--confidence", "95"], "--confidence"),
    ],
)
def test_bad_settings_are_clear_command_errors(
    known: Builder, args: list[str], message: str
) -> None:
    with pytest.raises(CommandError, match=message):
        call_command("report", "known", *args)


@pytest.mark.slow
def test_split_tables_put_the_split_keys_first_in_csv(known: Builder, tmp_path) -> None:
    call_command(
        "report",
        "known",
        "--format",
        "csv",
        "--out",
        str(tmp_path),
        "--n-boot",
        "0",
        "--by",
        "form",
    )
    with (tmp_path / "ratings.csv").open(encoding="utf-8-sig") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0])[:2] == ["form", "task"]
    assert {r["form"] for r in rows} == {"ci:浣溪沙", "ci:如梦令"}
    with (tmp_path / "exclusions.csv").open(encoding="utf-8-sig") as fh:
        assert next(csv.reader(fh))[0] == "reason"  # never split


@pytest.mark.slow
def test_the_cache_keys_on_every_setting(known: Builder) -> None:
    plain = report_for(known.study, ReportSettings(n_boot=0))
    split = report_for(known.study, ReportSettings(n_boot=0, by=("source",)))
    assert "source" not in plain.tables["ratings"][0] and "source" in split.tables["ratings"][0]
    assert report_for(known.study, ReportSettings(n_boot=0, by=("source",))) is not plain
    lenient = report_for(known.study, ReportSettings(n_boot=0, min_side=1))
    assert lenient.settings.min_side == 1


@pytest.mark.slow
def test_every_table_splits_by_every_key_it_accepts(known: Builder) -> None:
    for key in ("source", "condition", "sample", "form", "category"):
        report = build_report(known.study, ReportSettings(n_boot=0, by=(key,)))
        for name in ("accuracy", "agreement", "ratings", "pairwise"):
            assert all(key in row for row in report.tables[name]), (key, name)
        # validation is per generator (the poems' source) already: never split by source
        assert all((key in row) == (key != "source") for row in report.tables["validation"])
        assert all(key not in row for row in report.tables["exclusions"])


@pytest.mark.slow
def test_the_report_job_takes_the_settings(
    known: Builder, django_capture_on_commit_callbacks
) -> None:
    from jobs.services import job_submit

    settings = {"n_boot": 0, "by": ["source"], "tasks": ["quality"]}
    with django_capture_on_commit_callbacks(execute=True):
        job = job_submit(
            kind="report", study=known.study, params={"format": "json", "settings": settings}
        )
    job.refresh_from_db()
    assert job.status == "done", job.message
    assert job.summary["settings"]["by"] == ["source"]
    # result files are named relative to DATA_DIR (jobs.runners.stored_name)
    with open(Path(django_settings.DATA_DIR) / job.result_file, encoding="utf-8") as fh:
        data = json.load(fh)
    assert data["settings"]["tasks"] == ["quality"] and data["accuracy"] == []
    assert all("source" in row for row in data["ratings"])
