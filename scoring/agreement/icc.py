"""Intraclass correlation coefficients for a complete targets × raters table.

Sources: P. E. Shrout & J. L. Fleiss (1979), "Intraclass correlations: uses in assessing
rater reliability", Psychological Bulletin 86(2):420-428 (the six forms ICC(1,1),
ICC(2,1), ICC(3,1) and their k-rater averages, Table 1 and 4; the worked example of 6
targets × 4 judges, Table 2); K. O. McGraw & S. P. Wong (1996), "Forming inferences about
some intraclass correlation coefficients", Psychological Methods 1(1):30-46 (the F-based
confidence intervals, Table 7; their names ICC(1), ICC(A,1), ICC(C,1), ICC(k), ICC(A,k),
ICC(C,k) for the same six forms).

From the two-way ANOVA mean squares of an n × k table with one rating per cell:
MSR (between targets), MSC (between raters), MSE (residual) and MSW (within targets,
the one-way residual).

* ICC(1,1) (one-way random; each target rated by different raters):
  (MSR − MSW) / (MSR + (k−1)·MSW); ICC(1,k) = (MSR − MSW) / MSR.
* ICC(2,1) (two-way random, absolute agreement):
  (MSR − MSE) / (MSR + (k−1)·MSE + k·(MSC − MSE)/n); ICC(2,k) = (MSR − MSE) /
  (MSR + (MSC − MSE)/n).
* ICC(3,1) (two-way mixed, consistency; these raters only):
  (MSR − MSE) / (MSR + (k−1)·MSE); ICC(3,k) = (MSR − MSE) / MSR.

The table must be complete (no missing cell): the report picks a balanced subset first
(``scoring.report.icc``). Checked against ``pingouin.intraclass_corr`` in the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .table import FloatArray

NAN = math.nan
#: (Shrout & Fleiss name, McGraw & Wong name, description), in report order.
FORMS: tuple[tuple[str, str, str], ...] = (
    ("ICC(1,1)", "ICC(1)", "one-way random, single rater"),
    ("ICC(2,1)", "ICC(A,1)", "two-way random, absolute agreement, single rater"),
    ("ICC(3,1)", "ICC(C,1)", "two-way mixed, consistency, single rater"),
    ("ICC(1,k)", "ICC(k)", "one-way random, mean of k raters"),
    ("ICC(2,k)", "ICC(A,k)", "two-way random, absolute agreement, mean of k raters"),
    ("ICC(3,k)", "ICC(C,k)", "two-way mixed, consistency, mean of k raters"),
)


@dataclass(frozen=True)
class ICCResult:
    form: str  # Shrout & Fleiss name, e.g. "ICC(2,1)"
    mcgraw_wong: str  # e.g. "ICC(A,1)"
    description: str
    value: float
    ci_low: float
    ci_high: float
    confidence: float
    f: float  # the F statistic of the test of ICC = 0
    df1: float
    df2: float
    p_value: float
    n_targets: int
    n_raters: int


@dataclass(frozen=True)
class MeanSquares:
    n: int
    k: int
    msr: float
    msc: float
    mse: float
    msw: float


def mean_squares(table: FloatArray) -> MeanSquares:
    """ANOVA mean squares of a complete n × k table (targets in rows, raters in columns)."""
    x = np.asarray(table, dtype=np.float64)
    if x.ndim != 2 or not np.isfinite(x).all():
        raise ValueError("ICC needs a complete 2-d table of numbers (targets × raters)")
    n, k = x.shape
    if n < 2 or k < 2:
        raise ValueError(f"ICC needs at least 2 targets and 2 raters (got {n} × {k})")
    grand = x.mean()
    ss_rows = k * float(((x.mean(axis=1) - grand) ** 2).sum())
    ss_cols = n * float(((x.mean(axis=0) - grand) ** 2).sum())
    ss_total = float(((x - grand) ** 2).sum())
    ss_err = ss_total - ss_rows - ss_cols
    return MeanSquares(
        n=n,
        k=k,
        msr=ss_rows / (n - 1),
        msc=ss_cols / (k - 1),
        mse=ss_err / ((n - 1) * (k - 1)),
        msw=(ss_cols + ss_err) / (n * (k - 1)),
    )


def _fq(q: float, d1: float, d2: float) -> float:
    return float(stats.f.ppf(q, d1, d2))


def icc_all(table: FloatArray, *, confidence: float = 0.95) -> list[ICCResult]:
    """The six ICC forms of ``table`` with F-based intervals (McGraw & Wong 1996, Table 7).

    A coefficient whose denominator vanishes (every rating equal) is NaN.
    """
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    m = mean_squares(table)
    n, k = m.n, m.k
    # numpy scalars: a zero mean square gives inf / NaN bounds, never an exception
    msr, msc, mse, msw = (np.float64(v) for v in (m.msr, m.msc, m.mse, m.msw))
    q = 1 - (1 - confidence) / 2
    df_r, df_e, df_w = n - 1, (n - 1) * (k - 1), n * (k - 1)
    out: dict[str, tuple[float, float, float, float, float, float]] = {}
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # One-way: F = MSR / MSW on (n-1, n(k-1)).
        f1 = msr / msw
        fl, fu = f1 / _fq(q, df_r, df_w), f1 * _fq(q, df_w, df_r)
        out["ICC(1,1)"] = (
            (msr - msw) / (msr + (k - 1) * msw),
            (fl - 1) / (fl + k - 1),
            (fu - 1) / (fu + k - 1),
            f1,
            df_r,
            df_w,
        )
        out["ICC(1,k)"] = ((msr - msw) / msr, 1 - 1 / fl, 1 - 1 / fu, f1, df_r, df_w)

        # Two-way: F = MSR / MSE on (n-1, (n-1)(k-1)).
        f3 = msr / mse
        fl, fu = f3 / _fq(q, df_r, df_e), f3 * _fq(q, df_e, df_r)
        out["ICC(3,1)"] = (
            (msr - mse) / (msr + (k - 1) * mse),
            (fl - 1) / (fl + k - 1),
            (fu - 1) / (fu + k - 1),
            f3,
            df_r,
            df_e,
        )
        out["ICC(3,k)"] = ((msr - mse) / msr, 1 - 1 / fl, 1 - 1 / fu, f3, df_r, df_e)

        # Absolute agreement: Satterthwaite's df (McGraw & Wong 1996, Table 7).
        icc2 = (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)
        icc2k = (msr - mse) / (msr + (msc - mse) / n)
        low1 = high1 = lowk = highk = np.float64(NAN)
        if np.isfinite(icc2) and icc2 < 1:
            a = k * icc2 / (n * (1 - icc2))
            b = 1 + k * icc2 * (n - 1) / (n * (1 - icc2))
            v = (a * msc + b * mse) ** 2 / ((a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / df_e)
            if np.isfinite(v) and v > 0:
                fs, fs2 = _fq(q, df_r, float(v)), _fq(q, float(v), df_r)
                low1 = n * (msr - fs * mse) / (fs * (k * msc + (k * n - k - n) * mse) + n * msr)
                high1 = n * (fs2 * msr - mse) / (k * msc + (k * n - k - n) * mse + n * fs2 * msr)
                lowk = n * (msr - fs * mse) / (fs * (msc - mse) + n * msr)
                highk = n * (fs2 * msr - mse) / (msc - mse + n * fs2 * msr)
        out["ICC(2,1)"] = (icc2, low1, high1, f3, df_r, df_e)
        out["ICC(2,k)"] = (icc2k, lowk, highk, f3, df_r, df_e)

    results = []
    for form, mw, text in FORMS:
        value, low, high, f, d1, d2 = (float(x) for x in out[form])
        p = _sf(f, d1, d2)
        results.append(
            ICCResult(
                form=form,
                mcgraw_wong=mw,
                description=text,
                value=_finite(value),
                ci_low=_finite(low),
                ci_high=_finite(high),
                confidence=confidence,
                f=float(f),
                df1=float(d1),
                df2=float(d2),
                p_value=p,
                n_targets=n,
                n_raters=k,
            )
        )
    return results


def _sf(f: float, d1: float, d2: float) -> float:
    return float(stats.f.sf(f, d1, d2)) if math.isfinite(f) else NAN


def _finite(x: float) -> float:
    return x if math.isfinite(x) else NAN
