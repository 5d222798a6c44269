"""PostgreSQL: vacuum the claim path's hot tables after a fixed number of changed rows.

Every claim moves its item's row in the tallies' index (``taken`` and ``tiebreak`` change,
so the update cannot be HOT) and every answer its assignment's; the dead index entries sit
at the low end of ``tally_next``, where each claim's scan starts, until a vacuum removes
them. By default autovacuum waits for 50 + 20% of a table's rows to change: 20,050 dead
rows for a 100,000-item pool, every one of them stepped over by every claim meanwhile
(docs/performance.md, "Dead rows"). With a fixed threshold of 1,000 autovacuum takes
them at its next round (``autovacuum_naptime``, a minute by default). Other databases: nothing to do. Reversing resets the defaults.
"""

from django.db import migrations

TABLES = ("annotation_tally", "annotation_assignment", "annotation_taskcount")
SETTINGS = (
    "autovacuum_vacuum_scale_factor = 0.0, autovacuum_vacuum_threshold = 1000, "
    "autovacuum_analyze_scale_factor = 0.05"
)
RESET = "autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold, autovacuum_analyze_scale_factor"


def tune(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in TABLES:
        schema_editor.execute(f"ALTER TABLE {schema_editor.quote_name(table)} SET ({SETTINGS})")


def untune(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in TABLES:
        schema_editor.execute(f"ALTER TABLE {schema_editor.quote_name(table)} RESET ({RESET})")


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0007_task_counts"),
    ]

    operations = [migrations.RunPython(tune, untune)]
