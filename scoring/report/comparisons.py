"""The ``comparisons`` table: every pair of models, and each model against each human
group, on the items both answered, with tests adjusted across the family
(``scoring.agreement.compare``; docs/statistics.md §25).

* **Accuracy** (every keyed task × field): per pair, both accuracies on the shared items,
  the risk difference with the paired item × person bootstrap interval, Cohen's h, and a
  p-value — McNemar's exact test when each side answered each shared item once (two
  models), else the bootstrap's Wald p (a model against a group).
* **Ratings** (every rating task × dimension): the mean rating of each side on the
  shared poems, the difference with the same paired bootstrap, its p.
* **Rule rates** (every rule metric, between generating models): each model's rate or
  mean on the prompts both were given (a prompt's samples together), paired by prompt.
* **Human groups** (accuracy and ratings): every pair of groups on the items both
  answered, ``summary = group pair``: the difference of their shares or means with the
  clustered t of ``crossed.clustered_difference`` (people nested in the groups, items
  crossed with both, as the ``cluster`` setting says) — the test ``manage.py plan``
  sizes two groups for — adjusted by Holm and Benjamini–Hochberg within the family of
  group pairs (apart from the models' family, whose adjustment it leaves unchanged).

Within each family (task × field; rule × metric) the p-values are adjusted by Holm
(1979) and by Benjamini & Hochberg (1995). ``summary = rank`` rows rank the models by
their value in the family and mark the **best set**: the best model and every model
whose comparison with it is not significant at the report's confidence after Holm's
adjustment (the models that cannot be told apart from the best).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from scoring.agreement.compare import (
    BOOTSTRAP,
    benjamini_hochberg,
    cohens_h,
    holm,
    mcnemar_exact,
    paired_bootstrap,
)
from scoring.agreement.crossed import clustered_difference
from scoring.report import clusters
from scoring.report.accuracy import field_order, keyed_answers
from scoring.report.data import StudyData
from scoring.report.ratings import rating_cells
from scoring.report.rule_rates import rule_frame
from scoring.report.sets import HUMANS, RaterSet, groups_of, single_models
from scoring.report.settings import ReportSettings

NAN = math.nan
MCNEMAR = "McNemar exact"
WALD = "bootstrap Wald"
CLUSTERED_T = "clustered t (CGM)"
GROUP_PAIR = "group pair"
COLUMNS = (
    "kind",
    "task",
    "field",
    "summary",
    "a",
    "b",
    "n_items",
    "value_a",
    "value_b",
    "diff",
    "ci_low",
    "ci_high",
    "ci_method",
    "cohens_h",
    "test",
    "p_value",
    "p_holm",
    "p_bh",
    "n10",
    "n01",
    "rank",
    "best_set",
    "reason",
)


def _entities(sets: list[RaterSet]) -> tuple[list[RaterSet], list[RaterSet]]:
    groups = groups_of(sets) or [s for s in sets if s.name == HUMANS]
    return single_models(sets), groups


def _on_shared(
    frame: pd.DataFrame, a: RaterSet, b: RaterSet, item_col: str = "item"
) -> tuple[np.ndarray, np.ndarray, int] | None:
    """The answers of ``a`` or ``b`` on the items (``item_col``) both answered: a mask of
    ``frame``'s rows, which of those rows are ``a``'s, and how many items; None if none."""
    raters = frame["rater"].to_numpy()
    in_a, in_b = np.isin(raters, a.raters), np.isin(raters, b.raters)
    items = frame[item_col].to_numpy()
    shared = np.intersect1d(items[in_a], items[in_b])
    if shared.size == 0:
        return None
    keep = (in_a | in_b) & np.isin(items, shared)
    return keep, in_a[keep], int(shared.size)


def _pair(
    frame: pd.DataFrame,
    a: RaterSet,
    b: RaterSet,
    opts: ReportSettings,
    *,
    binary: bool,
    item_col: str = "item",
) -> dict[str, Any] | None:
    """One pair's row on the items (``item_col``) both sides answered; None if none."""
    found = _on_shared(frame, a, b, item_col)
    if found is None:
        return None
    keep, of_a, n_shared = found
    part = frame.loc[keep]
    side = np.where(of_a, 0, 1)
    values = part["value"].to_numpy(dtype=np.float64)
    boot = paired_bootstrap(
        values,
        part[item_col].to_numpy(),
        part["rater"].to_numpy(),
        side,
        n_boot=opts.n_boot,
        confidence=opts.confidence,
        seed=opts.seed,
    )
    row: dict[str, Any] = {
        "a": a.name,
        "b": b.name,
        "n_items": n_shared,
        "value_a": boot.value_a,
        "value_b": boot.value_b,
        "diff": boot.diff,
        "ci_low": boot.ci_low,
        "ci_high": boot.ci_high,
        "ci_method": BOOTSTRAP if math.isfinite(boot.ci_low) else "",
        "cohens_h": NAN,
        "test": WALD if math.isfinite(boot.p_value) else "",
        "p_value": boot.p_value,
        "n10": None,
        "n01": None,
        "reason": None if math.isfinite(boot.ci_low) else _why(boot.n_items, opts),
    }
    if binary:
        row["cohens_h"] = cohens_h(boot.value_a, boot.value_b)
        one_each = [pd.Series(part[item_col].to_numpy()[side == k]).is_unique for k in (0, 1)]
        if all(one_each):
            order = np.argsort(part[item_col].to_numpy()[side == 0])
            other = np.argsort(part[item_col].to_numpy()[side == 1])
            test = mcnemar_exact(values[side == 0][order], values[side == 1][other])
            row.update(test=MCNEMAR, p_value=test.p_value, n10=test.n10, n01=test.n01, reason=None)
    return row


