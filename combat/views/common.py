"""What the encounter views share: the page context and the htmx-or-redirect reply."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.forms import Form
from django.http import HttpRequest, HttpResponse
from django.http.request import split_domain_port
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from combat import table
from combat.access import Viewer
from combat.errors import Refused, message_for
from combat.forms import EncounterSettingsForm, MergingForm
from combat.fragments import drawn, part_notice
from combat.live.state import live_context
from rules.errors import RulesError


def act_once(viewer: Viewer, once: str, form: Any, act: Callable[[], Any]) -> tuple[bool, Any]:
    """Validate ``form`` and ``act``, once per one-time key ``once``: ``(True, result)`` when
    the action went through, now or before (a double tap, a retried request: then the entry
    the first sending made); ``(False, None)``, the reason in the form's errors, otherwise.

    Whether the key was used is asked only when this sending did not go through: the action
    claims its key as it applies (``table.claim``), a key used before rolling the whole
    action back; and a sending that finds something wrong (a target the first sending
    killed) is told what the first one did instead. So an action that goes through asks the
    database nothing more for its key (on PostgreSQL, one wait less)."""
    if form.is_valid():
        try:
            with table.server_dice(viewer.encounter, form.data.get("dice", "")):
                return True, act()
        except table.Repeated:
            pass
        except (RulesError, Refused) as error:
            form.add_error(None, message_for(error))
    return table.first_result(viewer, once)


def encounter_url(viewer: Viewer) -> str:
    return reverse("encounter", args=[viewer.encounter.slug])


LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "[::1]"}


def shareable_url(request: HttpRequest, path: str) -> str:
    """An absolute URL another device can open: a page opened as localhost would hand
    players a link to their own phone, so it names the machine's LAN address instead."""
    host, _port = split_domain_port(request.get_host())
    if host in LOOPBACK_HOSTS and settings.FRAY_PLAYER_URLS:
        return settings.FRAY_PLAYER_URLS[0].rstrip("/") + path
    return request.build_absolute_uri(path)


def referee_context(request: HttpRequest, viewer: Viewer) -> dict[str, Any]:
    encounter = viewer.encounter
    return {
        "join_url": shareable_url(request, reverse("join", args=[encounter.join_token])),
        "referee_url": shareable_url(
            request, reverse("referee_link", args=[encounter.referee_key])
        ),
        "display_url": shareable_url(
            request, reverse("display_link", args=[encounter.display_token])
        ),
        "settings_form": EncounterSettingsForm(instance=encounter, prefix="settings"),
    }


def page(
    request: HttpRequest, viewer: Viewer, panel: str | None = None, **extra: Any
) -> HttpResponse:
    """The whole encounter page, with an optional form in its action panel."""
    context = live_context(viewer) | {"panel": panel, "oob": False}
    if viewer.is_referee:
        context |= referee_context(request, viewer)
    return render(request, "combat/encounter.html", context | extra)


def panel_reply(
    request: HttpRequest, viewer: Viewer, panel: str, *, done: bool = False, **extra: Any
) -> HttpResponse:
    """The action panel after a form was shown or posted.

    htmx gets the panel and its result only: the rest of the page changes through the
    websocket, as everyone else's does (the change is announced after commit). Out-of-band
    fragments here would also be lost whenever the button that sent the request was replaced
    by a live update before the answer came (htmx looks for their targets from that button).
    A plain browser is redirected after success (so a reload does not roll again) or gets the
    whole page with the form's messages.
    """
    if done and not request.htmx:
        return redirect(encounter_url(viewer))
    if not request.htmx:
        return page(request, viewer, panel=panel, **extra)
    encounter = viewer.encounter
    context = {
        "viewer": viewer,
        "encounter": encounter,
        "show_numbers": viewer.is_referee or encounter.show_foe_hp,
        "panel": panel,
    }
    # The panel drawn on its own: one that cannot be drawn from what is stored says so.
    html = drawn(
        ("panel", panel, encounter.pk),
        lambda: render_to_string("combat/_panel.html", context | extra, request),
        lambda: part_notice(referee=viewer.is_referee),
    )
    return HttpResponse(html)


def sent_before(request: HttpRequest, viewer: Viewer) -> bool:
    """Whether this form's one-time key was applied already (a double tap, a retry)."""
    return table.first_result(viewer, request.POST.get("once", ""))[0]


def saved_message(form: MergingForm) -> str | None:
    """Said after saving an edit: which fields someone else had changed meanwhile (kept)."""
    labels = form.changed_labels()
    if not labels:
        return None
    return _("Changed by someone else while you edited, and kept: %(fields)s.") % {
        "fields": ", ".join(labels)
    }


def added_message(data: dict[str, Any]) -> str:
    """Said after quick-add: how many monsters joined, under which names."""
    count, name = data["count"], data["name"]
    names = f"{name} 1–{count}" if count > 1 else name
    return ngettext(
        "%(count)s monster added: %(names)s.", "%(count)s monsters added: %(names)s.", count
    ) % {"count": count, "names": names}


ALREADY_DONE = gettext_lazy("That form was sent twice; it was applied once.")


def sent_twice(request: HttpRequest, viewer: Viewer, panel: str, form: Form) -> HttpResponse:
    """The answer to a form whose key was applied already, found before acting or by the key's
    unique row while acting: what the first sending did stands; the form comes back fresh."""
    return panel_reply(request, viewer, panel, done=True, form=form, message=str(ALREADY_DONE))
