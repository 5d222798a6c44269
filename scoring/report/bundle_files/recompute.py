#!/usr/bin/env python3
"""Recompute the report's main tables from the raw export alone (the analysis bundle).

Standalone: numpy, pandas, scipy and the standard library, nothing of the platform.
Reads ``responses.csv`` (the raw export, docs/codebook.md) and ``design.json`` (the
study's tasks, their kinds and keyed parts, the items' answer keys, options and
clusters, the attention-check items, the excluded participants and the report's
settings) from the bundle's directory, applies the report's exclusions, and writes
``recomputed/<table>.csv`` for four tables with their point estimates and the
intervals the report's settings ask for (docs/report.md §4, docs/statistics.md):

* ``accuracy`` (task × field × rater set): correct keyed responses / keyed responses;
  for tasks with several keyed parts the field ``*`` counts one response per (rater,
  item), right when every keyed part was answered and right. Interval: clustered as
  the setting ``cluster`` says (default people × items: Cameron, Gelbach & Miller's
  two-way variance, Wilson's interval at the effective n with t on min(G) − 1 df);
  ``cluster = none``: Wilson's over answers.
* ``ratings`` (rating task × dimension × rater set, humans and models): the mean of the
  item means (with ``ratings_ci = normal`` the mean over all ratings), the sd, the
  numbers of items, raters and ratings; interval per ``ratings_ci``: ``crossed``
  (CGM, each rating weighted 1 / its item's ratings), ``t`` (over item means),
  ``normal`` (over ratings), ``bootstrap`` (items resampled, seeded as the report).
* ``rule_rates`` (rule × version × metric × source × condition): the rate of poems
  scoring 1 (a 0/1 metric) or the mean (a graded one); interval clustered in the
  generation prompts when poems repeat one (CGM), else Wilson's (rate) or the item
  bootstrap (mean, seeded as the report).
* ``validation``: every judge set against the answer key and every model set against
  a human set's majority on choice fields (per task, pooled over tasks with the same
  options, and without each task when three or more pool): accuracy, Cohen's kappa,
  precision, recall, F1, phi (Wilson intervals for the proportions, the item bootstrap
  for the rest); on rating dimensions each model set against a human set's item means:
  Pearson, Spearman, Kendall (Fisher z) and the mean difference (paired t).

Not covered: ``--by`` splits (the report's rows with split columns) and the other
tables. Rater sets: ``humans``, ``group:<slug>``, ``models``, ``model:<name>[@<run>]``,
``rule:<name>``. Usage: ``python recompute.py [BUNDLE_DIR]``.
"""

from __future__ import annotations

import json
import math
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

TEXT = ("task", "item", "rater_kind", "rater", "run", "group", "field")
ALL_PARTS = "*"
NAN = math.nan
_ESCAPED = re.compile(r"^'+[=+\-@\t\r]")
CHUNK_CELLS = 2_000_000  # the report's bootstrap chunk (draws are made chunk by chunk)
ZERO_VARIANCE = 1e-9  # a clustered variance this small a share of V_independent is 0
WILSON = "wilson"
BOOTSTRAP = "item bootstrap (percentile)"


def unescape(text: str) -> str:
    """A CSV text cell as it was before the export kept it from being a formula."""
    return text[1:] if _ESCAPED.match(text) else text


def read_export(path: Path) -> pd.DataFrame:
    frame = pd.read_csv(
        path,
        encoding="utf-8-sig",
        keep_default_na=False,
        na_values={"value": [""], "correct": [""], "sample": [""], "time_ms": [""]},
        dtype={c: str for c in TEXT},
    )
    for col in TEXT:
        frame[col] = frame[col].map(unescape)
    frame["correct"] = frame["correct"].map({"true": 1.0, "false": 0.0, True: 1.0, False: 0.0})
    frame["sample"] = frame["sample"].fillna(0).astype(int)
    frame["key"] = list(zip(frame["rater_kind"], frame["rater"], frame["run"], strict=True))
    return frame


