"""The ``icc`` table: intraclass correlations per rating task × dimension × rater set.

The six Shrout & Fleiss (1979) forms with McGraw & Wong's (1996) F-based intervals
(``scoring.agreement.icc``) over the poems (targets) and raters of a set: ``humans``,
each ``group:<slug>``, ``models`` (every judge model together) and ``humans+models``.

ICC needs a complete targets × raters table. Missing ratings are handled by
**complete-case analysis over a balanced subset**: starting from every rater of the set
on the dimension, the rater with the fewest ratings is dropped one at a time (ties: the
later rater); of the tables this passes through, the one with the most cells
(items × raters, at least 2 raters and 2 items, fully rated) is used. Each row says how
many of the set's items and raters the subset kept (``n_items`` of ``n_items_all``,
``n_raters`` of ``n_raters_all``) and, when something was left out, says so in ``subset``.
A volunteer crowd where each person rated a few poems has no such subset: its row says
why (``reason``); use the ``agreement`` table's alpha, which allows missing ratings.
Each row names the raters it used (``raters_used``: "12 humans + 3 models"); a set whose
subset lost every rater of a kind its name promises (``humans+models`` keeping only the
two models) is refused with the reason, not reported under a label it does not meet.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from scoring.agreement.icc import FORMS, icc_all
from scoring.report.data import StudyData
from scoring.report.ratings import rating_cells
from scoring.report.sets import HUMANS, MODELS, RaterSet
from scoring.report.settings import ReportSettings

METHOD = "F (McGraw & Wong 1996, Table 7)"
COLUMNS = (
    "task",
    "field",
    "rater_set",
    "form",
    "mcgraw_wong",
    "description",
    "value",
    "ci_low",
    "ci_high",
    "ci_method",
    "f",
    "df1",
    "df2",
    "p_value",
    "n_items",
    "n_raters",
    "n_items_all",
    "n_raters_all",
    "subset",
    "raters_used",
    "reason",
)


def balanced_subset(wide: pd.DataFrame) -> tuple[list[Any], list[Any]]:
    """(items, raters) of the largest complete table on the greedy path (module doc).

    ``wide``: items in rows, raters in columns, NaN where a rater did not rate an item.
    Returns empty lists when no complete table of at least 2 × 2 exists on the path.
    """
    rated = wide.notna().to_numpy()
    n_raters = rated.shape[1]
    counts = rated.sum(axis=0)
    # Order of dropping: fewest ratings first; among equals the later column first.
    order = sorted(range(n_raters), key=lambda j: (counts[j], -j))
    if n_raters < 2:
        return [], []
    # An item is complete once every rater who did not rate it is dropped: after
    # ``ready[i]`` raters (the last of them in the order, plus one; 0 if all rated it).
    step = np.empty(n_raters, dtype=np.int64)
    step[order] = np.arange(1, n_raters + 1)
    ready = np.where(rated, 0, step[None, :]).max(axis=1)
    dropped = np.arange(n_raters - 1)
    complete = np.cumsum(np.bincount(ready, minlength=n_raters + 1))[: n_raters - 1]
    cells = np.where(complete >= 2, complete * (n_raters - dropped), 0)
    if not cells.any():
        return [], []
    best = int(np.argmax(cells))  # the fewest raters dropped among the largest tables
    keep = np.ones(n_raters, dtype=bool)
    keep[order[:best]] = False
    complete_rows = rated[:, keep].all(axis=1)
    return list(wide.index[complete_rows]), list(wide.columns[keep])


def _sets(sets: list[RaterSet]) -> list[RaterSet]:
    out = [s for s in sets if s.name == HUMANS or s.name.startswith("group:")]
    out += [s for s in sets if s.name == MODELS]
    humans = next((s for s in sets if s.name == HUMANS), None)
    models = next((s for s in sets if s.name == MODELS), None)
    if humans is not None and models is not None:
        both = np.concatenate([humans.raters, models.raters])
        out.append(RaterSet(f"{HUMANS}+{MODELS}", "human", both))
    return out


def _promised(s: RaterSet) -> list[str]:
    """The kinds of rater a set's name promises (``humans+models``: both)."""
    if s.name == f"{HUMANS}+{MODELS}":
        return ["human", "model"]
    return ["model"] if s.name == MODELS else ["human"]


