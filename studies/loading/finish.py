"""The end of every load, inside its transaction: record it, or roll a dry run back."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from studies.loading.problems import Summary
from studies.loading.readers import Source
from studies.models import ImportLog, Study


def load_finish(
    *, kind: str, study: Study | None, source: Source, summary: Summary, user: Any
) -> None:
    """Log a load that changed something; undo everything of a dry run. Call inside the
    load's ``transaction.atomic()`` block, after the writes."""
    if summary.dry_run:
        transaction.set_rollback(True)
        return
    if summary.changed:
        ImportLog.objects.create(
            kind=kind,
            study=study,
            filename=source.name,
            sha256=source.sha256,
            rows=summary.rows,
            created=summary.created,
            updated=summary.updated,
            unchanged=summary.unchanged,
            user=user if getattr(user, "pk", None) else None,
        )
