"""The question page's state: what ``/s/<study>/q/`` is to do, decided in one place.

The page has three entry paths, each shaped by the statements it may run
(tests/volunteer/test_query_counts.py):

* a GET whose cookie names a screened participant of the study (the usual case): the
  claim's own read finds the participant, their study, tasks and current item in one
  statement (``next_item_by_public_id``);
* an answer's POST whose form names an assignment: the participant and that assignment
  in one read (``participant_answering``);
* anything else (no cookie, not screened, finished, closed study, a form naming no
  assignment): the participant read alone, the decision, and for a GET the claim.

:func:`question_state` runs the one that applies and returns a :class:`QuestionState`
the view renders. The GET paths claim the participant's next item when they have none
open and mark it shown (the claim's read and write are the page's), so this lives with
the services; the view keeps finishing the participant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from django.core.exceptions import ValidationError

from annotation import selectors
from annotation.models import Assignment, Participant
from annotation.selectors import Progress
from annotation.services.claims import NextItem, next_item, next_item_by_public_id
from studies.models import Study

# (study id, participant public id) of each participant cookie the request carries
CookieKeys = Sequence[tuple[int, str]]


class Page(StrEnum):
    WELCOME = "welcome"  # no participant of this study: the welcome page
    FINISH = "finish"  # finished: the finish page
    CLOSED = "closed"  # the study is closed (and this is not a test participant)
    SCREENING = "screening"  # not screened yet
    ANSWER = "answer"  # an answer's POST to store
    DONE = "done"  # every item they are due is answered: finish them
    QUESTION = "question"  # the current item (a task's first with its instructions)


@dataclass(frozen=True)
class QuestionState:
    """What the question page is to do, with what it read.

    ``assignment``: the current item (QUESTION) or, for ANSWER, the assignment the form
    names when it was read with the participant (None: not theirs); ``answer_read``:
    whether that read was made (else the answer's service reads it). ``progress``: the
    participant's progress, when the claim's read gave it. ``intro``: the question is its
    task's first shown to the participant (the page unfolds the task's instructions).
    """

    page: Page
    study: Study
    participant: Participant | None = None
    assignment: Assignment | None = None
    answer_read: bool = False
    progress: Progress | None = None
    intro: bool = False


def question_state(
    *,
    slug: str,
    cookies: CookieKeys,
    posted: bool = False,
    assignment_id: int | None = None,
) -> QuestionState:
    """The question page's state for study ``slug`` and the request's participant
    ``cookies``. ``posted``: an answer's POST, whose form names ``assignment_id`` (None
    when it names no valid id). Raises Http404 for a study volunteers cannot
    see when no participant of it is found."""
    if not posted and (nxt := _next_by_cookie(slug, cookies)) is not None:
        return _from_next(nxt)
    if posted and assignment_id is not None:
        found = _answering(slug, cookies, assignment_id)
        if found is not None:
            me, a = found
            return _refused(me) or QuestionState(Page.ANSWER, me.study, me, a, answer_read=True)
    study, p = selectors.participant_for_page(slug, cookies)
    if p is None:
        return QuestionState(Page.WELCOME, study)
    if (refused := _refused(p)) is not None:
        return refused
    if posted:
        return QuestionState(Page.ANSWER, study, p)
    return _from_next(next_item(participant_id=p.pk, serve=True))


def _refused(p: Participant) -> QuestionState | None:
    """Where a participant who may not answer or claim now is sent; None if they may."""
    study = p.study
    if p.status == Participant.Status.FINISHED:
        return QuestionState(Page.FINISH, study, p)
    if not study.is_open and not p.is_test:
        return QuestionState(Page.CLOSED, study, p)
    if p.group_id is None:
        return QuestionState(Page.SCREENING, study, p)
    return None


def _from_next(nxt: NextItem) -> QuestionState:
    """The state for what asking for the next item found."""
    p = nxt.participant
    study = p.study
    if p.status == Participant.Status.FINISHED:
        return QuestionState(Page.FINISH, study, p)
    if nxt.closed:
        return QuestionState(Page.CLOSED, study, p)
    a, progress = nxt.assignment, nxt.progress
    if a is None:
        return QuestionState(Page.DONE, study, p, progress=progress)
    return QuestionState(Page.QUESTION, study, p, a, progress=progress, intro=not nxt.task_started)


def _next_by_cookie(slug: str, cookies: CookieKeys) -> NextItem | None:
    """The usual case (a screened participant of this study) in one read: the claim's
    own finds the participant by their cookie, with their study, tasks and current item,
    where finding them first and then claiming read them twice. None otherwise: the
    general path then decides (welcome, screening, …)."""
    for study_id, public_id in cookies:
        try:
            nxt = next_item_by_public_id(
                public_id=public_id, study_id=study_id, slug=slug,
                only_if_open=True, serve=True,
            )  # fmt: skip
        except ValidationError:  # not screened yet (nothing was claimed)
            return None
        if nxt is not None:
            return nxt
    return None


def _answering(
    slug: str, cookies: CookieKeys, assignment_id: int
) -> tuple[Participant, Assignment | None] | None:
    """The participant the cookie names and the assignment the form names, in one read
    (where finding the participant and then the assignment took two); None when the
    cookie names no participant of this study (the general path then decides)."""
    for study_id, public_id in cookies:
        found = selectors.participant_answering(slug, study_id, public_id, assignment_id)
        if found is not None:
            return found
    return None
