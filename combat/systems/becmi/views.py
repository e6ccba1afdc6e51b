"""BECMI's special actions at the table (``combat.systems.becmi.special``): striking, wrestling and
naval combat, each a panel with its form and its odds before the roll, offered only on a table
playing BECMI / Rules Cyclopedia."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from combat.access import Viewer, viewer_for
from combat.errors import Refused
from combat.models import LogEntry, RulesSystem, Wrestle
from combat.systems.becmi import special as special
from combat.systems.becmi import special_forms as forms
from combat.views.common import act_once, panel_reply
from combat.views.rolls import _refuse_foreign_actor
from rules.errors import RulesError

# Each panel: its form, the action its cleaned data goes to, and whether only the referee may.
PANELS: dict[str, tuple[type[forms.ActionForm], Callable[..., Any], bool]] = {
    "bx_strike": (forms.StrikeForm, special.strike, False),
    "bx_wrestle": (forms.WrestleStartForm, special.start_wrestle, False),
    "bx_wrestle_round": (forms.WrestleRoundForm, special.wrestle_round, False),
    "bx_wrestle_end": (forms.WrestleEndForm, special.end_wrestle, True),
    "bx_ship": (forms.ShipForm, special.add_ship, True),
    "bx_ram": (forms.RamForm, special.ram, False),
    "bx_grapple": (forms.GrappleForm, special.grapple, False),
    "bx_board": (forms.BoardingForm, special.board, False),
    "bx_hull": (forms.HullDamageForm, special.hull_damage, True),
    "bx_repair": (forms.RepairForm, special.repair, False),
    "bx_rowers": (forms.RowersForm, special.lose_rowers, True),
    "bx_repairs_fail": (forms.RepairsFailForm, special.repairs_fail, True),
}
PREFILL = {"actor", "target", "wrestle"}


def _viewer(request: HttpRequest, slug: str, panel: str) -> Viewer:
    """The viewer, if this table plays BECMI and the viewer may open ``panel``."""
    viewer = viewer_for(request, slug)
    if viewer.encounter.system != RulesSystem.BECMI or panel not in PANELS:
        raise Http404
    if PANELS[panel][2] and not viewer.is_referee:
        raise PermissionDenied
    return viewer


def _refuse_foreign_wrestle(request: HttpRequest, viewer: Viewer) -> None:
    """A round of a hold the player has no part in is refused outright (403)."""
    wanted = request.POST.get("wrestle", "")
    if viewer.is_referee or not wanted.isascii() or not wanted.isdigit() or len(wanted) > 18:
        return  # not an id at all ("²" is a digit to Python, not to int()): the form says so
    found = (
        Wrestle.objects.filter(pk=int(wanted), encounter=viewer.encounter)
        .select_related("attacker", "defender")
        .first()
    )
    if found is not None and not (
        viewer.can_control(found.attacker) or viewer.can_control(found.defender)
    ):
        raise PermissionDenied


def odds_of(form: forms.ActionForm) -> Any:
    try:
        return form.special_odds()
    except (RulesError, Refused, KeyError, AttributeError, TypeError, ValueError):
        return None


def _act(request: HttpRequest, slug: str, panel: str) -> HttpResponse:
    viewer = _viewer(request, slug, panel)
    form_class, act, _referee_only = PANELS[panel]
    if request.method == "POST":
        _refuse_foreign_actor(request, viewer)
        _refuse_foreign_wrestle(request, viewer)
        form = form_class(request.POST, viewer=viewer)
        once = request.POST.get("once", "")
        done, entry = act_once(viewer, once, form, lambda: act(viewer, **form.cleaned_data))
        if done:
            return _acted(request, viewer, panel, form, entry)
    else:
        initial = {k: v for k, v in request.GET.items() if k in PREFILL}
        form = form_class(viewer=viewer, initial=initial)
    return panel_reply(request, viewer, panel, form=form, odds=odds_of(form))


def _acted(
    request: HttpRequest, viewer: Viewer, panel: str, form: forms.ActionForm, result: Any
) -> HttpResponse:
    """The result, and the form again for the next one (a new one-time key)."""
    after = dataclasses.replace(viewer)
    fresh = type(form)(viewer=after, initial=form.kept_values())
    extra: dict[str, Any] = {"form": fresh, "odds": odds_of(fresh)}
    if isinstance(result, LogEntry):
        extra["result"] = result
    elif result is not None:
        extra["message"] = _("Added %(name)s.") % {"name": result.name}
    return panel_reply(request, after, panel, done=True, **extra)


def _view(panel: str) -> Callable[[HttpRequest, str], HttpResponse]:
    @require_http_methods(["GET", "POST"])
    def view(request: HttpRequest, slug: str) -> HttpResponse:
        return _act(request, slug, panel)

    view.__name__ = panel
    return view


strike = _view("bx_strike")
wrestle = _view("bx_wrestle")
wrestle_round = _view("bx_wrestle_round")
wrestle_end = _view("bx_wrestle_end")
ship = _view("bx_ship")
ram = _view("bx_ram")
grapple = _view("bx_grapple")
board = _view("bx_board")
hull = _view("bx_hull")
repair = _view("bx_repair")
rowers = _view("bx_rowers")
repairs_fail = _view("bx_repairs_fail")


@require_GET
def odds_preview(request: HttpRequest, slug: str, panel: str) -> HttpResponse:
    """The odds of what the form says so far, recomputed as it changes."""
    viewer = _viewer(request, slug, panel)
    form = PANELS[panel][0](request.GET, viewer=viewer)
    return render(
        request,
        "becmi/_odds.html",
        {"odds": odds_of(form), "panel": panel, "encounter": viewer.encounter},
    )