def apply_exclusions(frame: pd.DataFrame, design: dict) -> pd.DataFrame:
    """The report's exclusions: flagged participants (when the study excludes them),
    participants excluded by a researcher or by the frozen plan, attention-check items,
    model samples after the first; and only the report's tasks. Adds ``iid``: the
    item's position in ``design["items"]`` (storage order, as the report orders items)."""
    tasks = {t["slug"] for t in design["tasks"]}
    keep = frame["task"].isin(tasks) & (frame["sample"] == 0)
    checks = {(c["task"], c["item"]) for c in design["attention_check_items"]}
    keep &= ~pd.Series(list(zip(frame["task"], frame["item"], strict=True))).isin(checks).values
    if design["exclude_flagged"]:
        flagged = {(r["rater_kind"], r["rater"], r["run"]) for r in design["flagged_raters"]}
        keep &= ~frame["key"].isin(flagged)
    # participants a researcher excluded, and those the frozen plan's rules leave out
    whole = {(r["rater_kind"], r["rater"], r["run"]) for r in design.get("excluded_raters", [])}
    keep &= ~frame["key"].isin(whole)
    out = frame.loc[keep].reset_index(drop=True)
    rank = {(it["task"], it["item"]): n for n, it in enumerate(design["items"])}
    out["iid"] = [rank[k] for k in zip(out["task"], out["item"], strict=True)]
    out["person"] = pd.factorize(out["key"])[0]
    return out


def rater_sets(frame: pd.DataFrame, group_order: list[str]) -> list[tuple[str, str, set]]:
    """(name, kind, rater keys) of every non-empty rater set, in the report's order."""
    raters = frame.drop_duplicates("key")[["key", "rater_kind", "rater", "run", "group"]]
    out: list[tuple[str, str, set]] = []

    def add(name: str, kind: str, rows: pd.DataFrame) -> None:
        if len(rows):
            out.append((name, kind, set(rows["key"])))

    humans = raters.loc[raters["rater_kind"] == "human"]
    add("humans", "human", humans)
    extra = sorted(set(humans["group"]) - set(group_order) - {""})
    for slug in [*group_order, *extra]:
        add(f"group:{slug}", "human", humans.loc[humans["group"] == slug])
    models = raters.loc[raters["rater_kind"] == "model"]
    add("models", "model", models)
    labels = [
        f"model:{n}@{r}" if r else f"model:{n}"
        for n, r in zip(models["rater"], models["run"], strict=True)
    ]
    models = models.assign(label=labels)
    for label in sorted(set(labels)):
        add(label, "model", models.loc[models["label"] == label])
    rules = raters.loc[raters["rater_kind"] == "rule"]
    for name in sorted(set(rules["rater"])):
        add(f"rule:{name}", "rule", rules.loc[rules["rater"] == name])
    return out


# --- Intervals -------------------------------------------------------------------------


def wilson_bounds(p: float, n: float, crit: float) -> tuple[float, float]:
    """Wilson's score interval of a share p over n answers (n may be fractional)."""
    if not n > 0:
        return NAN, NAN
    c2 = crit * crit
    denom = 1 + c2 / n
    centre = (p + c2 / (2 * n)) / denom
    half = crit / denom * math.sqrt(max(p * (1 - p) / n + c2 / (4 * n * n), 0.0))
    return max(0.0, centre - half), min(1.0, centre + half)


def z_value(confidence: float) -> float:
    return float(stats.norm.ppf((1 + confidence) / 2))


def wilson(successes: int, n: int, confidence: float) -> tuple[float, float]:
    return wilson_bounds(successes / n, n, z_value(confidence)) if n else (NAN, NAN)


def _one_way(u: np.ndarray, codes: np.ndarray, g: int) -> float:
    sums = np.bincount(codes, weights=u, minlength=g)
    return float(g / (g - 1) * np.dot(sums, sums)) if g > 1 else NAN


def cgm_variance(u: np.ndarray, used: dict[str, tuple[np.ndarray, int]], zero: float) -> float:
    """Cameron, Gelbach & Miller (2011, eq. 2.12): V_1 (+ V_2 − V_1∩2 when two
    clusterings), each V_g = G/(G − 1) Σ_clusters (Σ u)²; a two-way V at most ``zero``
    falls back to the larger one-way variance (CGM §2.3)."""
    one = [_one_way(u, c, g) for c, g in used.values()]
    if len(one) == 1:
        return one[0]
    (c1, _), (c2, _) = used.values()
    both = np.unique(c1 * (int(c2.max()) + 1) + c2, return_inverse=True)[1]
    two = sum(one) - _one_way(u, both, int(both.max()) + 1)
    return two if two > zero else max(one)


def pairwise_icc(y: np.ndarray, codes: np.ndarray, g: int) -> float:
    """Mean residual product over pairs of answers sharing a cluster / residual variance."""
    r = y - y.mean()
    total = float(np.dot(r, r) / r.size) if r.size else NAN
    sums = np.bincount(codes, weights=r, minlength=g)
    sizes = np.bincount(codes, minlength=g).astype(np.float64)
    pairs = float(np.dot(sizes, sizes - 1))
    if pairs <= 0 or not total > 0:
        return NAN
    return max(0.0, (float(np.dot(sums, sums)) - float(np.dot(r, r))) / pairs / total)


