"""Classical item analysis on a small complete design, recomputed with pandas/scipy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from scoring.agreement.items import item_analysis, kelley_groups, option_analysis, rest_scores

# 6 people × 4 items, 1 = right (a complete design: rest = corrected total / 3)
RIGHT = np.array(
    [
        [1, 1, 1, 0],
        [1, 1, 0, 1],
        [1, 0, 1, 0],
        [1, 0, 0, 1],
        [0, 1, 0, 0],
        [1, 0, 0, 0],
    ],
    dtype=float,
)
CHOSEN = np.where(RIGHT == 1, 0, np.array([[1, 2, 2, 1]] * 6))


def long() -> pd.DataFrame:
    person, item = np.meshgrid(np.arange(6), np.arange(4), indexing="ij")
    return pd.DataFrame(
        {
            "person": person.ravel(),
            "item": item.ravel(),
            "right": RIGHT.ravel(),
            "chosen": CHOSEN.ravel(),
        }
    )


def test_difficulty_and_corrected_item_total_correlation() -> None:
    df = long()
    s = item_analysis(df.person.to_numpy(), df.item.to_numpy(), df.right.to_numpy(), 4)
    assert s.difficulty.tolist() == pytest.approx(RIGHT.mean(axis=0).tolist())
    total = RIGHT.sum(axis=1)
    for j in range(4):
        corrected = total - RIGHT[:, j]  # the classic corrected item-total correlation
        r = stats.pearsonr(RIGHT[:, j], corrected).statistic
        assert s.discrimination[j] == pytest.approx(r)
    # item 0: 5 of 6 right; its D with upper/lower groups of round(0.27*6) = 2 people
    upper, lower = kelley_groups(df.person.to_numpy(), df.right.to_numpy())
    assert sorted(set(df.person[upper])) == [0, 1]  # totals 3, 3 (ties by id)
    assert sorted(set(df.person[lower])) == [4, 5]  # totals 1, 1
    assert s.d_index[3] == pytest.approx(RIGHT[[0, 1], 3].mean() - RIGHT[[4, 5], 3].mean())


def test_options_share_and_point_biserial() -> None:
    df = long()
    o = option_analysis(
        df.person.to_numpy(), df.item.to_numpy(), df.right.to_numpy(), df.chosen.to_numpy(), 4, 3
    )
    rest = rest_scores(df.person.to_numpy(), df.right.to_numpy())
    for j in range(4):
        unit = df.item.to_numpy() == j
        for k in range(3):
            picked = (df.chosen.to_numpy()[unit] == k).astype(float)
            assert o.share[j, k] == pytest.approx(picked.mean())
            if picked.std() > 0:
                pb = stats.pearsonr(picked, rest[unit]).statistic
                assert o.point_biserial[j, k] == pytest.approx(pb)
            else:
                assert np.isnan(o.point_biserial[j, k])


def test_a_lone_respondent_has_no_rest_score() -> None:
    rest = rest_scores(np.array([0, 1, 1]), np.array([1.0, 1.0, 0.0]))
    assert np.isnan(rest[0]) and rest.tolist()[1:] == [0.0, 1.0]
    with pytest.raises(ValueError, match="option index"):
        option_analysis(np.array([0]), np.array([0]), np.array([1.0]), np.array([5]), 1, 3)
