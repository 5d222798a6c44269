"""Build the statistics report (formats.md §5) of one study."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from scoring.report.accuracy import accuracy_rows, model_vs_groups, per_rater
from scoring.report.agreement import agreement_rows
from scoring.report.correlation import correlation_rows
from scoring.report.data import aggregate_rows, study_data
from scoring.report.rules import PASS_THRESHOLD, rule_score_rows, rule_vs_rating_rows
from scoring.report.sets import rater_sets
from studies.models import Study

#: Every table of the report, in order (docs/report.md describes each).
TABLES = (
    "exclusions",
    "accuracy",
    "model_vs_groups",
    "agreement",
    "correlation",
    "rule_vs_rating",
    "rule_scores",
    "aggregates",
)
N_BOOT = 200
SEED = 20261122


@dataclass(frozen=True)
class ReportSettings:
    n_boot: int = N_BOOT
    seed: int = SEED
    confidence: float = 0.95
    pass_threshold: float = PASS_THRESHOLD


@dataclass
class Report:
    study: str
    generated_at: str
    settings: ReportSettings
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        """The report as strict-JSON data: NaN and infinities become null."""
        out: dict[str, Any] = {
            "study": self.study,
            "generated_at": self.generated_at,
            "settings": self.settings.__dict__,
        }
        for name in TABLES:
            out[name] = [{k: _clean(v) for k, v in row.items()} for row in self.tables[name]]
        return out


def _clean(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def build_report(study: Study, settings: ReportSettings | None = None) -> Report:
    """Every table of the report for ``study`` (exclusions applied and listed)."""
    opts = settings or ReportSettings()
    data = study_data(study)
    sets = rater_sets(data.raters, data.group_slugs)
    rates = per_rater(data)
    tables = {
        "exclusions": data.exclusions,
        "accuracy": accuracy_rows(data, sets, rates, confidence=opts.confidence),
        "model_vs_groups": model_vs_groups(data, sets, rates),
        "agreement": agreement_rows(
            data, sets, n_boot=opts.n_boot, seed=opts.seed, confidence=opts.confidence
        ),
        "correlation": correlation_rows(data, sets),
        "rule_vs_rating": rule_vs_rating_rows(
            data,
            sets,
            threshold=opts.pass_threshold,
            n_boot=opts.n_boot,
            seed=opts.seed,
            confidence=opts.confidence,
        ),
        "rule_scores": rule_score_rows(data, sets),
        "aggregates": aggregate_rows(study),
    }
    now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return Report(study=study.slug, generated_at=now, settings=opts, tables=tables)
