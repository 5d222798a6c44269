"""The ``ratings`` table: mean rating per rating task × dimension × rater set.

Each item's mean over the set's raters who rated it, then the mean of those item means
(every poem weighs the same), with n items, n raters, n ratings and the sd of the item
means. Interval (``ReportSettings.ratings_ci``):

* ``crossed`` (default): clustered in raters and items as the ``cluster`` setting says
  (``scoring.agreement.crossed``: Cameron, Gelbach & Miller's two-way variance, t with
  min(G) − 1 degrees of freedom): a rater's leniency runs through every poem they rate,
  which the t over item means ignores;
* ``t``: Student's t interval over the item means;
* ``bootstrap``: a percentile bootstrap resampling items (each drawn item brings all its
  ratings: the item-cluster bootstrap; for this statistic the same as resampling the
  item means), ``n_boot`` replicates, seeded;
* ``normal``: CCiV's mean ± z·SE over all the ratings (judges × samples), treating
  ratings as independent: then ``mean`` and ``sd`` are over ratings (equal to the item
  figures' mean when every item has as many ratings).

Split by generator with ``--by source`` (CCiV's quality table, Tang's mean rating per
generating model).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from scoring.agreement import mean_ci
from scoring.agreement.bootstrap import percentile_interval, rng_from
from scoring.agreement.difference import replicate_means
from scoring.report import clusters
from scoring.report.data import StudyData
from scoring.report.sets import RaterSet, by_kind
from scoring.report.settings import ReportSettings

NAN = float("nan")
METHODS = {
    "crossed": "clustered as the cluster setting says",
    "t": "t over item means",
    "bootstrap": "item-cluster bootstrap (percentile)",
    "normal": "normal over ratings (mean ± z·SE)",
}


def rating_cells(data: StudyData) -> list[tuple[str, str, pd.DataFrame]]:
    """(task slug, dimension, its responses with a value) for every rated dimension."""
    frame = data.responses
    frame = frame.loc[frame["value"].notna()]
    cells = frame.groupby(["task", "field"], observed=True).indices
    out = []
    for task in data.tasks.values():
        if not task.is_rating:
            continue
        for dim in (str(d["key"]) for d in task.dimensions):
            idx = cells.get((task.id, dim))
            if idx is not None:
                out.append((task.slug, dim, frame.iloc[idx]))
    return out


def _crossed(data: StudyData, part: pd.DataFrame, opts: ReportSettings) -> dict[str, Any]:
    """The mean of item means (each rating weighted 1 / its item's ratings) with the
    interval clustered in raters and items (``cluster``)."""
    items = part["item"].to_numpy()
    _, inverse, counts = np.unique(items, return_inverse=True, return_counts=True)
    groups = clusters.labels(data, opts.cluster, part["rater"].to_numpy(), items)
    ci = clusters.interval(
        part["value"].to_numpy(dtype=np.float64),
        groups,
        confidence=opts.confidence,
        proportion=False,
        weights=1.0 / counts[inverse],
    )
    return clusters.ci_columns(ci)


def _row(
    data: StudyData,
    task: str,
    dim: str,
    s: RaterSet,
    part: pd.DataFrame,
    opts: ReportSettings,
) -> dict[str, Any]:
    means = part.groupby("item")["value"].mean().to_numpy(dtype=np.float64)
    values = part["value"].to_numpy(dtype=np.float64)
    extra: dict[str, Any] = {"design_effect": NAN, "icc_person": NAN, "icc_item": NAN}
    method = METHODS[opts.ratings_ci]
    if opts.ratings_ci == "normal":
        ci = mean_ci(values.tolist(), confidence=opts.confidence, method="normal")
        mean, sd, low, high = ci.mean, ci.sd, ci.ci_low, ci.ci_high
    else:
        t = mean_ci(means.tolist(), confidence=opts.confidence, method="t")
        mean, sd, low, high = t.mean, t.sd, t.ci_low, t.ci_high
        if opts.ratings_ci == "bootstrap":
            low = high = float("nan")
            if opts.n_boot > 0 and means.size > 1:
                reps = replicate_means(rng_from(opts.seed), means, opts.n_boot)
                ci_b = percentile_interval(reps, opts.confidence, opts.n_boot)
                low, high = ci_b.low, ci_b.high
        if opts.ratings_ci == "crossed":
            crossed = _crossed(data, part, opts)
            low, high, method = (
                crossed.pop("ci_low"),
                crossed.pop("ci_high"),
                crossed.pop("ci_method"),
            )
            extra = crossed
    return {
        "task": task,
        "field": dim,
        "rater_set": s.name,
        "n_items": int(means.size),
        "n_raters": int(part["rater"].nunique()),
        "n_ratings": int(values.size),
        "mean": mean,
        "sd": sd,
        "ci_low": low,
        "ci_high": high,
        "ci_method": method,
        **extra,
    }


def ratings_rows(
    data: StudyData, sets: list[RaterSet], opts: ReportSettings
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    raters = by_kind(sets, "human", "model")
    for task, dim, cell in rating_cells(data):
        rater_col = cell["rater"].to_numpy()
        for s in raters:
            mask = np.isin(rater_col, s.raters)
            if mask.any():
                rows.append(_row(data, task, dim, s, cell.loc[mask], opts))
    return rows
