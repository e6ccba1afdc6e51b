"""The table display: a read-only page for a TV or projector, opened with its own link.

It shows what a player without a seat would see (the players' common view in the display's
language, from the live core), never more: no hidden combatant, no secret roll, foes' hit
points only when the encounter shows them to players. Its socket is that same audience
(``combat.live.consumers.DisplayConsumer``), so a display costs nothing per change beyond the view
every player in its language already gets.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.views.decorators.http import require_GET

from combat.access import grant_display, shows_display
from combat.live.state import Audience, build_views
from combat.models import Encounter


@require_GET
def display_link(request: HttpRequest, token: str) -> HttpResponse:
    """Exchange the display's token for a mark in this browser's session, then move to a
    clean URL so the token does not linger on the screen, in history or in referrers."""
    encounter = get_object_or_404(Encounter, display_token=token)
    grant_display(request.session, encounter)
    return redirect("display", encounter.slug)


@require_GET
def display(request: HttpRequest, slug: str) -> HttpResponse:
    """The display itself; 404 for a browser without the current display link's mark (an
    outsider learns nothing, not even that the encounter exists)."""
    encounter = Encounter.objects.filter(slug=slug).first()
    if encounter is None or not shows_display(request.session, encounter):
        raise Http404
    audience = display_audience(translation.get_language())
    built = build_views(encounter.pk, [audience], {})
    if built is None:  # removed between the two reads
        raise Http404
    state, view = built[0], built[1][audience]
    # The very fragments the display's socket sends, so the page and its updates agree; the
    # two sides share a box, which the page divides between them (fray.css).
    return render(
        request,
        "combat/display.html",
        {
            "encounter": state.encounter,
            "seq": view.seq,
            "sections": [view.moved, view.banner],
            "sides": [view.sections[s]() for s in ("party", "foes")],
            "after": [view.sections["log"](), view.marker()],
        },
    )


def display_audience(language: str) -> Audience:
    """Whom a display shows the table as: a player without a seat, in its language."""
    return Audience(referee=False, seat=None, language=language)
