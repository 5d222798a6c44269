"""The admin's upload form: a file to load, of a kind the user may load, into one of
their studies (the page itself: ``jobs.upload``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from jobs.upload_rights import may_load_study_definition, upload_kinds, upload_studies
from studies.loading.encodings import NAMED
from studies.loading.problems import LoadError
from studies.loading.readers import Source
from studies.loading.study import validate_study
from studies.models import ImportLog, Study


class UploadForm(forms.Form):
    """A file to load, of a kind ``user`` may load (``jobs.upload_rights``), into
    one of their studies; a study definition only if they may add or change its study."""

    kind = forms.ChoiceField(label=_("What the file holds"), choices=ImportLog.Kind.choices)
    study = forms.ModelChoiceField(
        label=_("Study"),
        queryset=Study.objects.none(),
        required=False,
        help_text=_("Not needed for a study definition."),
    )
    file = forms.FileField(
        label=_("File"),
        help_text=_(
            "JSON, YAML, JSONL, CSV or an Excel workbook (.xlsx); text in UTF-8, GB18030 "
            "(GBK), Big5 or UTF-16."
        ),
    )
    encoding = forms.ChoiceField(
        label=_("Encoding"),
        required=False,
        choices=[("", _("Detect")), *NAMED],
        help_text=_("Leave on “Detect” unless the file's Chinese text comes out garbled."),
    )
    sheet = forms.CharField(
        label=_("Sheet"),
        required=False,
        max_length=100,
        help_text=_("For a workbook: the sheet to read (default: the first)."),
    )
    dry_run = forms.BooleanField(
        label=_("Dry run"), required=False, help_text=_("Validate and count; write nothing.")
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        kinds = upload_kinds(user)
        kind_field: Any = self.fields["kind"]
        kind_field.choices = [(k, label) for k, label in ImportLog.Kind.choices if k in kinds]
        study_field: Any = self.fields["study"]
        study_field.queryset = upload_studies(user)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("kind") == ImportLog.Kind.STUDY:
            data["study"] = None  # the file names its study
            self._check_study_definition(data.get("file"))
        elif data.get("kind") and not data.get("study"):
            self.add_error("study", _("Choose the study this file belongs to."))
        return data

    def _check_study_definition(self, upload: Any) -> None:
        """Refuse a definition of a study the user may not change (or add)."""
        if upload is None:
            return
        source = Source.from_upload(upload.name, upload, encoding=self.data.get("encoding"))
        upload.seek(0)
        try:
            slug = validate_study(source).slug
        except LoadError:
            return  # the load lists the file's problems and writes nothing
        existing = Study.objects.filter(slug=slug).first()
        if not may_load_study_definition(self.user, existing):
            message = (
                _("This file defines the study “%(slug)s”, which you may not change.")
                if existing is not None
                else _("You may not add a study.")
            )
            self.add_error("file", message % {"slug": slug})
