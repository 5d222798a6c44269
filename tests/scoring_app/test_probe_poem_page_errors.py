"""Probe (issue 22): the poem page says why a poem could not be scored in the reader's
language.  It printed the scorer's English error (``unknown cipai '夜合花'``,
``no Chinese characters in the text``) on the Chinese page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from research.poems import readable_error
from studies.models import Item

pytestmark = pytest.mark.django_db

CASES = [
    (
        "柳暝河桥，莺晴台苑，短策频惹春香。",
        "ci:夜合花",
        "未知词牌：夜合花",
        "unknown tune (词牌): 夜合花",
    ),
    ("🌙🌙🌙", "", "文本中没有汉字", "no Chinese characters in the text"),
    (
        "山寺钟声出翠微，一溪流水送春归。行人莫问来时路途，满地桃花带雨飞。",
        "",
        "未给出体裁，也无法识别（4 句，各句字数 7, 7, 8, 7）",
        "no form given, and none recognised (4 lines, of 7, 7, 8, 7 characters)",
    ),
    ("床前明月光，疑是地上霜。", "shi:qiyan", "未知体裁：shi:qiyan", "unknown form: shi:qiyan"),
]


@pytest.mark.parametrize(("text", "form", "zh", "en"), CASES)
def test_the_error_is_said_in_the_page_language(
    example_study, client, django_user_model, text: str, form: str, zh: str, en: str
) -> None:
    task = example_study.tasks.get(slug="quality")
    item = Item.objects.create(
        study=example_study, task=task, external_id="e", poem_text=text, poem_form=form
    )
    user, _ = django_user_model.objects.get_or_create(username="r")
    example_study.researchers.add(user)
    client.force_login(user)
    url = reverse("research:poem", args=[item.pk])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert page.status_code == 200 and page.context["error"] == zh
    assert zh in page.content.decode()
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert page.context["error"] == en


def test_an_unknown_error_is_shown_as_the_scorer_says_it() -> None:
    assert readable_error({"error": "something new"}) == "something new"
    assert readable_error({}) is None


def test_a_sibling_tune_and_extra_lines_are_said_plainly(
    example_study, client, django_user_model
) -> None:
    # 欧阳修《浪淘沙》 is the 54-character 浪淘沙令; every 浪淘沙 template is the 28-character
    # one.  The page printed the sibling as a Python dict ({'cipai': '浪淘沙令', …}) and each
    # line the form lacks as "5 字，词谱为 0 字"
    text = (
        "把酒祝东风。且共从容。垂杨紫陌洛城东。总是当时携手处，游遍芳丛。"
        "聚散苦匆匆。此恨无穷。今年花胜去年红。可惜明年花更好，知与谁同。"
    )
    task = example_study.tasks.get(slug="quality")
    item = Item.objects.create(
        study=example_study, task=task, external_id="s", poem_text=text, poem_form="ci:浪淘沙"
    )
    user, _ = django_user_model.objects.get_or_create(username="r")
    example_study.researchers.add(user)
    client.force_login(user)
    page = client.get(reverse("research:poem", args=[item.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans")
    html = page.content.decode()
    assert "与同源词牌相合: 浪淘沙令 (couyun:0)" in html
    assert "{&#x27;cipai&#x27;" not in html
    notes = [(n["where"], n["what"]) for n in page.context["notes"]]
    assert ("第 1 句", "词谱无此句（5 字）") in notes
    assert not any("词谱为 0 字" in what for _, what in notes)


# every kind of 古体 reason the scorer gives, from real poems (and one made-up shape)
GU_TI_TEXTS = [
    "床前明月光，疑是地上霜。举头望明月，低头思故乡。",  # 粘对 broken
    "久为簪组累，幸此南夷谪。闲依农圃邻，偶似山林客。晓耕翻露草，夜榜响溪石。来往不逢人，长歌楚天碧。",  # 仄韵 rhyme lines
    "北山白云里，隐者自怡悦。相望试登高，心飞逐鸟灭。愁因薄暮起，兴是清秋发。"
    "时见归村人，沙行渡头歇。天边树若荠，江畔舟如月。何当载酒来，共醉重阳节。",  # 12 lines, 仄韵
    "男儿事长征，少小幽燕客。赌胜马蹄下，由来轻七尺。杀人莫敢前，须如猬毛磔。"
    "黄云陇底白雪飞，未得报恩不能归。辽东小妇年十五，惯弹琵琶解歌舞。"
    "今为羌笛出塞声，使我三军泪如雨。",  # 杂言, 换韵
    "清溪深不测，隐处唯孤云。松际露微月，清光犹为君。茅亭宿花影，药院滋苔纹。余亦谢时去，西山鸾鹤群。",  # 三平调
    "山寺鸣钟昼已昏，渔梁渡头争渡喧。人随沙路向江村，余亦乘舟归鹿门。"
    "鹿门月照开烟树，忽到庞公栖隐处。岩扉松径长寂寥，唯有幽人自来去。",  # 换韵 from a line
    "中岁颇好道，晚家南山陲。兴来每独往，胜事空自知。行到水穷处，坐看云起时。偶然值林叟，谈笑无还期。",  # couplets
    "春山一夜雨，花落满溪出。独坐望归云，空庭生明月。何处寄相思，回首芳华失。",  # 6 lines
]


def test_every_gu_ti_reason_reads_in_chinese() -> None:
    from django.utils import translation

    from research.poems import _REASONS, readable_reason
    from scoring.prosody import score_poem

    matched = set()
    with translation.override("zh-hans"):
        for text in GU_TI_TEXTS:
            d = score_poem(text, None).diagnostics
            assert d.get("ti") == "古体", text
            for r in d["gu"]["reasons"]:
                said = readable_reason(r)
                assert said != r and not any(w in said for w in ("of", "lines", "rhyme")), r
                matched |= {k for k, (p, _) in enumerate(_REASONS) if p.fullmatch(r)}
    assert matched == set(range(len(_REASONS)))  # every kind of reason was met
