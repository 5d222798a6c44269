"""Small-sample intervals for a difference of two means (issue 23, docs/statistics.md §24).

Welch's t under-covers with a small side against a large one on skewed data. This study
simulates candidate intervals on the shapes of §24, with no true difference:

* shapes: ``normal``; ``gamma`` (Gamma(2, 0.5) − 1: skewness 1.41, the bench_coverage
  echo-chamber gap); ``ratings`` (a poem's gap = one judge's 1–5 rating − the mean of 3
  people's, all from the same skewed distribution on 1–5);
* sides: equal 3, 5, 10, 20; a small side of 3, 4, 5, 8 against 10 or 20; and, for
  normal and gamma, the first side's SD 2 × or ½ × the second's;
* candidates (each two-sided, nominal 95 %):
  - ``welch``: Welch's t (Satterthwaite df);
  - ``welch_hall`` (adopted): ``hall_t`` below with the skewness of the difference from
    one shape and scale shared by both sides: γ (1/n_a² − 1/n_b²)/(1/n_a + 1/n_b)^1.5, γ
    the adjusted skewness of both sides' residuals pooled
    (``scoring.agreement.gaps.skew_corrected_columns``, its default);
  - ``hall_t``: Hall's (1992) cubic transformation of the Welch-studentised difference,
    the skewness of the difference estimated from each side's unbiased third cumulant,
    Welch's t quantile;
  - ``hall_z``: the same with the normal quantile (Hall's own);
  - ``hall_t_m3``: ``hall_t`` with the plug-in third moments;
  - ``hall_t_pooled``: ``hall_t`` with one standardised skewness shared by both sides
    (pooled over both sides' standardised residuals);
  - ``hall_z_shape``: ``welch_hall`` with the normal quantile;
  - ``boot_t``: the studentised (bootstrap-t) interval, Welch's SE in each replicate
    (Efron & Tibshirani 1993, §12.5), B = 999 (``--boot``; slow).

Every candidate sees the same draws in a cell. Writes bench/results/welch.json and prints
a markdown table. Usage: python bench/bench_welch.py [--reps N] [--boot] [--only SHAPE]

``--grid minside`` (issue 23 item 4: the minimum side chosen by its coverage) runs
``minside_cells()`` instead: every shape above with a small side of each candidate minimum
(``MIN_SIDES``: 3, 4, 5) and of 8 against itself, 10, 20 and 40 poems (and the SD ratios),
writes bench/results/welch_minside.json and, per candidate minimum m, the coverage span
over every cell whose smaller side is at least m (``by_min_side``), the §24 shapes
(normal, gamma, 1–5 ratings, with their SD ratios) and the shapes beyond them apart.
``--candidates welch,welch_hall`` keeps only those intervals.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench.common import write_result  # noqa: E402
from scoring.agreement.gaps import skew_corrected_columns, welch_columns  # noqa: E402

GOAL = (0.93, 0.97)
RATING_P = np.array([0.05, 0.10, 0.20, 0.35, 0.30])  # skewed towards 5
Pair = tuple[np.ndarray, np.ndarray]
Candidate = Callable[[np.ndarray, np.ndarray, np.random.Generator], Pair]


@dataclass(frozen=True)
class Cell:
    shape: str
    n_a: int
    n_b: int
    sd_ratio: float = 1.0  # SD of side a / SD of side b

    @property
    def label(self) -> str:
        sd = "" if self.sd_ratio == 1 else f", SD a/b = {self.sd_ratio:g}"
        return f"{self.shape} {self.n_a} vs {self.n_b}{sd}"


def draw(shape: str, n: int, reps: int, sd: float, rng: np.random.Generator) -> np.ndarray:
    """n × reps values of mean 0 (columns are replicates)."""
    if shape == "exponential":
        return (rng.exponential(1.0, (n, reps)) - 1.0) * sd
    if shape == "normal":
        return rng.normal(0.0, sd, (n, reps))
    if shape == "gamma":
        return (rng.gamma(2.0, 0.5, (n, reps)) - 1.0) * sd
    judge = rng.choice(5, size=(n, reps), p=RATING_P) + 1.0
    people = (rng.choice(5, size=(n, reps, 3), p=RATING_P) + 1.0).mean(axis=2)
    return (judge - people) * sd


def cells() -> list[Cell]:
    sides = [(k, k) for k in (3, 5, 10, 20)] + [(a, b) for a in (3, 4, 5, 8) for b in (10, 20)]
    out = [Cell(s, a, b) for s in ("normal", "gamma", "ratings") for a, b in sides]
    out += [
        Cell(s, a, b, r)
        for s in ("normal", "gamma")
        for r in (2.0, 0.5)
        for a, b in [(3, 3), (5, 5), (10, 10), (3, 10), (3, 20), (5, 20), (8, 20)]
    ]
    # beyond §24's shapes: a stronger skew (exponential, skewness 2), and sides of
    # different shapes (``a/b``: side a's shape, side b's) against the shared-shape estimate
    out += [
        Cell(s, a, b)
        for s in ("exponential", "gamma/normal", "normal/gamma")
        for a, b in [(3, 3), (5, 5), (3, 10), (3, 20), (5, 20), (8, 20)]
    ]
    return out


#: Candidate minimum sides of the ``minside`` grid, and the shapes of docs/statistics.md §24.
MIN_SIDES = (3, 4, 5)
S24_SHAPES = ("normal", "gamma", "ratings")


def minside_cells() -> list[Cell]:
    """Every shape with a small side of 3, 4, 5 or 8 poems against itself, 10, 20 and 40
    poems (and 10 and 20 a side); normal and gamma also with the first side's SD 2 × and
    ½ × the second's."""
    small = (*MIN_SIDES, 8)
    sides = [(a, b) for a in small for b in (a, 10, 20, 40)] + [(10, 10), (20, 20)]
    out = [Cell(s, a, b) for s in S24_SHAPES for a, b in sides]
    out += [Cell(s, a, b, r) for s in ("normal", "gamma") for r in (2.0, 0.5) for a, b in sides]
    out += [
        Cell(s, a, b) for s in ("exponential", "gamma/normal", "normal/gamma") for a, b in sides
    ]
    return out


