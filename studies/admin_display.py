"""What the studies admin shows of the fields that only a loaded file may change.

Answer keys, options, parts, stems, poems, task kinds and scales, screening options and
the slugs files refer to are set by the study definition and question pool files. The
admin shows them read-only (JSON pretty-printed and escaped) with a note that they
change by loading the corrected file again on the upload page: a pool load validates the
items, updates their content hash, regrades the stored answers and rescores the poems
(``jobs.loads.file_load``); an edit here could do none of that, so stored ``correct``
values and rule scores would go stale.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.db.models import Model
from django.urls import reverse
from django.utils.functional import Promise

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

POOL_NOTE = _(
    "Set by the question pool file. To change it, correct the file and load it again on "
    "the upload page: the load checks it, updates the item's content hash, regrades the "
    "stored answers and rescores the poems. An edit here could not, so it is read-only."
)
STUDY_NOTE = _(
    "Kinds, rating scales, screening options and slugs are set by the study definition "
    "file (the items by the question pool file). To change them, correct the file and "
    "load it again on the upload page, which checks it. Titles, texts shown to "
    "volunteers and settings stay editable here."
)


def file_note(note: str | Promise) -> SafeString:
    """``note`` with a link to the upload page (a fieldset description, shown as HTML)."""
    return format_html(
        '<p>{}</p><p><a href="{}">{}</a></p>', note, reverse("admin:upload"), _("Upload a file")
    )


def pretty_json(value: Any) -> SafeString | str:
    """A JSON value as indented, escaped text (Chinese as itself), or a dash when empty."""
    if value in (None, "", [], {}):
        return "—"
    text = json.dumps(value, ensure_ascii=False, indent=2)
    return format_html('<pre style="white-space:pre-wrap;margin:0">{}</pre>', text)


def json_display(field: str, label: StrOrPromise) -> Callable[[Any, Model], SafeString | str]:
    """A read-only admin display of the JSON field ``field`` (see :func:`pretty_json`)."""

    @admin.display(description=label)
    def show(model_admin: Any, obj: Model) -> SafeString | str:
        return pretty_json(getattr(obj, field))

    return show
