"""What a study is: Study, Group, ScreeningQuestion, Task and Item.

Answer keys live on ``Item.answer`` only, as a mapping field -> value (``{"answer": 1}``,
``{"best": 0, "worst": 2}``, ``{"person": 2, "source": 0, "meaning": 1}``), so grading
is one rule (:meth:`Item.grade`) for humans, models and imports alike.
"""

from __future__ import annotations

import re
import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from scoring.prosody.families import DEFAULT_FAMILIES
from studies.quality_rules import rules_problems
from studies.recruitment import completion_problem

slug_validator = RegexValidator(
    r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
    _("Use letters, digits, '-', '_' or '.', starting with a letter or digit."),
)


def new_token() -> str:
    return secrets.token_urlsafe(18)


def validate_completion_url(value: str) -> None:
    problem = completion_problem(value) if value else None
    if problem:
        raise ValidationError(str(problem))


def default_rule_raters() -> list[str]:
    """Classical first: the forms are pre-modern; modern beside it for comparison
    (the rule-family registry, scoring/prosody/families.py)."""
    return list(DEFAULT_FAMILIES)


# The reading overrides a study may give its rule raters: the format
# scoring.prosody.senses.check_overrides takes (one character -> 平/仄 or a pinyin reading
# with its tone digit); checked here, where the study is loaded and edited.
READING_OVERRIDE = re.compile(r"^(?:[平仄]|[a-zv]{1,6}[1-5])$")


def reading_overrides_problem(value: object) -> str | None:
    """Why ``value`` is not a valid ``reading_overrides`` setting, or None."""
    if not isinstance(value, dict):
        return str(_('must be an object of character: reading, e.g. {"令": "ling2"}'))
    for ch, reading in value.items():
        if not (isinstance(ch, str) and len(ch) == 1):
            return str(_("%(key)r: a key must be one character") % {"key": ch})
        if not (isinstance(reading, str) and READING_OVERRIDE.match(reading)):
            return str(
                _(
                    "%(char)s: %(reading)r is neither 平/仄 nor a pinyin reading with its tone digit (ling2)"
                )
                % {"char": ch, "reading": reading}
            )
    return None


def validate_reading_overrides(value: object) -> None:
    problem = reading_overrides_problem(value)
    if problem is not None:
        raise ValidationError(problem)


#: The 词谱 a study's rule raters judge ci against (scoring/prosody/ci.py CIPU_SOURCES).
CIPU_SOURCE_CHOICES = [
    ("best", _("the better fit of the 钦定词谱 and 龙榆生's forms")),
    ("qinding", _("钦定词谱")),
    ("longyusheng", _("龙榆生《唐宋词格律》")),
]


def validate_quality_rules(value: object) -> None:
    """A ``quality_rules`` setting (studies/quality_rules.py), as the study loader reads it."""
    problems = rules_problems(value)
    if problems:
        raise ValidationError(
            [f"{name}: {message}" if name else message for name, message in problems]
        )


def validate_qualification(value: object) -> None:
    """``{}``, or ``{"task": slug, "routes": [{"min_score": n ≥ 0, "group": slug | null}]}``."""
    if value in ({}, None):
        return
    routes = value.get("routes") if isinstance(value, dict) else None
    good = (
        isinstance(value, dict)
        and isinstance(value.get("task"), str)
        and isinstance(routes, list)
        and bool(routes)
        and all(
            isinstance(r, dict)
            and isinstance(r.get("min_score"), int)
            and not isinstance(r.get("min_score"), bool)
            and r["min_score"] >= 0
            and (r.get("group") is None or isinstance(r.get("group"), str))
            for r in routes
        )
    )
    if not good:
        raise ValidationError(
            _(
                'must be {} or {"task": "<task slug>", "routes": [{"min_score": 2, '
                '"group": "<group slug or null>"}]}'
            )
        )


