"""Parsing the parts of a study definition (formats.md §1): slugs, screening questions,
tasks with their rating dimensions and guides; every problem at the line of its field."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

from studies.kinds import KINDS
from studies.loading.fields import count_problem
from studies.loading.problems import Collector, Reporter
from studies.models import slug_validator
from studies.ratelimits import STUDY_SCOPES, parse_rate
from studies.values import is_int, parse_text, with_params

TASK_KEYS = {"slug", "title", "kind", "per_participant", "instructions", "dimensions", "guide"}
MAX_SCALE = 10**6  # rating scales are small; this keeps every rating a safe number


class Lines:
    """Reporters at the line of a field path (``tasks[2].kind``) or its nearest parent."""

    def __init__(self, collector: Collector, lines: dict[str, int]):
        self.collector = collector
        self.lines = lines

    def at(self, path: str) -> Reporter:
        """A reporter whose field name is ``path``, at the line of its nearest known parent."""
        probe = path
        while probe and probe not in self.lines:
            cut = max(probe.rfind("."), probe.rfind("["))
            probe = probe[:cut] if cut > 0 else ""
        return self.collector.at(self.lines.get(probe), path)


def parse_slug(
    value: Any, report: Reporter, field_name: str | None, max_length: int = 50
) -> str | None:
    if not isinstance(value, str) or not value:
        report.error(field_name, _("is required (letters, digits, '-', '_', '.')"))
        return None
    if len(value) > max_length:
        report.error(
            field_name,
            with_params(_("is longer than %(max_length)s characters"), max_length=max_length),
        )
        return None
    try:
        slug_validator(value)
    except Exception:
        report.error(
            field_name,
            with_params(
                _("%(value)r is not a valid slug (letters, digits, '-', '_', '.')"), value=value
            ),
        )
        return None
    return value


def parse_screening(raw: Any, lines: Lines, groups: set[str]) -> list[dict[str, Any]]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        lines.at("screening").error(None, _("must be a list of questions"))
        return []
    out: list[dict[str, Any]] = []
    keys: set[str] = set()
    for i, q in enumerate(raw):
        path = f"screening[{i}]"
        if not isinstance(q, dict):
            lines.at(path).error(None, _("must be an object with key, prompt and options"))
            continue
        key = parse_slug(q.get("key"), lines.at(f"{path}.key"), None)
        if key in keys:
            lines.at(f"{path}.key").error(
                None, with_params(_("question %(key)r is defined twice"), key=key)
            )
        keys.add(key or "")
        prompt = parse_text(q.get("prompt"), lines.at(f"{path}.prompt"), "", required=True)
        options = q.get("options")
        parsed: list[dict[str, Any]] = []
        if not isinstance(options, list) or len(options) < 2:
            lines.at(f"{path}.options").error(None, _("needs at least two options"))
            options = []
        for j, o in enumerate(options):
            opath = f"{path}.options[{j}]"
            if isinstance(o, str):
                o = {"label": o}
            if not isinstance(o, dict) or not isinstance(o.get("label"), str):
                lines.at(opath).error(None, _("must have a 'label'"))
                continue
            group = o.get("group")
            if group is not None and (not isinstance(group, str) or group not in groups):
                lines.at(f"{opath}.group").error(
                    None, with_params(_("no group %(group)r is defined"), group=group)
                )
            parsed.append({"label": o["label"], "group": group})
        out.append({"key": key, "prompt": prompt, "options": parsed, "position": i})
    return out


def parse_tasks(raw: Any, lines: Lines) -> list[dict[str, Any]]:
    if not isinstance(raw, list) or not raw:
        lines.at("tasks").error(None, _("at least one task is required"))
        return []
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i, t in enumerate(raw):
        path = f"tasks[{i}]"
        if not isinstance(t, dict):
            lines.at(path).error(None, _("must be an object"))
            continue
        slug = parse_slug(t.get("slug"), lines.at(f"{path}.slug"), None)
        if slug in seen:
            lines.at(f"{path}.slug").error(
                None, with_params(_("task %(slug)r is defined twice"), slug=slug)
            )
        seen.add(slug or "")
        kind = t.get("kind")
        if not isinstance(kind, str) or kind not in KINDS:
            lines.at(f"{path}.kind").error(
                None,
                with_params(
                    _("%(kind)r is not one of %(names)s"), kind=kind, names=", ".join(sorted(KINDS))
                ),
            )
        per = t.get("per_participant", 10)
        if (problem := count_problem(per)) is not None:
            lines.at(f"{path}.per_participant").error(None, problem)
            per = 0
        task = {
            "slug": slug,
            "title": parse_text(
                t.get("title"), lines.at(f"{path}.title"), "", required=True, max_length=300
            ),
            "kind": kind,
            "per_participant": int(per),
            "instructions": parse_text(
                t.get("instructions"), lines.at(f"{path}.instructions"), "", required=False
            ),
            "dimensions": parse_dimensions(
                t.get("dimensions"), kind, lines, path, optional=per == 0
            ),
            "guide": parse_guide(t.get("guide"), lines, path),
            "position": i,
            "meta": {k: v for k, v in t.items() if k not in TASK_KEYS},
        }
        out.append(task)
    return out


def parse_dimensions(
    raw: Any, kind: Any, lines: Lines, path: str, optional: bool = False
) -> list[dict[str, Any]]:
    """A rating task's dimensions. ``optional``: the task no volunteer answers
    (``per_participant: 0``), e.g. the models' poems of a study of generated poems only,
    which rule raters score: it may have none (its items then get no ratings)."""
    declared = KINDS.get(kind) if isinstance(kind, str) else None
    if declared is None or not declared.scale:
        if raw:
            lines.at(f"{path}.dimensions").error(None, _("only rating tasks have dimensions"))
        return []
    if optional and (raw is None or raw == []):
        return []
    if not isinstance(raw, list) or not raw:
        lines.at(f"{path}.dimensions").error(None, _("a rating task needs at least one dimension"))
        return []
    out: list[dict[str, Any]] = []
    keys: set[str] = set()
    for j, d in enumerate(raw):
        dpath = f"{path}.dimensions[{j}]"
        if not isinstance(d, dict):
            lines.at(dpath).error(None, _("must be an object with key, label, min, max"))
            continue
        key = parse_slug(d.get("key"), lines.at(f"{dpath}.key"), None)
        if key in keys:
            lines.at(f"{dpath}.key").error(
                None, with_params(_("dimension %(key)r is defined twice"), key=key)
            )
        keys.add(key or "")
        lo, hi = d.get("min", 1), d.get("max", 5)
        if not (is_int(lo) and is_int(hi) and -MAX_SCALE <= lo < hi <= MAX_SCALE):
            lines.at(dpath).error(
                "min",
                with_params(
                    _("min and max must be whole numbers with min < max, within ±%(MAX_SCALE)s"),
                    MAX_SCALE=MAX_SCALE,
                ),
            )
            lo, hi = 1, 5
        dim: dict[str, Any] = {
            "key": key,
            "label": str(d.get("label") or key),
            "min": int(lo),
            "max": int(hi),
        }
        if "description" in d:
            dim["description"] = d["description"]
        labels = parse_scale_labels(d.get("labels"), int(lo), int(hi), lines, f"{dpath}.labels")
        if labels:
            dim["labels"] = labels
        out.append(dim)
    return out


MAX_LABEL = 40  # a scale point's label fits under its button on a phone


def _point(raw: Any) -> int | None:
    """A scale point named by an object key: an integer, or its text (JSON keys)."""
    if is_int(raw):
        return int(raw)
    text = raw.strip() if isinstance(raw, str) else ""
    return int(text) if text.removeprefix("-").isdigit() else None


def parse_scale_labels(raw: Any, lo: int, hi: int, lines: Lines, path: str) -> dict[str, str]:
    """A dimension's point labels (anchors), as {point: label} with the points as text:
    from a list with one label per point (min to max) or an object naming some points,
    e.g. the ends ``{"1": "很差", "5": "很好"}``."""
    if raw is None:
        return {}
    if isinstance(raw, list):
        if len(raw) != hi - lo + 1:
            lines.at(path).error(
                None,
                with_params(
                    _(
                        "has %(count)s labels; give one per point of %(lo)s–%(hi)s (%(points)s), or an object naming some points"
                    ),
                    count=len(raw),
                    lo=lo,
                    hi=hi,
                    points=hi - lo + 1,
                ),
            )
            return {}
        pairs = [(str(lo + i), label, f"{path}[{i}]") for i, label in enumerate(raw)]
    elif isinstance(raw, dict):
        pairs = []
        for point, label in raw.items():
            value = _point(point)
            if value is None or not lo <= value <= hi:
                lines.at(f"{path}.{point}").error(
                    None,
                    with_params(
                        _("%(point)r is not a point of %(lo)s–%(hi)s"), point=point, lo=lo, hi=hi
                    ),
                )
                continue
            pairs.append((str(value), label, f"{path}.{point}"))
    else:
        lines.at(path).error(
            None, _("must be a list of one label per point, or an object {point: label}")
        )
        return {}
    out: dict[str, str] = {}
    for point, label, where in pairs:
        if not isinstance(label, str) or not label.strip():
            lines.at(where).error(None, _("must be a non-empty text"))
        elif len(label) > MAX_LABEL:
            lines.at(where).error(
                None, with_params(_("is longer than %(MAX_LABEL)s characters"), MAX_LABEL=MAX_LABEL)
            )
        else:
            out[point] = label.strip()
    return out


def parse_guide(raw: Any, lines: Lines, path: str) -> list[dict[str, str]]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        lines.at(f"{path}.guide").error(None, _("must be a list of {label, description}"))
        return []
    out = []
    for j, g in enumerate(raw):
        if not isinstance(g, dict) or not isinstance(g.get("label"), str):
            lines.at(f"{path}.guide[{j}]").error(
                None, _("must have a 'label' (and a 'description')")
            )
            continue
        out.append({"label": g["label"], "description": str(g.get("description", ""))})
    return out


def parse_rate_limits(raw: Any, lines: Lines) -> dict[str, str]:
    """The study's own rate limits: scope -> ``"<count>/<period>"`` or ``"off"``."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        lines.at("rate_limits").error(
            None,
            with_params(
                _('must be an object of limits, e.g. {"enrol": "20/min"} (%(names)s)'),
                names=", ".join(STUDY_SCOPES),
            ),
        )
        return {}
    out: dict[str, str] = {}
    for scope, value in raw.items():
        report = lines.at(f"rate_limits.{scope}")
        if scope not in STUDY_SCOPES:
            report.error(
                None,
                with_params(_("unknown limit (known: %(names)s)"), names=", ".join(STUDY_SCOPES)),
            )
            continue
        try:
            parse_rate(value)
        except ValueError:  # (parse_rate's own message is English: settings read it too)
            report.error(
                None,
                with_params(
                    _(
                        "%(value)r is not a rate: write <count>/<period>, e.g. 30/min or "
                        "500/hour (count ≥ 1; period second, minute, hour or day), or off"
                    ),
                    value=value,
                ),
            )
            continue
        out[scope] = value.strip().lower() if isinstance(value, str) else "off"
    return out
