"""Warm against cold IRT fits after a few new answers (issue #24 item 5, part 2).

The matrix of bench_irt.py (simulated 2PL; ``--quick``: 190 people + 10 models × 400
units, else 950 + 50 × 2,000, 20 % answered by people), less ``--new`` answers (one
volunteer's, 14 by default) for the "previous" fit. Then on the whole matrix, timed in
this process: the cold fit as the ``abilities`` table runs it (1PL, then the 2PL from
it) and the warm fit (1PL and 2PL each from the previous fit, as
``scoring.report.abilities`` does with ``IrtStarts``). Reported: seconds and likelihood
evaluations of each, and the largest warm − cold difference of the parameters.

Writes bench/results/irt_warm.json. Usage: .venv/bin/python bench/bench_irt_warm.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench.bench_irt import simulate  # noqa: E402
from bench.common import write_result  # noqa: E402
from scoring.agreement import irt  # noqa: E402
from scoring.agreement.irt import MISSING, ItemFit, fit_1pl, fit_2pl  # noqa: E402


def timed_fits(
    x: np.ndarray, one: ItemFit | None, two: ItemFit | None
) -> tuple[dict[str, Any], ItemFit, ItemFit]:
    start = time.perf_counter()
    fit_one = fit_1pl(x, start=one)
    fit_two = fit_2pl(x, start=two if two is not None else fit_one)
    seconds = time.perf_counter() - start
    timing = {
        "seconds": round(seconds, 2),
        "evaluations_1pl": fit_one.evaluations,
        "evaluations_2pl": fit_two.evaluations,
        "converged": fit_one.converged and fit_two.converged,
    }
    return timing, fit_one, fit_two


def conditional_se(x: np.ndarray, fit: ItemFit) -> tuple[np.ndarray, np.ndarray]:
    """Each unit's slope and difficulty conditional SE (every other parameter held;
    for the 1PL too, so its slope's is per unit: not used), from a marginal likelihood
    computed here with numpy alone (Gauss–Hermite, 81 nodes) by central second
    differences: independent of ``scoring.agreement.irt``. Changing one unit's parameter
    changes only its own term of each person's log-likelihood at each node."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(81)
    log_w = np.log(weights / weights.sum())
    right, wrong = (x == 1).astype(float), (x == 0).astype(float)

    def per_unit_loglik(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """log P and log (1 − P) of each unit at each node."""
        z = a[:, None] * (nodes[None, :] - b[:, None])
        return -np.logaddexp(0, -z), -np.logaddexp(0, z)

    a0, b0 = fit.discrimination.astype(float), fit.difficulty.astype(float)
    lp0, lq0 = per_unit_loglik(a0, b0)
    base = right.T @ lp0 + wrong.T @ lq0  # persons × nodes

    h = 1e-3
    se_a, se_b = np.empty(a0.size), np.empty(b0.size)
    for which, se in (("a", se_a), ("b", se_b)):
        for i in range(a0.size):
            total = []
            for sign in (1.0, 0.0, -1.0):
                a, b = a0.copy(), b0.copy()
                if which == "a":
                    a[i] += sign * h
                else:
                    b[i] += sign * h
                lp, lq = per_unit_loglik(a[i : i + 1], b[i : i + 1])
                own0 = right[i][:, None] * lp0[i] + wrong[i][:, None] * lq0[i]
                own = right[i][:, None] * lp[0] + wrong[i][:, None] * lq[0]
                ll = base - own0 + own
                total.append(float((np.logaddexp.reduce(ll + log_w, axis=1)).sum()))
            curvature = -(total[0] - 2 * total[1] + total[2]) / h**2
            se[i] = 1 / np.sqrt(curvature) if curvature > 0 else np.inf
    return se_a, se_b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 raters × 400 units")
    parser.add_argument("--new", type=int, default=14, help="answers new since the last fit")
    args = parser.parse_args()
    n_people, n_models, n_units = (190, 10, 400) if args.quick else (950, 50, 2000)
    x, _a, _b, _theta = simulate(n_people, n_models, n_units, 0.2, seed=15)
    rng = np.random.default_rng(16)
    earlier = x.copy()
    person = int(rng.integers(n_people))  # one volunteer's last answers arrive later
    answered = np.flatnonzero(x[:, person] != MISSING)
    earlier[rng.choice(answered, min(args.new, answered.size), replace=False), person] = MISSING
    _previous, prev_one, prev_two = timed_fits(earlier, None, None)
    cold, cold_one, cold_two = timed_fits(x, None, None)
    warm, warm_one, warm_two = timed_fits(x, prev_one, prev_two)
    # the optimum itself, for scale: the cold 2PL refitted to a far tighter stopping
    # rule (twice); how far the cold fit stops from it is the rule's own tolerance
    stop = irt.STOP_SE
    irt.STOP_SE = 1e-8
    try:
        tight = fit_2pl(x, start=fit_2pl(x, start=cold_two))
    finally:
        irt.STOP_SE = stop
    differences: dict[str, float] = {}
    se_a, se_b = conditional_se(x, tight)
    for name, f in (("cold", cold_two), ("warm", warm_two)):
        differences[f"2pl_{name}_to_optimum_difficulty_max_se"] = float(
            (np.abs(f.difficulty - tight.difficulty) / se_b).max()
        )
        differences[f"2pl_{name}_to_optimum_slope_max_se"] = float(
            (np.abs(f.discrimination - tight.discrimination) / se_a).max()
        )
    for name, w, c in (("1pl", warm_one, cold_one), ("2pl", warm_two, cold_two)):
        se_a, se_b = conditional_se(x, c)
        slope_se = np.abs(w.discrimination - c.discrimination) / se_a
        differences[f"{name}_difficulty_max_abs"] = float(np.abs(w.difficulty - c.difficulty).max())
        differences[f"{name}_difficulty_max_se"] = float(
            (np.abs(w.difficulty - c.difficulty) / se_b).max()
        )
        if name == "2pl":
            differences["2pl_slope_max_se"] = float(slope_se.max())
        else:
            differences["1pl_slope_abs"] = float(abs(w.discrimination[0] - c.discrimination[0]))
        differences[f"{name}_loglik"] = abs(w.loglik - c.loglik)
    result = {
        "shape": {"units": n_units, "raters": n_people + n_models, "answers": int((x >= 0).sum())},
        "new_answers": args.new,
        "cold": cold,
        "warm": warm,
        "speedup": round(cold["seconds"] / max(warm["seconds"], 1e-9), 2),
        "differences": differences,
        "quick": args.quick,
    }
    path = write_result("irt_warm", result)
    print(result)
    print(f"written to {path}")


if __name__ == "__main__":
    main()
