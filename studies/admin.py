"""Admin for studies: every model browsable, searchable and filterable."""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from studies.models import Group, ImportLog, Item, ScreeningQuestion, Study, Task


class GroupInline(admin.TabularInline):
    model = Group
    extra = 0
    readonly_fields = ("invite_token",)


class ScreeningInline(admin.StackedInline):
    model = ScreeningQuestion
    extra = 0


class TaskInline(admin.TabularInline):
    model = Task
    extra = 0
    fields = ("slug", "title", "kind", "per_participant", "position")
    show_change_link = True


@admin.register(Study)
class StudyAdmin(admin.ModelAdmin):
    list_display = ("slug", "title", "status", "created_at", "updated_at")
    list_filter = ("status",)
    search_fields = ("slug", "title", "description")
    filter_horizontal = ("researchers",)
    readonly_fields = ("public_token", "created_at", "updated_at")
    inlines = (GroupInline, ScreeningInline, TaskInline)


@admin.register(Group)
class GroupAdmin(admin.ModelAdmin):
    list_display = ("study", "slug", "name", "target_per_item")
    list_filter = ("study",)
    search_fields = ("slug", "name")
    readonly_fields = ("invite_token",)


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    list_display = ("study", "slug", "title", "kind", "per_participant")
    list_filter = ("study", "kind")
    search_fields = ("slug", "title", "instructions")


@admin.register(ScreeningQuestion)
class ScreeningQuestionAdmin(admin.ModelAdmin):
    list_display = ("study", "key", "prompt")
    list_filter = ("study",)
    search_fields = ("key", "prompt")


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = (
        "external_id",
        "task",
        "short_stem",
        "poem_form",
        "poem_source",
        "is_attention_check",
    )
    list_filter = ("study", "task", "task__kind", "poem_source", "poem_form", "is_attention_check")
    search_fields = ("external_id", "stem", "poem_title", "poem_author", "poem_text")
    list_select_related = ("task",)
    readonly_fields = (
        "poem_display",
        "options_display",
        "content_hash",
        "created_at",
        "updated_at",
    )
    fieldsets = (
        (None, {"fields": ("study", "task", "external_id", "stem", "options_display", "is_attention_check")}),
        (_("Poem"), {"fields": ("poem_display", "poem_title", "poem_author", "poem_form", "poem_source", "poem_condition", "poem_text")}),
        (_("Data"), {"classes": ("collapse",), "fields": ("options", "parts", "answer", "meta", "position", "content_hash", "created_at", "updated_at")}),
    )  # fmt: skip

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
class ImportLogAdmin(admin.ModelAdmin):
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
    list_filter = ("kind", "study")
    search_fields = ("filename", "sha256")
    readonly_fields = [f.name for f in ImportLog._meta.fields]

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False