class Study(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")

    slug = models.CharField(
        max_length=100, unique=True, validators=[slug_validator], verbose_name=_("slug")
    )
    title = models.CharField(max_length=300, verbose_name=_("title"))
    description = models.TextField(blank=True, verbose_name=_("description"))
    consent = models.TextField(
        blank=True, help_text=_("Shown before the first question."), verbose_name=_("consent text")
    )
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.DRAFT, verbose_name=_("status")
    )
    listed = models.BooleanField(
        _("listed"),
        default=False,
        help_text=_("Listed on the public home page while open (otherwise only its link works)."),
    )
    shuffle_options = models.BooleanField(
        default=False,
        help_text=_("Shuffle option order per participant (keys are remapped)."),
        verbose_name=_("shuffle options"),
    )
    randomize_task_order = models.BooleanField(
        default=False, verbose_name=_("randomize task order")
    )
    attention_max_failures = models.PositiveIntegerField(
        default=0,
        help_text=_("A participant failing more attention checks than this is flagged."),
        verbose_name=_("attention check failures allowed"),
    )
    exclude_flagged = models.BooleanField(
        default=True,
        help_text=_("Leave flagged participants out of statistics (reported)."),
        verbose_name=_("exclude flagged participants"),
    )
    completion_code = models.CharField(
        max_length=64,
        blank=True,
        help_text=_(
            "Fixed completion code for recruitment platforms; blank = one per participant."
        ),
        verbose_name=_("completion code"),
    )
    completion_url = models.CharField(
        _("completion URL"),
        max_length=500,
        blank=True,
        validators=[validate_completion_url],
        help_text=_(
            "Where the finish page sends a volunteer (a recruitment platform's completion "
            "link); {code} is replaced by the completion code."
        ),
    )
    hide_authors = models.BooleanField(
        _("hide authors"),
        null=True,
        blank=True,
        default=None,
        help_text=_(
            "Hide poems' authors from volunteers. Unset: hidden on best/worst and rating "
            "tasks (an author's name biases a judgment), shown on the others."
        ),
    )
    rule_raters = models.JSONField(
        _("rule raters"),
        default=default_rule_raters,
        blank=True,
        help_text=_(
            "Which rule families score this study's poems, the first being the study's "
            "default (the families and what each reads: docs/prosody.md)."
        ),
    )
    reading_overrides = models.JSONField(
        _("reading overrides"),
        default=dict,
        blank=True,
        validators=[validate_reading_overrides],
        help_text=_(
            "Readings the rule raters take for these characters, before the reading table: "
            'e.g. {"令": "ling2", "看": "平"} (a pinyin reading with its tone digit, or 平/仄).'
        ),
    )
    cipu_source = models.CharField(
        _("词谱 source"),
        max_length=12,
        choices=CIPU_SOURCE_CHOICES,
        default="best",
        help_text=_(
            "Which 词谱's templates the rule raters judge a ci against: the better fit of "
            "both (default), the 钦定词谱's or 龙榆生's (docs/prosody.md §3.1)."
        ),
    )
    estimated_minutes = models.PositiveIntegerField(
        _("estimated minutes"),
        null=True,
        blank=True,
        help_text=_(
            "The time the welcome page announces. Unset: estimated from the questions each "
            "volunteer answers."
        ),
    )
    # Practice and qualification (docs/running-a-study.md): the slug of the task whose
    # items every volunteer answers first, each followed by its right answer and
    # explanation (never counted), and the qualification set that routes by score.
    practice_task = models.CharField(
        _("practice task"),
        max_length=50,
        blank=True,
        help_text=_(
            "A task whose items every volunteer answers first, each followed by the right "
            "answer and its explanation; these answers are never counted."
        ),
    )
    qualification = models.JSONField(
        _("qualification"),
        default=dict,
        blank=True,
        validators=[validate_qualification],
        help_text=_(
            'The qualification set, e.g. {"task": "qual", "routes": [{"min_score": 3, '
            '"group": "C"}, {"min_score": 2, "group": null}]}: a volunteer scoring below every '
            "route is thanked and ends there."
        ),
    )
    quality_rules = models.JSONField(
        _("quality rules"),
        default=dict,
        blank=True,
        validators=[validate_quality_rules],
        help_text=_(
            "This study's thresholds of the quality checks (speeder, straight-lining, "
            "duplicate addresses); those it does not give are the documented defaults."
        ),
    )
    finish_results = models.BooleanField(
        _("results on the finish page"),
        default=False,
        help_text=_(
            "Show volunteers, after finishing, their score, their place in their group, every "
            "answer with the right one and its explanation, and a share image. Off for studies "
            "that must not reveal answers."
        ),
    )
    public_token = models.CharField(
        max_length=40,
        unique=True,
        default=new_token,
        editable=False,
        verbose_name=_("public token"),
    )
    rate_limits = models.JSONField(
        default=dict,
        blank=True,
        help_text=_(
            'This study\'s own rate limits, e.g. {"enrol": "20/min"}; the others are the '
            "site's (docs/deploy.md)."
        ),
        verbose_name=_("rate limits"),
    )
    researchers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="shared_studies",
        verbose_name=_("researchers"),
    )
    meta = models.JSONField(default=dict, blank=True, verbose_name=_("meta"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("study")
        ordering = ["slug"]
        verbose_name_plural = _("studies")

    def __str__(self) -> str:
        return f"{self.slug} — {self.title}"

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN


PREVIEW_GROUP = "~preview"  # a slug no study file can give (slug_validator refuses "~")


class VolunteerGroups(models.Manager["Group"]):
    """A study's groups of volunteers: the preview group of staff's test participants
    (``Group.is_test``) is none of them, so every list of groups (report, dashboard,
    exports, screening, the admin) leaves it out; ``Group.every`` includes it."""

    def get_queryset(self) -> models.QuerySet[Group]:
        return super().get_queryset().filter(is_test=False)


class Group(models.Model):
    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="groups", verbose_name=_("study")
    )
    slug = models.CharField(max_length=50, validators=[slug_validator], verbose_name=_("slug"))
    name = models.CharField(max_length=200, verbose_name=_("name"))
    target_per_item = models.PositiveIntegerField(
        default=1,
        help_text=_("Answers per item this group should collect."),
        verbose_name=_("target answers per item"),
    )
    invite_token = models.CharField(
        max_length=40,
        unique=True,
        default=new_token,
        editable=False,
        verbose_name=_("invitation token"),
    )
    position = models.PositiveIntegerField(default=0, verbose_name=_("position"))
    # The study's preview group (docs/running-a-study.md, "Preview and test mode"): staff's
    # test participants are placed in it, so their claims take its tallies, never the
    # balance of the real groups.
    is_test = models.BooleanField(default=False, editable=False, verbose_name=_("test group"))

    objects = VolunteerGroups()
    every: models.Manager[Group] = models.Manager()

    class Meta:
        # Not "group", whose translation names Django's groups of users in the admin too.
        verbose_name = _("participant group")
        verbose_name_plural = _("participant groups")
        ordering = ["study", "position", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["study", "slug"], name="group_unique_slug"),
        ]

    def __str__(self) -> str:
        return f"{self.study.slug}/{self.slug} {self.name}"


