"""The agreement table as a pivot: for one task and part or dimension, a row per rater
set and a column per coefficient, each cell the value, its interval and n."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from research.dashboard.labels import Labels
from research.dashboard.tables import interval, number

Rows = list[dict[str, Any]]


@dataclass
class PivotCell:
    value: str
    ci: str
    n: str
    reason: str = ""


@dataclass
class Pivot:
    task: str
    field: str
    columns: list[str]
    rows: list[tuple[str, list[PivotCell | None]]]
    choices: list[tuple[str, str, str]]  # (task|field key, task label, field label)

    @property
    def key(self) -> str:
        return f"{self.task}|{self.field}"


def agreement_pivot(rows: Rows, labels: Labels, chosen: str = "") -> Pivot | None:
    """Agreement for one task × field: a row per rater set, a column per coefficient
    (its weights, and its level when one coefficient comes at two levels), each cell the
    value with its interval and n (units / raters), or the reason it is undefined."""
    if not rows:
        return None
    pairs = list(dict.fromkeys((r["task"], r["field"]) for r in rows))
    task, fld = pairs[0]
    if chosen and "|" in chosen:
        asked = tuple(chosen.split("|", 1))
        if asked in pairs:
            task, fld = asked
    part = [r for r in rows if r["task"] == task and r["field"] == fld]
    levels: dict[str, set[str]] = {}
    for r in part:
        levels.setdefault(r["metric"], set()).add(r.get("level") or "")
    keys = list(dict.fromkeys(_coefficient(r, levels) for r in part))
    sets = list(dict.fromkeys(r["rater_set"] for r in part))
    cells: dict[tuple[str, tuple[str, str, str]], PivotCell] = {}
    for r in part:
        value = r.get("value")
        cells[(r["rater_set"], _coefficient(r, levels))] = PivotCell(
            value=number(value),
            ci=interval(r),
            n=f"{r.get('n_units', '')}/{r.get('n_raters', '')}",
            reason=str(labels.value("reason", r.get("reason"), r) or "") if value is None else "",
        )
    columns = []
    for metric, weights, level in keys:
        text = labels.metric(metric, weights)
        if len(levels.get(metric, ())) > 1 and level:
            text += f" · {labels.value('level', level, {})}"
        columns.append(text)
    return Pivot(
        task=task,
        field=fld,
        columns=columns,
        rows=[(labels.rater_set(s), [cells.get((s, k)) for k in keys]) for s in sets],
        choices=[(f"{t}|{f}", labels.task(t), labels.field(t, f)) for t, f in pairs],
    )


def _coefficient(row: dict[str, Any], levels: dict[str, set[str]]) -> tuple[str, str, str]:
    weights = row.get("weights") or ""
    level = row.get("level") or "" if len(levels.get(row["metric"], ())) > 1 else ""
    return (row["metric"], "" if weights == "none" else weights, level)
