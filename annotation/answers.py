"""One rule for what an answer to an item is: which fields it fills, with which values.

Used by every way an answer arrives (the volunteer pages, the API, stored LLM outputs,
imported human responses), so option ranges, best ≠ worst, and scale bounds are checked
in one place. Values are canonical option indices (never shuffled display positions).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from studies.loading.values import is_digits, is_int, parse_index
from studies.models import Item, Task


@dataclass
class Parsed:
    values: dict[str, float] = field(default_factory=dict)
    errors: list[tuple[str, str]] = field(default_factory=list)

    def error(self, name: str, message: str) -> None:
        self.errors.append((name, message))


def expected_fields(item: Item, task: Task) -> list[str]:
    if task.kind == Task.Kind.CHOICE:
        return ["answer"]
    if task.kind == Task.Kind.BEST_WORST:
        return ["best", "worst"]
    if task.kind == Task.Kind.MULTI:
        return [p["key"] for p in item.parts]
    return [d["key"] for d in task.dimensions]


def parse_answer(item: Item, task: Task, *, answer: Any = None, ratings: Any = None) -> Parsed:
    """Validate an answer (choice, multi, best_worst) or ratings (rating) for ``item``."""
    out = Parsed()
    if task.kind == Task.Kind.RATING:
        if answer is not None:
            out.error("answer", "this is a rating item: give 'ratings', not 'answer'")
        _ratings(task, ratings, out)
        return out
    if ratings is not None:
        out.error("ratings", "this item is a question: give 'answer', not 'ratings'")
        return out
    if task.kind == Task.Kind.CHOICE:
        if isinstance(answer, dict) and set(answer) == {"answer"}:
            answer = answer["answer"]
        index = parse_index(answer, len(item.options), out, "answer")
        if index is not None:
            out.values["answer"] = index
    elif task.kind == Task.Kind.BEST_WORST:
        if not isinstance(answer, dict) or set(answer) != {"best", "worst"}:
            out.error("answer", 'must be {"best": i, "worst": j}')
            return out
        best = parse_index(answer["best"], len(item.options), out, "best")
        worst = parse_index(answer["worst"], len(item.options), out, "worst")
        if best is not None and worst is not None:
            if best == worst:
                out.error("worst", "best and worst must be different options")
            else:
                out.values.update(best=best, worst=worst)
    else:  # multi
        parts = {p["key"]: p for p in item.parts}
        if not isinstance(answer, dict):
            out.error(
                "answer", f"must be an object with a choice for each part: {', '.join(parts)}"
            )
            return out
        for key in answer:
            if key not in parts:
                out.error(key, f"{key!r} is not a part of this question ({', '.join(parts)})")
        for key, part in parts.items():
            if key not in answer:
                out.error(key, "is missing: every part must be answered")
                continue
            index = parse_index(answer[key], len(part["options"]), out, key)
            if index is not None:
                out.values[key] = index
    return out


def _ratings(task: Task, ratings: Any, out: Parsed) -> None:
    dims = {d["key"]: d for d in task.dimensions}
    if not isinstance(ratings, dict):
        out.error("ratings", f"must be an object rating each dimension: {', '.join(dims)}")
        return
    for key in ratings:
        if key not in dims:
            out.error(key, f"{key!r} is not a dimension of this task ({', '.join(dims)})")
    for key, dim in dims.items():
        raw = ratings.get(key)
        if raw is None or raw == "":
            out.error(key, "is missing: every dimension must be rated")
            continue
        if isinstance(raw, str) and is_digits(raw.strip().removeprefix("-")):
            raw = int(raw.strip())
        if not is_int(raw):
            out.error(key, f"{raw!r} is not a whole number")
            continue
        if not dim["min"] <= int(raw) <= dim["max"]:
            out.error(key, f"{raw} is outside the scale {dim['min']}–{dim['max']}")
            continue
        out.values[key] = int(raw)
