"""Recruiting: a study's links with their QR codes (how Chinese studies are shared: a
WeChat group, a poster, a class's slides), on the dashboard and as a printable page.

The QR codes are SVG drawn here by segno (no service, nothing leaves the server). A
link is the public one (screening places the volunteer) or a group's invitation.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import segno
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from annotation.selectors import study_outline
from research.access import study_for
from studies.models import Study

PUBLIC = "public"


@dataclass(frozen=True)
class RecruitLink:
    key: str  # "public", or "group-<slug>"
    label: str
    url: str

    def qr_svg(self, *, scale: int = 4) -> SafeString:
        """The link as a QR code (inline SVG, medium error correction: survives a crease
        or a smudge on a poster), sized by its container."""
        svg = _qr_inline(self.url, scale)
        name = escape(_("QR code of the link %(url)s") % {"url": self.url})
        return mark_safe(svg.replace("<svg ", f'<svg role="img" aria-label="{name}" ', 1))


@functools.lru_cache(maxsize=256)
def _qr_inline(url: str, scale: int) -> str:
    """The QR code's SVG of ``url``: the same for the same link, so drawn once per process
    (four codes took 0.2 s of every dashboard view)."""
    return str(segno.make(url, error="m").svg_inline(scale=scale, border=4, omitsize=True))


def recruit_links(request: HttpRequest, study: Study) -> list[RecruitLink]:
    """The study's public link, then each group's invitation, as absolute addresses."""

    def absolute(name: str, *args: str) -> str:
        return request.build_absolute_uri(reverse(name, args=args))

    links = [RecruitLink(PUBLIC, _("Public link"), absolute("volunteer:welcome", study.slug))]
    for group in study.groups.all():
        url = absolute("volunteer:invite", study.slug, group.invite_token)
        label = _("Invitation for group %(group)s") % {"group": f"{group.slug} {group.name}"}
        links.append(RecruitLink(f"group-{group.slug}", label, url))
    return links


@login_required
def recruit_print(request: HttpRequest, study_id: int, key: str) -> HttpResponse:
    """One link as a page to print (a poster, a slide): the title, the QR code, the
    address, the number of questions and the time."""
    study = study_for(request.user, study_id)
    link = next((k for k in recruit_links(request, study) if k.key == key), None)
    if link is None:
        raise Http404("No such link")
    context = {"study": study, "link": link, "qr": link.qr_svg(scale=8)}
    context["outline"] = study_outline(study)
    return render(request, "research/recruit_print.html", context)
