"""Line-length alignment of a poem against a template: which lines are too long or short.

Rule: a weighted edit alignment of the poem's line lengths to the template's phrase lengths
(the structure the CCiV structural rule compares).  Operations and costs:

* ``ok`` (same length, 0), ``too_long`` / ``too_short`` (different length, the difference);
* ``merged``: one poem line = 2 or 3 consecutive template phrases (a missing comma: 0.5);
* ``split``: 2 or 3 poem lines = one template phrase (an extra comma: 0.5);
* ``moved``: 2 poem lines = 2 template phrases of the same joint length, broken elsewhere
  (鱼龙隐处，烟雾深锁渺弥间 4+7 for 6+5: the comma moved, 1);
* ``extra`` / ``missing``: a poem line with no phrase, or a phrase with no line (its length).

The cheapest alignment explains a failure line by line; the template with the cheapest
alignment is the *nearest* template.  For speed the search stays within a diagonal band
(line offsets up to the line-count difference plus 4), which every realistic failure fits.
"""

from __future__ import annotations

import itertools
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
    poem: tuple[int, ...], candidates: list[tuple[str, tuple[int, ...]]], *, shortlist: int = 2
) -> tuple[str, float, list[dict[str, Any]]] | None:
    """The candidate (id, lengths) with the cheapest alignment; only a shortlist is aligned.

    The shortlist is the candidates closest in total length, then in number of lines.
    """
    if not candidates:
        return None
    total = sum(poem)
    ranked = sorted(
        enumerate(candidates),
        key=lambda ic: (abs(sum(ic[1][1]) - total), abs(len(ic[1][1]) - len(poem)), ic[0]),
    )[:shortlist]
    best: tuple[str, float, list[dict[str, Any]]] | None = None
    for _, (tid, lengths) in ranked:
        if best is not None and abs(sum(lengths) - total) >= best[1]:
            continue  # the total difference is a lower bound on the cost
        c, ops = align(poem, lengths)
        if best is None or c < best[1]:
            best = (tid, c, ops)
    return best
