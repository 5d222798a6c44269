"""The dashboard's "beyond the papers" panels (issue 15), from the report's new tables.

Item quality (the flagged parts of ``item_analysis`` with each item's text and options
a click away), one ability scale (``abilities``), best–worst rankings (``bws``), ICC
(``icc``) and planning (``scoring.report.plan``, cached like the report:
``plan_for``). Rendered by the ``{% beyond_panels study tables plan %}`` tag (research/templatetags/beyond.py) into
templates/research/_beyond.html.
"""

from __future__ import annotations

from typing import Any

from research.dashboard.labels import Labels
from research.downloads import REPORT_FORMATS
from scoring.report.plan import Goals
from scoring.report.service import plan_for
from studies.models import Item, Study

MAX_FLAGGED = 50  # flagged parts listed on the page (the table has them all)
TOP_POEMS = 3
HEADLINE_ICC = ("ICC(2,1)", "ICC(3,1)", "ICC(2,k)")
PANEL_GOALS = Goals(n_sims=100)


def _texts(study: Study, external_ids: set[str]) -> dict[tuple[str, str], dict[str, Any]]:
    rows = Item.objects.filter(study=study, external_id__in=external_ids).values(
        "pk", "external_id", "stem", "poem_text", "task__slug"
    )
    return {(r["task__slug"], r["external_id"]): dict(r) for r in rows}


def flagged_items(study: Study, tables: dict[str, Any]) -> list[dict[str, Any]]:
    """Each flagged part (people as a whole), with its stem and options' shares."""
    rows = tables.get("item_analysis", [])
    flagged = [r for r in rows if r["summary"] == "item" and r["rater_set"] == "humans"]
    flagged = [r for r in flagged if r.get("flags")][:MAX_FLAGGED]
    if not flagged:
        return []
    texts = _texts(study, {r["item"] for r in flagged})
    options: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for r in rows:
        if r["summary"] == "option" and r["rater_set"] == "humans":
            options.setdefault((r["task"], r["item"], r["field"]), []).append(r)
    out = []
    for r in flagged:
        item = texts.get((r["task"], r["item"]), {})
        out.append(
            {
                **r,
                "flag_list": r["flags"].split(","),
                "stem": item.get("stem") or item.get("poem_text") or "",
                "options": options.get((r["task"], r["item"], r["field"]), []),
            }
        )
    return out


NAMED = ("task", "field", "rater_set", "set_b", "reason", "subset")  # shown in words


def _named(
    rows: list[dict[str, Any]], labels: Labels, keys: tuple[str, ...] = NAMED
) -> list[dict[str, Any]]:
    """Rows with their task, field and rater sets named in the reader's language (the
    tables keep the codes; the page shows names, as the rest of the dashboard does)."""
    return [
        {**r, **{k: labels.value(k, r[k], r) for k in keys if r.get(k) not in (None, "")}}
        for r in rows
    ]


def panels(
    study: Study, tables: dict[str, Any], plan: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The panels' context; ``plan``: the planning rows when the page has them already
    (the dashboard builds them from the same read as its report), else from the cache."""
    return _named_panels(_panels(study, tables, plan), Labels(study))


def _named_panels(ctx: dict[str, Any], labels: Labels) -> dict[str, Any]:
    for key in ("model_percentiles", "distributions", "left_out", "spearman"):
        ctx[key] = _named(ctx[key], labels)
    for key in ("icc", "plan", "top_poems"):
        ctx[key] = _named(ctx[key], labels)
    ctx["flagged"] = _named(ctx["flagged"], labels, ("task",))  # its field is compared
    return ctx


def _panels(
    study: Study, tables: dict[str, Any], plan: list[dict[str, Any]] | None
) -> dict[str, Any]:
    abilities = tables.get("abilities", [])
    bws = tables.get("bws", [])
    poems = [r for r in bws if r["summary"] == "poem" and r["method"] == "count"]
    top: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in sorted(poems, key=lambda r: (r["task"], r["rater_set"], r["rank"])):
        best = top.setdefault((r["task"], r["rater_set"]), [])
        if len(best) < TOP_POEMS:
            best.append(r)
    return {
        "study": study,
        "flagged": flagged_items(study, tables),
        "n_flagged": sum(
            1
            for r in tables.get("item_analysis", [])
            if r["summary"] == "item" and r["rater_set"] == "humans" and r.get("flags")
        ),
        "model_percentiles": [r for r in abilities if r["summary"] == "model_percentile"],
        "distributions": [r for r in abilities if r["summary"] == "distribution"],
        "left_out": [
            r for r in abilities if r["summary"] in ("left_out", "fit") and r.get("reason")
        ],
        "spearman": [r for r in bws if r["summary"] == "spearman"],
        "top_poems": [{"task": k[0], "rater_set": k[1], "poems": v} for k, v in top.items()],
        "icc": [
            r for r in tables.get("icc", []) if r.get("form") in HEADLINE_ICC or r.get("reason")
        ],
        "plan": plan_for(study, PANEL_GOALS) if plan is None else plan,
        "goals": PANEL_GOALS,
        "report_formats": REPORT_FORMATS,
    }
