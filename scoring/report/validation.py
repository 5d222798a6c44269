"""The ``validation`` table: a rater set against a gold standard (domain.md §1.4).

Choice fields (single choice, parts, best, worst): every response of the judge set is
compared with the reference's label for its item and field:

* reference ``key``: the item's answer key;
* reference ``<set> majority`` (for model judges): the modal answer of a human set
  (``humans``, each group) on the item; items where two answers tie for the most votes
  have no majority and are left out.

Scopes: ``task`` (one row set per task and field); ``pooled`` over the tasks whose items
all offer the same options for the field (e.g. every yes/no task with the options 是, 否:
Fùxì's overall figure), and ``without`` each of those tasks in turn when three or more
pool (Fùxì's "without PG"). ``--by category`` gives the per-category figures.

Measures (``scoring.agreement.classify``): accuracy, Cohen's kappa, precision, recall,
F1 (for the positive option of a two-option field — option 0 unless the task's
``meta.positive_option`` names another — and macro-averaged otherwise) and phi
(Matthews' correlation; Pearson's r of the 0/1 labels for two options); Wilson
intervals for accuracy (and two-option precision and recall), an item bootstrap for the
others. One row per measure (tidy: pivot ``metric`` into columns for a paper table).

Rating dimensions: each model judge (and ``models``) against a human set's item means
(``humans``, each group): Pearson, Spearman, Kendall (Fisher-z intervals) and the mean
difference (judge − people; t interval), over all poems (``generator`` ``*``) and per
generating model (``generator`` = the poems' source).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from scoring.agreement.classify import Classification, classifications
from scoring.agreement.paired import paired_estimates
from scoring.report.data import StudyData, TaskInfo
from scoring.report.ratings import rating_cells
from scoring.report.sets import (
    HUMANS,
    KEY,
    MODELS,
    RaterSet,
    by_kind,
    groups_of,
    single_models,
)
from scoring.report.settings import ReportSettings
from studies.kinds import ALL_PARTS


def majority(cell: pd.DataFrame, rater_set: RaterSet) -> pd.Series:
    """item -> the modal value of the set's responses, where one value has most votes."""
    rows = cell.loc[np.isin(cell["rater"].to_numpy(), rater_set.raters)]
    if rows.empty:
        return pd.Series(dtype=np.float64)
    values = rows["value"].to_numpy()
    codes = values.astype(np.int64)
    if (codes != values).any() or codes.min() < 0:
        raise ValueError("a choice field holds a value that is not an option index")
    items, inverse = np.unique(rows["item"].to_numpy(), return_inverse=True)
    k = int(codes.max()) + 1
    counts = np.bincount(inverse * k + codes, minlength=items.size * k).reshape(items.size, k)
    top = counts.max(axis=1)
    single = (counts == top[:, None]).sum(axis=1) == 1
    modal = counts.argmax(axis=1)
    return pd.Series(modal[single].astype(np.float64), index=items[single])


def _positive(task: TaskInfo) -> int:
    raw = task.meta.get("positive_option", 0) if task.meta else 0
    return int(raw) if isinstance(raw, int) and not isinstance(raw, bool) else 0


def _signature(items: pd.DataFrame, ids: np.ndarray, fld: str) -> tuple[str, ...] | None:
    """The one option list every item of ``ids`` offers for ``fld``, or None."""
    lists = {c.get(fld) for c in items.loc[ids, "choices"]}
    return next(iter(lists)) if len(lists) == 1 and None not in lists else None


def _rows_for(
    scope: dict[str, Any],
    fld: str,
    cases: list[tuple[str, str, tuple[np.ndarray, np.ndarray, np.ndarray]]],
    n_options: int,
    positive: int,
    options: tuple[str, ...] | None,
    opts: ReportSettings,
) -> list[dict[str, Any]]:
    """The rows of each (judge, reference, (labels, gold, items)) case of one scope and
    field; cases on the same items share their bootstrap draws (``classifications``)."""
    cases = [c for c in cases if c[2][0].size]
    results = classifications(
        [
            (labels.astype(np.int64), gold.astype(np.int64), items)
            for _j, _r, (labels, gold, items) in cases
        ],
        n_options=n_options,
        positive=positive,
        n_boot=opts.n_boot,
        confidence=opts.confidence,
        seed=opts.seed,
    )
    rows: list[dict[str, Any]] = []
    for (judge, reference, _arrays), result in zip(cases, results, strict=True):
        rows += _result_rows(scope, fld, judge, reference, result, options)
    return rows


def _result_rows(
    scope: dict[str, Any],
    fld: str,
    judge: str,
    reference: str,
    result: Classification,
    options: tuple[str, ...] | None,
) -> list[dict[str, Any]]:
    pos = result.positive
    named = None
    if pos is not None:
        named = f"{pos}: {options[pos]}" if options and pos < len(options) else str(pos)
    return [
        {
            **scope,
            "field": fld,
            "judge": judge,
            "reference": reference,
            "generator": None,
            "positive": named,
            "average": "binary" if pos is not None else "macro",
            "metric": e.metric,
            "value": e.value,
            "ci_low": e.ci_low,
            "ci_high": e.ci_high,
            "ci_method": e.ci_method,
            "n": result.n,
            "n_items": result.n_items,
        }
        for e in result.estimates
    ]


