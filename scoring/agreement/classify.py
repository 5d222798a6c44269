"""A judge's labels against reference labels: accuracy, kappa, precision, recall, F1, phi.

For validating an automatic judge against a gold standard (domain.md §1.4: Fùxì's
evaluator against expert annotation). From the k x k confusion matrix n_ij (judge said
i, reference said j) over n compared labels:

* accuracy = sum_i n_ii / n;
* Cohen's kappa (Cohen 1960), as :mod:`.cohen` with the judge and the reference as the
  two raters;
* for a two-option task, precision = TP / (TP + FP), recall = TP / (TP + FN) and
  F1 = 2 TP / (2 TP + FP + FN) (van Rijsbergen 1979) for the *positive* option;
  otherwise their macro averages over the options used by the judge or the reference
  (scikit-learn's ``average="macro"``), an option whose precision or recall is 0/0
  left out of the average (scikit-learn's ``zero_division=np.nan``);
* phi: Matthews' (1975) correlation, which for two options is Pearson's r of the two
  0/1 "positive" indicators (the phi coefficient), and for k options Gorodkin's (2004)
  R_K, scikit-learn's ``matthews_corrcoef``; 0/0 (a constant side) is NaN.

Intervals: Wilson (1927) score intervals for accuracy and, for two options, precision
and recall (they are proportions of labels); a percentile bootstrap resampling *items*
(clusters of labels: every label given to a drawn item enters with it; Efron &
Tibshirani 1993, ch. 13; Davison & Hinkley 1997, §3.8 for clustered data) for kappa, F1,
phi and macro precision and recall.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .bootstrap import Seed, draw_chunks, draw_weights, percentile_interval, rng_from
from .describe import wilson_interval
from .table import FloatArray, IntArray

NAN = math.nan
METRICS = ("accuracy", "cohen_kappa", "precision", "recall", "f1", "phi")
WILSON = "wilson"
BOOTSTRAP = "item bootstrap (percentile)"


@dataclass(frozen=True)
class Estimate:
    metric: str
    value: float
    ci_low: float
    ci_high: float
    ci_method: str


@dataclass(frozen=True)
class Classification:
    n: int  # labels compared
    n_items: int
    labels: tuple[int, ...]
    positive: int | None  # the positive option of a two-option task, else None (macro)
    estimates: tuple[Estimate, ...]

    def get(self, metric: str) -> Estimate:
        return next(e for e in self.estimates if e.metric == metric)


def _safe_div(num: FloatArray, den: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        out: FloatArray = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out


def measures(tables: FloatArray, positive: int | None) -> dict[str, FloatArray]:
    """Every measure for a stack of B x k x k confusion matrices (judge rows, reference
    columns); ``positive``: the index of the positive option, or None for macro."""
    t = np.asarray(tables, dtype=np.float64)
    n = t.sum(axis=(1, 2))
    diag = np.einsum("bii->bi", t)
    pred = t.sum(axis=2)  # judge's counts per option
    true = t.sum(axis=1)  # reference's counts per option
    correct = diag.sum(axis=1)
    accuracy = _safe_div(correct, n)
    p_e = _safe_div((pred * true).sum(axis=1), n * n)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(p_e < 1 - 1e-12, (accuracy - p_e) / (1 - p_e), np.nan)
    num = correct * n - (pred * true).sum(axis=1)
    den = np.sqrt((n * n - (pred * pred).sum(axis=1)) * (n * n - (true * true).sum(axis=1)))
    phi = _safe_div(num, den)
    fp = pred - diag
    fn = true - diag
    precision_k = _safe_div(diag, pred)
    recall_k = _safe_div(diag, true)
    f1_k = _safe_div(2 * diag, 2 * diag + fp + fn)
    if positive is not None:
        precision, recall, f1 = precision_k[:, positive], recall_k[:, positive], f1_k[:, positive]
    else:
        used = (pred + true) > 0
        precision = _nanmean(np.where(used, precision_k, np.nan))
        recall = _nanmean(np.where(used, recall_k, np.nan))
        f1 = _nanmean(np.where(used, f1_k, np.nan))
    return {
        "accuracy": accuracy,
        "cohen_kappa": kappa,
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "phi": phi,
    }


@dataclass(frozen=True)
class PerClass:
    """Each option's measures as a class (one-vs-rest), from one k x k confusion matrix
    (judge rows, reference columns): ``support`` the reference's count, ``predicted`` the
    judge's, ``tp`` both; precision, recall and F1 NaN where 0/0 (scikit-learn's
    ``precision_recall_fscore_support`` with ``zero_division=np.nan``)."""

    table: IntArray
    support: IntArray
    predicted: IntArray
    tp: IntArray
    precision: FloatArray
    recall: FloatArray
    f1: FloatArray


def per_class(judge: IntArray, reference: IntArray, *, n_options: int) -> PerClass:
    """The confusion matrix and per-class measures of the judge's labels (option indices)
    against the reference's."""
    judge = np.asarray(judge, dtype=np.int64)
    reference = np.asarray(reference, dtype=np.int64)
    k = max(int(n_options), int(judge.max(initial=-1)) + 1, int(reference.max(initial=-1)) + 1)
    table = np.bincount(judge * k + reference, minlength=k * k).reshape(k, k)
    tp = np.diag(table).copy()
    predicted, support = table.sum(axis=1), table.sum(axis=0)
    as_float = tp.astype(np.float64)
    precision = _safe_div(as_float, predicted.astype(np.float64))
    recall = _safe_div(as_float, support.astype(np.float64))
    f1 = _safe_div(2 * as_float, (predicted + support).astype(np.float64))
    return PerClass(table, support, predicted, tp, precision, recall, f1)


