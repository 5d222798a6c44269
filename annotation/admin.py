"""Admin for who answered what (the upload page is in jobs.upload: it creates jobs).

Each list and page holds only the studies shared with the user, and a volunteer's resume
code is shown to superusers only (``studies.admin_scope``)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from annotation import services
from annotation.models import AggregateResult, Assignment, Participant, Rater, Response
from studies.admin_scope import StudyScoped, scoped_filters, secret_display
from studies.models import Group


class KeepsTallies(admin.ModelAdmin):
    """Saving or deleting these rows by hand changes assignments outside the claim path:
    afterwards the studies' tallies and task counts are counted afresh
    (``services.tallies_refresh``), as ``manage.py tallies_recount`` would."""

    study_path = "study"
    refresh_on_save = True  # False where a saved row never changes assignments

    def _studies(self, rows: QuerySet[Any]) -> set[int]:
        """The studies of these rows, in one query (``study_path`` as StudyScoped has it)."""
        return set(rows.values_list(self.study_path, flat=True).distinct())

    def _refresh(self, study_ids: set[int]) -> None:
        for study_id in sorted(study_ids):
            services.tallies_refresh(study_id=study_id)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if self.refresh_on_save:
            self._refresh(self._studies(self.model.objects.filter(pk=obj.pk)))

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        studies = self._studies(self.model.objects.filter(pk=obj.pk))
        super().delete_model(request, obj)
        self._refresh(studies)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        studies = self._studies(queryset)
        super().delete_queryset(request, queryset)
        self._refresh(studies)


@admin.register(Rater)
class RaterAdmin(StudyScoped, admin.ModelAdmin):
    list_display = ("name", "kind", "run", "group", "study")
    list_filter = (*scoped_filters("study"), "kind", *scoped_filters("participant__group"))
    search_fields = ("name", "run")
    list_select_related = ("study", "participant__group")

    @admin.display(description=_("group"), ordering="participant__group__slug")
    def group(self, obj: Rater) -> Group | None:
        """A human rater's group is its participant's; models and rules have none."""
        participant = getattr(obj, "participant", None)
        return participant.group if participant is not None else None


@admin.register(Participant)
class ParticipantAdmin(StudyScoped, KeepsTallies):
    list_display = (
        "public_id",
        "study",
        "group",
        "entry",
        "status",
        "flagged",
        "is_test",
        "created_at",
        "finished_at",
    )
    list_filter = (*scoped_filters("study", "group"), "status", "entry", "flagged", "is_test")
    actions = ("clear_tests",)
    refresh_on_save = False  # a participant's deletion takes their assignments; an edit not
    search_fields = ("public_id", "resume_code", "completion_code")
    # A resume code is the volunteer's credential: with it one answers in their name.
    secret_fields = ("resume_code",)
    resume_code_hidden = secret_display("resume_code", _("resume code"))
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

    @admin.action(
        description=_("Clear the test participants of the selected participants' studies"),
        permissions=["delete"],
    )
    def clear_tests(self, request: HttpRequest, queryset: QuerySet[Participant]) -> None:
        """Staff's preview answers (preview and test mode) out of the way in one action:
        every test participant of these studies, with all they did; nothing else."""
        studies = {p.study for p in queryset.select_related("study")}
        n = sum(services.tests_clear(study=study) for study in studies)
        self.message_user(request, _("%(n)d test participant(s) deleted.") % {"n": n})


@admin.register(Assignment)
class AssignmentAdmin(StudyScoped, KeepsTallies):
    study_path = "task__study"
    list_display = ("participant", "item", "task", "group", "status", "claimed_at", "answered_at")
    list_filter = (*scoped_filters("task__study", "task", "group"), "status")
    search_fields = ("participant__public_id", "item__external_id")
    raw_id_fields = ("participant", "item")
    list_select_related = ("participant", "item", "task", "group")


@admin.register(Response)
class ResponseAdmin(StudyScoped, admin.ModelAdmin):
    list_display = ("item", "rater", "field", "value", "correct", "time_ms", "sample", "created_at")
    list_filter = (
        *scoped_filters("study", "task"),
        "rater__kind",
        *scoped_filters("rater__participant__group"),
        "field",
        "correct",
    )
    search_fields = ("item__external_id", "rater__name", "field")
    raw_id_fields = ("item", "rater")
    list_select_related = ("item", "rater")
    show_full_result_count = False


@admin.register(AggregateResult)
class AggregateResultAdmin(StudyScoped, admin.ModelAdmin):
    list_display = ("model", "task", "metric", "value", "n", "run", "study")
    list_filter = (*scoped_filters("study"), "task", "metric")
    search_fields = ("model", "task", "source")
