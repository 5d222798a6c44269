"""The analysis bundle (``manage.py report STUDY --bundle``), the long table, provenance.

The bundle's ``recompute.py`` runs in a subprocess on the extracted bundle (nothing of
the platform on its path) and must give the report's own ``accuracy`` and ``ratings``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from openpyxl import load_workbook

from scoring.prosody import RULES_VERSION
from scoring.report import ReportSettings, build_report
from scoring.report.bundle import bundle_files
from scoring.report.longtable import rule_column, write_long_csv
from scoring.report.service import fingerprint, report_for
from studies.models import ImportLog
from tests.report.factory import Builder

pytestmark = pytest.mark.django_db

ACCURACY = ("n_raters", "n_responses", "value", "ci_low", "ci_high", "successes")
RATINGS = ("n_items", "n_raters", "n_ratings", "mean", "sd")


def _same(a: Any, b: Any) -> bool:
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b in ("", None) or (isinstance(b, float) and math.isnan(b))
    return math.isclose(float(a), float(b), rel_tol=0, abs_tol=1e-9)


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig") as fh:
        return list(csv.DictReader(fh))


def _recompute(folder: Path) -> dict[str, list[dict[str, str]]]:
    done = subprocess.run(
        [sys.executable, "-I", str(folder / "recompute.py"), str(folder)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return {n: _read(folder / "recomputed" / f"{n}.csv") for n in ("accuracy", "ratings")}


def _check(report: dict[str, Any], got: dict[str, list[dict[str, str]]]) -> None:
    for table, cols in (("accuracy", ACCURACY), ("ratings", RATINGS)):
        mine = {(r["task"], r["field"], r["rater_set"]): r for r in got[table]}
        theirs = {(r["task"], r["field"], r["rater_set"]): r for r in report[table]}
        assert mine.keys() == theirs.keys(), table
        for key, row in theirs.items():
            for col in cols:
                # recompute.py gives Wilson's interval over independent answers: the
                # report's when a row is not clustered (cluster=none, or one answer each)
                if col.startswith("ci_") and row.get("ci_method", "Wilson") != "Wilson":
                    continue
                assert _same(row[col], mine[key][col]), (table, key, col, row[col], mine[key][col])


def test_provenance_in_the_report(known: Builder) -> None:
    ImportLog.objects.create(
        kind="pool", study=known.study, filename="pool.jsonl", sha256="ab" * 32, rows=3
    )
    data = build_report(known.study, ReportSettings(n_boot=0), only=("accuracy",)).as_json()
    prov = data["provenance"]
    assert prov["rules_version"] == RULES_VERSION
    assert len(prov["data_fingerprint"]) == 24
    assert prov["commit"] and prov["commit_source"] in ("git", "env", "unknown")
    assert prov["packages"]["pandas"] and prov["packages"]["django"]
    assert set(prov["packages"]) >= {"numpy", "scipy", "statsmodels", "pypinyin", "choix"}
    assert [(x["filename"], x["sha256"], x["rows"]) for x in prov["loads"]] == [
        ("pool.jsonl", "ab" * 32, 3)
    ]
    assert prov["data_fingerprint"] == fingerprint(known.study)  # the cache's own key
    cached = report_for(known.study, ReportSettings(n_boot=0), only=("accuracy",))
    assert cached.provenance["data_fingerprint"] == prov["data_fingerprint"]
    known.answer("c2", "au-2", "person", 2)  # new data: a new fingerprint
    again = build_report(known.study, ReportSettings(n_boot=0), only=("accuracy",))
    assert again.provenance["data_fingerprint"] != prov["data_fingerprint"]


def test_long_table_joins_rule_metrics_and_marks_exclusions(known: Builder) -> None:
    out = io.StringIO()
    n = write_long_csv(known.study, out)
    text = out.getvalue()
    assert text.startswith("\ufeff")
    rows = list(csv.DictReader(io.StringIO(text[1:])))
    assert len(rows) == n
    assert {r["rater_kind"] for r in rows} == {"human", "model"}  # rule scores are columns
    tonal, structural = (
        rule_column("prosody:modern", "tonal"),
        rule_column("prosody:modern", "structural"),
    )
    assert tonal == "rule_prosody_modern__tonal"
    a1 = [r for r in rows if r["rater"] == "a1" and r["task"] == "quality"]
    assert {(r["item"], r["field"], r[tonal], r[structural]) for r in a1} >= {
        ("poem-1", "prosody", "0.9", "1"),
        ("poem-4", "aesthetic", "0.3", "0"),
    }
    assert all(r[tonal] == "" for r in rows if r["task"] == "ck")
    kimi = next(r for r in rows if r["rater"] == "kimi-k2")
    assert (kimi["rater_id"], kimi["model"], kimi["group"]) == (
        "model:kimi-k2@direct",
        "model:kimi-k2@direct",
        "",
    )
    why = {(r["rater"], r["item"]): r["excluded"] for r in rows}
    assert why[("f1", "ck-1")] == "flagged" and why[("a1", "ck-check")] == "attention_check"
    assert why[("a1", "ck-1")] == ""
    plain = io.StringIO()
    write_long_csv(known.study, plain, bom=False)
    assert plain.getvalue() == text[1:]


@pytest.mark.slow
def test_recompute_gives_the_reports_numbers(known: Builder, tmp_path: Path) -> None:
    """The bundle's files built in memory (two tables only), the script run on them."""
    report = build_report(known.study, ReportSettings(n_boot=0), only=("accuracy", "ratings"))
    files = bundle_files(known.study, report)
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    got = _recompute(tmp_path)
    assert (len(got["accuracy"]), len(got["ratings"])) == (
        len(report.tables["accuracy"]),
        len(report.tables["ratings"]),
    )
    assert len(got["accuracy"]) > 20 and len(got["ratings"]) > 8
    _check(report.as_json(), got)
    # the hand-computed figure of tests/report/test_known_table.py, through the script
    row = next(r for r in got["accuracy"] if (r["task"], r["rater_set"]) == ("ck", "group:A"))
    assert float(row["value"]) == 0.625
    manifest = json.loads(files["MANIFEST.json"])
    assert {f["name"] for f in manifest["files"]} == set(files) - {"MANIFEST.json"}


