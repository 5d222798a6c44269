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

import numpy as np
import pandas as pd
import pytest
from django.core.management import CommandError, call_command
from openpyxl import load_workbook

from scoring.prosody import RULES_VERSION
from scoring.report import ReportSettings, build_report
from scoring.report.bundle import bundle_files
from scoring.report.longtable import rule_column, write_long_csv
from scoring.report.service import fingerprint, report_for
from studies.models import ImportLog
from tests.report.cpdue import cpdue_study
from tests.report.factory import Builder
from tests.report.test_report_clusters import _generation_study

pytestmark = pytest.mark.django_db

#: Per table: the columns naming a row, the point columns (counts and estimates:
#: compared exactly), the interval columns (to 1e-9) and the text columns (equal).
TABLES: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "accuracy": (
        ("task", "field", "rater_set"),
        ("n_raters", "n_responses", "value", "successes"),
        ("ci_low", "ci_high", "design_effect", "icc_person", "icc_item"),
        ("ci_method",),
    ),
    "ratings": (
        ("task", "field", "rater_set"),
        ("n_items", "n_raters", "n_ratings", "mean", "sd"),
        ("ci_low", "ci_high", "design_effect", "icc_person", "icc_item"),
        ("ci_method",),
    ),
    "rule_rates": (
        ("rule", "version", "field", "source", "condition"),
        ("n", "value", "successes"),
        ("ci_low", "ci_high", "design_effect", "icc_person", "icc_item"),
        ("kind", "ci_method"),
    ),
    "validation": (
        ("scope", "task", "left_out", "field", "judge", "reference", "generator", "metric"),
        ("value", "n", "n_items"),
        ("ci_low", "ci_high"),
        ("positive", "average", "ci_method"),
    ),
}
#: Point estimates recomputed by another summation order than the report's may differ
#: in the last bits: (table, column) -> the tolerance allowed, with why. Empty: exact.
NOT_EXACT: dict[tuple[str, str], float] = {}


def _text(a: Any) -> str:
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return ""
    return str(a)


def _close(a: Any, b: str, tol: float) -> bool:
    """The report's cell ``a`` against the script's CSV text ``b``: both missing, or
    equal numbers (``tol`` 0: exactly, as the CSV keeps every float's digits)."""
    if _text(a) == "" or b == "":
        return _text(a) == "" and b == ""
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return x == y if tol == 0 else math.isclose(x, y, rel_tol=0, abs_tol=tol)


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig") as fh:
        return list(csv.DictReader(fh))


