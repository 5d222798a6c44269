"""Published worked examples used as test data (sources in each docstring)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from scoring.agreement import RatingTable

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C:
# four observers A-D, twelve units, values 1-5, None = missing ('.' in the paper).
KRIPPENDORFF_2011: dict[str, list[int | None]] = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}

# Wikipedia, "Fleiss' kappa", worked example: 10 subjects, 14 raters each,
# counts per category 1..5 (the table after Fleiss 1971's layout).
FLEISS_WIKIPEDIA: list[list[int]] = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]

# Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed., datasets shipped
# with his irrCAC package (R; Python port afergadis/irrCAC), whose printed
# estimates the tests assert.
# irrCAC's ``cac.raw4raters`` (Gwet 2014, p. 120): Krippendorff's data above with unit 12's
# single rating given by the third rater (it matters to Conger's kappa only).
GWET_4RATERS: dict[str, list[int | None]] = {
    "R1": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "R2": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, None],
    "R3": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
    "R4": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}
GWET_5OBSERVERS: dict[str, list[int | None]] = {
    "O1": [1, 1, 2, None, 0, 0, 1, 1, 2, 2, None, 0, 1, 3, 1],
    "O2": [1, 1, 3, 0, 0, 0, 0, None, 2, 1, 1, 0, 2, 3, 1],
    "O3": [2, 0, 3, 0, 0, 0, 2, 2, 2, 1, 0, 0, 2, 2, 1],
    "O4": [None, 1, 3, None, None, None, None, 0, None, 1, 0, 0, 2, 2, None],
    "O5": [2, None, None, 0, 0, 0, 1, None, 2, None, None, None, None, 3, 1],
}
GWET_G1G2: dict[str, list[str | None]] = {
    "R1": ["a", "b", "c", "c", "b", "a", "d", "a", "b", None, None, None, "b", "b"],
    "R2": ["a", "b", "c", "c", "b", "b", "d", "a", "b", "e", None, None, "b", "a"],
    "R3": [None, "c", "c", "c", "b", "c", "d", "b", "b", "e", "a", "c", "c", "c"],
    "R4": ["a", "b", "c", "c", "b", "d", "d", "a", "b", "e", "a", None, "b", "b"],
}
GWET_GENDER: dict[str, list[str]] = {
    "R1": ["a", "a", "a", "a", "a", "b", "b", "b", "c", "a", "a", "a", "a", "a", "b"],
    "R2": ["a", "a", "a", "a", "b", "a", "b", "c", "c", "a", "a", "a", "a", "b", "a"],
    "R3": ["a", "b", "b", "c", "a", "a", "b", "b", "c", "a", "b", "b", "c", "a", "a"],
    "R4": ["c", "c", "c", "c", "a", "a", "b", "b", "c", "c", "c", "c", "c", "a", "a"],
}
GWET_BEN_GERRY: dict[str, list[str | None]] = {
    "Ben": ["a", "a", "b", "b", "d", "c", "c", "c", "e", "d", "d", "a"],
    "Gerry": ["b", "a", "b", "b", "b", "c", "c", "c", "e", None, "d", "d"],
}

# Fleiss (1971), table 1 as R's irr::diagnoses (and statsmodels' test data): 30 patients,
# 6 psychiatrists each, diagnoses 1 depression, 2 personality disorder, 3 schizophrenia,
# 4 neurosis, 5 other.
FLEISS_1971_DIAGNOSES: list[list[int]] = [
    [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5],
    [2, 2, 2, 4, 4, 4], [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4],
    [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5], [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4],
    [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5], [3, 3, 3, 3, 3, 5],
    [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
    [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4],
    [1, 4, 4, 4, 4, 5], [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4],
    [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5],
]  # fmt: skip

# irrCAC's ``distrib.6raters`` (kgwet/irrCAC, vignettes/overview: "Computing agreement
# coefficients from the distribution of raters by subject & category"): how many of 6
# psychiatrists put each of 15 patients in depression, personality disorder,
# schizophrenia, neurosis, other (Fleiss 1971's first 15 patients).
GWET_DISTRIB_6RATERS: list[list[int]] = [
    [0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
    [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
    [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1],
]  # fmt: skip

# Two-rater contingency tables (rows: rater A, columns: rater B).
# Wikipedia, "Cohen's kappa", first example: 50 grant proposals, yes/no.
COHEN_WIKIPEDIA = [[20, 5], [10, 15]]
# Gwet (2014) / irrCAC ``cont3x3abstractors``: 100 pregnancies, 3 types.
GWET_ABSTRACTORS = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]
# Gwet (2014) / irrCAC ``cont4x4diagnosis``: 223 psychiatric patients.
GWET_DIAGNOSIS = [[40, 4, 4, 17], [6, 25, 2, 13], [4, 1, 21, 12], [15, 5, 9, 45]]
# Stata Base Reference Manual, [R] kappa, rate2.dta: two radiologists rating
# 85 xeromammograms normal / benign / suspected cancer / cancer.
STATA_RATE2 = [[21, 12, 0, 0], [4, 17, 1, 0], [3, 9, 15, 2], [0, 0, 0, 1]]


def wide(columns: dict[str, Sequence[object]], level: str = "nominal", **kw: object) -> RatingTable:
    return RatingTable.from_wide(columns, level=level, **kw)  # type: ignore[arg-type]


def from_category_counts(counts: Sequence[Sequence[int]], level: str = "nominal") -> RatingTable:
    """A table whose unit i has counts[i][k] ratings of category k (raters 0, 1, ...)."""
    rows: list[tuple[Hashable, Hashable, object]] = []
    for unit, row in enumerate(counts):
        rater = 0
        for category, n in enumerate(row):
            for _ in range(n):
                rows.append((unit, rater, category + 1))
                rater += 1
    return RatingTable.from_rows(rows, level=level)


def from_contingency(table: Sequence[Sequence[int]], level: str = "nominal") -> RatingTable:
    """Two raters A and B; one unit per count in cell (i, j), categories 1..k."""
    rows: list[tuple[Hashable, Hashable, object]] = []
    unit = 0
    for i, row in enumerate(table):
        for j, n in enumerate(row):
            for _ in range(n):
                rows += [(unit, "A", i + 1), (unit, "B", j + 1)]
                unit += 1
    k = len(table)
    return RatingTable.from_rows(rows, level=level, domain=list(range(1, k + 1)))
