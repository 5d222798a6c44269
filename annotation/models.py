"""Who answered what: every judgment is a Response by a Rater.

A volunteer's answer, an LLM's answer, an LLM judge's rating and a rule's score are the
same fact: rater R gave item I, in field F (a sub-question or rating dimension), value V.
Aggregate results published elsewhere are kept apart in :class:`AggregateResult`.
"""

from __future__ import annotations

import secrets

from django.db import models
from django.utils.translation import gettext_lazy as _

from studies.models import Group, Item, Study, Task

# No 0/O, 1/I/L: resume codes are read off a screen and typed by hand.
_RESUME_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"


def new_public_id() -> str:
    return "p-" + secrets.token_hex(6)


def new_resume_code() -> str:
    return "".join(secrets.choice(_RESUME_ALPHABET) for _ in range(10))


class Rater(models.Model):
    class Kind(models.TextChoices):
        HUMAN = "human", _("Human")
        MODEL = "model", _("Model")
        RULE = "rule", _("Rule")

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="raters")
    kind = models.CharField(max_length=5, choices=Kind.choices)
    # Participant id for humans, model name for models, rule name for rules.
    name = models.CharField(max_length=200)
    # A run or prompt-condition label (models), or the rules' version (rules).
    run = models.CharField(max_length=100, blank=True, default="")
    meta = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["study", "kind", "name", "run"]
        constraints = [
            models.UniqueConstraint(fields=["study", "kind", "name", "run"], name="rater_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}" + (f" [{self.run}]" if self.run else "")


class Participant(models.Model):
    class Status(models.TextChoices):
        CONSENTED = "consented", _("Consented")
        SCREENED = "screened", _("Screened")
        FINISHED = "finished", _("Finished")
        IMPORTED = "imported", _("Imported")

    class Entry(models.TextChoices):
        PUBLIC = "public", _("Public link")
        INVITE = "invite", _("Group invitation")
        IMPORT = "import", _("Imported responses")
        API = "api", _("API")

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="participants")
    public_id = models.CharField(max_length=40, unique=True, default=new_public_id)
    rater = models.OneToOneField(Rater, on_delete=models.CASCADE, related_name="participant")
    # The one record of a volunteer's group (a human rater's group is its participant's);
    # written only by ``annotation.services.participants_place``.
    group = models.ForeignKey(Group, null=True, blank=True, on_delete=models.SET_NULL)
    entry = models.CharField(max_length=10, choices=Entry.choices, default=Entry.PUBLIC)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.CONSENTED)
    consent_text = models.TextField(blank=True)
    consented_at = models.DateTimeField(null=True, blank=True)
    screening_answers = models.JSONField(default=dict, blank=True)
    resume_code = models.CharField(max_length=16, unique=True, default=new_resume_code)
    completion_code = models.CharField(max_length=64, blank=True)
    task_order = models.JSONField(default=list, blank=True)
    language = models.CharField(max_length=10, blank=True)
    # A recruitment platform's parameters from the entry link (Prolific's PROLIFIC_PID,
    # STUDY_ID, SESSION_ID; a generic pid): exported for the researchers, shown to nobody.
    recruitment = models.JSONField(default=dict, blank=True)
    attention_failures = models.PositiveIntegerField(default=0)
    flagged = models.BooleanField(default=False, help_text=_("Failed too many attention checks."))
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["study", "created_at"]
        indexes = [models.Index(fields=["study", "group", "status"], name="participant_progress")]

    def __str__(self) -> str:
        return self.public_id


class Assignment(models.Model):
    """An item claimed for a participant; the claim expires unless answered."""

    class Status(models.TextChoices):
        CLAIMED = "claimed", _("Claimed")
        ANSWERED = "answered", _("Answered")
        EXPIRED = "expired", _("Expired")

    # No single-column indexes on participant and item: assignment_unique /
    # assignment_progress and assignment_balance lead with them. Every answer UPDATEs a
    # row's status (an indexed column, so not a HOT update): each index less is one
    # index write less on the answer path.
    participant = models.ForeignKey(
        Participant, on_delete=models.CASCADE, related_name="assignments", db_index=False
    )
    item = models.ForeignKey(
        Item, on_delete=models.CASCADE, related_name="assignments", db_index=False
    )
    task = models.ForeignKey(Task, on_delete=models.CASCADE)
    group = models.ForeignKey(Group, null=True, blank=True, on_delete=models.SET_NULL)
    position = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.CLAIMED)
    # Per field, the order options are shown in: shown index -> canonical index.
    option_order = models.JSONField(default=dict, blank=True)
    claimed_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    served_at = models.DateTimeField(null=True, blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["participant", "position"]
        constraints = [
            models.UniqueConstraint(fields=["participant", "item"], name="assignment_unique"),
        ]
        indexes = [
            models.Index(fields=["item", "group", "status"], name="assignment_balance"),
            models.Index(fields=["participant", "status"], name="assignment_progress"),
        ]

    def __str__(self) -> str:
        return f"{self.participant_id}→{self.item_id} ({self.status})"


class Response(models.Model):
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="responses")
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="responses")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="responses")
    rater = models.ForeignKey(Rater, on_delete=models.CASCADE, related_name="responses")
    # "answer" for choice items, the part key for multi, "best"/"worst", the dimension key
    # for ratings, the metric name for rules.
    field = models.CharField(max_length=64)
    # Option index (canonical order), rating, or rule score.
    value = models.FloatField(null=True)
    correct = models.BooleanField(null=True)
    time_ms = models.PositiveIntegerField(null=True, blank=True)
    # Sample number when a model was sampled several times for one item.
    sample = models.PositiveIntegerField(default=0)
    raw = models.TextField(blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["rater", "item", "field", "sample"], name="response_one_per_field"
            ),
        ]
        indexes = [
            models.Index(fields=["study", "task", "field"], name="response_task_field"),
            models.Index(fields=["item", "field"], name="response_item_field"),
        ]

    def __str__(self) -> str:
        return f"{self.rater_id}/{self.item_id}/{self.field}={self.value}"


class AggregateResult(models.Model):
    """A model's result on a task measured elsewhere (never mixed into item-level stats)."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="aggregates")
    model = models.CharField(max_length=200)
    task = models.CharField(max_length=100, help_text=_("Task slug or benchmark task name."))
    metric = models.CharField(max_length=50, default="accuracy")
    value = models.FloatField()
    n = models.PositiveIntegerField(null=True, blank=True)
    run = models.CharField(max_length=100, blank=True, default="")
    source = models.TextField(blank=True)
    meta = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["study", "task", "model"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "model", "task", "metric", "run"], name="aggregate_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.model} {self.task} {self.metric}={self.value}"