def by_min_side(rows: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """For each candidate minimum m: the coverage span of ``name`` over the cells whose
    smaller side is at least m, for the §24 shapes and for the shapes beyond them, with
    the cells outside the goal."""
    out: dict[str, Any] = {}
    for m in MIN_SIDES:
        entry: dict[str, Any] = {}
        for part in ("s24", "beyond"):
            sel = [
                r
                for r in rows
                if min(r["n_a"], r["n_b"]) >= m and (r["shape"] in S24_SHAPES) == (part == "s24")
            ]
            covs = [r[name]["coverage"] for r in sel]
            outside = [
                (r["cell"], r[name]["coverage"])
                for r in sel
                if not GOAL[0] <= round(r[name]["coverage"], 3) <= GOAL[1]
            ]
            entry[part] = {
                "cells": len(sel),
                "min": min(covs, default=None),
                "max": max(covs, default=None),
                "outside": outside,
            }
        out[str(m)] = entry
    return out


def _welch(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> Pair:
    low, high, _ = welch_columns(a, b)
    return low, high


def _hall(moments: str, critical: str) -> Candidate:
    def run(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> Pair:
        low, high, _ = skew_corrected_columns(a, b, moments=moments, critical=critical)
        return low, high

    return run


def _welch_se(a: np.ndarray, b: np.ndarray, axis: int) -> np.ndarray:
    na, nb = a.shape[axis], b.shape[axis]
    return np.sqrt(a.var(axis=axis, ddof=1) / na + b.var(axis=axis, ddof=1) / nb)


def boot_t(
    a: np.ndarray, b: np.ndarray, rng: np.random.Generator, n_boot: int = 999, chunk: int = 100
) -> Pair:
    """Bootstrap-t interval per column: T* = (D* − D) / SE*, interval
    [D − q(0.975) SE, D − q(0.025) SE]; a replicate with SE* = 0 gives T* = ±inf (0 when
    D* = D), so it stays in the count (Efron & Tibshirani 1993, §12.5)."""
    na, nb = a.shape[0], b.shape[0]
    reps = a.shape[1]
    d = a.mean(axis=0) - b.mean(axis=0)
    se = _welch_se(a, b, 0)
    low, high = np.empty(reps), np.empty(reps)
    for s in range(0, reps, chunk):
        e = min(reps, s + chunk)
        ac, bc = a[:, s:e].T, b[:, s:e].T  # (c, n)
        rows = np.arange(e - s)[:, None, None]
        xa = ac[rows, rng.integers(0, na, (e - s, n_boot, na))]  # (c, B, na)
        xb = bc[rows, rng.integers(0, nb, (e - s, n_boot, nb))]
        db = xa.mean(axis=2) - xb.mean(axis=2)
        seb = _welch_se(xa, xb, 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (db - d[s:e, None]) / seb
        t = np.where(np.isnan(t), 0.0, t)
        q = np.quantile(t, [0.025, 0.975], axis=1)
        low[s:e] = d[s:e] - q[1] * se[s:e]
        high[s:e] = d[s:e] - q[0] * se[s:e]
    return low, high


CANDIDATES: dict[str, Candidate] = {
    "welch": _welch,
    "welch_hall": _hall("shape", "t"),
    "hall_t": _hall("k3", "t"),
    "hall_z": _hall("k3", "z"),
    "hall_t_m3": _hall("m3", "t"),
    "hall_t_pooled": _hall("pooled", "t"),
    "hall_z_shape": _hall("shape", "z"),
}


def run_cell(cell: Cell, reps: int, seed: int, names: list[str]) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    shape_a, _, shape_b = cell.shape.partition("/")
    a = draw(shape_a, cell.n_a, reps, cell.sd_ratio, rng)
    b = draw(shape_b or shape_a, cell.n_b, reps, 1.0, rng)
    row: dict[str, Any] = {"cell": cell.label, "shape": cell.shape, "n_a": cell.n_a}
    row.update({"n_b": cell.n_b, "sd_ratio": cell.sd_ratio, "reps": reps})
    welch_width = None
    for name in names:
        fn = boot_t if name == "boot_t" else CANDIDATES[name]
        low, high = fn(a, b, rng)
        ok = np.isfinite(low) & np.isfinite(high)  # no variation on either side: no interval
        cov = float(np.mean((low[ok] <= 0) & (high[ok] >= 0)))
        width = float(np.median((high - low)[ok]))
        welch_width = width if name == "welch" else welch_width
        row[name] = {
            "coverage": round(cov, 4),
            "below": round(float(np.mean(high[ok] < 0)), 4),  # interval entirely below 0
            "above": round(float(np.mean(low[ok] > 0)), 4),
            "median_width_vs_welch": round(width / welch_width, 3) if welch_width else None,
            "no_interval": int((~ok).sum()),
        }
    return row


def markdown(rows: list[dict[str, Any]], names: list[str]) -> str:
    head = "| cell | " + " | ".join(names) + " |"
    lines = [head, "|---|" + "---|" * len(names)]
    for r in rows:
        cov = []
        for n in names:
            c = 100 * r[n]["coverage"]
            mark = "" if 100 * GOAL[0] <= round(c, 1) <= 100 * GOAL[1] else " ✗"
            cov.append(f"{c:.1f}{mark}")
        lines.append(f"| {r['cell']} | " + " | ".join(cov) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--boot", action="store_true", help="add the bootstrap-t (slow)")
    parser.add_argument("--only", help="one shape (normal, gamma, ratings, ...)")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--grid", choices=("s24", "minside"), default="s24")
    parser.add_argument("--candidates", help="comma-separated candidate names (default: all)")
    args = parser.parse_args(argv)
    names = [*CANDIDATES, *(["boot_t"] if args.boot else [])]
    if args.candidates:
        names = [n for n in args.candidates.split(",") if n in (*CANDIDATES, "boot_t")]
    grid = minside_cells() if args.grid == "minside" else cells()
    todo = [c for c in grid if args.only in (None, c.shape)]
    started = time.perf_counter()
    rows = [run_cell(c, args.reps, args.seed + k, names) for k, c in enumerate(todo)]
    summary = {}
    for n in names:
        covs = [r[n]["coverage"] for r in rows]
        summary[n] = {
            "min": min(covs),
            "max": max(covs),
            "cells_outside_goal": sum(not GOAL[0] <= round(c, 3) <= GOAL[1] for c in covs),
        }
    result = {
        "reps": args.reps,
        "seed": args.seed,
        "goal": list(GOAL),
        "seconds": round(time.perf_counter() - started, 1),
        "grid": args.grid,
        "summary": summary,
        "rows": rows,
    }
    if args.grid == "minside":
        result["by_min_side"] = {n: by_min_side(rows, n) for n in names}
    if not args.no_write:
        name = "welch_boot" if args.boot else "welch"
        write_result(f"{name}_minside" if args.grid == "minside" else name, result)
    print(markdown(rows, names))
    print(f"\n{args.reps} draws per cell, {result['seconds']} s")
    for n, s in summary.items():
        span = f"{100 * s['min']:.1f}–{100 * s['max']:.1f} %"
        print(f"{n}: {span}, outside goal {s['cells_outside_goal']}")
    for n, per_m in result.get("by_min_side", {}).items():
        for m, entry in per_m.items():
            for part, e in entry.items():
                span = f"{100 * e['min']:.1f}–{100 * e['max']:.1f} %" if e["cells"] else "—"
                print(
                    f"{n} min_side {m} {part}: {e['cells']} cells, {span}, outside {e['outside']}"
                )
    return result


if __name__ == "__main__":
    main()
