"""Job moves to the ``jobs`` app: removed from ``scoring``'s state, its table kept
(jobs 0001 takes it over, jobs 0002 renames it)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("scoring", "0001_job")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[migrations.DeleteModel(name="Job")],
        ),
    ]
