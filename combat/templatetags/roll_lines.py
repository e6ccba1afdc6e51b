"""A log entry's building blocks, for every rules system: a roll's line, an attack's outcome,
a hit's damage (each drawn by its template in ``templates/combat/log/``), and the two pieces
that come mid-sentence, where a template's closing newline would show: where a die came from,
and a roll's modifiers with their reasons.

The rolls they draw are an entry's typed parts (``combat.payloads.Roll``, ``DamageRoll``, or a
system's subclass); a system whose entries are not typed yet gives its stored dicts, which the
templates read alike (``r.total`` is a key or an attribute), so each is drawn as it comes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import pgettext

from combat.labels import REASONS
from combat.systems import common
from combat.templatetags.fray import signed

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
    """A roll's modifiers with their reasons, each after a space."""
    if not isinstance(mods, Iterable) or isinstance(mods, str):
        return SafeString("")
    pairs = ((signed(value), reason_label(reason)) for value, reason in mods)
    return format_html_join("", ' <span class="mod">{} {}</span>', pairs)


@register.inclusion_tag("combat/log/_roll_line.html")
def roll_line(roll: Any, under: bool = False) -> dict[str, Any]:
    """A roll (a ``Roll`` payload, or its dict) against a number: over it (attacks, saves), or
    ``under`` it (ability checks)."""
    return {"r": roll, "under": under}


# Another system's roll says its own die: the same line.
register.inclusion_tag("combat/log/_roll_line.html", name="system_roll_line")(roll_line)


@register.inclusion_tag("combat/log/_hit.html")
def hit_outcome(roll: Any) -> dict[str, Any]:
    """An attack's outcome (its roll: a payload, or its dict), for every system."""
    return {"r": roll}


@register.inclusion_tag("combat/log/_damage_line.html")
def damage_line(damage: Any) -> dict[str, Any]:
    """A hit's damage (a ``DamageRoll`` payload, or its dict), for every system."""
    return {"damage": damage}


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
