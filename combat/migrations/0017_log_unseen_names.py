"""Entries written before ``combat.unseen`` do not say which combatants they name were hidden
then. The best guess left is who is hidden now: each entry players can read that names one of
them (in initiative lists, the round's lines, the fled) is stamped with them, so it stops
naming them to players. (Who was revealed since is named no longer than they are hidden.)"""

from __future__ import annotations

import json

from django.db import migrations

UNSEEN = "unseen"  # combat.unseen.UNSEEN, as it is when this migration is written


def _names(value, found: set[str]) -> None:
    if isinstance(value, str):
        found.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            _names(item, found)
    elif isinstance(value, list):
        for item in value:
            _names(item, found)


def stamp(apps, schema_editor) -> None:
    Combatant = apps.get_model("combat", "Combatant")
    LogEntry = apps.get_model("combat", "LogEntry")
    hidden: dict[int, dict[str, str]] = {}
    for encounter_id, name, side in Combatant.objects.filter(hidden=True).values_list(
        "encounter_id", "name", "side"
    ):
        hidden.setdefault(encounter_id, {})[name] = side
    for encounter_id, names in hidden.items():
        entries = LogEntry.objects.filter(encounter_id=encounter_id, secret=False)
        for entry in entries.only("pk", "data").iterator():
            if not isinstance(entry.data, dict) or UNSEEN in entry.data:
                continue
            text = json.dumps(entry.data, ensure_ascii=False)
            if not any(name in text for name in names):
                continue  # a quick look first: most entries name none of them
            found: set[str] = set()
            _names(entry.data, found)
            named = {name: side for name, side in names.items() if name in found}
            if named:
                LogEntry.objects.filter(pk=entry.pk).update(data=entry.data | {UNSEEN: named})


class Migration(migrations.Migration):
    dependencies = [("combat", "0016_bounds")]

    operations = [migrations.RunPython(stamp, migrations.RunPython.noop)]
