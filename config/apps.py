"""App configs of the project itself: the admin with our site, django-axes under a
translated name, and our deploy checks."""

from __future__ import annotations

from axes.apps import AppConfig as AxesAppConfig
from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig
from django.utils.translation import gettext_lazy as _


class ShipingAdminConfig(AdminConfig):
    default_site = "config.admin.ShipingAdminSite"


class AxesConfig(AxesAppConfig):
    """django-axes (the admin login's throttle) with a verbose name through gettext: axes
    has none (the admin's menu showed "Axes") and no zh-Hans catalog; its models' and
    fields' msgids are translated in the project's django.po (LOCALE_PATHS come first in
    Django's lookup)."""

    verbose_name = _("Login throttle")


class ProjectConfig(AppConfig):
    name = "config"
    label = "shiping_config"
    verbose_name = "Shiping"

    def ready(self) -> None:
        # Registering the checks is what importing the module does (Django's own way).
        from config import checks  # noqa: F401
