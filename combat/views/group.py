"""The referee's group rolls: a group attack, an area effect, and their odds before the roll.

Only the referee rolls for a group (players get 403). A form sent twice shows what its first
sending did, as every roll form does (see ``panels.roll_view``). The registry names
the rules systems that offer them.
"""

from __future__ import annotations

import dataclasses

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from combat import group, table
from combat.access import Viewer, referee_for, viewer_for
from combat.errors import Refused, message_for
from combat.group_forms import GroupForm
from combat.models import LogEntry, PendingSave
from combat.registry import Panel
from combat.views.common import act_once, panel_reply
from combat.views.panels import opened_by
from rules.errors import RulesError


def _group_referee(request: HttpRequest, slug: str, panel: Panel) -> Viewer:
    """The referee, at a table whose rules offer this group roll (the registry says which)."""
    viewer = referee_for(request, slug)
    opened_by(viewer, panel)
    return viewer


def panel(request: HttpRequest, slug: str, panel: Panel) -> HttpResponse:
    """A group roll's form (GET), or the form posted: every entry the action made, the first
    standing for them (as a one-time key's first result)."""
    viewer = _group_referee(request, slug, panel)
    if request.method != "POST":
        return _reply(request, viewer, panel.key, panel.form(viewer=viewer))
    form = panel.form(request.POST, viewer=viewer)
    once = request.POST.get("once", "")
    done, entry = act_once(
        viewer, once, form, lambda: panel.act(viewer, **form.action_arguments())[0]
    )
    if done:
        return _applied(request, viewer, panel.key, form, entry)
    return _reply(request, viewer, panel.key, form)


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


def odds(request: HttpRequest, slug: str, panel: Panel) -> HttpResponse:
    """Each attack's or each target's odds as the form describes them so far, recomputed as
    the form changes."""
    viewer = _group_referee(request, slug, panel)
    form = panel.form(request.GET, viewer=viewer)
    return render(request, "combat/_group_odds.html", {"form": form, "panel": panel.key})


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
        with table.server_dice(viewer.encounter, request.POST.get("dice", "")):
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
