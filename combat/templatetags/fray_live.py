"""Fragments of the live view: a combatant's row and a log entry, each drawn by its template
(``combat/_combatant.html``; ``combat/log/_entry.jinja``, Jinja's, as the entry's text:
``combat.entry_text``); and the languages the page offers.

The log is append-only: an entry's text never changes, except for the badge an undo adds, so
its body is cached by entry, undo, language and audience (the referee; players, who see their
own numbering, secret entries only by their outcome, and foes' numbers only when the referee
shows them). Rows of a live view come rendered (``combat.live.state`` caches them by everything they
show); a page renders its own, with its session's CSRF token in their forms.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.conf import settings
from django.template.context import Context
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from combat.entry_text import body_html
from combat.fragments import drawn, entry_notice, part_notice, row_notice, tidy
from combat.jinja import render
from combat.lru import Lru
from combat.models import SHOWABLE, Combatant, ConditionKind, LogEntry, Side
from combat.table import dice

register = template.Library()


# Plain strings, not Django's local-memory cache, which pickled every body in and out (a tenth
# of drawing an entry live).
BODIES = Lru(20_000)


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
        return body_html(entry, undone=undone, referee=referee, show_numbers=show_numbers)

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
    """A log entry as a list item, as the log, an action's answer and every socket show it
    (``combat/log/_entry.jinja``): numbered the referee's way or the players', with the
    referee's undo button while it can be undone."""
    context = {
        "entry": entry,
        "body": mark_safe(entry_body(entry, referee=referee, show_numbers=show_numbers)),
        "number": entry.seq if referee else entry.public_seq,
        "proofs": shown_proofs(entry, referee=referee),
        # The referee may show a secret roll to players (combat.table.show).
        "showable": referee and entry.secret and entry.kind in SHOWABLE,
        "undone": entry.undone_seq,
        "referee": referee,
        "slug": slug,
        "on_log_page": on_log_page,
        "csrf_token": csrf_token,
        "next_path": next_path,
    }
    return tidy(render("combat/log/_entry.jinja", context))


def shown_proofs(entry: LogEntry, *, referee: bool) -> list[dict[str, Any]]:
    """The server dice of ``entry`` a viewer may check (``combat.table.dice``), as its mark
    carries them: players, the public roll of an entry they read whole, and the secret one of
    a secret roll the referee showed them; the referee, every secret one too, with its seed
    (each secret roll's own, revealed with it)."""
    public, hidden = dice.readable(entry.proof, entry.data, secret=entry.secret, referee=referee)
    shown = [{**public, "secret": False, **_dice_of(public)}] if public else []
    if hidden:
        shown.append({**hidden, "secret": True, "period": "", "roll": 1, **_dice_of(hidden)})
    return shown


def _dice_of(part: dict[str, Any]) -> dict[str, str]:
    """A proof's dice as its mark carries them, ``20:14 8:5`` (dice-marks.js shows them in
    the reader's letters, ``k20 14``, with their state)."""
    dice = part.get("dice")
    pairs = (
        [p for p in dice if isinstance(p, list) and len(p) == 2] if isinstance(dice, list) else []
    )
    return {"data": " ".join(f"{s}:{v}" for s, v in pairs if _whole(s) and _whole(v))}


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


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


def row_flags(
    combatant: Combatant, *, referee: bool, controlled: bool, show_numbers: bool
) -> dict[str, bool]:
    """What a combatant's row shows this viewer (``combat/_combatant.html``'s ``row``).

    Players see a foe's hit points only with ``show_numbers``, and of anyone down only that
    it is down, never how far below zero; the referee sees every number, and controls every
    row but owns none."""
    return {
        "referee": referee,
        "controlled": controlled,
        "own": controlled and not referee,
        "in_words": not referee
        and (combatant.dead or not (combatant.side == Side.PARTY or show_numbers or controlled)),
    }


def row_html(
    combatant: Combatant, *, referee: bool, controlled: bool, show_numbers: bool, rest: str
) -> str:
    """A combatant's row in the active language (``combat/_combatant.html``), with ``rest``,
    all below its line, as a live view drew it apart: every blow redraws the line of the one
    it hit once per audience and language, and only the line."""
    context = {
        "combatant": combatant,
        "row": row_flags(
            combatant, referee=referee, controlled=controlled, show_numbers=show_numbers
        ),
        "rendered_rest": mark_safe(rest),
    }
    return tidy(render_to_string("combat/_combatant.html", context))


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
    viewer = context["viewer"]
    referee = bool(getattr(viewer, "is_referee", False))
    controlled_ids = context["controlled_ids"]
    controlled = combatant.pk in (controlled_ids or ())
    values = {
        "combatant": combatant,
        "row": row_flags(
            combatant,
            referee=referee,
            controlled=controlled,
            show_numbers=bool(context["show_numbers"]),
        ),
        "viewer": viewer,
        "encounter": context["encounter"],
        "controlled_ids": controlled_ids,
        "show_numbers": context["show_numbers"],
        "action_urls": context["action_urls"],
        "csrf_token": context.get("csrf_token"),
    }
    return mark_safe(
        drawn(
            ("row", combatant.pk),
            lambda: tidy(render_to_string("combat/_combatant.html", values)),
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
