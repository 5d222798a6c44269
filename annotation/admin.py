"""Admin for who answered what (the upload page is in jobs.upload: it creates jobs)."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from annotation.models import AggregateResult, Assignment, Participant, Rater, Response
from studies.models import Group


@admin.register(Rater)
class RaterAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "run", "group", "study")
    list_filter = ("study", "kind", "participant__group")
    search_fields = ("name", "run")
    list_select_related = ("study", "participant__group")

    @admin.display(description=_("group"), ordering="participant__group__slug")
    def group(self, obj: Rater) -> Group | None:
        """A human rater's group is its participant's; models and rules have none."""
        participant = getattr(obj, "participant", None)
        return participant.group if participant is not None else None


@admin.register(Participant)
class ParticipantAdmin(admin.ModelAdmin):
    list_display = (
        "public_id",
        "study",
        "group",
        "entry",
        "status",
        "flagged",
        "created_at",
        "finished_at",
    )
    list_filter = ("study", "group", "status", "entry", "flagged")
    search_fields = ("public_id", "resume_code", "completion_code")
    # The group is placed by invitation, screening or import (participants_place) and
    # keeps the responses' group in every table: not edited here.
    readonly_fields = (
        "public_id",
        "rater",
        "group",
        "resume_code",
        "consent_text",
        "consented_at",
        "created_at",
    )


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("participant", "item", "task", "group", "status", "claimed_at", "answered_at")
    list_filter = ("task__study", "task", "group", "status")
    search_fields = ("participant__public_id", "item__external_id")
    raw_id_fields = ("participant", "item")
    list_select_related = ("participant", "item", "task", "group")


@admin.register(Response)
class ResponseAdmin(admin.ModelAdmin):
    list_display = ("item", "rater", "field", "value", "correct", "time_ms", "sample", "created_at")
    list_filter = ("study", "task", "rater__kind", "rater__participant__group", "field", "correct")
    search_fields = ("item__external_id", "rater__name", "field")
    raw_id_fields = ("item", "rater")
    list_select_related = ("item", "rater")
    show_full_result_count = False


@admin.register(AggregateResult)
class AggregateResultAdmin(admin.ModelAdmin):
    list_display = ("model", "task", "metric", "value", "n", "run", "study")
    list_filter = ("study", "task", "metric")
    search_fields = ("model", "task", "source")
