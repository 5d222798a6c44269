"""The demo study, built from the real data bundled in ``data/`` (see data/SOURCES.md)."""
