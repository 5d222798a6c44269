"""The volunteer flow's hot SQL, in one place: the answer (``answer``), the claim
(``claim``), with one row mapper (``rows``) turning rows into model instances.

Everything else in the platform goes through the ORM. These statements are written by
hand where a benchmark measured that it pays (each module says which: bench_submit.py,
bench_claims.py), and they are plain portable SQL: tests/volunteer runs them on SQLite
and PostgreSQL.
"""

from annotation.hotpath.answer import (
    AnswerRow,
    assignment_for_answer,
    mark_answered,
    store_answer,
)

__all__ = ["AnswerRow", "assignment_for_answer", "mark_answered", "store_answer"]
