"""Template filters that say the engine's keys in the viewer's language."""

from __future__ import annotations

import functools
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any
from urllib.parse import quote

from django import template
from django.contrib.staticfiles import finders
from django.template.defaultfilters import floatformat
from django.utils.formats import number_format
from django.utils.translation import get_language, npgettext, pgettext

from combat import starter_words
from combat.labels import ABILITIES, HEALTH, REASONS, SAVE_LETTERS, SAVE_SHORT, SAVES
from rules import dice
from rules.errors import RulesError

register = template.Library()


@register.filter
def save_label(key: str) -> str:
    return SAVES.get(key, key)


@register.filter
def save_short(key: str) -> str:
    """A save's one-word name for a phone's button (its full name is the title)."""
    return SAVE_SHORT.get(key, key)


@register.filter
def save_letter(key: str) -> str:
    return SAVE_LETTERS.get(key, key)


@register.filter
def ability_label(key: str) -> str:
    return ABILITIES.get(key, key)


@register.filter
def reason_label(key: str) -> str:
    return REASONS.get(key, key)


@register.filter
def health_label(key: str) -> str:
    return HEALTH.get(key, key)


@register.filter
def signed(value: int) -> str:
    """+2, 0, −1 (a real minus sign)."""
    value = int(value)
    if value > 0:
        return f"+{value}"
    if value < 0:
        return f"−{-value}"
    return "0"


@register.filter
def term(value: int) -> str:
    """A modifier as a term of a sum, its sign always written and apart from the number, which
    a no-break space keeps on its line: "+ 2", "+ 0", "− 1" (a real minus sign). A log's sum
    then reads "16 typed in + 0 attack bonus + 2 STR = 18"."""
    value = int(value)
    return f"{'−' if value < 0 else '+'}\u00a0{abs(value)}"


@register.simple_tag
def die_letter() -> str:
    """The letter the viewer's language writes dice with (d, k, к: ``rules.dice``)."""
    return dice.die_letter_for(get_language() or "en")


@register.filter
def dice_notation(expression: str) -> str:
    """A dice expression as the viewer's language writes it: 1d20, 1k20, 1к20."""
    letter = dice.die_letter_for(get_language() or "en")
    try:
        return dice.format_expression(dice.parse(expression), letter=letter)
    except RulesError:
        return expression


@register.filter
def attack_name(value: Any) -> Any:
    """A monster's attack name: a starter one ("bite") in the reader's language."""
    return starter_words.attack(value)


@register.filter
def hit_dice(value: Any) -> Any:
    """Hit Dice as shown: "normal human" in the reader's language, figures as they are."""
    return starter_words.hit_dice(value)


def _exact(value: Any) -> Decimal | None:
    """A stored number as an exact decimal: an int, a float, a Decimal, a Fraction, or the
    text of one ("6.00", as a stored height may be); None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, Fraction):
        return Decimal(value.numerator) / Decimal(value.denominator)
    if isinstance(value, (int, float, Decimal, str)):
        try:
            exact = Decimal(str(value).strip())
        except ArithmeticError:
            return None
        return exact if exact.is_finite() else None
    return None


@register.filter
def minus(value: Any) -> Any:
    """A whole number with a true minus sign (−2), as print writes it, not a hyphen (-2);
    anything else as it is. For figures in running text: an armour class hit, a total."""
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return f"\u2212{-value}"
    return value


@register.filter
def number(value: Any) -> str:
    """A number in the reader's notation, exactly as stored: 6, 5.5 in English, 5,5 in Czech,
    Russian and Ukrainian (never rounded: a height of 5.75 ft stays 5,75)."""
    exact = _exact(value)
    if exact is None:
        return str(value)
    exact = exact.to_integral() if exact == exact.to_integral() else exact.normalize()
    return number_format(exact, decimal_pos=None)


@register.filter
def feet(value: Any) -> str:
    """A length in feet as the reader's language says it with that number: "22 ft"; in Russian
    "1 фут", "22 фута", "5 футов", and a fraction "5,5 фута"."""
    shown, exact = number(value), _exact(value)
    if exact is not None and exact == exact.to_integral():
        whole = int(exact)
        return npgettext("length", "%(feet)s ft", "%(feet)s ft", whole) % {"feet": shown}
    return pgettext("length, a fraction of feet", "%(feet)s ft") % {"feet": shown}


@register.filter
def percent(chance) -> str:
    """A chance as a per cent figure with at most one decimal, in the viewer's locale."""
    # Exact decimal arithmetic: 11/20 as a float is 55.00000000000001 %, shown as "55.0".
    chance = Fraction(chance)
    return floatformat(Decimal(chance.numerator * 100) / Decimal(chance.denominator), -1)


@register.filter
def chance(value) -> str:
    """A chance with its per cent sign as the reader's language writes it: 45% in English,
    45 % in Czech, Russian and Ukrainian."""
    return pgettext("a chance", "%(percent)s%%") % {"percent": percent(value)}


@register.simple_tag
def save_keys() -> tuple[str, ...]:
    return tuple(SAVES)


@register.simple_tag
@functools.cache
def icon_uri() -> str:
    """The site's icon (static/favicon.svg) as a data URI, written into every page: a phone's
    first load asks for one file less."""
    path = finders.find("favicon.svg")
    svg = Path(path).read_text(encoding="utf-8").strip() if path else ""
    # Its attributes in single quotes, and those percent-encoded: nothing for HTML to escape.
    return "data:image/svg+xml," + quote(svg.replace('"', "'"), safe=" =/:,")
