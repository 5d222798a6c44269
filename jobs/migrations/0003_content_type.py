"""Job's content type (and so its permissions and admin log entries) moves from the
``scoring`` label to ``jobs``. On a new database there is none yet: Django creates it
after migrating."""

from typing import Any

from django.db import migrations


def relabel(apps: Any, old: str, new: str) -> None:
    content_type = apps.get_model("contenttypes", "ContentType")
    moved = content_type.objects.filter(app_label=old, model="job").first()
    if moved is None:
        return
    content_type.objects.filter(app_label=new, model="job").delete()
    moved.app_label = new
    moved.save(update_fields=["app_label"])


def forwards(apps: Any, schema_editor: Any) -> None:
    relabel(apps, "scoring", "jobs")


def backwards(apps: Any, schema_editor: Any) -> None:
    relabel(apps, "jobs", "scoring")


class Migration(migrations.Migration):
    dependencies = [
        ("jobs", "0002_table_and_index"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
