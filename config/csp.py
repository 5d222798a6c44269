"""The Content-Security-Policy header on every response (``CONTENT_SECURITY_POLICY``).

Scripts run only from this site's own files (``script-src 'self'``): no template has an
inline script or an event-handler attribute (tests/app/test_csp.py checks every kind of
page), the JSON a script reads travels in ``<script type="application/json">`` blocks
(``json_script``), which are data, never run. Styles may be inline (``'unsafe-inline'``
for ``style-src`` only): Django's admin, the API docs and the poem page's per-poem grid
width set style attributes, and a style runs no code.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


def policy_header(policy: dict[str, list[str]]) -> str:
    return "; ".join(f"{name} {' '.join(sources)}".strip() for name, sources in policy.items())


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.header = policy_header(settings.CONTENT_SECURITY_POLICY)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if self.header and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = self.header
        return response
