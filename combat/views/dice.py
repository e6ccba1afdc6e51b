"""The server's dice, checked by anyone at the table (``combat.table.dice``): the page that
checks them in the browser, the proof document it reads, and the referee's new seal."""

from __future__ import annotations

from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import pgettext
from django.views.decorators.http import require_GET, require_POST

from combat import table
from combat.access import Viewer, referee_for, shows_display, viewer_of
from combat.models import Encounter
from combat.table import dice
from combat.views.common import encounter_url
from rules import fair


def reader_for(request: HttpRequest, slug: str) -> Viewer:
    """Who checks the dice: the referee, a player, or the table display (which shows the seal
    and the log as a player without a seat does); 404 for anyone else."""
    viewer = viewer_of(request.session, slug)
    if viewer is not None:
        return viewer
    encounter = Encounter.objects.filter(slug=slug).first()
    if encounter is None or not shows_display(request.session, encounter):
        raise Http404
    return Viewer(encounter, is_referee=False, seat=None)


@require_GET
def page(request: HttpRequest, slug: str) -> HttpResponse:
    """Every server die this viewer may see, checked here against the revealed seeds and what
    this browser saw as it happened (``static/dice-check.js``): nothing is taken on the
    server's word, and nothing needs the internet."""
    viewer = reader_for(request, slug)
    context = {
        "viewer": viewer,
        "encounter": viewer.encounter,
        # The table display has no encounter page of its own to go back to: its display.
        "back": encounter_url(viewer)
        if viewer.is_referee or viewer.seat
        else reverse("display", args=[slug]),
    }
    return render(request, "combat/dice.html", context)


@require_GET
def proofs(request: HttpRequest, slug: str) -> JsonResponse:
    """The proof document of the dice this viewer may see (``rules.fair.verify`` reads it).
    With ``?seeds``, its periods alone: what the log's marks need to check the rolls they
    carry (``static/dice-marks.js``), asked by every phone when a fight ends, so it stays the
    same few hundred bytes however long the log."""
    viewer = reader_for(request, slug)
    if "seeds" in request.GET:
        document = {"version": fair.VERSION, "periods": dice.periods(viewer.encounter)}
    else:
        document = dice.document(viewer.encounter, referee=viewer.is_referee)
    # What the log's marks say once they are checked (static/dice-marks.js), in the viewer's
    # language: the page does not carry these words to every phone's first load.
    document["words"] = {
        "verified": pgettext("server dice", "verified"),
        "failed": pgettext("server dice", "does not match"),
    }
    response = JsonResponse(document)
    response["Cache-Control"] = "private, no-store"
    return response


@require_POST
def rotate(request: HttpRequest, slug: str) -> HttpResponse:
    """The referee reveals the open period's seed now and seals a new one: every roll so far
    can be checked at once, and the next ones are sealed anew."""
    viewer = referee_for(request, slug)
    once = request.POST.get("once", "")
    try:
        with transaction.atomic():
            table.reveal(viewer.encounter)
            table.touch(viewer, once if table.usable_key(once) else "")
    except table.Repeated:
        pass  # sent twice: the first sending revealed it
    return redirect("dice", slug)