def _group_pair(
    frame: pd.DataFrame,
    a: RaterSet,
    b: RaterSet,
    data: StudyData,
    opts: ReportSettings,
    *,
    binary: bool,
) -> dict[str, Any] | None:
    """Two human groups on the items both answered (None if none): the difference of
    their shares or means with the clustered t (docs/statistics.md §22, §25)."""
    found = _on_shared(frame, a, b)
    if found is None:
        return None
    keep, of_a, n_shared = found
    values = frame["value"].to_numpy(dtype=np.float64)[keep]
    raters, items = frame["rater"].to_numpy()[keep], frame["item"].to_numpy()[keep]
    groups = clusters.labels(data, opts.cluster, raters, items)
    d = clustered_difference(values, of_a, groups, confidence=opts.confidence)
    estimable = math.isfinite(d.ci_low)
    mean_a, mean_b = float(values[of_a].mean()), float(values[~of_a].mean())
    return {
        "a": a.name,
        "b": b.name,
        "n_items": n_shared,
        "value_a": mean_a,
        "value_b": mean_b,
        "diff": d.value,
        "ci_low": d.ci_low,
        "ci_high": d.ci_high,
        "ci_method": d.method if estimable else "",
        "cohens_h": cohens_h(mean_a, mean_b) if binary else NAN,
        "test": CLUSTERED_T if math.isfinite(d.p_value) else "",
        "p_value": d.p_value,
        "n10": None,
        "n01": None,
        "reason": None if estimable else "fewer than two clusters or answers",
    }


def _group_family(
    frame: pd.DataFrame,
    groups: list[RaterSet],
    data: StudyData,
    opts: ReportSettings,
    *,
    binary: bool,
) -> list[dict[str, Any]]:
    """Every pair of groups in the cell, adjusted within their own family."""
    rows = [
        r
        for i, a in enumerate(groups)
        for b in groups[i + 1 :]
        if (r := _group_pair(frame, a, b, data, opts, binary=binary)) is not None
    ]
    return _adjusted(rows, GROUP_PAIR)


def _adjusted(rows: list[dict[str, Any]], summary: str) -> list[dict[str, Any]]:
    """A family's rows with their Holm and Benjamini–Hochberg adjusted p-values."""
    p = np.array([r["p_value"] if r["p_value"] is not None else NAN for r in rows], float)
    for r, h, bh in zip(rows, holm(p), benjamini_hochberg(p), strict=True):
        r["summary"], r["p_holm"], r["p_bh"] = summary, float(h), float(bh)
    return rows


def _why(n_items: int, opts: ReportSettings) -> str:
    if opts.n_boot <= 0:
        return "no bootstrap (n_boot = 0)"
    return f"not estimable: {n_items} shared item(s); the paired bootstrap needs 2 or more"


