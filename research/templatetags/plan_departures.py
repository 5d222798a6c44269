"""``{% load plan_departures %}{% plan_departures study tables %}``: the report's
departures from the study's frozen analysis plan (its ``plan_deviations`` table,
``scoring.report.prereg``) under the exclusions, each with its note in the reader's
language (``research/dashboard/reasons.py``). Nothing is shown without a departure."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import gettext as _

from research.dashboard.labels import Labels, column_label
from scoring.report.prereg import MISSING, shown
from studies.models import Study

register = template.Library()
#: The columns shown, in order (the report's ``plan_deviations``: docs/report.md §4.20).
COLUMNS = ("setting", "planned", "actual", "reason", "first_seen_after")


def _value(value: Any) -> str:
    return _("(absent)") if value == MISSING else shown(value)


@register.inclusion_tag("research/_plan_departures.html")
def plan_departures(study: Study, tables: dict[str, Any] | None) -> dict[str, Any]:
    rows = (tables or {}).get("plan_deviations") or []
    if not rows:
        return {"rows": []}
    labels = Labels(study)
    return {
        "headers": [column_label(c) for c in COLUMNS],
        "rows": [
            {
                "setting": r["setting"],
                "planned": _value(r["planned"]),
                "actual": _value(r["actual"]),
                "note": labels.value("reason", r.get("reason") or "", r),
                "after": r["first_seen_after"],
            }
            for r in rows
        ],
    }
