"""Writes of the volunteer flow: enrol, screen, claim the next item, submit, finish.

Every function is one transaction, takes keyword-only arguments and raises Django's
``ValidationError`` when a rule is broken, so the HTML pages and the API share one
behaviour. Rules written here and nowhere else:

* a study takes new participants and answers only while open;
* screening: questions are read in order and the first answered option that names a
  group places the participant; no naming option at all -> the study's first group;
* claims (``assignment_next``) are serialised per participant (row lock) and nothing
  else: the next item is the first unseen row of the group's tallies (answers + open
  claims per item, kept in the same transactions: ``annotation.hotpath.tally``), taken
  on PostgreSQL with ``FOR UPDATE SKIP LOCKED``, so two participants racing for an
  item's last slot cannot both take it while another item is still short, and need not
  wait for each other (on SQLite every write transaction is IMMEDIATE: serialised);
* a submission is idempotent per assignment: the same answer again returns the stored
  result; a *different* answer to an answered item is refused (:class:`AlreadyAnswered`)
  and the first answer is kept. The database's unique constraint on Response (rater,
  item, field, sample) decides which of two simultaneous copies is stored.
"""

from annotation.services.answers import (
    AlreadyAnswered,
    SubmitResult,
    assignment_for_answer,
    is_db_id,
    response_submit,
)
from annotation.services.claims import (
    NextItem,
    assignment_next,
    assignment_serve,
    claims_release,
    next_item,
    next_item_by_public_id,
    tallies_refresh,
)
from annotation.services.participants import (
    participant_decide,
    participant_enrol,
    participant_finish,
    participant_screen,
    participants_place,
    preview_group,
    tests_clear,
)
from annotation.services.question import Page, QuestionState, question_state

__all__ = [
    "AlreadyAnswered",
    "NextItem",
    "Page",
    "QuestionState",
    "SubmitResult",
    "assignment_for_answer",
    "assignment_next",
    "assignment_serve",
    "claims_release",
    "is_db_id",
    "next_item",
    "next_item_by_public_id",
    "participant_decide",
    "participant_enrol",
    "participant_finish",
    "participant_screen",
    "participants_place",
    "preview_group",
    "question_state",
    "response_submit",
    "tallies_refresh",
    "tests_clear",
]
