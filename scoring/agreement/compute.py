"""Every applicable agreement coefficient for one rating table, with bootstrap CIs.

The selection follows domain.md section 2 and formats.md section 5:
percent agreement, Krippendorff's alpha (Krippendorff 2011) at the table's
level, Fleiss' kappa (Fleiss 1971) and Gwet's AC1 (Gwet 2008), which treat
values as categories whatever the level, and Cohen's kappa (Cohen 1960) when
there are exactly two raters, plus its linear and quadratic weighted forms
(Cohen 1968) when the level is ordinal, interval or ratio.
"""

from __future__ import annotations

from .alpha import alpha_plan
from .bootstrap import Seed, with_intervals
from .categorical import categorical_plan
from .cohen import Weights, cohen_plan
from .results import AgreementResult
from .table import RatingTable, check_level


def compute_all(
    table: RatingTable,
    *,
    level: str | None = None,
    n_boot: int = 1000,
    seed: Seed = None,
    confidence: float = 0.95,
) -> list[AgreementResult]:
    """All applicable coefficients, in a fixed order, each with a CI.

    Coefficients that resample the same units share one stream of draws,
    started afresh from an int ``seed`` for each set of units, so each
    interval equals the one its own function gives with that seed (a
    Generator is shared and advances instead). ``n_boot=0`` skips the
    intervals.
    """
    lvl = check_level(level or table.level)
    if lvl != table.level:
        table = table.with_level(lvl)
    plans = [
        categorical_plan(table, "percent_agreement"),
        alpha_plan(table, level=lvl),
        categorical_plan(table, "fleiss_kappa"),
        categorical_plan(table, "gwet_ac1"),
    ]
    if table.n_raters == 2:
        weightings: tuple[Weights, ...] = ("none",)
        if lvl != "nominal":
            weightings = ("none", "linear", "quadratic")
        plans += [cohen_plan(table, weights=weights) for weights in weightings]
    # Coefficients over the same units share one pass of resampling.
    return with_intervals(plans, n_boot=n_boot, confidence=confidence, seed=seed)
