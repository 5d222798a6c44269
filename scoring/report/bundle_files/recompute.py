#!/usr/bin/env python3
"""Recompute the report's main tables from the raw export alone (the analysis bundle).

Standalone: pandas and the standard library, nothing of the platform. Reads
``responses.csv`` (the raw export, docs/codebook.md) and ``design.json`` (the study's
tasks, their kinds and keyed parts, the attention-check items, the flagged participants
and the report's settings) from the bundle's directory, applies the report's exclusions,
and writes ``recomputed/accuracy.csv`` and ``recomputed/ratings.csv``:

* ``accuracy`` (task × field × rater set): correct keyed responses / keyed responses,
  with the Wilson score interval over independent answers (the report's interval when
  its ``cluster`` setting is ``none``; its default clusters answers in people and items,
  docs/statistics.md §22, which the mixed models of mixed_models.R address); for tasks with several keyed parts (``multi``,
  ``best_worst``) the field ``*`` counts one response per (rater, item), right when
  every keyed part was answered and right;
* ``ratings`` (rating task × dimension × rater set, humans and models): the mean of the
  item means (or, with the setting ``ratings_ci = normal``, the mean over all ratings),
  the sd, and the numbers of items, raters and ratings. Intervals are left to the report
  (they need Student's t).

Rater sets: ``humans``, ``group:<slug>``, ``models``, ``model:<name>[@<run>]``,
``rule:<name>``. Usage: ``python recompute.py [BUNDLE_DIR]``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from statistics import NormalDist

import pandas as pd

TEXT = ("task", "item", "rater_kind", "rater", "run", "group", "field")
ALL_PARTS = "*"
_ESCAPED = re.compile(r"^'+[=+\-@\t\r]")


def unescape(text: str) -> str:
    """A CSV text cell as it was before the export kept it from being a formula."""
    return text[1:] if _ESCAPED.match(text) else text


def read_export(path: Path) -> pd.DataFrame:
    frame = pd.read_csv(
        path,
        encoding="utf-8-sig",
        keep_default_na=False,
        na_values={"value": [""], "correct": [""], "sample": [""], "time_ms": [""]},
        dtype={c: str for c in TEXT},
    )
    for col in TEXT:
        frame[col] = frame[col].map(unescape)
    frame["correct"] = frame["correct"].map({"true": 1.0, "false": 0.0, True: 1.0, False: 0.0})
    frame["sample"] = frame["sample"].fillna(0).astype(int)
    frame["key"] = list(zip(frame["rater_kind"], frame["rater"], frame["run"], strict=True))
    return frame


def apply_exclusions(frame: pd.DataFrame, design: dict) -> pd.DataFrame:
    """The report's exclusions: flagged participants (when the study excludes them),
    participants excluded by a researcher or by the frozen plan, attention-check items,
    model samples after the first; and only the report's tasks."""
    tasks = {t["slug"] for t in design["tasks"]}
    keep = frame["task"].isin(tasks) & (frame["sample"] == 0)
    checks = {(c["task"], c["item"]) for c in design["attention_check_items"]}
    keep &= ~pd.Series(list(zip(frame["task"], frame["item"], strict=True))).isin(checks).values
    if design["exclude_flagged"]:
        flagged = {(r["rater_kind"], r["rater"], r["run"]) for r in design["flagged_raters"]}
        keep &= ~frame["key"].isin(flagged)
    # participants a researcher excluded, and those the frozen plan's rules leave out
    whole = {(r["rater_kind"], r["rater"], r["run"]) for r in design.get("excluded_raters", [])}
    keep &= ~frame["key"].isin(whole)
    return frame.loc[keep].reset_index(drop=True)


def rater_sets(frame: pd.DataFrame, group_order: list[str]) -> list[tuple[str, str, set]]:
    """(name, kind, rater keys) of every non-empty rater set, in the report's order."""
    raters = frame.drop_duplicates("key")[["key", "rater_kind", "rater", "run", "group"]]
    out: list[tuple[str, str, set]] = []

    def add(name: str, kind: str, rows: pd.DataFrame) -> None:
        if len(rows):
            out.append((name, kind, set(rows["key"])))

    humans = raters.loc[raters["rater_kind"] == "human"]
    add("humans", "human", humans)
    extra = sorted(set(humans["group"]) - set(group_order) - {""})
    for slug in [*group_order, *extra]:
        add(f"group:{slug}", "human", humans.loc[humans["group"] == slug])
    models = raters.loc[raters["rater_kind"] == "model"]
    add("models", "model", models)
    labels = [
        f"model:{n}@{r}" if r else f"model:{n}"
        for n, r in zip(models["rater"], models["run"], strict=True)
    ]
    models = models.assign(label=labels)
    for label in sorted(set(labels)):
        add(label, "model", models.loc[models["label"] == label])
    rules = raters.loc[raters["rater_kind"] == "rule"]
    for name in sorted(set(rules["rater"])):
        add(f"rule:{name}", "rule", rules.loc[rules["rater"] == name])
    return out