class ScreeningQuestion(models.Model):
    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="screening", verbose_name=_("study")
    )
    key = models.CharField(max_length=50, validators=[slug_validator], verbose_name=_("key"))
    prompt = models.TextField(verbose_name=_("prompt"))
    # [{"label": str, "group": slug | null}, ...]
    options = models.JSONField(default=list, verbose_name=_("options"))
    position = models.PositiveIntegerField(default=0, verbose_name=_("position"))

    class Meta:
        verbose_name = _("screening question")
        verbose_name_plural = _("screening questions")
        ordering = ["study", "position"]
        constraints = [
            models.UniqueConstraint(fields=["study", "key"], name="screening_unique_key"),
        ]

    def __str__(self) -> str:
        return f"{self.study.slug}/{self.key}"


class Task(models.Model):
    class Kind(models.TextChoices):
        # What each kind means (fields, answers, display, scoring): studies.kinds.KINDS.
        CHOICE = "choice", _("Single choice")
        MULTI = "multi", _("Several parts")
        BEST_WORST = "best_worst", _("Best and worst")
        RATING = "rating", _("Rating")

    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="tasks", verbose_name=_("study")
    )
    slug = models.CharField(max_length=50, validators=[slug_validator], verbose_name=_("slug"))
    title = models.CharField(max_length=300, verbose_name=_("title"))
    kind = models.CharField(max_length=12, choices=Kind.choices, verbose_name=_("kind"))
    per_participant = models.PositiveIntegerField(
        default=10, verbose_name=_("items per participant")
    )
    instructions = models.TextField(blank=True, verbose_name=_("instructions"))
    # Rating tasks: [{"key": str, "label": str, "min": int, "max": int, "description"?: str}]
    dimensions = models.JSONField(default=list, blank=True, verbose_name=_("rating dimensions"))
    # Reference shown beside each question, e.g. the eight style descriptions:
    # [{"label": str, "description": str}]
    guide = models.JSONField(default=list, blank=True, verbose_name=_("guide"))
    position = models.PositiveIntegerField(default=0, verbose_name=_("position"))
    meta = models.JSONField(default=dict, blank=True, verbose_name=_("meta"))

    class Meta:
        verbose_name = _("task")
        verbose_name_plural = _("tasks")
        ordering = ["study", "position", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["study", "slug"], name="task_unique_slug"),
        ]

    def __str__(self) -> str:
        return f"{self.study.slug}/{self.slug}"

    def dimension_labels(self) -> dict[str, str]:
        """Each rating dimension's label by its key (the key when it has none)."""
        return {d["key"]: str(d.get("label") or d["key"]) for d in self.dimensions or []}


