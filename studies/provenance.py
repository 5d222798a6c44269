"""Where an item came from, as indexed fields the report splits by (docs/report.md §2).

One rule, used by both loaders (a pool line's ``poem`` and ``meta``; a generation, whose
loader writes ``poem.source = "model:<name>"`` and ``meta = {prompt, model, run,
sample}``) and, frozen, by the migration that filled the fields of items stored before:

* ``source_kind``: ``human`` when ``poem.source`` is ``human`` or a poet's name,
  ``model`` when it is ``model:<name>``, empty when the item has no poem source;
* ``source_model``: the model's name for ``model:<name>``, else empty;
* ``sample``: a generation's sample number (``meta.sample``, a whole number ≥ 0), else
  None;
* ``category``: ``meta.category``, else the generation prompt's ``category``, as text
  (at most 100 characters), else empty.

The prompt condition is ``poem_condition`` and the form ``poem_form`` (both already
fields of the poem).
"""

from __future__ import annotations

from typing import Any

HUMAN = "human"
MODEL = "model"
MODEL_PREFIX = "model:"
CATEGORY_LENGTH = 100
#: The fields this module derives (the content hash leaves them out: they follow from
#: ``poem_source`` and ``meta``, which it covers).
DERIVED = ("source_kind", "source_model", "sample", "category")


def source_parts(poem_source: str) -> tuple[str, str]:
    """(kind, model name) of a poem source: ``model:x`` → (model, x); other text → human."""
    text = (poem_source or "").strip()
    if not text:
        return "", ""
    if text.startswith(MODEL_PREFIX):
        return MODEL, text[len(MODEL_PREFIX) :].strip()
    return HUMAN, ""


def _whole(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and value >= 0:
        return value
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _category(meta: dict[str, Any]) -> str:
    raw = meta.get("category")
    prompt = meta.get("prompt")
    if raw in (None, "") and isinstance(prompt, dict):
        raw = prompt.get("category")
    if raw is None or isinstance(raw, dict | list):
        return ""
    return str(raw).strip()[:CATEGORY_LENGTH]


def item_provenance(poem_source: str, meta: dict[str, Any] | None) -> dict[str, Any]:
    """The derived provenance fields of an item (``DERIVED``) from its source and meta."""
    meta = meta if isinstance(meta, dict) else {}
    kind, model = source_parts(poem_source)
    return {
        "source_kind": kind,
        "source_model": model,
        "sample": _whole(meta.get("sample")),
        "category": _category(meta),
    }


def source_label(kind: str, model: str) -> str | None:
    """The report's ``source``: ``human``, the model's name, or None when unknown."""
    if kind == MODEL:
        return model or None
    return HUMAN if kind == HUMAN else None
