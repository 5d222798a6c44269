from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class JobsConfig(AppConfig):
    name = "jobs"
    verbose_name = _("Background jobs")

    def ready(self) -> None:
        # the researchers' pages ask for background reports through research.reports
        from jobs.reports import JobReportBackend
        from research.reports import register

        register(JobReportBackend())
