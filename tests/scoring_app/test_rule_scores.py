"""Rule scores in the app: stored as rule raters' responses on load and on demand,
the offline ``prosody`` command, and the researcher's poem page."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.models import Rater, Response
from scoring.prosody import RULES_VERSION
from studies.models import Item
from tests.loading.helpers import snapshot, write_jsonl
from tests.present import present

pytestmark = pytest.mark.django_db
STUDY = ["--study", "poetry-understanding"]
# 李清照《如梦令》: 33 characters in lines of 6 6 5 6 2 2 6, the 如梦令 standard form.
RUMENGLING = (
    "昨夜雨疏风骤，\n浓睡不消残酒。\n试问卷帘人，\n却道海棠依旧。\n知否，知否？\n应是绿肥红瘦。"
)
# The same with one character too many in line 2: structure fails, so tone scores 0 too.
RUMENGLING_BAD = RUMENGLING.replace("残酒", "残酒酒")


def poem_line(pid: str, text: str, form: str = "ci:如梦令") -> dict:
    return {
        "id": pid,
        "task": "quality",
        "poem": {
            "title": "如梦令",
            "author": "李清照",
            "form": form,
            "text": text,
            "source": "human",
        },
    }


def scores(item_id: str, tone_system: str = "modern") -> dict[str, float | None]:
    rows = Response.objects.filter(
        item__external_id=item_id, rater__kind="rule", rater__name=f"prosody:{tone_system}"
    )
    return {r.field: r.value for r in rows}


def test_loading_poems_stores_rule_scores_under_both_tone_systems(example_study, tmp_path) -> None:
    call_command(
        "load_pool",
        str(
            write_jsonl(
                tmp_path / "p.jsonl",
                [poem_line("rm-1", RUMENGLING), poem_line("rm-2", RUMENGLING_BAD)],
            )
        ),
        *STUDY,
    )
    assert set(Rater.objects.filter(kind="rule").values_list("name", "run")) == {
        ("prosody:modern", RULES_VERSION),
        ("prosody:classical", RULES_VERSION),
    }
    good, bad = scores("rm-1"), scores("rm-2")
    assert good["structural"] == 1.0 and good["structural_standard"] == 1.0
    assert 0.8 <= present(good["tonal"]) <= 1.0
    assert (
        bad["structural"] == 0.0 and bad["tonal_standard"] == 0.0
    )  # CCiV: tone is 0 when structure fails
    assert scores("rm-1", "classical")["structural"] == 1.0


def test_reloading_the_same_poems_changes_nothing_and_a_changed_poem_is_rescored(
    example_study, tmp_path
) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [poem_line("rm-1", RUMENGLING)])
    call_command("load_pool", str(path), *STUDY)
    before = snapshot()
    call_command("load_pool", str(path), *STUDY)
    call_command("score_poems", "poetry-understanding")
    assert snapshot()["Response"] == before["Response"]
    call_command(
        "load_pool",
        str(write_jsonl(tmp_path / "p2.jsonl", [poem_line("rm-1", RUMENGLING_BAD)])),
        *STUDY,
    )
    assert scores("rm-1")["structural"] == 0.0


def test_score_poems_scores_existing_items_and_names_unknown_ones(example_study, capsys) -> None:
    Response.objects.filter(rater__kind="rule").delete()
    call_command("score_poems", "poetry-understanding", "--item", "poem-0001")
    assert "1 poems scored" in capsys.readouterr().out
    # poem-0001 is a 12-character fragment labelled 浪淘沙: no template fits.
    assert scores("poem-0001")["structural"] == 0.0
    with pytest.raises(CommandError, match="no item\\(s\\) nope"):
        call_command("score_poems", "poetry-understanding", "--item", "nope")


def test_prosody_command_scores_a_file_offline(tmp_path) -> None:
    src = write_jsonl(
        tmp_path / "in.jsonl",
        [
            {"id": "a", "form": "ci:如梦令", "text": RUMENGLING},
            {
                "id": "b",
                "form": "shi:jueju5",
                "text": "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。",
            },
        ],
    )
    out = tmp_path / "out.csv"
    call_command("prosody", str(src), "--out", str(out))
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(out.read_text(encoding="utf-8")))}
    assert rows["a"]["structural"] == "1.0" and rows["b"]["structural"] == "1.0"
    assert rows["b"]["rhyme"] == "1.0"  # 流 and 楼 share 中华新韵 七尤
    assert rows["a"]["error"] == ""
    jsonl = tmp_path / "out.jsonl"
    call_command("prosody", str(src), "--out", str(jsonl), "--tone-system", "classical")
    first = json.loads(jsonl.read_text(encoding="utf-8").splitlines()[0])
    assert first["tone_system"] == "classical" and first["rules_version"] == RULES_VERSION
    assert first["diagnostics"]["cipai"] == "如梦令"


def test_prosody_command_names_bad_lines(tmp_path) -> None:
    src = write_jsonl(
        tmp_path / "in.jsonl",
        [{"id": "a", "text": "春眠不觉晓"}, {"id": "b", "form": "sonnet", "text": "x"}],
    )
    with pytest.raises(CommandError, match="line 2, field 'form': 'sonnet' is not a form"):
        call_command("prosody", str(src))


@pytest.fixture
def poem_item(example_study, tmp_path):
    call_command(
        "load_pool",
        str(write_jsonl(tmp_path / "p.jsonl", [poem_line("rm-2", RUMENGLING_BAD)])),
        *STUDY,
    )
    return Item.objects.get(external_id="rm-2")


def test_poem_page_marks_tones_mismatches_and_the_template(
    client, django_user_model, poem_item
) -> None:
    user = django_user_model.objects.create_user("r", password="pw")
    poem_item.study.researchers.add(user)
    client.force_login(user)
    html = client.get(reverse("research:poem", args=[poem_item.pk])).content.decode()
    assert html.count('class="ch"') == len(
        RUMENGLING_BAD.replace("\n", "").replace("，", "").replace("。", "").replace("？", "")
    )
    assert "Nearest template" in html or "最接近" in html or "nearest" in html.lower()
    assert "too_long" in html
    classical = client.get(reverse("research:poem", args=[poem_item.pk]), {"tones": "classical"})
    assert classical.status_code == 200


def test_poem_page_is_for_the_study_researchers_only(client, django_user_model, poem_item) -> None:
    url = reverse("research:poem", args=[poem_item.pk])
    assert client.get(url).status_code == 302  # anonymous: to the login page
    other = django_user_model.objects.create_user("other", password="pw")
    client.force_login(other)
    assert client.get(url).status_code == 404


def test_a_load_larger_than_the_limit_scores_its_poems_in_a_background_job(
    example_study, tmp_path, settings, capsys, django_capture_on_commit_callbacks
) -> None:
    from jobs.models import Job

    settings.SCORE_ON_LOAD_MAX_ITEMS = 1
    path = write_jsonl(
        tmp_path / "p.jsonl", [poem_line("rm-1", RUMENGLING), poem_line("rm-2", RUMENGLING_BAD)]
    )
    capsys.readouterr()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_pool", str(path), *STUDY)
    out = capsys.readouterr().out
    job = Job.objects.get(kind=Job.Kind.RULE_SCORES)
    assert "2 poems changed" in out or "2 首诗有改动" in out
    assert f"/research/jobs/{job.pk}/" in out
    assert "`manage.py score_poems poetry-understanding`" in out
    job.refresh_from_db()
    assert job.status == Job.Status.DONE and len(job.params["item_ids"]) == 2
    assert scores("rm-1")["structural"] == 1.0 and scores("rm-2")["structural"] == 0.0


@pytest.mark.django_db(transaction=True)
def test_without_a_broker_the_load_says_its_scoring_job_is_done(
    example_study, tmp_path, settings, capsys
) -> None:
    """Outside a transaction (the command line, autocommit) Celery without a broker runs
    the job at once, so the note says it is done, not that the report lacks the scores."""
    from jobs.models import Job

    settings.SCORE_ON_LOAD_MAX_ITEMS = 1
    path = write_jsonl(
        tmp_path / "p.jsonl", [poem_line("rm-1", RUMENGLING), poem_line("rm-2", RUMENGLING_BAD)]
    )
    capsys.readouterr()
    call_command("load_pool", str(path), *STUDY)
    out = capsys.readouterr().out
    job = Job.objects.get(kind=Job.Kind.RULE_SCORES)
    assert job.status == Job.Status.DONE
    assert f"were computed by job {job.pk}" in out or f"已由作业 {job.pk} 计算完成" in out
    assert "until it finishes" not in out and "作业完成前" not in out
    assert scores("rm-1")["structural"] == 1.0 and scores("rm-2")["structural"] == 0.0


def test_the_upload_page_hands_a_large_loads_poems_to_a_scoring_job_too(
    example_study, tmp_path, settings, client, django_user_model
) -> None:
    """The follow-up job is the load orchestrator's (jobs.loads.file_load), so every
    interface gets it: here the admin's upload page, which used to leave the poems
    unscored with only a note."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from jobs.models import Job

    settings.SCORE_ON_LOAD_MAX_ITEMS = 1
    rows = [poem_line("rm-1", RUMENGLING), poem_line("rm-2", RUMENGLING_BAD)]
    upload = SimpleUploadedFile("p.jsonl", write_jsonl(tmp_path / "p.jsonl", rows).read_bytes())
    client.force_login(django_user_model.objects.create_superuser("boss", "b@example.org", "pw"))
    data = {"kind": "pool", "study": example_study.pk, "file": upload}
    page = client.post(reverse("admin:upload"), data, follow=True)
    assert page.status_code == 200
    job = Job.objects.get(kind=Job.Kind.RULE_SCORES)
    assert sorted(job.params["item_ids"]) == sorted(
        Item.objects.filter(external_id__in=["rm-1", "rm-2"]).values_list("pk", flat=True)
    )
    assert f"/research/jobs/{job.pk}/" in page.content.decode()


