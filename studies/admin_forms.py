"""Admin forms that check what they let through as the study file's loader does."""

from __future__ import annotations

from typing import Any

from django import forms

from studies.loading.problems import Collector
from studies.loading.study_parts import Lines, parse_guide
from studies.loading.warmup import warmup_check_problems, warmup_tasks
from studies.models import Study, Task


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


class StudyForm(forms.ModelForm):
    """The study's fields as the admin edits them, with the study file's rule for the
    warm-up: a practice or qualification task holding an attention check is refused."""

    # no Meta: the admin builds the form's fields from its fieldsets (StudyAdmin)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.instance.pk is None:
            return data
        named = Study(
            practice_task=data.get("practice_task") or "",
            qualification=data.get("qualification") or {},
        )
        for block, problem in warmup_check_problems(self.instance, warmup_tasks(named)):
            field = "practice_task" if block == "practice" else "qualification"
            self.add_error(field, str(problem))
        return data
