"""How the upload page and a job's admin page say what happened, in the admin's language.

A load's summary (``Summary.as_dict()``: counts, details, notes) is shown as a table
with translated headings; the details the loaders count ("rater created", "response
updated", …) are named with the models' translated names, and anything else is shown
as it came. A job's outcome is one translated sentence; its stage ("validating",
"writing", …) a translated word, also for the page's script (:func:`stage_labels`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.template.loader import render_to_string
from django.utils.functional import Promise
from django.utils.safestring import SafeString
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from jobs.models import Job
from studies.models import LoadKind

STAGES: dict[str, Promise] = {
    "validating": _("validating"),
    "writing": _("writing"),
    "scoring": _("scoring"),
    "exporting": _("exporting"),
    "computing": _("computing"),
}
OUTCOMES: dict[str, Promise] = {
    "created": _("created"),
    "updated": _("updated"),
    "unchanged": _("unchanged"),
}
WHAT: dict[str, Promise] = {
    "study": _("study"),
    "group": _("group"),
    "screening question": _("screening question"),
    "task": _("task"),
    "rater": _("rater"),
    "response": _("response"),
    "aggregate": _("aggregate result"),
    "generated item": _("generated item"),
}
OTHER: dict[str, Promise] = {
    "'correct' flags that disagree with the answer key (ignored)": _(
        "'correct' flags that disagree with the answer key (ignored)"
    ),
    "participants flagged (failed attention checks)": _(
        "participants flagged (failed attention checks)"
    ),
}


def stage_label(stage: str) -> str:
    return str(STAGES.get(stage, stage))


def stage_labels() -> dict[str, str]:
    """Every known stage's label, for the job page's script."""
    return {stage: str(label) for stage, label in STAGES.items()}


def detail_label(key: str) -> str:
    """A summary detail's name: "rater created" -> "评分者：新建"."""
    if key in OTHER:
        return str(OTHER[key])
    what, _sep, outcome = key.rpartition(" ")
    if what in WHAT and outcome in OUTCOMES:
        return gettext("%(what)s: %(outcome)s") % {
            "what": WHAT[what],
            "outcome": OUTCOMES[outcome],
        }
    return key


def summary_table(summary: Mapping[str, Any]) -> SafeString:
    """A load's summary as the table both pages show."""
    details = [(detail_label(k), v) for k, v in sorted((summary.get("details") or {}).items())]
    notes = [
        n.get("message", "") if isinstance(n, Mapping) else str(n)
        for n in summary.get("notes") or []
    ]
    return render_to_string(
        "admin/jobs/_summary.html", {"s": summary, "details": details, "notes": notes}
    )


def is_load_summary(summary: Mapping[str, Any]) -> bool:
    return {"created", "updated", "unchanged"} <= set(summary)


def outcome_text(job: Job) -> str:
    """What a job came to, in one sentence (its problems and summary are shown apart)."""
    summary = job.summary or {}
    if job.status == Job.Status.FAILED:
        if summary.get("problems"):
            n = summary.get("problem_count") or len(summary["problems"])
            return gettext("%(n)d problem(s) found; nothing was loaded.") % {"n": n}
        return gettext("The job failed: %(error)s") % {"error": job.message}
    if job.status != Job.Status.DONE:
        return gettext("Waiting for a worker.") if job.status == Job.Status.QUEUED else ""
    if job.kind == Job.Kind.EXPORT:
        return gettext("%(rows)d rows exported (%(format)s).") % {
            "rows": summary.get("rows", 0),
            "format": summary.get("format", ""),
        }
    if job.kind == Job.Kind.REPORT:
        return gettext("Report written (%(format)s).") % {"format": summary.get("format", "")}
    if summary.get("dry_run"):
        return gettext("Dry run: the file is valid; nothing was written.")
    if job.kind in LoadKind.values:
        return gettext("File loaded.")
    return gettext("Done.")


# A job's parameters (Job.params) as the admin shows them: each known one named and its
# value read out; an unknown one under its key, its value as JSON.
PARAMETERS: dict[str, Promise] = {
    "name": _("file"),
    "path": _("stored as"),
    "format": _("format"),
    "encoding": _("encoding"),
    "sheet": _("sheet"),
    "dry_run": _("dry run"),
    "item_ids": _("poems to score"),
    "settings": _("report settings"),
}


def parameter_value(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if value in (None, ""):
        return gettext("default") if key in ("format", "encoding", "sheet") else "—"
    if key == "item_ids" and isinstance(value, list):
        return gettext("%(n)d poem(s)") % {"n": len(value)}
    if isinstance(value, dict):
        return "; ".join(f"{k}: {parameter_value(k, v)}" for k, v in value.items()) or "—"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


def parameter_rows(params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(label, value) for each of a job's parameters, the known ones first."""
    known = [k for k in PARAMETERS if k in params]
    rest = sorted(k for k in params if k not in PARAMETERS)
    return [(str(PARAMETERS.get(k, k)), parameter_value(k, params[k])) for k in known + rest]