@pytest.mark.slow
def test_report_command_writes_the_bundle(known: Builder, tmp_path: Path) -> None:
    out = tmp_path / "bundle.zip"
    call_command(
        "report", "known", "--bundle", str(out), "--n-boot", "0", "--ratings-ci", "normal",
        stderr=io.StringIO(),
    )  # fmt: skip
    with zipfile.ZipFile(out) as zf:
        names = set(zf.namelist())
        zf.extractall(tmp_path / "x")
    folder = tmp_path / "x" / "known"
    expected = {
        "responses.csv", "codebook.md", "long.csv", "report.json", "report.xlsx",
        "report/accuracy.csv", "report/ratings.csv", "settings.json", "provenance.json",
        "design.json", "recompute.py", "mixed_models.R", "MANIFEST.json",
    }  # fmt: skip
    assert {f"known/{n}" for n in expected} <= names
    assert not list(tmp_path.glob("*.part"))
    manifest = json.loads((folder / "MANIFEST.json").read_text("utf-8"))
    for entry in manifest["files"]:  # streamed into the zip, hashed on the way
        data = (folder / entry["name"]).read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (entry["bytes"], entry["sha256"])
    assert len(manifest["files"]) == len(names) - 1
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    assert report["provenance"] == json.loads((folder / "provenance.json").read_text("utf-8"))
    assert json.loads((folder / "settings.json").read_text("utf-8"))["ratings_ci"] == "normal"
    assert (folder / "responses.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    about = load_workbook(folder / "report.xlsx", read_only=True)["report"]
    shown = {row[0]: row[1] for row in about.iter_rows(values_only=True)}
    assert shown["rules_version"] == RULES_VERSION and shown["data_fingerprint"]
    assert "rule_<rule>__<metric>" in (folder / "codebook.md").read_text("utf-8")
    _check(report, _recompute(folder))


def test_no_bom_and_the_raw_exports_bom(known: Builder, tmp_path: Path) -> None:
    call_command(
        "report", "known", "--long-table", str(tmp_path / "long.csv"), "--no-bom",
        "--n-boot", "0", "--tasks", "ck", stderr=io.StringIO(),
    )  # fmt: skip
    assert (tmp_path / "long.csv").read_bytes().startswith(b"study,")
    call_command("export_responses", "known", "--format", "csv", "--out", str(tmp_path / "a.csv"))
    assert (tmp_path / "a.csv").read_bytes().startswith(b"\xef\xbb\xbfstudy,")
    call_command(
        "export_responses", "known", "--format", "csv", "--out", str(tmp_path / "b.csv"),
        "--no-bom",
    )  # fmt: skip
    assert (tmp_path / "b.csv").read_bytes() == (tmp_path / "a.csv").read_bytes()[3:]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("worked", "ratings_ci"), [("cciv", "normal"), ("tang", "t"), ("fuxi", "t")]
)
def test_recompute_on_the_worked_studies(
    worked: str, ratings_ci: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """CCiV's repeated samples (dropped after the first), Tang's generators and rule
    scores, Fùxì's keyed tasks: the script gives the report's numbers on each."""
    builder = request.getfixturevalue(worked)[0]
    opts = ReportSettings(n_boot=0, ratings_ci=ratings_ci)
    report = build_report(builder.study, opts, only=("accuracy", "ratings"))
    assert report.tables["accuracy"] or report.tables["ratings"]
    for name, data in bundle_files(builder.study, report).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    _check(report.as_json(), _recompute(tmp_path))


def test_recompute_imports_nothing_of_the_platform() -> None:
    import ast

    from scoring.report.bundle import FILES

    tree = ast.parse((FILES / "recompute.py").read_text(encoding="utf-8"))
    roots = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 0
    }
    assert roots <= {"__future__", "json", "re", "sys", "pathlib", "statistics", "pandas"}


def test_unwritable_bundle_path_is_a_clear_error(known: Builder, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(CommandError, match="--bundle"):
        call_command(
            "report", "known", "--bundle", str(tmp_path / "file" / "b.zip"), "--n-boot", "0",
            "--tasks", "ck", stderr=io.StringIO(),
        )  # fmt: skip
