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
from typing import Any

_PUNCT_COST = 0.5
_MOVED_COST = 1.0
_BAND = 4  # only cells within |i - j| <= |m - n| + 4 are explored (speed; ample in practice)


def align(poem: tuple[int, ...], tmpl: tuple[int, ...]) -> tuple[float, list[dict[str, Any]]]:
    """Cheapest alignment of poem line lengths to template phrase lengths: (cost, ops)."""
    m, n = len(poem), len(tmpl)
    pp = [0, *itertools.accumulate(poem)]
    tp = [0, *itertools.accumulate(tmpl)]
    inf = float("inf")
    cost = [[inf] * (n + 1) for _ in range(m + 1)]
    back: list[list[tuple[int, int, str] | None]] = [[None] * (n + 1) for _ in range(m + 1)]
    cost[0][0] = 0.0
    band = abs(m - n) + _BAND
    for i in range(m + 1):
        for j in range(max(0, i - band), min(n, i + band) + 1):
            c = cost[i][j]
            if c == inf:
                continue
            moves: list[tuple[int, int, float, str]] = []
            if i < m:
                moves.append((i + 1, j, poem[i], "extra"))
                if j < n:
                    d = poem[i] - tmpl[j]
                    op = "ok" if d == 0 else ("too_long" if d > 0 else "too_short")
                    moves.append((i + 1, j + 1, abs(d), op))
                    if (
                        i + 2 <= m
                        and j + 2 <= n
                        and poem[i] != tmpl[j]
                        and pp[i + 2] - pp[i] == tp[j + 2] - tp[j]
                    ):
                        moves.append((i + 2, j + 2, _MOVED_COST, "moved"))
                    for k in (2, 3):
                        if j + k <= n and tp[j + k] - tp[j] == poem[i]:
                            moves.append((i + 1, j + k, _PUNCT_COST, "merged"))
                        if i + k <= m and pp[i + k] - pp[i] == tmpl[j]:
                            moves.append((i + k, j + 1, _PUNCT_COST, "split"))
            if j < n:
                moves.append((i, j + 1, tmpl[j], "missing"))
            for ni, nj, add, op in moves:
                if c + add <= cost[ni][nj]:
                    cost[ni][nj] = c + add
                    back[ni][nj] = (i, j, op)
    ops: list[dict[str, Any]] = []
    i, j = m, n
    while (i, j) != (0, 0):
        step = back[i][j]
        assert step is not None
        pi, pj, op = step
        ops.append(
            {
                "op": op,
                "poem_lines": list(range(pi, i)),
                "template_lines": list(range(pj, j)),
                "poem_len": pp[i] - pp[pi],
                "template_len": tp[j] - tp[pj],
            }
        )
        i, j = pi, pj
    ops.reverse()
    return cost[m][n], ops


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
        c, ops = align(poem, lengths)
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
