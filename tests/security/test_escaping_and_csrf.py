"""Hostile text in study files is shown escaped on every page (volunteer, researcher,
admin), and every form is protected against cross-site request forgery."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from annotation.models import Participant
from studies.loading.readers import Source
from studies.models import Item, Study
from tests.loading.helpers import loader
from tests.present import present
from tests.volunteer.pages import Volunteer

pool_load = loader("pool")
study_load = loader("study")

pytestmark = pytest.mark.django_db
EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'
ESCAPED = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"


def hostile_study(tmp_path) -> Study:
    study = {
        "slug": "evil",
        "status": "open",
        "title": "标题" + EVIL,
        "description": "说明" + EVIL,
        "consent": "同意" + EVIL,
        "groups": [{"slug": "A", "name": "组" + EVIL}],
        "screening": [
            {
                "key": "bg",
                "prompt": "背景" + EVIL,
                "options": [{"label": "甲" + EVIL, "group": "A"}, {"label": "乙", "group": "A"}],
            }
        ],
        "tasks": [
            {
                "slug": "ck",
                "title": "常识" + EVIL,
                "kind": "choice",
                "per_participant": 1,
                "instructions": "说明" + EVIL,
                "guide": [{"label": "风格" + EVIL, "description": "描述" + EVIL}],
            },
            {"slug": "au", "title": "典故" + EVIL, "kind": "multi", "per_participant": 1},
            {"slug": "oq", "title": "优劣" + EVIL, "kind": "best_worst", "per_participant": 1},
            {
                "slug": "rate",
                "title": "评分" + EVIL,
                "kind": "rating",
                "per_participant": 1,
                "dimensions": [
                    {
                        "key": "d",
                        "label": "维度" + EVIL,
                        "min": 1,
                        "max": 5,
                        "description": "解释" + EVIL,
                    }
                ],
            },
        ],
        "target_per_item": 1,
    }
    pool = [
        {
            "id": "c1",
            "task": "ck",
            "stem": "问" + EVIL,
            "options": ["甲" + EVIL, "乙" + EVIL, "丙"],
            "answer": 0,
            "poem": {"text": "春眠不觉晓" + EVIL + "\n处处闻啼鸟", "form": "shi:jueju5"},
        },
        {
            "id": "a1",
            "task": "au",
            "stem": "句" + EVIL,
            "parts": [
                {"key": "p", "prompt": "人物" + EVIL, "options": ["甲" + EVIL, "乙"], "answer": 0},
                {"key": "s", "prompt": "出处" + EVIL, "options": ["丙" + EVIL, "丁"], "answer": 1},
            ],
        },
        {
            "id": "o1",
            "task": "oq",
            "stem": "三首" + EVIL,
            "options": ["一" + EVIL, "二" + EVIL, "三" + EVIL],
        },
        {
            "id": "r1",
            "task": "rate",
            "poem": {
                "title": "题" + EVIL,
                "author": "作者" + EVIL,
                "text": "床前明月光，" + EVIL,
                "form": "ci:如梦令",
                "source": "human",
            },
        },
    ]
    (tmp_path / "s.json").write_text(json.dumps(study, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "p.jsonl").write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in pool), encoding="utf-8"
    )
    study_load(Source.from_path(tmp_path / "s.json"))
    evil = Study.objects.get(slug="evil")
    pool_load(Source.from_path(tmp_path / "p.jsonl"), study=evil)
    return evil


def assert_escaped(html: str, where: str) -> None:
    assert "<script>alert" not in html, f"raw script on {where}"
    assert "onerror=alert" not in html.replace("onerror=alert(1)&gt;", ""), (
        f"raw handler on {where}"
    )


def test_volunteer_pages_escape_every_study_text(tmp_path) -> None:
    hostile_study(tmp_path)
    v = Volunteer("evil")
    pages = {"welcome": v.client.get(v.url())}
    pages["start"] = v.consent()
    pages["screening"] = v.client.get(v.url("screening/"))
    v.screen(0)
    seen = 0
    for _ in range(12):
        page = v.question_page()
        if page.status_code == 302:
            assert page.url.endswith("/finish/"), page.url
            pages["finish"] = v.client.get(page.url)
            break
        pages[f"question-{seen}"] = page
        seen += 1
        kind, assignment, names = v.form_of(page)
        reply = v.client.post(v.url("q/"), v.answer_data(kind, assignment, names))
        if reply.status_code == 302 and reply["Location"].endswith("/finish/"):
            pages["finish"] = v.client.get(reply["Location"])
            break
    assert seen == 4 and "finish" in pages
    html_all = ""
    for name, response in pages.items():
        html = response.content.decode()
        assert_escaped(html, name)
        html_all += html
    assert ESCAPED in html_all  # the text is shown, as text


@pytest.mark.slow
def test_researcher_and_admin_pages_escape_every_study_text(tmp_path, django_user_model) -> None:
    study = hostile_study(tmp_path)
    admin = django_user_model.objects.create_superuser("root", "r@example.org", "pw")
    client = Client()
    client.force_login(admin)
    urls = [f"/research/studies/{study.pk}/", "/research/"]
    urls += [
        f"/research/poems/{i.pk}/" for i in Item.objects.filter(study=study).exclude(poem_text="")
    ]
    urls += [
        "/admin/studies/study/",
        f"/admin/studies/study/{study.pk}/change/",
        "/admin/studies/item/",
        "/admin/studies/task/",
        "/admin/studies/group/",
        "/admin/studies/screeningquestion/",
    ]
    urls += [f"/admin/studies/item/{i.pk}/change/" for i in Item.objects.filter(study=study)]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        assert_escaped(response.content.decode(), url)


FORM = re.compile(r"<form\b[^>]*method=\"post\"[^>]*>(.*?)</form>", re.S | re.I)


def test_every_post_form_carries_a_csrf_token_and_is_refused_without_it(tmp_path) -> None:
    hostile_study(tmp_path)
    v = Volunteer("evil", Client(enforce_csrf_checks=True))
    welcome = v.client.get(v.url()).content.decode()
    forms = FORM.findall(welcome)
    assert forms and all("csrfmiddlewaretoken" in f for f in forms)
    refused = Client(enforce_csrf_checks=True).post("/s/evil/", {"consent": "on"})
    assert refused.status_code == 403
    assert not Participant.objects.exists()
    token = present(re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', welcome)).group(1)
    accepted = v.client.post(v.url(), {"consent": "on", "csrfmiddlewaretoken": token})
    assert accepted.status_code == 302 and Participant.objects.count() == 1
    start = v.client.get(accepted["Location"]).content.decode()
    for page in (start, v.client.get(v.url("screening/")).content.decode()):
        assert all("csrfmiddlewaretoken" in f for f in FORM.findall(page))
