"""The ``abilities`` table's warm starts (scoring/report/abilities.py ``FitStarts``,
``scoring.report.service.IrtStarts``): with a store of each task's last fits, a fit
after a few new answers starts from them and gives the cold table's numbers within the
stopping rule's tolerance; after an item is added (another unit set) it starts cold and
gives the cold table exactly. The numbers of the cold table itself are checked against
girth and simulations in tests/agreement/ (here: warm against cold, as the issue asks;
tests/agreement/test_irt_warm.py checks the fits in standard errors)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from scoring.report import abilities
from scoring.report.abilities import PreviousFits
from scoring.report.build import build_report
from scoring.report.service import IrtStarts
from scoring.report.settings import ReportSettings
from tests.report.factory import Builder

pytestmark = [pytest.mark.django_db, pytest.mark.slow]  # several IRT tables
SETTINGS = ReportSettings(n_boot=0)
N_ITEMS, N_PEOPLE = 10, 40
#: warm against cold (the 0.01 SE check of each parameter is tests/agreement/
#: test_irt_warm.py's): abilities and log-likelihood tight; item parameters 0.02, for a
#: unit on a flat ridge (slope at its lower bound, difficulty ~3 with an SE of several)
#: moves that much within the stopping rule (seen: 0.0054 with L-BFGS-B alone; with the
#: EM phase and its guard, 2026-11-28: 0.013 in the difficulty of ck-1, b −5.8 at slope
#: 0.195, and in the slope of ck-4, 3.97, both with SEs well over 1; log L 2.1e-7 apart)
TOLERANCE = {
    "ability": 2e-3,
    "se": 2e-3,
    "loglik": 1e-4,
    "difficulty": 2e-2,
    "discrimination": 2e-2,
}


class Store(dict[str, PreviousFits]):
    """A plain in-memory ``FitStarts``."""

    def put(self, task: str, fits: PreviousFits) -> None:
        self[task] = fits


def keyed_study() -> Builder:
    """One choice task; people of varied ability answering items of varied difficulty."""
    rng = np.random.default_rng(7)
    b = Builder("warm")
    b.group("A")
    b.task("ck", "choice")
    difficulty = np.linspace(-1.5, 1.5, N_ITEMS)
    for i in range(N_ITEMS):
        b.item(f"ck-{i}", "ck", {"answer": 0})
    for j in range(N_PEOPLE):
        b.human(f"p{j}", "A")
        theta = rng.normal()
        for i in range(N_ITEMS):
            right = rng.random() < 1 / (1 + np.exp(-(theta - difficulty[i])))
            b.answer(f"p{j}", f"ck-{i}", "answer", 0 if right else 1)
    return b


def table(study: Any, starts: Any = None) -> pd.DataFrame:
    rows = build_report(study, SETTINGS, only=("abilities",), starts=starts).tables["abilities"]
    frame = pd.DataFrame([r for r in rows if r["summary"] in ("item", "rater", "fit")])
    keys = ["irt", "summary", "item", "rater"]
    return frame.sort_values(keys, na_position="first").reset_index(drop=True)


@pytest.fixture
def starts_seen(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """How each 2PL fit started: "warm" (from a kept 2PL fit) or "cold"."""
    seen: list[str] = []
    real = abilities.fit_2pl

    def recorded(matrix: Any, *, start: Any = None) -> Any:
        seen.append("warm" if start is not None and start.model == "2pl" else "cold")
        return real(matrix, start=start)

    monkeypatch.setattr(abilities, "fit_2pl", recorded)
    return seen


def test_a_few_new_answers_warm_start_and_agree_with_the_cold_table(
    starts_seen: list[str],
) -> None:
    b = keyed_study()
    store = Store()
    table(b.study, store)
    assert starts_seen == ["cold"] and set(store) == {"ck"}
    kept = store["ck"]
    b.human("late", "A")  # a new volunteer: six answers to the same units
    for i in range(6):
        b.answer("late", f"ck-{i}", "answer", i % 2)
    warm = table(b.study, store)
    assert starts_seen == ["cold", "warm"]
    assert store["ck"] is not kept and store["ck"].units == kept.units
    assert (
        store["ck"].fits["2pl"].evaluations
        < kept.fits["2pl"].evaluations + kept.fits["1pl"].evaluations
    )
    cold = table(b.study)  # no store: the CLI's way
    assert starts_seen[-1] == "cold"
    assert list(warm.columns) == list(cold.columns) and len(warm) == len(cold)
    numbers = list(TOLERANCE)
    for column in numbers:
        got, want = warm[column].to_numpy(float), cold[column].to_numpy(float)
        assert np.array_equal(np.isnan(got), np.isnan(want)), column
        assert np.nanmax(np.abs(got - want)) < TOLERANCE[column], column
    others = [c for c in cold.columns if c not in (*numbers, "aic", "bic", "infit", "outfit")]
    others = [c for c in others if not c.startswith("sx2") and c not in ("percentile",)]
    pd.testing.assert_frame_equal(warm[others], cold[others])


def test_an_item_added_starts_cold_and_gives_the_cold_table_exactly(
    starts_seen: list[str],
) -> None:
    b = keyed_study()
    store = Store()
    table(b.study, store)
    b.item("ck-new", "ck", {"answer": 0})  # another unit set
    for j in range(0, N_PEOPLE, 2):
        b.answer(f"p{j}", "ck-new", "answer", j % 3 and 1)
    with_store = table(b.study, store)
    assert starts_seen == ["cold", "cold"]
    assert len(store["ck"].units) == N_ITEMS + 1
    pd.testing.assert_frame_equal(with_store, table(b.study), check_exact=True)


def test_irt_starts_are_kept_per_study_and_task_whatever_the_data() -> None:
    b = keyed_study()
    starts = IrtStarts(b.study)
    table(b.study, starts)
    kept = starts.get("ck")
    assert kept is not None and len(kept.units) == N_ITEMS
    b.human("late", "A")  # the data move (a new fingerprint): the same key
    b.answer("late", "ck-0", "answer", 0)
    again = IrtStarts(b.study).get("ck")
    assert again is not None and again.units == kept.units
    assert np.array_equal(again.fits["2pl"].difficulty, kept.fits["2pl"].difficulty)
    assert IrtStarts(b.study).get("other") is None
