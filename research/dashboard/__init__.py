"""The researcher dashboard (/research/): progress, tables, SVG charts and downloads."""
