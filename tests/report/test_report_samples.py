"""The samples table: spread across repeated generations and the models' ranking
stability, recomputed with scipy (Friedman's statistic gives Kendall's W) and pandas."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import friedmanchisquare, spearmanr

from scoring.report import ReportSettings, build_report
from scoring.report.samples import kendall_w
from tests.report.factory import Builder

pytestmark = pytest.mark.django_db

# tonal score per model, sample and poem (two poems per sample)
SCORES = {
    "qwen": {1: (0.9, 0.8), 2: (0.7, 0.9), 3: (0.85, 0.95)},
    "glm": {1: (0.6, 0.5), 2: (0.8, 0.7), 3: (0.55, 0.45)},
    "gpt": {1: (0.7, 0.75), 2: (0.6, 0.65), 3: (0.7, 0.7)},
}


def study() -> Builder:
    b = Builder("samples")
    b.group("A")
    b.task("gen", "rating", dimensions=[{"key": "q", "label": "质量", "min": 1, "max": 5}])
    b.rule("prosody:classical")
    for model, samples in SCORES.items():
        for sample, values in samples.items():
            for n, value in enumerate(values):
                ext = f"{model}-{sample}-{n}"
                b.item(ext, "gen", poem_text="春风", poem_source=f"model:{model}", sample=sample)
                b.answer("prosody:classical", ext, "tonal", value)
    b.item("human-poem", "gen", poem_text="春风", poem_source="human")
    b.answer("prosody:classical", "human-poem", "tonal", 1.0)
    return b


def rows() -> list[dict[str, object]]:
    report = build_report(study().study, ReportSettings(n_boot=0), only=("samples",))
    return [r for r in report.tables["samples"] if r["field"] == "tonal"]


def test_each_samples_mean_and_the_spread_over_samples() -> None:
    got = rows()
    for model, samples in SCORES.items():
        means = pd.Series({s: float(np.mean(v)) for s, v in samples.items()})
        per = {r["sample"]: r for r in got if r["model"] == model and r["summary"] == "sample"}
        assert {s: per[s]["mean"] for s in per} == pytest.approx(means.to_dict())
        spread = next(r for r in got if r["model"] == model and r["summary"] == "spread")
        assert spread["sd"] == pytest.approx(means.std(ddof=1))
        assert spread["range"] == pytest.approx(means.max() - means.min())
        assert spread["n_samples"] == 3 and spread["n"] == 6
    assert not [r for r in got if r["model"] == "human"]  # no sample number: left out


def test_ranking_stability_equals_friedmans_w_and_pairwise_spearman() -> None:
    got = next(r for r in rows() if r["summary"] == "ranking")
    models = sorted(SCORES)
    per_model = [[float(np.mean(SCORES[m][s])) for s in (1, 2, 3)] for m in models]
    chi2 = friedmanchisquare(*per_model).statistic  # samples are the blocks
    m, k = 3, len(models)
    assert got["kendall_w"] == pytest.approx(chi2 / (m * (k - 1)))
    table = np.array(per_model).T  # samples x models
    rhos = [spearmanr(a, b).statistic for a, b in itertools.combinations(table, 2)]
    assert got["spearman_mean"] == pytest.approx(float(np.mean(rhos)))
    assert got["n_models"] == 3 and got["n_samples"] == 3


def test_kendalls_w_with_ties_equals_friedmans() -> None:
    table = np.array([[1.0, 2.0, 2.0, 4.0], [3.0, 1.0, 2.0, 2.0], [1.0, 1.0, 3.0, 4.0]])
    chi2 = friedmanchisquare(*table.T).statistic
    assert kendall_w(table) == pytest.approx(chi2 / (3 * 3))
    assert math.isnan(kendall_w(table[:1]))
