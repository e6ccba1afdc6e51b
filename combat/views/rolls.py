"""Rolls and hit points: attacks, saving throws, ability checks, damage, healing, free rolls,
undo, and the odds shown before a roll."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from combat import actions, odds
from combat.access import Viewer, referee_for, viewer_as_rendered, viewer_for
from combat.errors import Refused, message_for
from combat.forms import (
    ActionForm,
    AttackForm,
    CheckForm,
    FreeRollForm,
    HitPointsForm,
    RestForm,
    SaveForm,
)
from combat.models import LogEntry, Stale
from combat.systems.becmi import actions as becmi
from combat.systems.becmi import forms as becmi_forms
from combat.systems.dolmenwood import actions as dolmenwood
from combat.systems.dolmenwood import forms as system_forms
from combat.views.common import act_once, panel_reply


def _refuse_foreign_actor(request: HttpRequest, viewer: Viewer) -> None:
    """Acting for a combatant this viewer does not control is refused outright (403), not
    merely reported as a bad choice: nothing changes."""
    actor = request.POST.get("actor", "")
    if not actor.isdigit():
        return  # no id at all: the form says so
    try:
        pk = int(actor)
    except ValueError:  # digits int() does not read ("²", or thousands of them): no one's id
        raise PermissionDenied from None
    if not any(c.pk == pk for c in viewer.controlled_list()):
        raise PermissionDenied


def _initial(request: HttpRequest) -> dict[str, Any]:
    """Prefill from the button that opened the form (?actor=3&category=death)."""
    return {
        key: value
        for key, value in request.GET.items()
        if key
        in {
            "actor",
            "target",
            "category",
            "ability",
            "action",
            "mode",
            "attack",  # a monster's attack button (combat.monsters)
        }
    }


# Each roll: its form, and the action its cleaned data is handed to (the form's field names
# are the action's keyword arguments).
ROLLS: dict[str, tuple[type[ActionForm], Callable[..., LogEntry]]] = {
    "attack": (AttackForm, actions.attack),
    "save": (SaveForm, actions.saving_throw),
    "check": (CheckForm, actions.ability_check),
    "hp": (HitPointsForm, actions.change_hit_points),
    "rest": (RestForm, actions.rest),
    "roll": (FreeRollForm, actions.free_roll),
    # Dolmenwood (combat.systems.dolmenwood; its views in combat.views.systems).
    "dw_attack": (system_forms.DolmenwoodAttackForm, dolmenwood.attack),
    "dw_save": (system_forms.SaveForm, dolmenwood.saving_throw),
    "dw_check": (system_forms.AbilityCheckForm, dolmenwood.ability_check),
    "dw_skill": (system_forms.SkillForm, dolmenwood.skill_check),
    "chance": (system_forms.ChanceForm, dolmenwood.chance_roll),
    # BECMI (combat.systems.becmi; its views in combat.views.systems).
    "becmi_attack": (becmi_forms.BecmiAttackForm, becmi.attack),
    "becmi_save": (becmi_forms.BecmiSaveForm, becmi.saving_throw),
}


def _roll_view(request: HttpRequest, slug: str, panel: str) -> HttpResponse:
    if request.method == "POST":
        # First on the table as this process last rendered it, reading nothing again: the
        # change confirms it was still the stored one. Anything else (another change came
        # first, a refusal, a mistake in the form) is decided again on what is stored.
        viewer = viewer_as_rendered(request.session, slug)
        if viewer is not None:
            with contextlib.suppress(Stale, PermissionDenied):
                posted = _posted(request, viewer, panel)
                if isinstance(posted, HttpResponse):
                    return posted
        viewer = viewer_for(request, slug)
        form = _posted(request, viewer, panel)
        if isinstance(form, HttpResponse):
            return form
    else:
        viewer = viewer_for(request, slug)
        _may_roll(viewer, panel)
        form = ROLLS[panel][0](viewer=viewer, initial=_initial(request))
    return panel_reply(request, viewer, panel, form=form, odds=odds.for_form(form))


def _may_roll(viewer: Viewer, panel: str) -> None:
    if panel == "hp" and not viewer.may_adjust_hit_points:
        raise PermissionDenied


def _posted(request: HttpRequest, viewer: Viewer, panel: str) -> HttpResponse | ActionForm:
    """The roll posted: its result shown, or, when nothing was applied, the form with what
    was wrong."""
    form_class, act = ROLLS[panel]
    _may_roll(viewer, panel)
    _refuse_foreign_actor(request, viewer)
    form = form_class(request.POST, viewer=viewer)
    once = request.POST.get("once", "")
    done, entry = act_once(viewer, once, form, lambda: act(viewer, **form.cleaned_data))
    return _rolled(request, viewer, panel, form, entry) if done else form


def _rolled(
    request: HttpRequest, viewer: Viewer, panel: str, form: ActionForm, entry: LogEntry | None
) -> HttpResponse:
    """The result, and the form again for the next roll: it keeps who acts and how, never an
    amount or a die typed in, and it carries a new one-time key.

    The new form reads the combatants anew (a new Viewer has not read them yet): the ones
    the request read before acting may have changed since, a target killed by this very roll.
    """
    after = dataclasses.replace(viewer)
    fresh = type(form)(viewer=after, initial=form.kept_values())
    return panel_reply(
        request, after, panel, done=True, form=fresh, result=entry, odds=odds.for_form(fresh)
    )


@require_http_methods(["GET", "POST"])
def attack(request: HttpRequest, slug: str) -> HttpResponse:
    return _roll_view(request, slug, "attack")


@require_http_methods(["GET", "POST"])
def saving_throw(request: HttpRequest, slug: str) -> HttpResponse:
    return _roll_view(request, slug, "save")


@require_http_methods(["GET", "POST"])
def ability_check(request: HttpRequest, slug: str) -> HttpResponse:
    return _roll_view(request, slug, "check")


@require_http_methods(["GET", "POST"])
def hit_points(request: HttpRequest, slug: str) -> HttpResponse:
    return _roll_view(request, slug, "hp")


@require_http_methods(["GET", "POST"])
def rest(request: HttpRequest, slug: str) -> HttpResponse:
    return _roll_view(request, slug, "rest")


@require_http_methods(["GET", "POST"])
def free_roll(request: HttpRequest, slug: str) -> HttpResponse:
    return _roll_view(request, slug, "roll")


@require_POST
def undo(request: HttpRequest, slug: str, seq: int) -> HttpResponse:
    viewer = referee_for(request, slug)
    entry = get_object_or_404(LogEntry, encounter=viewer.encounter, seq=seq)
    back = request.POST.get("next", "")
    if (not request.htmx or request.htmx.boosted) and back.startswith(reverse("log", args=[slug])):
        # From the whole-log page (no live panel there): apply, then back to that page. Its
        # form is boosted only so that htmx asks first (hx-confirm): the page comes back whole.
        try:
            actions.undo(viewer, entry)
        except (actions.AlreadyUndone, Refused):
            pass
        return redirect(back)
    try:
        result = actions.undo(viewer, entry)
    except Refused as refused:
        return panel_reply(request, viewer, "message", message=message_for(refused))
    except actions.AlreadyUndone as done:
        return panel_reply(
            request,
            viewer,
            "message",
            done=True,
            result=done.undo,
            message=_("That entry was already undone."),
        )
    return panel_reply(request, viewer, "message", done=True, result=result)


PREVIEWS = ("attack", "save", "check", "roll")


@require_GET
def odds_preview(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    """The odds of the roll the form describes so far, recomputed as the form changes."""
    viewer = viewer_for(request, slug)
    if kind not in PREVIEWS:
        return HttpResponse(status=404)
    form = ROLLS[kind][0](request.GET, viewer=viewer)
    return render(request, "combat/_odds.html", {"odds": odds.for_form(form)})
