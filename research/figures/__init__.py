"""Figures for print and for the dashboard from one chart spec per chart (issue 24 item 2):
``spec`` (what is drawn), ``svg`` (the dashboard's fast SVG), ``printed`` (PDF and SVG at
journal column widths with the CJK font embedded), ``registry`` (the chart names)."""
