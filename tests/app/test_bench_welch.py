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
