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


def order(combo: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((v is None, v if v is not None else "") for v in combo)


def item_labels(data: StudyData, keys: Sequence[str]) -> pd.DataFrame:
    """Each item's values of ``keys`` as plain Python values (None when missing)."""
    labels = data.items.loc[:, list(keys)]
    columns = {k: [_plain(v) for v in labels[k].tolist()] for k in keys}
    return pd.DataFrame(columns, index=labels.index, dtype=object)


def combination_codes(labels: pd.DataFrame) -> tuple[np.ndarray, dict[int, tuple[Any, ...]]]:
    """A code per row of ``labels`` (one per distinct combination) and code -> combination."""
    rows = zip(*(labels[k].tolist() for k in labels.columns), strict=True) if len(labels) else []
    index: dict[tuple[Any, ...], int] = {}
    codes = np.fromiter((index.setdefault(tuple(r), len(index)) for r in rows), dtype=np.int64)
    return codes, {code: combo for combo, code in index.items()}


def split_data(data: StudyData, keys: Sequence[str]) -> list[tuple[Combination, StudyData]]:
    """(combination, the data of its items) for every combination with responses."""
    if not keys:
        return [({}, data)]
    frame = data.responses
    item_code, names = combination_codes(item_labels(data, keys))
    by_item = pd.Series(item_code, index=data.items.index)
    codes = by_item.reindex(frame["item"].to_numpy()).to_numpy()
    groups = pd.Series(np.arange(len(codes))).groupby(codes).indices if len(codes) else {}
    out = []
    for code in sorted(groups, key=lambda c: order(names[c])):
        rows = frame.iloc[groups[code]].reset_index(drop=True)
        out.append((dict(zip(keys, names[code], strict=True)), replace(data, responses=rows)))
    return out
