"""The referee's table: combatants, quick-add, settings, seats."""

from __future__ import annotations

from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_http_methods, require_POST

from rules import ose

from .. import actions
from ..access import referee_for
from ..forms import CombatantForm, EncounterSettingsForm, QuickAddForm
from ..models import Combatant, Kind, Seat
from .common import encounter_url, page, panel_reply


@require_http_methods(["GET", "POST"])
def combatant_new(request: HttpRequest, slug: str) -> HttpResponse:
    viewer = referee_for(request, slug)
    form = CombatantForm(request.POST or None, encounter=viewer.encounter)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            combatant = form.save(commit=False)
            combatant.encounter = viewer.encounter
            combatant.save()
            actions.touch(viewer)
        return panel_reply(
            request,
            viewer,
            "combatant",
            done=True,
            form=CombatantForm(encounter=viewer.encounter),
            saved=combatant,
        )
    return panel_reply(request, viewer, "combatant", form=form)


@require_http_methods(["GET", "POST"])
def combatant_edit(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    viewer = referee_for(request, slug)
    combatant = get_object_or_404(Combatant, pk=pk, encounter=viewer.encounter)
    form = CombatantForm(request.POST or None, instance=combatant, encounter=viewer.encounter)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            form.save()
            actions.touch(viewer)
        return panel_reply(
            request,
            viewer,
            "combatant",
            done=True,
            saved=combatant,
            form=CombatantForm(encounter=viewer.encounter),
        )
    return panel_reply(request, viewer, "combatant", form=form, editing=combatant)


@require_POST
def combatant_delete(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    viewer = referee_for(request, slug)
    combatant = get_object_or_404(Combatant, pk=pk, encounter=viewer.encounter)
    with transaction.atomic():
        combatant.delete()
        actions.touch(viewer)
    return panel_reply(request, viewer, "", done=True)


@require_POST
def combatant_toggle_hidden(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    viewer = referee_for(request, slug)
    with transaction.atomic():
        combatant = get_object_or_404(
            Combatant.objects.select_for_update(), pk=pk, encounter=viewer.encounter
        )
        combatant.hidden = not combatant.hidden
        combatant.save(update_fields=["hidden"])
        actions.touch(viewer)
    return panel_reply(request, viewer, "", done=True)


@require_http_methods(["GET", "POST"])
def quick_add(request: HttpRequest, slug: str) -> HttpResponse:
    viewer = referee_for(request, slug)
    form = QuickAddForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        with transaction.atomic():
            for number in range(1, data["count"] + 1):
                hp = ose.monster_hit_points(data["hp_dice"], rng=actions.RNG)
                Combatant.objects.create(
                    encounter=viewer.encounter,
                    name=f"{data['name']} {number}" if data["count"] > 1 else data["name"],
                    side=data["side"],
                    kind=Kind.MONSTER,
                    ac=data["ac"],
                    hp_max=hp,
                    hp=hp,
                    hit_dice=data["hit_dice"],
                    thac0=data["thac0"],
                    hidden=data["hidden"],
                    **{f"save_{key}": value for key, value in data["saves"].items()},
                )
            actions.touch(viewer)
        return panel_reply(request, viewer, "quick_add", done=True, form=QuickAddForm())
    return panel_reply(request, viewer, "quick_add", form=form)


@require_POST
def encounter_settings(request: HttpRequest, slug: str) -> HttpResponse:
    viewer = referee_for(request, slug)
    form = EncounterSettingsForm(request.POST, instance=viewer.encounter, prefix="settings")
    if form.is_valid():
        with transaction.atomic():
            form.save()
            actions.touch(viewer)
        return (
            redirect(encounter_url(viewer))
            if not request.htmx
            else panel_reply(request, viewer, "", done=True)
        )
    return page(request, viewer, settings_form=form)


@require_POST
def seat_remove(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Unseat a player: their browser loses access and their combatants go back to the
    referee."""
    viewer = referee_for(request, slug)
    seat = get_object_or_404(Seat, pk=pk, encounter=viewer.encounter)
    with transaction.atomic():
        seat.delete()
        actions.touch(viewer)
    return panel_reply(request, viewer, "", done=True)
