"""The ``abilities`` table: people and models on one IRT ability scale (``scoring.agreement.irt``).

One fit per keyed task, and one over every keyed task together (``task = *``) when the
study has more than one. Units are keyed question parts (item × field); every rater
with keyed answers (people and models together) is a respondent. Both the 1PL and the
2PL model are fitted (``irt`` column). Rows (``summary``):

* ``fit``: respondents and units used, marginal log-likelihood, AIC, BIC, whether the
  optimiser converged;
* ``left_out``: what the fit could not use and why — respondents with fewer than
  ``MIN_RESPONSES`` keyed answers, units everyone used got right (or wrong) or that fewer
  than 2 answered (the list is in ``what``, at most ``LIST_LIMIT`` names);
* ``rater``: each respondent's ability (EAP) and its standard error (posterior SD),
  with their number of answers and share right; ``rater_set`` is the group or model;
* ``model_percentile``: each model's ability beside each human set and the set's median;
  ``percentile``: the model's percentile among the set's population from
  ``PV_DRAWS`` plausible values (Mislevy 1991: draws from every ability's posterior,
  the members resampled in each draw; ``scoring.agreement.irt.percentile_interval``)
  with its interval ``pct_low``–``pct_high`` (measurement error and the group's
  sampling error); ``percentile_eap``: the mid-rank among the members' EAPs (which
  shrink short tests toward the mean: the old number, kept for comparison);
* ``distribution``: each rater set's abilities: n, mean, sd, min, quartiles, max;
* ``item``: each unit's difficulty and discrimination, and its fit: ``outfit`` and
  ``infit`` mean squares at the EAP abilities (Wright & Masters 1982; expectation 1,
  above ~1.5 noisier than the model, e.g. a mis-keyed or ambiguous item), and Orlando &
  Thissen's (2000) summed-score ``sx2`` with ``sx2_df`` and ``sx2_p``, within each
  booklet (set of answered units) of 50 or more respondents and summed over the booklets
  (``scoring.agreement.itemfit``; NaN with the ``reason`` for a unit in none).

Abilities are on the N(0, 1) scale of the fitted population (people and models
together): comparable within one fit, not between fits.

**Warm starts** (``FitStarts``): the dashboard's heavy-table job passes a store of each
task's last fits (``scoring.report.service.IrtStarts``, per study and task, not per
data fingerprint); a fit of the same units (item × field, in the same order) starts
from the previous 1PL and 2PL instead of the cold start, and stops by the same rule
(``irt.STOP_SE``), so after a few new answers it takes few evaluations and lands within
that tolerance of the cold fit (tests/agreement/test_irt_warm.py). Any other unit set
(items added or removed) starts cold. The CLI builds without a store: always cold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pandas as pd

from scoring.agreement import percentile_rank
from scoring.agreement.irt import (
    Abilities,
    ItemFit,
    PercentileGroup,
    Responses,
    abilities_eap,
    fit_1pl,
    fit_2pl,
    mean_squares,
    plausible_values,
)
from scoring.agreement.itemfit import s_x2
from scoring.report.data import StudyData, TaskInfo
from scoring.report.sets import HUMANS, RaterSet, groups_of, model_label, single_models
from scoring.report.settings import SEED


@dataclass(frozen=True)
class PreviousFits:
    """A task's last fits, with the units they are of (item id, field), in order."""

    units: tuple[tuple[int, str], ...]
    fits: dict[str, ItemFit]  # by model: "1pl", "2pl"


class FitStarts(Protocol):
    """Where the last fits of each task are kept between reports (warm starts)."""

    def get(self, task: str) -> PreviousFits | None: ...

    def put(self, task: str, fits: PreviousFits) -> None: ...


