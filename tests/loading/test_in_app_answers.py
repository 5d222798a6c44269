"""An import never overwrites an answer a volunteer gave in the app (issue 11, defect 13):
a file reusing their participant id with another answer is refused with line and field,
and nothing is written; the same answer again (an export loaded back) passes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from annotation import services
from annotation.models import Participant, Response
from jobs.loads import file_load
from studies.loading.problems import LoadError
from studies.loading.readers import Source
from studies.models import Item, Study
from tests.loading.helpers import snapshot

pytestmark = pytest.mark.django_db
AT = datetime(2026, 11, 20, 10, 15, tzinfo=UTC)


@pytest.fixture
def volunteer(example_study: Study) -> Participant:
    """A volunteer of group C who answered ck-001 with option 0 (the key) in the app."""
    example_study.status = Study.Status.OPEN  # studies load as drafts
    example_study.save(update_fields=["status"])
    group = example_study.groups.get(slug="C")
    participant = services.participant_enrol(
        study=example_study, consent=True, invite_token=group.invite_token
    )
    item = Item.objects.get(external_id="ck-001")
    Response.objects.create(
        study=example_study,
        task=item.task,
        item=item,
        rater=participant.rater,
        field="answer",
        value=0,
        correct=True,
        time_ms=4200,
        answered_at=AT,
    )
    return participant


def load(study: Study, text: str) -> None:
    file_load(kind="responses", source=Source("r.jsonl", text.encode(), "jsonl"), study=study)


def line(pid: str, item: str, answer: int, time_ms: int | None = 4200) -> str:
    return (
        f'{{"participant": "{pid}", "group": "C", "item": "{item}", "answer": {answer}'
        + (f', "time_ms": {time_ms}' if time_ms is not None else "")
        + "}\n"
    )


def test_an_import_with_another_answer_is_refused_with_line_and_field(
    example_study, volunteer
) -> None:
    before = snapshot()
    text = line("p-paper-1", "ck-001", 1) + line(volunteer.public_id, "ck-001", 2)
    with pytest.raises(LoadError) as caught:
        load(example_study, text)
    [problem] = caught.value.problems
    assert (problem.file, problem.line, problem.field) == ("r.jsonl", 2, "answer")
    assert volunteer.public_id in problem.message and "in the app" in problem.message
    assert snapshot() == before  # not even the other participant's line was written
    stored = Response.objects.get(rater=volunteer.rater)
    assert (stored.value, stored.correct, stored.time_ms) == (0, True, 4200)


def test_an_import_cannot_erase_the_time_of_an_in_app_answer(example_study, volunteer) -> None:
    with pytest.raises(LoadError) as caught:
        load(example_study, line(volunteer.public_id, "ck-001", 0, time_ms=None))
    assert [(p.line, p.field) for p in caught.value.problems] == [(1, "answer")]
    assert Response.objects.get(rater=volunteer.rater).time_ms == 4200


def test_the_same_answer_again_passes(example_study, volunteer) -> None:
    """An export loaded back repeats the stored answer: nothing to overwrite."""
    load(example_study, line(volunteer.public_id, "ck-001", 0))
    assert Response.objects.get(rater=volunteer.rater, item__external_id="ck-001").value == 0


def test_imported_participants_answers_are_still_corrected_by_a_new_file(example_study) -> None:
    load(example_study, line("p-paper-1", "ck-001", 1))
    load(example_study, line("p-paper-1", "ck-001", 2))
    assert Response.objects.get(rater__name="p-paper-1").value == 2
