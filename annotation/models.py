"""Who answered what: every judgment is a Response by a Rater.

A volunteer's answer, an LLM's answer, an LLM judge's rating and a rule's score are the
same fact: rater R gave item I, in field F (a sub-question or rating dimension), value V.
Aggregate results published elsewhere are kept apart in :class:`AggregateResult`.
"""

from __future__ import annotations

import secrets

from django.conf import settings
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

    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="raters", verbose_name=_("study")
    )
    kind = models.CharField(max_length=5, choices=Kind.choices, verbose_name=_("kind"))
    # Participant id for humans, model name for models, rule name for rules.
    name = models.CharField(max_length=200, verbose_name=_("name"))
    # A run or prompt-condition label (models), or the rules' version (rules).
    run = models.CharField(max_length=100, blank=True, default="", verbose_name=_("run"))
    meta = models.JSONField(default=dict, blank=True, verbose_name=_("meta"))

    class Meta:
        verbose_name = _("rater")
        verbose_name_plural = _("raters")
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

    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="participants", verbose_name=_("study")
    )
    public_id = models.CharField(
        max_length=40, unique=True, default=new_public_id, verbose_name=_("participant id")
    )
    rater = models.OneToOneField(
        Rater, on_delete=models.CASCADE, related_name="participant", verbose_name=_("rater")
    )
    # The one record of a volunteer's group (a human rater's group is its participant's);
    # written only by ``annotation.services.participants_place``.
    group = models.ForeignKey(
        Group, null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("group")
    )
    entry = models.CharField(
        max_length=10, choices=Entry.choices, default=Entry.PUBLIC, verbose_name=_("entry")
    )
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.CONSENTED, verbose_name=_("status")
    )
    consent_text = models.TextField(blank=True, verbose_name=_("consent text"))
    consented_at = models.DateTimeField(null=True, blank=True, verbose_name=_("consented at"))
    screening_answers = models.JSONField(
        default=dict, blank=True, verbose_name=_("screening answers")
    )
    resume_code = models.CharField(
        max_length=16, unique=True, default=new_resume_code, verbose_name=_("resume code")
    )
    completion_code = models.CharField(max_length=64, blank=True, verbose_name=_("completion code"))
    task_order = models.JSONField(default=list, blank=True, verbose_name=_("task order"))
    language = models.CharField(max_length=10, blank=True, verbose_name=_("language"))
    # A recruitment platform's parameters from the entry link (Prolific's PROLIFIC_PID,
    # STUDY_ID, SESSION_ID; a generic pid): exported for the researchers, shown to nobody.
    recruitment = models.JSONField(default=dict, blank=True, verbose_name=_("recruitment ids"))
    attention_failures = models.PositiveIntegerField(
        default=0, verbose_name=_("failed attention checks")
    )
    flagged = models.BooleanField(
        default=False, help_text=_("Failed too many attention checks."), verbose_name=_("flagged")
    )
    # A digest of the browser's first-party cookie when they consented (never the cookie,
    # never shown to anyone): the quality check of enrolments from one device.
    device = models.CharField(max_length=32, blank=True, editable=False, verbose_name=_("device"))
    # A keyed digest of the client address they consented from (HMAC with the site's
    # secret; never the address, never shown to anyone): the quality check of several
    # enrolments from one address in a short time.
    address = models.CharField(
        max_length=32, blank=True, editable=False, verbose_name=_("address digest")
    )
    # Practice and qualification (Study.practice_task, Study.qualification): the answers,
    # the score and where the volunteer was routed, kept here and nowhere else, so they
    # are never counted (no Response, no claim, no tally).
    warmup = models.JSONField(default=dict, blank=True, editable=False, verbose_name=_("warm-up"))
    # Staff trying the study as a volunteer (preview and test mode): their answers are kept
    # apart, never in the report, the exports or the balance (docs/running-a-study.md).
    is_test = models.BooleanField(
        default=False,
        editable=False,
        help_text=_("Staff trying the study out: never counted."),
        verbose_name=_("test participant"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))

    class Meta:
        verbose_name = _("participant")
        verbose_name_plural = _("participants")
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
        Participant,
        on_delete=models.CASCADE,
        related_name="assignments",
        db_index=False,
        verbose_name=_("participant"),
    )
    item = models.ForeignKey(
        Item,
        on_delete=models.CASCADE,
        related_name="assignments",
        db_index=False,
        verbose_name=_("item"),
    )
    task = models.ForeignKey(Task, on_delete=models.CASCADE, verbose_name=_("task"))
    group = models.ForeignKey(
        Group, null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("group")
    )
    position = models.PositiveIntegerField(default=0, verbose_name=_("position"))
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.CLAIMED, verbose_name=_("status")
    )
    # Per field, the order options are shown in: shown index -> canonical index.
    option_order = models.JSONField(default=dict, blank=True, verbose_name=_("option order"))
    claimed_at = models.DateTimeField(auto_now_add=True, verbose_name=_("claimed at"))
    expires_at = models.DateTimeField(null=True, blank=True, verbose_name=_("expires at"))
    served_at = models.DateTimeField(null=True, blank=True, verbose_name=_("served at"))
    answered_at = models.DateTimeField(null=True, blank=True, verbose_name=_("answered at"))

    class Meta:
        verbose_name = _("assignment")
        verbose_name_plural = _("assignments")
        ordering = ["participant", "position"]
        constraints = [
            models.UniqueConstraint(fields=["participant", "item"], name="assignment_unique"),
        ]
        indexes = [
            models.Index(fields=["item", "group", "status"], name="assignment_balance"),
            models.Index(fields=["participant", "status"], name="assignment_progress"),
            # The claim's sweep of expired claims (annotation/hotpath/claim.py): only open
            # claims, by expiry, per task and group.
            models.Index(
                fields=["task", "group", "expires_at"],
                condition=models.Q(status="claimed"),
                name="assignment_open_expiry",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.participant_id}→{self.item_id} ({self.get_status_display()})"


class Tally(models.Model):
    """How much of an item a group has taken: its answers plus its open claims (not yet
    found expired). Kept in the same transaction as every claim, answer, expiry and
    release (annotation/hotpath/claim.py), so the next item of a group is the first row
    of an index (``tally_next``) instead of a count over the whole pool; ``tiebreak`` is
    drawn afresh whenever ``taken`` changes, so ties come in random order."""

    # No single-column indexes on item and task: tally_unique and tally_next lead with
    # them. Every claim UPDATEs ``taken`` (indexed, so not a HOT update): each index less
    # is one index write and one dead entry less per claim.
    item = models.ForeignKey(Item, on_delete=models.CASCADE, db_index=False, verbose_name=_("item"))
    group = models.ForeignKey(Group, on_delete=models.CASCADE, verbose_name=_("group"))
    task = models.ForeignKey(Task, on_delete=models.CASCADE, db_index=False, verbose_name=_("task"))
    taken = models.IntegerField(default=0, verbose_name=_("taken"))
    tiebreak = models.FloatField(default=0.0, verbose_name=_("tiebreak"))

    class Meta:
        verbose_name = _("tally")
        verbose_name_plural = _("tallies")
        constraints = [models.UniqueConstraint(fields=["item", "group"], name="tally_unique")]
        indexes = [models.Index(fields=["task", "group", "taken", "tiebreak"], name="tally_next")]

    def __str__(self) -> str:
        return f"{self.item_id}/{self.group_id}: {self.taken}"


class TallyCover(models.Model):
    """What the tallies of one task and group cover: every regular item up to
    ``items_upto`` (the largest item id when they were last brought up to date), and the
    task's numbers of regular items and attention checks then (progress without a count
    over the pool)."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, verbose_name=_("task"))
    group = models.ForeignKey(Group, on_delete=models.CASCADE, verbose_name=_("group"))
    items_upto = models.BigIntegerField(default=0, verbose_name=_("items up to id"))
    n_regular = models.PositiveIntegerField(default=0, verbose_name=_("regular items"))
    n_checks = models.PositiveIntegerField(default=0, verbose_name=_("attention checks"))

    class Meta:
        verbose_name = _("tally coverage")
        verbose_name_plural = _("tally coverage")
        constraints = [models.UniqueConstraint(fields=["task", "group"], name="tally_cover_unique")]

    def __str__(self) -> str:
        return f"{self.task_id}/{self.group_id} ≤ {self.items_upto}"


class TaskCount(models.Model):
    """A participant's counts in one task: their assignments of regular items and of
    attention checks (any status) and their answers. Made from the assignments the first
    time the claim's read finds none (``annotation.hotpath.counts``), then kept by every
    claim and answer in the same statement, so that the read does not count the
    participant's assignments at every page (a cost that grew with their progress).
    Whatever else adds or deletes assignments drops the rows; they are made again."""

    participant = models.ForeignKey(  # task_count_unique leads with it: no index of its own
        "Participant", on_delete=models.CASCADE, db_index=False, verbose_name=_("participant")
    )
    task = models.ForeignKey(Task, on_delete=models.CASCADE, verbose_name=_("task"))
    regular = models.PositiveIntegerField(default=0, verbose_name=_("regular items"))
    checks = models.PositiveIntegerField(default=0, verbose_name=_("attention checks"))
    answered = models.PositiveIntegerField(default=0, verbose_name=_("answered"))

    class Meta:
        verbose_name = _("task count")
        verbose_name_plural = _("task counts")
        constraints = [
            models.UniqueConstraint(fields=["participant", "task"], name="task_count_unique")
        ]

    def __str__(self) -> str:
        return (
            f"{self.participant_id}/{self.task_id}: {self.regular}+{self.checks}, {self.answered}"
        )


class Response(models.Model):
    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="responses", verbose_name=_("study")
    )
    task = models.ForeignKey(
        Task, on_delete=models.CASCADE, related_name="responses", verbose_name=_("task")
    )
    item = models.ForeignKey(
        Item, on_delete=models.CASCADE, related_name="responses", verbose_name=_("item")
    )
    rater = models.ForeignKey(
        Rater, on_delete=models.CASCADE, related_name="responses", verbose_name=_("rater")
    )
    # "answer" for choice items, the part key for multi, "best"/"worst", the dimension key
    # for ratings, the metric name for rules.
    field = models.CharField(max_length=64, verbose_name=_("field"))
    # Option index (canonical order), rating, or rule score.
    value = models.FloatField(null=True, verbose_name=_("value"))
    correct = models.BooleanField(null=True, verbose_name=_("correct"))
    time_ms = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("time (ms)"))
    # Sample number when a model was sampled several times for one item.
    sample = models.PositiveIntegerField(default=0, verbose_name=_("sample"))
    raw = models.TextField(blank=True, verbose_name=_("raw text"))
    answered_at = models.DateTimeField(null=True, blank=True, verbose_name=_("answered at"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("response")
        verbose_name_plural = _("responses")
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

    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="aggregates", verbose_name=_("study")
    )
    model = models.CharField(max_length=200, verbose_name=_("model"))
    task = models.CharField(
        max_length=100, help_text=_("Task slug or benchmark task name."), verbose_name=_("task")
    )
    metric = models.CharField(max_length=50, default="accuracy", verbose_name=_("metric"))
    value = models.FloatField(verbose_name=_("value"))
    n = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("n"))
    run = models.CharField(max_length=100, blank=True, default="", verbose_name=_("run"))
    source = models.TextField(blank=True, verbose_name=_("source"))
    meta = models.JSONField(default=dict, blank=True, verbose_name=_("meta"))

    class Meta:
        verbose_name = _("aggregate result")
        verbose_name_plural = _("aggregate results")
        ordering = ["study", "task", "model"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "model", "task", "metric", "run"], name="aggregate_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.model} {self.task} {self.metric}={self.value}"


class QualityDecision(models.Model):
    """A researcher's decision on a participant after reading the quality checks
    (``annotation.quality``): keep or exclude, with a reason; the report's exclusions
    apply every "exclude" and count them by reason (docs/running-a-study.md)."""

    class Decision(models.TextChoices):
        KEEP = "keep", _("Keep")
        EXCLUDE = "exclude", _("Exclude")

    class Reason(models.TextChoices):
        SPEEDER = "speeder", _("answers far faster than others")
        STRAIGHT_LINING = "straight_lining", _("same point on every scale")
        ATTENTION = "attention", _("failed attention checks")
        DUPLICATE = "duplicate", _("enrolled more than once")
        INCOMPLETE = "incomplete", _("incomplete session")
        OTHER = "other", _("other")

    participant = models.OneToOneField(
        Participant,
        on_delete=models.CASCADE,
        related_name="quality_decision",
        verbose_name=_("participant"),
    )
    decision = models.CharField(max_length=10, choices=Decision.choices, verbose_name=_("decision"))
    reason = models.CharField(
        max_length=20, choices=Reason.choices, default=Reason.OTHER, verbose_name=_("reason")
    )
    note = models.TextField(blank=True, verbose_name=_("note"))
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=_("decided by"),
    )
    decided_at = models.DateTimeField(auto_now=True, verbose_name=_("decided at"))

    class Meta:
        verbose_name = _("quality decision")
        verbose_name_plural = _("quality decisions")

    def __str__(self) -> str:
        return f"{self.participant_id}: {self.decision} ({self.reason})"
