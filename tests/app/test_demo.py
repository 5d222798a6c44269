"""The demo study is built from the bundled real data, and loading it twice changes nothing."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from annotation.models import AggregateResult, Response
from studies.models import Item, Study
from tests.loading.helpers import snapshot
from tests.present import present

pytestmark = pytest.mark.django_db


@pytest.mark.slow
def test_demo_loads_real_questions_of_every_kind_and_published_results(settings, capsys) -> None:
    call_command("demo", "--no-users")
    out = capsys.readouterr().out
    study = Study.objects.get(slug="song-ci-demo")
    assert "Volunteer link:   http://127.0.0.1:8000/s/song-ci-demo/" in out
    kinds = {t.slug: t.kind for t in study.tasks.all()}
    assert kinds == {
        "cipai": "choice",
        "fill": "choice",
        "ident": "multi",
        "best3": "best_worst",
        "rate": "rating",
    }
    # Every question comes from a real Song ci of the bundled corpus.
    corpus = {}
    with (settings.BASE_DIR / "data/corpus/song_ci_30cipai.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            poem = json.loads(line)
            corpus[poem["id"]] = poem
    for item in Item.objects.filter(study=study, task__slug="cipai", is_attention_check=False):
        source = corpus[item.meta["source_id"]]
        assert item.poem_text == "\n".join(source["paragraphs"])
        assert item.options[present(item.answer)["answer"]]["text"] in (
            source["cipai"],
            "贺新郎",
            "望江南",
        )
    for item in Item.objects.filter(study=study, task__slug="fill"):
        source = corpus[item.meta["source_id"]]
        right = item.options[present(item.answer)["answer"]]["text"]
        assert right in source["text"] and "□" * len(right) in item.poem_text
        assert all(len(o["text"]) == len(right) for o in item.options)
    rate = study.tasks.get(slug="rate")
    assert [d["key"] for d in rate.dimensions] == [
        "prosody",
        "theme",
        "emotion",
        "imagery",
        "language",
        "informativeness",
        "aesthetic",
    ]
    # Published results are aggregates, not responses.
    gpt = AggregateResult.objects.get(
        study=study, model="gpt-4o", task="CiG", metric="accuracy", run="zero-shot"
    )
    assert (gpt.value, gpt.n) == (0.5533, 300)
    assert (
        AggregateResult.objects.get(study=study, model="gpt-4o", task="CiG", run="5-shot").value
        == 0.5333
    )
    assert not Response.objects.filter(study=study, rater__kind="model").exists()


@pytest.mark.slow
def test_demo_twice_changes_nothing() -> None:
    call_command("demo", "--no-users")
    before = snapshot()
    call_command("demo", "--no-users")
    assert snapshot() == before


def test_demo_says_what_it_did_and_leaves_no_poem_unscored(client, capsys) -> None:
    from django.contrib.auth import get_user_model

    from scoring.rules import unscored_poem_count

    call_command("demo")
    out = capsys.readouterr().out
    assert "is a draft" not in out  # it opens the study: the loader's draft note is dropped
    assert "Opened the study 'song-ci-demo' to volunteers; poems rule-scored." in out
    study = Study.objects.get(slug="song-ci-demo")
    # The fill-the-line items hold masked poems (□): questions, not poems to score; the
    # count and the scoring agree on that (scoring.rules.scorable_poems).
    assert Item.objects.filter(study=study, poem_text__contains="□").exists()
    assert unscored_poem_count(study) == 0
    call_command("score_poems", study.slug)
    assert unscored_poem_count(study) == 0
    client.force_login(get_user_model().objects.get(username="researcher"))
    page = client.get(f"/research/studies/{study.pk}/")
    assert page.status_code == 200
    assert 'id="unscored"' not in page.content.decode()


@pytest.mark.slow
def test_every_attention_check_of_the_demo_shows_the_poem_its_instructions_refer_to() -> None:
    """The cipai task's instructions say "read the poem below": its attention check showed
    the instruction with no poem (the demo's item had none). Every check item of a task
    whose instructions refer to a poem carries one, and the volunteer's page shows it."""
    import re

    from tests.volunteer.pages import Volunteer

    call_command("demo", "--no-users")
    study = Study.objects.get(slug="song-ci-demo")
    checks = list(Item.objects.filter(study=study, is_attention_check=True).select_related("task"))
    assert checks
    refers = [c for c in checks if "下面这首" in c.task.instructions]
    assert refers, "the demo's check items are in a task that shows poems"
    for check in refers:
        assert check.poem_text.strip(), check.external_id
        # Like the task's other items: not a tune among the options (no competing answer).
        assert check.options[present(check.answer)["answer"]]["text"] == "浣溪沙"
    # The page a volunteer sees: drive one through the flow to the check item.
    volunteer = Volunteer(study.slug)
    volunteer.consent()
    screened = volunteer.client.post(volunteer.url("screening/"), {"q-education": "0"})
    assert screened.status_code == 302
    seen: dict[str, str] = {}
    for _ in range(60):
        page = volunteer.question_page()
        if page.status_code == 302:
            break
        html = page.content.decode()
        for check in refers:
            if check.stem in html:
                seen[check.external_id] = html
        volunteer.answer_current()
    assert set(seen) == {c.external_id for c in refers}
    for check in refers:
        html = seen[check.external_id]
        text = re.sub(r"<[^>]+>", "", html)
        assert "阅读下面这首宋词" in text
        for line in check.poem_text.splitlines():
            assert line.strip() in text, line
