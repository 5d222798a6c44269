"""The registry of agreement coefficients: one entry per coefficient and weighting.

``compute_all`` (and through it the report's ``agreement`` table, its files, the
API and the dashboard's pivot, which builds its columns from the rows) takes its
coefficients from here, in this order: a new coefficient reaches the report by
being registered, with no change to the report or its templates (a display name
goes into research/dashboard/labels.py, else the metric's own name is shown).

Each entry says what the coefficient is (``kind``), where it comes from
(``source``; docs/statistics.md has the definitions), when it applies to a table
at a level of measurement, whether ``compute_all`` gives it by default and
whether it carries an analytic standard error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from .alpha import alpha_plan
from .bootstrap import Plan
from .categorical import categorical_plan
from .category import category_plans
from .cohen import cohen_plan
from .conger import conger_plan
from .cronbach import cronbach_plan
from .table import Level, RatingTable
from .weights import WEIGHT_NAMES

Kind = Literal["raw", "chance-corrected", "reliability", "consistency", "per-category"]
Applies = Callable[[RatingTable, Level], bool]


@dataclass(frozen=True)
class Coefficient:
    """One registered coefficient (with one weighting)."""

    metric: str
    weights: str
    kind: Kind
    source: str
    applies: Applies
    plans: Callable[[RatingTable, Level], list[Plan]]
    default: bool = True
    analytic_se: bool = False

    @property
    def key(self) -> str:
        """``metric`` or ``metric:weights`` (how ``compute_all(metrics=...)`` names it)."""
        return self.metric if self.weights == "none" else f"{self.metric}:{self.weights}"


def _always(table: RatingTable, level: Level) -> bool:
    return True


def _two_raters(table: RatingTable, level: Level) -> bool:
    return table.n_raters == 2


def _ordered_two_raters(table: RatingTable, level: Level) -> bool:
    return table.n_raters == 2 and level != "nominal"


def _three_or_more(table: RatingTable, level: Level) -> bool:
    return table.n_raters >= 3


def _ordered(table: RatingTable, level: Level) -> bool:
    return level != "nominal"


def _categorical(metric: str, weights: str = "none") -> Callable[[RatingTable, Level], list[Plan]]:
    return lambda table, level: [categorical_plan(table, metric, weights)]


def _conger(weights: str) -> Callable[[RatingTable, Level], list[Plan]]:
    return lambda table, level: [conger_plan(table, weights)]


def _cohen(weights: str) -> Callable[[RatingTable, Level], list[Plan]]:
    return lambda table, level: [cohen_plan(table, weights=weights)]


GWET_2014 = "Gwet (2014), Handbook of Inter-Rater Reliability, ch. 2-5; irrCAC"

#: Every coefficient, in the report's order. ``default=False``: on request only.
COEFFICIENTS: tuple[Coefficient, ...] = (
    Coefficient(
        "percent_agreement",
        "none",
        "raw",
        GWET_2014,
        _always,
        _categorical("percent_agreement"),
        analytic_se=True,
    ),
    Coefficient(
        "krippendorff_alpha",
        "none",
        "reliability",
        "Krippendorff (2011); SE: " + GWET_2014,
        _always,
        lambda table, level: [alpha_plan(table, level=level)],
        analytic_se=True,  # not at the ordinal level (docs/statistics.md §27)
    ),
    Coefficient(
        "fleiss_kappa",
        "none",
        "chance-corrected",
        "Fleiss (1971); " + GWET_2014,
        _always,
        _categorical("fleiss_kappa"),
        analytic_se=True,
    ),
    Coefficient(
        "gwet_ac1",
        "none",
        "chance-corrected",
        "Gwet (2008); " + GWET_2014,
        _always,
        _categorical("gwet_ac1"),
        analytic_se=True,
    ),
    Coefficient(
        "cohen_kappa", "none", "chance-corrected", "Cohen (1960)", _two_raters, _cohen("none")
    ),
    Coefficient(
        "cohen_kappa",
        "linear",
        "chance-corrected",
        "Cohen (1968)",
        _ordered_two_raters,
        _cohen("linear"),
    ),
    Coefficient(
        "cohen_kappa",
        "quadratic",
        "chance-corrected",
        "Cohen (1968); Fleiss & Cohen (1973)",
        _ordered_two_raters,
        _cohen("quadratic"),
    ),
    Coefficient(
        "brennan_prediger",
        "none",
        "chance-corrected",
        "Brennan & Prediger (1981); " + GWET_2014,
        _always,
        _categorical("brennan_prediger"),
        analytic_se=True,
    ),
    Coefficient(
        "conger_kappa",
        "none",
        "chance-corrected",
        "Conger (1980); " + GWET_2014,
        _three_or_more,
        _conger("none"),
        analytic_se=True,
    ),
    Coefficient(
        "percent_agreement",
        "quadratic",
        "raw",
        GWET_2014,
        _ordered,
        _categorical("percent_agreement", "quadratic"),
        analytic_se=True,
    ),
    Coefficient(
        "fleiss_kappa",
        "quadratic",
        "chance-corrected",
        GWET_2014,
        _ordered,
        _categorical("fleiss_kappa", "quadratic"),
        analytic_se=True,
    ),
    Coefficient(
        "gwet_ac2",
        "quadratic",
        "chance-corrected",
        GWET_2014,
        _ordered,
        _categorical("gwet_ac2", "quadratic"),
        analytic_se=True,
    ),
    Coefficient(
        "cronbach_alpha",
        "none",
        "consistency",
        "Cronbach (1951)",
        _ordered,
        lambda table, level: [cronbach_plan(table, "raters")],
    ),
    Coefficient(
        "fleiss_category_kappa",
        "none",
        "per-category",
        "Fleiss (1971), eq. 9-10",
        _always,
        lambda table, level: category_plans(table),
        default=False,
    ),
)
_WEIGHTED: tuple[tuple[str, Kind], ...] = (
    ("percent_agreement", "raw"),
    ("fleiss_kappa", "chance-corrected"),
    ("gwet_ac2", "chance-corrected"),
    ("brennan_prediger", "chance-corrected"),
    ("conger_kappa", "chance-corrected"),
)
_ON_REQUEST = tuple(
    Coefficient(
        metric,
        weights,
        kind,
        GWET_2014,
        _ordered if weights != "none" else _always,
        _categorical(metric, weights) if metric != "conger_kappa" else _conger(weights),
        default=False,
        analytic_se=True,
    )
    for metric, kind in _WEIGHTED
    for weights in WEIGHT_NAMES[1:]
    if (metric, weights) not in {(c.metric, c.weights) for c in COEFFICIENTS}
)
_COHEN_MORE = tuple(
    Coefficient(
        "cohen_kappa",
        weights,
        "chance-corrected",
        "Cohen (1968); " + GWET_2014,
        _ordered_two_raters,
        _cohen(weights),
        default=False,
    )
    for weights in WEIGHT_NAMES[3:]
)
COEFFICIENTS = COEFFICIENTS + _ON_REQUEST + _COHEN_MORE
#: Registered metric names, in order.
METRICS: tuple[str, ...] = tuple(dict.fromkeys(c.metric for c in COEFFICIENTS))
#: Registered keys (``metric`` or ``metric:weights``).
KEYS: tuple[str, ...] = tuple(c.key for c in COEFFICIENTS)


def selected(table: RatingTable, level: Level, metrics: tuple[str, ...] | None) -> list[Plan]:
    """The plans of the default coefficients (or of ``metrics``) that apply to ``table``."""
    if metrics is not None:
        unknown = sorted(set(metrics) - set(KEYS))
        if unknown:
            raise ValueError(f"unknown coefficient(s) {unknown}; registered: {', '.join(KEYS)}")
    chosen = [
        c
        for c in COEFFICIENTS
        if (c.default if metrics is None else c.key in metrics) and c.applies(table, level)
    ]
    return [plan for c in chosen for plan in c.plans(table, level)]
