"""``manage.py plan STUDY``: how many more volunteers (or items) each goal needs."""

from __future__ import annotations

import json
import math
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.management.lookup import study_named
from scoring.report.plan import COLUMNS, Goals, plan_rows

GOALS = {
    "half_width": (
        float,
        "accuracy: half-width of the people × items interval to reach (default 0.05)",
    ),
    "power": (float, "two groups: power to tell their accuracies apart (default 0.8)"),
    "alpha": (float, "two groups: significance level of that test (default 0.05)"),
    "alpha_width": (float, "agreement: width of Krippendorff's alpha interval (default 0.2)"),
    "confidence": (float, "confidence level of every interval (default 0.95)"),
    "n_sims": (
        int,
        "simulated studies per size (default 200; alpha: half, each with half as many resamples)",
    ),
    "seed": (int, "random seed of the simulation"),
}


def _shown(v: Any) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return ""
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


class Command(BaseCommand):
    help = (
        "From a study's data so far: volunteers per group for a target accuracy interval "
        "or to tell two groups apart, items for a target alpha interval width, sized by "
        "simulation from a crossed people x items model (docs/statistics.md, planning)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", help="study slug (or numeric id)")
        for name, (_kind, text) in GOALS.items():
            parser.add_argument(f"--{name.replace('_', '-')}", help=text)
        parser.add_argument("--json", action="store_true", help="JSON rows instead of a table")

    def handle(self, *args: Any, **opts: Any) -> None:
        study = study_named(opts["study"])
        given: dict[str, Any] = {}
        for name, (kind, _text) in GOALS.items():
            raw = opts.get(name)
            if raw is None:
                continue
            try:
                given[name] = kind(raw)
            except ValueError:
                flag = name.replace("_", "-")
                raise CommandError(f"--{flag}: {raw!r} is not a valid {kind.__name__}") from None
        try:
            goals = Goals(**given)
        except ValueError as exc:
            name, _, what = str(exc).partition(": ")
            raise CommandError(f"--{name.replace('_', '-')}: {what}") from exc
        rows = plan_rows(study, goals)
        if opts["json"]:
            clean = [
                {
                    k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                    for k, v in r.items()
                }
                for r in rows
            ]
            self.stdout.write(json.dumps(clean, ensure_ascii=False, indent=1))
            return
        if not rows:
            self.stdout.write(f"{study.slug}: no answers yet to plan from")
            return
        cols = [c for c in COLUMNS if any(r.get(c) is not None for r in rows)]
        table = [cols] + [[_shown(r.get(c)) for c in cols] for r in rows]
        widths = [max(len(line[i]) for line in table) for i in range(len(cols))]
        for line in table:
            self.stdout.write(
                "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True))
            )
