"""The admin wholly in Chinese: every load-problem message has a zh-Hans text with no
English sentence in it, and the admin's pages (index, upload with a file's problems, a
failed job's problems, the lock-out page, a researcher's refusal) show none either."""

from __future__ import annotations

import ast
import html
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

ROOT = Path(__file__).resolve().parents[2]
# Where load problems are written: the loaders, the task kinds' rules, the values they read.
PROBLEM_MODULES = [
    *sorted((ROOT / "studies" / "loading").glob("*.py")),
    *sorted((ROOT / "annotation" / "loading").glob("*.py")),
    ROOT / "studies" / "kinds.py",
    ROOT / "studies" / "values.py",
    ROOT / "studies" / "recruitment.py",
    ROOT / "studies" / "quality_rules.py",
]
# Messages of the JSON and YAML parsers themselves (their texts come from the json and
# yaml libraries) are not this test's.
SENTENCE = re.compile(r"\b[A-Za-z][a-z]+(?:[ ,;]+[A-Za-z][a-z']+){2,}")
CODE = re.compile(
    r"%\([^)]*\)[a-z]|`[^`]*`|--[a-z-]+|\{[^}]*\}|\w+[:+]\w+|[\w./-]*\.(?:md|py|csv|xlsx)\b"
)


def english(text: str) -> list[str]:
    """English sentences (three or more English words in a row) in ``text``."""
    return SENTENCE.findall(CODE.sub(" ", text))


def msgids() -> list[str]:
    """Every ``_("...")`` literal of the modules that write load problems."""
    found: list[str] = []
    for path in PROBLEM_MODULES:
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "_"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                found.append(node.args[0].value)
    return sorted(set(found))


def test_every_load_problem_message_has_a_zh_hans_text_without_english() -> None:
    ids = msgids()
    assert len(ids) > 140 and sum(1 for m in ids if english(m)) > 100  # the scan sees them
    untranslated, mixed = [], []
    with translation.override("zh-hans"):
        for msgid in ids:
            text = gettext(msgid)
            if text == msgid and english(msgid):
                untranslated.append(msgid)
            elif english(text):
                mixed.append((msgid, english(text)))
    assert untranslated == [] and mixed == []


def visible(page: str) -> str:
    """A page's text as a reader sees it: no scripts, styles, tags or attributes."""
    page = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", page)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


BAD_POOL = "\n".join(
    [
        '{"id": "ck-9", "task": "zz", "stem": "问", "options": ["甲"], "answer": 5}',
        '{"id": "ck-9", "task": "ck", "stem": "问", "options": ["甲", "乙"], "answer": 7}',
        '{"id": "", "task": "au", "parts": "x"}',
        '{"id": "p-1", "task": "quality", "poem": {"text": "", "form": "sonnet"}}',
        '{"id": "oq-9", "task": "oq", "options": ["甲", "乙", "丙"], "answer": {"best": 0}}',
        '{"id": "ck-8", "task": "ck", "stem": "问", "options": ["甲", "乙"], "meta": 3, "attention_check": "yes"}',
    ]
).encode()


@pytest.fixture
def boss(client, django_user_model, example_study):
    client.force_login(django_user_model.objects.create_superuser("boss", "b@example.org", "pw"))
    client.cookies["django_language"] = "zh-hans"
    return client


@pytest.mark.django_db
def test_the_admins_pages_and_a_files_problems_show_no_english(
    boss, example_study, django_capture_on_commit_callbacks
) -> None:
    url = reverse("admin:upload")
    pages = {"index": boss.get(reverse("admin:index")), "upload": boss.get(url)}
    bad = SimpleUploadedFile("bad.jsonl", BAD_POOL)
    pages["problems"] = boss.post(url, {"kind": "pool", "study": example_study.pk, "file": bad})
    bad = SimpleUploadedFile("bad.jsonl", BAD_POOL)
    data = {"kind": "pool", "study": example_study.pk, "file": bad, "background": "on"}
    with django_capture_on_commit_callbacks(execute=True):  # the job runs (no broker)
        job = boss.post(url, data)
    pages["job"] = boss.get(job["Location"])
    found = {}
    for name, page in pages.items():
        assert page.status_code == 200, name
        text = visible(page.content.decode())
        found[name] = english(text.replace("au, ck, oq, quality", "…"))  # the task slugs
    for name in ("problems", "job"):  # (the job's page lists the file's problems)
        assert "'zz' 不是本研究的任务" in visible(pages[name].content.decode()), name
    assert found == {name: [] for name in pages}


