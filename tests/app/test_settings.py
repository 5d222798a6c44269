"""Settings come from the environment, with safe defaults and loud failures."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_settings(env: dict[str, str], expr: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DEBUG", "TESTING", "SECRET_KEY", "DATABASE_URL", "DJANGO_SETTINGS_MODULE"}
    }
    code = f"import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; from django.conf import settings; print({expr})"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_missing_secret_key_outside_debug_fails_with_a_clear_message() -> None:
    result = run_settings({}, "settings.DEBUG")
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_debug_is_off_unless_asked() -> None:
    result = run_settings(
        {"SECRET_KEY": "x" * 50}, "settings.DEBUG, settings.SESSION_COOKIE_SECURE"
    )
    assert result.stdout.strip() == "False True"


def test_database_url_selects_postgresql() -> None:
    result = run_settings(
        {"SECRET_KEY": "x" * 50, "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/test"},
        "settings.DATABASES['default']['ENGINE'], settings.DATABASES['default']['NAME']",
    )
    assert result.stdout.strip() == "django.db.backends.postgresql test"


def test_default_database_is_sqlite_in_the_data_directory(tmp_path) -> None:
    result = run_settings(
        {"DEBUG": "1", "DATA_DIR": str(tmp_path)}, "settings.DATABASES['default']['NAME']"
    )
    assert result.stdout.strip() == str(tmp_path / "db.sqlite3")


def test_bad_boolean_is_refused() -> None:
    result = run_settings({"DEBUG": "maybe"}, "settings.DEBUG")
    assert result.returncode != 0 and "DEBUG='maybe' is not a boolean" in result.stderr


def test_language_defaults_to_simplified_chinese_with_english() -> None:
    result = run_settings(
        {"DEBUG": "1"}, "settings.LANGUAGE_CODE, [c for c, _ in settings.LANGUAGES]"
    )
    assert result.stdout.strip() == "zh-hans ['zh-hans', 'en']"