MIN_RESPONSES = 5
LIST_LIMIT = 20
PV_DRAWS = 1000  # plausible values per respondent for the model percentiles
#: EAPs equal to this many decimals are ties for ``percentile_eap`` (a mid-rank): under
#: the 1PL two patterns with the same score on the same units have the same EAP, which
#: the floating-point sums give only up to rounding (a warm start or another order of
#: the same sums would otherwise turn a tie into a rank of 0 or 100)
TIE_DIGITS = 9
# answers (unit, respondent cells) a fit may use: its cost grows with the respondents and
# the fine nodes, hardly with the answers or the empty cells of units × respondents; on the
# 1,000,000-response bench study (6,855 respondents) 70,000, 141,000 and 212,000 answers
# each took ~28 s of CPU under load; its 493,000-answer `*` fit stays out
# (docs/performance.md, "Why the report job misses 30 s")
MAX_ANSWERS = 250_000
COLUMNS = (
    "task",
    "irt",
    "summary",
    "rater_set",
    "rater",
    "item",
    "field",
    "ability",
    "se",
    "n",
    "accuracy",
    "percentile",
    "pct_low",
    "pct_high",
    "percentile_eap",
    "median",
    "mean",
    "sd",
    "min",
    "p25",
    "p75",
    "max",
    "difficulty",
    "discrimination",
    "outfit",
    "infit",
    "sx2",
    "sx2_df",
    "sx2_p",
    "n_raters",
    "n_units",
    "loglik",
    "aic",
    "bic",
    "converged",
    "what",
    "reason",
)


def _keyed(data: StudyData, task_ids: list[int]) -> pd.DataFrame:
    frame = data.responses
    part = frame.loc[frame["task"].isin(task_ids) & frame["correct"].notna()]
    part = part.loc[part["value"].notna() & (part["field"] != "*")]
    return part[["item", "field", "rater", "correct"]].astype({"field": str})


def _prune(part: pd.DataFrame) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """Drop sparse respondents and uninformative units until none is left to drop."""
    notes: dict[str, set[str]] = {}
    while True:
        counts = part.groupby("rater")["correct"].transform("size")
        few = part.loc[counts < MIN_RESPONSES, "rater"].unique()
        unit = part.groupby(["item", "field"])["correct"]
        mean, size = unit.transform("mean"), unit.transform("size")
        flat = (mean == 1) | (mean == 0) | (size < 2)
        if not len(few) and not flat.any():
            return part, [{"kind": k, "names": sorted(v)} for k, v in notes.items()]
        for kind, rows in (
            ("all_right", part.loc[flat & (mean == 1) & (size >= 2)]),
            ("all_wrong", part.loc[flat & (mean == 0) & (size >= 2)]),
            ("one_answer", part.loc[size < 2]),
        ):
            notes.setdefault(kind, set()).update(
                f"{i}:{f}" for i, f in zip(rows["item"], rows["field"], strict=True)
            )
        notes.setdefault("few", set()).update(str(r) for r in few)
        part = part.loc[~flat & ~part["rater"].isin(few)]


def _unit_label(ext: pd.Series, key: str) -> str:
    item, _, fld = key.partition(":")
    return f"{ext.get(int(item), item)}:{fld}"


REASONS = {
    "few": f"respondents with fewer than {MIN_RESPONSES} keyed answers",
    "all_right": "units every respondent got right",
    "all_wrong": "units every respondent got wrong",
    "one_answer": "units fewer than 2 respondents answered",
}


def _labels(data: StudyData) -> tuple[dict[int, str], dict[int, str]]:
    r = data.raters
    name, sets = {}, {}
    for pk, kind, n, run, group in zip(
        r.index, r["kind"], r["name"], r["run"], r["group"], strict=True
    ):
        label = model_label(str(n), str(run)) if kind == "model" else str(n)
        name[int(pk)] = label.removeprefix("model:")
        sets[int(pk)] = label if kind == "model" else (f"group:{group}" if group else kind)
    return name, sets


def _describe(values: np.ndarray) -> dict[str, Any]:
    if values.size == 0:
        return {"n": 0}
    q = np.percentile(values, [25, 50, 75])
    return {
        "n": int(values.size),
        "mean": float(values.mean()),
        "sd": float(values.std(ddof=1)) if values.size > 1 else float("nan"),
        "min": float(values.min()),
        "p25": float(q[0]),
        "median": float(q[1]),
        "p75": float(q[2]),
        "max": float(values.max()),
    }


