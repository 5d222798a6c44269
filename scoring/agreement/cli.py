"""``shiping-agreement FILE``: every applicable agreement coefficient of a rating table.

Plain Python (no Django, no project settings): installed as a console script by
``pip install`` (pyproject.toml ``[project.scripts]``), and what ``manage.py agreement``
runs. Long CSV (``unit,rater,value``) or wide CSV (one column per rater); see
docs/report.md. Every problem is one line on standard error (exit status 2), never a
traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .compute import compute_all
from .ratings_file import RatingFileError, parse_domain, read_rating_file
from .table import LEVELS

DESCRIPTION = (
    "Every applicable agreement coefficient, with bootstrap CIs, for a rating table: "
    "long CSV (unit,rater,value) or wide CSV (one column per rater). See docs/report.md."
)


class ToolError(Exception):
    """A problem with the input or the options: said in one line."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path)
    parser.add_argument("--level", choices=LEVELS, default="nominal")
    parser.add_argument("--domain", help="declared scale: 1..5 or 1,2,3 (ordinal order)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--confidence", type=float, default=0.95)


def _fmt(v: object) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    return f"{v:.4f}" if isinstance(v, float) else str(v)


def run(opts: argparse.Namespace, say: Callable[[str], object]) -> None:
    """Compute and print (``say`` one line at a time); raises :class:`ToolError`."""
    path: Path = opts.file
    if not path.is_file():
        raise ToolError(f"{path}: no such file")
    if opts.n_boot < 0 or not 0 < opts.confidence < 1:
        raise ToolError("--n-boot must be >= 0 and --confidence between 0 and 1")
    if opts.seed < 0:
        raise ToolError("--seed must be a non-negative integer")
    try:
        domain = parse_domain(opts.domain)
        parsed = read_rating_file(path, level=opts.level, domain=domain)
    except RatingFileError as exc:
        message = str(exc)
        if not message.startswith(str(path)):
            message = f"{path}: {message}"
        raise ToolError(message) from exc
    table = parsed.table
    results = compute_all(table, n_boot=opts.n_boot, seed=opts.seed, confidence=opts.confidence)
    if opts.json:
        doc = {
            "file": str(path),
            "shape": parsed.shape,
            "level": table.level,
            "n_units": table.n_units,
            "n_raters": table.n_raters,
            "n_ratings": table.n_ratings,
            "domain": list(table.domain),
            "n_boot": opts.n_boot,
            "seed": opts.seed,
            "confidence": opts.confidence,
            "results": [r.as_row(nan_as_none=True) for r in results],
        }
        say(json.dumps(doc, ensure_ascii=False, indent=1, default=str))
        return
    say(
        f"{path} ({parsed.shape}): {table.n_units} units, {table.n_raters} raters, "
        f"{table.n_ratings} ratings; level {table.level}; "
        f"{opts.confidence * 100:g}% CI from {opts.n_boot} bootstrap resamples"
    )
    say(
        f"{'metric':<34}{'level':<10}{'value':>9}{'ci_low':>9}{'ci_high':>9}"
        f"{'se':>9}{'units':>7}  note"
    )
    for r in results:
        name = r.metric + (f" ({r.weights})" if r.weights and r.weights != "none" else "")
        say(
            f"{name:<34}{r.level:<10}{_fmt(r.value):>9}{_fmt(r.ci_low):>9}"
            f"{_fmt(r.ci_high):>9}{_fmt(r.se):>9}{r.n_units:>7}  {r.reason or ''}"
        )


def main(argv: Sequence[str] | None = None, prog: str = "shiping-agreement") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=DESCRIPTION)
    add_arguments(parser)
    opts = parser.parse_args(argv)
    try:
        run(opts, print)
    except ToolError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
