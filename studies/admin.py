"""Admin for studies: every model browsable, searchable and filterable.

What a loaded file sets (answer keys, options, stems, poems, task kinds and scales,
screening options, slugs) is read-only here: see ``studies.admin_display``. Everyone but
a superuser sees only the studies shared with them, and no token: ``studies.admin_scope``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from studies.access import is_superuser
from studies.admin_display import POOL_NOTE, STUDY_NOTE, file_note, json_display
from studies.admin_forms import StudyForm, TaskForm
from studies.admin_scope import SecretFields, StudyScoped, scoped_filters, secret_display
from studies.models import (
    AnalysisPlan,
    Group,
    ImportLog,
    Item,
    PlanDeviation,
    ScreeningQuestion,
    Study,
    Task,
)
from studies.services import studies_open


class GroupInline(SecretFields, admin.TabularInline):
    model = Group
    extra = 0
    fields = ("slug", "name", "target_per_item", "position", "invite_token")
    readonly_fields = ("slug", "invite_token")  # screening options and files name it
    secret_fields = ("invite_token",)
    invite_token_hidden = secret_display("invite_token", _("invitation token"))

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # groups come with the study file (or the group admin's add page)


class ScreeningInline(admin.StackedInline):
    model = ScreeningQuestion
    extra = 0
    fields = ("key", "prompt", "options_json", "position")
    readonly_fields = ("key", "options_json", "position")
    options_json = json_display("options", _("options"))

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class TaskInline(admin.TabularInline):
    model = Task
    extra = 0
    fields = ("slug", "title", "kind", "per_participant", "position")
    readonly_fields = ("slug", "kind")
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Study)
class StudyAdmin(StudyScoped, admin.ModelAdmin):
    form = StudyForm
    study_path = ""
    list_display = ("slug", "title", "status", "listed", "created_at", "updated_at")
    list_filter = ("status", "listed")
    actions = ("open_studies",)
    search_fields = ("slug", "title", "description")
    filter_horizontal = ("researchers",)
    readonly_fields = ("preview_link", "public_token", "created_at", "updated_at")
    inlines = (GroupInline, ScreeningInline, TaskInline)
    secret_fields = ("public_token",)
    public_token_hidden = secret_display("public_token", _("public token"))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = super().get_readonly_fields(request, obj)
        # Only superusers share a study: the list of users is not everyone's to see.
        return fields if is_superuser(request.user) else [*fields, "researchers"]

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        if not change and not is_superuser(request.user):
            form.instance.researchers.add(request.user)  # who adds a study may see it

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None:
            return fieldsets
        (name, options), *rest = fieldsets
        return [(name, {**options, "description": file_note(STUDY_NOTE)}), *rest]

    @admin.display(description=_("preview"))
    def preview_link(self, obj: Study) -> Any:
        """Open the study as a volunteer, in test mode (any status; never counted)."""
        if obj.pk is None:
            return "—"
        return format_html(
            '<a href="/s/{}/preview/" id="preview-link">{}</a>',
            obj.slug,
            _("Try it as a volunteer (test mode: answers never counted)"),
        )

    @admin.action(description=_("Open the selected studies to volunteers"), permissions=["change"])
    def open_studies(self, request: HttpRequest, queryset: Any) -> None:
        n = studies_open(studies=queryset)
        message = ngettext(
            "%(n)d study opened to volunteers.", "%(n)d studies opened to volunteers.", n
        )
        self.message_user(request, message % {"n": n})


@admin.register(Group)
class GroupAdmin(StudyScoped, admin.ModelAdmin):
    list_display = ("study", "slug", "name", "target_per_item")
    list_filter = scoped_filters("study")
    search_fields = ("slug", "name")
    fields = ("study", "slug", "name", "target_per_item", "position", "invite_token")
    secret_fields = ("invite_token",)
    invite_token_hidden = secret_display("invite_token", _("invitation token"))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # Screening options, invitations' pages and files name a group by its slug.
        fixed = ["invite_token"] if obj is None else ["study", "slug", "invite_token"]
        return list(dict.fromkeys([*super().get_readonly_fields(request, obj), *fixed]))

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        (name, options), *rest = super().get_fieldsets(request, obj)
        note = {"description": file_note(STUDY_NOTE)} if obj is not None else {}
        return [(name, {**options, **note}), *rest]


@admin.register(Task)
class TaskAdmin(StudyScoped, admin.ModelAdmin):
    list_display = ("study", "slug", "title", "kind", "per_participant")
    list_filter = (*scoped_filters("study"), "kind")
    search_fields = ("slug", "title", "instructions")
    form = TaskForm
    readonly_fields = ("study", "slug", "kind", "dimensions_json")
    dimensions_json = json_display("dimensions", _("rating dimensions"))

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        return [
            (
                None,
                {
                    "description": file_note(STUDY_NOTE),
                    "fields": ("study", "slug", "kind", "dimensions_json"),
                },
            ),
            (_("Shown to volunteers"), {"fields": ("title", "instructions", "guide")}),
            (_("Settings"), {"fields": ("per_participant", "position", "meta")}),
        ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # tasks come with the study file


@admin.register(ScreeningQuestion)
class ScreeningQuestionAdmin(StudyScoped, admin.ModelAdmin):
    list_display = ("study", "key", "prompt")
    list_filter = scoped_filters("study")
    search_fields = ("key", "prompt")
    # The options place volunteers in groups, and the recorded answers are option
    # indices: only the prompt's wording is edited here.
    fields = ("study", "key", "prompt", "options_json", "position")
    readonly_fields = ("study", "key", "options_json", "position")
    options_json = json_display("options", _("options"))

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        return [(None, {"description": file_note(STUDY_NOTE), "fields": self.fields})]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # screening questions come with the study file


ITEM_MAIN = (
    "study",
    "task",
    "external_id",
    "stem",
    "options_display",
    "is_attention_check",
    "answer_json",
)
ITEM_POEM = (
    "poem_display",
    "poem_title",
    "poem_author",
    "poem_form",
    "poem_source",
    "poem_condition",
    "source_kind",
    "source_model",
    "sample",
    "category",
    "poem_text",
)
ITEM_DATA = (
    "options_json",
    "parts_json",
    "meta_json",
    "position",
    "content_hash",
    "created_at",
    "updated_at",
)
# Everything about an item but its place in the list comes from the pool file.
ITEM_READ_ONLY = tuple(f for f in (*ITEM_MAIN, *ITEM_POEM, *ITEM_DATA) if f != "position")


@admin.register(Item)
class ItemAdmin(StudyScoped, admin.ModelAdmin):
    list_display = (
        "external_id",
        "task",
        "short_stem",
        "poem_form",
        "poem_source",
        "is_attention_check",
    )
    list_filter = (
        *scoped_filters("study", "task"),
        "task__kind",
        "source_kind",
        "poem_source",
        "poem_form",
        "poem_condition",
        "category",
        "is_attention_check",
    )
    search_fields = ("external_id", "stem", "poem_title", "poem_author", "poem_text")
    list_select_related = ("task",)
    readonly_fields = ITEM_READ_ONLY
    answer_json = json_display("answer", _("answer key"))
    options_json = json_display("options", _("options (data)"))
    parts_json = json_display("parts", _("parts"))
    meta_json = json_display("meta", _("meta"))

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        return [
            (None, {"description": file_note(POOL_NOTE), "fields": ITEM_MAIN}),
            (_("Poem"), {"fields": ITEM_POEM}),
            (_("Data"), {"classes": ("collapse",), "fields": ITEM_DATA}),
        ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # items come with the question pool file

    @admin.display(description=_("stem"))
    def short_stem(self, obj: Item) -> str:
        text = obj.stem or obj.poem_title or obj.poem_text
        return text[:40] + ("…" if len(text) > 40 else "")

    @admin.display(description=_("poem as shown"))
    def poem_display(self, obj: Item) -> str:
        if not obj.poem_text:
            return "—"
        head = " · ".join(x for x in (obj.poem_title, obj.poem_author) if x)
        return format_html(
            '<div class="poem" style="font-size:1.25em;line-height:1.8;white-space:pre-wrap">'
            '<strong>{}</strong>\n{}</div><p><a href="{}">{}</a></p>',
            head,
            obj.poem_text,
            reverse("research:poem", args=[obj.pk]),
            _("Tones, rhymes and the matched template"),
        )

    @admin.display(description=_("options"))
    def options_display(self, obj: Item) -> str:
        if obj.parts:
            rows = [
                f"{p['prompt']}: " + " / ".join(o["text"] for o in p["options"]) for p in obj.parts
            ]
        else:
            rows = [f"{chr(65 + i)}. {o['text']}" for i, o in enumerate(obj.options)]
        return (
            format_html('<div style="white-space:pre-wrap">{}</div>', "\n".join(rows))
            if rows
            else "—"
        )


@admin.register(ImportLog)
class ImportLogAdmin(StudyScoped, admin.ModelAdmin):
    own_path = "user"
    list_display = (
        "at",
        "kind",
        "study",
        "filename",
        "rows",
        "created",
        "updated",
        "unchanged",
        "user",
    )
    list_filter = ("kind", *scoped_filters("study"))
    search_fields = ("filename", "sha256")
    readonly_fields = [f.name for f in ImportLog._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


class PlanDeviationInline(admin.TabularInline):
    model = PlanDeviation
    extra = 0
    fields = ("path", "planned", "actual", "n_responses", "first_seen_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(AnalysisPlan)
class AnalysisPlanAdmin(StudyScoped, admin.ModelAdmin):
    """Frozen plans are a record: read-only here (``manage.py analysis_plan`` freezes)."""

    list_display = ("study", "sha256", "frozen_at", "n_responses", "frozen_by")
    list_filter = scoped_filters("study")
    search_fields = ("sha256", "study__slug")
    readonly_fields = ("study", "sha256", "n_responses", "frozen_at", "frozen_by", "plan_json")
    exclude = ("content",)
    inlines = (PlanDeviationInline,)

    plan_json = json_display("content", _("content"))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
