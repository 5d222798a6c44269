"""CCiV's Table 2 from the stored CCiV-literal rule rater (``prosody:ccv``), end to end.

A study enabling ``rule_raters: [classical, ccv]`` loads generations of two models under
two prompt conditions (real Song ci, some with a title line, some cut short -- SYNTHETIC
assignment of poems to models); the load scores them; the report's ``rule_rates`` gives the
CCiV rates per model x condition.  Expected values: each poem scored by the CCiV-literal
definitions, then grouped with pandas and the Wilson interval from statsmodels.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from django.core.management import call_command
from statsmodels.stats.proportion import proportion_confint

from scoring.prosody import RULES_VERSION, score_poem
from scoring.report import ReportSettings, build_report
from studies.models import Study
from tests.loading.helpers import write_jsonl
from tests.report.worked import one

pytestmark = pytest.mark.django_db

CORPUS = Path(__file__).resolve().parents[2] / "data" / "corpus" / "song_ci_30cipai.jsonl"
STUDY = """\
slug: t2
title: 表二
groups:
  - {slug: A, name: 甲}
settings:
  rule_raters: [classical, ccv]
tasks:
  - slug: quality
    title: 质量
    kind: rating
    dimensions:
      - {key: aesthetic, label: 审美, min: 1, max: 5}
"""


def _poems() -> list[dict[str, str]]:
    with CORPUS.open(encoding="utf-8") as fh:
        rows = [json.loads(x) for x in fh if x.strip()]
    picked = [r for r in rows if r["cipai"] in ("浣溪沙", "如梦令")][:24]
    out = []
    for k, r in enumerate(picked):
        text = r["text"]
        if k % 4 == 1:
            text = r["cipai"] + "\n" + text  # a title line: CCiV counts it as a line
        elif k % 4 == 2:
            text = text[: len(text) // 2]  # cut short
        out.append({"text": text, "form": "ci:" + r["cipai"]})
    return out


def test_table_2_rates_per_model_and_condition_from_the_ccv_rater(tmp_path: Path) -> None:
    (tmp_path / "study.yaml").write_text(STUDY, encoding="utf-8")
    call_command("load_study", str(tmp_path / "study.yaml"))
    poems = _poems()
    rows, expected = [], []
    for k, p in enumerate(poems):
        model, cond = ("gen-a", "gen-b")[k % 2], ("direct", "form_aware")[(k // 2) % 2]
        rows.append(
            {
                "model": model,
                "run": cond,
                "sample": k,
                "generation": {
                    "id": f"g{k}",
                    "task": "quality",
                    "prompt": {"form": p["form"]},
                    "text": p["text"],
                },
            }
        )
        m = score_poem(p["text"], p["form"], ccv_compatible=True).metrics
        expected.append({"model": model, "condition": cond, **m})
    call_command("load_llm_outputs", str(write_jsonl(tmp_path / "o.jsonl", rows)), "--study", "t2")
    study = Study.objects.get(slug="t2")
    table = build_report(study, ReportSettings(n_boot=0)).tables["rule_rates"]
    frame = pd.DataFrame(expected)
    cells = frame.groupby(["model", "condition"])
    for (model, cond), cell in cells:
        for metric in ("structural_standard", "structural_variant", "structural_fuxi"):
            row = one(table, rule="prosody:ccv", field=metric, source=model, condition=cond)
            k, n = int(cell[metric].sum()), len(cell)
            assert (row["n"], row["successes"], row["version"]) == (n, k, RULES_VERSION)
            assert row["value"] == pytest.approx(cell[metric].mean())
            low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
            assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low), pytest.approx(high))
        for metric in ("tonal_standard", "tonal_variant"):
            row = one(table, rule="prosody:ccv", field=metric, source=model, condition=cond)
            assert row["value"] == pytest.approx(cell[metric].mean())
    # the literal definitions fail the title-line copies that FuxiBench's check accepts
    assert frame.structural_fuxi.sum() > frame.structural_variant.sum()
    # the classical rater is stored beside it, with its own rows
    assert one(table, rule="prosody:classical", field="structural", source="gen-a",
               condition="direct")["n"] == 6  # fmt: skip