def _family(
    rows: list[dict[str, Any]],
    models: list[RaterSet],
    opts: ReportSettings,
    frame: pd.DataFrame,
) -> list[dict[str, Any]]:
    """Adjust the family's p-values and add its ranking with the best set (models ranked
    by their value over all their answers in ``frame``)."""
    _adjusted(rows, "pair")
    raters = frame["rater"].to_numpy()
    values = frame["value"].to_numpy(dtype=np.float64)
    ranked = {
        m.name: float(values[mask].mean())
        for m in models
        if (mask := np.isin(raters, m.raters)).any()
    }
    if not ranked:
        return rows
    best = max(ranked, key=lambda k: ranked[k])
    order = sorted(ranked, key=lambda k: -ranked[k])
    alpha = 1 - opts.confidence
    out = list(rows)
    for rank, name in enumerate(order, 1):
        if name == best:
            in_best, why = True, None
        else:
            vs = next((r for r in rows if {r["a"], r["b"]} == {best, name}), None)
            p_holm = vs["p_holm"] if vs is not None else NAN
            in_best = not (math.isfinite(p_holm) and p_holm < alpha)
            why = None if vs is not None else "no items shared with the best model"
        out.append(
            {
                "summary": "rank",
                "a": name,
                "b": best,
                "value_a": ranked[name],
                "rank": rank,
                "best_set": in_best,
                "reason": why,
            }
        )
    return out


def _cell_family(
    cell: pd.DataFrame,
    models: list[RaterSet],
    groups: list[RaterSet],
    data: StudyData,
    opts: ReportSettings,
    *,
    binary: bool,
) -> list[dict[str, Any]]:
    """One cell's family: each model against each later model and each group (adjusted
    and ranked, ``_family``), then every pair of groups in their own family
    (``_group_family``)."""
    rows = [
        r
        for i, a in enumerate(models)
        for b in models[i + 1 :] + groups
        if (r := _pair(cell, a, b, opts, binary=binary)) is not None
    ]
    return _family(rows, models, opts, cell) + _group_family(
        cell, groups, data, opts, binary=binary
    )


def _accuracy(data: StudyData, sets: list[RaterSet], opts: ReportSettings) -> list[dict[str, Any]]:
    models, groups = _entities(sets)
    answers = keyed_answers(data).rename(columns={"right": "value"})
    out: list[dict[str, Any]] = []
    for task in data.tasks.values():
        here = answers.loc[answers["task"] == task.id]
        for fld in field_order(sorted(set(here["field"]))):
            cell = here.loc[here["field"] == fld]
            fam = _cell_family(cell, models, groups, data, opts, binary=True)
            out += [{"kind": "accuracy", "task": task.slug, "field": fld, **r} for r in fam]
    return out


def _ratings(data: StudyData, sets: list[RaterSet], opts: ReportSettings) -> list[dict[str, Any]]:
    models, groups = _entities(sets)
    out: list[dict[str, Any]] = []
    for task, dim, cell in rating_cells(data):
        fam = _cell_family(cell, models, groups, data, opts, binary=False)
        out += [{"kind": "rating", "task": task, "field": dim, **r} for r in fam]
    return out


def _rule_rates(
    data: StudyData, sets: list[RaterSet], opts: ReportSettings
) -> list[dict[str, Any]]:
    """Generating models compared on each rule metric, paired by prompt."""
    scores = rule_frame(data)
    if scores.empty:
        return []
    items = data.items
    scores["prompt"] = items["prompt"].reindex(scores["item"].to_numpy()).to_numpy()
    scores["source"] = items["source"].reindex(scores["item"].to_numpy()).to_numpy()
    scores = scores.loc[scores["prompt"].astype(str).str.startswith("p:")]
    sources = sorted(s for s in set(scores["source"].dropna()) if s != "human")
    if len(sources) < 2:
        return []
    codes = {name: k for k, name in enumerate(sources)}
    scores = scores.loc[scores["source"].isin(codes)]
    scores["rater"] = scores["source"].map(codes).to_numpy()
    out: list[dict[str, Any]] = []
    fake = [RaterSet(f"model:{name}", "model", np.array([k])) for name, k in codes.items()]
    for (rule, metric), part in scores.groupby(["rule", "field"], sort=True):
        binary = bool(np.isin(part["value"].to_numpy(), (0.0, 1.0)).all())
        rows = [
            r
            for i, a in enumerate(fake)
            for b in fake[i + 1 :]
            if (r := _pair(part, a, b, opts, binary=binary, item_col="prompt")) is not None
        ]
        for r in rows:  # several samples per prompt: no McNemar; the bootstrap's p
            r["ci_method"] = r["ci_method"].replace("item", "prompt") if r["ci_method"] else ""
        fam = _family(rows, fake, opts, part)
        out += [{"kind": "rule rate", "task": None, "field": f"{rule}/{metric}", **r} for r in fam]
    return out


def comparison_rows(
    data: StudyData, sets: list[RaterSet], opts: ReportSettings
) -> list[dict[str, Any]]:
    rows = _accuracy(data, sets, opts) + _ratings(data, sets, opts) + _rule_rates(data, sets, opts)
    return [{c: r.get(c) for c in COLUMNS} for r in rows]
