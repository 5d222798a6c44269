"""A study definition's settings (formats.md §1, "What Shiping accepts"): given under
``settings`` or at the top level, each read by its own reader, every problem at its line."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext_lazy as _

from scoring.prosody.families import BY_NAME as RULE_FAMILIES
from scoring.prosody.families import TONE_FAMILIES
from studies.loading.fields import count_problem
from studies.loading.study_parts import Lines
from studies.models import CIPU_SOURCE_CHOICES, reading_overrides_problem
from studies.quality_rules import rules_problems
from studies.recruitment import completion_problem
from studies.values import with_params


class _Bad(ValueError):
    """A setting's value is refused (the message says why)."""


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Bad(_("must be true or false"))
    return value


def _flag_or_null(value: Any) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise _Bad(_("must be true, false or null"))
    return value


def _count(value: Any) -> int:
    if (problem := count_problem(value)) is not None:
        raise _Bad(problem)
    return int(value)


def _minutes(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 1:
        raise _Bad(_("must be a whole number ≥ 1, or null"))
    if (problem := count_problem(value, low=1)) is not None:
        raise _Bad(problem)
    return int(value)


def _code(value: Any) -> str:
    if not (isinstance(value, str) and len(value) <= 64):
        raise _Bad(_("must be text of at most 64 characters"))
    return value


def _completion_url(value: Any) -> str:
    if value in (None, ""):
        return ""
    if not isinstance(value, str) or len(value) > 500:
        raise _Bad(_("must be text of at most 500 characters"))
    problem = completion_problem(value)
    if problem:
        raise _Bad(problem)
    return value


def _rule_raters(value: Any) -> list[str]:
    """Rule families of the registry (scoring/prosody/families.py), the default first."""
    known = ", ".join(RULE_FAMILIES)
    if not (isinstance(value, list) and value and all(isinstance(v, str) for v in value)):
        raise _Bad(
            with_params(
                _("must be a non-empty list of rule raters (known: %(names)s)"),
                names=known,
            )
        )
    unknown = [v for v in value if v not in RULE_FAMILIES]
    if unknown:
        raise _Bad(
            with_params(
                _(
                    "unknown rule rater %(name)r (known: %(names)s; the first is the study's "
                    "default tone system)"
                ),
                name=unknown[0],
                names=known,
            )
        )
    if len(set(value)) != len(value):
        raise _Bad(_("lists a rule rater twice"))
    if value[0] not in TONE_FAMILIES:
        raise _Bad(
            with_params(
                _("the first rule rater is the study's default and must be %(names)s"),
                names=" or ".join(TONE_FAMILIES),
            )
        )
    return list(value)


def _reading_overrides(value: Any) -> dict[str, str]:
    problem = reading_overrides_problem(value)
    if problem is not None:
        raise _Bad(problem)
    return dict(value)


def _cipu_source(value: Any) -> str:
    known = [k for k, _label in CIPU_SOURCE_CHOICES]
    if value not in known:
        raise _Bad(with_params(_("must be one of %(names)s"), names=", ".join(known)))
    return str(value)


def _quality_rules(value: Any) -> dict[str, Any]:
    """The study's own quality thresholds (studies/quality_rules.py); each problem is
    reported at its rule's line by :func:`parse_settings`."""
    if rules_problems(value):
        raise _Bad(rules_problems(value)[0][1])
    return dict(value)


# Each setting's reader: the value to store, or _Bad.
SETTINGS: dict[str, Callable[[Any], Any]] = {
    "shuffle_options": _flag,
    "randomize_task_order": _flag,
    "attention_max_failures": _count,
    "exclude_flagged": _flag,
    "completion_code": _code,
    "listed": _flag,
    "hide_authors": _flag_or_null,
    "estimated_minutes": _minutes,
    "completion_url": _completion_url,
    "rule_raters": _rule_raters,
    "reading_overrides": _reading_overrides,
    "cipu_source": _cipu_source,
    "quality_rules": _quality_rules,
    "finish_results": _flag,
}


def parse_settings(data: dict[str, Any], lines: Lines) -> dict[str, Any]:
    """The settings a study file gives (only those: a reload leaves the others as they
    are), from ``settings`` or the top level."""
    nested = data.get("settings") or {}
    if not isinstance(nested, dict):
        lines.at("settings").error(None, _("must be an object of settings"))
        nested = {}
    given = {**{k: data[k] for k in SETTINGS if k in data}, **nested}
    out: dict[str, Any] = {}
    for key, value in given.items():
        reader = SETTINGS.get(key)
        path = f"settings.{key}" if key in nested else key
        if reader is None:
            lines.at(path).error(
                None,
                with_params(_("unknown setting (known: %(names)s)"), names=", ".join(SETTINGS)),
            )
            continue
        if key == "quality_rules" and (problems := rules_problems(value)):
            for name, message in problems:
                lines.at(f"{path}.{name}" if name else path).error(None, message)
            continue
        try:
            out[key] = reader(value)
        except _Bad as exc:
            lines.at(path).error(None, exc.args[0])
    return out