@pytest.mark.slow
def test_llm_outputs_over_the_limit_say_so_and_the_dashboard_counts_unscored_poems(
    example_study, tmp_path, settings, capsys, client, django_user_model
) -> None:
    settings.SCORE_ON_LOAD_MAX_ITEMS = 1
    text = "秦时明月汉时关，万里长征人未还。但使龙城飞将在，不教胡马度阴山。"
    rows = [
        {
            "model": "gpt-4o",
            "run": "direct",
            "sample": i,
            "generation": {
                "id": f"g-{i}",
                "task": "quality",
                "prompt": {"form": "shi:jueju7"},
                "text": text,
            },
        }
        for i in range(3)
    ]
    capsys.readouterr()
    call_command("load_llm_outputs", str(write_jsonl(tmp_path / "o.jsonl", rows)), *STUDY)
    out = capsys.readouterr().out
    assert "3 poems changed" in out or "3 首诗有改动" in out
    assert "score_poems poetry-understanding" in out
    user = django_user_model.objects.create_user("r", password="pw")
    example_study.researchers.add(user)
    client.force_login(user)
    page = client.get(reverse("research:dashboard", args=[example_study.pk]))
    assert page.context["unscored"] == 3  # the generations; the pool's poems were scored
    assert Item.objects.filter(study=example_study).exclude(poem_text="").count() > 3
    assert "manage.py score_poems poetry-understanding" in page.content.decode()
    call_command("score_poems", "poetry-understanding")
    page = client.get(reverse("research:dashboard", args=[example_study.pk]))
    assert page.context["unscored"] == 0


