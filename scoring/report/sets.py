"""Rater sets (formats.md §5): named groups of raters a statistic is computed over.

* ``humans``: every human rater (volunteers and imported people) left after exclusions;
* ``group:<slug>``: the humans of one study group;
* ``models``: every model rater (all names and runs together);
* ``model:<name>`` or ``model:<name>@<run>`` when the model's run (prompt condition)
  is non-empty, so ``gpt-4o@direct`` and ``gpt-4o@form_aware`` stay apart;
* ``rule:<name>``: a rule rater (e.g. ``rule:prosody:modern``), all rule versions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

HUMANS = "humans"
MODELS = "models"


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
