"""The statistics report of a study (formats.md §5; docs/report.md).

``build_report(study)`` reads the study's responses once (``data``), names the rater
sets (``sets``) and builds the tables: ``accuracy`` and ``model_vs_groups``
(``accuracy``), ``agreement``, ``correlation``, ``rule_vs_rating`` and ``rule_scores``
(``rules``), with the ``exclusions`` applied and the published ``aggregates`` listed
beside. Statistics come from the pure ``scoring.agreement`` package.
"""

from scoring.report.build import N_BOOT, SEED, TABLES, Report, ReportSettings, build_report

__all__ = ["N_BOOT", "SEED", "TABLES", "Report", "ReportSettings", "build_report"]
