"""Tallies: per item and group, the answers and open claims taken, kept with every claim
and answer so the next item is found by an index (annotation/hotpath/claim.py), filled
here from the existing assignments; reversing drops them (nothing else reads them)."""

import random

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import Count, Max


def fill(apps, schema_editor):
    Assignment = apps.get_model("annotation", "Assignment")
    Tally = apps.get_model("annotation", "Tally")
    TallyCover = apps.get_model("annotation", "TallyCover")
    Group = apps.get_model("studies", "Group")
    Item = apps.get_model("studies", "Item")
    Task = apps.get_model("studies", "Task")
    upto = Item.objects.aggregate(m=Max("id"))["m"] or 0
    for task in Task.objects.all():
        regular = list(
            Item.objects.filter(task=task, is_attention_check=False).values_list("id", flat=True)
        )
        n_checks = Item.objects.filter(task=task, is_attention_check=True).count()
        for group in Group.objects.filter(study_id=task.study_id):
            taken = dict(
                Assignment.objects.filter(
                    task=task, group=group, status__in=["answered", "claimed"]
                )
                .values("item_id")
                .annotate(n=Count("id"))
                .values_list("item_id", "n")
            )
            Tally.objects.bulk_create(
                [
                    Tally(item_id=i, group=group, task=task, taken=taken.get(i, 0),
                          tiebreak=random.random())
                    for i in regular
                ],
                batch_size=2000,
            )  # fmt: skip
            TallyCover.objects.create(
                task=task, group=group, items_upto=upto, n_regular=len(regular), n_checks=n_checks
            )


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0005_verbose_names_zh'),
        ('studies', '0006_verbose_names_zh'),
    ]

    operations = [
        migrations.CreateModel(
            name='Tally',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('taken', models.IntegerField(default=0, verbose_name='taken')),
                ('tiebreak', models.FloatField(default=0.0, verbose_name='tiebreak')),
            ],
            options={
                'verbose_name': 'tally',
                'verbose_name_plural': 'tallies',
            },
        ),
        migrations.CreateModel(
            name='TallyCover',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('items_upto', models.BigIntegerField(default=0, verbose_name='items up to id')),
                ('n_regular', models.PositiveIntegerField(default=0, verbose_name='regular items')),
                ('n_checks', models.PositiveIntegerField(default=0, verbose_name='attention checks')),
            ],
            options={
                'verbose_name': 'tally coverage',
                'verbose_name_plural': 'tally coverage',
            },
        ),
        migrations.AddIndex(
            model_name='assignment',
            index=models.Index(condition=models.Q(('status', 'claimed')), fields=['task', 'group', 'expires_at'], name='assignment_open_expiry'),
        ),
        migrations.AddField(
            model_name='tally',
            name='group',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, to='studies.group', verbose_name='group'),
        ),
        migrations.AddField(
            model_name='tally',
            name='item',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, to='studies.item', verbose_name='item'),
        ),
        migrations.AddField(
            model_name='tally',
            name='task',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, to='studies.task', verbose_name='task'),
        ),
        migrations.AddField(
            model_name='tallycover',
            name='group',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, to='studies.group', verbose_name='group'),
        ),
        migrations.AddField(
            model_name='tallycover',
            name='task',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, to='studies.task', verbose_name='task'),
        ),
        migrations.AddIndex(
            model_name='tally',
            index=models.Index(fields=['task', 'group', 'taken', 'tiebreak'], name='tally_next'),
        ),
        migrations.AddConstraint(
            model_name='tally',
            constraint=models.UniqueConstraint(fields=('item', 'group'), name='tally_unique'),
        ),
        migrations.AddConstraint(
            model_name='tallycover',
            constraint=models.UniqueConstraint(fields=('task', 'group'), name='tally_cover_unique'),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
