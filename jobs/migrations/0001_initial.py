"""Job moves from ``scoring`` to ``jobs``: first in the migration state only, on the
table it already has (scoring_job); 0002 renames the table and its index."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("studies", "0001_initial"),
        ("scoring", "0002_job_moves_to_jobs"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="Job",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "kind",
                            models.CharField(
                                choices=[
                                    ("study", "Study definition"),
                                    ("pool", "Question pool"),
                                    ("llm_outputs", "LLM outputs"),
                                    ("responses", "Responses"),
                                    ("rule_scores", "Rule scores"),
                                    ("export", "Export"),
                                    ("report", "Report"),
                                ],
                                max_length=20,
                            ),
                        ),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("queued", "Queued"),
                                    ("running", "Running"),
                                    ("done", "Done"),
                                    ("failed", "Failed"),
                                ],
                                db_index=True,
                                default="queued",
                                max_length=10,
                            ),
                        ),
                        (
                            "params",
                            models.JSONField(blank=True, default=dict, help_text="What the job was asked."),
                        ),
                        (
                            "stage",
                            models.CharField(
                                blank=True, help_text="e.g. validating, writing", max_length=40
                            ),
                        ),
                        ("done", models.PositiveIntegerField(default=0)),
                        ("total", models.PositiveIntegerField(blank=True, null=True)),
                        ("message", models.TextField(blank=True)),
                        (
                            "summary",
                            models.JSONField(
                                blank=True,
                                default=dict,
                                help_text="What the job did, or the problems found.",
                            ),
                        ),
                        ("result_file", models.CharField(blank=True, max_length=500)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("started_at", models.DateTimeField(blank=True, null=True)),
                        ("finished_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "created_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "study",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="jobs",
                                to="studies.study",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "scoring_job",
                        "ordering": ["-created_at", "-pk"],
                        "indexes": [
                            models.Index(fields=["kind", "status"], name="scoring_job_kind_9ed59d_idx")
                        ],
                    },
                ),
            ],
        ),
    ]
