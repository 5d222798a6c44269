"""``manage.py analysis_plan freeze|show|export STUDY``: the frozen analysis plan.

``freeze`` stores the study's design and the analysis settings (those given here, else the
report's defaults) with the commitments given (``--primary``, ``--sample GROUP=N``,
``--exclusion``, ``--exclude-flag``, ``--note``); ``show`` lists the deviations from the newest plan;
``export`` writes the preregistration document (Markdown, or the plan's JSON).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.quality import PLAN_RULES
from scoring.management.lookup import study_named
from scoring.report import prereg
from scoring.report.settings import SettingsError, settings_from
from studies.models import Study
from studies.values import is_digits

SETTINGS = ("confidence", "pass_threshold", "min_side", "ratings_ci", "cluster", "n_boot")


def sample_sizes(values: list[str]) -> tuple[tuple[str, int], ...]:
    out = []
    for value in values:
        group, sep, n = value.partition("=")
        if not sep or not is_digits(n.strip()):
            raise CommandError(f"--sample: {value!r} is not GROUP=N (e.g. expert=40)")
        out.append((group.strip(), int(n)))
    return tuple(out)


class Command(BaseCommand):
    help = (
        "Freeze a study's analysis plan before opening it, list the deviations from it, or "
        "export it as a preregistration document (docs/report.md, 'Frozen analysis plan')."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=("freeze", "show", "export"))
        parser.add_argument("study", help="study slug (or numeric id)")
        for name in SETTINGS:
            parser.add_argument(f"--{name.replace('_', '-')}", help=f"planned {name}")
        parser.add_argument("--primary", action="append", default=[], help="a primary comparison")
        parser.add_argument("--sample", action="append", default=[], help="GROUP=N planned")
        parser.add_argument("--exclusion", action="append", default=[], help="an exclusion rule")
        parser.add_argument(
            "--exclude-flag",
            action="append",
            default=[],
            choices=PLAN_RULES,
            help="a quality flag whose participants the report excludes without a decision",
        )
        parser.add_argument("--note", default="", help="anything else the plan commits to")
        parser.add_argument("--replace", action="store_true", help="freeze a new plan anyway")
        parser.add_argument("--format", choices=("markdown", "json"), default="markdown")
        parser.add_argument("--out", help="export: the file to write (default: standard output)")

    def handle(self, *args: Any, **opts: Any) -> None:
        study = study_named(opts["study"])
        try:
            settings = settings_from({k: opts.get(k) for k in SETTINGS})
        except SettingsError as exc:
            raise CommandError(f"--{exc.name.replace('_', '-')}: {exc.message}") from exc
        if opts["action"] == "freeze":
            self.freeze(study, settings, opts)
        elif opts["action"] == "show":
            self.show(study, settings)
        else:
            self.export(study, opts["format"], opts.get("out"))

    def freeze(self, study: Study, settings: Any, opts: dict[str, Any]) -> None:
        commitments = prereg.Commitments(
            primary=tuple(opts["primary"]),
            sample_sizes=sample_sizes(opts["sample"]),
            exclusions=tuple(opts["exclusion"]),
            note=opts["note"],
            exclude_flags=tuple(opts["exclude_flag"]),
        )
        try:
            plan = prereg.plan_freeze(study, settings, commitments, replace=opts["replace"])
        except prereg.PlanError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"Froze the analysis plan of {study.slug}: SHA-256 {plan.sha256} "
            f"({plan.n_responses} answers held now)."
        )

    def show(self, study: Study, settings: Any) -> None:
        plan = prereg.current_plan(study)
        if plan is None:
            raise CommandError(f"{study.slug} has no frozen plan (analysis_plan freeze)")
        prereg.deviations_record(study, settings)
        rows = prereg.deviation_rows(study, settings)
        self.stdout.write(f"Plan {plan.sha256[:12]} frozen {plan.frozen_at:%Y-%m-%d %H:%M}.")
        if not rows:
            self.stdout.write("No deviation from the plan.")
        for row in rows:
            self.stdout.write(
                f"{row['setting']}: {prereg.shown(row['planned'])} → "
                f"{prereg.shown(row['actual'])} (first seen after "
                f"{row['first_seen_after']} answers) — {row['reason']}"
            )

    def export(self, study: Study, fmt: str, out: str | None) -> None:
        plan = prereg.current_plan(study)
        if plan is None:
            raise CommandError(f"{study.slug} has no frozen plan (analysis_plan freeze)")
        if fmt == "json":
            text = json.dumps(
                {"sha256": plan.sha256, "frozen_at": plan.frozen_at.isoformat(), **plan.content},
                ensure_ascii=False,
                indent=2,
            )
        else:
            text = prereg.preregistration(plan)
        if out:
            Path(out).write_text(text + "\n", encoding="utf-8")
            self.stdout.write(f"Wrote {out}.")
        else:
            self.stdout.write(text)
