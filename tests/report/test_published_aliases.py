"""``published_vs_computed`` matches the benchmarks' published figures as researchers load them.

* Fùxì: both published files bundled in ``data/published`` (``cipai_stats.csv``: 17 models ×
  (30 cipai + Overall), zero-shot; ``eval_results_icl.csv``: 18 models × CG, CiG, 5-shot),
  written as formats.md §3 aggregate lines the way the paper names them (``accuracy``) and
  loaded with the LLM-output loader into a study that holds the models' ci and couplets as
  rating tasks ``CiG`` and ``CG``, with a stored rule rater.  Every one of the 563 figures
  must be matched, to ``structural_fuxi`` (CiG) and ``length`` (CG), over the right poems.
* CCiV: Table 2's names (``structural_std`` … ``tonal_var``) on the worked CCiV study.

Expected values: pandas over the stored frame (SYNTHETIC rule scores, made up here).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from annotation.models import AggregateResult
from jobs.loads import file_load
from scoring.report import ReportSettings, build_report
from studies.loading.readers import Source
from tests.report.factory import DIMENSIONS, Builder
from tests.report.test_worked_cciv import build_cciv, scores
from tests.report.worked import SYNTHETIC, one, store

pytestmark = pytest.mark.django_db
PUBLISHED = Path(__file__).resolve().parents[2] / "data" / "published"
RUNS = ("zero-shot", "5-shot")


def researcher_lines() -> list[dict[str, object]]:
    """Fùxì's two published CSVs as aggregate lines (formats.md §3), named as published."""
    lines: list[dict[str, object]] = []
    with (PUBLISHED / "cipai_stats.csv").open(encoding="utf-8") as fh:
        for rec in csv.DictReader(fh):
            for column, value in rec.items():
                if column in ("Model", "Model_ID"):
                    continue
                lines.append(
                    {
                        "model": rec["Model_ID"],
                        "task": "CiG" if column == "Overall" else f"CiG:{column}",
                        "accuracy": float(value.rstrip("%")) / 100,
                        "run": "zero-shot",
                        "source": "Fùxì cipai_stats.csv",
                    }
                )
    with (PUBLISHED / "eval_results_icl.csv").open(encoding="utf-8") as fh:
        for rec in csv.DictReader(fh):
            for task in ("CG", "CiG"):
                lines.append(
                    {
                        "model": rec[""],
                        "task": task,
                        "accuracy": float(rec[task]) / 100,
                        "run": "5-shot",
                        "source": "Fùxì eval_results_icl.csv",
                    }
                )
    return lines


def fuxi_study(lines: list[dict[str, object]]) -> tuple[Builder, pd.DataFrame]:
    models = sorted({str(x["model"]) for x in lines})
    cipai = sorted({str(x["task"]).split(":")[1] for x in lines if ":" in str(x["task"])})
    rng = np.random.default_rng(22)
    b = Builder("fuxi-published", description=SYNTHETIC)
    b.task("CiG", "rating", dimensions=DIMENSIONS)
    b.task("CG", "rating", dimensions=DIMENSIONS)
    b.rule("prosody:classical")
    rows = []
    for model in models:
        for run in RUNS:
            poems = [("CiG", f"ci:{c}", "structural_fuxi") for c in cipai for _ in range(2)]
            poems += [("CG", "couplet", "length")] * 3
            for task, form, metric in poems:
                ext = f"{model}-{run}-{len(b.items)}"
                b.item(
                    ext,
                    task,
                    poem_text="（合成）",
                    poem_form=form,
                    poem_source=f"model:{model}",
                    poem_condition=run,
                    meta={"model": model, "run": run},
                )
                value = float(rng.random() < 0.6)
                rows.append(
                    {"rater": "prosody:classical", "item": ext, "field": metric, "value": value}
                )
                rows[-1].update(model=model, run=run, task=task, form=form)
    frame = pd.DataFrame(rows)
    store(b, frame[["rater", "item", "field", "value"]])
    return b, frame


def _check_fuxi(lines: list[dict[str, object]]) -> None:
    b, frame = fuxi_study(lines)
    text = "\n".join(json.dumps(x, ensure_ascii=False) for x in lines)
    file_load(
        kind="llm_outputs",
        source=Source("fuxi-published.jsonl", text.encode(), "jsonl"),
        study=b.study,
    )
    assert AggregateResult.objects.filter(study=b.study).count() == len(lines)
    rows = build_report(b.study, ReportSettings(n_boot=0)).tables["published_vs_computed"]
    assert len(rows) == len(lines)
    assert [r for r in rows if r["match"] != "matched"] == []
    for line in lines:
        task = str(line["task"])
        base, _, cipai = task.partition(":")
        cell = frame[
            (frame.model == line["model"]) & (frame.run == line["run"]) & (frame.task == base)
        ]
        if cipai:
            cell = cell[cell.form == f"ci:{cipai}"]
        row = one(rows, model=line["model"], task=task, run=line["run"])
        metric = "structural_fuxi" if base == "CiG" else "length"
        assert row["computed_as"].startswith(f"rate of rule:prosody:classical/{metric}")
        assert "published 'accuracy' is " + metric in row["computed_as"]
        assert (row["n"], row["computed"]) == (len(cell), pytest.approx(cell.value.mean()))
        assert row["difference"] == pytest.approx(cell.value.mean() - float(line["accuracy"]))  # type: ignore[arg-type]


@pytest.mark.slow
def test_every_published_fuxi_figure_is_matched_as_loaded() -> None:
    lines = researcher_lines()
    assert len(lines) == 17 * 31 + 18 * 2 == 563
    _check_fuxi(lines)


def test_two_models_published_fuxi_figures_are_matched_as_loaded() -> None:
    # the fast subset: gpt-4o (zero-shot per cipai and overall, 5-shot CG and CiG) and
    # gpt-4o-mini, which only the 5-shot file has
    lines = [x for x in researcher_lines() if x["model"] in ("gpt-4o", "gpt-4o-mini")]
    assert len(lines) == 31 + 2 + 2
    _check_fuxi(lines)


CCIV_NAMES = {
    "structural_std": "structural_standard",
    "tonal_std": "tonal_standard",
    "structural_var": "structural_variant",
    "tonal_var": "tonal_variant",
}


def test_cciv_table_2_names_are_matched() -> None:
    b, items, responses = build_cciv()
    poems = scores(items, responses)
    expected = {}
    for (model, cond), cell in poems[poems.model != "human"].groupby(["model", "condition"]):
        for published, ours in CCIV_NAMES.items():
            AggregateResult.objects.create(
                study=b.study, model=model, task="ci", metric=published, run=cond, value=0.5
            )
            expected[(model, cond, published)] = (len(cell), cell[ours].mean())
    rows = build_report(b.study, ReportSettings(n_boot=0)).tables["published_vs_computed"]
    for (model, cond, published), (n, mean) in expected.items():
        row = one(rows, model=model, run=cond, metric=published)
        assert row["match"] == "matched"
        assert (row["n"], row["computed"]) == (n, pytest.approx(mean))
        assert f"is {CCIV_NAMES[published]} (CCiV paper" in row["computed_as"]


def test_an_accuracy_on_a_task_of_no_known_benchmark_says_why() -> None:
    b, _, _ = build_cciv()
    AggregateResult.objects.create(
        study=b.study, model="gen-a", task="ci", metric="accuracy", value=0.5
    )
    rows = build_report(b.study, ReportSettings(n_boot=0)).tables["published_vs_computed"]
    row = one(rows, model="gen-a", task="ci", metric="accuracy")
    assert row["match"] == "no match" and "TASK_METRICS" in row["reason"]
