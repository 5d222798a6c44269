"""The dashboard's published-results heatmap keeps every figure (audit of issue 24: no
chart drops a row silently). Published per-form figures of one model and form in two
metrics (CCiV prints structural and tonal accuracy per cipai) are two cells, not one."""

from __future__ import annotations

import pytest

from annotation.models import AggregateResult
from research.dashboard.charts import published_spec
from studies.models import Study

pytestmark = pytest.mark.django_db


def test_two_metrics_of_one_form_and_model_are_two_cells() -> None:
    study = Study.objects.create(slug="published-two-metrics", title="t")
    figures = [
        ("gpt-4o", "CCiV:浣溪沙", "structural_std", 0.62),
        ("gpt-4o", "CCiV:浣溪沙", "tonal_std", 0.41),
        ("gpt-4o", "CCiV:菩萨蛮", "structural_std", 0.55),
        ("gpt-4o", "CCiV:菩萨蛮", "tonal_std", 0.30),
    ]
    for model, task, metric, value in figures:
        AggregateResult.objects.create(
            study=study, model=model, task=task, metric=metric, value=value
        )
    spec = published_spec(study)
    assert spec is not None
    shown = sorted(v for v in spec.values.values() if v is not None)
    assert shown == sorted(v for *_, v in figures)  # every figure drawn, none overwritten
    assert len(spec.rows) * len(spec.columns) == len(figures)


def test_one_metric_keeps_the_models_as_columns() -> None:
    study = Study.objects.create(slug="published-one-metric", title="t")
    for model, task, value in [("a", "CiG:浣溪沙", 0.5), ("b", "CiG:浣溪沙", 0.25)]:
        AggregateResult.objects.create(study=study, model=model, task=task, value=value)
    spec = published_spec(study)
    assert spec is not None and spec.columns == ("a", "b")
    assert spec.values == {("浣溪沙", "a"): 0.5, ("浣溪沙", "b"): 0.25}
