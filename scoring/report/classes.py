"""Per-class precision, recall and F1, and the confusion matrices (docs/report.md §4.21).

For a keyed choice field whose items all offer the same options (a classification: which
dynasty, human or machine, which form…; ``validation._signature``), each option is a class:
every rater set's answers pooled against the answer key give a confusion matrix (the
key's class × the chosen class) and, per class, its support (how often the key says it),
how often it was chosen, precision, recall and F1 (one-vs-rest), with the macro average
(over classes whose measure is defined) and the support-weighted average. Fields whose
options differ from item to item (ordinary multiple choice: option B of one question is
not option B of another) have no classes and no rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from scoring.agreement.classify import PerClass, per_class
from scoring.report.data import StudyData
from scoring.report.sets import RaterSet
from scoring.report.validation import _signature
from studies.kinds import ALL_PARTS

COLUMNS = [
    "task",
    "field",
    "rater_set",
    "summary",
    "class",
    "label",
    "support",
    "predicted",
    "tp",
    "precision",
    "recall",
    "f1",
    "n",
]
CONFUSION_COLUMNS = [
    "task",
    "field",
    "rater_set",
    "key",
    "key_label",
    "chosen",
    "chosen_label",
    "n",
]

Rows = list[dict[str, Any]]
Cell = tuple[str, str, tuple[str, ...], pd.DataFrame, np.ndarray]


def _number(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _cells(data: StudyData) -> list[Cell]:
    """(task slug, field, class labels, the field's answers, their keyed class) of every
    classification field."""
    frame = data.responses.loc[data.responses["value"].notna()]
    items = data.items.loc[~data.items["attention"].astype(bool)]
    keys = items["answer"]
    out: list[Cell] = []
    groups = frame.groupby(["task", "field"], observed=True, sort=True).indices
    for (t_id, fld), where in groups.items():
        task = data.tasks.get(int(t_id))
        name = str(fld)
        if task is None or task.is_rating or name == ALL_PARTS:
            continue
        cell = frame.iloc[where]
        cell = cell.loc[cell["item"].isin(items.index)]
        ids = np.unique(cell["item"].to_numpy())
        if not len(ids) or (labels := _signature(items, ids, name)) is None:
            continue
        gold = np.array(
            [k.get(name, np.nan) if k else np.nan for k in keys.reindex(cell["item"])],
            dtype=np.float64,
        )
        out.append((task.slug, name, labels, cell, gold))
    return out


def _measures(cell: Cell, s: RaterSet) -> PerClass | None:
    _slug, _fld, labels, answers, gold = cell
    mask = np.isin(answers["rater"].to_numpy(), s.raters) & np.isfinite(gold)
    if not mask.any():
        return None
    chosen = answers["value"].to_numpy()[mask].astype(np.int64)
    return per_class(chosen, gold[mask].astype(np.int64), n_options=len(labels))


def _label(labels: tuple[str, ...], k: int) -> str:
    return labels[k] if k < len(labels) else f"#{k}"


def _class_rows(where: dict[str, Any], labels: tuple[str, ...], m: PerClass) -> Rows:
    n = int(m.support.sum())
    rows = [
        {
            **where,
            "summary": "class",
            "class": k,
            "label": _label(labels, k),
            "support": int(m.support[k]),
            "predicted": int(m.predicted[k]),
            "tp": int(m.tp[k]),
            "precision": _number(m.precision[k]),
            "recall": _number(m.recall[k]),
            "f1": _number(m.f1[k]),
            "n": n,
        }
        for k in range(len(m.support))
    ]
    used = (m.support + m.predicted) > 0
    for summary in ("macro", "weighted"):
        row: dict[str, Any] = {**where, "summary": summary, "support": n, "n": n}
        for metric in ("precision", "recall", "f1"):
            row[metric] = _average(getattr(m, metric), used, m.support, summary == "weighted")
        rows.append(row)
    return rows


def _average(
    values: np.ndarray, used: np.ndarray, support: np.ndarray, weighted: bool
) -> float | None:
    """Macro (or support-weighted) mean over the classes either side used, a class whose
    measure is 0/0 left out (scikit-learn's ``zero_division=np.nan``)."""
    defined = used & np.isfinite(values)
    weights = support[defined].astype(np.float64) if weighted else None
    if not defined.any() or (weights is not None and weights.sum() == 0):
        return None
    return _number(float(np.average(values[defined], weights=weights)))


def _confusion_rows(where: dict[str, Any], labels: tuple[str, ...], m: PerClass) -> Rows:
    k = len(m.support)
    return [
        {
            **where,
            "key": truth,
            "key_label": _label(labels, truth),
            "chosen": chosen,
            "chosen_label": _label(labels, chosen),
            "n": int(m.table[chosen, truth]),
        }
        for truth in range(k)
        for chosen in range(k)
    ]


def class_tables(data: StudyData, sets: list[RaterSet]) -> tuple[Rows, Rows]:
    """The ``classes`` and ``confusion`` rows, from one pass over the classification
    fields (each rater set's matrix computed once for both tables)."""
    classes: Rows = []
    confusion: Rows = []
    for cell in _cells(data):
        for s in sets:
            if s.kind == "rule" or (m := _measures(cell, s)) is None:
                continue
            where = {"task": cell[0], "field": cell[1], "rater_set": s.name}
            classes += _class_rows(where, cell[2], m)
            confusion += _confusion_rows(where, cell[2], m)
    return classes, confusion
