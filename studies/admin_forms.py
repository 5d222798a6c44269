"""Admin forms that check what they let through as the study file's loader does."""

from __future__ import annotations

from typing import Any

from django import forms

from studies.loading.problems import Collector
from studies.loading.study_parts import Lines, parse_guide
from studies.models import Task


class TaskForm(forms.ModelForm):
    """A task's texts and settings; the guide must have the study file's shape
    (``[{"label": ..., "description": ...}]``), or the question page could not show it."""

    class Meta:
        model = Task
        fields = ("title", "instructions", "guide", "per_participant", "position", "meta")

    def clean_guide(self) -> list[dict[str, str]]:
        raw: Any = self.cleaned_data.get("guide")
        collector = Collector("guide")
        guide = parse_guide(raw, Lines(collector, {}), "task")
        if collector.problems:
            raise forms.ValidationError([p.message for p in collector.problems])
        return guide
