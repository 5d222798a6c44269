"""Forms of the volunteer pages: consent, resume and answers (the admin's upload form is
``jobs.forms``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from studies.kinds import Kind


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
