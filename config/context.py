"""Template context for every page (``TEMPLATES`` context processors)."""

from __future__ import annotations

from django.http import HttpRequest

#: The longest address a page links back to with its query (the language switch, "try
#: again"); a longer one (a hostile or mistaken query of hundreds of KB) without it, so a
#: page never carries its whole query string once more.
HERE_LIMIT = 2048


def here(request: HttpRequest) -> dict[str, str]:
    """``here``: this page's address with its query, or without the query when that is
    longer than ``HERE_LIMIT``."""
    full = request.get_full_path()
    return {"here": full if len(full) <= HERE_LIMIT else request.path}
