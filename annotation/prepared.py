"""A cursor for the volunteer flow's hand-written hot SQL (``annotation.hotpath``, the
claim path in ``annotation.services._claim_sql``) whose statements PostgreSQL keeps
prepared.

Django's PostgreSQL cursors bind parameters on the client, so the server parses and
plans every statement anew: about 0.2 ms for the answer's four-table SELECT and more for
the claim's read of every task with its counts, several times what executing them costs.
A server-binding cursor lets psycopg prepare a statement after ``prepare_threshold``
executions (``PG_PREPARE_THRESHOLD``, settings) on the same persistent (``CONN_MAX_AGE``)
connection. It is wrapped as Django wraps its own (execute wrappers, error translation).
While queries are logged (DEBUG, query-count tests), and on SQLite, it is Django's
ordinary cursor, whose log shows each statement with its values.
"""

from __future__ import annotations

from typing import Any

from django.db import connection


def cursor() -> Any:
    if connection.vendor != "postgresql" or connection.queries_logged:
        return connection.cursor()
    from django.db.backends.postgresql.base import ServerBindingCursor

    connection.ensure_connection()
    connection.validate_thread_sharing()
    return connection.make_cursor(ServerBindingCursor(connection.connection))
