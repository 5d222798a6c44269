"""A participant's group is stored once, on the participant: ``Rater.group`` goes.

Forwards, a rater's group is first copied onto its participant where the participant
has none (where both have one and they disagree, the participant's wins). Backwards,
the column comes back filled from the participants' groups.
"""

from typing import Any

from django.db import migrations
from django.db.models import OuterRef, Subquery


def rater_group_onto_participant(apps: Any, schema_editor: Any) -> None:
    rater = apps.get_model("annotation", "Rater")
    participant = apps.get_model("annotation", "Participant")
    group_of_rater = rater.objects.filter(pk=OuterRef("rater_id")).values("group_id")[:1]
    participant.objects.filter(group__isnull=True, rater__group__isnull=False).update(
        group=Subquery(group_of_rater)
    )


def participant_group_onto_rater(apps: Any, schema_editor: Any) -> None:
    rater = apps.get_model("annotation", "Rater")
    participant = apps.get_model("annotation", "Participant")
    group_of_participant = participant.objects.filter(rater_id=OuterRef("pk")).values(
        "group_id"
    )[:1]
    rater.objects.filter(participant__isnull=False).update(group=Subquery(group_of_participant))


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0002_assignment_drop_redundant_indexes"),
        ("studies", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(rater_group_onto_participant, participant_group_onto_rater),
        migrations.RemoveField(model_name="rater", name="group"),
    ]
