"""Per-class precision/recall/F1 and confusion matrices, recomputed with scikit-learn."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import confusion_matrix, precision_recall_fscore_support

from scoring.report import ReportSettings, build_report
from tests.report.factory import Builder

pytestmark = pytest.mark.django_db

DYNASTIES = [{"text": "唐"}, {"text": "宋"}, {"text": "元"}, {"text": "明"}]
KEYS = [0, 0, 1, 1, 2, 0, 1, 2, 0, 1]
PEOPLE = {
    "p1": [0, 1, 1, 1, 2, 0, 0, 2, 0, 1],
    "p2": [0, 0, 1, 2, 2, 1, 1, 0, 0, 1],
    "p3": [1, 0, 1, 1, 1, 0, 1, 2, 2, 1],
}
MODEL = [0, 0, 0, 1, 3, 0, 1, 1, 0, 1]  # chooses 明, never the key: precision 0/0-free, recall 0/0


def study() -> Builder:
    b = Builder("classes")
    b.group("A")
    b.task("dynasty", "choice")
    b.task("mc", "choice")
    for n, key in enumerate(KEYS):
        b.item(f"d{n}", "dynasty", {"answer": key}, options=DYNASTIES)
    # ordinary multiple choice: options differ per item, so no classes
    b.item("m0", "mc", {"answer": 0}, options=[{"text": "甲"}, {"text": "乙"}])
    b.item("m1", "mc", {"answer": 1}, options=[{"text": "丙"}, {"text": "丁"}])
    for name, chosen in PEOPLE.items():
        b.human(name, "A")
        b.answers(name, "answer", {f"d{n}": c for n, c in enumerate(chosen)})
        b.answers(name, "answer", {"m0": 0, "m1": 1})
    b.model("gpt")
    b.answers("gpt", "answer", {f"d{n}": c for n, c in enumerate(MODEL)})
    return b


def tables(b: Builder) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    report = build_report(b.study, ReportSettings(n_boot=0), only=("classes", "confusion"))
    return report.tables["classes"], report.tables["confusion"]


def same(a: object, b: float) -> bool:
    return (a is None and math.isnan(b)) or (a is not None and math.isclose(a, b, abs_tol=1e-12))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("rater_set", "chosen"),
    [
        ("humans", [c for chosen in PEOPLE.values() for c in chosen]),
        ("model:gpt", MODEL),
    ],
)
def test_per_class_measures_equal_scikit_learns(rater_set: str, chosen: list[int]) -> None:
    rows, _ = tables(study())
    mine = [r for r in rows if r["rater_set"] == rater_set and r["task"] == "dynasty"]
    truth = KEYS * (len(chosen) // len(KEYS))
    labels = [0, 1, 2, 3]
    p, r, f, s = precision_recall_fscore_support(
        truth, chosen, labels=labels, zero_division=np.nan, average=None
    )
    per = {row["class"]: row for row in mine if row["summary"] == "class"}
    for k in labels:
        assert per[k]["support"] == s[k]
        assert same(per[k]["precision"], p[k]) and same(per[k]["recall"], r[k])
        assert same(per[k]["f1"], f[k])
    assert per[3]["label"] == "明"
    for average in ("macro", "weighted"):
        want = precision_recall_fscore_support(truth, chosen, zero_division=np.nan, average=average)
        row = next(x for x in mine if x["summary"] == average)
        for got, expected in zip(
            (row["precision"], row["recall"], row["f1"]), want[:3], strict=True
        ):
            assert same(got, float(expected)), (average, got, expected)


def test_the_confusion_matrix_equals_scikit_learns() -> None:
    _, rows = tables(study())
    mine = [r for r in rows if r["rater_set"] == "model:gpt"]
    want = confusion_matrix(KEYS, MODEL, labels=[0, 1, 2, 3])  # rows: key, columns: chosen
    for row in mine:
        assert row["n"] == want[row["key"], row["chosen"]]
    assert len(mine) == 16 and sum(int(r["n"]) for r in mine) == len(KEYS)  # type: ignore[call-overload]


def test_fields_whose_options_differ_per_item_have_no_classes() -> None:
    rows, confusion = tables(study())
    assert rows and not [r for r in rows + confusion if r["task"] == "mc"]
