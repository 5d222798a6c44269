"""Log filters (``LOGGING`` in config/settings.py)."""

from __future__ import annotations

import logging


class RefusalsWithoutTraceback(logging.Filter):
    """A refused request (403 and the other 4xx) is logged as its one line ("Forbidden
    (Permission denied): /admin/..."), not with the traceback of the ``PermissionDenied``
    that refused it: a refusal is the site working, and 35 lines each bury real errors.
    Also on the console handler: Django logs a ``SuspiciousOperation`` (a foreign Host
    header, a body over the size limit: a 400) on ``django.security.<name>``."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500 and record.exc_info:
            record.exc_info = None
            record.exc_text = None
        return True