def choice_line(pid: str) -> dict:
    return {"id": pid, "task": "ck", "stem": "问？", "options": ["甲", "乙"], "answer": 0}


def pool_load(study, tmp_path, rows):
    from jobs.loads import file_load
    from studies.loading.readers import Source

    path = write_jsonl(tmp_path / "p.jsonl", rows)
    return file_load(kind="pool", source=Source.from_path(path), study=study)


def test_a_large_pool_without_poems_asks_for_no_rule_scoring(
    example_study, tmp_path, settings
) -> None:
    settings.SCORE_ON_LOAD_MAX_ITEMS = 2
    summary = pool_load(example_study, tmp_path, [choice_line(f"q-{i}") for i in range(5)])
    assert summary.created == 5 and summary.notes == []
    assert "score_poems" not in summary.describe()


def test_only_poems_count_toward_the_scoring_limit(example_study, tmp_path, settings) -> None:
    settings.SCORE_ON_LOAD_MAX_ITEMS = 2
    rows = [*(choice_line(f"q-{i}") for i in range(5)), poem_line("rm-1", RUMENGLING)]
    summary = pool_load(example_study, tmp_path, [*rows, poem_line("rm-2", RUMENGLING_BAD)])
    assert summary.notes == []  # 7 items, 2 poems: scored during the load
    assert scores("rm-1")["structural"] == 1.0 and scores("rm-2")["structural"] == 0.0


def test_with_scoring_on_load_off_a_pool_of_poems_says_how_to_score_them(
    example_study, tmp_path, settings
) -> None:
    settings.SCORE_ON_LOAD = False
    [note] = pool_load(example_study, tmp_path, [poem_line("rm-1", RUMENGLING)]).notes
    assert note.code == "rule_scores_off" and "score_poems poetry-understanding" in note.message
    assert scores("rm-1") == {}
    assert pool_load(example_study, tmp_path, [choice_line("q-1")]).notes == []


def test_each_chunk_of_a_scoring_job_reads_only_its_own_items_stored_scores(
    example_study, tmp_path, settings, monkeypatch
) -> None:
    """Re-scoring poems chunk by chunk: each chunk looks up the stored scores of its own
    items only (it used to read every stored score of the rule raters, so a job's memory
    grew with the study's poems and its time with their square), and changes nothing."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from scoring import rules

    settings.SCORE_ON_LOAD_MAX_ITEMS = 10
    rows = [poem_line(f"rm-{i}", RUMENGLING if i % 2 else RUMENGLING_BAD) for i in range(4)]
    call_command("load_pool", str(write_jsonl(tmp_path / "p.jsonl", rows)), *STUDY)
    stored = Response.objects.filter(rater__kind="rule").count()
    monkeypatch.setattr(rules, "CHUNK", 1)
    poems = list(
        Item.objects.filter(external_id__startswith="rm-")
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    with CaptureQueriesContext(connection) as queries:
        summary = rules.rule_scores_compute(study=example_study, item_ids=poems)
    reads = [q["sql"] for q in queries if 'FROM "annotation_response"' in q["sql"]
             and q["sql"].lstrip().upper().startswith("SELECT")]  # fmt: skip
    assert len(reads) == len(poems)  # one read per chunk of one poem
    for pk, sql in zip(poems, reads, strict=True):
        assert '"item_id" IN' in sql and str(pk) in sql
    assert Response.objects.filter(rater__kind="rule").count() == stored
    assert (summary.created, summary.updated) == (0, 0) and summary.unchanged > 0
    assert scores("rm-1")["structural"] == 1.0 and scores("rm-0")["structural"] == 0.0
