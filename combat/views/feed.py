"""A player's personal feed (``combat.live.feed``): "Seen" dismisses what it shows."""

from __future__ import annotations

import re

from django.core.exceptions import PermissionDenied
from django.db.models import F
from django.db.models.functions import Greatest
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from combat.access import viewer_for
from combat.live.state import live_context
from combat.models import Seat
from combat.views.common import encounter_url

TURN = re.compile(r"\d{1,10}:\d{1,10}")


@require_POST
def seen(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The seat's player has seen their feed as it was drawn: its entries up to the number
    it sent, and "your side acts" for the turn it sent. Saves owed stay until rolled. Only
    the seat's own player may (403 for anyone else, the referee too); what the form sends
    is read as far as it makes sense, never past the log's last number."""
    viewer = viewer_for(request, slug)
    if viewer.is_referee or viewer.seat is None or viewer.seat.pk != pk:
        raise PermissionDenied
    encounter = viewer.encounter
    sent = request.POST.get("seen", "").strip()
    upto = min(int(sent), encounter.public_seq) if sent.isdigit() and len(sent) < 19 else 0
    turn = request.POST.get("turn", "").strip()
    seat = Seat.objects.filter(pk=pk, encounter=encounter)
    if upto:
        seat.update(feed_seen=Greatest(F("feed_seen"), upto))
    if TURN.fullmatch(turn):
        seat.update(feed_turn_seen=turn)
    if not request.htmx:
        return redirect(encounter_url(viewer))
    return render(request, "combat/_feed.html", live_context(viewer) | {"oob": False})
