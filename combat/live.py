"""Live updates: announce a change after commit, and render what one viewer may see.

A broadcast carries only the encounter's sequence number; each connected consumer renders the
fragments for its own viewer (role, seat, language). Every message is a full snapshot of the
live fragments, so a message dropped by the channel layer is repaired by the next one, and a
browser that reconnects or wakes asks for one.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from .access import Viewer
from .models import Encounter, LogEntry, Side


def announce(encounter: Encounter) -> None:
    """Tell every browser on ``encounter`` once the current transaction commits."""
    group, seq = encounter.group_name, encounter.seq

    def send() -> None:
        layer = get_channel_layer()
        if layer is not None:
            async_to_sync(layer.group_send)(group, {"type": "encounter.changed", "seq": seq})

    transaction.on_commit(send)


def visible_log(viewer: Viewer) -> QuerySet[LogEntry]:
    """The log entries ``viewer`` may see: players only those with a number of theirs."""
    log = viewer.encounter.log.select_related("undone_by")
    if not viewer.is_referee:
        log = log.filter(public_seq__isnull=False)
    return log


def live_context(viewer: Viewer) -> dict[str, Any]:
    """Everything the live fragments need, filtered to what ``viewer`` may see."""
    encounter = viewer.encounter
    combatants = list(viewer.visible_combatants())
    log = visible_log(viewer)
    return {
        "viewer": viewer,
        "encounter": encounter,
        "party": [c for c in combatants if c.side == Side.PARTY],
        "foes": [c for c in combatants if c.side == Side.FOES],
        "controlled_ids": {c.pk for c in combatants if viewer.can_control(c)},
        "show_numbers": viewer.is_referee or encounter.show_foe_hp,
        "log_entries": list(log[: settings.FRAY_LOG_PAGE]),
        "seats": list(encounter.seats.all()) if viewer.is_referee else [],
        # Reversed once, not once per combatant row: a snapshot is rendered for every socket.
        "action_urls": {
            name: reverse(name, args=[encounter.slug])
            for name in ("attack", "save", "check", "hit_points", "rest")
        },
    }


def render_snapshot(viewer: Viewer, language: str) -> tuple[int, str]:
    """The live fragments as out-of-band swaps, in ``language``: the websocket message, with
    the sequence number it shows at least."""
    viewer.encounter.refresh_from_db()
    with translation.override(language):
        context = live_context(viewer) | {"oob": True}
        return viewer.encounter.seq, render_to_string("combat/_live.html", context)
