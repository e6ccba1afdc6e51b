"""The referee's group rolls: a group attack, an area effect, and their odds before the roll.

Only the referee rolls for a group (players get 403). A form sent twice shows what its first
sending did, as every roll form does (see ``rolls._roll_view``).
"""

from __future__ import annotations

import dataclasses

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from combat import group
from combat.access import Viewer, referee_for, viewer_for
from combat.errors import Refused, message_for
from combat.group_forms import AreaEffectForm, GroupAttackForm, GroupForm
from combat.models import LogEntry, PendingSave, RulesSystem
from combat.views.common import act_once, panel_reply
from rules.errors import RulesError

# Each panel: its form, and the action its ``action_arguments`` are handed to.
PANELS = {
    "group_attack": (GroupAttackForm, group.attack_together),
    "area": (AreaEffectForm, group.area_effect),
}


def _group_referee(request: HttpRequest, slug: str) -> Viewer:
    """The referee, at a table whose rules the group rolls follow: OSE's attack matrix and
    save categories (Dolmenwood's and BECMI's tables do not offer them)."""
    viewer = referee_for(request, slug)
    if viewer.encounter.system != RulesSystem.OSE:
        raise Http404
    return viewer


def _group_view(request: HttpRequest, slug: str, panel: str) -> HttpResponse:
    viewer = _group_referee(request, slug)
    form_class, act = PANELS[panel]
    if request.method != "POST":
        return _reply(request, viewer, panel, form_class(viewer=viewer))
    form = form_class(request.POST, viewer=viewer)
    once = request.POST.get("once", "")
    # Every entry the action made; the first one stands for them (as a key's first result).
    done, entry = act_once(viewer, once, form, lambda: act(viewer, **form.action_arguments())[0])
    if done:
        return _applied(request, viewer, panel, form, entry)
    return _reply(request, viewer, panel, form)


def _reply(
    request: HttpRequest, viewer: Viewer, panel: str, form: GroupForm, **extra: object
) -> HttpResponse:
    return panel_reply(request, viewer, panel, form=form, **extra)


def _applied(
    request: HttpRequest, viewer: Viewer, panel: str, form: GroupForm, entry: LogEntry | None
) -> HttpResponse:
    """The whole group's entries, and the form again for the next roll. The new form reads
    the combatants anew: the group may have killed some of them."""
    after = dataclasses.replace(viewer)
    fresh = type(form)(viewer=after, initial=form.kept_values())
    results = group.entries_of(after, entry)
    return _reply(request, after, panel, fresh, done=True, results=results)


@require_http_methods(["GET", "POST"])
def group_attack(request: HttpRequest, slug: str) -> HttpResponse:
    return _group_view(request, slug, "group_attack")


@require_http_methods(["GET", "POST"])
def area_effect(request: HttpRequest, slug: str) -> HttpResponse:
    return _group_view(request, slug, "area")


@require_GET
def odds_preview(request: HttpRequest, slug: str, panel: str) -> HttpResponse:
    """Each attack's or each target's odds as the form describes them so far, recomputed as
    the form changes."""
    viewer = _group_referee(request, slug)
    if panel not in PANELS:
        return HttpResponse(status=404)
    form = PANELS[panel][0](request.GET, viewer=viewer)
    return render(request, "combat/_group_odds.html", {"form": form, "panel": panel})


@require_POST
def pending_save(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """A save an area effect left to a player, rolled from their character's row: by its
    player (a die rolled at the table where the referee allows it), or by the referee."""
    viewer = viewer_for(request, slug)
    pending = get_object_or_404(
        PendingSave.objects.select_related("combatant"), pk=pk, encounter=viewer.encounter
    )
    if not viewer.can_control(pending.combatant):
        raise PermissionDenied
    natural, problem = _typed_d20(viewer, request.POST.get("natural", ""))
    if problem:
        return panel_reply(request, viewer, "message", message=problem)
    try:
        entry = group.roll_pending_save(viewer, pending, natural)
    except group.AlreadyRolled as rolled:
        entry = rolled.entry
    except (RulesError, Refused) as error:
        return panel_reply(request, viewer, "message", message=message_for(error))
    if entry is None:
        dead = Refused("dead_cannot_act", name=pending.combatant.name)
        return panel_reply(request, viewer, "message", message=message_for(dead))
    return panel_reply(request, viewer, "message", done=True, result=entry)


def _typed_d20(viewer: Viewer, typed: str) -> tuple[int | None, str]:
    """The d20 typed in (None: the server rolls), or why it cannot be used."""
    typed = typed.strip()
    if not typed:
        return None, ""
    if not viewer.may_enter_dice:
        return None, _("The referee has the server roll for players: leave the dice empty.")
    if not typed.isdigit() or len(typed) > 2 or not 1 <= int(typed) <= 20:
        return None, _("A d20 shows 1 to 20.")
    return int(typed), ""
