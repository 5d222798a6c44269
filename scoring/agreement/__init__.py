"""Agreement statistics for rating studies (pure Python: numpy and scipy).

Percent agreement, Krippendorff's alpha (Krippendorff 2011), Fleiss' kappa
(Fleiss 1971) and its per-category kappas, Cohen's kappa (Cohen 1960, 1968),
Conger's kappa (Conger 1980), Gwet's AC1/AC2 (Gwet 2008, 2014),
Brennan-Prediger (1981) and Cronbach's alpha (Cronbach 1951), weighted with
Gwet's (2014) weight family, with percentile bootstrap CIs over units (Efron &
Tibshirani 1993) and Gwet's analytic standard errors; the registry of
coefficients (registry.py) that ``compute_all`` and the report read; and the
report's descriptive helpers (Wilson 1927 intervals, means, correlations,
percentile ranks). Definitions and edge cases: docs/statistics.md.
"""

from .alpha import krippendorff_alpha
from .bootstrap import bootstrap_ci
from .categorical import brennan_prediger, fleiss_kappa, gwet_ac1, gwet_ac2, percent_agreement
from .category import fleiss_category_kappa
from .coding import parse_cell
from .cohen import agreement_weights, cohen_kappa, kappa_from_table
from .compute import compute_all
from .conger import conger_kappa
from .cronbach import cronbach_alpha
from .describe import (
    Correlation,
    MeanCI,
    ProportionCI,
    correlations,
    mean_ci,
    mean_difference_ci,
    percentile_rank,
    wilson_interval,
)
from .registry import COEFFICIENTS, METRICS, Coefficient
from .results import AgreementResult, ConfidenceInterval
from .table import LEVELS, Level, RatingTable
from .weights import WEIGHT_NAMES, weight_matrix

__all__ = [
    "COEFFICIENTS",
    "LEVELS",
    "METRICS",
    "WEIGHT_NAMES",
    "AgreementResult",
    "Coefficient",
    "ConfidenceInterval",
    "Correlation",
    "Level",
    "MeanCI",
    "ProportionCI",
    "RatingTable",
    "agreement_weights",
    "bootstrap_ci",
    "brennan_prediger",
    "cohen_kappa",
    "compute_all",
    "conger_kappa",
    "correlations",
    "cronbach_alpha",
    "fleiss_category_kappa",
    "fleiss_kappa",
    "gwet_ac1",
    "gwet_ac2",
    "kappa_from_table",
    "krippendorff_alpha",
    "mean_ci",
    "mean_difference_ci",
    "parse_cell",
    "percent_agreement",
    "percentile_rank",
    "weight_matrix",
    "wilson_interval",
]
