"""What the volunteer services share: the study-open rule and the random source."""

from __future__ import annotations

import random

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from studies.models import Study

rng = random.SystemRandom()


def require_open(study: Study) -> None:
    if not study.is_open:
        raise ValidationError(_("This study is closed and no longer takes answers."), "closed")
