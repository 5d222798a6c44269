"""The admin in Chinese first: every model and field of the project has a verbose name
through gettext with a zh-Hans translation, so lists, pages and filters read in Chinese
(issue 14, item 8)."""

from __future__ import annotations

import re

import pytest
from django.apps import apps
from django.urls import reverse
from django.utils import translation

from annotation.models import Participant
from tests.app.admin_world import World, world_build

pytestmark = pytest.mark.django_db
APPS = ("studies", "annotation", "jobs")
SAME_IN_CHINESE = {"n", "SHA-256"}  # a statistic's symbol, a hash's name
CJK = re.compile(r"[\u4e00-\u9fff]")


def untranslated(text: object) -> bool:
    return str(text) not in SAME_IN_CHINESE and not CJK.search(str(text))


def test_every_model_and_field_has_a_chinese_name() -> None:
    missing = []
    with translation.override("zh-hans"):
        for label in APPS:
            config = apps.get_app_config(label)
            if untranslated(config.verbose_name):
                missing.append(label)
            for model in config.get_models():
                meta = model._meta
                for name in (meta.verbose_name, meta.verbose_name_plural):
                    if untranslated(name):
                        missing.append(f"{meta.label}: {name}")
                missing += [
                    f"{meta.label}.{f.name}: {f.verbose_name}"
                    for f in meta.get_fields()
                    if hasattr(f, "verbose_name") and not f.auto_created
                    if untranslated(f.verbose_name)
                ]
    assert missing == []


@pytest.fixture
def world() -> World:
    return world_build()


def test_the_admin_index_and_pages_name_models_and_fields_in_chinese(world: World, client) -> None:
    client.force_login(world.users["superuser"])
    index = client.get(reverse("admin:index")).content.decode()
    for english in ("Participants", "Responses", "Jobs", "Items", "Raters", "Import logs"):
        assert f">{english}<" not in index, english
    for chinese in ("参与者", "回答", "后台作业", "题目", "评分者", "导入记录", "模型名称"):
        assert chinese in index, chinese
    person = Participant.objects.filter(study=world.a).first()
    page = client.get(reverse("admin:annotation_participant_change", args=[person.pk]))  # type: ignore[union-attr]
    text = page.content.decode()
    assert "续答码" in text and "参与途径" in text and "Resume code" not in text
