"""bench/bench_welch.py stays runnable: a tiny run gives every cell a coverage in [0, 1]
for every candidate, on the same draws (equal sides: the adopted interval is Welch's)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench import bench_welch  # noqa: E402


def test_a_tiny_run_gives_every_cell_every_candidate(capsys) -> None:
    result = bench_welch.main(["--reps", "40", "--no-write", "--only", "gamma"])
    rows = result["rows"]
    assert len(rows) == sum(c.shape == "gamma" for c in bench_welch.cells())
    for r in rows:
        for name in bench_welch.CANDIDATES:
            assert 0 <= r[name]["coverage"] <= 1
        if r["n_a"] == r["n_b"]:
            assert r["welch_hall"]["coverage"] == r["welch"]["coverage"]
    out = capsys.readouterr().out
    assert out.startswith("| cell | welch | welch_hall |")


def test_the_bootstrap_t_recomputed_by_hand_for_one_column() -> None:
    import numpy as np

    rng = np.random.default_rng(1)
    a, b = rng.gamma(2.0, 0.5, (4, 1)), rng.gamma(2.0, 0.5, (9, 1))
    low, high = bench_welch.boot_t(a, b, np.random.default_rng(2), n_boot=999)
    # the same draws, one replicate at a time
    again = np.random.default_rng(2)
    ia, ib = again.integers(0, 4, (1, 999, 4)), again.integers(0, 9, (1, 999, 9))
    x, y = a[:, 0], b[:, 0]
    d = x.mean() - y.mean()
    se = np.sqrt(x.var(ddof=1) / 4 + y.var(ddof=1) / 9)
    t = []
    for k in range(999):
        xs, ys = x[ia[0, k]], y[ib[0, k]]
        s = np.sqrt(xs.var(ddof=1) / 4 + ys.var(ddof=1) / 9)
        t.append((xs.mean() - ys.mean() - d) / s)
    q_lo, q_hi = np.quantile(t, [0.025, 0.975])
    assert np.allclose([low[0], high[0]], [d - q_hi * se, d - q_lo * se])


def test_the_min_side_grid_summarises_each_candidate_minimum_from_its_rows() -> None:
    """``--grid minside``: every shape at small sides 3, 4, 5 and 8; ``by_min_side``
    recounted here from the rows (the cells whose smaller side is at least m)."""
    result = bench_welch.main(
        ["--reps", "30", "--no-write", "--grid", "minside", "--candidates", "welch,welch_hall"]
    )
    rows = result["rows"]
    assert len(rows) == len(bench_welch.minside_cells())
    assert {min(r["n_a"], r["n_b"]) for r in rows} == {3, 4, 5, 8, 10, 20}
    assert set(rows[0]) >= {"welch", "welch_hall"} and "hall_t" not in rows[0]
    for m in bench_welch.MIN_SIDES:
        for part in ("s24", "beyond"):
            sel = [
                r
                for r in rows
                if min(r["n_a"], r["n_b"]) >= m
                and (r["shape"] in ("normal", "gamma", "ratings")) == (part == "s24")
            ]
            covs = [r["welch_hall"]["coverage"] for r in sel]
            got = result["by_min_side"]["welch_hall"][str(m)][part]
            assert (got["cells"], got["min"], got["max"]) == (len(sel), min(covs), max(covs))
            cov = {r["cell"]: round(r["welch_hall"]["coverage"], 3) for r in sel}
            missed = {c for c, v in cov.items() if not 0.93 <= v <= 0.97}
            assert {c for c, _ in got["outside"]} == missed
