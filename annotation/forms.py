"""Forms: the admin's upload form, and the volunteer pages' consent, resume and answers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.upload_rights import may_load_study_definition, upload_kinds, upload_studies
from studies.kinds import Kind
from studies.loading.encodings import NAMED
from studies.loading.problems import LoadError
from studies.loading.readers import Source
from studies.loading.study import validate_study
from studies.models import ImportLog, Study


class UploadForm(forms.Form):
    """A file to load, of a kind ``user`` may load (``annotation.upload_rights``), into
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


class ConsentForm(forms.Form):
    consent = forms.BooleanField(
        label=_("I have read the information above and agree to take part."),
        error_messages={"required": _("Please tick the box to agree before starting.")},
    )


class ResumeForm(forms.Form):
    code = forms.CharField(
        label=_("Resume code"),
        max_length=20,
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters"}),
    )


@dataclass
class AnswerInput:
    """A question page's POST, read into the shapes ``response_submit`` takes."""

    answer: Any = None
    ratings: Any = None
    selected: dict[str, str] = field(default_factory=dict)  # field key -> shown value


def read_answer(kind: Kind, keys: list[str], data: Mapping[str, Any]) -> AnswerInput:
    """Read the ``f-<key>`` inputs of a question page. Nothing is checked here: the answer
    rule (``studies.kinds.parse_answer``, inside the service) checks every field and its
    messages are shown beside the fields."""
    selected = {key: value for key in keys if (value := str(data.get(f"f-{key}", "")).strip())}
    given = kind.answer_from_fields({key: selected.get(key) for key in keys})
    if kind.payload == "ratings":
        return AnswerInput(ratings=given, selected=selected)
    return AnswerInput(answer=given, selected=selected)
