"""Rule scores of form, stored as responses of ``rule`` raters.

Each rule rater a study enables (its ``rule_raters`` setting, the first being the study's
default) is one rater: ``prosody:classical`` (词林正韵 / 平水韵, 入声 = 仄),
``prosody:modern`` (中华新韵 via pypinyin) and ``prosody:ccv`` (the CCiV benchmark's literal
definitions, so its Table 2 is computed as the paper did), with the rules' version as its
run (a new version is a new rater, so older scores are kept);
each metric of :func:`scoring.prosody.score_poem` is a field (``structural``, ``tonal``,
``rhyme``, …), so rule scores sit beside human and model judgments in one table and every
analysis treats them alike. Diagnostics are recomputed on demand (the poem page).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from django.conf import settings
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from annotation.loading.writing import RaterKey, ResponseRow, raters_ensure, responses_upsert
from annotation.models import Response
from scoring.prosody import RULES_VERSION, PoemScore
from scoring.prosody.ci import CIPU_SOURCES, CipuSource
from scoring.prosody.families import DEFAULT_FAMILIES, TONE_FAMILIES, family
from studies.loading.problems import Note, Summary
from studies.loading.progress import ProgressCallback
from studies.models import Item, Study, default_rule_raters

#: The families a study's pages may open with (its default): the registry's
#: ``TONE_FAMILIES`` (scoring/prosody/families.py).
TONE_SYSTEMS = TONE_FAMILIES
CHUNK = 2000


def rule_run(study: Study | None = None) -> str:
    """The run of a study's rule raters: the rules version, plus its 词谱 source when not
    the default (``+qinding``) and a digest of the study's reading overrides when it has
    some (so changing either scores the poems again)."""
    overrides = (study.reading_overrides if study is not None else None) or {}
    source = (study.cipu_source if study is not None else None) or "best"
    return run_label(RULES_VERSION, source, overrides)


def run_label(version: str, source: str = "best", overrides: dict[str, str] | None = None) -> str:
    """The run of rule raters of rules ``version`` judging against the 词谱 ``source``
    with ``overrides`` (``rule_run``; a frozen plan's rule raters from its own settings)."""
    run = version if source == "best" else f"{version}+{source}"
    if not overrides:
        return run
    digest = hashlib.sha1(
        json.dumps(overrides, sort_keys=True, ensure_ascii=False).encode("utf-8")
    ).hexdigest()[:8]
    return f"{run}+r{digest}"


def rule_rater(name: str, study: Study | None = None) -> RaterKey:
    """The rater key of a rule rater (a family of scoring/prosody/families.py)."""
    return ("rule", f"prosody:{name}", rule_run(study))


def study_rule_raters(study: Study) -> list[str]:
    """The rule raters a study stores, its default first (classical unless it says)."""
    return list(study.rule_raters or default_rule_raters())


def study_cipu_source(study: Study) -> CipuSource:
    """The 词谱 the study's rule raters judge ci against (``best`` unless it says)."""
    source = study.cipu_source or "best"
    return source if source in CIPU_SOURCES else "best"  # type: ignore[return-value]


def default_tone_system(study: Study) -> str:
    """The tone system the study's pages and dashboard open with."""
    return next((r for r in study_rule_raters(study) if r in TONE_SYSTEMS), DEFAULT_FAMILIES[0])


def score_with(
    name: str,
    text: str,
    form: str | None,
    overrides: dict[str, str] | None = None,
    cipu_source: CipuSource = "best",
) -> PoemScore:
    """Score one poem as rule rater ``name`` does: its family's definitions (``overrides``:
    the study's readings; ``cipu_source``: its 词谱)."""
    return family(name).score(
        text, form, reading_overrides=overrides or None, cipu_source=cipu_source
    )


#: Marks of a blank to fill: a poem holding one is a question's masked text (a "fill the
#: missing line" item), not a poem the rules can judge.
BLANK_MARKS = ("□", "＿", "____")


def scorable_poems(items: QuerySet[Item]) -> QuerySet[Item]:
    """The one definition of a poem the rules score: an item with a poem text and no blank
    to fill. Scoring (``rule_scores_compute``, after a load) and the dashboard's count of
    unscored poems both use it, so ``score_poems`` leaves that count at 0."""
    query = items.exclude(poem_text="")
    for mark in BLANK_MARKS:
        query = query.exclude(poem_text__contains=mark)
    return query


def poem_form(item: Item) -> str | None:
    return item.poem_form or None


def rule_scores_compute(
    *,
    study: Study,
    item_ids: Iterable[int] | None = None,
    on_progress: ProgressCallback | None = None,
) -> Summary:
    """Score every poem item of ``study`` (or only ``item_ids``) as each of its rule raters.

    ``on_progress(label, done, total)`` is called after each chunk of poems.
    """
    summary = Summary(kind="rule_scores", file=study.slug)
    query = scorable_poems(Item.objects.filter(study=study)).only(
        "pk", "task_id", "poem_text", "poem_form"
    )
    if item_ids is None:
        ids = list(query.order_by("pk").values_list("pk", flat=True))
    else:
        ids = sorted(item_ids)
    chunks = [ids[i : i + CHUNK] for i in range(0, len(ids), CHUNK)]
    names = study_rule_raters(study)
    raters = raters_ensure(study, [rule_rater(n, study) for n in names], summary)
    for chunk in chunks:
        items = list(query.filter(pk__in=chunk))
        rows: list[ResponseRow] = []
        for item in items:
            for name in names:
                score = score_with(
                    name,
                    item.poem_text,
                    poem_form(item),
                    study.reading_overrides,
                    study_cipu_source(study),
                )
                for metric, value in score.metrics.items():
                    if value is not None:
                        rows.append(
                            ResponseRow(
                                rater=rule_rater(name, study),
                                item_id=item.pk,
                                task_id=item.task_id,
                                field=metric,
                                value=float(value),
                                correct=None,
                            )
                        )
        summary.rows += len(items)
        responses_upsert(study, rows, raters, summary)
        if on_progress is not None:
            on_progress("scoring", summary.rows, len(ids))
    return summary


def poem_items(item_ids: list[int]) -> list[int]:
    """Those of ``item_ids`` that hold a poem the rules score (``scorable_poems``)."""
    found: list[int] = []
    for start in range(0, len(item_ids), CHUNK):
        chunk = item_ids[start : start + CHUNK]
        found += scorable_poems(Item.objects.filter(pk__in=chunk).order_by()).values_list(
            "pk", flat=True
        )
    return found


def rule_scores_after_load(*, study: Study, item_ids: list[int]) -> Note | None:
    """Score the poems a load created or changed, inside the load's transaction, unless
    there are too many for one transaction: a load changing more than
    ``SCORE_ON_LOAD_MAX_ITEMS`` poems leaves scoring to ``score_poems`` (or a job) so that
    loading stays fast, and says so in the returned note. Items without a poem (choice,
    multi-part and best/worst questions) need no rule score and never count."""
    if not item_ids:
        return None
    poems = poem_items(item_ids)
    if not poems:
        return None
    if not settings.SCORE_ON_LOAD:
        return Note(
            code="rule_scores_off",
            message=_(
                "%(n)d poems changed; rule scores are not computed during loads "
                "(SCORE_ON_LOAD is off): run `manage.py score_poems %(study)s`."
            )
            % {"n": len(poems), "study": study.slug},
        )
    limit = settings.SCORE_ON_LOAD_MAX_ITEMS
    if len(poems) > limit:
        return Note(
            code="rule_scores_deferred",
            message=_(
                "%(n)d poems changed: rule scores were not computed during the load "
                "(limit SCORE_ON_LOAD_MAX_ITEMS=%(limit)d); "
                "run `manage.py score_poems %(study)s`."
            )
            % {"n": len(poems), "limit": limit, "study": study.slug},
        )
    rule_scores_compute(study=study, item_ids=poems)
    return None


def unscored_poem_count(study: Study) -> int:
    """Poems of ``study`` that lack a score from its default rule rater at the current
    rules version (not scored yet, or scored by an older version)."""
    name = f"prosody:{default_tone_system(study)}"
    scored = Response.objects.filter(
        study=study, rater__kind="rule", rater__name=name, rater__run=rule_run(study)
    ).values("item_id")
    return scorable_poems(Item.objects.filter(study=study)).exclude(pk__in=scored).count()