class Item(models.Model):
    # No single-column indexes on study and task: item_unique_id and item_task_check lead
    # with them. With one on study, PostgreSQL (no statistics yet for the rows a load's
    # open transaction wrote) read a pool's items through it and filtered the batch's
    # 500 ids row by row: a 150,000-line load_pool ran for over an hour; the unique
    # index finds the ids themselves (bench_loading.py --memory, docs/performance.md).
    study = models.ForeignKey(
        Study,
        on_delete=models.CASCADE,
        related_name="items",
        db_index=False,
        verbose_name=_("study"),
    )
    task = models.ForeignKey(
        Task, on_delete=models.CASCADE, related_name="items", db_index=False, verbose_name=_("task")
    )
    external_id = models.CharField(max_length=200, verbose_name=_("id"))
    stem = models.TextField(blank=True, verbose_name=_("stem"))
    # [{"text": str, "explanation"?: str}]
    options = models.JSONField(default=list, blank=True, verbose_name=_("options"))
    # multi: [{"key": str, "prompt": str, "options": [{"text": ...}, ...]}]
    parts = models.JSONField(default=list, blank=True, verbose_name=_("parts"))
    # field -> correct value; null for opinion items (never sent to the browser)
    answer = models.JSONField(null=True, blank=True, verbose_name=_("answer key"))
    poem_title = models.CharField(max_length=300, blank=True, verbose_name=_("poem title"))
    poem_author = models.CharField(max_length=200, blank=True, verbose_name=_("poem author"))
    poem_form = models.CharField(
        max_length=60, blank=True, db_index=True, verbose_name=_("poem form")
    )
    poem_text = models.TextField(blank=True, verbose_name=_("poem text"))
    poem_source = models.CharField(
        max_length=200, blank=True, db_index=True, verbose_name=_("poem source")
    )
    poem_condition = models.CharField(
        max_length=100, blank=True, db_index=True, verbose_name=_("generation condition")
    )
    # Provenance derived from poem_source and meta by studies.provenance (the loaders set
    # it; the report splits by it): who wrote the poem, which generation sample, which
    # category.
    source_kind = models.CharField(
        max_length=5,
        blank=True,
        db_index=True,
        choices=[("human", _("Human")), ("model", _("Model"))],
        verbose_name=_("source kind"),
    )
    source_model = models.CharField(
        max_length=200, blank=True, db_index=True, verbose_name=_("source model")
    )
    sample = models.PositiveIntegerField(
        null=True, blank=True, db_index=True, verbose_name=_("sample")
    )
    category = models.CharField(
        max_length=100, blank=True, db_index=True, verbose_name=_("category")
    )
    is_attention_check = models.BooleanField(default=False, verbose_name=_("attention check"))
    meta = models.JSONField(default=dict, blank=True, verbose_name=_("meta"))
    content_hash = models.CharField(max_length=64, editable=False, verbose_name=_("content hash"))
    position = models.PositiveIntegerField(default=0, verbose_name=_("position"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("item")
        verbose_name_plural = _("items")
        ordering = ["study", "task", "position"]
        constraints = [
            models.UniqueConstraint(fields=["study", "external_id"], name="item_unique_id"),
        ]
        indexes = [models.Index(fields=["task", "is_attention_check"], name="item_task_check")]

    def __str__(self) -> str:
        return self.external_id

    def grade(self, field: str, value: float | int | None) -> bool | None:
        """Whether ``value`` is the keyed answer for ``field``; None where nothing is keyed."""
        if not self.answer or value is None or field not in self.answer:
            return None
        return float(self.answer[field]) == float(value)


class LoadKind(models.TextChoices):
    """The kinds of file a study is loaded from (docs/formats.md), one per loader."""

    STUDY = "study", _("Study definition")
    POOL = "pool", _("Question pool")
    LLM_OUTPUTS = "llm_outputs", _("LLM outputs")
    RESPONSES = "responses", _("Human responses")


class ImportLog(models.Model):
    """One load of a file: what it was, who ran it and what it changed."""

    Kind = LoadKind

    kind = models.CharField(max_length=20, choices=LoadKind.choices, verbose_name=_("kind"))
    study = models.ForeignKey(
        Study, null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("study")
    )
    filename = models.CharField(max_length=500, verbose_name=_("file name"))
    sha256 = models.CharField(max_length=64, verbose_name=_("SHA-256"))
    rows = models.PositiveIntegerField(default=0, verbose_name=_("rows"))
    created = models.PositiveIntegerField(default=0, verbose_name=_("created"))
    updated = models.PositiveIntegerField(default=0, verbose_name=_("updated"))
    unchanged = models.PositiveIntegerField(default=0, verbose_name=_("unchanged"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=_("user"),
    )
    at = models.DateTimeField(auto_now_add=True, verbose_name=_("loaded at"))

    class Meta:
        verbose_name = _("import log")
        verbose_name_plural = _("import logs")
        ordering = ["-at"]

    def __str__(self) -> str:
        return f"{self.kind} {self.filename} ({self.at:%Y-%m-%d %H:%M})"


class AnalysisPlan(models.Model):
    """A frozen analysis plan (``scoring.report.prereg``): what the researcher committed
    to before the data came in, as canonical JSON with its SHA-256. The newest plan of a
    study is the one reports compare against; earlier ones stay as the record."""

    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="plans", verbose_name=_("study")
    )
    content = models.JSONField(verbose_name=_("content"))
    sha256 = models.CharField(max_length=64, verbose_name=_("SHA-256"))
    n_responses = models.PositiveIntegerField(
        default=0,
        help_text=_("Answers the study held when the plan was frozen."),
        verbose_name=_("answers at freezing"),
    )
    frozen_at = models.DateTimeField(auto_now_add=True, verbose_name=_("frozen at"))
    frozen_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=_("frozen by"),
    )

    class Meta:
        verbose_name = _("analysis plan")
        verbose_name_plural = _("analysis plans")
        ordering = ["study", "-frozen_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.study.slug} {self.sha256[:12]} ({self.frozen_at:%Y-%m-%d %H:%M})"


class PlanDeviation(models.Model):
    """A departure from a frozen plan, recorded when a report first saw it: the setting
    (a dotted path into the plan), what the plan said, what was used, and how many answers
    the study held then."""

    plan = models.ForeignKey(
        AnalysisPlan,
        on_delete=models.CASCADE,
        related_name="deviations",
        verbose_name=_("analysis plan"),
    )
    path = models.CharField(max_length=200, verbose_name=_("setting"))
    planned = models.JSONField(null=True, verbose_name=_("planned"))
    actual = models.JSONField(null=True, verbose_name=_("actual"))
    actual_sha256 = models.CharField(max_length=64, verbose_name=_("SHA-256 of the actual"))
    n_responses = models.PositiveIntegerField(default=0, verbose_name=_("answers then"))
    first_seen_at = models.DateTimeField(auto_now_add=True, verbose_name=_("first seen at"))

    class Meta:
        verbose_name = _("plan deviation")
        verbose_name_plural = _("plan deviations")
        ordering = ["plan", "first_seen_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=("plan", "path", "actual_sha256"), name="plan_deviation_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.path}: {self.planned!r} -> {self.actual!r}"
