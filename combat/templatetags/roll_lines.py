"""A roll's parts as the log shows them: its die line, its modifiers, where its die came from,
and an attack's outcome.

Written in Python rather than as included templates: every attack, save and check in the log
draws several of them, once per language and audience that sees the entry, and each include
cost more than the entry's own text. The HTML is the templates' own but for the newlines
their files ended with; numbers are never localized, as the log's templates never did.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from html import escape
from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, pgettext

from combat.labels import REASONS
from combat.systems.common import reason_label
from combat.templatetags.fray import signed

register = template.Library()


def _value(roll: Any, key: str, missing: Any = "") -> Any:
    """``roll[key]`` as a template reads it: missing prints as nothing, and is ``None`` to
    an ``{% if %}`` (``missing=None``)."""
    if isinstance(roll, Mapping):
        return roll.get(key, missing)
    return getattr(roll, key, missing)


def shown(value: Any) -> str:
    """A value as ``{{ value }}`` prints it: escaped unless safe, ``None`` as "None". Django's
    ``conditional_escape`` without its check for lazy strings, which cost more than the rest of
    a log line."""
    if type(value) is int:
        return str(value)
    html = getattr(value, "__html__", None)
    if html is not None:
        return html()
    return escape(str(value))


@register.simple_tag
def die_source(entered: Any) -> SafeString:
    """Whether a die was typed in from the table or rolled by the server; nothing for a roll
    stored before that was recorded. Comes mid-sentence, after a space."""
    if entered is True:
        label = pgettext("die", "typed in")
        return format_html(' <span class="die-source entered">{}</span>', label)
    if entered is False:
        label = pgettext("die", "server roll")
        return format_html(' <span class="die-source server">{}</span>', label)
    return mark_safe("")


def _mods(mods: Any, label: Callable[[str], Any]) -> str:
    if not isinstance(mods, Iterable) or isinstance(mods, str):
        return ""
    return "".join(
        f' <span class="mod">{shown(signed(value))} {shown(label(reason))}</span>'
        for value, reason in mods
    )


@register.simple_tag
def mods(mods: Any) -> SafeString:
    """A roll's modifiers with their reasons (B/X's reasons)."""
    return mark_safe(_mods(mods, lambda key: REASONS.get(key, key)))


def _line(roll: Any, sides: Any, mods_html: str, needs: str) -> SafeString:
    letter = pgettext("die letter", "d")
    return mark_safe(
        f'<div class="roll">1{shown(letter)}{shown(sides)}: '
        f'<span class="natural">{shown(_value(roll, "natural"))}</span>'
        f"{die_source(_value(roll, 'entered'))}{mods_html} = "
        f"<strong>{shown(_value(roll, 'total'))}</strong> · {needs}</div>"
    )


def _needs(roll: Any, *, under: bool = False) -> str:
    # As ``{% blocktranslate %}`` does: the values escaped, the translation as it is.
    needed = shown(_value(roll, "needed"))
    if under:
        return gettext("needs %(needed)s or less") % {"needed": needed}
    return gettext("needs %(needed)s+") % {"needed": needed}


@register.simple_tag
def roll_line(roll: Any, under: bool = False) -> SafeString:
    """A d20 roll against a number: over it (attacks, saves), or under it (ability checks)."""
    return _line(roll, 20, _mods(_value(roll, "mods"), REASONS.get), _needs(roll, under=under))


@register.simple_tag
def system_roll_line(roll: Any) -> SafeString:
    """A roll of another system (Dolmenwood, BECMI) with its own die and its reasons."""
    modifiers = _mods(_value(roll, "mods"), reason_label)
    return _line(roll, _value(roll, "sides"), modifiers, _needs(roll))


@register.simple_tag
def hit_outcome(roll: Any) -> SafeString:
    """An attack's outcome, for every system: a hit and, on the attack matrix, the best AC it
    hits; a miss and what it needed, unless a natural roll decided it."""
    # Plain messages escaped, as ``{% translate %}`` does; messages with values take their
    # values escaped, as ``{% blocktranslate %}`` does.
    success = _value(roll, "success")
    parts: list[str] = []
    if success:
        parts.append(shown(gettext("Hit!")))
        hit_ac = _value(roll, "hit_ac", None)
        if hit_ac is not None:
            parts.append(gettext("hits AC %(ac)s") % {"ac": shown(hit_ac)})
        if _value(roll, "automatic"):
            parts.append(shown(gettext("a natural 20 always hits")))
    elif _value(roll, "automatic"):
        parts += [shown(gettext("Miss.")), shown(gettext("a natural 1 always misses"))]
    else:
        needed, total = _value(roll, "needed"), _value(roll, "total")
        if needed and less(total, needed):
            said = gettext("Miss: needed %(needed)s, rolled %(total)s.")
            parts.append(said % {"needed": shown(needed), "total": shown(total)})
        else:
            parts.append(shown(gettext("Miss.")))
    kind = "success" if success else "failure"
    return mark_safe(f'<div class="outcome {kind}">{" · ".join(parts)}</div>')


def less(total: Any, needed: Any) -> bool:
    """``total < needed`` as the template's ``{% if %}`` reads it: false when they cannot be
    compared."""
    try:
        return bool(total < needed)
    except TypeError:
        return False
