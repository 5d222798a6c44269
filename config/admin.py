"""The admin site: Django's, titled for Shiping, with the upload page among its URLs."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import URLPattern, URLResolver, path
from django.utils.translation import gettext_lazy as _


class ShipingAdminSite(admin.AdminSite):
    site_header = "诗评 Shiping"
    site_title = _("Shiping admin")
    index_template = "admin/shiping_index.html"

    def each_context(self, request: HttpRequest) -> dict[str, Any]:
        """Django's context, and whether the user may load a file: the upload page's links
        show only then (a researcher without that right would get a 403)."""
        from jobs.upload_rights import upload_kinds

        context = super().each_context(request)
        user = getattr(request, "user", None)
        context["may_upload"] = bool(user and user.is_authenticated and upload_kinds(user))
        return context

    def get_urls(self) -> list[URLResolver | URLPattern]:
        # The upload page lives in ``jobs`` (it can run a load as a job); config sits
        # above every app, so it may name it here.
        from jobs.upload import upload_view

        upload = path("upload/", self.admin_view(upload_view), name="upload")
        return [upload, *super().get_urls()]
