"""Rate limits for the volunteer flow: one mechanism for the pages and the API.

Built on Django REST framework's cache-based throttle (a well-kept implementation; in
production the cache is Redis, shared by every worker). Scopes and rates are in
``settings.RATE_LIMITS`` (env ``RATE_LIMIT_ENROL`` … ; ``off`` disables one):

- ``enrol``: new participations per client address (consent pages and the API);
- ``resume``: resume-code attempts per client address (codes cannot be guessed by brute force);
- ``answer``: answers per participant (no person answers sixty questions a minute).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle


class ScopeThrottle(SimpleRateThrottle):
    """A throttle for one scope, keyed by the client address or by a given identity."""

    scope = "enrol"

    def __init__(self, scope: str | None = None, ident: str | None = None) -> None:
        if scope:
            self.scope = scope
        self.ident = ident
        super().__init__()

    def get_rate(self) -> str | None:
        return settings.RATE_LIMITS.get(self.scope)

    def get_cache_key(self, request: Any, view: Any) -> str:
        ident = self.ident or self.participant_ident(request) or self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}

    @staticmethod
    def participant_ident(request: Any) -> str | None:
        auth = getattr(request, "auth", None)
        public_id = getattr(auth, "public_id", None)
        return f"p:{public_id}" if public_id else None


class EnrolThrottle(ScopeThrottle):
    scope = "enrol"


class ResumeThrottle(ScopeThrottle):
    scope = "resume"


class AnswerThrottle(ScopeThrottle):
    scope = "answer"


def wait_seconds(request: Any, scope: str, ident: str | None = None) -> int | None:
    """None when the request may proceed; else how many seconds to wait (and it is counted)."""
    throttle = ScopeThrottle(scope, ident)
    if throttle.allow_request(request, None):  # type: ignore[arg-type]  # no view: a page
        return None
    return max(1, int(throttle.wait() or 1))
