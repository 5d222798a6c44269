"""The admin cannot make stored data stale: what a loaded file sets (answer keys, options,
poems, task kinds and scales, screening options, slugs) is shown read-only, with a note
that it changes by loading the corrected file again; texts and settings stay editable."""

from __future__ import annotations

import html

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Participant, Rater, Response
from studies.models import Group, Item, ScreeningQuestion, Task

pytestmark = pytest.mark.django_db
STUDY = ["--study", "poetry-understanding"]
POOL_NOTE = "由题库文件设定"
STUDY_NOTE = "由研究定义文件设定"


@pytest.fixture
def staff_client(client, django_user_model, example_study):
    user = django_user_model.objects.create_superuser("boss", "boss@example.org", "pw")
    client.force_login(user)
    return client


def change_url(obj: object) -> str:
    meta = obj._meta  # type: ignore[attr-defined]
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])  # type: ignore[attr-defined]


def test_a_post_cannot_change_an_answer_key_and_the_grades_stay_right(
    staff_client, formats_dir
) -> None:
    call_command("load_llm_outputs", str(formats_dir / "llm_outputs.jsonl"), *STUDY)
    item = Item.objects.get(external_id="ck-001")
    before = (item.answer, item.options, item.stem, item.content_hash)
    response = staff_client.post(
        change_url(item),
        {
            "position": 7,
            "answer": '{"answer": 1}',
            "options": '[{"text": "改"}]',
            "stem": "改过的题干",
            "is_attention_check": "on",
            "_save": "Save",
        },
    )
    assert response.status_code == 302  # saved: only the position was taken
    item.refresh_from_db()
    assert (item.answer, item.options, item.stem, item.content_hash) == before
    assert (item.position, item.is_attention_check) == (7, False)
    assert Response.objects.get(rater__name="gpt-4o", item=item).correct is False


def test_the_item_page_shows_the_key_and_options_readably_with_the_note(staff_client) -> None:
    item = Item.objects.get(external_id="ck-001")
    item.options = [{"text": "李白<script>x</script>"}, *item.options[1:]]
    item.save()
    page = staff_client.get(change_url(item))
    assert page.status_code == 200
    text = page.content.decode()
    assert POOL_NOTE in text and reverse("admin:upload") in text
    assert html.escape('"answer": 0') in text  # pretty-printed JSON, one key a line
    assert "李白&lt;script&gt;x&lt;/script&gt;" in text and "<script>x</script>" not in text
    for name in ("answer", "options", "parts", "stem", "poem_text", "task"):
        assert f'name="{name}"' not in text, name  # no input for what the file sets
    assert 'name="position"' in text


def test_items_tasks_and_screening_questions_are_not_added_here(staff_client) -> None:
    for model in ("item", "task", "screeningquestion"):
        assert staff_client.get(reverse(f"admin:studies_{model}_add")).status_code == 403


def test_a_task_keeps_its_kind_and_scales_and_takes_new_texts(staff_client) -> None:
    task = Task.objects.get(slug="quality")
    scales = task.dimensions
    page = staff_client.get(change_url(task))
    assert page.status_code == 200 and STUDY_NOTE in page.content.decode()
    assert html.escape('"key": "prosody"') in page.content.decode()
    guide = '[{"label": "韵律", "description": "平仄与押韵"}]'
    response = staff_client.post(
        change_url(task),
        {
            "title": "诗歌评分（新）",
            "instructions": "请逐首评分。",
            "guide": guide,
            "per_participant": 4,
            "position": task.position,
            "meta": "{}",
            "kind": "choice",
            "dimensions": '[{"key": "x", "min": 0, "max": 100}]',
            "_save": "Save",
        },
    )
    assert response.status_code == 302
    task.refresh_from_db()
    assert (task.kind, task.dimensions) == ("rating", scales)
    assert (task.title, task.per_participant) == ("诗歌评分（新）", 4)
    assert task.guide == [{"label": "韵律", "description": "平仄与押韵"}]


def test_a_guide_the_question_page_could_not_show_is_refused(staff_client) -> None:
    task = Task.objects.get(slug="ck")
    data = {"title": task.title, "instructions": "", "per_participant": 10, "position": 0}
    page = staff_client.post(change_url(task), {**data, "meta": "{}", "guide": '["只有字"]'})
    assert page.status_code == 200 and "must have a &#x27;label&#x27;" in page.content.decode()
    task.refresh_from_db()
    assert task.guide == []


def test_screening_options_and_group_slugs_are_read_only(staff_client) -> None:
    question = ScreeningQuestion.objects.get(key="education")
    options = question.options
    staff_client.post(
        change_url(question),
        {"prompt": "您的背景？", "options": '[{"label": "x", "group": "C"}]', "position": 3},
    )
    question.refresh_from_db()
    assert (question.prompt, question.options, question.position) == ("您的背景？", options, 0)
    group = Group.objects.get(study=question.study, slug="A")
    page = staff_client.get(change_url(group))
    assert page.status_code == 200 and STUDY_NOTE in page.content.decode()
    staff_client.post(
        change_url(group), {"slug": "Z", "name": "新名字", "target_per_item": 5, "position": 0}
    )
    group.refresh_from_db()
    assert (group.slug, group.name, group.target_per_item) == ("A", "新名字", 5)


def test_the_study_page_renders_with_its_groups_screening_and_tasks(
    staff_client, example_study
) -> None:
    page = staff_client.get(change_url(example_study))
    text = page.content.decode()
    assert page.status_code == 200 and STUDY_NOTE in text
    assert "文化常识" in text and "中文专业/诗词作者" in text


def test_a_raters_group_is_its_participants_in_the_rater_list(staff_client, formats_dir) -> None:
    call_command("load_responses", str(formats_dir / "responses.jsonl"), *STUDY)
    human = Rater.objects.get(kind="human")
    assert Participant.objects.get(rater=human).group.slug == "C"  # type: ignore[union-attr]
    url = reverse("admin:annotation_rater_changelist")
    page = staff_client.get(url, {"participant__group__id__exact": human.participant.group_id})
    assert page.status_code == 200
    text = page.content.decode()
    assert human.name in text and "中文专业/诗词作者" in text and "gpt-4o" not in text
    participant_page = staff_client.get(change_url(human.participant))
    assert participant_page.status_code == 200
    assert 'name="group"' not in participant_page.content.decode()
