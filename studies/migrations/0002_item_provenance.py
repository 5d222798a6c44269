"""Item provenance as indexed fields: source kind and model, generation sample, category
(and an index on the prompt condition), filled for the items stored before from their
poem source and meta by the rule of ``studies.provenance`` (frozen here). Going back
drops the fields; nothing is lost, since they are derived from columns that stay."""

from django.db import migrations, models

BATCH = 1000


def _whole(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and value >= 0:
        return value
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def provenance(poem_source, meta):
    meta = meta if isinstance(meta, dict) else {}
    text = (poem_source or "").strip()
    if not text:
        kind, model = "", ""
    elif text.startswith("model:"):
        kind, model = "model", text[len("model:"):].strip()
    else:
        kind, model = "human", ""
    raw = meta.get("category")
    prompt = meta.get("prompt")
    if raw in (None, "") and isinstance(prompt, dict):
        raw = prompt.get("category")
    category = "" if raw is None or isinstance(raw, (dict, list)) else str(raw).strip()[:100]
    return {
        "source_kind": kind,
        "source_model": model,
        "sample": _whole(meta.get("sample")),
        "category": category,
    }


def fill(apps, schema_editor):
    Item = apps.get_model("studies", "Item")
    batch = []
    for item in Item.objects.only("pk", "poem_source", "meta").iterator(chunk_size=BATCH):
        for key, value in provenance(item.poem_source, item.meta).items():
            setattr(item, key, value)
        batch.append(item)
        if len(batch) >= BATCH:
            Item.objects.bulk_update(batch, ["source_kind", "source_model", "sample", "category"])
            batch.clear()
    if batch:
        Item.objects.bulk_update(batch, ["source_kind", "source_model", "sample", "category"])


class Migration(migrations.Migration):

    dependencies = [
        ('studies', '0001_initial'),
    ]

    operations = [
        migrations.AddField(
            model_name='item',
            name='category',
            field=models.CharField(blank=True, db_index=True, max_length=100),
        ),
        migrations.AddField(
            model_name='item',
            name='sample',
            field=models.PositiveIntegerField(blank=True, db_index=True, null=True),
        ),
        migrations.AddField(
            model_name='item',
            name='source_kind',
            field=models.CharField(blank=True, choices=[('human', 'Human'), ('model', 'Model')], db_index=True, max_length=5),
        ),
        migrations.AddField(
            model_name='item',
            name='source_model',
            field=models.CharField(blank=True, db_index=True, max_length=200),
        ),
        migrations.AlterField(
            model_name='item',
            name='poem_condition',
            field=models.CharField(blank=True, db_index=True, max_length=100),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
