"""The cached report (``report_for``) is rebuilt when anything it reads changes."""

from __future__ import annotations

import pytest

from annotation.models import Participant
from scoring.report import ReportSettings
from scoring.report.service import report_for
from tests.report.factory import Builder

pytestmark = pytest.mark.django_db


def _flagged_row(known: Builder) -> dict[str, object]:
    report = report_for(known.study, ReportSettings(n_boot=0))
    return next(r for r in report.tables["exclusions"] if r["reason"] == "flagged participants")


@pytest.mark.slow
def test_flagging_another_participant_instead_gives_a_new_report(known: Builder) -> None:
    assert _flagged_row(known)["n_responses"] == 15  # f1's
    # As many flagged as before, but c2 (4 answers and the check) instead of f1.
    Participant.objects.filter(rater=known.raters["f1"]).update(flagged=False)
    Participant.objects.filter(rater=known.raters["c2"]).update(flagged=True)
    assert _flagged_row(known)["n_responses"] == 5


@pytest.mark.slow
def test_tables_of_the_data_alone_are_reused_across_settings(
    known: Builder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``item_analysis`` and ``abilities`` read no setting but tasks and ``by``: a
    change of confidence or resamples takes them from the cache (the IRT fits are not
    run again) with the rows a fresh build gives; a change of ``by`` or of the data
    rebuilds them."""
    from scoring.report import abilities, build_report

    calls: list[int] = []
    real = abilities.ability_rows

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(abilities, "ability_rows", counted)
    first = report_for(known.study, ReportSettings(n_boot=0))
    other = report_for(known.study, ReportSettings(n_boot=50, confidence=0.9, min_side=2))
    assert len(calls) == 1
    fresh = build_report(known.study, ReportSettings(n_boot=50, confidence=0.9, min_side=2))
    assert len(calls) == 2
    for name in ("item_analysis", "abilities"):
        # repr: NaN (an undefined discrimination) equals itself there
        assert repr(other.tables[name]) == repr(first.tables[name]) == repr(fresh.tables[name])
        assert fresh.tables[name]  # the worked study has rows in both
    assert other.tables["accuracy"] != first.tables["accuracy"]  # the intervals moved
    report_for(known.study, ReportSettings(n_boot=0, by=("source",)))  # once per source
    assert len(calls) > 2
    before = len(calls)
    Participant.objects.filter(rater=known.raters["c2"]).update(flagged=True)
    report_for(known.study, ReportSettings(n_boot=50, confidence=0.9, min_side=2))
    assert len(calls) == before + 1
