"""The ``item_analysis`` table: classical item analysis of every keyed task (``scoring.agreement.items``).

Per keyed question part (item × field: a choice question's ``answer``, each part of a
multi-part question, ``best`` and ``worst``), over the people of ``humans`` and of each
``group:<slug>`` (models are left out: see the ``abilities`` table for them):

* ``summary = item``: ``n`` respondents, ``difficulty`` (share right),
  ``discrimination`` (corrected item–rest point-biserial; the rest score is the share
  right on the person's other questions of the same task), ``d_index`` (Kelley's upper
  minus lower 27 %), and ``flags``, a comma-separated list of what hurts the test:

  - ``everyone_right`` / ``everyone_wrong``: the part tells nobody apart;
  - ``negative_discrimination``: people who do well elsewhere get it wrong more often
    (a wrong key, an ambiguous stem, or a trick question);
  - ``distractor_draws_strong``: some wrong option is chosen by more of the upper group
    than of the lower (see its ``option`` rows);

* ``summary = option``: per option of the part: ``key`` (the keyed option or not),
  ``share``, ``point_biserial`` with the rest score (a good distractor is negative),
  ``share_upper``, ``share_lower`` and ``flags`` (``draws_strong`` on a distractor).

Attention checks are already left out of the data (``exclusions``). Rows with fewer
than 2 respondents with a rest score have no discrimination (NaN) and say so.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from scoring.agreement.items import item_analysis, option_analysis
from scoring.report.data import StudyData, TaskInfo
from scoring.report.sets import HUMANS, RaterSet, groups_of

COLUMNS = (
    "task",
    "item",
    "field",
    "rater_set",
    "summary",
    "option",
    "key",
    "text",
    "n",
    "difficulty",
    "discrimination",
    "n_rest",
    "d_index",
    "share",
    "point_biserial",
    "share_upper",
    "share_lower",
    "flags",
    "reason",
)


def keyed_responses(task: TaskInfo, data: StudyData) -> pd.DataFrame:
    """The task's graded responses (``correct`` 0/1) with a value, without the ``*`` field."""
    frame = data.responses
    part = frame.loc[(frame["task"] == task.id) & frame["correct"].notna()]
    part = part.loc[part["value"].notna() & (part["field"] != "*")]
    return part


def _key(answer: Any, fld: str) -> int | None:
    if isinstance(answer, dict) and isinstance(answer.get(fld), int):
        return int(answer[fld])
    return None


def _set_rows(
    task: TaskInfo, data: StudyData, part: pd.DataFrame, set_name: str
) -> list[dict[str, Any]]:
    units = part[["item", "field"]].astype({"field": str}).drop_duplicates()
    units = units.sort_values(["item", "field"]).reset_index(drop=True)
    keys = pd.MultiIndex.from_arrays([part["item"], part["field"].astype(str)])
    unit = pd.MultiIndex.from_frame(units).get_indexer(keys).astype(np.int64)
    person = part["rater"].to_numpy(dtype=np.int64)
    correct = part["correct"].to_numpy(dtype=np.float64)
    chosen = part["value"].to_numpy(dtype=np.float64)
    stats = item_analysis(person, unit, correct, len(units))
    choices = data.items["choices"].to_dict()
    external = data.items["external_id"].to_dict()
    answers = data.items["answer"].to_dict()
    texts = [
        tuple(choices[int(i)].get(f, ()))
        for i, f in zip(units["item"], units["field"], strict=True)
    ]
    n_options = max((len(t) for t in texts), default=0)
    whole = np.all(chosen == np.round(chosen)) and (chosen >= 0).all()
    opts = None
    if n_options and whole and (chosen < n_options).all():
        opts = option_analysis(
            person, unit, correct, chosen.astype(np.int64), len(units), n_options
        )
    rows: list[dict[str, Any]] = []
    for k, (item, fld) in enumerate(zip(units["item"], units["field"], strict=True)):
        where = {
            "task": task.slug,
            "item": external[int(item)],
            "field": fld,
            "rater_set": set_name,
        }
        key = _key(answers[int(item)], fld)
        option_rows, strong = [], False
        if opts is not None:
            for o, text in enumerate(texts[k]):
                up, lo = opts.share_upper[k, o], opts.share_lower[k, o]
                draws = key is not None and o != key and np.isfinite(up - lo) and up > lo
                strong = strong or bool(draws)
                option_rows.append(
                    {
                        **where,
                        "summary": "option",
                        "option": o,
                        "key": o == key,
                        "text": str(text)[:40],
                        "n": int(stats.n[k]),
                        "share": float(opts.share[k, o]),
                        "point_biserial": float(opts.point_biserial[k, o]),
                        "share_upper": float(up),
                        "share_lower": float(lo),
                        "flags": "draws_strong" if draws else "",
                    }
                )
        p, r = float(stats.difficulty[k]), float(stats.discrimination[k])
        flags = [
            name
            for name, on in (
                ("everyone_right", p == 1.0),
                ("everyone_wrong", p == 0.0),
                ("negative_discrimination", np.isfinite(r) and r < 0),
                ("distractor_draws_strong", strong),
            )
            if on
        ]
        reason = None
        if not np.isfinite(r):
            reason = (
                "no spread in right/wrong or in rest scores"
                if stats.n_rest[k] >= 2
                else "fewer than 2 respondents with other answers in the task"
            )
        rows.append(
            {
                **where,
                "summary": "item",
                "n": int(stats.n[k]),
                "difficulty": p,
                "discrimination": r,
                "n_rest": int(stats.n_rest[k]),
                "d_index": float(stats.d_index[k]),
                "flags": ",".join(flags),
                "reason": reason,
            }
        )
        rows += option_rows
    return rows


def item_rows(data: StudyData, sets: list[RaterSet]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    chosen = [s for s in sets if s.name == HUMANS] + groups_of(sets)
    for task in data.tasks.values():
        if task.is_rating:
            continue
        part = keyed_responses(task, data)
        if part.empty:
            continue
        rater_col = part["rater"].to_numpy()
        for s in chosen:
            mine = part.loc[np.isin(rater_col, s.raters)]
            if not mine.empty:
                rows += _set_rows(task, data, mine, s.name)
    return rows
