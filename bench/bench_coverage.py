"""Coverage of the report's default intervals at nominal 95 % (issue 23), by simulation.

Each design is simulated from a known generating model many times; an interval
*covers* when it contains the true population value. Goal: 93–97 % for every default.
Beside each default, the old default it replaced (Wilson over answers; the t over item
means; Wilson over poems; Welch's t for the echo chamber), on the same draws.

Designs like the seed studies (CP-DUE, Tang, CCiV):

* ``accuracy``: a group of 10–40 people, a pool of 10–300 items, each person answering
  10–30 of them; P(right) = logistic(μ + person + item), person ICC 0–0.2 on the latent
  scale (σ²_person / (σ²_person + π²/3)), item SD 1 on the logit scale. Truth: the
  population mean of P(right) over people and items. Default: person+item-clustered
  Wilson (``scoring.agreement.crossed``); old: Wilson.
* ``ratings``: 10–40 raters rating 10–300 poems (each rater 10–30), y = 3 + leniency +
  quality + noise, person ICC 0–0.2, item ICC 0.3. Truth 3. Default: person+item-clustered
  t of the mean of item means; old: t over item means.
* ``rule_rates``: 10–100 prompts × 3 samples, a prompt effect of SD 1 (logit). Truth:
  the population pass rate. Default: prompt-clustered Wilson; old: Wilson over poems.
* ``echo_chamber`` (a difference of two means on small sides): a pass side and a fail
  side of ``MIN_SIDE`` (4, the report's minimum) to 20 poems (equal, or a small side
  against a large one), no true difference.
  Default: Welch's t corrected for skewness (``gaps.corrected_difference``, Hall 1992);
  old: Welch's t (``gaps.welch_difference``; before it, the stratified percentile
  bootstrap, 77.6–90.7 % on these designs: docs/statistics.md §23).

Writes bench/results/coverage.json and prints the markdown table of docs/statistics.md §23.
Usage: .venv/bin/python bench/bench_coverage.py [--quick] [--reps N] [--only STUDY]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench.common import write_result  # noqa: E402
from scoring.agreement import mean_ci, wilson_interval  # noqa: E402
from scoring.agreement.crossed import clustered_mean  # noqa: E402
from scoring.agreement.gaps import MIN_SIDE  # noqa: E402

GOAL = (0.93, 0.97)
LOGISTIC_VAR = math.pi**2 / 3
Interval = tuple[float, float]


@dataclass(frozen=True)
class Design:
    study: str  # which table's interval
    people: int  # people per group (prompts for rule rates; poems per side for echo)
    items: int  # items in the pool
    per_person: int  # items each person answers
    icc: float  # person ICC (latent scale for shares)

    @property
    def label(self) -> str:
        if self.study == "rule_rates":
            return f"{self.people} prompts × 3 samples"
        if self.study == "echo_chamber":
            if self.items in (0, self.people):
                return f"{self.people} poems per side"
            return f"{self.people} passing vs {self.items} failing poems"
        return f"{self.people} people × {self.per_person} of {self.items} items, ICC {self.icc:g}"


def logistic(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def assignment(rng: np.random.Generator, d: Design) -> tuple[np.ndarray, np.ndarray]:
    people = np.repeat(np.arange(d.people), d.per_person)
    if d.per_person >= d.items:
        items = np.tile(np.arange(d.items), d.people)
    else:
        items = np.concatenate(
            [rng.choice(d.items, d.per_person, replace=False) for _ in range(d.people)]
        )
    return people, items


def person_sd(icc: float, residual_var: float) -> float:
    return math.sqrt(icc / (1 - icc) * residual_var) if icc > 0 else 0.0


def share_truth(mu: float, sd: float, rng: np.random.Generator) -> float:
    """The population mean of logistic(mu + N(0, sd²)), by quadrature."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    return float(np.dot(weights, logistic(mu + sd * nodes)) / weights.sum())


def accuracy_draws(
    d: Design, rng: np.random.Generator
) -> Iterator[tuple[float, Interval, Interval]]:
    mu, item_sd = 1.0, 1.0
    sa = person_sd(d.icc, LOGISTIC_VAR)
    truth = share_truth(mu, math.hypot(sa, item_sd), rng)
    while True:
        people, items = assignment(rng, d)
        a, b = rng.normal(0, sa, d.people), rng.normal(0, item_sd, d.items)
        y = (rng.random(people.size) < logistic(mu + a[people] + b[items])).astype(np.float64)
        new = clustered_mean(y, {"person": people, "item": items}, proportion=True)
        old = wilson_interval(int(y.sum()), int(y.size))
        yield truth, (new.ci_low, new.ci_high), (old.ci_low, old.ci_high)


def ratings_draws(
    d: Design, rng: np.random.Generator
) -> Iterator[tuple[float, Interval, Interval]]:
    item_var, noise_var = 0.3, 0.7  # item ICC 0.3 of the person-free variance
    sa = person_sd(d.icc, item_var + noise_var)
    while True:
        people, items = assignment(rng, d)
        a, b = rng.normal(0, sa, d.people), rng.normal(0, math.sqrt(item_var), d.items)
        y = 3 + a[people] + b[items] + rng.normal(0, math.sqrt(noise_var), people.size)
        _, inverse, counts = np.unique(items, return_inverse=True, return_counts=True)
        new = clustered_mean(y, {"person": people, "item": items}, weights=1 / counts[inverse])
        means = np.bincount(inverse, weights=y) / counts
        old = mean_ci(means.tolist(), method="t")
        yield 3.0, (new.ci_low, new.ci_high), (old.ci_low, old.ci_high)


