"""Benchmark of the IRT fit behind the ``abilities`` table (issue 15).

1,000 raters × 2,000 keyed units (goal: the whole fit under 60 s): 950 volunteers who
each answer a random 20 % of the units and 50 models who answer every one, simulated
from a 2PL model with known parameters. Timed, in one process: the 1PL and 2PL fits
(marginal ML, scipy L-BFGS-B: ``scoring.agreement.irt``) and the EAP abilities with their
errors — what ``scoring.report.abilities`` runs per task. Baselines from the
same run on the same matrix: ``girth.rasch_mml`` (the library's fastest marginal fit,
slope fixed at 1) and ``girth.twopl_mml`` on the first 10 % of the units (its 2PL, too
slow to run on all). Recovery of the true parameters is recorded beside the times.

Writes bench/results/irt.json and prints a summary.
Usage: .venv/bin/python bench/bench_irt.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import girth  # noqa: E402
import numpy as np  # noqa: E402

from bench.common import peak_rss_mb, write_result  # noqa: E402
from scoring.agreement.irt import MISSING, abilities_eap, fit_1pl, fit_2pl  # noqa: E402

GOAL_SECONDS = 60.0


def simulate(n_people: int, n_models: int, n_units: int, share: float, seed: int):
    rng = np.random.default_rng(seed)
    a = rng.lognormal(0, 0.3, n_units)
    b = rng.normal(0, 1, n_units)
    theta = np.concatenate([rng.normal(0, 1, n_people), rng.normal(0.5, 1, n_models)])
    p = 1 / (1 + np.exp(-a[:, None] * (theta[None, :] - b[:, None])))
    x = (rng.random(p.shape) < p).astype(np.int64)
    hidden = rng.random((n_units, n_people)) > share
    x[:, :n_people][hidden] = MISSING
    return x, a, b, theta


def corr(u: np.ndarray, v: np.ndarray) -> float:
    return round(float(np.corrcoef(u, v)[0, 1]), 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 raters × 400 units")
    args = parser.parse_args()
    n_people, n_models, n_units = (190, 10, 400) if args.quick else (950, 50, 2000)
    x, a, b, theta = simulate(n_people, n_models, n_units, 0.2, seed=15)

    start, cpu = time.perf_counter(), time.process_time()
    one = fit_1pl(x)
    t_1pl = time.perf_counter() - start
    two = fit_2pl(x, start=one)
    t_2pl = time.perf_counter() - start - t_1pl
    ab = abilities_eap(x, two)
    ab1 = abilities_eap(x, one)
    total = time.perf_counter() - start
    total_cpu = time.process_time() - cpu

    girth_x = np.where(x == MISSING, girth.INVALID_RESPONSE, x)
    s = time.perf_counter()
    girth.rasch_mml(girth_x)
    t_rasch = time.perf_counter() - s
    slice_units = n_units // 10
    s = time.perf_counter()
    girth.twopl_mml(girth_x[:slice_units])
    t_girth_2pl = time.perf_counter() - s

    result = {
        "quick": args.quick,
        "raters": n_people + n_models,
        "units": n_units,
        "answers": int((x != MISSING).sum()),
        "seconds": {
            "fit_1pl": round(t_1pl, 2),
            "fit_2pl": round(t_2pl, 2),
            "total": round(total, 2),
            # CPU seconds of the process (one BLAS thread): the time on an idle core,
            # whatever else the machine runs
            "total_cpu": round(total_cpu, 2),
        },
        "load_average_1min": round(os.getloadavg()[0], 2),
        "baseline": {
            "girth_rasch_mml_seconds": round(t_rasch, 2),
            "girth_twopl_mml_units": slice_units,
            "girth_twopl_mml_seconds": round(t_girth_2pl, 2),
        },
        "ratio_to_rasch_mml": round(total / t_rasch, 2) if t_rasch else None,
        "goal_seconds": GOAL_SECONDS,
        "meets_goal": total < GOAL_SECONDS,
        "converged_2pl": two.converged,
        "recovery": {
            "difficulty_2pl": corr(two.difficulty, b),
            "discrimination_2pl": corr(two.discrimination, a),
            "ability_2pl": corr(ab.theta, theta),
            "ability_1pl": corr(ab1.theta, theta),
            "mean_slope_2pl_over_truth": round(float(two.discrimination.mean() / a.mean()), 4),
        },
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "python": platform.python_version(),
    }
    path = write_result("irt", result)
    print(
        f"IRT {result['raters']} raters × {n_units} units ({result['answers']} answers): "
        f"1PL {t_1pl:.1f} s + 2PL {t_2pl:.1f} s + EAP = {total:.1f} s "
        f"({total_cpu:.1f} CPU s, load {result['load_average_1min']}) "
        f"(goal < {GOAL_SECONDS:.0f} s: {'met' if result['meets_goal'] else 'NOT met'}); "
        f"girth.rasch_mml {t_rasch:.1f} s (ratio {result['ratio_to_rasch_mml']}); "
        f"girth.twopl_mml on {slice_units} units {t_girth_2pl:.1f} s; "
        f"recovery {result['recovery']} -> {path}"
    )
    if not result["meets_goal"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