def _choice_rows(
    data: StudyData, sets: list[RaterSet], opts: ReportSettings
) -> list[dict[str, Any]]:
    frame = data.responses
    frame = frame.loc[frame["value"].notna()]
    items = data.items
    judges = [s for s in sets if s.kind != "rule"]
    model_judges = [s for s in sets if s.name == MODELS] + single_models(sets)
    references = [s for s in sets if s.name == HUMANS] + groups_of(sets)
    cells = frame.groupby(["task", "field"], observed=True).indices
    tasks = [t for t in data.tasks.values() if not t.is_rating]
    # (task, field) -> its responses, their items' keyed values, the option signature
    found: dict[tuple[int, str], tuple[pd.DataFrame, np.ndarray, tuple[str, ...] | None]] = {}
    keys_by_item = items["answer"]
    for task in tasks:
        for t_id, fld in cells:
            if t_id == task.id and str(fld) != ALL_PARTS:
                name = str(fld)
                cell = frame.iloc[cells[(t_id, fld)]]
                ids, inverse = np.unique(cell["item"].to_numpy(), return_inverse=True)
                per_item = np.array(
                    [k.get(name, np.nan) if k else np.nan for k in keys_by_item.loc[ids]],
                    dtype=np.float64,
                )
                found[(task.id, name)] = (cell, per_item[inverse], _signature(items, ids, name))
    by_id = {t.id: t for t in tasks}
    scopes: list[tuple[dict[str, Any], str, list[int]]] = []
    for (t_id, fld), _ in sorted(found.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        scopes.append(({"scope": "task", "task": by_id[t_id].slug, "left_out": None}, fld, [t_id]))
    pools: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    for (t_id, fld), (_, _gold, sig) in found.items():
        if sig is not None:
            pools.setdefault((fld, sig), []).append(t_id)
    for (fld, _sig), members in pools.items():
        if len(members) < 2:
            continue
        members = sorted(members, key=lambda t: list(by_id).index(t))
        slugs = [by_id[t].slug for t in members]
        scopes.append(
            ({"scope": "pooled", "task": "+".join(slugs), "left_out": None}, fld, members)
        )
        if len(members) >= 3:
            for left in members:
                rest = [t for t in members if t != left]
                name = "+".join(by_id[t].slug for t in rest)
                where = {"scope": "without", "task": name, "left_out": by_id[left].slug}
                scopes.append((where, fld, rest))
    rows: list[dict[str, Any]] = []
    majorities: dict[tuple[int, str, str], pd.Series] = {}
    for scope, fld, members in scopes:
        cell = pd.concat([found[(t, fld)][0] for t in members])
        gold = np.concatenate([found[(t, fld)][1] for t in members])
        sig = found[(members[0], fld)][2]
        n_options = (
            len(sig)
            if sig
            else max(len(c.get(fld, ())) for c in items.loc[cell["item"].unique(), "choices"])
        )
        positive = _positive(by_id[members[0]])
        item_col, rater_col = cell["item"].to_numpy(), cell["rater"].to_numpy()
        value_col = cell["value"].to_numpy()
        cases = []
        for judge in judges:
            mask = np.isin(rater_col, judge.raters) & np.isfinite(gold)
            cases.append((judge.name, KEY, (value_col[mask], gold[mask], item_col[mask])))
        rows += _rows_for(scope, fld, cases, n_options, positive, sig, opts)
        for ref in references:
            modal = pd.concat(
                [
                    majorities.setdefault((t, fld, ref.name), majority(found[(t, fld)][0], ref))
                    for t in members
                ]
            )
            ref_gold = modal.reindex(item_col).to_numpy(dtype=np.float64)
            cases = []
            for judge in model_judges:
                mask = np.isin(rater_col, judge.raters) & np.isfinite(ref_gold)
                arrays = (value_col[mask], ref_gold[mask], item_col[mask])
                cases.append((judge.name, f"{ref.name} majority", arrays))
            rows += _rows_for(scope, fld, cases, n_options, positive, sig, opts)
    return rows


def _rating_rows(
    data: StudyData, sets: list[RaterSet], opts: ReportSettings
) -> list[dict[str, Any]]:
    judges = [s for s in sets if s.name == MODELS] + single_models(sets)
    references = [
        s for s in by_kind(sets, "human") if s.name == HUMANS or s.name.startswith("group:")
    ]
    sources = data.items["source"]
    rows: list[dict[str, Any]] = []
    for task, dim, cell in rating_cells(data):
        rater_col = cell["rater"].to_numpy()

        def means(
            s: RaterSet, cell: pd.DataFrame = cell, rater_col: np.ndarray = rater_col
        ) -> pd.Series:
            return cell.loc[np.isin(rater_col, s.raters)].groupby("item")["value"].mean()

        ref_means = {r.name: means(r) for r in references}
        for judge in judges:
            mine = means(judge)
            if mine.empty:
                continue
            for ref, theirs in ref_means.items():
                both = pd.concat([mine, theirs], axis=1, join="inner").dropna()
                if both.empty:
                    continue
                gen = sources.reindex(both.index).to_numpy()
                groups = [("*", np.ones(len(both), dtype=bool))]
                groups += [(str(g), gen == g) for g in sorted({g for g in gen if g is not None})]
                for name, mask in groups:
                    pair = both.to_numpy()[mask]
                    n, estimates = paired_estimates(
                        pair[:, 0].tolist(), pair[:, 1].tolist(), confidence=opts.confidence
                    )
                    rows += [
                        {
                            "scope": "task",
                            "task": task,
                            "left_out": None,
                            "field": dim,
                            "judge": judge.name,
                            "reference": f"{ref} mean",
                            "generator": name,
                            "positive": None,
                            "average": None,
                            "metric": e.metric,
                            "value": e.value,
                            "ci_low": e.ci_low,
                            "ci_high": e.ci_high,
                            "ci_method": e.ci_method,
                            "n": n,
                            "n_items": n,
                        }
                        for e in estimates
                    ]
    return rows


def validation_rows(
    data: StudyData, sets: list[RaterSet], opts: ReportSettings
) -> list[dict[str, Any]]:
    return _choice_rows(data, sets, opts) + _rating_rows(data, sets, opts)
