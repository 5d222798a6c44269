"""RatingTable: long rows in, sparse codes, count matrix and pairs out."""

from __future__ import annotations

import math

import numpy as np
import pytest
from agreement_examples import KRIPPENDORFF_2011, wide

from scoring.agreement import RatingTable, krippendorff_alpha, parse_cell


def test_from_rows_drops_missing_values_and_sorts_numeric_domain() -> None:
    rows = [("u1", "r1", 3), ("u1", "r2", None), ("u2", "r1", 1), ("u2", "r2", math.nan)]
    table = RatingTable.from_rows(rows, level="interval")
    assert table.n_ratings == 2
    assert table.domain == (1, 3)
    assert table.n_units == 2
    assert table.n_raters == 1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(("level", "expected"), [("nominal", 0.743), ("interval", 0.849)])
def test_numpy_nan_is_missing_in_wide_columns_and_rows(dtype, level, expected) -> None:
    # Krippendorff (2011, section C): nominal alpha 0.743, interval 0.849 with the
    # missing values. Columns read from numpy arrays hold np.float64/np.float32
    # NaN, not Python floats; they were kept as (distinct) categories before.
    columns = {
        rater: np.asarray([np.nan if v is None else v for v in col], dtype=dtype)
        for rater, col in KRIPPENDORFF_2011.items()
    }
    table = RatingTable.from_wide(columns, level=level)
    assert table.n_ratings == 41 and len(table.domain) == 5
    assert round(krippendorff_alpha(table).value, 3) == expected
    rows = [(u, r, col[u]) for r, col in columns.items() for u in range(12)]
    assert RatingTable.from_rows(rows, level=level).n_ratings == 41
    objects = np.asarray([v for _, _, v in rows], dtype=object)
    units, raters = [u for u, _, _ in rows], [r for _, r, _ in rows]
    assert RatingTable.from_arrays(units, raters, objects, level=level).n_ratings == 41


def test_counts_are_units_by_values() -> None:
    table = wide(KRIPPENDORFF_2011, level="ordinal", units=list(range(1, 13)))
    counts = table.counts()
    assert counts.shape == (12, 5)
    row6 = counts[table.units.index(6)]
    assert row6.tolist() == [1, 1, 1, 1, 0]  # unit 6: values 1, 2, 3, 4
    assert counts.sum() == 41


def test_declared_domain_keeps_unused_values_in_declared_order() -> None:
    rows = [(1, "a", "low"), (1, "b", "high")]
    table = RatingTable.from_rows(rows, level="ordinal", domain=["low", "mid", "high"])
    assert table.domain == ("low", "mid", "high")
    assert table.counts().tolist() == [[1, 0, 1]]


def test_value_outside_declared_domain_is_rejected() -> None:
    with pytest.raises(ValueError, match="outside the declared domain"):
        RatingTable.from_rows([(1, "a", 6)], level="interval", domain=[1, 2, 3, 4, 5])


def test_rating_a_unit_twice_is_rejected() -> None:
    with pytest.raises(ValueError, match="more than once"):
        RatingTable.from_rows([(1, "a", 2), (1, "a", 3)])


def test_interval_level_needs_numbers() -> None:
    with pytest.raises(ValueError, match="numeric"):
        RatingTable.from_rows([(1, "a", "x"), (1, "b", "y")], level="interval")


def test_ratio_level_rejects_negative_values() -> None:
    with pytest.raises(ValueError, match="negative"):
        RatingTable.from_rows([(1, "a", -1), (1, "b", 2)], level="ratio")


def test_unknown_level_is_rejected() -> None:
    with pytest.raises(ValueError, match="level must be one of"):
        RatingTable.from_rows([], level="cardinal")


def test_nominal_labels_of_mixed_types_are_kept() -> None:
    table = RatingTable.from_rows([(1, "a", "x"), (1, "b", 2), (2, "a", (1, 2))])
    assert set(table.domain) == {"x", 2, (1, 2)}


def test_pairs_align_units_rated_by_both_raters() -> None:
    table = wide(KRIPPENDORFF_2011, level="interval", units=list(range(1, 13)))
    a, b = table.pairs("A", "C")
    # A and C both rated units 2-9.
    values = np.asarray(table.domain)
    assert values[a].tolist() == [2, 3, 3, 2, 1, 4, 1, 2]
    assert values[b].tolist() == [3, 3, 3, 2, 3, 4, 2, 2]
    with pytest.raises(KeyError):
        table.pairs("A", "Z")


def test_from_arrays_matches_from_rows() -> None:
    units = np.asarray([1, 1, 2, 2, 3])
    raters = np.asarray([10, 11, 10, 11, 10])
    values = np.asarray([1.0, 2.0, np.nan, 3.0, 3.0])
    fast = RatingTable.from_arrays(units, raters, values, level="interval")
    slow = RatingTable.from_rows(
        zip(units.tolist(), raters.tolist(), values.tolist(), strict=True), level="interval"
    )
    assert fast.n_ratings == slow.n_ratings == 4
    assert fast.counts().tolist() == slow.counts().tolist()
    with pytest.raises(ValueError, match="equal length"):
        RatingTable.from_arrays([1], [1, 2], [1])


def test_wide_round_trips() -> None:
    table = wide(KRIPPENDORFF_2011, level="interval")
    matrix = table.wide()
    assert matrix.shape == (4, 12)
    assert np.isnan(matrix).sum() == 4 * 12 - 41


def test_from_wide_rejects_ragged_columns() -> None:
    with pytest.raises(ValueError, match="one entry per unit"):
        RatingTable.from_wide({"a": [1, 2], "b": [1]})


def test_resample_units_copies_whole_units() -> None:
    table = wide(KRIPPENDORFF_2011, level="nominal")
    draws = np.asarray([5, 5, 0])
    boot = table.resample_units(draws)
    assert boot.n_units == 3
    counts = boot.counts()
    original = table.counts()
    assert counts.tolist() == original[draws].tolist()


def test_with_level_rejects_non_numeric_for_interval() -> None:
    table = RatingTable.from_rows([(1, "a", "x"), (1, "b", "y")])
    with pytest.raises(ValueError):
        table.with_level("interval")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3", 3),
        (" 2.5 ", 2.5),
        ("", None),
        (".", None),
        ("NA", None),
        ("nan", None),
        (None, None),
        ("好", "好"),
        ("inf", "inf"),
    ],
)
def test_parse_cell_reads_csv_ratings(text: str | None, value: object) -> None:
    assert parse_cell(text) == value


def test_as_row_can_be_strict_json() -> None:
    import json

    row = krippendorff_alpha(RatingTable.from_rows([])).as_row(nan_as_none=True)
    assert row["value"] is None and row["ci_low"] is None
    json.dumps(row, allow_nan=False)
