"""The party going on: the referee's next encounter with it, players following it there,
and the party as a file (``combat.party``)."""

from __future__ import annotations

from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from combat import party, table
from combat.access import Viewer, grant_referee, grant_seat, referee_for, viewer_for
from combat.errors import Refused as CannotConvert
from combat.errors import message_for
from combat.forms import ClaimForm
from combat.models import Encounter
from combat.party_forms import MoveOnForm, PartyFileForm
from combat.systems.common import converted_message
from combat.transfer import Refused
from combat.views.common import ALREADY_DONE, panel_reply
from combat.views.transfer import capped_upload, json_download, read_upload


def _go(request: HttpRequest, encounter: Encounter) -> HttpResponse:
    """To ``encounter``'s page: a whole page load, whether htmx asked or a plain form did
    (the page opens its own live connection)."""
    url = reverse("encounter", args=[encounter.slug])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@require_http_methods(["GET", "POST"])
def move_on(request: HttpRequest, slug: str) -> HttpResponse:
    """The next encounter with this party: the referee lands on it, its referee."""
    viewer = referee_for(request, slug)
    form = MoveOnForm(request.POST or None, viewer=viewer)
    if request.method == "POST" and table.first_result(viewer, request.POST.get("once", ""))[0]:
        return _went_on(request, viewer, form)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            new = party.move_on(
                viewer,
                name=data["name"],
                carried=data["carried"],
                once=data["once"],
                system=data["system"],
            )
        except table.Repeated:
            return _went_on(request, viewer, form)
        except Refused as refused:  # a member whose stored values no party file would take
            form.add_error(None, refused.message)
            return panel_reply(request, viewer, "party_next", form=form)
        except CannotConvert as refused:  # a value the new system's scale cannot hold
            form.add_error("system", message_for(refused))
            return panel_reply(request, viewer, "party_next", form=form)
        grant_referee(request.session, new)
        if new.converted is not None:  # said on the page the referee lands on
            messages.warning(request, converted_message(new.converted))
        return _go(request, new)
    return panel_reply(request, viewer, "party_next", form=form)


def _went_on(request: HttpRequest, viewer: Viewer, form: MoveOnForm) -> HttpResponse:
    """The form was sent twice: the referee goes where the first sending went."""
    went = (
        Encounter.objects.filter(pk=viewer.encounter.pk)
        .values_list("moved_on_to", flat=True)
        .first()
    )
    new = Encounter.objects.filter(pk=went).first() if went is not None else None
    if new is None:
        return panel_reply(request, viewer, "party_next", form=form, message=str(ALREADY_DONE))
    grant_referee(request.session, new)
    return _go(request, new)


@require_POST
def follow(request: HttpRequest, slug: str) -> HttpResponse:
    """Follow the party to the encounter it moved on to: a player takes the seat their seat
    here went on to, proven by this browser's mark for it; a referee referees it."""
    viewer = viewer_for(request, slug)
    found = party.destination(viewer)
    if found is None:
        messages.warning(
            request,
            _(
                "None of your characters went on with the party, so no seat waits for you "
                "there: ask the referee for its join link."
            ),
        )
        return _go(request, viewer.encounter)
    encounter, seat = found
    if seat is None:
        grant_referee(request.session, encounter)
    else:
        grant_seat(request.session, seat)
    return _go(request, encounter)


@require_GET
def export(request: HttpRequest, slug: str) -> HttpResponse:
    """The party side as a ``fray-party`` file: the referee's only."""
    encounter = referee_for(request, slug).encounter
    name = slugify(encounter.name) or "encounter"
    return json_download(party.export_json(encounter), f"fray-party-{name}.json")


@capped_upload
@require_http_methods(["GET", "POST"])
def import_file(request: HttpRequest, slug: str) -> HttpResponse:
    """A party file added to this encounter's party side; a refused file changes nothing and
    the form says why."""
    viewer = referee_for(request, slug)
    form = PartyFileForm(request.POST if request.method == "POST" else None)
    if request.method != "POST" or not form.is_valid():
        return panel_reply(request, viewer, "party_import", form=form)
    fresh = PartyFileForm()
    if table.first_result(viewer, form.cleaned_data["once"])[0]:
        return panel_reply(request, viewer, "party_import", form=fresh, message=str(ALREADY_DONE))
    try:
        raw = read_upload(request, party.PARTY_FILE)
        added = party.import_party(viewer, raw, form.cleaned_data["once"])
    except table.Repeated:
        return panel_reply(request, viewer, "party_import", form=fresh, message=str(ALREADY_DONE))
    except Refused as refused:
        form.add_error("file", refused.message)
        return panel_reply(request, viewer, "party_import", form=form)
    message = _("Added to the party: %(names)s.") % {"names": ", ".join(c.name for c in added)}
    if not request.htmx:  # a plain form is sent back to the page: the page says it
        messages.success(request, message)
    return panel_reply(request, viewer, "party_import", done=True, form=fresh, message=message)


@require_POST
def claim(request: HttpRequest, slug: str) -> HttpResponse:
    """A seated player takes a party member no one plays, when the settings allow it; of two
    claiming the same one at once, the other is told someone was first (``party.claim``)."""
    viewer = viewer_for(request, slug)
    form = ClaimForm(request.POST)
    said, done = None, False
    if not form.is_valid():
        said = _("That is not a party member you can claim.")
    else:
        once = form.cleaned_data["once"]
        try:
            with transaction.atomic():
                claimed = party.claim(viewer, form.cleaned_data["combatant"], once)
        except table.Repeated:
            said, done = str(ALREADY_DONE), True
        except party.ClaimRefused as refused:
            said = str(refused.message)
        else:
            said, done = _("%(name)s is yours to play now.") % {"name": claimed.name}, True
    if not request.htmx:  # a plain form goes back to the page, which says it
        (messages.success if done else messages.warning)(request, said)
    return panel_reply(request, viewer, "message", done=not request.htmx, message=said)
