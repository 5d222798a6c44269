"""Every applicable agreement coefficient for one rating table, with bootstrap CIs.

The coefficients and their order come from the registry (registry.py). By
default (domain.md section 2, formats.md section 5): percent agreement,
Krippendorff's alpha (Krippendorff 2011) at the table's level, Fleiss' kappa
(Fleiss 1971), Gwet's AC1 (Gwet 2008) and Brennan-Prediger (1981), which treat
values as categories whatever the level; Cohen's kappa (Cohen 1960) when there
are exactly two raters, with its linear and quadratic weighted forms (Cohen
1968) at the ordinal, interval and ratio levels; Conger's kappa (Conger 1980)
with three raters or more; and at those levels quadratic-weighted percent
agreement, Fleiss' kappa and Gwet's AC2 (Gwet 2014) and Cronbach's alpha
(Cronbach 1951, raters as items). Per-category kappa and the other weightings
are given on request (``metrics``).
"""

from __future__ import annotations

from .bootstrap import Seed, with_intervals
from .registry import selected
from .results import AgreementResult
from .table import RatingTable, check_level


def compute_all(
    table: RatingTable,
    *,
    level: str | None = None,
    n_boot: int = 1000,
    seed: Seed = None,
    confidence: float = 0.95,
    metrics: tuple[str, ...] | None = None,
) -> list[AgreementResult]:
    """All applicable coefficients, in the registry's order, each with a CI.

    ``metrics`` picks registered coefficients by key (``"gwet_ac2:linear"``,
    ``"fleiss_category_kappa"``…; registry.KEYS lists them) instead of the
    defaults. Coefficients that resample the same units share one stream of
    draws, started afresh from an int ``seed`` for each set of units, so each
    interval equals the one its own function gives with that seed (a Generator
    is shared and advances instead). ``n_boot=0`` skips the bootstrap; the
    analytic standard errors and t intervals are always given where defined.
    """
    lvl = check_level(level or table.level)
    if lvl != table.level:
        table = table.with_level(lvl)
    plans = selected(table, lvl, metrics)
    # Coefficients over the same units share one pass of resampling.
    return with_intervals(plans, n_boot=n_boot, confidence=confidence, seed=seed)
