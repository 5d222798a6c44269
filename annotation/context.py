"""Template context of every page: whether it is staff's preview (the banner of base.html)."""

from __future__ import annotations

from django.http import HttpRequest

PREVIEW_COOKIE = "shiping_preview"  # set on a study's pages for a test participant


def preview(request: HttpRequest) -> dict[str, bool]:
    """``preview``: the page is seen by a test participant (preview and test mode); the
    cookie only draws the banner, the participant's ``is_test`` decides everything else."""
    return {"preview": bool(request.COOKIES.get(PREVIEW_COOKIE))}
