"""The ``form_length`` table: per form, a rate or an accuracy against the form's length.

A form's length is its number of characters: a cipai's standard form
(``scoring.prosody`` templates, CCiV's ``longyusheng_template[0]``; aliases resolved),
20 / 28 / 40 / 56 for 五绝 / 七绝 / 五律 / 七律; other forms (couplets) have none and stay
out. Measures:

* each stored rule metric (``rule:<name>/<metric>``, per version) per poem source ×
  prompt condition, per prompt condition over every source (``source`` ``*``), and
  pooled over every poem (``source`` and ``condition`` ``*``): the rate or mean per form
  as in ``rule_rates`` (Wilson / item bootstrap);
* the accuracy of each rater set on each choice task's headline field whose items have
  a form (Wilson).

Rows with ``statistic`` ``rate``, ``mean`` or ``accuracy`` are the per-form points;
one row with ``form`` ``*`` and ``statistic`` ``spearman`` per measure gives Spearman's
rho between the per-form values and the lengths over the forms (``n`` = forms), scipy's
p-value and a Fisher-z interval (``scoring.agreement.paired``); fewer than three forms:
no rho (``reason``). CCiV reports rho = −0.36 between per-cipai accuracy and length.
"""

from __future__ import annotations

import warnings
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from scoring.agreement import wilson_interval
from scoring.agreement.paired import FISHER, fisher_interval
from scoring.prosody import resolve_cipai
from scoring.prosody.templates import load_cipai
from scoring.report.data import StudyData
from scoring.report.rule_rates import estimate, is_binary, rule_frame
from scoring.report.sets import RaterSet, by_kind
from scoring.report.settings import ReportSettings
from scoring.report.splits import combination_codes, item_labels, order
from studies.kinds import KINDS

SHI_LENGTHS = {"shi:jueju5": 20, "shi:jueju7": 28, "shi:lushi5": 40, "shi:lushi7": 56}
MIN_FORMS = 3


@lru_cache(maxsize=1024)
def form_chars(form: str | None) -> int | None:
    """Characters of a form's standard template, or None when it has no fixed length."""
    if not form:
        return None
    if form in SHI_LENGTHS:
        return SHI_LENGTHS[form]
    if form.startswith("ci:"):
        name = form[3:]
        cipai = load_cipai(resolve_cipai(name) or name)
        return cipai.standard.total if cipai is not None else None
    return None


def _summary(
    base: dict[str, Any], points: list[dict[str, Any]], opts: ReportSettings
) -> dict[str, Any]:
    x = np.asarray([p["length"] for p in points], dtype=np.float64)
    y = np.asarray([p["value"] for p in points], dtype=np.float64)
    ok = np.isfinite(y)
    x, y = x[ok], y[ok]
    n = int(x.size)
    rho = p_value = low = high = float("nan")
    reason = None
    if n < MIN_FORMS:
        reason = f"fewer than {MIN_FORMS} forms with a length ({n})"
    elif np.ptp(x) == 0 or np.ptp(y) == 0:
        reason = "constant lengths or values: rho is 0/0"
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = stats.spearmanr(x, y)
        rho, p_value = float(result.statistic), float(result.pvalue)
        low, high = fisher_interval(rho, n, "spearman", opts.confidence)
    return {
        **base,
        "form": "*",
        "length": None,
        "statistic": "spearman",
        "value": rho,
        "ci_low": low,
        "ci_high": high,
        "ci_method": FISHER if reason is None else "",
        "n": n,
        "p_value": p_value,
        "reason": reason,
    }


def _measure_rows(
    base: dict[str, Any], per_form: dict[str, dict[str, Any]], opts: ReportSettings
) -> list[dict[str, Any]]:
    points = []
    for form in sorted(per_form):
        length = form_chars(form)
        if length is None:
            continue
        points.append(
            {
                **base,
                "form": form,
                "length": length,
                **per_form[form],
                "p_value": None,
                "reason": None,
            }
        )
    if not points:
        return []
    return [*points, _summary(base, points, opts)]


