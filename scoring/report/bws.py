"""The ``bws`` table: best–worst scores per poem and rankings compared across rater sets.

For every best/worst task (kind ``best_worst``): each answer naming a best and a worst
poem is a trial (the item's poems shown, the two picks). A poem is its text: the same
poem offered in several items is one object (``item``/``option`` name where it first
appears). Per rater set (``humans``, each group, ``models``, each model):

* ``summary = poem``, ``method = count``: best minus worst standardised by the times
  shown (Louviere et al. 2015), with ``n_shown``, ``n_best``, ``n_worst`` and the t
  interval of the mean of +1/0/−1 per appearance;
* ``summary = poem``, ``method = bradley_terry``: the log-strength of a Bradley–Terry
  fit of the implied paired comparisons (``choix``; mean 0 within each set of poems
  shown together), with a percentile bootstrap over the set's raters (``n_boot``; none
  for one rater, nor past ``MAX_BOOT_FITS`` fits: ``reason`` says so);
* ``rank``: 1 for the set's best poem, by that method;
* ``summary = spearman``: how far two sets rank the poems alike — every human set
  against every model set, Spearman's rho over the poems both saw, per method, with a
  Fisher-z interval (Bonett & Wright 2000).

Details and limits: ``scoring.agreement.bws`` and docs/statistics.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from scoring.agreement.bws import (
    MAX_BOOT_FITS,
    Trial,
    boot_fits,
    bootstrap_bradley_terry,
    bradley_terry,
    counting_scores,
    spearman_ci,
)
from scoring.report.data import StudyData, TaskInfo
from scoring.report.sets import HUMANS, MODELS, RaterSet, groups_of, single_models
from scoring.report.settings import ReportSettings

KIND = "best_worst"
COUNT, BT = "count", "bradley_terry"
CI_METHODS = {COUNT: "t over appearances", BT: "rater bootstrap (percentile)"}
COLUMNS = (
    "task",
    "summary",
    "rater_set",
    "set_b",
    "method",
    "poem",
    "item",
    "option",
    "text",
    "n_shown",
    "n_best",
    "n_worst",
    "value",
    "ci_low",
    "ci_high",
    "ci_method",
    "rank",
    "n",
    "reason",
)


def _poems(task: TaskInfo, data: StudyData) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """Poem text -> object index, and each object's first (item, option)."""
    items = data.items.loc[data.items["task"] == task.id].sort_index()
    index: dict[str, int] = {}
    where: list[dict[str, Any]] = []
    for pk, ext, choices in zip(items.index, items["external_id"], items["choices"], strict=True):
        for pos, text in enumerate(choices.get("best", ())):
            if text not in index:
                index[text] = len(where)
                where.append({"item": ext, "option": pos, "text": text, "pk": int(pk)})
    return index, where


def _trials(
    task: TaskInfo, data: StudyData, index: dict[str, int]
) -> tuple[list[Trial], np.ndarray]:
    frame = data.responses
    part = frame.loc[(frame["task"] == task.id) & frame["field"].isin(["best", "worst"])]
    part = part.loc[part["value"].notna()]
    if part.empty:
        return [], np.empty(0, dtype=np.int64)
    wide = part.pivot_table(
        index=["rater", "item"], columns="field", values="value", aggfunc="first", observed=True
    )
    if "best" not in wide or "worst" not in wide:
        return [], np.empty(0, dtype=np.int64)
    wide = wide.dropna(subset=["best", "worst"])
    choices = data.items["choices"]
    trials: list[Trial] = []
    raters: list[int] = []
    for (rater, item), best, worst in zip(wide.index, wide["best"], wide["worst"], strict=True):
        texts = choices.loc[item].get("best", ())
        b, w = int(best), int(worst)
        if b == w or not (0 <= b < len(texts) and 0 <= w < len(texts)):
            continue  # refused at submission; an imported answer off the options is skipped
        shown = tuple(index[t] for t in texts)
        if len(set(shown)) != len(shown):
            continue  # the same poem twice in one item: not a best/worst choice set
        trials.append((shown, index[texts[b]], index[texts[w]]))
        raters.append(int(rater))
    return trials, np.asarray(raters, dtype=np.int64)


