"""The bestiary, the referee's only: add several monsters from an entry (the campaign's own or
the starter bestiary), keep a monster's stat block, edit and remove entries, and the
campaign's bestiary as a file."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from combat import bestiary, table
from combat.access import Viewer, referee_for
from combat.bestiary_forms import AddFromBestiaryForm, EntryForm
from combat.models import BestiaryEntry, Combatant, Kind
from combat.transfer import MAX_BYTES, Refused
from combat.views.common import added_message, panel_reply, sent_before
from combat.views.transfer import CappedUpload


def _reply(
    request: HttpRequest, viewer: Viewer, *, status: int = 200, **extra: Any
) -> HttpResponse:
    """The bestiary panel: the add form, the campaign's entries and the starter's source."""
    own, starter = bestiary.offered(viewer.encounter)
    extra.setdefault("form", AddFromBestiaryForm(encounter=viewer.encounter))
    extra |= {"bestiary_own": own, "bestiary_starter": starter}
    response = panel_reply(request, viewer, "bestiary", **extra)
    if response.status_code == 200:
        response.status_code = status
    return response


def _entry(viewer: Viewer, pk: int) -> BestiaryEntry:
    """One of the encounter's campaign's entries (another campaign's is not found)."""
    return get_object_or_404(BestiaryEntry, pk=pk, campaign=viewer.encounter.campaign_id or -1)


@require_http_methods(["GET", "POST"])
def add(request: HttpRequest, slug: str) -> HttpResponse:
    """Add "3 hobgoblins": each with its own hit points rolled from the entry's Hit Dice,
    numbered as quick-add numbers them, announced to every screen at once."""
    viewer = referee_for(request, slug)
    form = AddFromBestiaryForm(request.POST or None, encounter=viewer.encounter)
    fresh = AddFromBestiaryForm(encounter=viewer.encounter)
    already = _("That form was sent twice; it was applied once.")
    if request.method == "POST" and sent_before(request, viewer):
        return _reply(request, viewer, done=True, form=fresh, message=already)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            added = bestiary.add_monsters(
                viewer,
                data["entry"],
                data["count"],
                side=data["side"],
                hidden=data["hidden"],
                once=data["once"],
            )
        except table.Repeated:
            return _reply(request, viewer, done=True, form=fresh, message=already)
        except Refused as refused:
            form.add_error("entry", refused.message)
            return _reply(request, viewer, form=form)
        # As quick-add says it.
        message = added_message({"count": len(added), "name": bestiary.shown_name(data["entry"])})
        return _reply(request, viewer, done=True, form=fresh, message=message)
    return _reply(request, viewer, form=form)


@require_POST
def save(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Keep a monster's stat block in the campaign's bestiary (one of the same name in this
    system is replaced): a second tap saves the same again."""
    viewer = referee_for(request, slug)
    combatant = get_object_or_404(
        Combatant.objects.exclude(kind=Kind.CHARACTER), pk=pk, encounter=viewer.encounter
    )
    try:
        entry, new = bestiary.save_from(combatant, viewer.encounter.campaign_or_new())
    except Refused as refused:
        return _reply(request, viewer, message=refused.message)
    return _reply(request, viewer, done=True, message=bestiary.saved_message(entry, new))


@require_http_methods(["GET", "POST"])
def edit(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    viewer = referee_for(request, slug)
    entry = _entry(viewer, pk)
    try:
        form = EntryForm(request.POST or None, entry=entry)
    except Refused as refused:  # stored by a Fray whose checks were looser: say what fails
        return _reply(request, viewer, message=refused.message)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            updated = BestiaryEntry.objects.filter(pk=entry.pk).update(
                name=form.cleaned_data["entry_name"], stats=form.stats
            )
        if not updated:  # removed meanwhile
            return _reply(request, viewer, message=_("That entry is no longer in the bestiary."))
        said = _("Saved %(name)s.") % {"name": form.cleaned_data["entry_name"]}
        return _reply(request, viewer, done=True, message=said)
    return _reply(request, viewer, entry_form=form, editing_entry=entry)


@require_POST
def delete(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Remove an entry; removing one already gone (a second tap) changes nothing. Monsters
    added from it stay on the table."""
    viewer = referee_for(request, slug)
    BestiaryEntry.objects.filter(pk=pk, campaign=viewer.encounter.campaign_id or -1).delete()
    return _reply(request, viewer, done=True)


@require_GET
def export(request: HttpRequest, slug: str) -> HttpResponse:
    """The campaign's bestiary as a file to download (the starter bestiary ships with Fray
    and stays out)."""
    viewer = referee_for(request, slug)
    response = HttpResponse(
        bestiary.export_json(viewer.encounter.campaign), content_type="application/json"
    )
    response["Content-Disposition"] = 'attachment; filename="fray-bestiary.json"'
    response["Cache-Control"] = "private, no-store"
    return response


@csrf_exempt  # checked below, once the cap is in place: the check reads the upload
@require_POST
def import_file(request: HttpRequest, slug: str) -> HttpResponse:
    request.upload_handlers.insert(0, CappedUpload(request))
    return _import_file(request, slug)


@csrf_protect
def _import_file(request: HttpRequest, slug: str) -> HttpResponse:
    """A bestiary file's entries into the campaign's bestiary; a refused file changes
    nothing and comes back with what was wrong."""
    viewer = referee_for(request, slug)
    upload = request.FILES.get("file")
    try:
        if getattr(request, "upload_too_large", False) or (
            upload is not None and upload.size is not None and upload.size > MAX_BYTES
        ):
            raise Refused(bestiary.BESTIARY_FILE.too_large)
        if upload is None:
            raise Refused(bestiary.BESTIARY_FILE.missing)
        done = bestiary.import_bestiary(
            upload.read(MAX_BYTES + 1), viewer.encounter.campaign_or_new()
        )
    except Refused as refused:
        # htmx swaps only a 200; a plain browser is told 400 with the page.
        status = 200 if request.htmx else 400
        return _reply(request, viewer, status=status, import_error=refused.message)
    message = _("Imported: %(added)s new, %(replaced)s replaced.") % {
        "added": done.added,
        "replaced": done.replaced,
    }
    return _reply(request, viewer, message=message)
