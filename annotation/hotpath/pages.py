"""The volunteer pages' own read: the participant a page's cookie names, with its study.

Every volunteer page starts with it. Through the ORM (``select_related``, the models'
default orderings) compiling it cost about 3 ms of the 10 ms an answered page costs
(profiled with ``bench/bench_pages.py``'s flow); written here it is about 0.2 ms.
"""

from __future__ import annotations

from annotation.hotpath.rows import Rows, fetch
from annotation.models import Participant
from studies.models import Study

_P, _S = Rows(Participant, "p"), Rows(Study, "s")
_SELECT = f"""
SELECT {_P.sql}, {_S.sql}
FROM {Participant._meta.db_table} p JOIN {Study._meta.db_table} s ON s.id = p.study_id
WHERE p.public_id = %s AND p.study_id = %s AND s.slug = %s AND s.status <> %s
"""


def participant_with_study(slug: str, study_id: int, public_id: str) -> Participant | None:
    rows = fetch(_SELECT, [public_id, int(study_id), slug, Study.Status.DRAFT])
    if not rows:
        return None
    p, at = _P.take(rows[0], 0)
    p.study, _ = _S.take(rows[0], at)
    return p
