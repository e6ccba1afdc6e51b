"""Undo: an entry of the log reversed by a new one (the referee's); and a secret roll shown
to players. The rolls themselves are panels (``combat.views.panels``)."""

from __future__ import annotations

import contextlib

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from combat import table
from combat.access import referee_for
from combat.errors import Refused, message_for
from combat.models import LogEntry
from combat.views.common import panel_reply


def from_log_page(request: HttpRequest, slug: str) -> str | None:
    """Where to go back to when an entry's button was pressed on the whole-log page (no live
    panel there: the page comes back whole); None on the table's own page. Its form is boosted
    only so that htmx asks first (hx-confirm)."""
    back = request.POST.get("next", "")
    if (not request.htmx or request.htmx.boosted) and back.startswith(reverse("log", args=[slug])):
        return back
    return None


@require_POST
def undo(request: HttpRequest, slug: str, seq: int) -> HttpResponse:
    viewer = referee_for(request, slug)
    entry = get_object_or_404(LogEntry, encounter=viewer.encounter, seq=seq)
    back = from_log_page(request, slug)
    if back is not None:  # apply, then back to that page
        with contextlib.suppress(table.AlreadyUndone, Refused):
            table.undo(viewer, entry)
        return redirect(back)
    try:
        result = table.undo(viewer, entry)
    except Refused as refused:
        return panel_reply(request, viewer, "message", message=message_for(refused))
    except table.AlreadyUndone as done:
        return panel_reply(
            request,
            viewer,
            "message",
            done=True,
            result=done.undo,
            message=_("That entry was already undone."),
        )
    return panel_reply(request, viewer, "message", done=True, result=result)


@require_POST
def show(request: HttpRequest, slug: str, seq: int) -> HttpResponse:
    """The referee shows players a secret roll (``table.show``): a new entry in their log,
    its dice and their proof with it."""
    viewer = referee_for(request, slug)
    entry = get_object_or_404(LogEntry, encounter=viewer.encounter, seq=seq)
    back = from_log_page(request, slug)
    if back is not None:  # shown, then back to that page
        with contextlib.suppress(Refused, table.Repeated):
            table.show(viewer, entry)
        return redirect(back)
    try:
        result = table.show(viewer, entry)
    except Refused as refused:
        return panel_reply(request, viewer, "message", message=message_for(refused))
    except table.Repeated:
        return panel_reply(
            request, viewer, "message", done=True, message=_("That roll was shown already.")
        )
    return panel_reply(request, viewer, "message", done=True, result=result)
