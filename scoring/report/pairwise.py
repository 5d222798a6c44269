"""The ``pairwise`` table: Cohen's kappa and percent agreement for every pair of raters.

Per task × field (choice field or rating dimension):

* **within a set** (``humans``, each group, ``models``) of 2 to ``MAX_RATERS`` raters on
  the field: every pair of its raters that rated an item in common;
* **between two sets** (``set_a`` × ``set_b``): each human set against each model
  (experts vs a judge), and each rule rater against each model where the rule stores the
  same field (rule vs judge); every pair (a in A, b in B), when each side has at most
  ``MAX_RATERS`` raters on the field (a panel, not a crowd of volunteers).

Each pair (``summary = pair``) gets percent agreement (share of the items both rated on
which they gave the same value; Wilson interval) and Cohen's (1960) kappa, unweighted,
and for rating dimensions linear and quadratic weighted (Cohen 1968; the declared
scale's positions, as in ``scoring.agreement.cohen``), with a percentile bootstrap over
items. Then a ``mean`` row per coefficient: the mean over the pairs where it is defined,
with ``min`` and ``max`` (the range) and ``n_pairs``; its interval comes from the same
bootstrap draws of items shared by every pair of the set (each replicate averages the
pairs' replicate values), so it respects that the pairs rated the same items. A set with
more raters than the limit gets one ``skipped`` row saying so (see ``agreement`` for
Fleiss' kappa and alpha over many raters).
"""

from __future__ import annotations

import warnings
from itertools import combinations, product
from typing import Any

import numpy as np

from scoring.agreement import wilson_interval
from scoring.agreement.bootstrap import draw_chunks, draw_weights, percentile_interval, rng_from
from scoring.agreement.cohen import cohen_plan
from scoring.report.agreement import cell_table
from scoring.report.data import StudyData, TaskInfo
from scoring.report.sets import HUMANS, MODELS, RaterSet, by_kind, groups_of, single_models
from scoring.report.settings import ReportSettings

MAX_RATERS = 30
BOOTSTRAP = "item bootstrap (percentile)"
WILSON = "wilson"
MEAN_BOOTSTRAP = "item bootstrap of the mean over pairs (percentile)"

Pair = tuple[int, int]


def _labels(data: StudyData) -> dict[int, str]:
    r = data.raters
    return {
        int(pk): (f"{name}@{run}" if run and kind == "model" else str(name))
        for pk, kind, name, run in zip(r.index, r["kind"], r["name"], r["run"], strict=True)
    }


def _pair_stats(
    table: Any, pairs: list[Pair], weights: list[str], opts: ReportSettings
) -> dict[tuple[Pair, str], dict[str, Any]]:
    """Point values and bootstrap replicates of every pair's coefficients, shared draws."""
    out: dict[tuple[Pair, str], dict[str, Any]] = {}
    plans = {}
    for pair in pairs:
        for w in weights:
            plan = cohen_plan(table, weights=w, raters=pair)
            plans[(pair, w)] = plan
            out[(pair, f"kappa:{w}")] = {"result": plan.result, "reps": []}
        none = plans[(pair, "none")]
        units = none.units if none.units is not None else np.empty(0, dtype=np.int64)
        _, a, b = table.paired_units(*pair)
        out[(pair, "agree")] = {
            "units": units,
            "agree": (a == b).astype(np.float64),
            "result": none.result,
            "reps": [],
        }
    if opts.n_boot <= 0 or table.n_units == 0:
        return out
    for draws in draw_chunks(rng_from(opts.seed), table.n_units, opts.n_boot):
        w_all = draw_weights(draws, table.n_units)
        for (pair, w), plan in plans.items():
            entry = out[(pair, f"kappa:{w}")]
            if plan.replicate is not None and plan.units is not None and plan.units.size:
                entry["reps"].append(plan.replicate(w_all[:, plan.units]))
        for pair in pairs:
            entry = out[(pair, "agree")]
            if entry["units"].size:
                sub = w_all[:, entry["units"]]
                with np.errstate(divide="ignore", invalid="ignore"):
                    entry["reps"].append(sub @ entry["agree"] / sub.sum(axis=1))
    return out


def _cell_rows(
    where: dict[str, Any],
    table: Any,
    pairs: list[Pair],
    rating: bool,
    labels: dict[int, str],
    opts: ReportSettings,
) -> list[dict[str, Any]]:
    weights = ["none", "linear", "quadratic"] if rating else ["none"]
    stats = _pair_stats(table, pairs, weights, opts)
    rows: list[dict[str, Any]] = []
    metrics = [("percent_agreement", "agree", None)] + [
        ("cohen_kappa", f"kappa:{w}", w) for w in weights
    ]
    for metric, key, w in metrics:
        values, reps = [], []
        for pair in pairs:
            entry = stats[(pair, key)]
            result = entry["result"]
            n = int(result.n_units)
            if key == "agree":
                value = float(result.observed) if n else float("nan")
                ci = wilson_interval(round(value * n), n, confidence=opts.confidence) if n else None
                low, high, method = (ci.ci_low, ci.ci_high, WILSON) if ci else (np.nan, np.nan, "")
            else:
                value = float(result.value)
                method = BOOTSTRAP if opts.n_boot > 0 else ""
                low = high = float("nan")
                if entry["reps"]:
                    boot = percentile_interval(
                        np.concatenate(entry["reps"]), opts.confidence, opts.n_boot
                    )
                    low, high = boot.low, boot.high
            if n == 0:
                continue
            values.append(value)
            reps.append(np.concatenate(entry["reps"]) if entry["reps"] else None)
            rows.append(
                {
                    **where,
                    "summary": "pair",
                    "rater_a": labels[pair[0]],
                    "rater_b": labels[pair[1]],
                    "metric": metric,
                    "weights": w,
                    "value": value,
                    "ci_low": low,
                    "ci_high": high,
                    "ci_method": method,
                    "n": n,
                    "n_pairs": 1,
                    "min": None,
                    "max": None,
                    "reason": result.reason if key != "agree" else None,
                }
            )
        rows.append(_mean_row(where, metric, w, values, reps, opts))
    return rows