def _used(kinds: pd.Series, raters: list[Any]) -> dict[str, int]:
    found = kinds.reindex(raters).value_counts()
    return {str(k): int(v) for k, v in found.items()}


def _label(used: dict[str, int]) -> str:
    """What the rows' raters are: e.g. "12 humans + 3 models"."""
    names = {"human": "humans", "model": "models"}
    return " + ".join(
        f"{used[k]} {names.get(k, k)}" for k in ("human", "model", "rule") if used.get(k)
    )


def _rows_for(
    task: str,
    dim: str,
    s: RaterSet,
    cell: pd.DataFrame,
    opts: ReportSettings,
    kinds: pd.Series,
) -> list[dict[str, Any]]:
    part = cell.loc[np.isin(cell["rater"].to_numpy(), s.raters)]
    if part.empty or part["rater"].nunique() < 2:
        return []
    wide = part.pivot_table(index="item", columns="rater", values="value", aggfunc="mean")
    where = {
        "task": task,
        "field": dim,
        "rater_set": s.name,
        "n_items_all": int(wide.shape[0]),
        "n_raters_all": int(wide.shape[1]),
    }
    items, raters = balanced_subset(wide)
    if not items:
        why = (
            "no 2 raters rated 2 items in common: ICC needs a complete items × raters "
            "table (see the agreement table's alpha, which allows missing ratings)"
        )
        return [{**where, "form": None, "n_items": 0, "n_raters": 0, "reason": why}]
    used = _used(kinds, raters)
    missing = [k for k in _promised(s) if k not in used]
    if missing:
        why = (
            f"the complete-case subset kept {len(raters)} of {wide.shape[1]} raters "
            f"({_label(used)}): no {' or '.join(missing)} rater is left, so this is not an "
            f"ICC of {s.name}; see the sets' own rows, or alpha (agreement table)"
        )
        return [
            {**where, "form": None, "n_items": len(items), "n_raters": len(raters),
             "raters_used": _label(used), "reason": why}
        ]  # fmt: skip
    table = wide.loc[items, raters].to_numpy(dtype=np.float64)
    left_out = wide.shape[0] - len(items), wide.shape[1] - len(raters)
    subset = (
        f"complete-case: {len(items)} of {wide.shape[0]} items × {len(raters)} of "
        f"{wide.shape[1]} raters"
        if any(left_out)
        else "all ratings"
    )
    rows = []
    for r in icc_all(table, confidence=opts.confidence):
        reason = "no variance among the ratings" if not np.isfinite(r.value) else None
        rows.append(
            {
                **where,
                "form": r.form,
                "mcgraw_wong": r.mcgraw_wong,
                "description": r.description,
                "value": r.value,
                "ci_low": r.ci_low,
                "ci_high": r.ci_high,
                "ci_method": METHOD,
                "f": r.f,
                "df1": r.df1,
                "df2": r.df2,
                "p_value": r.p_value,
                "n_items": r.n_targets,
                "n_raters": r.n_raters,
                "subset": subset,
                "raters_used": _label(used),
                "reason": reason,
            }
        )
    return rows


def icc_rows(data: StudyData, sets: list[RaterSet], opts: ReportSettings) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    chosen = _sets(sets)
    for task, dim, cell in rating_cells(data):
        for s in chosen:
            rows += _rows_for(task, dim, s, cell, opts, data.raters["kind"])
    return rows


__all__ = ["COLUMNS", "FORMS", "balanced_subset", "icc_rows"]