def rule_rate_draws(
    d: Design, rng: np.random.Generator
) -> Iterator[tuple[float, Interval, Interval]]:
    mu, prompt_sd = 0.5, 1.0
    truth = share_truth(mu, prompt_sd, rng)
    prompts = np.repeat(np.arange(d.people), 3)
    while True:
        effect = rng.normal(0, prompt_sd, d.people)
        y = (rng.random(prompts.size) < logistic(mu + effect[prompts])).astype(np.float64)
        new = clustered_mean(y, {"item": prompts}, proportion=True)
        old = wilson_interval(int(y.sum()), int(y.size))
        yield truth, (new.ci_low, new.ci_high), (old.ci_low, old.ci_high)


def echo_draws(d: Design, rng: np.random.Generator) -> Iterator[tuple[float, Interval, Interval]]:
    from scoring.agreement.gaps import corrected_difference, welch_difference

    n_a, n_b = d.people, d.items or d.people
    while True:
        # A poem's judge-minus-people gap: skewed (ratings on a 1–5 scale), no true effect.
        passing = rng.gamma(2.0, 0.5, n_a) - 1.0
        failing = rng.gamma(2.0, 0.5, n_b) - 1.0
        new = corrected_difference(passing, failing)
        old = welch_difference(passing, failing)
        yield 0.0, (new.ci_low, new.ci_high), (old.ci_low, old.ci_high)


DRAWS: dict[
    str, Callable[[Design, np.random.Generator], Iterator[tuple[float, Interval, Interval]]]
] = {
    "accuracy": accuracy_draws,
    "ratings": ratings_draws,
    "rule_rates": rule_rate_draws,
    "echo_chamber": echo_draws,
}
DEFAULT = {
    "accuracy": "person+item-clustered Wilson (CGM)",
    "ratings": "person+item-clustered t (CGM)",
    "rule_rates": "prompt-clustered Wilson (CGM)",
    "echo_chamber": "Welch's t, skewness-corrected (Hall 1992)",
}
OLD = {
    "accuracy": "Wilson",
    "ratings": "t over item means",
    "rule_rates": "Wilson over poems",
    "echo_chamber": "Welch's t",
}


def designs(quick: bool) -> list[Design]:
    shapes = [(10, 10, 10), (20, 40, 20), (40, 300, 20)]
    if not quick:
        shapes += [(10, 300, 30), (40, 40, 10)]
    iccs = (0.0, 0.1, 0.2) if quick else (0.0, 0.05, 0.1, 0.2)
    out = [
        Design(s, p, i, k, c) for s in ("accuracy", "ratings") for p, i, k in shapes for c in iccs
    ]
    out += [
        Design("rule_rates", p, 3 * p, 3, 0.0) for p in ((10, 40) if quick else (10, 20, 40, 100))
    ]
    m = MIN_SIDE  # the smallest side the report gives an interval for
    sides: tuple[tuple[int, int], ...] = (
        ((5, 5), (10, 10), (m, 10)) if quick else ((m, m), (5, 5), (10, 10), (20, 20))
    )
    sides += () if quick else ((m, 10), (m, 20), (m, 40), (5, 20))
    out += [Design("echo_chamber", a, b, 0, 0.0) for a, b in sides]
    return out


def coverage(d: Design, reps: int, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    draws = DRAWS[d.study](d, rng)
    new_hits = old_hits = 0
    widths = []
    for _ in range(reps):
        truth, new, old = next(draws)
        new_hits += new[0] <= truth <= new[1]
        old_hits += old[0] <= truth <= old[1]
        widths.append((new[1] - new[0]) / max(old[1] - old[0], 1e-12))
    new_cov = new_hits / reps
    return {
        "study": d.study,
        "design": d.label,
        "default": DEFAULT[d.study],
        "coverage": round(new_cov, 3),
        "mc_se": round(math.sqrt(new_cov * (1 - new_cov) / reps), 3),
        "old": OLD[d.study],
        "old_coverage": round(old_hits / reps, 3),
        "width_ratio": round(float(np.median(widths)), 2),
        "within_goal": GOAL[0] <= new_cov <= GOAL[1],
    }


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| table | design | default interval | coverage | old interval | its coverage | width / old |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| `{r['study']}` | {r['design']} | {r['default']} | {100 * r['coverage']:.1f} % "
            f"| {r['old']} | {100 * r['old_coverage']:.1f} % | {r['width_ratio']:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer designs, 400 replicates")
    parser.add_argument("--reps", type=int, help="replicates per design (default 1000; quick 400)")
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--only", help="one table's designs (e.g. echo_chamber), same draws")
    args = parser.parse_args(argv)
    reps = args.reps or (400 if args.quick else 1000)
    started = time.perf_counter()
    rows = [
        coverage(d, reps, args.seed + k)
        for k, d in enumerate(designs(args.quick))
        if args.only in (None, d.study)
    ]
    result = {
        "quick": args.quick,
        "only": args.only,
        "reps": reps,
        "goal": list(GOAL),
        "seconds": round(time.perf_counter() - started, 1),
        "all_within_goal": all(r["within_goal"] for r in rows),
        "rows": rows,
    }
    if not args.no_write:
        write_result(f"coverage_{args.only}" if args.only else "coverage", result)
    print(markdown(rows))
    print(
        f"\n{reps} replicates per design, {result['seconds']} s; goal {GOAL[0]:.0%}–{GOAL[1]:.0%}"
    )
    return result


if __name__ == "__main__":
    main()
