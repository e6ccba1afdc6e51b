"""The referee's hand on a body: damage to a zone, a wound treated, a zone healed
(``combat.zones``), from the zone panel a combatant's row opens."""

from __future__ import annotations

import dataclasses

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET, require_http_methods

from combat import zones
from combat.access import Viewer, referee_for, viewer_for
from combat.body_fields import directions_for, preview_plan
from combat.forms import by_pk
from combat.models import Combatant
from combat.views.common import act_once, panel_reply
from combat.zone_forms import ZoneForm


def _combatant(viewer: Viewer, pk: int) -> Combatant:
    """One of this encounter's combatants, when it plays hit locations (else: not found)."""
    if not viewer.encounter.hit_locations:
        raise Http404
    return get_object_or_404(Combatant, pk=pk, encounter=viewer.encounter)


def _panel(
    request: HttpRequest, viewer: Viewer, combatant: Combatant, form: ZoneForm, **extra
) -> HttpResponse:
    return panel_reply(
        request,
        viewer,
        "zone",
        form=form,
        zone_combatant=combatant,
        zone_state=zones.state_of(combatant),
        **extra,
    )


def _act(viewer: Viewer, form: ZoneForm):
    data, combatant = form.cleaned_data, form.combatant
    once = data["once"]
    if data["action"] == "treat":
        return zones.treat(viewer, combatant=combatant, zone=data["zone"], once=once)
    if data["action"] == "heal":
        return zones.heal(
            viewer, combatant=combatant, zone=data["zone"], amount=data["amount"], once=once
        )
    return zones.damage_zone(
        viewer,
        combatant=combatant,
        zone=data["zone"],
        amount=data["amount"],
        label=data["label"],
        wound_dice=data.get("wound_dice"),
        once=once,
    )


@require_http_methods(["GET", "POST"])
def zone(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    viewer = referee_for(request, slug)
    combatant = _combatant(viewer, pk)
    if request.method == "GET":
        wanted = {key: request.GET[key] for key in ("zone", "action") if key in request.GET}
        form = ZoneForm(viewer=viewer, combatant=combatant, initial=wanted)
        return _panel(request, viewer, combatant, form)
    form = ZoneForm(request.POST, viewer=viewer, combatant=combatant)
    done, entry = act_once(viewer, request.POST.get("once", ""), form, lambda: _act(viewer, form))
    if not done:
        return _panel(request, viewer, combatant, form)
    fresh_viewer = dataclasses.replace(viewer)
    combatant.refresh_from_db()
    fresh = ZoneForm(viewer=fresh_viewer, combatant=combatant, initial=form.kept_values())
    return _panel(request, fresh_viewer, combatant, fresh, done=True, result=entry)


@require_GET
def directions(request: HttpRequest, slug: str) -> HttpResponse:
    """The attack form's direction field for the target it names now: only the directions
    that target's body can be attacked from (the form swaps it in when the target changes)."""
    viewer = viewer_for(request, slug)
    if not viewer.encounter.hit_locations:
        raise Http404
    target = by_pk(viewer.visible_list(), request.GET.get("target"))
    choices = directions_for(target)
    keys = [key for key, _label in choices]
    wanted = request.GET.get("direction")
    chosen = wanted if wanted in keys else ("front" if "front" in keys else keys[0])
    return render(
        request,
        "combat/_zone_directions.html",
        {"choices": choices, "chosen": chosen, "target": target},
    )


@require_GET
def body_preview(request: HttpRequest, slug: str) -> HttpResponse:
    """The body the combatant form describes so far, drawn under its field."""
    referee_for(request, slug)
    return render(request, "combat/_body_preview.html", {"plan": preview_plan(request.GET)})
