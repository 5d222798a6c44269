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
from urllib.parse import quote

from django.utils.translation import gettext_lazy as _

from studies.values import Text, with_params

# The query parameters kept, in this order; anything else in the link is ignored.
PARAMETERS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID", "pid")
MAX_VALUE = 100  # platform ids are short; longer values are cut
PLACEHOLDER = re.compile(r"\{([A-Za-z_]+)\}")
PLACEHOLDERS = ("code", *PARAMETERS)


def recruitment_params(query: Mapping[str, str]) -> dict[str, str]:
    """The known recruitment parameters of an entry link's query string (trimmed, cut to
    ``MAX_VALUE`` characters, printable only)."""
    out: dict[str, str] = {}
    for key in PARAMETERS:
        value = "".join(ch for ch in str(query.get(key, "")) if ch.isprintable()).strip()
        if value:
            out[key] = value[:MAX_VALUE]
    return out


def completion_problem(url: str) -> Text | None:
    """What is wrong with a completion URL template, or None."""
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
    return None


def completion_link(template: str, *, code: str, params: Mapping[str, str]) -> str:
    """``template`` with ``{code}`` and ``{PROLIFIC_PID}``-style placeholders filled in
    (URL-encoded; a parameter the participant came without becomes empty)."""
    values = {"code": code, **{k: str(v) for k, v in params.items() if k in PARAMETERS}}
    return PLACEHOLDER.sub(lambda m: quote(values.get(m.group(1), ""), safe=""), template)