def clustered_mean(
    y: np.ndarray,
    clusters: dict[str, np.ndarray],
    confidence: float,
    *,
    proportion: bool,
    weights: np.ndarray | None = None,
) -> dict[str, Any]:
    """The (weighted) mean of ``y`` with its cluster-robust interval (docs/statistics.md
    §22): value, ci_low, ci_high, ci_method, design_effect, icc_person, icc_item."""
    y = np.asarray(y, dtype=np.float64)
    w = np.ones_like(y) if weights is None else weights
    n = int(y.size)
    theta = float(np.dot(w, y) / w.sum())
    u = w * (y - theta) / float(w.sum())
    v_ind = float(n / (n - 1) * np.dot(u, u)) if n > 1 else NAN
    coded: dict[str, tuple[np.ndarray, int]] = {}
    for k, labels in clusters.items():
        uniq, inverse = np.unique(labels, return_inverse=True)
        coded[k] = (inverse.astype(np.int64), int(uniq.size))
    used = {k: cg for k, cg in coded.items() if cg[1] > 1}
    icc = {k: pairwise_icc(y, c, g) if g > 1 else NAN for k, (c, g) in coded.items()}
    flat = False
    if not used:
        v, df, label = v_ind, (math.inf if proportion else float(n - 1)), ""
    else:
        zero = ZERO_VARIANCE * v_ind if v_ind > 0 else 0.0
        v = cgm_variance(u, used, zero)
        flat = v_ind > 0 and v <= zero
        v = v_ind if flat else v
        df = float(min(g for _, g in used.values()) - 1)
        label = "+".join(used)
    se = math.sqrt(v) if v >= 0 else NAN
    deff = v / v_ind if v_ind > 0 and not flat else NAN
    out = {
        "value": theta,
        "ci_low": NAN,
        "ci_high": NAN,
        "ci_method": label or "independent answers",
        "design_effect": deff,
        "icc_person": icc.get("person", NAN),
        "icc_item": icc.get("item", icc.get("prompt", NAN)),
    }
    if not df >= 1 or (n < 2 and not (proportion and not used)):
        return out
    q = (1 + confidence) / 2
    crit = float(stats.t.ppf(q, df)) if math.isfinite(df) else float(stats.norm.ppf(q))
    if proportion:
        n_eff = n / deff if math.isfinite(deff) and deff > 0 else float(n)
        out["ci_low"], out["ci_high"] = wilson_bounds(theta, n_eff, crit)
        out["ci_method"] = f"{label}-clustered Wilson (CGM)" if used else "Wilson"
    elif se > 0 and np.ptp(y) != 0:
        out["ci_low"], out["ci_high"] = theta - crit * se, theta + crit * se
        out["ci_method"] = f"{label}-clustered t (CGM)" if used else "t over answers"
    return out


def cluster_labels(
    setting: str, design_items: list[dict], persons: np.ndarray, iids: np.ndarray
) -> dict[str, np.ndarray]:
    """Each answer's cluster per clustering of the ``cluster`` setting; a clustering
    whose every cluster holds one answer is left out (it changes nothing)."""
    out: dict[str, np.ndarray] = {}
    for dim in () if setting == "none" else setting.split("+"):
        if dim == "person":
            codes = np.asarray(persons)
        else:
            column = "unit" if dim == "item" else "prompt"
            codes = np.array([design_items[i][column] for i in iids], dtype=object)
        if len(pd.unique(codes)) < len(codes):
            out[dim] = codes
    return out


