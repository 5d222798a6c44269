"""bench/bench_coverage.py stays runnable: a tiny run (5 replicates of the quick designs)
gives a row per design with coverages in [0, 1] and the markdown table of the docs."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench import bench_coverage, figures  # noqa: E402


def test_a_tiny_coverage_run_gives_every_table_its_rows(capsys) -> None:
    result = bench_coverage.main(["--quick", "--reps", "5", "--no-write"])
    rows = result["rows"]
    assert {r["study"] for r in rows} == {"accuracy", "ratings", "rule_rates", "echo_chamber"}
    assert all(0 <= r["coverage"] <= 1 and 0 <= r["old_coverage"] <= 1 for r in rows)
    assert result["reps"] == 5 and result["quick"] is True
    (figure,) = figures.figures("coverage", result)  # make bench's summary row
    assert figure.value == 100 * min(r["coverage"] for r in rows)
    out = capsys.readouterr().out
    assert out.startswith("| table | design | default interval |")
    assert out.count("\n| `") == len(rows)


def test_the_share_truth_is_the_population_mean_of_the_logistic() -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    draws = 1 / (1 + np.exp(-(0.7 + rng.normal(0, 1.3, 2_000_000))))
    assert abs(bench_coverage.share_truth(0.7, 1.3, rng) - draws.mean()) < 1e-3
