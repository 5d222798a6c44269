"""The volunteer pages' own read: the participant a page's cookie names, with its study.

Every volunteer page starts with it. Through the ORM (``select_related``, the models'
default orderings) compiling it cost about 3 ms of the 10 ms an answered page costs
(profiled with ``bench/bench_pages.py``'s flow); written here it is about 0.2 ms.
"""

from __future__ import annotations

from annotation.hotpath import answer
from annotation.hotpath.rows import Rows, fetch
from annotation.models import Assignment, Participant
from studies.models import Study

_P, _S = Rows(Participant, "p"), Rows(Study, "s")
_SELECT = f"""
SELECT {_P.sql}, {_S.sql}
FROM {Participant._meta.db_table} p JOIN {Study._meta.db_table} s ON s.id = p.study_id
WHERE p.public_id = %s AND p.study_id = %s AND s.slug = %s AND (s.status <> %s OR p.is_test)
"""


def participant_with_study(slug: str, study_id: int, public_id: str) -> Participant | None:
    rows = fetch(_SELECT, [public_id, int(study_id), slug, Study.Status.DRAFT])
    if not rows:
        return None
    p, at = _P.take(rows[0], 0)
    p.study, _ = _S.take(rows[0], at)
    return p


# An answer's POST: the participant, their study and the assignment the form names (what
# ``answer.assignment_for_answer`` reads, None unless it is theirs) in one read instead
# of two, the same conditions as above.
_P2, _S2 = Rows(Participant, "p"), Rows(Study, "ps")
_SELECT_ANSWERING = f"""
SELECT {_P2.sql}, {_S2.sql}, {answer.COLUMNS}
FROM {Participant._meta.db_table} p JOIN {Study._meta.db_table} ps ON ps.id = p.study_id
LEFT JOIN (
  {answer.JOINED}
) ON a.id = %s AND a.participant_id = p.id
WHERE p.public_id = %s AND p.study_id = %s AND ps.slug = %s AND (ps.status <> %s OR p.is_test)
"""


def participant_answering(
    slug: str, study_id: int, public_id: str, assignment_id: int
) -> tuple[Participant, Assignment | None] | None:
    """The participant (with its study) and their assignment ``assignment_id`` (None if it
    is not theirs); None if the cookie names no participant of the study."""
    params = [int(assignment_id), public_id, int(study_id), slug, Study.Status.DRAFT]
    rows = fetch(_SELECT_ANSWERING, params)
    if not rows:
        return None
    p, at = _P2.take(rows[0], 0)
    p.study, at = _S2.take(rows[0], at)
    if rows[0][at] is None:  # no such assignment of theirs
        return p, None
    a = answer.build_for_answer(rows[0], at)
    a.participant = p
    return p, a