def wilson(successes: int, n: int, confidence: float) -> tuple[float, float]:
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    return max(0.0, centre - half), min(1.0, centre + half)


def field_order(fields: list[str]) -> list[str]:
    first = [f for f in ("answer", "best", "worst") if f in fields]
    rest = sorted(f for f in fields if f not in first and f != ALL_PARTS)
    return first + rest + ([ALL_PARTS] if ALL_PARTS in fields else [])


def per_rater(frame: pd.DataFrame, design: dict) -> pd.DataFrame:
    keyed = frame.loc[frame["correct"].notna()]
    parts = keyed.groupby(["task", "field", "key"])["correct"].agg(successes="sum", n="count")
    parts = parts.reset_index()
    wholes = []
    for task in design["tasks"]:
        if not task["all_parts"]:
            continue
        sub = keyed.loc[keyed["task"] == task["slug"]]
        if sub.empty:
            continue
        per_item = sub.groupby(["key", "item"])["correct"].sum().reset_index()
        needed = per_item["item"].map(task["n_keyed"])
        per_item["right"] = (per_item["correct"] == needed).astype(float)
        whole = per_item.groupby("key")["right"].agg(successes="sum", n="count").reset_index()
        whole["task"], whole["field"] = task["slug"], ALL_PARTS
        wholes.append(whole)
    return pd.concat([parts, *wholes], ignore_index=True)


def accuracy(frame: pd.DataFrame, design: dict, sets: list) -> pd.DataFrame:
    rates = per_rater(frame, design)
    confidence = design["settings"]["confidence"]
    rows = []
    for task in design["tasks"]:
        here = rates.loc[rates["task"] == task["slug"]]
        for fld in field_order(sorted(set(here["field"]))):
            cell = here.loc[here["field"] == fld]
            for name, _kind, keys in sets:
                part = cell.loc[cell["key"].isin(keys)]
                if part.empty:
                    continue
                successes, n = int(part["successes"].sum()), int(part["n"].sum())
                low, high = wilson(successes, n, confidence)
                rows.append(
                    {
                        "task": task["slug"],
                        "field": fld,
                        "rater_set": name,
                        "n_raters": int(part["key"].nunique()),
                        "n_responses": n,
                        "value": successes / n,
                        "ci_low": low,
                        "ci_high": high,
                        "successes": successes,
                    }
                )
    return pd.DataFrame(rows)


def ratings(frame: pd.DataFrame, design: dict, sets: list) -> pd.DataFrame:
    over_ratings = design["settings"]["ratings_ci"] == "normal"
    rated = frame.loc[frame["value"].notna()]
    rows = []
    for task in design["tasks"]:
        if not task["rating"]:
            continue
        for dim in task["dimensions"]:
            cell = rated.loc[(rated["task"] == task["slug"]) & (rated["field"] == dim)]
            for name, kind, keys in sets:
                if kind not in ("human", "model"):
                    continue
                part = cell.loc[cell["key"].isin(keys)]
                if part.empty:
                    continue
                means = part.groupby("item")["value"].mean()
                values = part["value"] if over_ratings else means
                rows.append(
                    {
                        "task": task["slug"],
                        "field": dim,
                        "rater_set": name,
                        "n_items": int(means.size),
                        "n_raters": int(part["key"].nunique()),
                        "n_ratings": len(part),
                        "mean": float(values.mean()),
                        "sd": float(values.std(ddof=1)),
                    }
                )
    return pd.DataFrame(rows)


def main(folder: Path) -> None:
    design = json.loads((folder / "design.json").read_text(encoding="utf-8"))
    frame = apply_exclusions(read_export(folder / "responses.csv"), design)
    sets = rater_sets(frame, design["groups"])
    out = folder / "recomputed"
    out.mkdir(exist_ok=True)
    for name, table in (
        ("accuracy", accuracy(frame, design, sets)),
        ("ratings", ratings(frame, design, sets)),
    ):
        table.to_csv(out / f"{name}.csv", index=False, encoding="utf-8-sig")
        print(f"{name}: {len(table)} rows -> {out / (name + '.csv')}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent))
