"""Every coefficient reproduces published worked examples to their printed precision."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from agreement_examples import (
    COHEN_WIKIPEDIA,
    FLEISS_WIKIPEDIA,
    GWET_5OBSERVERS,
    GWET_ABSTRACTORS,
    GWET_BEN_GERRY,
    GWET_DIAGNOSIS,
    GWET_G1G2,
    GWET_GENDER,
    KRIPPENDORFF_2011,
    STATA_RATE2,
    from_category_counts,
    from_contingency,
    wide,
)

from scoring.agreement import (
    Level,
    cohen_kappa,
    correlations,
    fleiss_kappa,
    gwet_ac1,
    kappa_from_table,
    krippendorff_alpha,
    percent_agreement,
    wilson_interval,
)

# -- Krippendorff (2011), section C -----------------------------------------
KRIPPENDORFF_PUBLISHED = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}


@pytest.mark.parametrize("level", list(KRIPPENDORFF_PUBLISHED))
def test_alpha_reproduces_krippendorff_2011_four_coders(level: str) -> None:
    table = wide(KRIPPENDORFF_2011, level=level)
    result = krippendorff_alpha(table)
    assert round(result.value, 3) == KRIPPENDORFF_PUBLISHED[level]
    # Unit 12 has a single value: 11 units, 40 pairable values (paper: n = 40).
    assert (result.n_units, result.n_ratings, result.n_raters) == (11, 40, 4)


@pytest.mark.parametrize("level", list(KRIPPENDORFF_PUBLISHED))
def test_alpha_equals_package_on_reliability_matrix(level: Level) -> None:
    table = wide(KRIPPENDORFF_2011, level=level)
    reference = krippendorff.alpha(reliability_data=table.wide(), level_of_measurement=level)
    assert krippendorff_alpha(table).value == pytest.approx(reference, abs=1e-12)


def test_alpha_nominal_disagreements_match_paper() -> None:
    # By hand from the paper's coincidence matrix: margins n_c = 9, 13, 10, 5, 3
    # (n = 40) and 8 off-diagonal coincidences, so nominal
    # alpha = 1 - (n - 1) x 8 / (40^2 - 9^2 - 13^2 - 10^2 - 5^2 - 3^2) = 1 - 312/1216.
    result = krippendorff_alpha(wide(KRIPPENDORFF_2011), level="nominal")
    assert result.observed * 40 == pytest.approx(8.0)
    assert result.expected * 40 * 39 == pytest.approx(1216.0)
    assert result.value == pytest.approx(1 - 312 / 1216)


def test_ordinal_alpha_ignores_unused_domain_values() -> None:
    # The package's docstring example: 0.815 with or without value_domain=[1..5];
    # an unused category carries n_c = 0 and no mid-rank width.
    table = wide(KRIPPENDORFF_2011, level="ordinal", domain=[0, 1, 2, 3, 4, 5, 6])
    assert round(krippendorff_alpha(table).value, 3) == 0.815


# -- Fleiss (1971), Wikipedia's worked example --------------------------------
def test_fleiss_kappa_reproduces_wikipedia_example() -> None:
    result = fleiss_kappa(from_category_counts(FLEISS_WIKIPEDIA))
    assert round(result.value, 3) == 0.210
    assert round(result.observed, 3) == 0.378  # P-bar
    assert round(result.expected, 3) == 0.213  # P-bar_e
    assert (result.n_units, result.n_ratings) == (10, 140)


def test_percent_agreement_is_fleiss_p_bar() -> None:
    assert round(percent_agreement(from_category_counts(FLEISS_WIKIPEDIA)).value, 3) == 0.378


# -- Gwet (2014) / irrCAC: AC1 and Fleiss with missing ratings ---------------
# (p_a, p_e, coefficient) as printed by irrCAC's gwet.ac1.raw / fleiss.kappa.raw.
GWET_CASES = {
    "4raters": (KRIPPENDORFF_2011, (0.818, 0.190, 0.775), (0.818, 0.239, 0.761)),
    "5observers": (GWET_5OBSERVERS, (0.616, 0.236, 0.497), (0.616, 0.291, 0.458)),
    "g1g2": (GWET_G1G2, (0.744, 0.187, 0.685), (0.744, 0.252, 0.657)),
    "gender": (GWET_GENDER, (0.456, 0.312, 0.208), (0.456, 0.375, 0.129)),
    "ben_gerry": (GWET_BEN_GERRY, (0.727, 0.194, 0.661), (0.727, 0.222, 0.649)),
}


@pytest.mark.parametrize("name", list(GWET_CASES))
def test_gwet_ac1_reproduces_irrcac(name: str) -> None:
    columns, (p_a, p_e, ac1), _ = GWET_CASES[name]
    result = gwet_ac1(wide(columns))
    assert (round(result.observed, 3), round(result.expected, 3)) == (p_a, p_e)
    assert round(result.value, 3) == ac1


@pytest.mark.parametrize("name", list(GWET_CASES))
def test_fleiss_kappa_with_missing_ratings_reproduces_irrcac(name: str) -> None:
    columns, _, (p_a, p_e, kappa) = GWET_CASES[name]
    result = fleiss_kappa(wide(columns))
    assert (round(result.observed, 3), round(result.expected, 3)) == (p_a, p_e)
    assert round(result.value, 3) == kappa


# -- Cohen (1960, 1968) -------------------------------------------------------
def test_cohen_kappa_wikipedia_example_by_hand() -> None:
    # p_o = (20 + 15) / 50 = 0.7; p_yes = 25/50 * 30/50 = 0.3, p_no = 25/50 * 20/50 = 0.2,
    # p_e = 0.5; kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4.
    result = cohen_kappa(from_contingency(COHEN_WIKIPEDIA))
    assert result.observed == pytest.approx(0.7)
    assert result.expected == pytest.approx(0.5)
    assert result.value == pytest.approx(0.4)
    assert (result.n_units, result.n_raters) == (50, 2)


# (unweighted, linear, quadratic) as printed by the source.
COHEN_CASES = {
    "gwet_abstractors": (GWET_ABSTRACTORS, (0.796, 0.843, 0.892), 3),
    "gwet_diagnosis": (GWET_DIAGNOSIS, (0.432, 0.407, 0.383), 3),
    "stata_rate2": (STATA_RATE2, (0.4728, 0.5684, 0.6714), 4),
}


@pytest.mark.parametrize("name", list(COHEN_CASES))
@pytest.mark.parametrize("position", [0, 1, 2])
def test_cohen_kappa_weighted_and_unweighted_published(name: str, position: int) -> None:
    counts, published, digits = COHEN_CASES[name]
    weights = ("none", "linear", "quadratic")[position]
    table = from_contingency(counts, level="ordinal")
    result = cohen_kappa(table, weights=weights)
    assert round(result.value, digits) == published[position]
    assert result.weights == weights


def test_stata_rate2_agreement_percentages() -> None:
    # Stata prints agreement / expected agreement: 63.53% / 30.82% (none),
    # 86.67% / 69.11% (wgt(w)), 94.77% / 84.09% (wgt(w2)).
    for weights, (p_o, p_e) in {
        "none": (63.53, 30.82),
        "linear": (86.67, 69.11),
        "quadratic": (94.77, 84.09),
    }.items():
        _, obs, exp = kappa_from_table(np.asarray(STATA_RATE2, float), weights)
        assert (round(100 * obs, 2), round(100 * exp, 2)) == (p_o, p_e)


def test_cohen_unweighted_by_hand_on_stata_table() -> None:
    t = np.asarray(STATA_RATE2, float)
    n = t.sum()
    p_o = np.trace(t) / n  # (21 + 17 + 15 + 1) / 85
    p_e = float((t.sum(axis=1) * t.sum(axis=0)).sum() / n**2)
    kappa = (p_o - p_e) / (1 - p_e)
    assert cohen_kappa(from_contingency(STATA_RATE2)).value == pytest.approx(kappa)
    assert p_o == pytest.approx(54 / 85)


# -- correlations ------------------------------------------------------------
ANSCOMBE_X = [10, 8, 13, 9, 11, 14, 6, 4, 12, 7, 5]
ANSCOMBE_Y1 = [8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68]


def test_pearson_reproduces_anscombe_quartet() -> None:
    # Anscombe (1973), "Graphs in statistical analysis": r = 0.816 for set I.
    result = correlations(ANSCOMBE_X, ANSCOMBE_Y1)
    assert round(result.pearson, 3) == 0.816
    assert result.n == 11


def test_spearman_reproduces_wikipedia_iq_tv_example() -> None:
    # Wikipedia, "Spearman's rank correlation coefficient": IQ vs hours of TV,
    # sum d^2 = 194, rho = 1 - 6 x 194 / (10 x 99) = -29/165 = -0.175757...
    iq = [106, 100, 86, 101, 99, 103, 97, 113, 112, 110]
    tv = [7, 27, 2, 50, 28, 29, 20, 12, 6, 17]
    assert correlations(iq, tv).spearman == pytest.approx(-29 / 165)


def test_kendall_tau_b_reproduces_scipy_documentation_and_hand_count() -> None:
    # scipy.stats.kendalltau docstring: x = [12, 2, 1, 12, 2], y = [1, 4, 7, 1, 0]
    # gives tau-b = -0.47140452079103173.
    result = correlations([12, 2, 1, 12, 2], [1, 4, 7, 1, 0])
    assert result.kendall == pytest.approx(-0.47140452079103173)
    # By hand, no ties: x = 1..5, y = 3 1 2 5 4: 7 concordant, 3 discordant pairs.
    assert correlations([1, 2, 3, 4, 5], [3, 1, 2, 5, 4]).kendall == pytest.approx(0.4)


def test_mean_difference_is_leniency_of_a() -> None:
    result = correlations([4, 5, 3, None], [3, 3, 3, 2])
    assert result.mean_diff == pytest.approx(1.0)
    assert result.n == 3


# -- Wilson (1927) score interval, Newcombe (1998) Table I --------------------
@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_interval_reproduces_newcombe_1998(
    successes: int, n: int, low: float, high: float
) -> None:
    result = wilson_interval(successes, n)
    assert (round(result.ci_low, 4), round(result.ci_high, 4)) == (low, high)
    assert result.value == pytest.approx(successes / n)


def test_ordinal_alpha_on_labels_with_a_declared_order() -> None:
    # The krippendorff package's docstring recodes the 2011 example as labels
    # "very low" .. "very high" and gets ordinal 0.815 given the order.
    labels = ["very low", "low", "mid", "high", "very high"]
    columns = {
        rater: [None if v is None else labels[v - 1] for v in values]
        for rater, values in KRIPPENDORFF_2011.items()
    }
    table = wide(columns, level="ordinal", domain=labels)
    assert round(krippendorff_alpha(table).value, 3) == 0.815
    assert round(krippendorff_alpha(table, level="nominal").value, 3) == 0.743
