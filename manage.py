#!/usr/bin/env python
"""Django's command-line utility for administrative tasks.

The offline tools (``agreement``, ``prosody``) are plain Python: they run here without
loading the project's settings, so a researcher scoring their own file needs no
``SECRET_KEY`` or database. Any other command whose settings are missing or wrong stops
with the one-line reason, not a traceback.
"""

import os
import sys

OFFLINE_TOOLS = {"agreement": "scoring.agreement.cli", "prosody": "scoring.prosody.cli"}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in OFFLINE_TOOLS:
        from importlib import import_module

        tool = import_module(OFFLINE_TOOLS[sys.argv[1]])
        raise SystemExit(tool.main(sys.argv[2:], prog=f"manage.py {sys.argv[1]}"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as exc:
        print(f"manage.py: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