def _fit_rows(
    slug: str,
    part: pd.DataFrame,
    data: StudyData,
    sets: list[RaterSet],
    starts: FitStarts | None = None,
) -> list[dict[str, Any]]:
    base = {"task": slug}
    part, notes = _prune(part)
    names, set_of = _labels(data)
    rows: list[dict[str, Any]] = []
    for note in notes:
        if note["names"]:
            shown = note["names"]
            if note["kind"] == "few":
                shown = sorted(names.get(int(n), n) for n in shown)
            else:
                ext = data.items["external_id"]
                shown = sorted(_unit_label(ext, n) for n in shown)
            more = f" (+{len(shown) - LIST_LIMIT} more)" if len(shown) > LIST_LIMIT else ""
            rows.append(
                {
                    **base,
                    "summary": "left_out",
                    "n": len(shown),
                    "what": ", ".join(map(str, shown[:LIST_LIMIT])) + more,
                    "reason": REASONS[note["kind"]],
                }
            )
    units = part[["item", "field"]].drop_duplicates().sort_values(["item", "field"])
    raters = np.sort(part["rater"].unique())
    if len(units) < 2 or raters.size < 2:
        why = f"{len(units)} informative units and {raters.size} respondents: need 2 of each"
        return [*rows, {**base, "summary": "fit", "reason": why}]
    if len(part) > MAX_ANSWERS:
        why = (
            f"{len(part):,} answers ({len(units)} units × {raters.size} respondents) exceed "
            f"{MAX_ANSWERS:,}: fit one task at a time (the report's tasks setting)"
        )
        return [*rows, {**base, "summary": "fit", "reason": why}]
    # one answer per unit and respondent (a repeated answer: the last, as the matrix had)
    part = part.drop_duplicates(["item", "field", "rater"], keep="last")
    u_index = pd.MultiIndex.from_frame(units)
    ui = u_index.get_indexer(pd.MultiIndex.from_frame(part[["item", "field"]]))
    ri = np.searchsorted(raters, part["rater"].to_numpy())
    matrix = Responses.from_cells(
        ui, ri, part["correct"].to_numpy(dtype=np.int64), (len(units), raters.size)
    )
    n_answers = matrix.per_person()
    accuracy = matrix.per_person(matrix.right) / n_answers
    one, two = _fits(slug, matrix, units, starts)
    ext = data.items["external_id"]
    for fit in (one, two):
        ab = abilities_eap(matrix, fit)
        rows += _one_fit(base, fit, ab, matrix, raters, names, set_of, n_answers, accuracy, sets)
        ms = mean_squares(matrix, fit, ab.theta)
        sx = s_x2(matrix, fit)
        for k, ((item, fld), b, a) in enumerate(
            zip(units.itertuples(index=False), fit.difficulty, fit.discrimination, strict=True)
        ):
            rows.append(
                {
                    **base,
                    "irt": fit.model,
                    "summary": "item",
                    "item": ext.get(int(item), item),
                    "field": fld,
                    "difficulty": float(b),
                    "discrimination": float(a),
                    "outfit": float(ms.outfit[k]),
                    "infit": float(ms.infit[k]),
                    "sx2": float(sx.statistic[k]),
                    "sx2_df": float(sx.df[k]),
                    "sx2_p": float(sx.p_value[k]),
                    "n": int(ms.n[k]),
                    "reason": sx.reasons[k] if sx.reasons else sx.reason,
                }
            )
    return rows


def _fits(
    slug: str, matrix: Responses, units: pd.DataFrame, starts: FitStarts | None
) -> tuple[ItemFit, ItemFit]:
    """The 1PL and 2PL fits: warm from the task's previous fits when they are of the
    same units (module doc), else cold (the 2PL from the 1PL); kept for the next."""
    keys = tuple((int(i), str(f)) for i, f in units.itertuples(index=False))
    previous = starts.get(slug) if starts is not None else None
    warm = previous.fits if previous is not None and previous.units == keys else {}
    one = fit_1pl(matrix, start=warm.get("1pl"))
    two = fit_2pl(matrix, start=warm.get("2pl", one))
    if starts is not None:
        starts.put(slug, PreviousFits(keys, {"1pl": one, "2pl": two}))
    return one, two


