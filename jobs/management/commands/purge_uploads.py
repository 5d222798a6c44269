"""``manage.py purge_uploads [--days N]``: delete uploaded files past their keeping time."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from jobs.services import uploads_purge


class Command(BaseCommand):
    help = (
        "Delete the files uploaded for background loads (DATA_DIR/uploads) older than "
        "UPLOAD_KEEP_DAYS (or --days), except those a queued or running job still needs. "
        "Every job also does this when it ends."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days", type=int, default=None, help=f"default {settings.UPLOAD_KEEP_DAYS}"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        days = opts["days"]
        if days is not None and days < 0:
            days = 0
        removed = uploads_purge(keep_days=days)
        self.stdout.write(f"{removed} uploaded file(s) deleted.")
