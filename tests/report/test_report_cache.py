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


def test_flagging_another_participant_instead_gives_a_new_report(known: Builder) -> None:
    assert _flagged_row(known)["n_responses"] == 15  # f1's
    # As many flagged as before, but c2 (4 answers and the check) instead of f1.
    Participant.objects.filter(rater=known.raters["f1"]).update(flagged=False)
    Participant.objects.filter(rater=known.raters["c2"]).update(flagged=True)
    assert _flagged_row(known)["n_responses"] == 5
