"""Line-length alignment of a poem against a template: which lines are too long or short.

Rule: a weighted edit alignment of the poem's line lengths to the template's phrase lengths
(the structure the CCiV structural rule compares).  Operations and costs:

* ``ok`` (same length, 0), ``too_long`` / ``too_short`` (different length, the difference);
* ``merged``: one poem line = 2 or 3 consecutive template phrases (a missing comma: 0.5);
* ``split``: 2 or 3 poem lines = one template phrase (an extra comma: 0.5);
* ``moved``: 2 poem lines = 2 template phrases of the same joint length, broken elsewhere
  (鱼龙隐处，烟雾深锁渺弥间 4+7 for 6+5: the comma moved, 1);
* ``extra`` / ``missing``: a poem line with no phrase, or a phrase with no line (its length).

The cheapest alignment explains a failure line by line; the *nearest* template is the one,
among all of the cipai's, with the cheapest alignment plus one per rhyme position of it
whose character does not rhyme (:func:`nearest`).  For speed the search stays within a diagonal band
(line offsets up to the line-count difference plus 4), which every realistic failure fits.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import lru_cache
from typing import Any

PUNCT_COST = 0.5  # a missing or extra comma
_MOVED_COST = 1.0
_BAND = 4  # only cells within |i - j| <= |m - n| + 4 are explored (speed; ample in practice)


_Op = tuple[str, int, int, int, int]  # op, poem lines from, to, template lines from, to


def align(
    poem: tuple[int, ...], tmpl: tuple[int, ...], limit: float = float("inf")
) -> tuple[float, list[dict[str, Any]]]:
    """Cheapest alignment of poem line lengths to template phrase lengths: (cost, ops).

    Cached by the two shapes (a failing poem is aligned again when its form is tried
    without a title line, and poems of one shape recur); the ops are fresh dicts.
    ``limit``: only an alignment costing at most this is wanted; a dearer one is not
    searched to the end, and ``(inf, [])`` is returned for it."""
    c, steps = _align(poem, tmpl, limit)
    if c > limit:
        return float("inf"), []
    pp, tp = _shape(poem)[0], _shape(tmpl)[0]
    return c, [
        {
            "op": op,
            "poem_lines": list(range(pi, i)),
            "template_lines": list(range(pj, j)),
            "poem_len": pp[i] - pp[pi],
            "template_len": tp[j] - tp[pj],
        }
        for op, pi, i, pj, j in steps
    ]


def clear_cache() -> None:
    """Forget cached alignments and shapes (for benchmarks)."""
    _align.cache_clear()
    _shape.cache_clear()


_Shape = tuple[tuple[int, ...], tuple[int, ...], tuple[int | None, ...], tuple[int | None, ...]]


@lru_cache(maxsize=4096)
def _shape(lengths: tuple[int, ...]) -> _Shape:
    """Of line (or phrase) lengths: the prefix sums, what is left after each, and the
    joined lengths of 2 and 3 consecutive ones from each on (None past the end).  Cached:
    a failing poem is aligned against every template of its cipai."""
    prefix = tuple(itertools.accumulate(lengths, initial=0))
    rest = tuple(prefix[-1] - x for x in prefix)
    return prefix, rest, _joined(prefix, 2), _joined(prefix, 3)


@lru_cache(maxsize=8192)
def _align(
    poem: tuple[int, ...], tmpl: tuple[int, ...], limit: float = float("inf")
) -> tuple[float, tuple[_Op, ...]]:
    """(cost, steps) of the cheapest alignment, exact whenever it costs at most ``limit``.

    Every move costs at least the change it makes to (poem characters left - template
    characters left), so a cell's cost plus the absolute difference of what is left is a
    lower bound on any alignment through it; each cell on the cheapest path has a bound
    of at most the total.  Cells whose bound exceeds ``limit`` are not expanded: what
    they would relax is dearer than the cheapest path through the cell it reaches, so the
    cost and back pointer of every cell whose bound is within ``limit`` -- and so the
    path -- are as without it.  A result dearer than ``limit`` has no steps."""
    m, n = len(poem), len(tmpl)
    pp, _, p2s, p3s = _shape(poem)
    _, rest, t2, t3 = _shape(tmpl)  # rest: template characters left after phrase j
    inf = float("inf")
    # (two spare rows past the last, never written: a join of lines past the end is None)
    cost = [[inf] * (n + 1) for _ in range(m + 3)]
    back: list[list[tuple[int, int, str] | None]] = [[None] * (n + 1) for _ in range(m + 3)]
    cost[0][0] = 0.0
    band = abs(m - n) + _BAND
    # The moves of each cell are relaxed inline, in a fixed order (extra, the diagonal,
    # moved, merged/split by 2 then 3, missing) with ``<=``: on equal cost the later move
    # wins, which decides the alignment reported among equally cheap ones.  A cell
    # relaxes cells up to three rows on: when no cell of the last three rows was expanded
    # (all beyond ``limit``), nothing further is reached and the end costs inf.
    reach = 0  # the last row an expanded cell may have reached
    for i in range(m):
        if i > reach:
            break
        row, brow = cost[i], back[i]
        lo, hi = max(0, i - band), min(n, i + band) + 1
        pl = poem[i]
        nrow, nback = cost[i + 1], back[i + 1]
        left = pp[m] - pp[i]  # poem characters left after line i
        p2, p3 = p2s[i], p3s[i]
        row2, brow2, row3, brow3 = cost[i + 2], back[i + 2], cost[i + 3], back[i + 3]
        for j in range(lo, hi):
            c = row[j]
            if c == inf or c + abs(left - rest[j]) > limit:
                continue
            reach = i + 3
            v = c + pl
            if v <= nrow[j]:
                nrow[j], nback[j] = v, (i, j, "extra")
            if j < n:
                tl = tmpl[j]
                d = pl - tl
                v = c + (d if d >= 0 else -d)
                if v <= nrow[j + 1]:
                    op = "ok" if d == 0 else ("too_long" if d > 0 else "too_short")
                    nrow[j + 1], nback[j + 1] = v, (i, j, op)
                if d and p2 is not None and t2[j] == p2:
                    v = c + _MOVED_COST
                    if v <= row2[j + 2]:
                        row2[j + 2], brow2[j + 2] = v, (i, j, "moved")
                v = c + PUNCT_COST
                if t2[j] == pl and v <= nrow[j + 2]:
                    nrow[j + 2], nback[j + 2] = v, (i, j, "merged")
                if p2 == tl and v <= row2[j + 1]:
                    row2[j + 1], brow2[j + 1] = v, (i, j, "split")
                if t3[j] == pl and v <= nrow[j + 3]:
                    nrow[j + 3], nback[j + 3] = v, (i, j, "merged")
                if p3 == tl and v <= row3[j + 1]:
                    row3[j + 1], brow3[j + 1] = v, (i, j, "split")
                v = c + tl
                if v <= row[j + 1]:
                    row[j + 1], brow[j + 1] = v, (i, j, "missing")
    lo, hi = max(0, m - band), min(n, m + band) + 1
    _last_row(cost[m], back[m], tmpl, m, lo, min(hi, n))  # the last poem row
    return _result(cost, back, m, n, limit)


def _result(
    cost: list[list[float]],
    back: list[list[tuple[int, int, str] | None]],
    m: int,
    n: int,
    limit: float,
) -> tuple[float, tuple[_Op, ...]]:
    """(cost, steps) of the last cell; no steps when it costs more than ``limit``."""
    if cost[m][n] > limit:
        return cost[m][n], ()
    return cost[m][n], _trace(back, m, n)


def _joined(prefix: tuple[int, ...], k: int) -> tuple[int | None, ...]:
    """Lengths of ``k`` consecutive lines (or phrases) from each one on, from their prefix
    sums; None where they would run past the end."""
    n = len(prefix) - 1
    return tuple(prefix[j + k] - prefix[j] if j + k <= n else None for j in range(n + 1))


def _last_row(
    row: list[float], brow: list[tuple[int, int, str] | None], tmpl: tuple[int, ...], i: int,
    lo: int, hi: int,
) -> None:  # fmt: skip
    """The last poem row: only template phrases can still be missing."""
    for j in range(lo, hi):
        c = row[j]
        if c != float("inf") and c + tmpl[j] <= row[j + 1]:
            row[j + 1], brow[j + 1] = c + tmpl[j], (i, j, "missing")


def _trace(back: list[list[tuple[int, int, str] | None]], m: int, n: int) -> tuple[_Op, ...]:
    steps: list[_Op] = []
    i, j = m, n
    while (i, j) != (0, 0):
        step = back[i][j]
        assert step is not None
        pi, pj, op = step
        steps.append((op, pi, i, pj, j))
        i, j = pi, pj
    steps.reverse()
    return tuple(steps)


def nearest(
    poem: tuple[int, ...],
    candidates: list[tuple[str, tuple[int, ...]]],
    *,
    rhyme_misses: Callable[[str, list[dict[str, Any]]], int] | None = None,
) -> tuple[str, float, list[dict[str, Any]], int] | None:
    """The candidate (id, lengths) nearest the poem: (id, cost, ops, rhyme misses).

    Every candidate is considered.  The distance is the alignment cost of the line lengths
    plus, when ``rhyme_misses`` is given (called with the candidate's id and alignment),
    the number of the candidate's rhyme positions whose aligned character does not rhyme
    with the rest of its set (one per miss, the weight of one character of length): of two forms of the same shape, the one whose rhymes the
    poem keeps (a 仄韵 体 against a 平韵 体) is nearer.  Ties go to the earlier candidate.
    """
    total = sum(poem)
    ranked = sorted(enumerate(candidates), key=lambda ic: (abs(sum(ic[1][1]) - total), ic[0]))
    best: tuple[str, float, list[dict[str, Any]], int] | None = None
    best_key: tuple[float, int] | None = None
    for order, (tid, lengths) in ranked:
        if best is not None and abs(sum(lengths) - total) > best[1]:
            continue  # the total difference is a lower bound on the cost
        c, ops = align(poem, lengths, best[1] if best is not None else float("inf"))
        if best is not None and c > best[1]:
            continue
        misses = rhyme_misses(tid, ops) if rhyme_misses is not None else 0
        key = (c + misses, order)
        if best_key is None or key < best_key:
            best, best_key = (tid, c + misses, ops, misses), key
    return best


def phrase_ends(ops: list[dict[str, Any]], tmpl: tuple[int, ...]) -> dict[int, int]:
    """Template phrase-end offset -> the poem offset aligned with it (last character of the
    poem lines aligned with a run of template phrases ending there)."""
    tp = [0, *itertools.accumulate(tmpl)]
    out: dict[int, int] = {}
    poem_end = 0
    for o in ops:
        poem_end += o["poem_len"] if o["poem_lines"] else 0
        if o["template_lines"] and o["poem_lines"]:
            out[tp[o["template_lines"][-1] + 1] - 1] = poem_end - 1
    return out