def _mean_row(
    where: dict[str, Any],
    metric: str,
    w: str | None,
    values: list[float],
    reps: list[np.ndarray | None],
    opts: ReportSettings,
) -> dict[str, Any]:
    arr = np.asarray(values, dtype=np.float64)
    defined = arr[np.isfinite(arr)]
    low = high = float("nan")
    stack = [r for r in reps if r is not None]
    if stack and len(stack) == len(reps) and opts.n_boot > 0:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a replicate where all are NaN
            mean_reps = np.nanmean(np.vstack(stack), axis=0)
        ci = percentile_interval(mean_reps, opts.confidence, opts.n_boot)
        low, high = ci.low, ci.high
    return {
        **where,
        "summary": "mean",
        "rater_a": None,
        "rater_b": None,
        "metric": metric,
        "weights": w,
        "value": float(defined.mean()) if defined.size else float("nan"),
        "ci_low": low,
        "ci_high": high,
        "ci_method": MEAN_BOOTSTRAP if opts.n_boot > 0 else "",
        "n": None,
        "n_pairs": int(defined.size),
        "min": float(defined.min()) if defined.size else None,
        "max": float(defined.max()) if defined.size else None,
        "reason": None if defined.size else "no pair with a defined value",
    }


def _skipped(where: dict[str, Any], why: str) -> dict[str, Any]:
    return {**where, "summary": "skipped", "metric": None, "reason": why}


def _comparisons(sets: list[RaterSet]) -> list[tuple[RaterSet, RaterSet | None]]:
    within = [s for s in sets if s.name == HUMANS] + groups_of(sets)
    within += [s for s in sets if s.name == MODELS]
    humans = [s for s in sets if s.name == HUMANS] + groups_of(sets)
    out: list[tuple[RaterSet, RaterSet | None]] = [(s, None) for s in within]
    out += [(h, m) for h in humans for m in single_models(sets)]
    out += [(r, m) for r in by_kind(sets, "rule") for m in single_models(sets)]
    return out


def pairwise_rows(
    data: StudyData, sets: list[RaterSet], opts: ReportSettings
) -> list[dict[str, Any]]:
    frame = data.responses
    frame = frame.loc[frame["value"].notna()]
    labels = _labels(data)
    cells = frame.groupby(["task", "field"], observed=True).indices
    item_col, rater_col = frame["item"].to_numpy(), frame["rater"].to_numpy()
    value_col = frame["value"].to_numpy()
    rows: list[dict[str, Any]] = []
    comparisons = _comparisons(sets)
    for task in data.tasks.values():
        for fld in sorted(str(f) for t, f in cells if t == task.id):
            idx = cells[(task.id, fld)]
            here = set(np.unique(rater_col[idx]).tolist())
            for a, b in comparisons:
                rows += _comparison(
                    task,
                    fld,
                    a,
                    b,
                    here,
                    (item_col[idx], rater_col[idx], value_col[idx]),
                    labels,
                    opts,
                )
    return rows


def _comparison(
    task: TaskInfo,
    fld: str,
    a: RaterSet,
    b: RaterSet | None,
    here: set[int],
    arrays: tuple[np.ndarray, np.ndarray, np.ndarray],
    labels: dict[int, str],
    opts: ReportSettings,
) -> list[dict[str, Any]]:
    mine = sorted(here.intersection(a.raters.tolist()))
    where = {"task": task.slug, "field": fld, "set_a": a.name, "set_b": b.name if b else None}
    if b is None:
        if len(mine) < 2:
            return []
        if len(mine) > MAX_RATERS:
            why = f"{len(mine)} raters: pairs are listed for sets of at most {MAX_RATERS}"
            return [_skipped(where, why)]
        pairs = list(combinations(mine, 2))
    else:
        theirs = sorted(here.intersection(b.raters.tolist()))
        if not mine or not theirs:
            return []
        if len(mine) > MAX_RATERS or len(theirs) > MAX_RATERS:
            why = (
                f"{len(mine)} × {len(theirs)} raters: pairs are listed for sets of at most "
                f"{MAX_RATERS}"
            )
            return [_skipped(where, why)]
        pairs = [(x, y) for x, y in product(mine, theirs) if x != y]
    items, raters, values = arrays
    keep = np.isin(raters, np.asarray(sorted({r for p in pairs for r in p}), dtype=np.int64))
    level = "ordinal" if task.is_rating else "nominal"
    scale = task.scale(fld) if task.is_rating else None
    table = cell_table(items[keep], raters[keep], values[keep], level, scale)
    return _cell_rows(where, table, pairs, task.is_rating, labels, opts)
