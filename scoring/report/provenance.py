"""Where a report came from (docs/report.md §"Provenance"): enough to rebuild it.

* ``data_fingerprint``: the report cache's fingerprint of everything the report reads
  (``scoring.report.service.fingerprint``): the same data give the same fingerprint;
* ``commit``: the platform's git commit (``git rev-parse HEAD`` in the project's
  directory; else the environment variable ``SHIPING_COMMIT``, which a deployment
  without ``.git`` sets; else ``"unknown"``) and ``commit_source`` saying which;
* ``rules_version``: ``scoring.prosody.RULES_VERSION`` (the rule raters' version);
* ``python`` and ``packages``: the interpreter's and the key statistics packages'
  versions (``importlib.metadata``; None when a package is not installed);
* ``loads``: every file loaded into the study (``studies.ImportLog``): kind, file name,
  the SHA-256 of its content, rows, what it created/updated, and when;
* ``plan``: the newest frozen analysis plan's SHA-256, when it was frozen and after how
  many answers, and how many plans the study has had (``scoring.report.prereg``); None
  without one.
"""

from __future__ import annotations

import os
import platform
import subprocess
from functools import lru_cache
from importlib import metadata
from typing import Any

from django.conf import settings

from scoring.prosody import RULES_VERSION
from scoring.report.prereg import plan_summary
from studies.models import ImportLog, Study

PACKAGES = (
    "django",
    "numpy",
    "scipy",
    "pandas",
    "statsmodels",
    "pypinyin",
    "opencc",
    "choix",
)
COMMIT_ENV = "SHIPING_COMMIT"


@lru_cache(maxsize=1)
def _git_commit() -> str | None:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=settings.BASE_DIR,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else None


def platform_commit() -> tuple[str, str]:
    """(commit, where it came from: ``git``, ``env`` or ``unknown``)."""
    if commit := _git_commit():
        return commit, "git"
    if commit := os.environ.get(COMMIT_ENV, "").strip():
        return commit, "env"
    return "unknown", "unknown"


def package_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def loads(study: Study) -> list[dict[str, Any]]:
    """The files loaded into ``study``, oldest first, with their content hashes."""
    rows = ImportLog.objects.filter(study=study).order_by("at", "pk")
    return [
        {
            "kind": log.kind,
            "filename": log.filename,
            "sha256": log.sha256,
            "rows": log.rows,
            "created": log.created,
            "updated": log.updated,
            "unchanged": log.unchanged,
            "at": log.at.isoformat().replace("+00:00", "Z"),
        }
        for log in rows
    ]


def provenance(study: Study, fp: str | None = None) -> dict[str, Any]:
    """The report's ``provenance`` object (module docstring); ``fp``: the study's data
    fingerprint when the caller has just computed it."""
    from scoring.report.service import fingerprint  # service imports the report builder

    commit, source = platform_commit()
    return {
        "data_fingerprint": fp or fingerprint(study),
        "commit": commit,
        "commit_source": source,
        "rules_version": RULES_VERSION,
        "python": platform.python_version(),
        "packages": package_versions(),
        "loads": loads(study),
        "plan": plan_summary(study),
    }
