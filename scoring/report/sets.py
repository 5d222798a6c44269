"""Rater sets (formats.md §5): named groups of raters a statistic is computed over.

* ``humans``: every human rater (volunteers and imported people) left after exclusions;
* ``group:<slug>``: the humans of one study group;
* ``models``: every model rater (all names and runs together);
* ``model:<name>`` or ``model:<name>@<run>`` when the model's run (prompt condition)
  is non-empty, so ``gpt-4o@direct`` and ``gpt-4o@form_aware`` stay apart;
* ``rule:<name>``: a rule rater (e.g. ``rule:prosody:modern``), all rule versions.

Tables also name a union of sets (``humans+model:<name>``, ``humans+models``), the answer
key (``key``) and a reference set (``<set> majority``, ``<set> mean``); ``show_set_name``
takes every such name apart (the one parser: the dashboard's and the paper tables' names
differ only in the words they give each part).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

HUMANS = "humans"
MODELS = "models"
KEY = "key"
#: A union of sets: ``humans+model:x`` (people with one judge).
UNION = "+"
#: A reference set's suffixes (``group:A majority``: the group's modal answer).
REFERENCE_SUFFIXES = ("majority", "mean")


@dataclass(frozen=True)
class RaterSet:
    name: str
    kind: str  # "human", "model" or "rule"
    raters: np.ndarray  # rater ids

    @property
    def is_single_model(self) -> bool:
        return self.name.startswith("model:")


def model_label(name: str, run: str) -> str:
    return f"model:{name}@{run}" if run else f"model:{name}"


def show_model(name: str) -> str:
    """A model as every table and chart names it: ``x``, ``x@run`` or ``model:x@run`` →
    ``x (run)``."""
    model, _at, run = name.removeprefix("model:").partition("@")
    return f"{model} ({run})" if run else model


@dataclass(frozen=True)
class SetName:
    """One rater set's name taken apart (neither a union nor a reference set).

    ``kind``: ``humans``, ``models``, ``key``, ``group``, ``model``, ``rule``, or the
    text's part before its first ``:`` for any other name; ``key``: what follows the
    ``:`` (a group's slug, ``x@run``, a rule rater); ``text``: the name as written."""

    kind: str
    key: str
    text: str


def show_set_name(
    name: str, part: Callable[[SetName], str], suffixed: Callable[[str, str], str]
) -> str:
    """A rater set's name in words: a reference set as ``suffixed(its set shown, suffix)``,
    a union as its members shown joined by `` + ``, any other as ``part(its SetName)``."""
    for suffix in REFERENCE_SUFFIXES:
        if name.endswith(f" {suffix}"):
            inner = name[: -len(suffix) - 1]
            return suffixed(show_set_name(inner, part, suffixed), suffix)
    if UNION in name:
        return " + ".join(show_set_name(p, part, suffixed) for p in name.split(UNION))
    kind, _sep, key = name.partition(":")
    return part(SetName(kind, key, name))


def rater_sets(raters: pd.DataFrame, group_slugs: list[str]) -> list[RaterSet]:
    """Every non-empty rater set, in report order: humans, groups, models, each model, rules."""
    ids = raters.index.to_numpy(dtype=np.int64)
    kind = raters["kind"].to_numpy()
    out: list[RaterSet] = []

    def add(name: str, k: str, mask: np.ndarray) -> None:
        if mask.any():
            out.append(RaterSet(name, k, ids[mask]))

    human = kind == "human"
    add(HUMANS, "human", human)
    group = raters["group"].to_numpy()
    for slug in [*group_slugs, *sorted(set(group[human]) - set(group_slugs) - {""})]:
        add(f"group:{slug}", "human", human & (group == slug))
    model = kind == "model"
    add(MODELS, "model", model)
    labels = np.asarray(
        [model_label(n, r) for n, r in zip(raters["name"], raters["run"], strict=True)],
        dtype=object,
    )
    for label in sorted(set(labels[model])):
        add(label, "model", model & (labels == label))
    rule = kind == "rule"
    names = raters["name"].to_numpy()
    for name in sorted(set(names[rule])):
        add(f"rule:{name}", "rule", rule & (names == name))
    return out


def by_kind(sets: list[RaterSet], *kinds: str) -> list[RaterSet]:
    return [s for s in sets if s.kind in kinds]


def groups_of(sets: list[RaterSet]) -> list[RaterSet]:
    return [s for s in sets if s.name.startswith("group:")]


def single_models(sets: list[RaterSet]) -> list[RaterSet]:
    return [s for s in sets if s.is_single_model]
