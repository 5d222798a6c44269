"""Helpers for the three worked studies (SYNTHETIC data, made up for the tests).

Each worked study writes its data first as a pandas frame, stores it through the
``Builder`` (ORM rows, as the loaders would leave them), runs the report, and computes
every expected value from the frame with pandas, scipy, statsmodels and scikit-learn,
never with the platform's code.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from annotation.models import Response
from tests.report.factory import Builder

SYNTHETIC = "SYNTHETIC worked study (made-up data for tests; no real poem, person or model)"


def store(b: Builder, frame: pd.DataFrame) -> None:
    """Responses of ``frame`` (columns rater, item, field, value) in bulk."""
    rows = []
    for r in frame.itertuples(index=False):
        item = b.items[r.item]
        rows.append(
            Response(
                study=b.study,
                task=item.task,
                item=item,
                rater=b.raters[r.rater],
                field=r.field,
                value=float(r.value),
                correct=item.grade(r.field, float(r.value)),
            )
        )
    Response.objects.bulk_create(rows, batch_size=2000)


def pick(rows: list[dict[str, Any]], **where: Any) -> list[dict[str, Any]]:
    return [r for r in rows if all(r.get(k) == v for k, v in where.items())]


def one(rows: list[dict[str, Any]], **where: Any) -> dict[str, Any]:
    found = pick(rows, **where)
    assert len(found) == 1, (where, len(found))
    return found[0]
