"""The referee's table: combatants, quick-add, settings, seats, links."""

from __future__ import annotations

from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from combat import bestiary, editing, party, table, zones
from combat.access import Viewer, grant_referee, referee_for
from combat.errors import Refused, message_for
from combat.forms import CombatantForm, EncounterSettingsForm, QuickAddForm, SeatGiveForm
from combat.models import Combatant, Kind, Seat
from combat.systems.common import converted_message
from combat.transfer import Refused as FileRefused
from combat.views.common import (
    added_message,
    encounter_url,
    page,
    panel_reply,
    saved_message,
    sent_before,
    sent_twice,
)
from rules import ose


def _kept(monster: Combatant, viewer: Viewer) -> str:
    """Said after quick-add kept the monsters' stat block in the bestiary (or why not)."""
    try:
        entry, new = bestiary.save_from(monster, viewer.encounter.campaign_or_new())
    except FileRefused as refused:
        return str(refused.message)
    return bestiary.saved_message(entry, new)


# What the next blank Add combatant form starts from: the last one's choices, kept per
# encounter in the referee's session (adding a party of characters, or a band of foes).
LAST_ADDED = "last_added"
KEPT_CHOICES = ("side", "kind", "body", "wings", "tail")


def _last_choices(request: HttpRequest, viewer: Viewer) -> dict[str, object]:
    kept = request.session.get(LAST_ADDED, {}).get(str(viewer.encounter.pk), {})
    return {name: kept[name] for name in KEPT_CHOICES if name in kept}


def _remember_choices(request: HttpRequest, viewer: Viewer, form: CombatantForm) -> None:
    data = form.cleaned_data
    kept = dict(request.session.get(LAST_ADDED, {}))
    kept[str(viewer.encounter.pk)] = {n: data[n] for n in KEPT_CHOICES if n in form.fields}
    request.session[LAST_ADDED] = kept


def _blank(request: HttpRequest, viewer: Viewer) -> CombatantForm:
    """A blank Add combatant form, starting from the last one's side, kind and body."""
    return CombatantForm(encounter=viewer.encounter, initial=_last_choices(request, viewer))


@require_http_methods(["GET", "POST"])
def combatant_new(request: HttpRequest, slug: str) -> HttpResponse:
    viewer = referee_for(request, slug)
    if request.method != "POST":
        return panel_reply(request, viewer, "combatant", form=_blank(request, viewer))
    form = CombatantForm(request.POST, encounter=viewer.encounter)
    if sent_before(request, viewer):
        return sent_twice(request, viewer, "combatant", _blank(request, viewer))
    if form.is_valid():
        try:
            with transaction.atomic():
                combatant = form.save(commit=False)
                combatant.encounter = viewer.encounter
                combatant.save()
                zones.sync(combatant, viewer.encounter)  # hit locations: its body's zones
                table.touch(viewer, form.cleaned_data["once"])
        except table.Repeated:
            return sent_twice(request, viewer, "combatant", _blank(request, viewer))
        _remember_choices(request, viewer, form)
        fresh = _blank(request, viewer)
        return panel_reply(request, viewer, "combatant", done=True, form=fresh, saved=combatant)
    return panel_reply(request, viewer, "combatant", form=form)


