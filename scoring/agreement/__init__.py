"""Agreement statistics for rating studies (pure Python: numpy and scipy).

Percent agreement, Krippendorff's alpha (Krippendorff 2011), Fleiss' kappa
(Fleiss 1971), Cohen's kappa (Cohen 1960, 1968), Gwet's AC1 (Gwet 2008) with
percentile bootstrap CIs over units (Efron & Tibshirani 1993), and the report's
descriptive helpers (Wilson 1927 intervals, means, correlations, percentile
ranks). Definitions and edge cases: docs/statistics.md.
"""

from .alpha import krippendorff_alpha
from .bootstrap import bootstrap_ci
from .categorical import fleiss_kappa, gwet_ac1, percent_agreement
from .coding import parse_cell
from .cohen import agreement_weights, cohen_kappa, kappa_from_table
from .compute import compute_all
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
from .results import METRICS, AgreementResult, ConfidenceInterval
from .table import LEVELS, Level, RatingTable

__all__ = [
    "LEVELS",
    "METRICS",
    "AgreementResult",
    "ConfidenceInterval",
    "Correlation",
    "Level",
    "MeanCI",
    "ProportionCI",
    "RatingTable",
    "agreement_weights",
    "bootstrap_ci",
    "cohen_kappa",
    "compute_all",
    "correlations",
    "fleiss_kappa",
    "gwet_ac1",
    "kappa_from_table",
    "krippendorff_alpha",
    "mean_ci",
    "mean_difference_ci",
    "parse_cell",
    "percent_agreement",
    "percentile_rank",
    "wilson_interval",
]
