"""Characters: THAC0 and saves filled as a class and level are chosen, and a combatant's notes,
which its player edits from their phone as the referee does."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_http_methods

from combat import editing, table
from combat.access import Viewer, referee_for, viewer_for
from combat.character_forms import NotesForm, fill_form
from combat.models import Combatant
from combat.views.common import panel_reply, saved_message, sent_before, sent_twice


@require_GET
def combatant_fill(request: HttpRequest, slug: str) -> HttpResponse:
    """The combatant form's THAC0 and saves for the class and level just chosen, swapped in
    by their ids; nothing (204) when there is nothing to fill."""
    viewer = referee_for(request, slug)
    fields = fill_form(viewer.encounter, request.GET)
    if not fields:
        return HttpResponse(status=204)
    return render(request, "combat/_character_fill.html", {"fields": fields})


def _own(viewer: Viewer, pk: int) -> Combatant:
    """The combatant ``pk`` if the viewer controls it: the referee any, a player their own;
    anyone else's is not found (a forged id learns nothing)."""
    found = next((c for c in viewer.controlled_list() if c.pk == pk), None)
    if found is None:
        raise Http404
    return found


@require_http_methods(["GET", "POST"])
def combatant_notes(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    viewer = viewer_for(request, slug)
    combatant = _own(viewer, pk)
    form = NotesForm(request.POST or None, instance=combatant)
    if request.method == "POST" and sent_before(request, viewer):
        return sent_twice(request, viewer, "notes", NotesForm(instance=combatant))
    if request.method == "POST" and form.is_valid():
        try:
            current = editing.save_edit(viewer, form, combatant)
        except table.Repeated:
            return sent_twice(request, viewer, "notes", NotesForm(instance=combatant))
        if form.conflicts:
            stale = form.with_current_values(current)
            return panel_reply(request, viewer, "notes", form=stale, editing=current)
        return panel_reply(
            request,
            viewer,
            "notes",
            done=True,
            saved=current,
            message=saved_message(form),
            form=NotesForm(instance=current),
            editing=current,
        )
    return panel_reply(request, viewer, "notes", form=form, editing=combatant)