def _nanmean(values: FloatArray) -> FloatArray:
    count = np.isfinite(values).sum(axis=1)
    total = np.where(np.isfinite(values), values, 0.0).sum(axis=1)
    return _safe_div(total, count.astype(np.float64))


def classification(
    judge: IntArray,
    reference: IntArray,
    items: IntArray,
    *,
    n_options: int,
    positive: int | None = None,
    n_boot: int = 0,
    confidence: float = 0.95,
    seed: Seed = None,
) -> Classification:
    """The judge's labels (option indices) against the reference's, label by label.

    ``items`` names the item of each label (the resampled cluster). With
    ``n_options == 2`` the measures are for option ``positive`` (default 0);
    otherwise precision, recall and F1 are macro averages.
    """
    return classifications(
        [(judge, reference, items)],
        n_options=n_options,
        positive=positive,
        n_boot=n_boot,
        confidence=confidence,
        seed=seed,
    )[0]


@dataclass
class _Case:
    n: int
    n_items: int
    k: int
    pos: int | None
    labels: tuple[int, ...]
    table: FloatArray  # 1 x k x k
    per_item: FloatArray | None  # n_items x k*k, for the bootstrap
    items_key: bytes


def _case(
    judge: IntArray, reference: IntArray, items: IntArray, n_options: int, positive: int | None
) -> _Case:
    judge = np.asarray(judge, dtype=np.int64)
    reference = np.asarray(reference, dtype=np.int64)
    k = max(int(n_options), int(judge.max(initial=-1)) + 1, int(reference.max(initial=-1)) + 1)
    pos = (0 if positive is None else int(positive)) if k == 2 else None
    labels = tuple(int(v) for v in np.union1d(judge, reference))
    unique, cluster = np.unique(np.asarray(items), return_inverse=True)
    n_items = int(cluster.max(initial=-1)) + 1
    cells = judge * k + reference
    table = np.bincount(cells, minlength=k * k).reshape(1, k, k).astype(np.float64)
    flat = np.bincount(cluster * (k * k) + cells, minlength=n_items * k * k)
    per_item = flat.reshape(n_items, k * k).astype(np.float64)
    key = np.asarray(unique).tobytes() + f"|{k}".encode()
    return _Case(int(judge.size), n_items, k, pos, labels, table, per_item, key)


def classifications(
    cases: list[tuple[IntArray, IntArray, IntArray]],
    *,
    n_options: int,
    positive: int | None = None,
    n_boot: int = 0,
    confidence: float = 0.95,
    seed: Seed = None,
) -> list[Classification]:
    """``classification`` of several (judge, reference, items) cases. Cases on the same
    items share one set of bootstrap draws, the very draws each one's own call makes
    with ``seed`` (so each result equals its own call exactly: the resampled tables are
    sums of whole counts), at the cost of one matrix product for all of them."""
    prepared = [_case(j, r, i, n_options, positive) for j, r, i in cases]
    boots: list[dict[str, FloatArray]] = [{m: np.full(0, NAN) for m in METRICS} for _ in cases]
    if n_boot > 0:
        together: dict[bytes, list[int]] = {}
        for c, case in enumerate(prepared):
            if case.n:
                together.setdefault(case.items_key, []).append(c)
        for members in together.values():
            first = prepared[members[0]]
            k, n_items = first.k, first.n_items
            stacked = np.hstack([prepared[c].per_item for c in members])  # type: ignore[misc]
            chunks: list[dict[str, list[FloatArray]]] = [{m: [] for m in METRICS} for _ in members]
            for draws in draw_chunks(rng_from(seed), n_items, n_boot):
                product = (draw_weights(draws, n_items) @ stacked).reshape(-1, len(members), k, k)
                for slot, c in enumerate(members):
                    for m, values in measures(product[:, slot], prepared[c].pos).items():
                        chunks[slot][m].append(values)
            for slot, c in enumerate(members):
                boots[c] = {m: np.concatenate(v) for m, v in chunks[slot].items()}
    return [
        _result(case, boot, n_boot, confidence) for case, boot in zip(prepared, boots, strict=True)
    ]


def _result(
    case: _Case, boot: dict[str, FloatArray], n_boot: int, confidence: float
) -> Classification:
    n, pos, table = case.n, case.pos, case.table
    if n == 0:
        nan = tuple(Estimate(m, NAN, NAN, NAN, "") for m in METRICS)
        return Classification(0, 0, case.labels, pos, nan)
    point = {m: float(v[0]) for m, v in measures(table, pos).items()}
    estimates = []
    tp = int(table[0, pos, pos]) if pos is not None else 0
    for m in METRICS:
        value = point[m]
        wilson = None
        if m == "accuracy":
            wilson = (int(np.trace(table[0])), n)
        elif pos is not None and m == "precision":
            wilson = (tp, int(table[0, pos, :].sum()))
        elif pos is not None and m == "recall":
            wilson = (tp, int(table[0, :, pos].sum()))
        if wilson is not None:
            ci = wilson_interval(*wilson, confidence=confidence)
            estimates.append(Estimate(m, value, ci.ci_low, ci.ci_high, WILSON))
        elif n_boot > 0:
            ci_b = percentile_interval(boot[m], confidence, n_boot)
            estimates.append(Estimate(m, value, ci_b.low, ci_b.high, BOOTSTRAP))
        else:
            estimates.append(Estimate(m, value, NAN, NAN, ""))
    return Classification(n, case.n_items, case.labels, pos, tuple(estimates))
