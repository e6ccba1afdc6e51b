"""Pages people open: home, the referee and join links, the encounter, the log, the QR code."""

from __future__ import annotations

import io
from urllib.parse import quote, unquote

import segno
from django.core.paginator import Paginator
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from combat import table
from combat.access import Viewer, grant_referee, grant_seat, refereed_ids, seat_in, viewer_for
from combat.forms import EncounterForm, JoinForm
from combat.live.state import visible_log
from combat.models import Encounter, Seat
from combat.views.common import encounter_url, page, shareable_url


@require_http_methods(["GET", "POST"])
def home(request: HttpRequest) -> HttpResponse:
    form = EncounterForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        encounter = form.save()
        grant_referee(request.session, encounter)
        return redirect("encounter", encounter.slug)
    return render(request, "combat/home.html", {"form": form, "mine": my_encounters(request)})


def my_encounters(request: HttpRequest) -> list[Encounter]:
    """Encounters this browser referees or sits in, newest first, to reopen them."""
    ids = refereed_ids(request.session)
    ids |= {int(pk) for pk in request.session.get("seats", {})}
    return list(Encounter.objects.filter(pk__in=ids)[:20])


@require_GET
def referee_link(request: HttpRequest, key: str) -> HttpResponse:
    """Exchange the secret referee key for a mark in this browser's session, then move to a
    clean URL so the key does not linger in history or referrers."""
    encounter = get_object_or_404(Encounter, referee_key=key)
    grant_referee(request.session, encounter)
    return redirect("encounter", encounter.slug)


# The name a player joined with last, kept in their browser for the next join link (a
# cookie, so the form is filled without JavaScript too); percent-encoded: names are Unicode.
NAME_COOKIE = "fray_name"
NAME_COOKIE_AGE = 365 * 24 * 3600


def remembered_name(request: HttpRequest) -> str:
    name = unquote(request.COOKIES.get(NAME_COOKIE, ""))
    return name.strip()[: JoinForm.base_fields["name"].max_length]


def _joined(request: HttpRequest, encounter: Encounter, name: str) -> HttpResponse:
    response = redirect("encounter", encounter.slug)
    response.set_cookie(
        NAME_COOKIE, quote(name), max_age=NAME_COOKIE_AGE, samesite="Lax", httponly=True
    )
    return response


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, token: str) -> HttpResponse:
    encounter = get_object_or_404(Encounter, join_token=token)
    if seat_in(request.session, encounter) is not None:
        return redirect("encounter", encounter.slug)
    form = JoinForm(request.POST or None, initial={"name": remembered_name(request)})
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                seat = Seat.objects.create(encounter=encounter, name=form.cleaned_data["name"])
                table.touch(
                    Viewer(encounter, is_referee=False, seat=seat), form.cleaned_data["once"]
                )
        except table.Repeated:
            # Sent twice at once: the first sending took the seat and set this browser's
            # session; this answer leaves the session as that one left it.
            return redirect("encounter", encounter.slug)
        grant_seat(request.session, seat)
        return _joined(request, encounter, seat.name)
    return render(request, "combat/join.html", {"form": form, "encounter": encounter})


@require_GET
def encounter(request: HttpRequest, slug: str) -> HttpResponse:
    return page(request, viewer_for(request, slug))


@require_GET
def log(request: HttpRequest, slug: str) -> HttpResponse:
    """The whole roll log, a page at a time."""
    viewer = viewer_for(request, slug)
    log_page = Paginator(visible_log(viewer), 100).get_page(request.GET.get("page"))
    return render(
        request,
        "combat/log.html",
        {
            "viewer": viewer,
            "encounter": viewer.encounter,
            "log_page": log_page,
            "back": encounter_url(viewer),
            "show_numbers": viewer.is_referee or viewer.encounter.show_foe_hp,
            "on_log_page": True,
            # The server dice's seal: the entries' dice are shown and checked against it.
            "seal": table.seal(viewer.encounter, referee=viewer.is_referee),
        },
    )


@require_GET
def join_qr(request: HttpRequest, slug: str) -> HttpResponse:
    """The join link as an SVG QR code, for players to scan from the referee's screen."""
    viewer = viewer_for(request, slug)
    url = shareable_url(request, reverse("join", args=[viewer.encounter.join_token]))
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="svg", scale=6, border=2, dark="#111")
    response = HttpResponse(buffer.getvalue(), content_type="image/svg+xml")
    response["Cache-Control"] = "private, no-store"
    return response
