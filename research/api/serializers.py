"""Output serializers of the researchers' API (read-only)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from scoring.report.registry import TABLES


class GroupOut(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    target_per_item = serializers.IntegerField()


class TaskOut(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    kind = serializers.CharField()
    per_participant = serializers.IntegerField()
    dimensions = serializers.JSONField()


class StudyOut(serializers.Serializer):
    id = serializers.IntegerField()
    slug = serializers.CharField()
    title = serializers.CharField()
    status = serializers.CharField()
    exclude_flagged = serializers.BooleanField()


class StudyDetailOut(StudyOut):
    description = serializers.CharField()
    groups = GroupOut(many=True)
    tasks = TaskOut(many=True)
    n_items = serializers.IntegerField()
    n_participants = serializers.IntegerField()
    n_responses = serializers.IntegerField()


class ItemOut(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    external_id = serializers.CharField()
    task = serializers.CharField(source="task.slug")
    stem = serializers.CharField()
    options = serializers.JSONField()
    parts = serializers.JSONField()
    answer = serializers.JSONField(allow_null=True)
    poem_title = serializers.CharField()
    poem_author = serializers.CharField()
    poem_form = serializers.CharField()
    poem_text = serializers.CharField()
    poem_source = serializers.CharField()
    poem_condition = serializers.CharField()
    source_kind = serializers.CharField()
    source_model = serializers.CharField()
    sample = serializers.IntegerField(allow_null=True)
    category = serializers.CharField()
    is_attention_check = serializers.BooleanField()


class ResponseOut(serializers.Serializer):
    """One row of formats.md §4: a rater's value for one item and field."""

    id = serializers.IntegerField()
    task = serializers.CharField(source="task__slug")
    item = serializers.CharField(source="item__external_id")
    rater_kind = serializers.CharField(source="rater__kind")
    rater = serializers.CharField(source="rater__name")
    run = serializers.CharField(source="rater__run")
    group = serializers.CharField(source="rater__participant__group__slug", allow_null=True)
    field = serializers.CharField()
    value = serializers.FloatField(allow_null=True)
    correct = serializers.BooleanField(allow_null=True)
    time_ms = serializers.IntegerField(allow_null=True)
    sample = serializers.IntegerField()
    answered_at = serializers.DateTimeField(allow_null=True)


def _report_out() -> type[serializers.Serializer]:
    """formats.md §5: tables as lists of flat rows (docs/report.md describes each), one
    field per table of the report's registry (scoring/report/registry.py)."""
    fields: dict[str, Any] = {
        "study": serializers.CharField(),
        "generated_at": serializers.CharField(),
        "settings": serializers.DictField(),
        # data fingerprint, commit, RULES_VERSION, versions, loaded files (docs/report.md §8b)
        "provenance": serializers.DictField(),
    }
    for name in TABLES:
        fields[name] = serializers.ListField(child=serializers.DictField())
    fields["__doc__"] = _report_out.__doc__
    fields["__module__"] = __name__
    return type("ReportOut", (serializers.Serializer,), fields)


ReportOut = _report_out()


class PlanOut(serializers.Serializer):
    """``manage.py plan``'s rows (docs/statistics.md, planning) and the goals used."""

    study = serializers.CharField()
    goals = serializers.DictField()
    rows = serializers.ListField(child=serializers.DictField())