def _recompute(folder: Path) -> dict[str, list[dict[str, str]]]:
    done = subprocess.run(
        [sys.executable, "-I", str(folder / "recompute.py"), str(folder)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return {n: _read(folder / "recomputed" / f"{n}.csv") for n in TABLES}


def _check(
    report: dict[str, Any],
    got: dict[str, list[dict[str, str]]],
    tables: tuple[str, ...] = tuple(TABLES),
) -> int:
    """Every cell of every row of ``tables`` in the report against the script's; the
    report's columns must all be recomputed (none left out unnoticed). Returns the
    number of cells compared."""
    compared = 0
    for table in tables:
        key, points, bounds, texts = TABLES[table]
        theirs = {tuple(_text(r[k]) for k in key): r for r in report[table]}
        mine = {tuple(r[k] for k in key): r for r in got[table]}
        assert len(theirs) == len(report[table]) and len(mine) == len(got[table]), table
        assert mine.keys() == theirs.keys(), (table, set(mine) ^ set(theirs))
        for row in report[table]:
            assert set(row) == {*key, *points, *bounds, *texts}, (table, set(row))
        for k, row in theirs.items():
            for col in points:
                tol = NOT_EXACT.get((table, col), 0.0)
                assert _close(row[col], mine[k][col], tol), (table, k, col, row[col], mine[k][col])
            for col in bounds:
                assert _close(row[col], mine[k][col], 1e-9), (table, k, col, row[col], mine[k][col])
            for col in texts:
                assert _text(row[col]) == mine[k][col], (table, k, col, row[col], mine[k][col])
            compared += len(points) + len(bounds) + len(texts)
    return compared


def _bundle_on_disk(study: Any, report: Any, folder: Path) -> None:
    for name, data in bundle_files(study, report).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)


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
    assert {(r["task"], r["rating"]) for r in rows} == {
        ("ck", "false"),
        ("au", "false"),
        ("oq", "false"),
        ("quality", "true"),
    }
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
    """The bundle's files built in memory, the script run on them: every cell of the
    four tables, under the default settings (people × items clustered intervals, the
    seeded bootstrap of graded rule means and of kappa, F1 and phi)."""
    report = build_report(known.study, ReportSettings(), only=tuple(TABLES))
    files = bundle_files(known.study, report)
    _bundle_on_disk(known.study, report, tmp_path)
    got = _recompute(tmp_path)
    assert {t: len(got[t]) for t in TABLES} == {t: len(report.tables[t]) for t in TABLES}
    assert len(got["accuracy"]) > 20 and len(got["ratings"]) > 8
    assert len(got["rule_rates"]) == 4 and len(got["validation"]) > 500
    assert _check(report.as_json(), got) > 4000
    # the hand-computed figure of tests/report/test_known_table.py, through the script
    row = next(r for r in got["accuracy"] if (r["task"], r["rater_set"]) == ("ck", "group:A"))
    assert float(row["value"]) == 0.625
    manifest = json.loads(files["MANIFEST.json"])
    assert {f["name"] for f in manifest["files"]} == set(files) - {"MANIFEST.json"}


def test_the_check_fails_on_a_changed_cell(known: Builder, tmp_path: Path) -> None:
    """The comparison can fail: one bound moved by 1e-8, one text changed, one row lost."""
    report = build_report(known.study, ReportSettings(n_boot=20), only=tuple(TABLES))
    _bundle_on_disk(known.study, report, tmp_path)
    got = _recompute(tmp_path)
    _check(report.as_json(), got)
    for table, col, change in (
        ("accuracy", "ci_low", lambda v: str(float(v) + 1e-8)),
        ("ratings", "ci_method", lambda v: v + "x"),
        ("rule_rates", "value", lambda v: str(float(v) + 1e-15)),
        ("validation", "n", lambda v: str(int(v) + 1)),
    ):
        broken = {t: [dict(r) for r in rows] for t, rows in got.items()}
        broken[table][0][col] = change(broken[table][0][col])
        with pytest.raises(AssertionError):
            _check(report.as_json(), broken)
    with pytest.raises(AssertionError):
        _check(report.as_json(), {**got, "validation": got["validation"][1:]})


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


#: (worked study, settings): each study under the defaults, and the other interval
#: settings on the studies they matter for.
WORKED = [
    ("known", {}),
    ("cciv", {}),
    ("cciv", {"cluster": "prompt", "ratings_ci": "normal"}),
    ("fuxi", {}),
    ("fuxi", {"cluster": "none", "ratings_ci": "bootstrap"}),
    ("tang", {}),
    ("tang", {"ratings_ci": "t", "cluster": "person+prompt"}),
    ("cpdue", {}),
    ("cpdue", {"cluster": "person", "confidence": 0.9}),
    ("generation", {}),
    ("generation", {"cluster": "prompt"}),
]


def _generation() -> Builder:
    """Three samples per generation prompt (test_report_clusters' study: the prompt
    clusters of ``rule_rates``), with a graded rule metric and people rating the poems,
    so the item-clustered Wilson and t intervals of rules and the prompt-clustered
    ratings are recomputed too."""
    rng = np.random.default_rng(11)
    b, frame = _generation_study()
    b.group("g")
    for r in range(4):
        b.human(f"h{r}", "g")
    for item in frame["item"]:
        b.answer("ccv", item, "tonal", float(rng.integers(0, 9)) / 8)
        for r in range(4):
            if rng.random() < 0.7:
                b.answer(f"h{r}", item, "q", int(rng.integers(1, 6)))
    return b


def worked_builder(worked: str, request: pytest.FixtureRequest) -> Builder:
    """The worked study ``worked`` (a name of ``WORKED``) stored in the test database."""
    if worked == "cpdue":
        return cpdue_study().builder
    if worked == "generation":
        return _generation()
    fixture = request.getfixturevalue(worked)
    return fixture if isinstance(fixture, Builder) else fixture[0]


@pytest.mark.slow
@pytest.mark.parametrize(("worked", "settings"), WORKED)
def test_recompute_on_the_worked_studies(
    worked: str, settings: dict[str, Any], request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """CCiV's repeated samples (prompt clusters; model samples after the first
    dropped), Tang's generators and rule scores, Fùxì's keyed yes/no tasks (pooled and
    "without" scopes), CP-DUE's people × items design: the script gives every cell of
    the report's four tables."""
    builder = worked_builder(worked, request)
    report = build_report(builder.study, ReportSettings(**settings), only=tuple(TABLES))
    assert sum(len(report.tables[t]) for t in TABLES) > 0
    _bundle_on_disk(builder.study, report, tmp_path)
    assert _check(report.as_json(), _recompute(tmp_path)) > 0


@pytest.mark.slow
def test_recompute_says_it_does_not_split(known: Builder, tmp_path: Path) -> None:
    """Not reproduced, by design: a report split with ``--by`` (its split rows carry the
    split keys; the script gives the unsplit tables and says so)."""
    report = build_report(known.study, ReportSettings(n_boot=0, by=("source",)), only=("ratings",))
    _bundle_on_disk(known.study, report, tmp_path)
    done = subprocess.run(
        [sys.executable, "-I", str(tmp_path / "recompute.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0 and "does not split" in done.stderr


def _script() -> Any:
    """recompute.py loaded as a module (it imports nothing of the platform)."""
    import importlib.util

    from scoring.report.bundle import FILES

    spec = importlib.util.spec_from_file_location("bundle_recompute", FILES / "recompute.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_scripts_clustered_interval_is_statsmodels_two_way_cluster_robust_ols() -> None:
    """The script's CGM variance against statsmodels' cluster-robust OLS of an intercept
    (two-way and one-way), independently of the report: a mean's interval is
    θ ± t(min(G) − 1)·SE, a share's Wilson's at n / deff with that t (statsmodels')."""
    import statsmodels.api as sm
    from scipy import stats
    from statsmodels.stats.proportion import proportion_confint

    script = _script()
    rng = np.random.default_rng(7)
    people, items = np.repeat(np.arange(5), 6), np.tile(np.arange(6), 5)
    skill = rng.normal(0, 1, 5)[people] + rng.normal(0, 1, 6)[items]
    for y in ((skill + rng.normal(0, 1, 30) > 0).astype(float), skill + rng.normal(0, 1, 30)):
        for groups in ({"person": people, "item": items}, {"person": people}):
            arr = np.column_stack(list(groups.values())) if len(groups) > 1 else people
            fit = sm.OLS(y, np.ones((30, 1))).fit(cov_type="cluster", cov_kwds={"groups": arr})
            se, crit = float(fit.bse[0]), float(stats.t.ppf(0.975, 4))
            mean = script.clustered_mean(y, groups, 0.95, proportion=False)
            assert (mean["ci_low"], mean["ci_high"]) == pytest.approx(
                (y.mean() - crit * se, y.mean() + crit * se), rel=1e-9
            )
            if set(np.unique(y)) <= {0.0, 1.0}:
                share = script.clustered_mean(y, groups, 0.95, proportion=True)
                deff = se**2 / (30 / 29 * np.sum(((y - y.mean()) / 30) ** 2))
                assert share["design_effect"] == pytest.approx(deff, rel=1e-9)
                n_eff, alpha = 30 / deff, 2 * stats.norm.sf(crit)
                low, high = proportion_confint(y.mean() * n_eff, n_eff, alpha, method="wilson")
                assert (share["ci_low"], share["ci_high"]) == pytest.approx((low, high), rel=1e-9)
    assert script.wilson(7, 20, 0.95) == pytest.approx(
        proportion_confint(7, 20, 0.05, method="wilson"), rel=1e-12
    )


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
    assert roots <= {
        "__future__", "json", "math", "re", "sys", "warnings", "pathlib", "typing",
        "numpy", "pandas", "scipy",
    }  # fmt: skip


def test_unwritable_bundle_path_is_a_clear_error(known: Builder, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(CommandError, match="--bundle"):
        call_command(
            "report", "known", "--bundle", str(tmp_path / "file" / "b.zip"), "--n-boot", "0",
            "--tasks", "ck", stderr=io.StringIO(),
        )  # fmt: skip


def test_recruitment_ids_stay_out_of_a_bundle_unless_asked_for(known: Builder) -> None:
    """A bundle is made to be shared: the volunteers' recruitment platform ids (a Prolific
    PID identifies a person there) are blank in its responses.csv, the column kept;
    ``recruitment=True`` (``--bundle-recruitment``) keeps them, as the raw export does."""
    from annotation.models import Participant

    marked = Participant.objects.filter(study=known.study)
    assert marked.exists()
    marked.update(recruitment={"PROLIFIC_PID": "pp-5f1e0c"})
    report = build_report(known.study, ReportSettings(n_boot=0))
    shared = bundle_files(known.study, report)["responses.csv"].decode("utf-8-sig")
    kept = bundle_files(known.study, report, recruitment=True)["responses.csv"].decode("utf-8-sig")
    assert "pp-5f1e0c" not in shared and "pp-5f1e0c" in kept
    frame = pd.read_csv(io.StringIO(shared), keep_default_na=False)
    whole = pd.read_csv(io.StringIO(kept), keep_default_na=False)
    assert list(frame.columns) == list(whole.columns) and "recruitment" in frame.columns
    assert (frame["recruitment"] == "").all() and (whole["recruitment"] != "").any()
    pd.testing.assert_frame_equal(
        frame.drop(columns="recruitment"), whole.drop(columns="recruitment")
    )


def test_an_empty_table_is_recomputed_with_its_header(known: Builder, tmp_path: Path) -> None:
    """Probe 24: a study without a choice task (or without ratings) got a
    ``recomputed/accuracy.csv`` with no header at all, which ``pandas.read_csv`` refuses
    (EmptyDataError); the report's own CSV of that table has its header. Here the
    export is cut to its header, so all four tables are empty; each must read back as an
    empty table with the report's columns."""
    import pandas as pd

    report = build_report(known.study, ReportSettings(n_boot=0), only=tuple(TABLES))
    _bundle_on_disk(known.study, report, tmp_path)
    export = tmp_path / "responses.csv"
    export.write_text(export.read_text(encoding="utf-8-sig").splitlines()[0] + "\n", "utf-8-sig")
    _recompute(tmp_path)
    for name in TABLES:
        table = pd.read_csv(tmp_path / "recomputed" / f"{name}.csv", encoding="utf-8-sig")
        assert table.empty
        assert set(table.columns) == set(report.tables[name][0]), name
