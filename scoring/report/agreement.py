"""The ``agreement`` table: every applicable coefficient per task × field × rater set.

Units are items, raters are raters, values are the stored values (option index for
choice fields, the rating for rating dimensions). Choice fields are read at the nominal
level; rating dimensions at the ordinal level on their declared scale (all of
``compute_all``, whose coefficients come from the registry scoring/agreement/registry.py),
then Krippendorff's alpha once more at the interval level. Sets:
``humans``, each ``group:<slug>``, ``models``, and ``humans+model:<name>`` (the model
as one more rater; alpha only). Bootstrap CIs resample items, ``n_boot`` times, seeded;
``se`` with ``t_low``..``t_high`` is Gwet's (2014) analytic standard error and t interval
where the coefficient has one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scoring.agreement import RatingTable, compute_all, krippendorff_alpha
from scoring.agreement.results import AgreementResult
from scoring.report.data import StudyData, TaskInfo
from scoring.report.sets import HUMANS, MODELS, RaterSet, groups_of, single_models

COLUMNS = (
    "task",
    "field",
    "rater_set",
    "metric",
    "level",
    "value",
    "ci_low",
    "ci_high",
    "n_units",
    "n_raters",
    "weights",
    "n_boot",
    "reason",
    "se",
    "t_low",
    "t_high",
)


def _row(task: str, fld: str, name: str, r: AgreementResult) -> dict[str, Any]:
    where = {"task": task, "field": fld, "rater_set": name}
    return {c: where[c] if c in where else getattr(r, c) for c in COLUMNS}


def cell_table(
    items: np.ndarray, raters: np.ndarray, values: np.ndarray, level: str, scale: list[int] | None
) -> RatingTable:
    domain: list[int] | None = scale
    if scale is not None and not np.isin(values, scale).all():
        domain = None  # values off the declared scale: fall back to the observed ones
    if level == "nominal":
        values = values.astype(np.int64) if np.all(values == np.round(values)) else values
    return RatingTable.from_arrays(items, raters, values, level=level, domain=domain)


def _combined_sets(sets: list[RaterSet]) -> list[RaterSet]:
    humans = next((s for s in sets if s.name == HUMANS), None)
    if humans is None:
        return []
    return [
        RaterSet(f"{HUMANS}+{m.name}", "human", np.concatenate([humans.raters, m.raters]))
        for m in single_models(sets)
    ]


def agreement_rows(
    data: StudyData, sets: list[RaterSet], *, n_boot: int, seed: int, confidence: float = 0.95
) -> list[dict[str, Any]]:
    frame = data.responses
    frame = frame.loc[frame["value"].notna()]
    main = [s for s in sets if s.name in (HUMANS, MODELS)]
    main[1:1] = groups_of(sets)
    extra = _combined_sets(sets)
    cells = frame.groupby(["task", "field"], observed=True).indices
    item_col, rater_col = frame["item"].to_numpy(), frame["rater"].to_numpy()
    value_col = frame["value"].to_numpy()
    rows: list[dict[str, Any]] = []
    for task in data.tasks.values():
        fields = sorted(str(f) for t, f in cells if t == task.id)
        for fld in fields:
            idx = cells[(task.id, fld)]
            arrays = item_col[idx], rater_col[idx], value_col[idx]
            rows += _cell_rows(task, fld, arrays, main, extra, n_boot, seed, confidence)
    return rows


def _cell_rows(
    task: TaskInfo,
    fld: str,
    arrays: tuple[np.ndarray, np.ndarray, np.ndarray],
    main: list[RaterSet],
    extra: list[RaterSet],
    n_boot: int,
    seed: int,
    confidence: float,
) -> list[dict[str, Any]]:
    items, raters, values = arrays
    scale = task.scale(fld) if task.is_rating else None
    level = "ordinal" if task.is_rating else "nominal"
    rows: list[dict[str, Any]] = []
    for s in [*main, *extra]:
        mask = np.isin(raters, s.raters)
        if not mask.any():
            continue
        table = cell_table(items[mask], raters[mask], values[mask], level, scale)
        alpha_only = s in extra
        results = (
            [krippendorff_alpha(table, n_boot=n_boot, seed=seed, confidence=confidence)]
            if alpha_only
            else compute_all(table, n_boot=n_boot, seed=seed, confidence=confidence)
        )
        if task.is_rating:
            interval = table.with_level("interval")
            results.append(
                krippendorff_alpha(interval, n_boot=n_boot, seed=seed, confidence=confidence)
            )
        rows += [_row(task.slug, fld, s.name, r) for r in results]
    return rows
