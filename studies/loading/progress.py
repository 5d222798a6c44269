"""Progress of long loops: a bar on an interactive terminal, and/or a callback.

``progress()`` is the one hook every loader's long loop goes through. The bar is for
people at a terminal (``enabled``); the callback is for whoever else is watching, such
as a background job that keeps its row's ``done``/``total`` up to date. The callback is
called with ``(label, done, total)`` at most every ``every`` items and once at the end,
so it costs nothing noticeable per row.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Protocol, TypeVar

from tqdm import tqdm

T = TypeVar("T")


class ProgressCallback(Protocol):
    def __call__(self, label: str, done: int, total: int | None) -> None: ...


def progress(
    items: Iterable[T],
    enabled: bool,
    label: str,
    *,
    callback: ProgressCallback | None = None,
    total: int | None = None,
    every: int = 200,
) -> Iterator[T]:
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    if enabled:
        items = tqdm(
            items,
            desc=label,
            total=total,
            unit=" rows",
            file=sys.stderr,
            leave=False,
            mininterval=0.5,
            disable=None,
        )
    if callback is None:
        yield from items
        return
    done = 0
    callback(label, 0, total)
    for item in items:
        yield item
        done += 1
        if done % every == 0:
            callback(label, done, max(total, done) if total is not None else None)
    callback(label, done, done)