def _rule_rows(data: StudyData, opts: ReportSettings) -> list[dict[str, Any]]:
    scores = rule_frame(data)
    if scores.empty:
        return []
    labels = item_labels(data, ["source", "condition"]).reindex(scores["item"].to_numpy())
    codes, combos = combination_codes(labels)
    scores["combo"] = codes
    scores["form"] = data.items["form"].reindex(scores["item"].to_numpy()).to_numpy()
    rows: list[dict[str, Any]] = []
    for (rule, version, metric), part in scores.groupby(["rule", "version", "field"], sort=True):
        binary = is_binary(part["value"].to_numpy())
        for src, cond, sub in _groups(part, combos):
            per_form = {}
            for form, cell in sub.groupby("form", sort=True):
                per_form[str(form)] = _as_point(estimate(cell["value"].to_numpy(), binary, opts))
            base = {
                "measure": f"rule:{rule}/{metric}",
                "version": version,
                "rater_set": None,
                "source": src,
                "condition": cond,
            }
            rows += _measure_rows(base, per_form, opts)
    return rows


def _groups(
    part: pd.DataFrame, combos: dict[int, tuple[Any, ...]]
) -> list[tuple[Any, Any, pd.DataFrame]]:
    """The poems a rule metric's rows are computed on: all (``*``, ``*``), each prompt
    condition over every source (``*``, condition: CCiV's direct-only rho), each source ×
    condition."""
    groups: list[tuple[Any, Any, pd.DataFrame]] = [("*", "*", part)]
    conditions = np.asarray([combos[c][1] for c in part["combo"].to_numpy()], dtype=object)
    for cond in sorted(set(conditions.tolist()), key=lambda c: order((c,))):
        groups.append(("*", cond, part.loc[conditions == cond]))
    cells = part.groupby("combo", sort=False).indices
    for code in sorted(cells, key=lambda c: order(combos[c])):
        src, cond = combos[code]
        groups.append((src, cond, part.iloc[cells[code]]))
    return groups


def _as_point(e: dict[str, Any]) -> dict[str, Any]:
    return {
        "statistic": e["kind"],
        "value": e["value"],
        "ci_low": e["ci_low"],
        "ci_high": e["ci_high"],
        "ci_method": e["ci_method"],
        "n": e["n"],
    }


def _accuracy_rows(
    data: StudyData, sets: list[RaterSet], opts: ReportSettings
) -> list[dict[str, Any]]:
    frame = data.responses
    frame = frame.loc[frame["correct"].notna()]
    forms = data.items["form"]
    rows: list[dict[str, Any]] = []
    for task in data.tasks.values():
        headline = KINDS[task.kind].headline
        if headline is None or task.is_rating:
            continue
        fld = headline if headline in ("answer",) else None
        if fld is None:
            continue  # all-parts accuracy is per rater × item: see the accuracy table
        cell = frame.loc[(frame["task"] == task.id) & (frame["field"] == fld)]
        if cell.empty:
            continue
        cell = cell.assign(form=forms.reindex(cell["item"].to_numpy()).to_numpy())
        cell = cell.loc[cell["form"] != ""]
        for s in by_kind(sets, "human", "model"):
            mine = cell.loc[np.isin(cell["rater"].to_numpy(), s.raters)]
            if mine.empty:
                continue
            per_form = {}
            for form, part in mine.groupby("form", sort=True):
                k, n = int(part["correct"].sum()), int(part["correct"].size)
                ci = wilson_interval(k, n, confidence=opts.confidence)
                per_form[str(form)] = {
                    "statistic": "accuracy",
                    "value": ci.value,
                    "ci_low": ci.ci_low,
                    "ci_high": ci.ci_high,
                    "ci_method": "wilson",
                    "n": n,
                }
            base = {
                "measure": f"accuracy:{task.slug}/{fld}",
                "version": None,
                "rater_set": s.name,
                "source": None,
                "condition": None,
            }
            rows += _measure_rows(base, per_form, opts)
    return rows


def form_length_rows(
    data: StudyData, sets: list[RaterSet], opts: ReportSettings
) -> list[dict[str, Any]]:
    return _rule_rows(data, opts) + _accuracy_rows(data, sets, opts)
