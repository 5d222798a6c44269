"""Recruitment platforms: the parameters an entry link carries, and the completion link.

A platform such as Prolific sends volunteers to the study's link with its own ids in the
query string (``?PROLIFIC_PID=…&STUDY_ID=…&SESSION_ID=…``; other platforms: ``?pid=…``).
They are kept on the participant (``Participant.recruitment``) for the researchers'
export and shown to nobody. At the end, a study's ``completion_url`` sends the volunteer
back to the platform with their completion code.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote, urlsplit

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from studies.values import Text, with_params

# The query parameters kept, in this order; anything else in the link is ignored.
PARAMETERS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID", "pid")
MAX_VALUE = 100  # platform ids are short; longer values are cut
PLACEHOLDER = re.compile(r"\{([A-Za-z_]+)\}")
PLACEHOLDERS = ("code", *PARAMETERS)


#: A host as browsers and Python read it alike: letters, digits, dots and hyphens only
#: (``evil.example\\.x.qualtrics.com`` is ``evil.example`` to a browser).
PLAIN_HOST = re.compile(r"[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?\.?")


def recruitment_params(query: Mapping[str, str]) -> dict[str, str]:
    """The known recruitment parameters of an entry link's query string (trimmed, cut to
    ``MAX_VALUE`` characters, printable only)."""
    out: dict[str, str] = {}
    for key in PARAMETERS:
        value = "".join(ch for ch in str(query.get(key, "")) if ch.isprintable()).strip()
        if value:
            out[key] = value[:MAX_VALUE]
    return out


def host_allowed(host: str, allowed: list[str] | None = None) -> bool:
    """Whether ``host`` is one of ``COMPLETION_HOSTS`` (".example.org": it and its
    subdomains)."""
    host = host.lower().rstrip(".")
    for entry in settings.COMPLETION_HOSTS if allowed is None else allowed:
        entry = entry.lower().strip()
        if host == entry.lstrip(".") or (entry.startswith(".") and host.endswith(entry)):
            return True
    return False


def completion_problem(url: str) -> Text | None:
    """What is wrong with a completion URL template, or None. Placeholders may stand in
    the path and the query only: the scheme and host are fixed when the study is loaded,
    and the host must be one of ``settings.COMPLETION_HOSTS``."""
    if not re.match(r"^https?://[^\s/?#]+", url):
        return _("must be an http:// or https:// address")
    if any(ch.isspace() for ch in url):
        return _("must not contain spaces")
    unknown = sorted({m for m in PLACEHOLDER.findall(url) if m not in PLACEHOLDERS})
    if unknown:
        known = ", ".join("{" + p + "}" for p in PLACEHOLDERS)
        return with_params(
            _("unknown placeholder %(name)s (known: %(known)s)"),
            name="{" + unknown[0] + "}",
            known=known,
        )
    try:
        parts = urlsplit(url)
    except ValueError:
        return _("is not a valid address")
    if "{" in parts.netloc or "}" in parts.netloc or "{" in parts.fragment:
        return _("may have placeholders in its path and query only, never in the host")
    try:
        host = parts.hostname or ""
        parts.port  # noqa: B018 -- raises ValueError for a port that is not a number
    except ValueError:
        return _("is not a valid address")
    if "@" in parts.netloc:
        return _("must not name a user or password before the host")
    if not PLAIN_HOST.fullmatch(host):  # a browser reads ``\\`` as ``/``: another host
        return _("is not a valid address")
    if not host_allowed(host):
        return with_params(
            _(
                "sends volunteers to %(host)r, which is not a recruiting host this site "
                "allows (COMPLETION_HOSTS: %(hosts)s)"
            ),
            host=host,
            hosts=", ".join(settings.COMPLETION_HOSTS),
        )
    return None


def completion_link(template: str, *, code: str, params: Mapping[str, str]) -> str:
    """``template`` with ``{code}`` and ``{PROLIFIC_PID}``-style placeholders filled in
    (URL-encoded; a parameter the participant came without becomes empty)."""
    values = {"code": code, **{k: str(v) for k, v in params.items() if k in PARAMETERS}}
    return PLACEHOLDER.sub(lambda m: quote(values.get(m.group(1), ""), safe=""), template)
