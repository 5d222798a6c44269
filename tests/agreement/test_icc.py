"""ICC: Shrout & Fleiss's (1979) worked example, and pingouin as the reference."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from scoring.agreement.icc import icc_all, mean_squares

# Shrout & Fleiss (1979), Table 2: 6 targets (rows) rated by 4 judges (columns).
SHROUT_FLEISS = np.array(
    [
        [9, 2, 5, 8],
        [6, 1, 3, 2],
        [8, 4, 6, 8],
        [7, 1, 2, 6],
        [10, 5, 6, 9],
        [6, 2, 4, 7],
    ],
    dtype=float,
)
# Their Table 4: the six coefficients as printed (two decimals).
PUBLISHED = {
    "ICC(1,1)": 0.17,
    "ICC(2,1)": 0.29,
    "ICC(3,1)": 0.71,
    "ICC(1,k)": 0.44,
    "ICC(2,k)": 0.62,
    "ICC(3,k)": 0.91,
}
# Their Table 3 mean squares: BMS 11.24, WMS 6.26, JMS 32.49, EMS 1.02.
PUBLISHED_MS = {"msr": 11.24, "msw": 6.26, "msc": 32.49, "mse": 1.02}


def test_mean_squares_match_shrout_fleiss_table_3() -> None:
    ms = mean_squares(SHROUT_FLEISS)
    for name, value in PUBLISHED_MS.items():
        assert getattr(ms, name) == pytest.approx(value, abs=0.005), name


@pytest.mark.parametrize("form", list(PUBLISHED))
def test_reproduces_shrout_fleiss_published_values(form: str) -> None:
    got = {r.form: r for r in icc_all(SHROUT_FLEISS)}
    assert round(got[form].value, 2) == PUBLISHED[form]
    assert got[form].n_targets == 6 and got[form].n_raters == 4
    assert got[form].ci_low < got[form].value < got[form].ci_high


def _pingouin(table: np.ndarray) -> pd.DataFrame:
    pingouin = pytest.importorskip("pingouin")
    n, k = table.shape
    long = pd.DataFrame(
        {
            "target": np.repeat(np.arange(n), k),
            "rater": np.tile(np.arange(k), n),
            "score": table.ravel(),
        }
    )
    out = pingouin.intraclass_corr(long, targets="target", raters="rater", ratings="score")
    out = out.set_index("Type")
    if "ICC1" in out.index:
        out = out.rename(index={v: k for k, v in OLD_NAMES.items()})
    return out


# pingouin's Type (0.7 names; before 0.7: ICC1 .. ICC3k) -> our form
PINGOUIN = {
    "ICC(1,1)": "ICC(1,1)",
    "ICC(A,1)": "ICC(2,1)",
    "ICC(C,1)": "ICC(3,1)",
    "ICC(1,k)": "ICC(1,k)",
    "ICC(A,k)": "ICC(2,k)",
    "ICC(C,k)": "ICC(3,k)",
}
OLD_NAMES = dict(zip(PINGOUIN, ["ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"], strict=True))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_values_f_and_intervals_agree_with_pingouin(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, k = 12 + seed * 5, 3 + seed
    target = rng.normal(0, 1.0, (n, 1))
    bias = rng.normal(0, 0.5, (1, k))
    table = np.round(3 + target + bias + rng.normal(0, 0.7, (n, k)), 1)
    ref = _pingouin(table)
    ours = {r.form: r for r in icc_all(table)}
    for ptype, form in PINGOUIN.items():
        row, mine = ref.loc[ptype], ours[form]
        assert mine.value == pytest.approx(row["ICC"], abs=1e-9), form
        assert mine.f == pytest.approx(row["F"], rel=1e-9), form
        assert mine.p_value == pytest.approx(row["pval"], rel=1e-6, abs=1e-12), form
        low, high = row["CI95"]  # pingouin rounds its interval to 2 decimals
        assert mine.ci_low == pytest.approx(low, abs=0.006), form
        assert mine.ci_high == pytest.approx(high, abs=0.006), form


def test_wider_interval_at_higher_confidence() -> None:
    at95 = {r.form: r for r in icc_all(SHROUT_FLEISS, confidence=0.95)}
    at99 = {r.form: r for r in icc_all(SHROUT_FLEISS, confidence=0.99)}
    for form in PUBLISHED:
        assert at99[form].ci_low < at95[form].ci_low
        assert at99[form].ci_high > at95[form].ci_high


def test_incomplete_or_tiny_tables_are_refused() -> None:
    with pytest.raises(ValueError, match="complete"):
        icc_all(np.array([[1.0, np.nan], [2.0, 3.0]]))
    with pytest.raises(ValueError, match="at least 2 targets"):
        icc_all(np.array([[1.0, 2.0, 3.0]]))


def test_constant_table_gives_nan_not_an_error() -> None:
    out = icc_all(np.full((4, 3), 2.0))
    assert all(np.isnan(r.value) for r in out)


def test_raters_in_perfect_agreement_give_no_exception() -> None:
    # every rater gives each target the same rating: MSE = MSW = 0
    table = np.array([[1.0, 1.0, 1.0], [3.0, 3.0, 3.0], [5.0, 5.0, 5.0], [2.0, 2.0, 2.0]])
    out = {r.form: r for r in icc_all(table)}
    assert out["ICC(3,1)"].value == pytest.approx(1.0)
    assert out["ICC(1,1)"].value == pytest.approx(1.0)
    # targets all equal (MSR = 0), raters differ
    flat = np.array([[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]])
    assert all(np.isnan(r.value) or r.value <= 0 for r in icc_all(flat))
