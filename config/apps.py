"""App configs of the project itself: the admin with our site, and our deploy checks."""

from __future__ import annotations

from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig


class ShipingAdminConfig(AdminConfig):
    default_site = "config.admin.ShipingAdminSite"


class ProjectConfig(AppConfig):
    name = "config"
    label = "shiping_config"
    verbose_name = "Shiping"

    def ready(self) -> None:
        # Registering the checks is what importing the module does (Django's own way).
        from config import checks  # noqa: F401
