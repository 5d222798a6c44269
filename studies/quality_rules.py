"""A study's thresholds for the quality checks (``annotation.quality``): the documented
defaults, which a study file's ``quality_rules`` setting may change one by one
(docs/running-a-study.md, "Quality checks"; docs/formats.md)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from django.utils.translation import gettext_lazy as _

from studies.values import Text, with_params


@dataclass(frozen=True)
class QualityRules:
    # speeder: on at least ``speed_share`` of their timed items (and at least
    # ``speed_min_items``), an answer under ``speed_ratio`` of the item's median time
    speed_ratio: float = 1 / 3
    speed_share: float = 0.5
    speed_min_items: int = 3
    # straight-lining: on at least ``straight_min_pages`` rating pages with two or more
    # scales, ``straight_share`` or more have one point on every scale
    straight_share: float = 0.8
    straight_min_pages: int = 3
    # duplicate address: ``address_min_enrolments`` or more enrolments from one address
    # within ``address_window_minutes`` (0: the check is off)
    address_min_enrolments: int = 3
    address_window_minutes: int = 30


DEFAULTS = QualityRules()
SHARES = ("speed_ratio", "speed_share", "straight_share")
COUNTS = ("speed_min_items", "straight_min_pages", "address_min_enrolments")
NAMES = tuple(f.name for f in fields(QualityRules))


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def rule_problem(name: str, value: Any) -> Text | None:
    """Why ``value`` is not valid for the rule ``name``, or None."""
    if name not in NAMES:
        return with_params(_("unknown quality rule (known: %(names)s)"), names=", ".join(NAMES))
    if name in SHARES:
        if not (_is_number(value) and 0 < value <= 1):
            return _("must be a fraction greater than 0 and at most 1, e.g. 0.5")
    elif name in COUNTS:
        minimum = 2 if name == "address_min_enrolments" else 1
        if not (_is_number(value) and value == int(value) and value >= minimum):
            return with_params(_("must be a whole number ≥ %(min)s"), min=minimum)
    elif not (_is_number(value) and value == int(value) and value >= 0):
        return _("must be a whole number of minutes ≥ 0 (0 turns the check off)")
    return None


def rules_problems(value: Any) -> list[tuple[str, Text]]:
    """(rule name or "", message) for each problem of a ``quality_rules`` setting."""
    if not isinstance(value, dict):
        return [("", _('must be an object of rules, e.g. {"speed_ratio": 0.3}'))]
    out = []
    for name, given in value.items():
        problem = rule_problem(str(name), given)
        if problem is not None:
            out.append((str(name), problem))
    return out


def rules_of(stored: Any) -> QualityRules:
    """A study's rules: its stored values over the defaults (invalid ones ignored)."""
    given = stored if isinstance(stored, dict) else {}
    values = {k: v for k, v in given.items() if k in NAMES and rule_problem(k, v) is None}
    return QualityRules(**values)
