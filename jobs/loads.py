"""Loading a file, and bringing what depends on it up to date, in one transaction.

The one entry point for every kind of file (docs/formats.md): the ``load_*`` commands,
the admin's upload page, the background job runner and the demo all call
:func:`file_load`. It validates the whole file first (outside any transaction, so a long
validation holds no lock; a question pool, whose files are the longest, is instead
validated as it is written, in bounded batches inside the transaction, so its memory does
not grow with the file: ``studies.loading.pool``), then, in one transaction, writes it
and, unless it was a dry run, calls as plain calls:

1. ``annotation.services.grading.responses_regrade`` for items whose answer key changed,
   so stored ``correct`` values never go stale;
2. ``annotation.services.grading.responses_remap`` for items whose options changed under
   an explicit ``remap`` (``studies.loading.reshape``): their stored answers rewritten to
   the new positions (and regraded), and ``annotation.services.claims_release`` for every
   item whose options changed, so no answer is ever mapped through a shuffle drawn for
   the old options;
3. ``scoring.rules.rule_scores_after_load`` for items created or changed, so poems carry
   their rule scores (or the summary's notes say why not yet).

After the transaction, a load that left more poems unscored than are scored in the load
(``SCORE_ON_LOAD_MAX_ITEMS``) hands them to a background rule-scores job
(``jobs.services.rule_scores_follow``), whatever the interface: command, upload page,
job runner or demo.

Any problem in the file raises ``LoadError``, and nothing it wrote is kept. A study added by
a user who is not a superuser is shared with them (else they could not see it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from annotation.loading.llm_outputs import llm_outputs_write, validate_llm_outputs
from annotation.loading.responses import responses_write, validate_responses
from annotation.services.claims import claims_release, tallies_refresh
from annotation.services.grading import responses_regrade, responses_remap
from jobs.services import rule_scores_follow
from scoring.rules import rule_scores_after_load
from studies.access import is_superuser
from studies.loading.pool import pool_write, validate_pool
from studies.loading.problems import Note, Summary
from studies.loading.progress import ProgressCallback
from studies.loading.readers import Source
from studies.loading.study import study_write, validate_study
from studies.models import LoadKind, Study


@dataclass(frozen=True)
class Loader:
    """How one kind of file into a study is read: validated whole, then written."""

    validate: Callable[..., Any]  # (source, study, *, show_progress, on_progress) -> parsed
    write: Callable[..., Summary]  # (parsed, *, source, study, dry_run, user, ...) -> Summary


INTO_STUDY: dict[str, Loader] = {
    LoadKind.POOL: Loader(validate_pool, pool_write),
    LoadKind.LLM_OUTPUTS: Loader(validate_llm_outputs, llm_outputs_write),
    LoadKind.RESPONSES: Loader(validate_responses, responses_write),
}


def file_load(
    *,
    kind: str,
    source: Source,
    study: Study | None = None,
    dry_run: bool = False,
    user: Any = None,
    show_progress: bool = False,
    on_progress: ProgressCallback | None = None,
    remap: Any = None,
) -> Summary:
    """Load ``source`` as a file of ``kind`` (a :class:`LoadKind`); a study definition
    needs no ``study``, every other kind does. ``remap`` (a pool only): the parsed
    ``--remap`` JSON, where each changed item's old options went. Raises ``LoadError``
    (nothing written)."""
    if kind == LoadKind.STUDY:
        if on_progress is not None:
            on_progress("validating", 0, 1)
        spec = validate_study(source)
        summary = study_write(
            spec, source=source, dry_run=dry_run, user=user, on_progress=on_progress
        )
        created = summary.details.get("study created") and not summary.dry_run
        if created and getattr(user, "is_authenticated", False) and not is_superuser(user):
            Study.objects.get(slug=spec.slug).researchers.add(user)
        return summary
    loader = INTO_STUDY.get(kind)
    if loader is None:
        raise ValueError(f"unknown kind of file {kind!r}")
    if study is None:
        raise ValueError(f"a {kind} file is loaded into a study")
    progress: dict[str, Any] = {"show_progress": show_progress, "on_progress": on_progress}
    if remap is not None and kind != LoadKind.POOL:
        raise ValueError("a remap applies to a pool's items only")
    extra = {} if remap is None else {"remap": remap}
    parsed = loader.validate(source, study, **progress, **extra)
    with transaction.atomic():
        summary = loader.write(
            parsed, source=source, study=study, dry_run=dry_run, user=user, **progress
        )
        if not summary.dry_run:
            derived_update(study=study, summary=summary)
    # Outside the load's transaction: without a broker the job runs here at once.
    return rule_scores_follow(summary, study, user)


def derived_update(*, study: Study, summary: Summary) -> None:
    """What a load's written items imply: regrade rekeyed items, release the open claims
    on reshaped ones (their shuffles no longer fit), score changed poems."""
    if summary.items.changed:  # new, changed or re-flagged items: tallies brought up to date
        tallies_refresh(study_id=study.pk)
    if summary.items.remapped:
        moved = responses_remap(remaps=summary.items.remapped)
        summary.details["answers remapped"] = moved
        summary.notes.append(
            Note(
                "answers_remapped",
                _(
                    "%(n)d stored answer(s) to %(items)d item(s) whose options changed were "
                    "moved to the options' new positions (--remap) and graded again."
                )
                % {"n": moved, "items": len(summary.items.remapped)},
            )
        )
    regrade = sorted({*summary.items.rekeyed, *summary.items.remapped})
    if regrade:
        responses_regrade(item_ids=regrade)
    if summary.items.reshaped and (released := claims_release(item_ids=summary.items.reshaped)):
        summary.notes.append(
            Note(
                "claims_released",
                _(
                    "%(n)d open claim(s) on items whose options changed were released; "
                    "those volunteers are given a fresh question."
                )
                % {"n": released},
            )
        )
    note = rule_scores_after_load(study=study, item_ids=summary.items.changed)
    if note is not None:
        summary.notes.append(note)
