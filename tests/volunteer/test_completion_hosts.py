"""A study's completion_url can only send finishing volunteers to a recruiting host this
site allows (COMPLETION_HOSTS), fixed when the study is loaded: placeholders stand in the
path and query only. Before, ``https://app.prolific.com{pid}/done`` with ``?pid=.evil.example``
sent a finisher to ``app.prolific.com.evil.example``."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.test import override_settings
from django.utils import translation

from studies.loading.problems import LoadError
from studies.loading.readers import Source
from studies.models import Study, validate_completion_url
from studies.recruitment import completion_problem, host_allowed
from tests.loading.helpers import loader
from tests.volunteer.conftest import build_study
from tests.volunteer.pages import Volunteer

pytestmark = pytest.mark.django_db
GOOD = "https://app.prolific.com/submissions/complete?cc={code}&p={PROLIFIC_PID}"


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("https://app.prolific.com{pid}/done?cc={code}", "never in the host"),
        ("https://{pid}/done", "never in the host"),
        ("https://app.prolific.com:{pid}/done", "never in the host"),
        ("https://app.prolific.com@evil.example/done", "user or password"),
        ("https://evil.example/done?cc={code}", "'evil.example', which is not a recruiting host"),
        ("https://app.prolific.com.evil.example/", "not a recruiting host"),
        ("https://app.prolific.com/done#{code}", "never in the host"),
        # a browser reads a backslash as a slash: the host would be evil.example
        ("https://evil.example\\.x.qualtrics.com/done?c={code}", "not a valid address"),
        ("https://evil.example%2F.x.qualtrics.com/done", "not a valid address"),
        ("https://evil.example;.x.qualtrics.com/done", "not a valid address"),
    ],
)
def test_a_placeholder_outside_path_and_query_or_a_foreign_host_is_refused(
    url: str, says: str
) -> None:
    problem = completion_problem(url)
    assert problem is not None
    with translation.override("en"):  # the message is translated (zh-Hans in the admin)
        assert says in str(problem)
    with pytest.raises(ValidationError):
        validate_completion_url(url)


def test_the_allowed_hosts_and_their_placeholders_pass() -> None:
    assert completion_problem(GOOD) is None
    assert completion_problem("https://app.prolific.com/{pid}/x?s={STUDY_ID}") is None
    assert completion_problem("https://mysite.qualtrics.com/jfe/form/x?c={code}") is None
    assert host_allowed("APP.PROLIFIC.COM.") and not host_allowed("prolific.com.evil")


def test_a_study_file_with_a_placeholder_in_the_host_is_refused_at_load() -> None:
    text = (
        '{"slug": "s2", "title": "t", "groups": [{"slug": "A", "name": "A"}],'
        ' "tasks": [{"slug": "t", "title": "t", "kind": "choice"}],'
        ' "settings": {"completion_url": "https://app.prolific.com{pid}/x"}}'
    )
    with pytest.raises(LoadError, match="never in the host"):
        loader("study")(Source("study.json", text.encode(), "json"))
    assert not Study.objects.filter(slug="s2").exists()


@override_settings(COMPLETION_HOSTS=["surveys.example.org"])
def test_the_setting_decides_and_the_finish_page_never_redirects_elsewhere() -> None:
    assert completion_problem("https://surveys.example.org/done?c={code}") is None
    assert completion_problem(GOOD) is not None
    # a study stored before its host was refused: the code is shown, nobody redirected
    build_study(completion_url=GOOD)
    v = Volunteer("s")
    v.consent(entry="/s/s/?pid=.evil.example")
    v.screen()
    html = v.complete().content.decode()
    assert "http-equiv" not in html and "completion-link" not in html
