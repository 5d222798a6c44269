"""The statistics report of a study (formats.md §5; docs/report.md).

``build_report(study, settings)`` reads the study's responses once (``data``), names the
rater sets (``sets``), splits by item provenance when asked (``splits``) and builds the
tables listed in ``build.TABLES`` (one module each, through ``tables``), with the
``exclusions`` applied and the published ``aggregates`` listed beside. Statistics come
from the pure ``scoring.agreement`` package; settings from ``settings``.
"""

from scoring.report.build import TABLES, Report, build_report
from scoring.report.settings import (
    BY_KEYS,
    N_BOOT,
    SEED,
    ReportSettings,
    SettingsError,
    settings_from,
)

__all__ = [
    "BY_KEYS",
    "N_BOOT",
    "SEED",
    "TABLES",
    "Report",
    "ReportSettings",
    "SettingsError",
    "build_report",
    "settings_from",
]