@require_http_methods(["GET", "POST"])
def combatant_edit(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    viewer = referee_for(request, slug)
    combatant = get_object_or_404(Combatant, pk=pk, encounter=viewer.encounter)
    form = CombatantForm(request.POST or None, instance=combatant, encounter=viewer.encounter)
    fresh = _blank(request, viewer)
    if request.method == "POST" and sent_before(request, viewer):
        return sent_twice(request, viewer, "combatant", fresh)
    if request.method == "POST" and form.is_valid():
        try:
            current = editing.save_edit(viewer, form, combatant)
        except table.Repeated:
            return sent_twice(request, viewer, "combatant", fresh)
        if form.conflicts:
            stale = form.with_current_values(current)
            return panel_reply(request, viewer, "combatant", form=stale, editing=current)
        return panel_reply(
            request,
            viewer,
            "combatant",
            done=True,
            saved=current,
            message=saved_message(form),
            form=fresh,
        )
    return panel_reply(request, viewer, "combatant", form=form, editing=combatant)


@require_POST
def combatant_delete(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Remove a combatant; removing one already gone (a second tap) changes nothing."""
    viewer = referee_for(request, slug)
    with transaction.atomic():
        removed, _by_model = Combatant.objects.filter(pk=pk, encounter=viewer.encounter).delete()
        if removed:
            table.touch(viewer)
    return panel_reply(request, viewer, "", done=True)


@require_POST
def combatant_toggle_hidden(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Hide or reveal: the button says which, so a second tap does not undo the first."""
    viewer = referee_for(request, slug)
    with transaction.atomic():
        combatant = get_object_or_404(
            Combatant.objects.select_for_update(), pk=pk, encounter=viewer.encounter
        )
        wanted = request.POST.get("hidden")
        hidden = wanted == "1" if wanted in ("0", "1") else not combatant.hidden
        if hidden != combatant.hidden:
            combatant.hidden = hidden
            combatant.save(update_fields=["hidden"])
            table.touch(viewer)
    return panel_reply(request, viewer, "", done=True)


@require_http_methods(["GET", "POST"])
def quick_add(request: HttpRequest, slug: str) -> HttpResponse:
    viewer = referee_for(request, slug)
    form = QuickAddForm(request.POST or None, encounter=viewer.encounter)
    fresh = QuickAddForm(encounter=viewer.encounter)
    if request.method == "POST" and sent_before(request, viewer):
        return sent_twice(request, viewer, "quick_add", fresh)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            with transaction.atomic():
                for number in range(1, data["count"] + 1):
                    hp = ose.monster_hit_points(data["hp_dice"], rng=table.UNLOGGED)
                    added = Combatant.objects.create(
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
                        morale=data["morale"],
                        **{f"save_{key}": value for key, value in data["saves"].items()},
                        **form.body_values(),
                        **form.monster_values(),
                    )
                    zones.sync(added, viewer.encounter)
                table.touch(viewer, data["once"])
        except table.Repeated:
            return sent_twice(request, viewer, "quick_add", fresh)
        said = added_message(data)
        if data["keep"]:  # their stat block into the campaign's bestiary (combat.bestiary)
            said = f"{said} {_kept(added, viewer)}"
        if not request.htmx:  # a plain post is redirected: the page it lands on says it
            messages.success(request, said)
        return panel_reply(request, viewer, "quick_add", done=True, form=fresh, message=said)
    return panel_reply(request, viewer, "quick_add", form=form)


@require_POST
def encounter_settings(request: HttpRequest, slug: str) -> HttpResponse:
    viewer = referee_for(request, slug)
    form = EncounterSettingsForm(request.POST, instance=viewer.encounter, prefix="settings")
    if form.is_valid() and not sent_before(request, viewer):
        try:
            current = editing.save_edit(viewer, form, viewer.encounter)
        except table.Repeated:  # sent twice at once: the other sending saved it
            return redirect(encounter_url(viewer))
        except Refused as refused:  # a value the other scale cannot hold: nothing changed
            viewer.encounter.refresh_from_db()
            form.add_error("system", message_for(refused))
            return page(request, viewer, settings_form=form)
        if form.conflicts:
            return page(request, viewer, settings_form=form.with_current_values(current))
        viewer.encounter.refresh_from_db()
        said = " ".join(
            str(part)
            for part in (saved_message(form), form.converted and converted_message(form.converted))
            if part
        )
        if not request.htmx:  # the page it is sent back to says it
            if form.converted is not None:
                messages.warning(request, said)
            return redirect(encounter_url(viewer))
        return panel_reply(request, viewer, "message", done=True, message=said or None)
    if form.is_valid():  # sent twice: the first sending saved it
        return redirect(encounter_url(viewer))
    return page(request, viewer, settings_form=form)


@require_POST
def new_links(request: HttpRequest, slug: str) -> HttpResponse:
    """New referee, join and display links: the old ones stop working at once, every other
    browser that opened the old referee link stops refereeing, and nobody follows the party
    here from the encounter before any more (``party.new_links``). Seated players keep their
    seats; this browser stays the referee."""
    viewer = referee_for(request, slug)
    with transaction.atomic():
        party.new_links(viewer)
    grant_referee(request.session, viewer.encounter)
    return redirect(encounter_url(viewer))


@require_POST
def seat_give(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Give a party member to this seat's player in one step, from the list of players."""
    viewer = referee_for(request, slug)
    seat = get_object_or_404(Seat, pk=pk, encounter=viewer.encounter)
    form = SeatGiveForm(request.POST, viewer=viewer, seat=seat)
    if not form.is_valid():
        said = " ".join(str(e) for errors in form.errors.values() for e in errors)
        if not request.htmx:
            messages.warning(request, said)
        return panel_reply(request, viewer, "message", done=not request.htmx, message=said)
    combatant = form.cleaned_data["combatant"]
    try:
        with transaction.atomic():
            party.give(viewer, combatant, seat, form.cleaned_data["once"])
    except table.Repeated:
        pass
    said = _("%(name)s is now played by %(seat)s.") % {"name": combatant.name, "seat": seat.name}
    if not request.htmx:
        messages.success(request, said)
    return panel_reply(request, viewer, "message", done=True, message=said)


@require_POST
def seat_remove(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Unseat a player: their browser loses access and their combatants go back to the
    referee. Unseating one already gone (a second tap) changes nothing."""
    viewer = referee_for(request, slug)
    with transaction.atomic():
        removed, _by_model = Seat.objects.filter(pk=pk, encounter=viewer.encounter).delete()
        if removed:
            table.touch(viewer)
    return panel_reply(request, viewer, "", done=True)
