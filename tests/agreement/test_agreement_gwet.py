"""Weighted coefficients, Conger, Brennan-Prediger, per-category kappa, Cronbach's alpha and
Gwet's analytic standard errors against published values and peers recomputed here.

Published numbers: Gwet's irrCAC (R, kgwet/irrCAC) as asserted by its Python port's test
suite (afergadis/irrCAC, test/unit/irrCAC/raw/test_{gwet,fleiss,bp,conger}.py and
table/test_cohen.py, three decimals), which reproduce the worked examples of Gwet (2014),
"Handbook of Inter-Rater Reliability"; R's irr::kappam.fleiss(diagnoses, detail = TRUE)
for the per-category kappas of Fleiss (1971). Peers: pingouin, statsmodels and scipy.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pingouin as pg
import pytest
from agreement_examples import (
    FLEISS_1971_DIAGNOSES,
    GWET_4RATERS,
    GWET_5OBSERVERS,
    GWET_ABSTRACTORS,
    GWET_BEN_GERRY,
    GWET_DIAGNOSIS,
    GWET_DISTRIB_6RATERS,
    GWET_G1G2,
    GWET_GENDER,
    from_category_counts,
    from_contingency,
    wide,
)
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from scoring.agreement import (
    RatingTable,
    brennan_prediger,
    cohen_kappa,
    compute_all,
    conger_kappa,
    cronbach_alpha,
    fleiss_category_kappa,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    percent_agreement,
    weight_matrix,
)
from scoring.agreement.results import AgreementResult

# (pa, pe, coefficient, se, ci_low, ci_high) of cac.raw4raters per weighting, as printed.
Printed = tuple[float | None, ...]
RAW4: dict[str, dict[str, Printed]] = {
    "gwet": {
        "none": (0.818, 0.190, 0.775, 0.143, 0.461, 1),
        "bipolar": (0.968, 0.682, 0.900, 0.106, 0.667, 1),
        "circular": (0.902, 0.426, 0.830, 0.133, 0.538, 1),
        "linear": (0.939, 0.571, 0.859, 0.117, 0.600, 1),
        "ordinal": (0.968, 0.685, 0.899, 0.107, 0.664, 1),
        "quadratic": (0.975, 0.714, 0.914, 0.104, 0.685, 1),
        "radical": (0.897, 0.430, 0.820, 0.128, 0.537, 1),
        "ratio": (0.954, 0.678, 0.857, 0.122, 0.589, 1),
    },
    "fleiss": {
        "none": (0.818, 0.239, 0.761, 0.153, 0.424, 1),
        "bipolar": (0.968, 0.785, 0.853, 0.145, 0.535, 1),
        "circular": (0.902, 0.494, 0.807, 0.149, 0.479, 1),
        "linear": (0.939, 0.667, 0.818, 0.149, 0.491, 1),
        "ordinal": (0.968, 0.788, 0.850, 0.147, 0.527, 1),
        "quadratic": (0.975, 0.818, 0.865, 0.146, 0.544, 1),
        "radical": (0.897, 0.511, 0.790, 0.150, 0.460, 1),
        "ratio": (0.954, 0.743, 0.821, 0.152, 0.486, 1),
    },
    "bp": {
        "none": (0.818, 0.200, 0.773, 0.145, 0.454, 1),
        "bipolar": (0.968, 0.717, 0.888, 0.112, 0.641, 1),
        "circular": (0.902, 0.447, 0.824, 0.137, 0.522, 1),
        "linear": (0.939, 0.600, 0.848, 0.123, 0.577, 1),
        "ordinal": (0.968, 0.720, 0.886, 0.114, 0.636, 1),
        "quadratic": (0.975, 0.750, 0.902, 0.111, 0.657, 1),
        "radical": (0.897, 0.452, 0.813, 0.133, 0.520, 1),
        "ratio": (0.954, 0.713, 0.840, 0.132, 0.549, 1),
    },
    "conger": {
        "none": (0.818, 0.233, 0.763, None, 0.435, 1),
        "bipolar": (0.968, 0.796, 0.845, 0.142, 0.532, 1),
        "circular": (0.902, 0.499, 0.805, 0.147, 0.481, 1),
        "linear": (0.939, 0.675, 0.814, 0.145, 0.494, 1),
        "ordinal": (0.968, 0.796, 0.844, 0.144, 0.526, 1),
        "quadratic": (0.975, 0.827, 0.858, 0.144, 0.541, 1),
        "radical": (0.897, 0.515, 0.788, 0.146, 0.466, 1),
        "ratio": (0.954, 0.756, 0.812, 0.149, 0.485, 1),
    },
}
FUNCTIONS = {
    "gwet": gwet_ac1,
    "fleiss": fleiss_kappa,
    "bp": brennan_prediger,
    "conger": conger_kappa,
}
# Unweighted, other datasets: (pa, pe, coefficient, se, ci_low, ci_high).
OTHERS: dict[tuple[str, str], Printed] = {
    ("gwet", "5observers"): (0.616, 0.236, 0.497, 0.122, 0.235, 0.758),
    ("gwet", "g1g2"): (0.744, 0.187, 0.685, 0.134, 0.396, 0.973),
    ("gwet", "gender"): (0.456, 0.312, 0.208, 0.091, 0.014, 0.403),
    ("gwet", "ben_gerry"): (0.727, 0.194, 0.661, 0.184, 0.257, 1),
    ("fleiss", "5observers"): (0.616, 0.291, 0.458, 0.120, 0.199, 0.716),
    ("fleiss", "g1g2"): (0.744, 0.252, 0.657, 0.150, 0.333, 0.981),
    ("fleiss", "gender"): (0.456, 0.375, 0.129, 0.141, -0.172, 0.430),
    ("fleiss", "ben_gerry"): (0.727, 0.222, 0.649, 0.191, 0.228, 1),
    ("bp", "5observers"): (0.616, 0.250, 0.487, 0.121, 0.228, 0.747),
    ("bp", "g1g2"): (0.744, 0.200, 0.679, 0.136, 0.385, 0.974),
    ("bp", "gender"): (0.456, 0.333, 0.183, 0.102, -0.035, 0.402),
    ("bp", "ben_gerry"): (0.727, 0.200, 0.659, 0.185, 0.251, 1),
    ("conger", "5observers"): (0.616, 0.276, 0.469, 0.117, 0.219, 0.719),
    ("conger", "g1g2"): (0.744, 0.249, 0.659, 0.146, 0.343, 0.974),
    ("conger", "gender"): (0.456, 0.347, 0.166, 0.121, -0.094, 0.426),
    ("conger", "ben_gerry"): (0.727, 0.205, 0.657, 0.179, 0.262, 1),
}
DATASETS = {
    "5observers": GWET_5OBSERVERS,
    "g1g2": GWET_G1G2,
    "gender": GWET_GENDER,
    "ben_gerry": GWET_BEN_GERRY,
}


def _printed(result: AgreementResult) -> tuple[float, ...]:
    values = (result.observed, result.expected, result.value, result.se, result.t_low)
    return (*(round(v, 3) for v in values), round(result.t_high, 3))


def _check(result: AgreementResult, published: Printed) -> None:
    for got, want in zip(_printed(result), published, strict=True):
        if want is not None:
            assert got == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("coefficient", list(RAW4))
@pytest.mark.parametrize("weights", list(RAW4["gwet"]))
def test_raw4raters_every_weighting_matches_irrcac(coefficient: str, weights: str) -> None:
    table = wide(GWET_4RATERS, level="ordinal")
    result = FUNCTIONS[coefficient](table, weights=weights)
    _check(result, RAW4[coefficient][weights])
    assert result.weights == (None if weights == "none" else weights)
    assert result.df == 11  # n - 1 over the 12 rated units


@pytest.mark.parametrize(("coefficient", "dataset"), list(OTHERS))
def test_unweighted_coefficients_and_errors_on_gwets_datasets(
    coefficient: str, dataset: str
) -> None:
    result = FUNCTIONS[coefficient](wide(DATASETS[dataset]))
    _check(result, OTHERS[(coefficient, dataset)])


def test_ac2_is_named_and_ac1_keeps_its_name() -> None:
    table = wide(GWET_4RATERS, level="ordinal")
    assert gwet_ac1(table).metric == "gwet_ac1"
    assert gwet_ac1(table, weights="quadratic").metric == "gwet_ac2"


def test_bipolar_weights_as_printed_by_irrcac() -> None:
    # irrCAC's docstring for cac.raw4raters with weights="bipolar" (categories 1..5).
    printed = [
        [1.0, 0.85714286, 0.66666667, 0.4, 0.0],
        [0.85714286, 1.0, 0.93333333, 0.75, 0.4],
        [0.66666667, 0.93333333, 1.0, 0.93333333, 0.66666667],
        [0.4, 0.75, 0.93333333, 1.0, 0.85714286],
        [0.0, 0.4, 0.66666667, 0.85714286, 1.0],
    ]
    np.testing.assert_allclose(weight_matrix(np.arange(1.0, 6.0), "bipolar"), printed, atol=1e-8)


# -- Cohen's kappa with the whole weight family -------------------------------------
COHEN_PRINTED: dict[str, tuple[list[list[int]], dict[str, float]]] = {
    "abstractors": (GWET_ABSTRACTORS, {
        "none": 0.796, "bipolar": 0.872, "circular": 0.796, "linear": 0.843,
        "ordinal": 0.872, "quadratic": 0.892, "radical": 0.819, "ratio": 0.927,
    }),
    "diagnosis": (GWET_DIAGNOSIS, {
        "none": 0.432, "bipolar": 0.387, "circular": 0.446, "linear": 0.407,
        "ordinal": 0.390, "quadratic": 0.383, "radical": 0.419, "ratio": 0.413,
    }),
}  # fmt: skip


@pytest.mark.parametrize("name", list(COHEN_PRINTED))
@pytest.mark.parametrize("weights", list(COHEN_PRINTED["diagnosis"][1]))
def test_cohen_kappa_every_weighting_matches_irrcac(name: str, weights: str) -> None:
    counts, printed = COHEN_PRINTED[name]
    result = cohen_kappa(from_contingency(counts, level="ordinal"), weights=weights)
    assert round(result.value, 3) == printed[weights]


@pytest.mark.parametrize(
    ("weights", "toeplitz"),
    [("ordinal", [0, 1, 3, 6]), ("radical", [0, 1, math.sqrt(2), math.sqrt(3)])],
)
def test_cohen_distance_weights_equal_statsmodels_toeplitz(
    weights: str, toeplitz: list[float]
) -> None:
    # Ordinal and radical disagreement depend on |i - j| only: statsmodels' toeplitz form.
    table = from_contingency(GWET_DIAGNOSIS, level="ordinal")
    expected = sm_cohens_kappa(np.asarray(GWET_DIAGNOSIS), weights=toeplitz, wt="toeplitz")
    assert cohen_kappa(table, weights=weights).value == pytest.approx(expected.kappa, abs=1e-12)


@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_cohen_weights_use_the_values_of_an_uneven_scale(weights: str) -> None:
    # Scores 1, 2, 5: statsmodels takes them as the category scores of wt=linear/quadratic.
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 3, 60), rng.integers(0, 3, 60)
    scale = np.array([1, 2, 5])
    rows = [(u, "a", int(scale[a[u]])) for u in range(60)] + [
        (u, "b", int(scale[b[u]])) for u in range(60)
    ]
    table = RatingTable.from_rows(rows, level="interval")
    counts = np.zeros((3, 3))
    np.add.at(counts, (a, b), 1)
    expected = sm_cohens_kappa(counts, weights=scale, wt=weights).kappa
    assert cohen_kappa(table, weights=weights).value == pytest.approx(expected, abs=1e-12)


def test_ratio_weights_with_a_zero_category_give_a_reason() -> None:
    table = RatingTable.from_wide({"a": [0, 1, 2], "b": [0, 2, 2]}, level="ratio")
    result = cohen_kappa(table, weights="ratio")
    assert math.isnan(result.value) and "positive" in (result.reason or "")
    assert math.isnan(gwet_ac1(table, weights="ratio").value)


# -- per-category kappa -------------------------------------------------------------
def _diagnoses() -> RatingTable:
    rows = [(i, g, v) for i, row in enumerate(FLEISS_1971_DIAGNOSES) for g, v in enumerate(row)]
    return RatingTable.from_rows(rows)


def test_per_category_kappa_matches_irr_kappam_fleiss_detail() -> None:
    results = fleiss_category_kappa(_diagnoses())
    assert [r.category for r in results] == ["1", "2", "3", "4", "5"]
    assert [round(r.value, 3) for r in results] == [0.245, 0.245, 0.520, 0.471, 0.566]


def test_per_category_kappas_average_to_statsmodels_fleiss_kappa() -> None:
    # Fleiss (1971): kappa = sum_j p_j q_j kappa_j / sum_j p_j q_j.
    results = fleiss_category_kappa(_diagnoses())
    counts = np.array([[row.count(k) for k in range(1, 6)] for row in FLEISS_1971_DIAGNOSES])
    pq = np.array([r.expected for r in results])
    pooled = float((pq * [r.value for r in results]).sum() / pq.sum())
    assert pooled == pytest.approx(sm_fleiss_kappa(counts), abs=1e-12)


def test_per_category_kappa_reasons_and_intervals() -> None:
    table = RatingTable.from_rows(
        [(u, r, 1 + (u % 2)) for u in range(20) for r in "abc"], domain=[1, 2, 3]
    )
    one, two, unused = fleiss_category_kappa(table, n_boot=50, seed=0)
    assert one.value == pytest.approx(1.0) and two.value == pytest.approx(1.0)
    assert math.isnan(unused.value) and "never used" in (unused.reason or "")
    assert one.n_boot == 50 and one.ci_low <= one.value <= one.ci_high


# -- Cronbach's alpha -----------------------------------------------------------------
def _scores() -> np.ndarray:
    rng = np.random.default_rng(0)
    poem = rng.normal(size=(30, 1))
    x = np.clip(np.round(3 + poem + rng.normal(scale=0.8, size=(30, 5))), 1, 5)
    x[3, 2] = np.nan  # rater 2 did not rate poem 3
    return x


def _table(x: np.ndarray) -> RatingTable:
    rows = [(i, g, x[i, g]) for i in range(x.shape[0]) for g in range(x.shape[1])]
    return RatingTable.from_rows(rows, level="ordinal")


def test_cronbach_raters_as_items_equals_pingouin_listwise() -> None:
    x = _scores()
    expected, _ = pg.cronbach_alpha(pd.DataFrame(x), nan_policy="listwise")
    result = cronbach_alpha(_table(x))
    assert result.value == pytest.approx(expected, abs=1e-12)
    assert (result.n_units, result.n_raters, result.weights) == (29, 5, "items=raters")


def test_cronbach_units_as_items_equals_pingouin_on_the_transpose() -> None:
    x = _scores()
    expected, _ = pg.cronbach_alpha(pd.DataFrame(x.T), nan_policy="listwise")
    result = cronbach_alpha(_table(x), items="units")
    assert result.value == pytest.approx(expected, abs=1e-12)
    assert (result.n_units, result.n_raters) == (30, 4)


def test_cronbach_bootstrap_and_undefined_cases() -> None:
    result = cronbach_alpha(_table(_scores()), n_boot=100, seed=1)
    assert result.n_boot_valid == 100 and result.ci_low < result.value < result.ci_high
    nominal = cronbach_alpha(wide(GWET_GENDER))
    assert math.isnan(nominal.value) and "numeric" in (nominal.reason or "")
    single = cronbach_alpha(RatingTable.from_wide({"a": [1, 2, 3]}, level="ordinal"))
    assert math.isnan(single.value) and "two or more items" in (single.reason or "")
    flat = cronbach_alpha(RatingTable.from_wide({"a": [2, 2], "b": [2, 2]}, level="ordinal"))
    assert math.isnan(flat.value) and "no variance" in (flat.reason or "")


# -- analytic errors beside the bootstrap -------------------------------------------
def test_percent_agreement_se_is_scipys_standard_error_of_the_unit_agreements() -> None:
    # With every unit rated at least twice, p_a is a mean of unit agreements and Gwet's
    # variance is that mean's: scipy's sem and t interval (upper end capped at 1).
    table = wide(GWET_GENDER)
    result = percent_agreement(table, confidence=0.9)
    units = []
    for i in range(15):
        row = [GWET_GENDER[r][i] for r in GWET_GENDER]
        pairs = [(a, b) for j, a in enumerate(row) for b in row[j + 1 :]]
        units.append(sum(a == b for a, b in pairs) / len(pairs))
    assert result.value == pytest.approx(np.mean(units))
    assert result.se == pytest.approx(stats.sem(units), abs=1e-12)
    low, high = stats.t.interval(0.9, len(units) - 1, loc=np.mean(units), scale=stats.sem(units))
    assert (result.t_low, result.t_high) == pytest.approx((low, min(high, 1.0)), abs=1e-12)


def test_compute_all_gives_errors_and_shares_the_bootstrap() -> None:
    table = wide(GWET_4RATERS, level="ordinal")
    together = {(r.metric, r.weights): r for r in compute_all(table, n_boot=120, seed=7)}
    for key, alone in {
        ("gwet_ac2", "quadratic"): gwet_ac1(table, weights="quadratic", n_boot=120, seed=7),
        ("conger_kappa", None): conger_kappa(table, n_boot=120, seed=7),
        ("brennan_prediger", None): brennan_prediger(table, n_boot=120, seed=7),
    }.items():
        assert (together[key].ci_low, together[key].ci_high) == (alone.ci_low, alone.ci_high)
        assert together[key].se == alone.se and not math.isnan(alone.se)
    assert math.isnan(together[("krippendorff_alpha", None)].se)


def test_compute_all_on_request_and_unknown_keys() -> None:
    table = wide(GWET_4RATERS, level="ordinal")
    chosen = compute_all(table, n_boot=0, metrics=("gwet_ac2:bipolar", "fleiss_category_kappa"))
    # In the registry's order: the per-category kappas (categories 1..5), then AC2.
    assert [(r.metric, r.weights, r.category) for r in chosen] == [
        *[("fleiss_category_kappa", None, str(k)) for k in range(1, 6)],
        ("gwet_ac2", "bipolar", None),
    ]
    with pytest.raises(ValueError, match="unknown coefficient"):
        compute_all(table, metrics=("kappa_of_my_own",))


# -- Krippendorff's alpha: NaN with a reason ------------------------------------------
@pytest.mark.parametrize(
    ("values", "words"),
    [
        ([2**53, 2**53 + 1, 3], "2^53"),
        ([1e300, -1e300, 0.0], "2^53"),
        ([math.inf, 1.0, 0.0], "infinite"),
    ],
)
def test_alpha_refuses_values_whose_differences_float64_cannot_hold(
    values: list[float], words: str
) -> None:
    table = RatingTable.from_wide({"a": values, "b": values[::-1]}, level="interval")
    result = krippendorff_alpha(table)
    assert math.isnan(result.value) and words in (result.reason or "")
    assert result.n_units == 3


def test_alpha_reasons_for_no_pairs_and_a_single_value() -> None:
    lonely = RatingTable.from_rows([(1, "a", 1), (2, "b", 2)], level="interval")
    assert "no unit has two or more ratings" in (krippendorff_alpha(lonely).reason or "")
    same = RatingTable.from_wide({"a": [3, 3], "b": [3, 3]}, level="interval")
    assert "identical" in (krippendorff_alpha(same).reason or "")


# -- Krippendorff's alpha: Gwet's analytic standard error ------------------------------
# (alpha, se) as irrCAC's Python port asserts them for ``krippen.alpha.raw`` (three
# decimals; test/unit/irrCAC/raw/test_krippendorff.py), nominal data. Not raw4raters: the
# port centres p_a,i on p_a where Gwet's R function uses p_a' (0.146 against R's 0.14548,
# which the next test asserts); on these four the two agree to three decimals.
ALPHA_RAW: dict[str, tuple[dict[str, list[object]], float, float]] = {
    "raw5observers": (GWET_5OBSERVERS, 0.481, 0.114),
    "g1g2": (GWET_G1G2, 0.632, 0.150),
    "gender": (GWET_GENDER, 0.143, 0.141),
    "ben_gerry": (GWET_BEN_GERRY, 0.665, 0.180),
}


@pytest.mark.parametrize("name", ALPHA_RAW)
def test_alpha_se_is_irrcacs(name: str) -> None:
    data, value, se = ALPHA_RAW[name]
    result = krippendorff_alpha(wide(data), level="nominal")
    assert round(result.value, 3) == value
    assert round(result.se, 3) == se


def test_alpha_se_and_interval_as_gwets_r_package_prints_them() -> None:
    # kgwet/irrCAC vignette "overview": krippen.alpha.raw(cac.raw4raters) prints
    # coeff.val 0.74342, coeff.se 0.14548, conf.int (0.423,1): t with 12 - 1 df (every
    # unit with a rating, as the R function counts them), the upper end capped at 1.
    result = krippendorff_alpha(wide(GWET_4RATERS), level="nominal")
    assert result.value == pytest.approx(0.74342, abs=5e-6)
    assert result.se == pytest.approx(0.14548, abs=5e-6)
    assert result.df == 11
    assert (round(result.t_low, 3), result.t_high) == (0.423, 1.0)


@pytest.mark.parametrize(
    ("level", "weights", "value", "se"),
    [("interval", "quadratic", 0.849, 0.129), ("ratio", "ratio", 0.797, 0.140)],
)
def test_weighted_alpha_se_is_irrcacs(level: str, weights: str, value: float, se: float) -> None:
    # Krippendorff's interval (ratio) distance scaled to [0, 1] is 1 - irrCAC's quadratic
    # (ratio) weights on the values 1..5.
    result = krippendorff_alpha(wide(GWET_4RATERS, level=level))
    assert round(result.value, 3) == value
    assert round(result.se, 3) == se


def test_ordinal_alpha_has_no_analytic_se() -> None:
    # Krippendorff's ordinal distance is built from the margins: no fixed weights.
    result = krippendorff_alpha(wide(GWET_4RATERS, level="ordinal"))
    assert math.isnan(result.se) and math.isnan(result.t_low)


def test_distribution_example_distrib_6raters() -> None:
    """irrCAC's distribution-format example (``*.dist(distrib.6raters)``, the overview
    vignette's printed output): Fleiss, AC1 and Brennan-Prediger with their standard
    errors and 95 % intervals (t with 14 df), and Krippendorff's alpha. Alpha's printed
    standard error, 0.08243228, comes from ``krippen.alpha.dist``, an older variant of the
    linearisation (the chance term with 1 - alpha instead of 2 (1 - alpha'), centred at
    the sum of the pi_k); with every unit rated 6 times, the raw-data formula of
    ``krippen.alpha.raw`` that we follow reduces to Fleiss' kappa's (alpha' is Fleiss'
    kappa), so its SE is the printed 0.08119291 of ``fleiss.kappa.dist``."""
    table = from_category_counts(GWET_DISTRIB_6RATERS)
    metrics = ("fleiss_kappa", "gwet_ac1", "brennan_prediger", "krippendorff_alpha")
    got = {r.metric: r for r in compute_all(table, n_boot=0, metrics=metrics)}
    printed = {
        "fleiss_kappa": (0.4139265, 0.08119291, 0.24, 0.588),
        "gwet_ac1": (0.4448007, 0.08418757, 0.264, 0.625),
        "brennan_prediger": (0.4388889, 0.08312142, 0.261, 0.617),
    }
    for metric, (value, se, low, high) in printed.items():
        r = got[metric]
        assert r.value == pytest.approx(value, abs=5e-8), metric
        assert r.se == pytest.approx(se, abs=5e-9), metric
        assert (round(r.t_low, 3), round(r.t_high, 3)) == (low, high), metric
    alpha = got["krippendorff_alpha"]
    assert alpha.value == pytest.approx(0.4204384, abs=5e-8)
    assert alpha.se == pytest.approx(0.08119291, abs=5e-9)
    assert alpha.df == 14


def test_alpha_t_interval_covers_the_population_alpha() -> None:
    """Simulation truth: units of a latent class (shares 0.5/0.3/0.2), 3 raters who give
    it with probability 0.6 and else a draw from the shares. The population alpha is
    alpha on 100,000 units; over 600 studies of 50 units the t interval covers it
    92-98 % of the time (94.6 % over 2,000 studies while writing the test)."""
    shares = np.array([0.5, 0.3, 0.2])
    rng = np.random.default_rng(11)

    def study(n: int) -> RatingTable:
        truth = rng.choice(3, n, p=shares)
        kept = rng.random((n, 3)) < 0.6
        y = np.where(kept, truth[:, None], rng.choice(3, (n, 3), p=shares))
        rows = [(u, k, int(y[u, k])) for u in range(n) for k in range(3)]
        return RatingTable.from_rows(rows, level="nominal")

    population = krippendorff_alpha(study(100_000)).value
    hits = 0
    for _ in range(600):
        r = krippendorff_alpha(study(50))
        hits += r.t_low <= population <= r.t_high
    assert 0.92 <= hits / 600 <= 0.98
