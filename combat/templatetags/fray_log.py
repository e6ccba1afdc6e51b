"""The roll log's entries, rendered once per language and reused.

The log is append-only: an entry's text never changes, except for the badge an undo adds. So
its body is cached by entry, undo and language, and a snapshot for every browser at the table
costs one render of each new entry per language instead of one render of every entry per
browser per change (measured by ``manage.py bench_live``).
"""

from __future__ import annotations

from django import template
from django.core.cache import cache
from django.core.exceptions import ObjectDoesNotExist
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from ..models import LogEntry

register = template.Library()


def _undone_seq(entry: LogEntry) -> int | None:
    try:
        return entry.undone_by.seq
    except ObjectDoesNotExist:
        return None


@register.simple_tag
def log_entry_body(entry: LogEntry) -> SafeString:
    undone = _undone_seq(entry)
    # The creation time guards against an id reused after a rolled-back transaction.
    key = f"fray:log-entry:{entry.pk}:{entry.created.timestamp()}:{undone}:{get_language()}"
    html = cache.get(key)
    if html is None:
        html = render_to_string(
            "combat/_log_entry_body.html", {"entry": entry, "undone_seq": undone}
        )
        cache.set(key, html, timeout=None)
    return mark_safe(html)
