"""The action panel's forms, for every rules system at once: each panel the registry names (and
the few every table has: damage and healing, rest, a free roll) is served by one view that
shows its form, applies it once per one-time key and answers with the result, and by one view
of its odds as the form changes. Their routes come from here too (:func:`urlpatterns`).

A panel of another system than the table's is not there (404); one the viewer may not open is
refused (403); acting for a combatant the viewer does not control is refused outright (403).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern, path
from django.utils.module_loading import import_string
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_http_methods

from combat import odds, registry, table
from combat.access import Viewer, viewer_as_rendered, viewer_for
from combat.forms import ActionForm, FreeRollForm, HitPointsForm, RestForm
from combat.models import LogEntry, Stale
from combat.registry import Panel
from combat.views.common import act_once, panel_reply


def _may_adjust(viewer: Any) -> bool:
    return bool(viewer.may_adjust_hit_points)


# The panels every table has, whatever rules it plays.
COMMON: dict[str, Panel] = {
    p.key: p
    for p in (
        Panel(
            "hp",
            HitPointsForm,
            table.change_hit_points,
            "hit-points/",
            _("Damage and healing"),
            url_name="hit_points",
            may_open=_may_adjust,
            button=_("Save"),
            odds=False,
        ),
        Panel("rest", RestForm, table.rest, "rest/", _("Rest: natural healing"), odds=False),
        Panel("roll", FreeRollForm, table.free_roll, "roll/", _("Free roll"), url_name="free_roll"),
    )
}


def find(key: str) -> tuple[registry.System | None, Panel] | None:
    """The panel of that key and the system offering it (None for the common ones)."""
    if key in COMMON:
        return None, COMMON[key]
    return registry.panel(key)


def opened(request: HttpRequest, slug: str, key: str) -> tuple[Viewer, Panel]:
    """The viewer, if this table offers panel ``key`` and the viewer may open it."""
    found = find(key)
    if found is None:
        raise Http404
    system, panel = found
    viewer = viewer_for(request, slug)
    _check(viewer, system, panel)
    return viewer, panel


def opened_by(viewer: Viewer, panel: Panel) -> None:
    """Refuses ``panel`` to ``viewer`` as :func:`opened` would (404: not this table's; 403:
    not this viewer's)."""
    _check(viewer, *_found(panel))


def _check(viewer: Viewer, system: registry.System | None, panel: Panel) -> None:
    if system is not None and registry.of(viewer.encounter) is not system:
        raise Http404
    if not panel.may_open(viewer):
        raise PermissionDenied


def refuse_foreign_actor(request: HttpRequest, viewer: Viewer) -> None:
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


# What a button that opens a panel may fill in (?actor=3&category=death).
PREFILL = frozenset(
    {"actor", "target", "category", "ability", "action", "mode", "attack", "wrestle"}
)


def initial(request: HttpRequest) -> dict[str, Any]:
    return {key: value for key, value in request.GET.items() if key in PREFILL}


def odds_of(panel: Panel, form: ActionForm) -> Any:
    """The odds the panel shows before the roll (None until its form says enough)."""
    if not panel.odds:
        return None
    if panel.odds_of is not None:  # a system's own odds: an action refused says so first
        return odds.refused(form) or panel.odds_of(form)
    return odds.for_form(form)


def roll_view(request: HttpRequest, slug: str, panel: Panel) -> HttpResponse:
    """A panel's form (GET), or the form posted: applied once, and the result with a fresh form
    for the next one; what was wrong otherwise."""
    if request.method == "POST":
        # First on the table as this process last rendered it, reading nothing again: the
        # change confirms it was still the stored one. Anything else (another change came
        # first, a refusal, a mistake in the form) is decided again on what is stored.
        viewer = viewer_as_rendered(request.session, slug)
        if viewer is not None:
            with contextlib.suppress(Stale, PermissionDenied, Http404):
                posted = _posted(request, viewer, panel)
                if isinstance(posted, HttpResponse):
                    return posted
        viewer = viewer_for(request, slug)
        form = _posted(request, viewer, panel)
        if isinstance(form, HttpResponse):
            return form
    else:
        viewer = viewer_for(request, slug)
        _check(viewer, *_found(panel))
        form = panel.form(viewer=viewer, initial=initial(request))
    return panel_reply(request, viewer, panel.key, form=form, odds=odds_of(panel, form))


def _found(panel: Panel) -> tuple[registry.System | None, Panel]:
    found = find(panel.key)
    assert found is not None
    return found


def _posted(request: HttpRequest, viewer: Viewer, panel: Panel) -> HttpResponse | ActionForm:
    """The panel posted: its result shown, or, when nothing was applied, the form with what
    was wrong."""
    _check(viewer, *_found(panel))
    refuse_foreign_actor(request, viewer)
    if panel.guard is not None:
        panel.guard(request, viewer)
    form = panel.form(request.POST, viewer=viewer)
    once = request.POST.get("once", "")
    done, result = act_once(viewer, once, form, lambda: panel.act(viewer, **form.cleaned_data))
    return _done(request, viewer, panel, form, result) if done else form


def _done(
    request: HttpRequest, viewer: Viewer, panel: Panel, form: ActionForm, result: Any
) -> HttpResponse:
    """The result, and the form again for the next roll: it keeps who acts and how, never an
    amount or a die typed in, and it carries a new one-time key.

    The new form reads the combatants anew (a new Viewer has not read them yet): the ones
    the request read before acting may have changed since, a target killed by this very roll.
    An action that adds a combatant (a ship) says so instead of showing an entry."""
    after = dataclasses.replace(viewer)
    fresh = type(form)(viewer=after, initial=form.kept_values())
    extra: dict[str, Any] = {"form": fresh, "odds": odds_of(panel, fresh)}
    if isinstance(result, LogEntry) or result is None:
        extra["result"] = result
    else:
        extra["message"] = _("Added %(name)s.") % {"name": result.name}
    return panel_reply(request, after, panel.key, done=True, **extra)


def panel_view(key: str) -> Callable[[HttpRequest, str], HttpResponse]:
    """The view of panel ``key``: its own when it has one, else :func:`roll_view`."""

    @require_http_methods(["GET", "POST"])
    def view(request: HttpRequest, slug: str) -> HttpResponse:
        found = find(key)
        if found is None:  # its system is no longer registered
            raise Http404
        panel = found[1]
        return (import_string(panel.view) if panel.view else roll_view)(request, slug, panel)

    view.__name__ = key
    return view


def odds_view(name: str) -> Callable[[HttpRequest, str, str], HttpResponse]:
    """The odds route ``name``: the odds of what the form of panel ``kind`` says so far,
    recomputed as it changes."""

    @require_GET
    def view(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
        found = find(kind)
        if found is None or found[1].odds_name != name:  # (one without odds: none shown)
            raise Http404
        panel = found[1]
        if panel.odds_view:
            return import_string(panel.odds_view)(request, slug, panel)
        viewer, panel = opened(request, slug, kind)
        form = panel.form(request.GET, viewer=viewer)
        context = {"odds": odds_of(panel, form), "panel": kind, "encounter": viewer.encounter}
        return render(request, panel.odds_template, context)

    view.__name__ = f"odds_{name}"
    return view


@require_GET
def choices_view(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    """The fields of panel ``kind``'s form that leave out whoever acts, drawn again for the
    choice just made in the field that changed (htmx names it): swapped in by their ids. A
    choice they no longer offer gives way to another (``ActionForm.settle``), and the odds
    are then asked again (the ``choices-redrawn`` event)."""
    viewer, panel = opened(request, slug, kind)
    trigger = request.headers.get("HX-Trigger-Name") or "actor"
    data = request.GET.copy()
    form = panel.form(data, viewer=viewer)
    if not form.follows.get(trigger):
        raise Http404
    changed = form.settle(trigger)
    if changed:  # drawn anew from what it now holds (a target's body, its directions)
        form = panel.form(data, viewer=viewer)
    response = render(request, "combat/_choices.html", {"fields": form.redrawn(trigger)})
    if changed:
        response["HX-Trigger-After-Settle"] = "choices-redrawn"
    return response


def urlpatterns() -> list[URLPattern]:
    """Every panel's route (the common ones and each registered system's), and each odds
    route once."""
    patterns = []
    odds_routes: dict[str, str] = {}
    for panel in [*COMMON.values(), *(p for s in registry.systems() for p in s.panels)]:
        patterns.append(path(panel.route, panel_view(panel.key), name=panel.name))
        if panel.odds:
            odds_routes.setdefault(panel.odds_name, panel.odds_route)
    for name, route in odds_routes.items():
        patterns.append(path(f"{route}<str:kind>/", odds_view(name), name=name))
    patterns.append(path("choices/<str:kind>/", choices_view, name="choices"))
    return patterns
