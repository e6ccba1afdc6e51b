"""Dolmenwood's and BECMI's rolls at the table: each panel through the shared roll view
(``rolls.ROLLS``), refused on a table playing another system; Dolmenwood's chance roll for the
referee, and for players when the encounter allows it; the odds of each form as it changes."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_http_methods

from combat import odds
from combat.access import Viewer, viewer_for
from combat.models import RulesSystem
from combat.views.rolls import ROLLS, _roll_view

# Each panel and the rules system whose table offers it.
PANELS = {
    "dw_attack": RulesSystem.DOLMENWOOD,
    "dw_save": RulesSystem.DOLMENWOOD,
    "dw_check": RulesSystem.DOLMENWOOD,
    "dw_skill": RulesSystem.DOLMENWOOD,
    "chance": RulesSystem.DOLMENWOOD,
    "becmi_attack": RulesSystem.BECMI,
    "becmi_save": RulesSystem.BECMI,
}


def _system_viewer(request: HttpRequest, slug: str, panel: str) -> Viewer:
    """The viewer, if this table plays ``panel``'s system and the viewer may open it."""
    viewer = viewer_for(request, slug)
    if viewer.encounter.system != PANELS[panel]:
        raise Http404
    if panel == "chance" and not may_roll_chances(viewer):
        raise PermissionDenied
    return viewer


def may_roll_chances(viewer: Viewer) -> bool:
    return viewer.is_referee or viewer.encounter.players_roll_chances


def _panel(panel: str):
    @require_http_methods(["GET", "POST"])
    def view(request: HttpRequest, slug: str) -> HttpResponse:
        _system_viewer(request, slug, panel)
        return _roll_view(request, slug, panel)

    view.__name__ = panel
    return view


attack = _panel("dw_attack")
saving_throw = _panel("dw_save")
ability_check = _panel("dw_check")
skill_check = _panel("dw_skill")
chance_roll = _panel("chance")
becmi_attack = _panel("becmi_attack")
becmi_save = _panel("becmi_save")


@require_GET
def odds_preview(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    """The odds of the roll the form describes so far, recomputed as the form changes."""
    if kind not in PANELS:
        raise Http404
    viewer = _system_viewer(request, slug, kind)
    form = ROLLS[kind][0](request.GET, viewer=viewer)
    return render(request, "combat/_system_odds.html", {"odds": odds.for_form(form)})
