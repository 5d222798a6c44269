"""Helpers for load tests: write a temporary file, snapshot the whole database."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from annotation.models import AggregateResult, Participant, Rater, Response
from studies.models import Group, ImportLog, Item, ScreeningQuestion, Study, Task

MODELS = (
    Study,
    Group,
    ScreeningQuestion,
    Task,
    Item,
    Rater,
    Participant,
    Response,
    AggregateResult,
    ImportLog,
)


def snapshot() -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every loaded table, so 'unchanged' means exactly unchanged."""
    out = {}
    for model in MODELS:
        fields = [f.attname for f in model._meta.concrete_fields]
        out[model.__name__] = sorted(
            (
                tuple(json.dumps(v, sort_keys=True, default=str) for v in row)
                for row in model.objects.values_list(*fields)
            ),
        )
    return out


def write_jsonl(path: Path, rows: Sequence[Mapping[str, Any] | str]) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(row if isinstance(row, str) else json.dumps(row, ensure_ascii=False))
            fh.write("\n")
    return path


def loader(kind: str) -> Any:
    """``loader("pool")(source, study=...)``: one kind of file through ``file_load``, the
    entry point every interface uses (it regrades and rule-scores after the write)."""
    from jobs.loads import file_load

    def load(source: Any, **kwargs: Any) -> Any:
        return file_load(kind=kind, source=source, **kwargs)

    return load
