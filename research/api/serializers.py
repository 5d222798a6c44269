"""Output serializers of the researchers' API (read-only)."""

from __future__ import annotations

from rest_framework import serializers


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


class ReportOut(serializers.Serializer):
    """formats.md §5: tables as lists of flat rows (docs/report.md describes each)."""

    study = serializers.CharField()
    generated_at = serializers.CharField()
    settings = serializers.DictField()
    exclusions = serializers.ListField(child=serializers.DictField())
    accuracy = serializers.ListField(child=serializers.DictField())
    model_vs_groups = serializers.ListField(child=serializers.DictField())
    comparisons = serializers.ListField(child=serializers.DictField())
    agreement = serializers.ListField(child=serializers.DictField())
    correlation = serializers.ListField(child=serializers.DictField())
    rule_vs_rating = serializers.ListField(child=serializers.DictField())
    rule_scores = serializers.ListField(child=serializers.DictField())
    aggregates = serializers.ListField(child=serializers.DictField())
    ratings = serializers.ListField(child=serializers.DictField())
    rule_rates = serializers.ListField(child=serializers.DictField())
    validation = serializers.ListField(child=serializers.DictField())
    pairwise = serializers.ListField(child=serializers.DictField())
    echo_chamber = serializers.ListField(child=serializers.DictField())
    self_preference = serializers.ListField(child=serializers.DictField())
    form_length = serializers.ListField(child=serializers.DictField())
    published_vs_computed = serializers.ListField(child=serializers.DictField())
    icc = serializers.ListField(child=serializers.DictField())
    bws = serializers.ListField(child=serializers.DictField())
    item_analysis = serializers.ListField(child=serializers.DictField())
    abilities = serializers.ListField(child=serializers.DictField())


class PlanOut(serializers.Serializer):
    """``manage.py plan``'s rows (docs/statistics.md, planning) and the goals used."""

    study = serializers.CharField()
    goals = serializers.DictField()
    rows = serializers.ListField(child=serializers.DictField())
