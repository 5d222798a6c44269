"""The question page's context holds every key its templates ask for, for every kind of
task, with and without refused answers: a missing key costs Django's template engine a
failed lookup (three exceptions and a ``dir()``) at each use, which on the page every
answer renders added up to about a seventh of its rendering time."""

from __future__ import annotations

from collections import Counter
from typing import Any, cast

import pytest
from django.contrib.messages.storage.fallback import FallbackStorage
from django.template import base
from django.test import RequestFactory

from annotation import selectors, services, views
from annotation.models import Assignment
from tests.volunteer.conftest import build_study, enrol

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("kind", ["choice", "multi", "best_worst", "rating"])
@pytest.mark.parametrize("refused", [False, True])
def test_the_question_page_looks_up_nothing_that_is_not_there(
    kind: str, refused: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    study = build_study(n_items=4, per_participant=2, kinds=(kind,), shuffle_options=True)
    p = enrol(study)
    claimed = services.assignment_next(participant=p)
    assert claimed is not None
    a = Assignment.objects.select_related("item", "task").get(pk=claimed.pk)
    missing: Counter[str] = Counter()
    lookup = cast(Any, base.Variable)._resolve_lookup

    def spy(self: base.Variable, context: Any) -> Any:
        try:
            return lookup(self, context)
        except base.VariableDoesNotExist:
            missing[str(self.var)] += 1
            raise

    monkeypatch.setattr(base.Variable, "_resolve_lookup", spy)
    request = RequestFactory().get(f"/s/{study.slug}/q/")
    request.session = {}  # type: ignore[assignment]
    request._messages = FallbackStorage(request)  # type: ignore[attr-defined]
    keys = [f["key"] for f in selectors.item_presentation(a, study=study)["fields"]]
    errors = {keys[0]: ["Please answer this part."]} if refused else None
    page = views._render_question(
        request, study, p, a, errors=errors, progress=selectors.Progress(answered=1, total=2)
    )
    assert page.status_code == 200
    assert missing == Counter(), missing
    html = page.content.decode()
    assert ("autofocus" in html) == refused  # the first problem, only after a refusal
