"""The project's documentation (docs/*.md) inside the app, for any logged-in user (like
the study list: the documents hold no study's data; a volunteer has no login).

Markdown is rendered by markdown-it-py's ``js-default`` preset: raw HTML in a document is
shown as text, never passed through, and ``javascript:``/``data:`` links are refused
(the preset's link validation). Links between documents (``report.md#ratings``) point to
these pages; headings get GitHub-style ids so such anchors land. On a narrow screen a
table scrolls inside its own region (focusable, named after the heading above it) and a
code block scrolls by itself (focusable), so the page never scrolls sideways.
"""

from __future__ import annotations

import re
from functools import cache
from html import escape
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML

NAME = re.compile(r"^[a-z][a-z0-9-]*$")
LINK = re.compile(r"^(?P<name>[a-z][a-z0-9-]*)\.md(?P<anchor>#[^\s]*)?$")


def docs_dir() -> Path:
    return Path(settings.BASE_DIR) / "docs"


def available() -> list[str]:
    return sorted(p.stem for p in docs_dir().glob("*.md") if NAME.match(p.stem))


def slug(text: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def _renderer() -> MarkdownIt:
    md = MarkdownIt("js-default").enable("table")

    def heading_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        inline = tokens[idx + 1]
        tokens[idx].attrSet("id", slug(inline.content))
        words = (t.content for t in inline.children or () if t.type in ("text", "code_inline"))
        env["heading"], env["tables"] = "".join(words).strip(), 0
        return self.renderToken(tokens, idx, options, env)

    def table_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        # Named after the heading above it, numbered when a heading has several tables:
        # region landmarks must have distinct names.
        env["tables"] = env.get("tables", 0) + 1
        name = env.get("heading") or "table"
        if env["tables"] > 1:
            name = f"{name} ({env['tables']})"
        box = f'<div class="table-scroll" tabindex="0" role="region" aria-label="{escape(name)}">'
        return box + self.renderToken(tokens, idx, options, env)

    def table_close(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        return self.renderToken(tokens, idx, options, env) + "</div>\n"

    def scrolling(rule: Any) -> Any:
        """A code block's own rule, its <pre> made focusable: it scrolls sideways."""

        def render(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
            html = str(rule(self, tokens, idx, options, env))
            return html.replace("<pre>", '<pre tabindex="0">', 1)

        return render

    def link_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        href = str(tokens[idx].attrGet("href") or "")
        match = LINK.match(href.removeprefix("./").removeprefix("docs/"))
        if match and match["name"] in env.get("names", ()):
            url = reverse("research:doc", args=[match["name"]]) + (match["anchor"] or "")
            tokens[idx].attrSet("href", url)
        return self.renderToken(tokens, idx, options, env)

    def th_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        if not tokens[idx + 1].content.strip():  # an empty header cell is no header
            tokens[idx].tag = tokens[idx + 2].tag = "td"
        return self.renderToken(tokens, idx, options, env)

    md.add_render_rule("th_open", th_open)
    md.add_render_rule("table_open", table_open)
    md.add_render_rule("table_close", table_close)
    md.add_render_rule("fence", scrolling(RendererHTML.fence))
    md.add_render_rule("code_block", scrolling(RendererHTML.code_block))
    md.add_render_rule("heading_open", heading_open)
    md.add_render_rule("link_open", link_open)
    return md


@cache
def _md() -> MarkdownIt:
    return _renderer()


def render_doc(name: str) -> tuple[str, str]:
    """(title, HTML) of docs/<name>.md; ``Http404`` for any other name."""
    names = available()
    if name not in names:
        raise Http404("No such document")
    text = (docs_dir() / f"{name}.md").read_text(encoding="utf-8")
    first = next((line for line in text.splitlines() if line.startswith("# ")), name)
    return first.lstrip("# ").strip(), _md().render(text, {"names": names})


@login_required
def doc(request: HttpRequest, name: str) -> HttpResponse:
    title, html = render_doc(name)
    return render(
        request,
        "research/doc.html",
        {"title": title, "body": mark_safe(html), "names": available(), "name": name},
    )


@login_required
def doc_index(request: HttpRequest) -> HttpResponse:
    return doc(request, "report")