def percentile(replicates: np.ndarray, confidence: float) -> tuple[float, float]:
    finite = replicates[np.isfinite(replicates)]
    if finite.size == 0:
        return NAN, NAN
    low, high = np.quantile(finite, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(low), float(high)


def bootstrap_mean(x: np.ndarray, n_boot: int, seed: int, confidence: float) -> tuple:
    """Percentile interval of the mean, resampling the values (the report's draws)."""
    if n_boot <= 0 or x.size < 2:
        return NAN, NAN
    rng = np.random.default_rng(seed)
    out = np.empty(n_boot)
    per_chunk = max(1, CHUNK_CELLS // max(x.size, 1))
    for start in range(0, n_boot, per_chunk):
        size = min(per_chunk, n_boot - start)
        out[start : start + size] = x[rng.integers(0, x.size, size=(size, x.size))].mean(axis=1)
    return percentile(out, confidence)


# --- accuracy ----------------------------------------------------------------------------


def field_order(fields: list[str]) -> list[str]:
    first = [f for f in ("answer", "best", "worst") if f in fields]
    rest = sorted(f for f in fields if f not in first and f != ALL_PARTS)
    return first + rest + ([ALL_PARTS] if ALL_PARTS in fields else [])


def keyed_answers(frame: pd.DataFrame, design: dict) -> pd.DataFrame:
    """One row per keyed answer (task, field, key, person, iid, right), and for tasks
    with several keyed parts one row per (rater, item) with field ``*``."""
    keyed = frame.loc[frame["correct"].notna()]
    cols = ["task", "field", "key", "person", "iid"]
    parts = keyed[cols].assign(right=keyed["correct"].to_numpy())
    wholes = []
    for task in design["tasks"]:
        sub = parts.loc[parts["task"] == task["slug"]]
        if not task["all_parts"] or sub.empty:
            continue
        per_item = sub.groupby(["key", "person", "iid"])["right"].sum().reset_index()
        needed = [task["n_keyed"].get(design["items"][i]["item"]) for i in per_item["iid"]]
        per_item["right"] = (per_item["right"].to_numpy() == np.array(needed)).astype(float)
        wholes.append(per_item.assign(task=task["slug"], field=ALL_PARTS))
    return pd.concat([parts, *wholes], ignore_index=True)


def accuracy(frame: pd.DataFrame, design: dict, sets: list) -> pd.DataFrame:
    answers = keyed_answers(frame, design)
    settings = design["settings"]
    rows = []
    for task in design["tasks"]:
        here = answers.loc[answers["task"] == task["slug"]]
        for fld in field_order(sorted(set(here["field"]))):
            cell = here.loc[here["field"] == fld]
            for name, _kind, keys in sets:
                part = cell.loc[cell["key"].isin(keys)]
                if part.empty:
                    continue
                groups = cluster_labels(
                    settings["cluster"],
                    design["items"],
                    part["person"].to_numpy(),
                    part["iid"].to_numpy(),
                )
                ci = clustered_mean(
                    part["right"].to_numpy(), groups, settings["confidence"], proportion=True
                )
                successes, n = int(part["right"].sum()), len(part)
                rows.append(
                    {
                        "task": task["slug"],
                        "field": fld,
                        "rater_set": name,
                        "n_raters": int(part["key"].nunique()),
                        "n_responses": n,
                        **ci,
                        "value": successes / n,
                        "successes": successes,
                    }
                )
    return pd.DataFrame(rows)


# --- ratings -----------------------------------------------------------------------------


def rating_cells(frame: pd.DataFrame, design: dict) -> list[tuple[str, str, pd.DataFrame]]:
    rated = frame.loc[frame["value"].notna()]
    out = []
    for task in design["tasks"]:
        if task["rating"]:
            for dim in task["dimensions"]:
                cell = rated.loc[(rated["task"] == task["slug"]) & (rated["field"] == dim)]
                if not cell.empty:
                    out.append((task["slug"], dim, cell))
    return out


def rating_row(part: pd.DataFrame, design: dict) -> dict[str, Any]:
    settings = design["settings"]
    how, confidence = settings["ratings_ci"], settings["confidence"]
    means = part.groupby("iid")["value"].mean().to_numpy(dtype=np.float64)
    values = part["value"].to_numpy(dtype=np.float64)
    spread = values if how == "normal" else means
    n = spread.size
    mean, sd = float(spread.mean()), float(spread.std(ddof=1)) if n > 1 else NAN
    extra: dict[str, Any] = {"design_effect": NAN, "icc_person": NAN, "icc_item": NAN}
    low = high = NAN
    method = {
        "t": "t over item means",
        "bootstrap": "item-cluster bootstrap (percentile)",
        "normal": "normal over ratings (mean ± z·SE)",
    }.get(how, "")
    if how in ("t", "normal") and n > 1:
        q = (1 + confidence) / 2
        crit = float(stats.norm.ppf(q) if how == "normal" else stats.t.ppf(q, n - 1))
        low, high = mean - crit * sd / math.sqrt(n), mean + crit * sd / math.sqrt(n)
    elif how == "bootstrap":
        low, high = bootstrap_mean(means, settings["n_boot"], settings["seed"], confidence)
    elif how == "crossed":
        iids = part["iid"].to_numpy()
        _, inverse, counts = np.unique(iids, return_inverse=True, return_counts=True)
        groups = cluster_labels(
            settings["cluster"], design["items"], part["person"].to_numpy(), iids
        )
        ci = clustered_mean(
            values, groups, confidence, proportion=False, weights=1.0 / counts[inverse]
        )
        low, high, method = ci["ci_low"], ci["ci_high"], ci["ci_method"]
        extra = {k: ci[k] for k in extra}
    return {
        "n_items": int(means.size),
        "n_raters": int(part["key"].nunique()),
        "n_ratings": int(values.size),
        "mean": mean,
        "sd": sd,
        "ci_low": low,
        "ci_high": high,
        "ci_method": method,
        **extra,
    }


def ratings(frame: pd.DataFrame, design: dict, sets: list) -> pd.DataFrame:
    rows = []
    for task, dim, cell in rating_cells(frame, design):
        for name, kind, keys in sets:
            part = cell.loc[cell["key"].isin(keys)]
            if kind in ("human", "model") and not part.empty:
                rows.append(
                    {"task": task, "field": dim, "rater_set": name, **rating_row(part, design)}
                )
    return pd.DataFrame(rows)


# --- rule_rates --------------------------------------------------------------------------


def rule_rates(frame: pd.DataFrame, design: dict) -> pd.DataFrame:
    """Per rule × version × metric × source × condition (docs/report.md §4.9)."""
    settings = design["settings"]
    storage = {t["slug"]: t["storage"] for t in design["tasks"]}
    scores = frame.loc[(frame["rater_kind"] == "rule") & frame["value"].notna()]
    # the report reads responses task by task in id order (its bootstrap draws follow)
    scores = scores.assign(_t=scores["task"].map(storage)).sort_values("_t", kind="stable")
    items = design["items"]
    rows = []
    for (rule, version, metric), part in scores.groupby(["rater", "run", "field"], sort=True):
        values_all = part["value"].to_numpy(dtype=np.float64)
        binary = bool(np.isin(values_all, (0.0, 1.0)).all())
        combos = [(items[i]["source"], items[i]["condition"]) for i in part["iid"]]
        cells: dict[tuple, list[int]] = {}
        for pos, combo in enumerate(combos):
            cells.setdefault(combo, []).append(pos)
        for combo in sorted(cells, key=lambda c: tuple((v is None, v or "") for v in c)):
            values = values_all[cells[combo]]
            iids = part["iid"].to_numpy()[cells[combo]]
            groups = cluster_labels(settings["cluster"], items, np.zeros(iids.size), iids)
            groups.pop("person", None)  # one rule rater: its rates are about it
            n = int(values.size)
            row: dict[str, Any] = {
                "rule": rule,
                "version": version,
                "field": metric,
                "source": combo[0],
                "condition": combo[1],
                "n": n,
                "kind": "rate" if binary else "mean",
                "value": float(values.mean()),
                "design_effect": 1.0,
                "icc_person": NAN,
                "icc_item": NAN,
                "successes": int((values == 1.0).sum()) if binary else None,
            }
            if groups:
                ci = clustered_mean(values, groups, settings["confidence"], proportion=binary)
                row.update({k: v for k, v in ci.items() if k != "value"})
            elif binary:
                low, high = wilson(int(row["successes"]), n, settings["confidence"])
                row.update(ci_low=low, ci_high=high, ci_method=WILSON)
            else:
                low, high = bootstrap_mean(
                    values, settings["n_boot"], settings["seed"], settings["confidence"]
                )
                row.update(ci_low=low, ci_high=high, ci_method=BOOTSTRAP)
            rows.append(row)
    table = pd.DataFrame(rows)
    if not table.empty:
        table["successes"] = table["successes"].astype("Int64")  # none for a mean
    return table


# --- validation --------------------------------------------------------------------------

METRICS = ("accuracy", "cohen_kappa", "precision", "recall", "f1", "phi")


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def measures(t: np.ndarray, pos: int | None) -> dict[str, np.ndarray]:
    """Every measure of a stack of confusion matrices (judge rows, reference columns)."""
    n = t.sum(axis=(1, 2))
    diag = np.einsum("bii->bi", t)
    pred, true = t.sum(axis=2), t.sum(axis=1)
    correct = diag.sum(axis=1)
    acc = _div(correct, n)
    p_e = _div((pred * true).sum(axis=1), n * n)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(p_e < 1 - 1e-12, (acc - p_e) / (1 - p_e), np.nan)
    num = correct * n - (pred * true).sum(axis=1)
    den = np.sqrt((n * n - (pred * pred).sum(axis=1)) * (n * n - (true * true).sum(axis=1)))
    prec, rec = _div(diag, pred), _div(diag, true)
    f1 = _div(2 * diag, pred + true)
    if pos is not None:
        p, r, f = prec[:, pos], rec[:, pos], f1[:, pos]
    else:
        used = (pred + true) > 0

        def macro(x: np.ndarray) -> np.ndarray:
            x = np.where(used, x, np.nan)
            ok = np.isfinite(x)
            return _div(np.where(ok, x, 0.0).sum(axis=1), ok.sum(axis=1).astype(float))

        p, r, f = macro(prec), macro(rec), macro(f1)
    return dict(zip(METRICS, (acc, kappa, p, r, f, _div(num, den)), strict=True))


def classify(
    judge: np.ndarray, gold: np.ndarray, iids: np.ndarray, n_options: int, positive: int, s: dict
) -> tuple[int, int, int | None, list[tuple[str, float, float, float, str]]]:
    """(n, n_items, positive or None, [(metric, value, low, high, method)])."""
    judge, gold = judge.astype(np.int64), gold.astype(np.int64)
    k = max(n_options, int(judge.max()) + 1, int(gold.max()) + 1)
    pos = positive if k == 2 else None
    cells = judge * k + gold
    table = np.bincount(cells, minlength=k * k).reshape(1, k, k).astype(float)
    _, cluster = np.unique(iids, return_inverse=True)
    n_items = int(cluster.max()) + 1
    per_item = np.bincount(cluster * k * k + cells, minlength=n_items * k * k)
    per_item = per_item.reshape(n_items, k * k).astype(float)
    boot: dict[str, list[np.ndarray]] = {m: [] for m in METRICS}
    if s["n_boot"] > 0:
        rng = np.random.default_rng(s["seed"])
        per_chunk, done = max(1, CHUNK_CELLS // max(n_items, 1)), 0
        while done < s["n_boot"]:
            size = min(per_chunk, s["n_boot"] - done)
            draws = rng.integers(0, n_items, size=(size, n_items))
            offset = (np.arange(size) * n_items)[:, None]
            weights = np.bincount((draws + offset).ravel(), minlength=size * n_items)
            product = (weights.reshape(size, n_items).astype(float) @ per_item).reshape(-1, k, k)
            for m, v in measures(product, pos).items():
                boot[m].append(v)
            done += size
    point = {m: float(v[0]) for m, v in measures(table, pos).items()}
    n, out = int(judge.size), []
    tp = int(table[0, pos, pos]) if pos is not None else 0
    for m in METRICS:
        counts = None
        if m == "accuracy":
            counts = (int(np.trace(table[0])), n)
        elif pos is not None and m == "precision":
            counts = (tp, int(table[0, pos, :].sum()))
        elif pos is not None and m == "recall":
            counts = (tp, int(table[0, :, pos].sum()))
        if counts is not None:
            out.append((m, point[m], *wilson(*counts, s["confidence"]), WILSON))
        elif s["n_boot"] > 0:
            low, high = percentile(np.concatenate(boot[m]), s["confidence"])
            out.append((m, point[m], low, high, BOOTSTRAP))
        else:
            out.append((m, point[m], NAN, NAN, ""))
    return n, n_items, pos, out


def majority(cell: pd.DataFrame, keys: set) -> pd.Series:
    """iid -> the modal option of the set's responses, where one option has most votes."""
    rows = cell.loc[cell["key"].isin(keys)]
    counts = rows.groupby(["iid", "value"]).size().unstack(fill_value=0)
    if counts.empty:
        return pd.Series(dtype=float)
    top = counts.max(axis=1)
    single = counts.eq(top, axis=0).sum(axis=1) == 1
    return counts.loc[single].idxmax(axis=1).astype(float)


Found = dict[tuple[str, str], tuple[pd.DataFrame, np.ndarray, tuple | None]]


def choice_cells(frame: pd.DataFrame, design: dict) -> Found:
    """(task, field) -> its answers, each answer's keyed option (NaN: none) and the one
    option list every item offers for the field (None when they differ)."""
    items = design["items"]
    answered = frame.loc[frame["value"].notna()]
    found: Found = {}
    for task in design["tasks"]:
        if task["rating"]:
            continue
        here = answered.loc[answered["task"] == task["slug"]]
        for fld, cell in here.groupby("field", sort=True):
            if fld == ALL_PARTS:
                continue
            gold = np.array(
                [(items[i]["answer"] or {}).get(fld, NAN) for i in cell["iid"]], dtype=float
            )
            lists = {tuple(items[i]["choices"].get(fld, ())) or None for i in set(cell["iid"])}
            sig = next(iter(lists)) if len(lists) == 1 and None not in lists else None
            found[(task["slug"], str(fld))] = (cell, gold, sig)
    return found


def validation_scopes(found: Found, slugs: list[str]) -> list[tuple[dict, str, list[str]]]:
    """Per task and field; pooled over the tasks with the same options for a field;
    without each of them when three or more pool (docs/report.md §4.10)."""
    scopes: list[tuple[dict, str, list[str]]] = [
        ({"scope": "task", "task": t, "left_out": None}, fld, [t]) for t, fld in found
    ]
    pools: dict[tuple[str, tuple], list[str]] = {}
    for (t, fld), (_c, _g, sig) in found.items():
        if sig is not None:
            pools.setdefault((fld, sig), []).append(t)
    for (fld, _sig), members in pools.items():
        if len(members) < 2:
            continue
        members = sorted(members, key=slugs.index)
        pooled = {"scope": "pooled", "task": "+".join(members), "left_out": None}
        scopes.append((pooled, fld, members))
        if len(members) >= 3:
            for left in members:
                rest = [t for t in members if t != left]
                where = {"scope": "without", "task": "+".join(rest), "left_out": left}
                scopes.append((where, fld, rest))
    return scopes


def choice_validation(frame: pd.DataFrame, design: dict, sets: list) -> list[dict[str, Any]]:
    s, items = design["settings"], design["items"]
    found = choice_cells(frame, design)
    by_slug = {t["slug"]: t for t in design["tasks"]}
    scopes = validation_scopes(found, list(by_slug))
    judges = [(n, keys) for n, kind, keys in sets if kind != "rule"]
    model_judges = [(n, keys) for n, kind, keys in sets if kind == "model"]
    references = [(n, keys) for n, kind, keys in sets if kind == "human"]
    rows: list[dict[str, Any]] = []
    for scope, fld, members in scopes:
        cell = pd.concat([found[(t, fld)][0] for t in members])
        gold = np.concatenate([found[(t, fld)][1] for t in members])
        sig = found[(members[0], fld)][2]
        n_options = (
            len(sig)
            if sig
            else max(len(items[i]["choices"].get(fld, ())) for i in set(cell["iid"]))
        )
        positive = by_slug[members[0]]["positive"]
        iids, values = cell["iid"].to_numpy(), cell["value"].to_numpy()
        cases = []
        for name, keys in judges:
            mask = cell["key"].isin(keys).to_numpy() & np.isfinite(gold)
            cases.append((name, "key", mask, gold))
        for ref, ref_keys in references:
            modal = pd.concat([majority(found[(t, fld)][0], ref_keys) for t in members])
            ref_gold = modal.reindex(iids).to_numpy(dtype=float)
            for name, keys in model_judges:
                mask = cell["key"].isin(keys).to_numpy() & np.isfinite(ref_gold)
                cases.append((name, f"{ref} majority", mask, ref_gold))
        for judge, reference, mask, target in cases:
            if not mask.any():
                continue
            n, n_items, pos, estimates = classify(
                values[mask], target[mask], iids[mask], n_options, positive, s
            )
            named = None
            if pos is not None:
                named = f"{pos}: {sig[pos]}" if sig and pos < len(sig) else str(pos)
            for metric, value, low, high, method in estimates:
                rows.append(
                    {
                        **scope,
                        "field": fld,
                        "judge": judge,
                        "reference": reference,
                        "generator": None,
                        "positive": named,
                        "average": "binary" if pos is not None else "macro",
                        "metric": metric,
                        "value": value,
                        "ci_low": low,
                        "ci_high": high,
                        "ci_method": method,
                        "n": n,
                        "n_items": n_items,
                    }
                )
    return rows


def fisher(r: float, n: int, numerator: float, lost: int, confidence: float) -> tuple:
    if not math.isfinite(r) or n - lost <= 0:
        return NAN, NAN
    half = z_value(confidence) * math.sqrt(numerator / (n - lost))
    z = math.atanh(r) if abs(r) < 1 else math.copysign(math.inf, r)
    return math.tanh(z - half), math.tanh(z + half)


def paired(x: np.ndarray, y: np.ndarray, confidence: float) -> list[tuple]:
    """(metric, value, low, high, method) of Pearson, Spearman, Kendall, mean_diff."""
    n = int(x.size)
    if n < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        coefs = [NAN, NAN, NAN]
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            coefs = [
                float(np.corrcoef(x, y)[0, 1]),  # Spearman: Pearson of average ranks
                float(np.corrcoef(stats.rankdata(x), stats.rankdata(y))[0, 1]),
                float(stats.kendalltau(x, y).statistic),
            ]
    out = [
        (name, r, *fisher(r, n, num, lost, confidence), "Fisher z")
        for name, r, num, lost in zip(
            ("pearson", "spearman", "kendall"), coefs, (1.0, 1.06, 0.437), (3, 3, 4), strict=True
        )
    ]
    d = x - y
    low = high = NAN
    if n >= 2:
        half = float(stats.t.ppf((1 + confidence) / 2, n - 1)) * d.std(ddof=1) / math.sqrt(n)
        low, high = d.mean() - half, d.mean() + half
    return [*out, ("mean_diff", float(d.mean()), low, high, "t over paired differences")]


def rating_validation(frame: pd.DataFrame, design: dict, sets: list) -> list[dict[str, Any]]:
    confidence, items = design["settings"]["confidence"], design["items"]
    judges = [(n, keys) for n, kind, keys in sets if kind == "model"]
    references = [(n, keys) for n, kind, keys in sets if kind == "human"]
    rows: list[dict[str, Any]] = []
    for task, dim, cell in rating_cells(frame, design):

        def means(keys: set, cell: pd.DataFrame = cell) -> pd.Series:
            return cell.loc[cell["key"].isin(keys)].groupby("iid")["value"].mean()

        ref_means = {name: means(keys) for name, keys in references}
        for judge, keys in judges:
            mine = means(keys)
            for ref, theirs in ref_means.items():
                both = pd.concat([mine, theirs], axis=1, join="inner").dropna()
                if both.empty:
                    continue
                gen = np.array([items[i]["source"] for i in both.index], dtype=object)
                subsets = [("*", np.ones(len(both), dtype=bool))]
                subsets += [(str(g), gen == g) for g in sorted({g for g in gen if g is not None})]
                for name, mask in subsets:
                    pair = both.to_numpy()[mask]
                    for metric, value, low, high, method in paired(
                        pair[:, 0], pair[:, 1], confidence
                    ):
                        rows.append(
                            {
                                "scope": "task",
                                "task": task,
                                "left_out": None,
                                "field": dim,
                                "judge": judge,
                                "reference": f"{ref} mean",
                                "generator": name,
                                "positive": None,
                                "average": None,
                                "metric": metric,
                                "value": value,
                                "ci_low": low,
                                "ci_high": high,
                                "ci_method": method,
                                "n": int(mask.sum()),
                                "n_items": int(mask.sum()),
                            }
                        )
    return rows


def validation(frame: pd.DataFrame, design: dict, sets: list) -> pd.DataFrame:
    return pd.DataFrame(
        choice_validation(frame, design, sets) + rating_validation(frame, design, sets)
    )


TABLES = {
    "accuracy": accuracy,
    "ratings": ratings,
    "rule_rates": lambda frame, design, _sets: rule_rates(frame, design),
    "validation": validation,
}


#: Each table's columns, as the report's CSV heads them: an empty table (a study with no
#: choice task has no accuracy) is written with its header, so that it reads back as an
#: empty table (pandas refuses a file with no header: EmptyDataError).
COLUMNS = {
    "accuracy": "task,field,rater_set,n_raters,n_responses,value,ci_low,ci_high,ci_method,"
    "design_effect,icc_person,icc_item,successes",
    "ratings": "task,field,rater_set,n_items,n_raters,n_ratings,mean,sd,ci_low,ci_high,"
    "ci_method,design_effect,icc_person,icc_item",
    "rule_rates": "rule,version,field,source,condition,n,kind,value,design_effect,icc_person,"
    "icc_item,successes,ci_low,ci_high,ci_method",
    "validation": "scope,task,left_out,field,judge,reference,generator,positive,average,"
    "metric,value,ci_low,ci_high,ci_method,n,n_items",
}


def write_table(table: pd.DataFrame, name: str, path: Path) -> None:
    """``table`` as CSV (UTF-8 with a BOM); an empty one keeps its header."""
    if table.empty and len(table.columns) == 0:
        table = pd.DataFrame(columns=COLUMNS[name].split(","))
    table.to_csv(path, index=False, encoding="utf-8-sig")


def main(folder: Path) -> None:
    design = json.loads((folder / "design.json").read_text(encoding="utf-8"))
    frame = apply_exclusions(read_export(folder / "responses.csv"), design)
    sets = rater_sets(frame, design["groups"])
    if design["settings"].get("by"):
        print(
            f"note: the report was split by {', '.join(design['settings']['by'])}; "
            "these tables are the unsplit ones (recompute.py does not split)",
            file=sys.stderr,
        )
    out = folder / "recomputed"
    out.mkdir(exist_ok=True)
    for name, compute in TABLES.items():
        table = compute(frame, design, sets)
        write_table(table, name, out / f"{name}.csv")
        print(f"{name}: {len(table)} rows -> {out / (name + '.csv')}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent))
