"""Fragments of the live view: a combatant's row and a log entry's text; and the languages
the page offers.

The log is append-only: an entry's text never changes, except for the badge an undo adds, so
its body is cached by entry, undo, language and audience (the referee; players, who see their
own numbering, secret entries only by their outcome, and foes' numbers only when the referee
shows them). Rows of a live view come rendered (``combat.live.state`` caches them by everything they
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
from django.utils.html import conditional_escape, escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, ngettext

from combat.entry_text import body_html
from combat.fragments import drawn, entry_notice, part_notice, row_notice
from combat.lru import Lru
from combat.models import Combatant, ConditionKind, Kind, LogEntry, Side
from combat.templatetags.fray import health_label

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

    # An entry whose stored data cannot be drawn says so, alone: the log around it goes on.
    return BODIES.fetch(
        key, lambda: drawn(("entry", entry.pk), render, lambda: entry_notice(referee=referee))
    )


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


def row_html(
    combatant: Combatant, *, referee: bool, controlled: bool, show_numbers: bool, rest: str
) -> str:
    """A combatant's row in the active language: its line (name, badges, hit points or its
    health in words, armour class, seat, conditions) and ``rest``, all below the line.

    Drawn in Python: every blow redraws the line of the one it hit once per audience and
    language. Players see a foe's hit points only with ``show_numbers``; the referee sees
    every number and the seat's name."""
    c = combatant
    own = controlled and not referee
    classes = "combatant"
    if c.dead:
        classes += " dead"
    if c.hidden:
        classes += " hidden-from-players"
    if own:
        classes += " own"
    parts = [f'<strong class="name">{escape(c.name)}</strong>']
    if own:
        yours = escape(gettext("your character"))
        parts.append(f'<span class="badge yours">{yours}</span>')
    if c.hidden:
        hidden = escape(gettext("hidden"))
        parts.append(f'<span class="badge">{hidden}</span>')
    if referee:
        if c.kind != Kind.SHIP:  # a ship's are its hull (_becmi_row.html)
            parts.append(_hit_points(c))
        if c.dead:
            dead = escape(gettext("dead"))
            parts.append(f'<span class="badge down">{dead}</span>')
    elif c.dead or not (c.side == Side.PARTY or show_numbers or controlled):
        # Health in words: players learn that one is down, never how far below zero.
        health = c.health
        parts.append(f'<span class="health {escape(health)}">{escape(health_label(health))}</span>')
    elif c.kind != Kind.SHIP:
        parts.append(_hit_points(c))
    if c.side == Side.PARTY or referee or controlled:
        armour, short = escape(gettext("armour class")), escape(gettext("AC"))
        parts.append(f'<span class="ac"><abbr title="{armour}">{short}</abbr> {c.ac}</span>')
    if referee and c.seat_id and c.seat:
        parts.append(f'<span class="seat">{escape(c.seat.name)}</span>')
    if c.fled and not c.dead:
        fled = escape(gettext("fled"))
        parts.append(f'<span class="badge fled">{fled}</span>')
    conditions = "".join(map(_condition, getattr(c, "shown_conditions", ())))
    if conditions:
        parts.append(conditions)
    line, below = " ".join(parts), f" {rest}" if rest else ""
    opening = f'<li class="{classes}" id="combatant-{c.pk}">'
    return f'{opening} <div class="line"> {line} </div>{below} </li>'


def _hit_points(c: Combatant) -> str:
    said, short = escape(gettext("hit points")), escape(gettext("HP"))
    return (
        f'<span class="hp" title="{said}"><abbr title="{said}">{short}</abbr> '
        f"{c.hp}/{c.hp_max}</span>"
    )


def _condition(condition: Any) -> str:
    said = escape(condition.get_kind_display())
    if condition.note:
        said += f": {escape(condition.note)}"
    if rounds := condition.rounds_left:
        lasts = ngettext("%(rounds)s round", "%(rounds)s rounds", rounds) % {"rounds": rounds}
        said += f" · {lasts}"
    return f'<span class="badge condition">{said}</span>'


@register.simple_tag(takes_context=True)
def combatant_li(context: Context, combatant: Combatant) -> SafeString:
    """``row_html`` in a template: the row below the line as the live view drew it, or drawn
    here from ``combat/_combatant_rest.html`` with this context (a page's, with its CSRF
    token in the forms)."""
    rest = context.get("rendered_rest")
    if rest is None:
        rest = context.template.engine.get_template("combat/_combatant_rest.html").render(context)
    else:
        rest = conditional_escape(rest)  # as {{ rendered_rest }} was: the live view's is safe
    return mark_safe(
        row_html(
            combatant,
            referee=bool(getattr(context.get("viewer"), "is_referee", False)),
            controlled=combatant.pk in (context.get("controlled_ids") or ()),
            show_numbers=bool(context.get("show_numbers")),
            rest=_BETWEEN_TAGS.sub("> <", str(rest).strip()),
        )
    )


@register.simple_tag(takes_context=True)
def part(
    context: Context, template_name: str, element: str = "", broken: bool = False
) -> SafeString:
    """``{% include template_name %}``, drawn on its own: a panel that cannot be drawn (or is
    ``broken`` already) shows a notice as its element (its id: ``element``), and the rest of
    the page goes on."""
    encounter = context.get("encounter")
    referee = bool(getattr(context.get("viewer"), "is_referee", False))

    def draw() -> str:
        template = context.template.engine.get_template(template_name)
        with context.push():
            return template.render(context)

    def notice() -> str:
        values = {"encounter": encounter, "oob": context.get("oob")}
        return part_notice(referee=referee, element=element, context=values)

    if broken:
        return mark_safe(notice())
    what = ("part", template_name, getattr(encounter, "pk", None))
    return mark_safe(drawn(what, draw, notice))


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
    referee = bool(getattr(context["viewer"], "is_referee", False))
    return mark_safe(
        drawn(
            ("row", combatant.pk),
            lambda: render_to_string("combat/_combatant.html", values),
            lambda: row_notice(combatant, referee=referee, csrf_token=context.get("csrf_token")),
        )
    )


@register.filter
def condition_label(key: str) -> str:
    """A condition's name in the viewer's language (the log stores its key)."""
    try:
        return str(ConditionKind(key).label)
    except ValueError:
        return str(key)


@register.simple_tag
def language_choices() -> list[tuple[str, str]]:
    """Fray's languages, each by its own name (English, Čeština, Русский, Українська), as a
    reader of that language looks for it, never translated into the page's language."""
    return list(settings.LANGUAGES)
