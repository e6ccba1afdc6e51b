"""Encounter.display_token: the table display's own link (read-only, replaced with the others).

Added empty, filled with a fresh token per encounter, then made unique: a default on
``AddField`` would give every existing encounter the same token.
"""

from __future__ import annotations

from django.db import migrations, models

import combat.models


def fill_tokens(apps, schema_editor) -> None:
    Encounter = apps.get_model("combat", "Encounter")
    for encounter in Encounter.objects.filter(display_token=None).only("pk"):
        encounter.display_token = combat.models._display_token()
        encounter.save(update_fields=["display_token"])


class Migration(migrations.Migration):
    dependencies = [
        ("combat", "0013_saves_as"),
    ]

    operations = [
        migrations.AddField(
            model_name="encounter",
            name="display_token",
            field=models.CharField(max_length=64, null=True),
        ),
        migrations.RunPython(fill_tokens, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="encounter",
            name="display_token",
            field=models.CharField(
                default=combat.models._display_token, max_length=64, unique=True
            ),
        ),
    ]
