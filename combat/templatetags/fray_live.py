"""Fragments of the live snapshot, rendered once and reused across browsers and changes.

Every change sends every browser a full snapshot (see ``combat.live``), so what each snapshot
repeats is cached (measured by ``manage.py bench_live``):

- The log is append-only: an entry's text never changes, except for the badge an undo adds.
  Its body is cached by entry, undo, language and audience (the referee; players, who see
  their own numbering, secret entries only by their outcome, and foes' numbers only when the
  referee shows them).
- A combatant's row is cached by everything it shows and everything that decides what this
  viewer sees of it. Only websocket snapshots use the cache: a page rendered for a request
  carries that session's CSRF token in its forms, which must never reach another browser.
"""

from __future__ import annotations

import hashlib

from django import template
from django.core.cache import cache
from django.template.context import Context
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from ..models import Combatant, LogEntry

register = template.Library()


@register.simple_tag(takes_context=True)
def log_entry_body(context: Context, entry: LogEntry) -> SafeString:
    viewer = context["viewer"]
    undone = entry.undone_seq
    show_numbers = bool(context.get("show_numbers"))
    audience = "referee" if viewer.is_referee else f"players:{show_numbers}"
    # The creation time guards against an id reused after a rolled-back transaction.
    key = (
        f"fray:log-entry:{entry.pk}:{entry.created.timestamp()}:{undone}:{get_language()}:"
        f"{audience}"
    )
    html = cache.get(key)
    if html is None:
        html = render_to_string(
            "combat/_log_entry_body.html",
            {
                "entry": entry,
                "undone_seq": undone,
                "referee": viewer.is_referee,
                "show_numbers": show_numbers,
            },
        )
        cache.set(key, html, timeout=None)
    return mark_safe(html)


@register.simple_tag(takes_context=True)
def combatant_row(context: Context, combatant: Combatant) -> SafeString:
    viewer = context["viewer"]
    values = {
        "combatant": combatant,
        "viewer": viewer,
        "encounter": context["encounter"],
        "controlled_ids": context["controlled_ids"],
        "show_numbers": context["show_numbers"],
        "action_urls": context["action_urls"],
    }
    if context.get("csrf_token"):
        return render_to_string(
            "combat/_combatant.html", values | {"csrf_token": context["csrf_token"]}
        )
    seat = combatant.seat
    shown = "\x1f".join(
        str(part)
        for part in (
            combatant.pk,
            combatant.name,
            combatant.hp,
            combatant.hp_max,
            combatant.ac,
            combatant.hidden,
            combatant.side,
            seat.pk if seat else "",
            seat.name if seat else "",
            viewer.is_referee,
            combatant.pk in values["controlled_ids"],
            values["show_numbers"],
            viewer.may_adjust_hit_points,
            get_language(),
        )
    )
    key = "fray:row:" + hashlib.blake2b(shown.encode(), digest_size=16).hexdigest()
    html = cache.get(key)
    if html is None:
        html = render_to_string("combat/_combatant.html", values)
        cache.set(key, html, timeout=60 * 60)
    return mark_safe(html)
