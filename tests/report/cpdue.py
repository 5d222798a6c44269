"""A SYNTHETIC CP-DUE-style study for the item analysis and IRT tests.

Three groups of people (A < B < C in ability) and three models answer a 4-option
choice task (CK, 24 items) and a two-part allusion task (AU, 8 items × person/source).
Each person answers 16 of the CK items and all AU items; models answer everything.
Three CK items are made to misbehave: ``ck-easy`` (everyone right), ``ck-badkey``
(its key is an option the able avoid: negative discrimination) and ``ck-lure``
(a distractor that draws the able). Answers follow a 2PL model with known abilities
and item difficulties (returned for the tests to check against).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tests.report.factory import Builder
from tests.report.worked import SYNTHETIC, store

GROUPS = {"A": -0.8, "B": 0.0, "C": 0.9}  # mean ability
PER_GROUP = 10
MODELS = {"gpt-4o": 1.2, "qwen": 0.2, "tiny": -1.0}
N_CK, N_AU = 24, 8


@dataclass
class CPDue:
    builder: Builder
    frame: pd.DataFrame  # rater, item, field, value, correct, group, kind
    ability: dict[str, float]
    difficulty: dict[tuple[str, str], float]


def cpdue_frame(seed: int = 7) -> tuple[pd.DataFrame, dict[str, float], dict]:
    rng = np.random.default_rng(seed)
    ability: dict[str, float] = {}
    group_of: dict[str, str] = {}
    for g, mu in GROUPS.items():
        for i in range(PER_GROUP):
            name = f"{g.lower()}{i}"
            ability[name] = float(mu + rng.normal(0, 0.6))
            group_of[name] = g
    for m, theta in MODELS.items():
        ability[m] = theta
        group_of[m] = ""
    units = [(f"ck-{i:02d}", "answer") for i in range(N_CK - 3)]
    units += [("ck-easy", "answer"), ("ck-badkey", "answer"), ("ck-lure", "answer")]
    units += [(f"au-{i}", f) for i in range(N_AU) for f in ("person", "source")]
    difficulty = {u: float(rng.normal(0, 1)) for u in units}
    slope = {u: float(rng.uniform(0.8, 2.0)) for u in units}
    rows = []
    for rater, theta in ability.items():
        ck = [u for u in units if u[0].startswith("ck")]
        mine = (
            ck
            if rater in MODELS
            else [ck[i] for i in sorted(rng.choice(len(ck), 16, replace=False))]
        )
        mine = mine + [u for u in units if u[0].startswith("au")]
        for item, fld in mine:
            p = 1 / (1 + np.exp(-slope[(item, fld)] * (theta - difficulty[(item, fld)])))
            right = bool(rng.random() < p)
            if item == "ck-easy":
                right = True
            wrong = [1, 2, 3]
            if item == "ck-badkey":  # keyed 0, but the able pick 1
                right = bool(rng.random() < 0.5 - 0.35 * np.tanh(theta))
                value = 0 if right else (1 if theta > -0.2 else int(rng.choice([2, 3])))
            elif item == "ck-lure":  # a hard item; the able who miss it pick 3
                right = bool(rng.random() < 0.4)
                value = 0 if right else (3 if theta > 0 else int(rng.choice([1, 2])))
            else:
                value = 0 if right else int(rng.choice(wrong))
            rows.append(
                {
                    "rater": rater,
                    "item": item,
                    "field": fld,
                    "value": value,
                    "correct": int(value == 0),
                    "group": group_of[rater],
                    "kind": "model" if rater in MODELS else "human",
                }
            )
    return pd.DataFrame(rows), ability, difficulty


def cpdue_study(slug: str = "cpdue-worked") -> CPDue:
    frame, ability, difficulty = cpdue_frame()
    b = Builder(slug, description=SYNTHETIC)
    for i, g in enumerate(GROUPS):
        b.group(g, i)
    b.task("ck", "choice")
    b.task("au", "multi")
    for item in sorted(frame.loc[frame.item.str.startswith("ck"), "item"].unique()):
        options = [{"text": f"{item} 选项{j}"} for j in range(4)]
        b.item(item, "ck", {"answer": 0}, options=options)
    for i in range(N_AU):
        parts = [
            {"key": k, "prompt": k, "options": [{"text": f"{k}{j}"} for j in range(4)]}
            for k in ("person", "source")
        ]
        b.item(f"au-{i}", "au", {"person": 0, "source": 0}, parts=parts)
    for name, g in frame.drop_duplicates("rater")[["rater", "group"]].itertuples(index=False):
        if g:
            b.human(name, g)
        else:
            b.model(name)
    store(b, frame)
    return CPDue(b, frame, ability, difficulty)
