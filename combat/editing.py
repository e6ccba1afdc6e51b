"""Saving an edit form: what it changed and nothing else, and what follows from that.

A combatant's hit points change as a logged correction (``combat.table``); a body or hit
locations turned on give zone states (``combat.zones``); another rules system gives the
monsters that system's THAC0 and converts armour class and attack values to its scale
(``combat.systems.common``). Above the toolkit, beside the zones.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.db import transaction
from django.db.models import Model

from combat import table, zones
from combat.access import Viewer
from combat.models import Combatant
from combat.systems import common as systems


@transaction.atomic
def save_edit(viewer: Viewer, form: Any, row: Model, once: str = "") -> Model:
    """Write what an edit form (a ``MergingForm``) changed on ``row``, and nothing else.

    The row is locked and read again first, so a field someone else changed since the form
    was opened is never overwritten: the form records a conflict and nothing is written. A
    combatant's hit points change only as a logged correction. Returns the row as it is now.
    A change of rules system that converted the combatants' values leaves what it wrote in
    ``form.converted`` (else None); one that cannot be converted raises ``Refused`` (nothing
    written).
    """
    form.converted = None
    current = type(row).objects.select_for_update().get(pk=row.pk)
    changes = form.changes(current)
    if form.conflicts:
        return current
    hp = changes.pop("hp", None) if isinstance(current, Combatant) else None
    played = getattr(current, "system", "")
    # The rules system is fixed from the first roll: checked again here.
    if "system" in changes and systems.has_rolled(current):
        changes.pop("system")
    for name, value in changes.items():
        setattr(current, name, value)
    if changes:
        current.save(update_fields=list(changes))
        _sync_zones(viewer, current)
    if "system" in changes:
        systems.system_changed(current)
        as_now = dataclasses.replace(viewer, encounter=current)
        form.converted = systems.convert_scales(as_now, played)
    if hp is not None:
        table.correct_hit_points(viewer, actor=current, hp=hp)
    table.touch(viewer, once or form.cleaned_data.get("once", ""))
    return current


def _sync_zones(viewer: Viewer, row: Model) -> None:
    """Hit locations turned on, or a body changed: the zone states follow (combat.zones)."""
    if isinstance(row, Combatant):
        zones.sync(row, viewer.encounter)
    elif row.pk == viewer.encounter.pk and getattr(row, "hit_locations", False):
        viewer.encounter.hit_locations = True
        zones.sync_all(row)
