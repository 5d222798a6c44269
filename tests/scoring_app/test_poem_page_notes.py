"""The poem page says why a structure or a couplet's ending fails (issue 22, item 9)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from studies.models import Item

pytestmark = pytest.mark.django_db


def _page_notes(client, django_user_model, study, text: str, form: str):
    task = study.tasks.get(slug="quality")
    item = Item.objects.create(
        study=study, task=task, external_id=f"n-{form}", poem_text=text, poem_form=form
    )
    user, _ = django_user_model.objects.get_or_create(username="r")
    study.researchers.add(user)
    client.force_login(user)
    page = client.get(reverse("research:poem", args=[item.pk]))
    assert page.status_code == 200
    return [(n["where"], n["what"]) for n in page.context["notes"]]


def test_a_failed_ci_structure_and_a_failed_couplet_ending_are_noted(
    example_study,
    client,
    django_user_model,
) -> None:
    ci = _page_notes(
        client,
        django_user_model,
        example_study,
        "常记溪亭日暮，沉醉不知归路。兴尽晚回舟，误入藕花深处。争渡，争渡，惊起一滩鸥。",
        "ci:如梦令",
    )
    assert any(w in ("结构", "structure") and "longyusheng:0" in what for w, what in ci)
    assert ("第 7 句", "句子过短：5 字，词谱为 6 字") in ci or (
        "line 7",
        "line too short: 5 characters where the form has 6",
    ) in ci
    couplet = _page_notes(
        client, django_user_model, example_study, "天涯若比邻\n海内存知己", "couplet"
    )
    whats = [what for _, what in couplet]
    assert any("上联仄收" in w for w in whats) and any("下联平收" in w for w in whats)


def test_a_gu_ti_poem_given_as_jueju_is_flagged(
    example_study,
    client,
    django_user_model,
) -> None:
    notes = _page_notes(
        client,
        django_user_model,
        example_study,
        "千山鸟飞绝，万径人踪灭。孤舟蓑笠翁，独钓寒江雪。",
        "shi:jueju5",
    )
    assert any("古体" in what and "近体" in what for _, what in notes)
    assert not any("失" in what or "孤平" in what for _, what in notes)
