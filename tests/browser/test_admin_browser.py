"""The admin's job page in a browser: its progress bar follows the running job (polling
the job's state) and the page shows the outcome once the job ends; without JavaScript
the page refreshes itself. Screenshots of the upload and job pages are saved."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache

from jobs.models import Job
from jobs.progress import cache_key

pytestmark = pytest.mark.browser
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PASSWORD = "pw-boss-1234"


@pytest.fixture
def running_job(transactional_db: Any, live_server: Any) -> Job:
    get_user_model().objects.create_superuser("boss", "boss@example.org", PASSWORD)
    job = Job.objects.create(kind="pool", status="running", total=20000)
    cache.set(cache_key(job.pk), {"stage": "validating", "done": 2000, "total": 20000})
    return job


def logged_in(browser: Any, live_server: Any, **options: Any) -> Any:
    context = browser.new_context(**DESKTOP, locale="zh-CN", **options)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.click("input[type=submit]")
    return page


def finish(job: Job) -> None:
    Job.objects.filter(pk=job.pk).update(status="done", done=20000, stage="writing")
    cache.delete(cache_key(job.pk))


def test_the_job_page_follows_a_running_load_then_shows_its_outcome(
    browser, running_job, live_server, shoot
) -> None:
    page = logged_in(browser, live_server)
    page.goto(f"{live_server.url}/admin/upload/")
    shoot(page, "admin-upload")
    page.goto(f"{live_server.url}/admin/jobs/job/{running_job.pk}/change/")
    text = page.locator(".job-progress-text")
    assert text.inner_text() == "10% 校验中 2000/20000"
    cache.set(cache_key(running_job.pk), {"stage": "writing", "done": 15000, "total": 20000})
    page.wait_for_function(
        "document.querySelector('.job-progress-text').textContent === '75% 写入中 15000/20000'"
    )
    assert page.locator(".job-progress progress").evaluate("p => p.value") == 75
    shoot(page, "admin-job-running")
    finish(running_job)
    page.wait_for_selector("text=文件已导入。")  # the page reloaded with the outcome
    assert page.locator(".job-progress progress").evaluate("p => p.value") == 100
    shoot(page, "admin-job-done")


def test_without_javascript_the_job_page_refreshes_itself(
    browser, running_job, live_server
) -> None:
    page = logged_in(browser, live_server, java_script_enabled=False)
    page.goto(f"{live_server.url}/admin/jobs/job/{running_job.pk}/change/")
    assert page.locator(".job-progress-text").inner_text() == "10% 校验中 2000/20000"
    finish(running_job)
    page.wait_for_selector("text=文件已导入。", timeout=8_000)  # the meta refresh, every 2 s
