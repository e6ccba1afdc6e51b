"""A log entry's building blocks, for every rules system: a roll's line, an attack's outcome,
a hit's damage (each drawn by its Jinja template in ``templates/jinja2/combat/log/``), and the
two pieces that come mid-sentence, where a template's closing newline would show: where a die
came from, and a roll's modifiers with their reasons.

They are Django simple tags, and the log's Jinja templates call them by the same names
(``{{ roll_line(d.roll) }}``: ``combat.jinja`` offers every installed library's simple tags),
so either engine's templates may draw them.

The rolls they draw are an entry's typed parts (``combat.payloads.Roll``, ``DamageRoll``, or a
system's subclass); a plain dict of the same keys draws alike (``r.total`` is a key or an
attribute), and the line is kept by the JSON either holds.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from django import template
from django.conf import settings
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, pgettext

from combat.jinja import render
from combat.labels import REASONS
from combat.lru import Lru
from combat.payloads import Payload
from combat.systems import common
from combat.templatetags.fray import term

register = template.Library()


def reason_label(key: Any) -> Any:
    """A modifier's reason in the viewer's language, whichever system stored it: B/X's, then
    the other systems' (where two name the same reason, they name it alike: the same message,
    "modifier reason")."""
    return REASONS[key] if key in REASONS else common.reason_label(key)


@register.simple_tag
def die_source(entered: Any) -> SafeString:
    """Whether a die was typed in from the table or rolled by the server; nothing for a roll
    stored before that was recorded. Comes mid-sentence, after a space."""
    if entered is True:
        kind, label = "entered", pgettext("die", "typed in")
    elif entered is False:
        kind, label = "server", pgettext("die", "server roll")
    else:
        return SafeString("")
    return format_html(' <span class="die-source {}">{}</span>', kind, label)


@register.simple_tag
def mods(mods: Any) -> SafeString:
    """A roll's modifiers with their reasons, each after a space and signed as a term of the
    roll's sum ("+ 0 STR", "− 1 attack bonus")."""
    if not isinstance(mods, Iterable) or isinstance(mods, str):
        return SafeString("")
    pairs = ((term(value), reason_label(reason)) for value, reason in mods)
    return format_html_join("", ' <span class="mod">{} {}</span>', pairs)


# Each line is what its roll says in the active language, whatever entry it is in: drawn once
# and kept. A table rolls the same few lines again and again (a fighter's d20 against a goblin
# has twenty), and every change draws its entry once per language and audience.
LINES = Lru(20_000)


def _line(template_name: str, name: str, part: Any, **extra: Any) -> SafeString:
    """``template_name`` drawn with the roll ``part`` as ``name`` (and ``extra``), kept by what
    the roll holds, ``extra``, the language and the thousands separator."""
    context = {name: part, **extra}
    stored = part.to_json() if isinstance(part, Payload) else part
    try:
        said = json.dumps(stored, sort_keys=True)
    except (TypeError, ValueError):  # not JSON at all: drawn as it is, not kept
        return mark_safe(render(template_name, context))
    key = (template_name, said, tuple(sorted(extra.items())), get_language())
    key += (settings.USE_THOUSAND_SEPARATOR,)
    return mark_safe(LINES.fetch(key, lambda: render(template_name, context)))


@register.simple_tag
def roll_line(roll: Any, under: bool = False) -> SafeString:
    """A roll (a ``Roll`` payload, or its dict) against a number: over it (attacks, saves), or
    ``under`` it (ability checks); ``combat/log/_roll_line.jinja``."""
    return _line("combat/log/_roll_line.jinja", "r", roll, under=bool(under))


# Another system's roll says its own die: the same line.
register.simple_tag(roll_line, name="system_roll_line")


@register.simple_tag
def hit_outcome(roll: Any) -> SafeString:
    """An attack's outcome (its roll: a payload, or its dict), for every system
    (``combat/log/_hit.jinja``)."""
    return _line("combat/log/_hit.jinja", "r", roll)


@register.simple_tag
def damage_line(damage: Any) -> SafeString:
    """A hit's damage (a ``DamageRoll`` payload, or its dict), for every system
    (``combat/log/_damage_line.jinja``)."""
    return _line("combat/log/_damage_line.jinja", "damage", damage)


@register.filter
def as_count(count: Any) -> int | float:
    """A plural's count; one the data lacks counts as none (``{% blocktranslate count %}``
    refuses anything but a number)."""
    return count if isinstance(count, int | float) else 0


@register.filter
def shown_hp(value: Any, referee: bool) -> Any:
    """Hit points as a viewer may see them: players never learn how far below zero."""
    if referee or not isinstance(value, int):
        return value
    return max(value, 0)
