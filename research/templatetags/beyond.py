"""``{% load beyond %}{% beyond_panels study tables %}``: the issue-15 dashboard panels."""

from __future__ import annotations

from typing import Any

from django import template

from research.dashboard.beyond import panels
from studies.models import Study

register = template.Library()


@register.inclusion_tag("research/_beyond.html")
def beyond_panels(study: Study, tables: dict[str, Any]) -> dict[str, Any]:
    return panels(study, tables)
