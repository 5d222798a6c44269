"""Paper layouts (``manage.py report STUDY --paper NAME`` / ``--rows --cols``; issue 24.1).

Each named layout is rendered from a worked study under tests/ (synthetic data) through
the command; the expected cells are recomputed here with pandas from the report's own
tidy rows (``build_report``), never with ``scoring.report.paper``. LaTeX is checked
structurally (and compiled when a TeX engine is installed), Markdown for its shape.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from django.core.management import CommandError, call_command
from django.utils import translation
from openpyxl import load_workbook

from scoring.report import ReportSettings, build_report
from scoring.report.paper import (
    LAYOUT_BY_NAME,
    LAYOUTS,
    Delta,
    Names,
    Pivot,
    PivotError,
    pivot,
    render,
    xlsx_bytes,
)
from tests.report.cpdue import cpdue_study

pytestmark = pytest.mark.django_db

# --- a fast pivot on hand-made rows -------------------------------------------------

HAND: list[dict[str, Any]] = [
    {"model": "gpt_4o", "cond": "direct", "value": 0.5, "ci_low": 0.25, "ci_high": 0.75,
     "ci_method": "wilson", "n": 12},
    {"model": "gpt_4o", "cond": "form&aware", "value": 0.625, "ci_low": 0.4, "ci_high": 0.8,
     "ci_method": "wilson", "n": 12},
    {"model": "通义", "cond": "direct", "value": 0.75, "ci_low": 0.5, "ci_high": 0.9,
     "ci_method": "wilson", "n": 10},
    {"model": "通义", "cond": "form&aware", "value": 0.25, "ci_low": 0.1, "ci_high": 0.5,
     "ci_method": "wilson", "n": 10},
    {"model": "human", "cond": None, "value": 0.9, "ci_low": 0.7, "ci_high": 0.97,
     "ci_method": "wilson", "n": 10},
]  # fmt: skip


def test_pivot_of_hand_made_rows_in_every_format() -> None:
    p = Pivot(rows=("model",), cols=("cond",), ci=True)
    wide = pivot(HAND, p, table="rule_rates", settings={"confidence": 0.9})
    assert wide.row_labels == [("gpt_4o",), ("通义",), ("human",)]  # first-seen order
    assert wide.col_labels == [("direct",), ("form&aware",), ("—",)]
    assert wide.digits == 2  # every value in [0, 1]
    md = render(wide, "markdown", "Table & 表")
    assert "| gpt_4o | 0.50 [0.25, 0.75] | **0.62 [0.40, 0.80]** | — |" in md
    assert "| 通义 | **0.75 [0.50, 0.90]** | 0.25 [0.10, 0.50] | — |" in md
    assert "n = 10–12 per cell" in md and "90% intervals: wilson" in md
    tex = render(wide, "latex", "Table & 表", "t")
    check_latex(tex, n_rows=3, n_cols=1 + 3)
    assert r"gpt\_4o & 0.50 [0.25, 0.75] & \textbf{0.62 [0.40, 0.80]} & — \\" in tex
    assert r"form\&aware" in tex and r"\caption{Table \& 表}" in tex
    lines = list(csv.reader(io.StringIO(render(wide, "csv"))))
    assert lines[0] == ["model", "direct", "form&aware", "—"]
    assert lines[3] == ["human", "—", "—", "0.90 [0.70, 0.97]"]
    lowest = pivot(HAND, Pivot(rows=("model",), cols=("cond",), best="min", digits=3))
    assert "**0.250**" in render(lowest, "markdown")
    assert "**0.500**" in render(lowest, "markdown")  # ties on a column: both marked


def test_a_difference_column_after_each_pair() -> None:
    # Δ = form&aware − direct per model, by hand: 0.625 − 0.5, 0.25 − 0.75; human has none
    p = Pivot(rows=("model",), cols=("cond",), delta=Delta("cond", "form&aware", "direct"))
    wide = pivot(HAND, p, table="rule_rates")
    # the difference's key is the outermost (here the only) one: Δ after every column
    assert wide.col_labels == [("direct",), ("form&aware",), ("—",), ("Δ",)]
    assert wide.values[0][3] == pytest.approx(0.125)
    assert wide.values[1][3] == pytest.approx(-0.5)
    assert wide.values[2][3] is None
    assert wide.digits == 2  # the differences do not change the digits of the rates
    md = render(wide, "markdown")
    assert "| gpt_4o | 0.50 | **0.62** | — | **0.12** |" in md
    assert "Δ = form&aware − direct" in md
    # outermost key: the differences come as one block after the pairs
    nested = [dict(r, field=f) for r in HAND for f in ("s", "t")]
    p2 = Pivot(rows=("model",), cols=("cond", "field"), delta=Delta("cond", "form&aware", "direct"))
    labels = pivot(nested, p2).col_labels
    assert labels[-2:] == [("Δ", "s"), ("Δ", "t")] and labels[0] == ("direct", "s")
    with pytest.raises(PivotError, match="no column pair"):
        pivot(HAND, Pivot(rows=("model",), cols=("cond",), delta=Delta("cond", "x", "y")))


def test_pivot_names_the_cell_given_twice_and_the_missing_column() -> None:
    with pytest.raises(PivotError, match="share the cell cond=direct"):
        pivot(HAND, Pivot(rows=("cond",), cols=("ci_method",)))
    with pytest.raises(PivotError, match="no column nope"):
        pivot(HAND, Pivot(rows=("nope",), cols=("cond",)))
    with pytest.raises(PivotError, match="no column judge to filter on"):
        pivot(HAND, Pivot(rows=("model",), cols=("cond",), filters=(("judge", "model:*"),)))
    with pytest.raises(PivotError, match="no rows left"):
        pivot(HAND, Pivot(rows=("model",), cols=("cond",), filters=(("model", "nobody"),)))


def test_paper_list_names_every_layout() -> None:
    out = io.StringIO()
    call_command("report", "--paper", "list", stdout=out)
    assert [line.split("\t")[0] for line in out.getvalue().splitlines()] == [
        x.name for x in LAYOUTS
    ]
    with pytest.raises(CommandError, match="no layout 'nope'"):
        call_command("report", "x", "--paper", "nope")


# --- structure checks --------------------------------------------------------------


def check_latex(tex: str, n_rows: int, n_cols: int) -> None:
    """Balanced braces, booktabs rules once each, one line per pivot row, cells per line."""
    body = re.sub(r"\\[{}]", "", tex)
    depth = 0
    for ch in body:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0
    assert depth == 0
    assert "booktabs,xeCJK" in tex.splitlines()[0]
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert tex.count(rule) == 1, rule
    assert re.search(r"\\begin\{tabular\}\{l+r+\}", tex)
    rows = tex.split("\\midrule\n")[1].split("\\bottomrule")[0].strip().splitlines()
    assert len(rows) == n_rows
    for line in rows:
        assert line.endswith(r"\\")
        assert len(re.split(r"(?<!\\)&", line)) == n_cols
        bare = line.replace("$-$", "")  # a number's minus is math, the one $ allowed
        assert not re.search(r"(?<!\\)[_%#$]", bare), line  # TeX specials escaped
        assert not re.search(r"(?<![\w\\-])-\d", line), line  # no hyphen for a minus
    compile_if_possible(tex)


def cjk_font() -> str:
    """A CJK font fontconfig knows (Noto Serif/Sans CJK SC first), or ''."""
    if shutil.which("fc-list") is None:
        return ""
    # simplified Chinese: the tables' names and notes are zh-Hans (a Big5 font lacks 组 …)
    found = subprocess.run(["fc-list", ":lang=zh-cn", "family"], capture_output=True, text=True)
    families = {f.strip() for line in found.stdout.splitlines() for f in line.split(",")}
    for name in ("Noto Serif CJK SC", "Noto Sans CJK SC"):
        if name in families:
            return name
    return sorted(families)[0] if families else ""


def compile_if_possible(tex: str) -> None:
    engine = shutil.which("xelatex") or shutil.which("lualatex")
    if engine is None:
        return
    doc = "\\documentclass{article}\\usepackage{booktabs,xeCJK}\n"
    font = cjk_font()
    if font:
        doc += f"\\setCJKmainfont{{{font}}}\n"
    doc += "\\begin{document}\n" + tex + "\\end{document}\n"
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "t.tex").write_text(doc, encoding="utf-8")
        done = subprocess.run(
            [engine, "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
            cwd=tmp,
            capture_output=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout[-2000:]
        assert (Path(tmp) / "t.pdf").stat().st_size > 0
        log = (Path(tmp) / "t.log").read_text(encoding="utf-8", errors="replace")
        assert not font or "Missing character" not in log


def check_markdown(md: str, n_rows: int, n_cols: int) -> None:
    table = [line for line in md.splitlines() if line.startswith("|")]
    assert len(table) == 2 + n_rows
    assert all(len(re.split(r"(?<!\\)\|", line)) == n_cols + 2 for line in table)
    assert set(table[1]) <= set("|-:")


# --- the named layouts from the worked studies --------------------------------------


def command(slug: str, layout: str, fmt: str, *extra: str) -> str:
    out = io.StringIO()
    call_command("report", slug, "--paper", layout, "--format", fmt, "--n-boot", "0", *extra,
                 stdout=out)  # fmt: skip
    return out.getvalue()


def text(v: Any) -> str:
    return "—" if v is None or v == "" or (isinstance(v, float) and pd.isna(v)) else str(v)


def check_layout(slug: str, name: str, expected: pd.DataFrame, digits: int) -> None:
    """The CSV cells equal ``expected`` rounded; Markdown bolds each column's maximum;
    LaTeX has one line per row. ``expected``: rows × columns, flat labels (`` / ``)."""
    got = list(csv.reader(io.StringIO(command(slug, name, "csv"))))
    header, body = got[0], got[1:]
    n_keys = len(LAYOUT_BY_NAME[name].rows)
    assert header[n_keys:] == list(expected.columns)
    assert [tuple(r[:n_keys]) for r in body] == [
        k if isinstance(k, tuple) else (k,) for k in expected.index
    ]
    for line, (_, want) in zip(body, expected.iterrows(), strict=True):
        assert line[n_keys:] == ["—" if pd.isna(v) else f"{v:.{digits}f}" for v in want]
    md = command(slug, name, "markdown")
    check_markdown(md, len(expected), n_keys + len(expected.columns))
    rounded = expected.round(digits)
    table = [line for line in md.splitlines() if line.startswith("| ")][1:]
    best_of = LAYOUT_BY_NAME[name].best
    for j, column in enumerate(expected.columns):
        best = rounded[column].max() if best_of == "max" else rounded[column].min()
        for i, shown in enumerate(table):
            cell = shown.split(" | ")[n_keys + j].strip(" |")
            value = rounded[column].iloc[i]
            marked = best_of != "none" and rounded[column].nunique() > 1 and value == best
            assert cell.startswith("**") == bool(marked), (column, i, cell)
    check_latex(command(slug, name, "latex"), len(expected), n_keys + len(expected.columns))


def flat(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.copy()
    frame.columns = [
        " / ".join(map(text, c)) if isinstance(c, tuple) else text(c) for c in frame.columns
    ]
    return frame


def dimension_labels(study: Any) -> dict[tuple[str, str], str]:
    """(task, dimension key) -> the dimension's label, read from the study's tasks."""
    return {
        (t.slug, d["key"]): d.get("label") or d["key"]
        for t in study.tasks.all()
        for d in t.dimensions or []
    }


def named(rows: pd.DataFrame, study: Any) -> pd.DataFrame:
    """``rows`` with the keys as the paper tables show them (the study's own names, read
    from the models here): a task by its title, ``group:A`` by the group's name,
    ``model:x`` as x, a dimension by its label."""
    tasks = {t.slug: t.title or t.slug for t in study.tasks.all()}
    groups = dict(study.groups.values_list("slug", "name"))

    def rater(v: Any) -> Any:
        kind, _, rest = str(v).partition(":")
        return groups[rest] if kind == "group" else rest if kind == "model" else v

    out = rows.copy()
    if "field" in out and "task" in out:  # a dimension by its label in its own task
        out["field"] = [
            dimension_labels(study).get((t, f), f)
            for t, f in zip(out["task"], out["field"], strict=True)
        ]
    if "task" in out:
        out["task"] = out["task"].map(lambda v: tasks.get(v, v))
    for col in ("rater_set", "judge"):
        if col in out:
            out[col] = out[col].map(rater)
    return out


def ordered(rows: pd.DataFrame, index: list[str], columns: list[str], value: str) -> pd.DataFrame:
    """pandas' pivot, each key's labels in first-seen order (as the paper layouts keep)."""
    rows = rows.fillna({k: "—" for k in [*index, *columns]}).copy()
    for k in [*index, *columns]:
        rows[k] = pd.Categorical(rows[k], categories=list(dict.fromkeys(rows[k])), ordered=True)
    table = rows.pivot(index=index, columns=columns, values=value)
    table = table.sort_index(axis=0).sort_index(axis=1)
    table.index = [tuple(map(str, k)) if isinstance(k, tuple) else str(k) for k in table.index]
    return flat(table)


@pytest.mark.slow
def test_cciv_table_2_and_heatmap(cciv) -> None:
    b, _, _ = cciv
    rows = pd.DataFrame(build_report(b.study, ReportSettings(n_boot=0)).tables["rule_rates"])
    rows = rows[rows["rule"].str.endswith("ccv")]
    rows = rows[rows["field"].isin(["structural_standard", "structural_variant",
                                    "tonal_standard", "tonal_variant"])]  # fmt: skip
    expected = ordered(rows, ["source"], ["condition", "field"], "value")
    assert expected.shape == (4, 12)  # 3 models + human; 2 conditions + none, × 4 metrics
    check_layout("cciv-worked", "cciv-table2", expected, 2)

    by_form = build_report(b.study, ReportSettings(n_boot=0, by=("form",)))
    rows = pd.DataFrame(by_form.tables["rule_rates"])
    rows = rows[rows["rule"].str.endswith("ccv") & (rows["field"] == "tonal_standard")]
    rows = rows[rows["condition"] == "direct"]
    expected = ordered(rows, ["form"], ["source"], "value")
    assert expected.shape == (5, 3)
    check_layout("cciv-worked", "cciv-heatmap", expected, 2)


@pytest.mark.slow
def test_cciv_table_3_with_its_differences(cciv) -> None:
    b, _, _ = cciv
    rows = pd.DataFrame(build_report(b.study, ReportSettings(n_boot=0)).tables["rule_rates"])
    fields = ["structural_standard", "structural_variant", "tonal_standard", "tonal_variant"]
    rows = rows[rows["rule"].str.endswith("ccv") & rows["field"].isin(fields)]
    rows = rows[rows["condition"].isin(["direct", "form_aware"])]
    wide = rows.pivot(index="source", columns=["field", "condition"], values="value")
    parts = []
    for f in fields:  # the report's field order, then direct, form_aware, Δ
        parts += [wide[(f, "direct")], wide[(f, "form_aware")]]
        parts.append((wide[(f, "form_aware")] - wide[(f, "direct")]).rename((f, "Δ")))
    expected = pd.concat(parts, axis=1)
    expected.columns = [f"{f} / {c}" for f, c in expected.columns]
    expected = expected.loc[list(dict.fromkeys(rows["source"]))]
    assert expected.shape == (3, 12)  # three models (the human poems have no condition)
    check_layout("cciv-worked", "cciv-table3", expected, 2)
    # the same table as a workbook: the cells are numbers, rounded as printed
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "t3.xlsx"
        command("cciv-worked", "cciv-table3", "xlsx", "--out", str(out))
        sheet = list(load_workbook(out, read_only=True).active.iter_rows(values_only=True))
    assert list(sheet[1][1:]) == list(expected.columns)
    for line, (_, want) in zip(sheet[2:5], expected.iterrows(), strict=True):
        assert list(line[1:]) == [pytest.approx(round(v, 2)) for v in want]


@pytest.mark.slow
def test_cciv_rho_of_accuracy_and_length_per_condition(cciv) -> None:
    b, _, _ = cciv
    rows = pd.DataFrame(build_report(b.study, ReportSettings(n_boot=0)).tables["form_length"])
    rows = rows[rows["measure"].str.match(r"^rule:.*ccv/") & (rows["form"] == "*")]
    rows = rows[(rows["source"] == "*") & (rows["statistic"] == "spearman")]
    expected = ordered(rows, ["condition"], ["measure"], "value")
    assert list(expected.index) == ["*", "direct", "form_aware", "—"]  # all, each, human
    check_layout("cciv-worked", "cciv-length", expected, 2)


@pytest.mark.slow
def test_fuxi_table_4_from_the_published_figures(cciv) -> None:
    b, _, _ = cciv
    report = build_report(b.study, ReportSettings(n_boot=0))
    rows = pd.DataFrame(report.tables["published_vs_computed"])
    expected = ordered(rows, ["model"], ["run", "task", "metric"], "computed")
    assert expected.loc["gen-a"].notna().sum() == 1 and expected.loc["gen-z"].isna().all()
    check_layout("cciv-worked", "fuxi-table4", expected, 2)


@pytest.mark.slow
def test_fuxi_table_6_with_and_without_each_category(fuxi) -> None:
    b, _, _ = fuxi
    rows = pd.DataFrame(build_report(b.study, ReportSettings(n_boot=0)).tables["validation"])
    rows = rows[rows["judge"].str.startswith("model:") & (rows["reference"] == "key")]
    rows = rows[rows["scope"].isin(["pooled", "without"])]
    expected = ordered(rows, ["metric"], ["task"], "value")
    assert list(expected.columns) == ["pg+cg+ap", "cg+ap", "pg+ap", "pg+cg"]
    assert expected.shape[0] == 6
    # headed as the paper heads them (with every category / without one), in zh-Hans
    # or English: the pooled column, then one per category left out
    titles = {t.slug: t.title or t.slug for t in b.study.tasks.all()}
    for language, every, without in (
        ("zh-hans", "含全部类别", "去掉 {}"),
        ("en", "with all categories", "without {}"),
    ):
        named = expected.copy()
        named.columns = [every] + [without.format(titles[t]) for t in ("pg", "cg", "ap")]
        with translation.override(language):
            check_layout("fuxi-worked", "fuxi-table6", named, 2)
    # accuracy, precision and recall have Wilson intervals, the others a bootstrap: the
    # footnote says which rows use which
    # (at --n-boot 0 the bootstrap's rows have none: the footnote names Wilson's rows)
    methods = rows.groupby("metric")["ci_method"].first()
    md = command("fuxi-worked", "fuxi-table6", "markdown")
    said = [m for m in methods.unique() if m]
    assert said == ["wilson"]
    for method in said:
        metrics = [m for m in expected.index if methods[m] == method]
        assert f"{method} (rows {', '.join(metrics)})" in md


@pytest.mark.slow
def test_cpdue_group_by_task_accuracy(db) -> None:
    study = cpdue_study().builder.study
    rows = pd.DataFrame(build_report(study, ReportSettings(n_boot=0)).tables["accuracy"])
    rows = rows[rows["rater_set"].str.match(r"^(group|model):")]
    expected = ordered(named(rows, study), ["rater_set"], ["task", "field"], "value")
    names = dict(study.groups.values_list("slug", "name"))
    assert names["A"] != "A"  # the layout shows the group's name, not its slug
    assert {names["A"], names["B"], names["C"]} <= set(expected.index)
    check_layout(study.slug, "cpdue-accuracy", expected, 2)
    models = rows[rows["rater_set"].str.startswith("model:") & (rows["field"] == "answer")]
    expected = ordered(named(models, study), ["rater_set"], ["task"], "value")
    assert expected.shape == (3, 1)  # three models on the one single-answer task
    check_layout(study.slug, "ccpm-accuracy", expected, 2)
    # the footnote names the interval methods the rows themselves carry
    methods = set(rows["ci_method"].dropna()) if "ci_method" in rows else {"Wilson"}
    footnote = command(study.slug, "cpdue-accuracy", "markdown", "--ci")
    assert methods and all(m in footnote for m in methods), (methods, footnote[-300:])


@pytest.mark.slow
def test_tang_mean_rating_per_generator(tang) -> None:
    b, _, _ = tang
    report = build_report(b.study, ReportSettings(n_boot=0, by=("source",)))
    rows = pd.DataFrame(report.tables["ratings"])
    rows = rows[rows["rater_set"].str.startswith("group:")]
    means = ordered(rows, ["source"], ["field"], "mean")
    lows = ordered(rows, ["source"], ["field"], "ci_low")
    highs = ordered(rows, ["source"], ["field"], "ci_high")
    got = list(csv.reader(io.StringIO(command(b.study.slug, "tang-ratings", "csv"))))
    # each dimension by its label, as the dashboard names it (the probe found the keys)
    label = {k: v for (_, k), v in dimension_labels(b.study).items()}
    assert got[0][1:] == [label[c] for c in means.columns]
    for line, source in zip(got[1:], means.index, strict=True):
        assert line[0] == source
        want = [
            f"{means.at[source, c]:.3f} [{lows.at[source, c]:.3f}, {highs.at[source, c]:.3f}]"
            for c in means.columns
        ]
        assert line[1:] == want
    md = command(b.study.slug, "tang-ratings", "markdown")
    check_markdown(md, len(means), 1 + len(means.columns))
    methods = set(rows["ci_method"].dropna())
    assert methods and all(m in md for m in methods) and "n = " in md
    check_latex(command(b.study.slug, "tang-ratings", "latex"), len(means), 1 + len(means.columns))


@pytest.mark.slow
def test_tang_judges_correlations_with_the_experts(tang) -> None:
    b, _, _ = tang
    rows = pd.DataFrame(build_report(b.study, ReportSettings(n_boot=0)).tables["validation"])
    rows = rows[rows["judge"].str.startswith("model:")]
    rows = rows[rows["reference"].str.match(r"^group:.* mean$")]
    rows = rows[rows["metric"].isin(["pearson", "spearman", "kendall"])]
    expected = ordered(named(rows, b.study), ["judge", "generator"], ["field", "metric"], "value")
    assert expected.shape[1] == 2 * 3  # two dimensions × three coefficients
    check_layout(b.study.slug, "tang-correlations", expected, 2)


@pytest.mark.slow
def test_generic_pivot_from_the_command(fuxi) -> None:
    b, _, _ = fuxi
    out = io.StringIO()
    call_command("report", b.study.slug, "--table", "validation", "--rows", "task",
                 "--cols", "metric", "--where", "judge=model:*", "--where", "reference=key",
                 "--where", "scope=task", "--format", "markdown", "--digits", "3",
                 "--best", "min", "--n-boot", "0", stdout=out)  # fmt: skip
    rows = pd.DataFrame(build_report(b.study, ReportSettings(n_boot=0)).tables["validation"])
    rows = rows[rows["judge"].str.startswith("model:") & (rows["reference"] == "key")]
    rows = rows[rows["scope"] == "task"]
    accuracy = rows[rows["metric"] == "accuracy"].set_index("task")["value"]
    worst = accuracy.round(3).idxmin()
    title = b.study.tasks.get(slug=worst).title or worst
    assert f"| {title} | **{accuracy[worst]:.3f}** |" in out.getvalue()
    with pytest.raises(CommandError, match="share the cell"):
        call_command("report", b.study.slug, "--table", "validation", "--rows", "task",
                     "--cols", "metric", "--n-boot", "0", stdout=io.StringIO())  # fmt: skip


# --- audit (issue 24): Fùxì's published figures come in two runs ------------------------

FUXI_PUBLISHED: list[dict[str, Any]] = [
    {"model": "glm-4", "task": "CiG", "metric": "accuracy", "run": "zero-shot",
     "published": 0.55, "computed": 0.5, "n": 40, "ci_method": "wilson"},
    {"model": "glm-4", "task": "CiG", "metric": "accuracy", "run": "5-shot",
     "published": 0.61, "computed": 0.625, "n": 40, "ci_method": "wilson"},
    {"model": "glm-4", "task": "CG", "metric": "accuracy", "run": "5-shot",
     "published": 0.6, "computed": None, "n": None, "ci_method": ""},
    {"model": "qwen", "task": "CiG", "metric": "accuracy", "run": "zero-shot",
     "published": 0.3, "computed": 0.25, "n": 20, "ci_method": "wilson"},
    {"model": "qwen", "task": "CiG", "metric": "accuracy", "run": "5-shot",
     "published": 0.35, "computed": 0.4, "n": 20, "ci_method": "wilson"},
]  # fmt: skip


def test_fuxi_table_4_keeps_the_runs_apart() -> None:
    # docs/report.md's Fùxì recipe loads zero-shot and 5-shot figures of the same model,
    # task and metric: the layout must set them apart, not stop on a shared cell
    wide = pivot(
        FUXI_PUBLISHED, LAYOUT_BY_NAME["fuxi-table4"].pivot(), table="published_vs_computed"
    )
    expected = ordered(
        pd.DataFrame(FUXI_PUBLISHED), ["model"], ["run", "task", "metric"], "computed"
    )
    assert [" / ".join(c) for c in wide.col_labels] == list(expected.columns)
    assert [r[0] for r in wide.row_labels] == list(expected.index)
    got = [v if v is not None else float("nan") for line in wide.values for v in line]
    assert got == pytest.approx(expected.to_numpy().ravel().tolist(), nan_ok=True)


def test_the_shared_cell_message_counts_the_rows_of_that_cell() -> None:
    # two cells given twice each: the message names one cell and its own 2 rows, not 4
    with pytest.raises(PivotError, match=r"^2 rows share the cell model=glm-4, task=CiG"):
        pivot(FUXI_PUBLISHED, Pivot(rows=("model",), cols=("task",), value="computed"))


def test_a_column_whose_cells_all_tie_marks_none_best() -> None:
    # audit (issue 24): cciv-heatmap's column of a model scoring 0.00 on every cipai had
    # every cell bold, "the highest per column"; a column with one distinct value has no best
    rows = [
        {"form": f, "source": s, "value": v, "n": 3}
        for f, a, c in (("浣溪沙", 0.6, 0.0), ("菩萨蛮", 0.85, 0.0), ("如梦令", 0.77, 0.001))
        for s, v in (("gen-a", a), ("gen-c", c))
    ]
    wide = pivot(rows, Pivot(rows=("form",), cols=("source",)), table="rule_rates")
    assert [line[0] for line in wide.best] == [False, True, False]  # gen-a: 0.85
    assert [line[1] for line in wide.best] == [False, False, False]  # gen-c: 0.00 ×3
    md = render(wide, "markdown")
    assert "Bold: the highest per column" in md
    one = pivot(
        [r for r in rows if r["source"] == "gen-c"],
        Pivot(rows=("form",), cols=("source",)),
        table="rule_rates",
    )
    assert not any(map(any, one.best)) and "Bold" not in render(one, "markdown")


# --- audit 2 (issue 24): Table 6's headers, mixed interval methods, the minus sign -------

#: Fùxì-like validation rows: two metrics (Wilson / bootstrap) over all and without each.
TABLE6: list[dict[str, Any]] = [
    {"scope": scope, "task": task, "left_out": left, "judge": "model:eval", "reference": "key",
     "metric": metric, "value": value, "ci_low": value - 0.1, "ci_high": value + 0.1,
     "ci_method": method, "n": 120}
    for scope, task, left in (("pooled", "pg+cg+ap", None), ("without", "cg+ap", "pg"),
                              ("without", "pg+ap", "cg"), ("without", "pg+cg", "ap"))
    for metric, method, value in (("accuracy", "wilson", 0.8), ("cohen_kappa", "item bootstrap", -0.25))
]  # fmt: skip


def test_a_dimension_is_named_by_its_label_of_its_own_task() -> None:
    # the probe of issue 24: paper tables named dimensions by key (emoji_dim)
    names = Names(fields={("a", "q"): "质量", ("b", "q"): "品质", ("a", "f"): "流畅"})
    assert names.value("field", "q", {"task": "a"}) == "质量"
    assert names.value("field", "q", {"task": "b"}) == "品质"
    assert names.value("field", "f", {}) == "流畅"  # one label for the key: the task filtered
    assert names.value("field", "q", {}) == "q"  # two labels, no task: the key, not a guess
    assert names.value("field", "answer", {"task": "a"}) == "answer"


def test_fuxi_table_6_is_headed_with_and_without_each_category() -> None:
    # audit 2: the columns read "cg+ap" (the pooled tasks' slugs); Fùxì heads them "with /
    # without PG"
    names = Names(tasks={"pg": "诗歌生成", "cg": "对联生成", "ap": "赏析"})
    wide = pivot(TABLE6, LAYOUT_BY_NAME["fuxi-table6"].pivot(), names=names.value)
    assert wide.col_labels == [
        ("with all categories",), ("without 诗歌生成",), ("without 对联生成",), ("without 赏析",)
    ]  # fmt: skip
    assert wide.row_labels == [("accuracy",), ("cohen_kappa",)]
    assert wide.values == [[0.8] * 4, [-0.25] * 4]
    zh = Names(tasks={"pg": "PG"}, every="含全部类别", without="去掉 %(task)s")
    labels = pivot(TABLE6, LAYOUT_BY_NAME["fuxi-table6"].pivot(), names=zh.value).col_labels
    assert labels == [("含全部类别",), ("去掉 PG",), ("去掉 cg",), ("去掉 ap",)]


def test_the_footnote_says_which_rows_or_columns_use_which_interval_method() -> None:
    # audit 2: "95% intervals: item bootstrap; wilson" did not say which cell used which
    p = LAYOUT_BY_NAME["fuxi-table6"].pivot(ci=True)
    wide = pivot(TABLE6, p, table="validation", settings={"n_boot": 200, "seed": 1})
    assert "95% intervals: wilson (rows accuracy); item bootstrap (rows cohen_kappa)" in (
        wide.footnote
    )
    assert "200 resamples, seed 1" in wide.footnote
    flipped = pivot(TABLE6, Pivot(rows=("task",), cols=("metric",), ci=True), table="validation")
    assert "wilson (columns accuracy); item bootstrap (columns cohen_kappa)" in flipped.footnote
    # one method on some rows, none on the others: which rows have it
    no_boot = [{**r, "ci_method": r["ci_method"] if r["metric"] == "accuracy" else ""}
               for r in TABLE6]  # fmt: skip
    half = pivot(no_boot, p, table="validation")
    assert "95% intervals: wilson (rows accuracy)." in half.footnote
    # one method: said once, as before
    wilson = [r for r in TABLE6 if r["metric"] == "accuracy"]
    one = pivot(wilson, Pivot(rows=("metric",), cols=("task",), ci=True), table="validation")
    assert "95% intervals: wilson." in one.footnote and "rows" not in one.footnote


def test_cells_are_marked_when_methods_vary_within_rows_and_columns() -> None:
    # neither the rows nor the columns have one method each: a mark per method on each cell
    first = TABLE6[0]  # pooled accuracy, Wilson, 0.8
    rows = [
        first,
        {**first, "task": "other", "ci_method": "item bootstrap"},
        {**first, "task": "other", "metric": "cohen_kappa"},
    ]
    # cells: (accuracy, pg+cg+ap) wilson; (accuracy, other) bootstrap; (kappa, other) wilson
    wide = pivot(rows, Pivot(rows=("metric",), cols=("task",), ci=True), table="validation")
    assert wide.marks == [["†", "‡"], ["", "†"]]
    assert "† wilson; ‡ item bootstrap" in wide.footnote
    md = render(wide, "markdown")
    assert "| accuracy | 0.80 [0.70, 0.90]† | 0.80 [0.70, 0.90]‡ |" in md
    tex = render(wide, "latex")
    assert (
        r"0.80 [0.70, 0.90]\textsuperscript{\dag} & 0.80 [0.70, 0.90]\textsuperscript{\ddag}" in tex
    )
    assert r"\textsuperscript{\dag} wilson; \textsuperscript{\ddag} item bootstrap" in tex
    check_latex(tex, n_rows=2, n_cols=3)
    assert "†" not in render(wide, "csv")  # CSV: the cells only, as before
    plain = pivot(rows, Pivot(rows=("metric",), cols=("task",)), table="validation")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "t.xlsx"
        out.write_bytes(xlsx_bytes(plain))
        sheet = load_workbook(out).active
        cell = sheet.cell(row=2, column=2)  # a number still, its mark in its format
        assert cell.value == pytest.approx(0.8) and cell.number_format == '0.00"†"'
        assert sheet.cell(row=2, column=3).number_format == '0.00"‡"'
        assert sheet.cell(row=3, column=2).value == "—"


def test_negative_numbers_print_with_a_minus_sign() -> None:
    # audit 2: LaTeX printed -0.25 with a hyphen; LaTeX uses $-$, Markdown U+2212 (−),
    # CSV and XLSX keep plain numbers
    p = LAYOUT_BY_NAME["fuxi-table6"].pivot(ci=True, digits=2)
    wide = pivot(TABLE6, p, table="validation")
    tex = render(wide, "latex")
    assert r"cohen\_kappa & $-$0.25 [$-$0.35, $-$0.15] & " in tex
    assert "-0.25" not in tex and "-0.15" not in tex
    check_latex(tex, n_rows=2, n_cols=5)
    md = render(wide, "markdown")
    assert "| cohen_kappa | −0.25 [−0.35, −0.15] |" in md and "-0.25" not in md
    lines = list(csv.reader(io.StringIO(render(wide, "csv"))))
    assert lines[2][1] == "-0.25 [-0.35, -0.15]" and float(lines[2][1].split()[0]) == -0.25
    plain = pivot(TABLE6, LAYOUT_BY_NAME["fuxi-table6"].pivot(), table="validation")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "t.xlsx"
        out.write_bytes(xlsx_bytes(plain))
        assert load_workbook(out).active.cell(row=3, column=2).value == pytest.approx(-0.25)


def test_an_en_dash_is_texs_ligature_in_the_text_font() -> None:
    """xeCJK sets U+2013 in the CJK font, which may have no glyph for it (a compile with
    AR PL KaitiM GB reported it missing): LaTeX gets ``--``."""
    from scoring.report.paper import tex_escape

    assert tex_escape("1–2 首, 50%") == "1--2 首, 50\\%"
    compile_if_possible(tex_escape("范围 1–2") + "\n")


def test_a_negative_value_that_rounds_to_zero_prints_without_a_sign() -> None:
    # probe 24: Spearman's rho -0.0038 printed "$-$0.00" (LaTeX), "−0.00" (Markdown),
    # "-0.00" (CSV) and -0.0 in XLSX; a paper prints 0.00
    rows = [
        {"m": "x", "c": "a", "value": -0.0038, "ci_low": -0.41, "ci_high": 0.004},
        {"m": "x", "c": "b", "value": -0.25, "ci_low": -0.5, "ci_high": -0.001},
    ]
    wide = pivot(rows, Pivot(rows=("m",), cols=("c",), digits=2, best="none", ci=True))
    assert r"x & 0.00 [$-$0.41, 0.00] & $-$0.25 [$-$0.50, 0.00] \\" in render(wide, "latex")
    assert "| x | 0.00 [−0.41, 0.00] | −0.25 [−0.50, 0.00] |" in render(wide, "markdown")
    assert list(csv.reader(io.StringIO(render(wide, "csv"))))[1][1:] == [
        "0.00 [-0.41, 0.00]",
        "-0.25 [-0.50, 0.00]",
    ]
    plain = pivot(rows, Pivot(rows=("m",), cols=("c",), digits=2, best="none"))
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "t.xlsx"
        out.write_bytes(xlsx_bytes(plain))
        zero = load_workbook(out).active.cell(row=2, column=2).value
        assert zero == 0 and str(zero) in ("0", "0.0")


def test_a_text_value_column_is_refused_not_printed_as_dashes() -> None:
    # probe 24: --value ci_method (or task) gave a table of "—" cells, exit 0
    with pytest.raises(PivotError, match="column ci_method holds text") as raised:
        pivot(HAND, Pivot(rows=("model",), cols=("cond",), value="ci_method"))
    assert raised.value.code == "not_number"
    from research.downloads import PIVOT_ERRORS

    with translation.override("zh-hans"):
        assert (
            str(PIVOT_ERRORS["not_number"]) % raised.value.params == "列 ci_method 是文字，不是数值"
        )
    # a number column with a few missing cells still pivots
    assert pivot(HAND, Pivot(rows=("model",), cols=("cond",), value="ci_low")).values


def test_an_empty_table_is_named_empty_not_filtered_away() -> None:
    # probe 24: a study with no choice task (or no data) said "accuracy: no rows left
    # after the filters" for --rows/--cols without any filter
    with pytest.raises(PivotError, match="the table is empty") as raised:
        pivot([], Pivot(rows=("model",), cols=("cond",)))
    assert raised.value.code == "empty"
    with pytest.raises(PivotError, match="no rows left after the filters"):
        pivot(HAND, Pivot(rows=("model",), cols=("cond",), filters=(("model", "zzz"),)))
