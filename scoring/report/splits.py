"""Split a study's data by item provenance (``--by source,condition``).

Each combination of the keys' values that some answered item has gives one subset of
the responses (the items, raters and tasks stay whole); a table built on each subset
gets the combination as its first columns. A missing value (a quiz question has no
source) is its own combination, written None (JSON null, an empty CSV cell).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from scoring.report.data import StudyData

Combination = dict[str, Any]


def _plain(value: Any) -> Any:
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, np.integer):
        return int(value)
    return value


def _order(combo: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((v is None, v if v is not None else "") for v in combo)


def split_data(data: StudyData, keys: Sequence[str]) -> list[tuple[Combination, StudyData]]:
    """(combination, the data of its items) for every combination with responses."""
    if not keys:
        return [({}, data)]
    frame = data.responses
    labels = data.items.loc[:, list(keys)].astype(object)
    combos = [tuple(_plain(v) for v in row) for row in labels.itertuples(index=False)]
    index: dict[tuple[Any, ...], int] = {}
    item_code = np.fromiter((index.setdefault(c, len(index)) for c in combos), dtype=np.int64)
    by_item = pd.Series(item_code, index=labels.index)
    codes = by_item.reindex(frame["item"].to_numpy()).to_numpy()
    groups = pd.Series(np.arange(len(codes))).groupby(codes).indices if len(codes) else {}
    names = {code: combo for combo, code in index.items()}
    out = []
    for code in sorted(groups, key=lambda c: _order(names[c])):
        rows = frame.iloc[groups[code]].reset_index(drop=True)
        out.append((dict(zip(keys, names[code], strict=True)), replace(data, responses=rows)))
    return out
