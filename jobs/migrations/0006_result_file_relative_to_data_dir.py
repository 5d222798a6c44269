"""Job result files named relative to DATA_DIR (docs/deploy.md), not by absolute paths.

Rows written before stored the absolute path where the web process or worker saw the
file. A path under the current DATA_DIR becomes relative to it; one under a DATA_DIR
mounted elsewhere keeps its part from ``exports/`` or ``reports/`` on. Reversing joins
DATA_DIR back on.
"""

from pathlib import Path, PurePath

from django.conf import settings
from django.db import migrations

FOLDERS = ("exports", "reports")


def relative(stored: str, data_dir: Path) -> str:
    path = PurePath(stored)
    if not path.is_absolute():
        return stored
    try:
        return str(path.relative_to(data_dir))
    except ValueError:
        pass
    parts = path.parts
    for index in range(len(parts) - 1, -1, -1):
        if parts[index] in FOLDERS:
            return str(PurePath(*parts[index:]))
    return stored  # not a job result we know how to place: left as it was


def forwards(apps, schema_editor):
    Job = apps.get_model("jobs", "Job")
    data_dir = Path(settings.DATA_DIR)
    for job in Job.objects.exclude(result_file="").only("pk", "result_file").iterator():
        new = relative(job.result_file, data_dir)
        if new != job.result_file:
            Job.objects.filter(pk=job.pk).update(result_file=new)


def backwards(apps, schema_editor):
    Job = apps.get_model("jobs", "Job")
    data_dir = Path(settings.DATA_DIR)
    for job in Job.objects.exclude(result_file="").only("pk", "result_file").iterator():
        if not PurePath(job.result_file).is_absolute():
            Job.objects.filter(pk=job.pk).update(result_file=str(data_dir / job.result_file))


class Migration(migrations.Migration):
    dependencies = [
        ("jobs", "0005_job_heartbeat_at"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