def _one_fit(
    base: dict[str, Any],
    fit: ItemFit,
    ab: Abilities,
    matrix: Responses,
    raters: np.ndarray,
    names: dict[int, str],
    set_of: dict[int, str],
    n_answers: np.ndarray,
    accuracy: np.ndarray,
    sets: list[RaterSet],
) -> list[dict[str, Any]]:
    here = {**base, "irt": fit.model}
    rows: list[dict[str, Any]] = [
        {
            **here,
            "summary": "fit",
            "n_raters": int(raters.size),
            "n_units": matrix.n_units,
            "loglik": fit.loglik,
            "aic": fit.aic(),
            "bic": fit.bic(int(raters.size)),
            "converged": fit.converged,
            "reason": None if fit.converged else fit.message,
        }
    ]
    for k, pk in enumerate(raters.tolist()):
        rows.append(
            {
                **here,
                "summary": "rater",
                "rater_set": set_of[pk],
                "rater": names[pk],
                "ability": float(ab.theta[k]),
                "se": float(ab.se[k]),
                "n": int(n_answers[k]),
                "accuracy": float(accuracy[k]),
            }
        )
    theta = dict(zip(raters.tolist(), ab.theta.tolist(), strict=True))
    humans = [s for s in sets if s.name == HUMANS] + groups_of(sets)
    chosen = humans + [s for s in sets if s.kind == "model"]
    values = {
        s.name: np.asarray([theta[r] for r in s.raters.tolist() if r in theta]) for s in chosen
    }
    for s in chosen:
        if values[s.name].size:
            rows.append(
                {
                    **here,
                    "summary": "distribution",
                    "rater_set": s.name,
                    **_describe(values[s.name]),
                }
            )
    index = {pk: k for k, pk in enumerate(raters.tolist())}
    pv = plausible_values(ab, PV_DRAWS, SEED)
    among = {  # each human set's draws, resampled once for every model placed among them
        h.name: PercentileGroup.of(
            pv[:, [index[r] for r in h.raters.tolist() if r in index]], seed=SEED
        )
        for h in humans
        if values[h.name].size
    }
    for m in single_models(sets):
        for pk in (r for r in m.raters.tolist() if r in theta):
            for h in humans:
                if values[h.name].size:
                    pct = among[h.name].interval(pv[:, index[pk]])
                    rows.append(
                        {
                            **here,
                            "summary": "model_percentile",
                            "rater_set": h.name,
                            "rater": names[pk],
                            "ability": theta[pk],
                            "se": float(ab.se[index[pk]]),
                            "percentile": pct.value,
                            "pct_low": pct.low,
                            "pct_high": pct.high,
                            "percentile_eap": percentile_rank(
                                round(theta[pk], TIE_DIGITS),
                                np.round(values[h.name], TIE_DIGITS).tolist(),
                            ),
                            "median": float(np.median(values[h.name])),
                            "n": int(values[h.name].size),
                        }
                    )
    return rows


def ability_rows(
    data: StudyData, sets: list[RaterSet], starts: FitStarts | None = None
) -> list[dict[str, Any]]:
    """The table's rows; ``starts``: the tasks' previous fits, to warm-start from."""
    keyed: list[TaskInfo] = []
    rows: list[dict[str, Any]] = []
    for task in data.tasks.values():
        if task.is_rating:
            continue
        part = _keyed(data, [task.id])
        if part.empty:
            continue
        keyed.append(task)
        rows += _fit_rows(task.slug, part, data, sets, starts)
    if len(keyed) > 1:
        rows += _fit_rows("*", _keyed(data, [t.id for t in keyed]), data, sets, starts)
    return rows