@pytest.mark.django_db
def test_a_researcher_sees_the_dashboard_link_no_upload_link_and_a_chinese_403(
    client, settings, tmp_path
) -> None:
    from tests.app.admin_world import world_build

    settings.DATA_DIR = tmp_path
    world = world_build()
    client.force_login(world.users["researcher"])
    client.cookies["django_language"] = "zh-hans"
    index = client.get(reverse("admin:index")).content.decode()
    assert 'id="dashboard-link"' in index and reverse("research:studies") in index
    assert reverse("admin:upload") not in index  # a page they cannot use: no link to it
    refused = client.get(reverse("admin:upload"))
    text = visible(refused.content.decode())
    assert refused.status_code == 403 and "不能使用此页面" in text and english(text) == []
    client.force_login(world.users["superuser"])
    index = client.get(reverse("admin:index")).content.decode()
    assert 'id="upload-link"' in index and 'id="dashboard-link"' in index


@pytest.mark.django_db
def test_the_lock_out_page_is_chinese(client, settings) -> None:
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_superuser("boss", "b@example.org", "right-pw-1")
    client.cookies["django_language"] = "zh-hans"
    for i in range(settings.AXES_FAILURE_LIMIT + 1):
        page = client.post("/admin/login/", {"username": "boss", "password": f"guess-{i}"})
    text = visible(page.content.decode())
    assert page.status_code == 429 and "登录失败次数过多" in text and english(text) == []


@pytest.mark.django_db
def test_a_jobs_parameters_are_readable_fields(boss, example_study) -> None:
    from jobs.services import load_submit

    job = load_submit(
        kind="pool",
        name="题库.xlsx",
        content=b"PK\x03\x04",
        study=example_study,
        dry_run=True,
        sheet="题库",
    )
    page = boss.get(reverse("admin:jobs_job_change", args=[job.pk])).content.decode()
    table = re.search(r'<table id="parameters">.*?</table>', page, re.S)
    assert table is not None
    cells = visible(table.group(0)).split()
    for label, value in (
        ("文件", "题库.xlsx"),
        ("工作表", "题库"),
        ("试运行", "是"),
        ("格式", "默认"),
    ):
        assert cells[cells.index(label) + 1] == value, (label, cells)
    assert '"dry_run"' not in page


# Latin words a zh-Hans admin page may show: the brand, an address's name, the test's
# user name, and axes' stored placeholder for a missing header (data, not interface).
LATIN_ALLOWED = {"Shiping", "IP", "boss", "unknown"}


@pytest.mark.django_db
def test_the_site_title_and_the_login_throttles_pages_are_chinese(boss) -> None:
    """The site title ("Shiping admin") and django-axes' menu (Axes: Access attempts,
    Access failures, Access logs) showed in English: two-word runs the sentence scan above
    does not catch, so here every Latin word counts."""
    urls = [
        reverse("admin:index"),
        reverse("admin:app_list", args=["axes"]),
        reverse("admin:axes_accessattempt_changelist"),
        reverse("admin:axes_accessfailurelog_changelist"),
        reverse("admin:axes_accesslog_changelist"),
    ]
    for url in urls:
        page = boss.get(url)
        assert page.status_code == 200, url
        text = visible(page.content.decode())
        latin = set(re.findall(r"[A-Za-z]+", text)) - LATIN_ALLOWED
        assert latin == set(), (url, sorted(latin))
    index = visible(boss.get(reverse("admin:index")).content.decode())
    for chinese in ("诗评管理后台", "登录限制", "登录尝试", "登录失败", "登录日志"):
        assert chinese in index, chinese
    boss.cookies["django_language"] = "en"
    english_index = visible(boss.get(reverse("admin:index")).content.decode())
    assert "Shiping admin" in english_index and "Access attempts" in english_index
