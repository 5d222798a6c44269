"""Result records for agreement statistics (formats.md section 5, ``agreement`` table).

One frozen dataclass for every coefficient (Krippendorff 2011; Fleiss 1971;
Cohen 1960, 1968; Gwet 2008; percent agreement) so that a report row is
``result.as_row()``. An undefined coefficient has ``value = nan`` and a
``reason``; it is never an exception.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .analytic import t_interval

Metric = str  # one of registry.METRICS
NAN = math.nan


@dataclass(frozen=True)
class ConfidenceInterval:
    """A percentile-bootstrap interval (Efron & Tibshirani 1993, ch. 13)."""

    low: float
    high: float
    level: float
    n_boot: int
    n_valid: int  # replicates where the statistic was defined
    method: str = "percentile bootstrap, units resampled with replacement"


@dataclass(frozen=True)
class AgreementResult:
    """One coefficient for one rating table.

    ``n_units`` counts the units the coefficient used (for all but Cohen:
    units with two or more ratings; for Cohen: units rated by both raters);
    ``n_raters`` the distinct raters among them; ``n_ratings`` their ratings.
    ``observed`` and ``expected`` are the coefficient's own ingredients:
    p_a and p_e for the kappas and AC1, D_o and D_e for alpha. ``se`` is the
    analytic standard error where Gwet (2014) gives one (NaN elsewhere), with
    ``df`` degrees of freedom and the t interval ``t_low``..``t_high`` beside
    the bootstrap's ``ci_low``..``ci_high``. ``category`` names the category of
    a per-category coefficient.
    """

    metric: Metric
    level: str
    value: float
    n_units: int
    n_raters: int
    n_ratings: int = 0
    observed: float = NAN
    expected: float = NAN
    ci_low: float = NAN
    ci_high: float = NAN
    confidence: float = NAN
    n_boot: int = 0
    n_boot_valid: int = 0
    weights: str | None = None
    reason: str | None = None
    se: float = NAN
    df: int = 0
    t_low: float = NAN
    t_high: float = NAN
    category: str | None = None

    @property
    def defined(self) -> bool:
        return not math.isnan(self.value)

    def with_ci(self, ci: ConfidenceInterval) -> AgreementResult:
        return replace(
            self,
            ci_low=ci.low,
            ci_high=ci.high,
            confidence=ci.level,
            n_boot=ci.n_boot,
            n_boot_valid=ci.n_valid,
        )

    def with_se(self, se: float, df: int) -> AgreementResult:
        """The analytic standard error (Gwet 2014) and its t degrees of freedom."""
        return replace(self, se=se, df=df)

    def with_t(self, confidence: float) -> AgreementResult:
        """The t interval value +- t_(df) se at ``confidence`` (NaN without an SE)."""
        if math.isnan(self.se):
            return self
        low, high = t_interval(self.value, self.se, self.df, confidence)
        return replace(self, t_low=low, t_high=high, confidence=confidence)

    def as_row(self, *, nan_as_none: bool = False) -> dict[str, object]:
        """The formats.md section-5 columns, plus the extra fields.

        ``nan_as_none=True`` turns NaN into None (null in strict JSON).
        """
        row: dict[str, object] = {
            "metric": self.metric,
            "level": self.level,
            "value": self.value,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "n_units": self.n_units,
            "n_raters": self.n_raters,
            "weights": self.weights,
            "n_ratings": self.n_ratings,
            "observed": self.observed,
            "expected": self.expected,
            "confidence": self.confidence,
            "n_boot": self.n_boot,
            "n_boot_valid": self.n_boot_valid,
            "reason": self.reason,
            "se": self.se,
            "t_low": self.t_low,
            "t_high": self.t_high,
            "category": self.category,
        }
        if nan_as_none:
            row = {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()}
        return row


def undefined(
    metric: Metric,
    level: str,
    reason: str,
    *,
    n_units: int = 0,
    n_raters: int = 0,
    n_ratings: int = 0,
    weights: str | None = None,
) -> AgreementResult:
    """A result whose value is NaN, with the reason stated."""
    return AgreementResult(
        metric=metric,
        level=level,
        value=NAN,
        n_units=n_units,
        n_raters=n_raters,
        n_ratings=n_ratings,
        weights=weights,
        reason=reason,
    )
