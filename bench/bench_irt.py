"""Benchmark of the IRT fit behind the ``abilities`` table (issue 15).

1,000 raters × 2,000 keyed units (goal: the whole fit under 60 s): 950 volunteers who
each answer a random 20 % of the units and 50 models who answer every one, simulated
from a 2PL model with known parameters. Timed, in one process: the 1PL and 2PL fits
(marginal ML, scipy L-BFGS-B: ``scoring.agreement.irt``) and the EAP abilities with their
errors — what ``scoring.report.abilities`` runs per task. Baselines from the
same run on the same matrix: ``girth.rasch_mml`` (the library's fastest marginal fit,
slope fixed at 1) and ``girth.twopl_mml`` on the first 10 % of the units (its 2PL, too
slow to run on all). Recovery of the true parameters is recorded beside the times.

Before/after in the same run (2026-11-28, the EM phase of ``irt._fit``): the 1PL and 2PL
fits again with ``irt.EM_MAX_STEPS`` 0 (L-BFGS-B alone from the same start, the same
stopping rule: the code before), their E-steps (``ItemFit.evaluations``), CPU seconds and
log-likelihoods, and the ratios.

``--tasks``: instead, designs shaped like the four tasks the ``abilities`` table fits on
the 1,000,000-response study of ``bench_dashboard_1m.py`` (docs/performance.md: 6,855
respondents, of whom 4 models answer every unit and the volunteers 10, 10, 20 and 30
units of 498, 500, 1,000 and 1,500; simulated from a 2PL, the units independent), each
fitted before and after: the fits' part of that table without building the study.

Writes bench/results/irt.json (``--tasks``: irt_tasks.json) and prints a summary.
Usage: .venv/bin/python bench/bench_irt.py [--quick] [--tasks]
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
from scoring.agreement import irt  # noqa: E402
from scoring.agreement.irt import (  # noqa: E402
    MISSING,
    Responses,
    abilities_eap,
    fit_1pl,
    fit_2pl,
)

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


def task_shaped(n_units: int, each: int, seed: int, n_volunteers: int = 6851, n_models: int = 4):
    """Volunteers who each answer ``each`` of ``n_units`` units at random, models who
    answer every one (a 2PL; the models' abilities N(0.5, 1)), as answered cells."""
    rng = np.random.default_rng(seed)
    a = rng.lognormal(0, 0.3, n_units)
    b = rng.normal(0, 1, n_units)
    theta = np.concatenate([rng.normal(0, 1, n_volunteers), rng.normal(0.5, 1, n_models)])
    picked = np.argsort(rng.random((n_volunteers, n_units)), axis=1)[:, :each]
    unit = np.concatenate([picked.ravel(), np.tile(np.arange(n_units), n_models)])
    person = np.concatenate(
        [
            np.repeat(np.arange(n_volunteers), each),
            np.repeat(np.arange(n_volunteers, n_volunteers + n_models), n_units),
        ]
    )
    p = 1 / (1 + np.exp(-a[unit] * (theta[person] - b[unit])))
    right = rng.random(p.size) < p
    return Responses.from_cells(unit, person, right, (n_units, n_volunteers + n_models))


def fits_timed(x, em_max_steps: int) -> dict:
    """The 1PL and 2PL fits (the 2PL from the 1PL) with ``irt.EM_MAX_STEPS`` set: CPU
    seconds, E-steps and log-likelihoods."""
    kept = irt.EM_MAX_STEPS
    irt.EM_MAX_STEPS = em_max_steps
    try:
        cpu = time.process_time()
        one = fit_1pl(x)
        t_1pl = time.process_time() - cpu
        two = fit_2pl(x, start=one)
        t_2pl = time.process_time() - cpu - t_1pl
    finally:
        irt.EM_MAX_STEPS = kept
    return {
        "e_steps_1pl": one.evaluations,
        "e_steps_2pl": two.evaluations,
        "cpu_1pl": round(t_1pl, 2),
        "cpu_2pl": round(t_2pl, 2),
        "loglik_1pl": one.loglik,
        "loglik_2pl": two.loglik,
        "converged": one.converged and two.converged,
        "fits": (one, two),
    }


def before_after(x) -> dict:
    """The fits now and with L-BFGS-B alone (``EM_MAX_STEPS`` 0), in this process."""
    after = fits_timed(x, irt.EM_MAX_STEPS)
    before = fits_timed(x, 0)
    e_before = before["e_steps_1pl"] + before["e_steps_2pl"]
    e_after = after["e_steps_1pl"] + after["e_steps_2pl"]
    cpu_before = before["cpu_1pl"] + before["cpu_2pl"]
    cpu_after = after["cpu_1pl"] + after["cpu_2pl"]
    fits = {"before": before.pop("fits"), "after": after.pop("fits")}
    return {
        "before": before,
        "after": after,
        "e_steps_ratio": round(e_before / e_after, 2),
        "cpu_ratio": round(cpu_before / cpu_after, 2) if cpu_after else None,
        # after − before, per answer (the test's tolerance: −1e-6)
        "loglik_change_per_answer_1pl": (after["loglik_1pl"] - before["loglik_1pl"]) / x.n_answers,
        "loglik_change_per_answer_2pl": (after["loglik_2pl"] - before["loglik_2pl"]) / x.n_answers,
        "largest_move_2pl": largest_moves(x, fits["before"][1], fits["after"][1]),
        "_fits": fits,
    }


def largest_moves(x, before, after) -> dict:
    """The largest |after − before| of the 2PL's difficulties and log slopes, as they
    are and in standard errors: 1 / √ of the complete-data information's diagonal at
    ``after`` (``irt._scales``: at most the standard error, so these overstate the
    moves)."""
    n = x.n_units
    params = np.concatenate([np.log(after.discrimination), after.difficulty])
    moved = np.abs(params - np.concatenate([np.log(before.discrimination), before.difficulty]))
    like = irt._Likelihood(irt._designs(x, np.maximum(after.discrimination, 1.0) * 1.5), n, n)
    scale = irt._scales(like.at(params), like.nodes, n)
    return {
        "difficulty": round(float(moved[n:].max()), 5),
        "log_discrimination": round(float(moved[:n].max()), 5),
        "in_se": round(float((moved * scale).max()), 5),
    }


TASKS = (("ck", 498, 10), ("th", 500, 10), ("oq", 1000, 20), ("au", 1500, 30))


def run_tasks() -> None:
    rows = {}
    for k, (name, n_units, each) in enumerate(TASKS):
        x = task_shaped(n_units, each, seed=24 + k)
        row = before_after(x)
        row.pop("_fits")
        row["units"], row["answers"] = n_units, x.n_answers
        rows[name] = row
        cpu_before = row["before"]["cpu_1pl"] + row["before"]["cpu_2pl"]
        cpu_after = row["after"]["cpu_1pl"] + row["after"]["cpu_2pl"]
        print(
            f"{name} ({x.n_answers} answers, {n_units} units): E-steps 1PL+2PL "
            f"{row['before']['e_steps_1pl']}+{row['before']['e_steps_2pl']} -> "
            f"{row['after']['e_steps_1pl']}+{row['after']['e_steps_2pl']} "
            f"({row['e_steps_ratio']}x), CPU {cpu_before:.1f} -> {cpu_after:.1f} s "
            f"({row['cpu_ratio']}x), log L change per answer "
            f"{row['loglik_change_per_answer_1pl']:.1e} / "
            f"{row['loglik_change_per_answer_2pl']:.1e}",
            flush=True,
        )
    total_before = sum(r["before"]["cpu_1pl"] + r["before"]["cpu_2pl"] for r in rows.values())
    total_after = sum(r["after"]["cpu_1pl"] + r["after"]["cpu_2pl"] for r in rows.values())
    result = {
        "tasks": rows,
        "cpu_fits_before": round(total_before, 2),
        "cpu_fits_after": round(total_after, 2),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "python": platform.python_version(),
    }
    path = write_result("irt_tasks", result)
    print(f"the four tasks' fits: CPU {total_before:.1f} s -> {total_after:.1f} s -> {path}")


def corr(u: np.ndarray, v: np.ndarray) -> float:
    return round(float(np.corrcoef(u, v)[0, 1]), 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 raters × 400 units")
    parser.add_argument("--tasks", action="store_true", help="the 1M study's four task shapes")
    args = parser.parse_args()
    if args.tasks:
        run_tasks()
        return
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

    compared = before_after(Responses.from_matrix(x))
    compared.pop("_fits")

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
        "em_before_after": compared,
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
        f"E-steps 1PL+2PL {compared['before']['e_steps_1pl']}+{compared['before']['e_steps_2pl']}"
        f" (L-BFGS-B alone) -> {compared['after']['e_steps_1pl']}+"
        f"{compared['after']['e_steps_2pl']} ({compared['e_steps_ratio']}x, CPU "
        f"{compared['cpu_ratio']}x); "
        f"recovery {result['recovery']} -> {path}"
    )
    if not result["meets_goal"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
