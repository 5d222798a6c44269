"""``{% load beyond %}{% beyond_panels study tables plan pending %}``: the issue-15
dashboard panels (``plan``: the page's planning rows; without it they come from the
cache; ``pending``: the heavy tables still being computed, ``views.pending_tables``)."""

from __future__ import annotations

from typing import Any

from django import template

from research.dashboard.beyond import panels
from studies.models import Study

register = template.Library()


@register.inclusion_tag("research/_beyond.html")
def beyond_panels(
    study: Study,
    tables: dict[str, Any],
    plan: list[dict[str, Any]] | None = None,
    pending: dict[str, Any] | None = None,
) -> dict[str, Any]:
    # a page without planning rows of its own (the variable unset): from the cache
    found = panels(study, tables, plan if isinstance(plan, list) else None)
    return {**found, "pending": pending if isinstance(pending, dict) else {}}
