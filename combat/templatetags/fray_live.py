"""Fragments of the live view: a combatant's row and a log entry's text; and the languages
the page offers.

The log is append-only: an entry's text never changes, except for the badge an undo adds, so
its body is cached by entry, undo, language and audience (the referee; players, who see their
own numbering, secret entries only by their outcome, and foes' numbers only when the referee
shows them). Rows of a live view come rendered (``combat.live`` caches them by everything they
show); a page renders its own, with its session's CSRF token in their forms.
"""

from __future__ import annotations

import re
from typing import Any

from django import template
from django.conf import settings
from django.template.context import Context
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext

from ..entry_text import body_html
from ..lru import Lru
from ..models import Combatant, LogEntry

register = template.Library()


class _Data(dict):
    """An entry's data as its templates read it. The log's templates ask for many keys an
    entry lacks (``d.helpless`` of every attack); Django's template engine lists the
    attributes of a dict that lacks one (``dir``) before it gives up, which made a missing
    key cost fifteen times a present one, a fifth of an entry's render."""

    __slots__ = ()

    def __dir__(self) -> list[str]:
        return []


def _for_templates(value: Any) -> Any:
    if isinstance(value, dict):
        return _Data((key, _for_templates(item)) for key, item in value.items())
    if isinstance(value, list):
        return [_for_templates(item) for item in value]
    return value


# Plain strings, not Django's local-memory cache, which pickled every body in and out (a tenth
# of drawing an entry live).
BODIES = Lru(20_000)


_BETWEEN_TAGS = re.compile(r">\s+<")


def entry_body(entry: LogEntry, *, referee: bool, show_numbers: bool) -> str:
    """What an entry says, for the referee or for players (who see foes' numbers only when
    ``show_numbers``), in the active language; drawn once, its indentation gone."""
    undone = entry.undone_seq
    # The creation time guards against an id reused after a rolled-back transaction.
    key = (
        entry.pk,
        entry.created.timestamp() if entry.created else None,
        undone,
        get_language(),
        referee,
        show_numbers and not referee,
    )

    def render() -> str:
        if type(entry.data) is dict:
            entry.data = _for_templates(entry.data)
        html = body_html(entry, undone=undone, referee=referee, show_numbers=show_numbers)
        return _BETWEEN_TAGS.sub("> <", html)

    return BODIES.fetch(key, render)


def entry_html(
    entry: LogEntry,
    *,
    referee: bool,
    slug: str,
    show_numbers: bool,
    on_log_page: bool = False,
    csrf_token: str | None = None,
    next_path: str = "",
) -> str:
    """A log entry as a list item, as the log, an action's answer and every socket show it:
    numbered the referee's way or the players' (entries they cannot see take no number, so
    there is no gap to count), with the referee's undo button while it can be undone. Drawn
    in Python: every change draws its entry once per language and audience."""
    number = entry.seq if referee else entry.public_seq
    undone = entry.undone_seq
    classes = f"entry {entry.kind}"
    if referee and entry.secret:
        classes += " secret"
    if undone:
        classes += " undone"
    body = entry_body(entry, referee=referee, show_numbers=show_numbers)
    undo = ""
    if referee and not undone and entry.undoable:
        url = escape(reverse("undo", args=[slug, entry.seq]))
        confirm = gettext("Undo #%(seq)s? What it did is reversed for everyone.") % {
            "seq": entry.seq
        }
        if on_log_page:
            how = ' hx-boost="true"'
            extra = f'<input type="hidden" name="next" value="{escape(next_path)}">'
        else:
            how, extra = f' hx-post="{url}" hx-target="#panel"', ""
        token = (
            f'<input type="hidden" name="csrfmiddlewaretoken" value="{escape(csrf_token)}">'
            if csrf_token and csrf_token != "NOTPROVIDED"
            else ""
        )
        label = escape(gettext("Undo"))
        undo = (
            f'<form method="post" action="{url}"{how} hx-confirm="{escape(confirm)}" '
            f'class="inline">{token}{extra}<button type="submit" class="small">'
            f"{label}</button></form> "
        )
    return f'<li class="{classes}" id="entry-{number}" data-seq="{number}"> {body} {undo}</li>'


@register.simple_tag(takes_context=True)
def log_entry(context: Context, entry: LogEntry) -> SafeString:
    """``entry`` in the log of the page, the action's answer or the whole log's page."""
    request = context.get("request")
    return mark_safe(
        entry_html(
            entry,
            referee=context["viewer"].is_referee,
            slug=context["encounter"].slug,
            show_numbers=bool(context.get("show_numbers")),
            on_log_page=bool(context.get("on_log_page")),
            csrf_token=context.get("csrf_token"),
            next_path=request.get_full_path() if request is not None else "",
        )
    )


@register.simple_tag(takes_context=True)
def combatant_row(context: Context, combatant: Combatant) -> SafeString:
    rendered = context.get("rendered_rows")
    if rendered is not None:  # a live view renders its rows once, for all its sockets
        return mark_safe(rendered[combatant.pk])
    # A page for one request: its forms carry that session's CSRF token.
    values = {
        "combatant": combatant,
        "viewer": context["viewer"],
        "encounter": context["encounter"],
        "controlled_ids": context["controlled_ids"],
        "show_numbers": context["show_numbers"],
        "action_urls": context["action_urls"],
        "csrf_token": context.get("csrf_token"),
    }
    return mark_safe(render_to_string("combat/_combatant.html", values))


@register.filter
def condition_label(key: str) -> str:
    """A condition's name in the viewer's language (the log stores its key)."""
    from combat.models import ConditionKind

    try:
        return str(ConditionKind(key).label)
    except ValueError:
        return str(key)


@register.simple_tag
def language_choices() -> list[tuple[str, str]]:
    """Fray's languages, each by its own name (English, Čeština, Русский, Українська), as a
    reader of that language looks for it, never translated into the page's language."""
    return list(settings.LANGUAGES)
