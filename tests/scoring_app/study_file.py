"""A study file written to disk and loaded with ``manage.py load_study``, as a researcher
would, for the tests of the study settings that reach the rule raters."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management import CommandError, call_command
from django.utils import translation


def load_study_text(tmp_path: Path, text: str) -> str:
    """Load ``text`` as ``study.yaml``: '' when it loads, else the command's message
    (the file named ``study.yaml``), in the site's language."""
    path = tmp_path / "study.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        with translation.override(settings.LANGUAGE_CODE):
            call_command("load_study", str(path))
    except CommandError as exc:
        return str(exc).replace(str(path), "study.yaml")
    return ""
