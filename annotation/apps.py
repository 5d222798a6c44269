from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = _("Annotation")

    def ready(self) -> None:
        from annotation import receivers  # noqa: F401  (connects the signal handlers)