def _sets(sets: list[RaterSet]) -> tuple[list[RaterSet], list[RaterSet]]:
    humans = [s for s in sets if s.name == HUMANS] + groups_of(sets)
    models = [s for s in sets if s.name == MODELS] + single_models(sets)
    return humans, models


def _ranks(values: np.ndarray) -> np.ndarray:
    shown = np.isfinite(values)
    ranks = np.full(values.size, np.nan)
    ranks[shown] = pd.Series(values[shown]).rank(ascending=False, method="min").to_numpy()
    return ranks


def _set_scores(
    trials: list[Trial], who: np.ndarray, s: RaterSet, n: int, opts: ReportSettings
) -> dict[str, Any] | None:
    mask = np.isin(who, s.raters)
    if not mask.any():
        return None
    mine = [t for t, m in zip(trials, mask, strict=True) if m]
    counts = counting_scores(mine, n, confidence=opts.confidence)
    bt = bradley_terry(mine, n)
    low, high = bootstrap_bradley_terry(
        mine, who[mask].tolist(), n, n_boot=opts.n_boot, seed=opts.seed, confidence=opts.confidence
    )
    why = None
    n_raters = np.unique(who[mask]).size
    if n_raters < 2:
        why = "one rater: no rater bootstrap for the Bradley–Terry interval"
    elif opts.n_boot > 0 and (fits := boot_fits(mine, n, opts.n_boot)) > MAX_BOOT_FITS:
        why = (
            f"the rater bootstrap would need {fits:,} fits (over {MAX_BOOT_FITS:,}): read the "
            "counting interval, or lower n_boot"
        )
    return {
        COUNT: (counts.standardised, counts.ci_low, counts.ci_high),
        BT: (bt, low, high),
        "counts": (counts.shown, counts.best, counts.worst),
        "why": why,
    }


def _task_rows(
    task: TaskInfo, data: StudyData, sets: list[RaterSet], opts: ReportSettings
) -> list[dict[str, Any]]:
    index, where = _poems(task, data)
    trials, who = _trials(task, data, index)
    if not trials:
        return []
    n = len(where)
    humans, models = _sets(sets)
    scores: dict[str, dict[str, Any]] = {}
    rows: list[dict[str, Any]] = []
    for s in humans + models:
        got = _set_scores(trials, who, s, n, opts)
        if got is None:
            continue
        scores[s.name] = got
        shown, best, worst = got["counts"]
        for method in (COUNT, BT):
            value, low, high = got[method]
            ranks = _ranks(value)
            for j in np.flatnonzero(shown > 0):
                poem = where[j]
                rows.append(
                    {
                        "task": task.slug,
                        "summary": "poem",
                        "rater_set": s.name,
                        "method": method,
                        "poem": f"{poem['item']}#{poem['option']}",
                        "item": poem["item"],
                        "option": poem["option"],
                        "text": poem["text"][:40],
                        "n_shown": int(shown[j]),
                        "n_best": int(best[j]),
                        "n_worst": int(worst[j]),
                        "value": float(value[j]),
                        "ci_low": float(low[j]),
                        "ci_high": float(high[j]),
                        "ci_method": CI_METHODS[method],
                        "rank": int(ranks[j]),
                        "reason": got["why"] if method == BT else None,
                    }
                )
    for h in humans:
        for m in models:
            if h.name not in scores or m.name not in scores:
                continue
            for method in (COUNT, BT):
                r = spearman_ci(
                    scores[h.name][method][0], scores[m.name][method][0], confidence=opts.confidence
                )
                rows.append(
                    {
                        "task": task.slug,
                        "summary": "spearman",
                        "rater_set": h.name,
                        "set_b": m.name,
                        "method": method,
                        "value": r.rho,
                        "ci_low": r.ci_low,
                        "ci_high": r.ci_high,
                        "ci_method": r.method,
                        "n": r.n,
                        "reason": None if np.isfinite(r.rho) else _why(r.n),
                    }
                )
    return rows


def _why(n: int) -> str:
    if n < 3:
        return f"{n} poems seen by both sets: need 3 or more"
    return "no spread in one set's scores"


def bws_rows(data: StudyData, sets: list[RaterSet], opts: ReportSettings) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for task in data.tasks.values():
        if task.kind == KIND:
            rows += _task_rows(task, data, sets, opts)
    return rows
