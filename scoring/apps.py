from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("Scoring")

    def ready(self) -> None:
        import config.checks  # noqa: F401  (deployment checks: no state in a worker)
        from scoring import rules  # noqa: F401  (connects rule scoring to item loads)
        from scoring.jobs import admin as _jobs_admin  # noqa: F401  (the jobs' admin)
        from scoring.jobs import upload as _upload  # noqa: F401  (the admin's upload page)
        from scoring.jobs.services import command_submit
        from studies import background

        background.register(command_submit)
