"""Template filters that say the engine's keys in the viewer's language."""

from __future__ import annotations

from django import template
from django.template.defaultfilters import floatformat
from django.utils.translation import get_language, pgettext_lazy

from rules import dice
from rules.errors import RulesError

register = template.Library()

SAVES = {
    "death": pgettext_lazy("save", "Death ray or poison"),
    "wands": pgettext_lazy("save", "Magic wands"),
    "paralysis": pgettext_lazy("save", "Paralysis or petrification"),
    "breath": pgettext_lazy("save", "Breath attacks"),
    "spells": pgettext_lazy("save", "Spells, rods or staves"),
}
SAVE_LETTERS = {
    "death": pgettext_lazy("save letter: death ray or poison", "D"),
    "wands": pgettext_lazy("save letter: magic wands", "W"),
    "paralysis": pgettext_lazy("save letter: paralysis or petrification", "P"),
    "breath": pgettext_lazy("save letter: breath attacks", "B"),
    "spells": pgettext_lazy("save letter: spells, rods or staves", "S"),
}
ABILITIES = {
    "str": pgettext_lazy("ability", "STR"),
    "int": pgettext_lazy("ability", "INT"),
    "wis": pgettext_lazy("ability", "WIS"),
    "dex": pgettext_lazy("ability", "DEX"),
    "con": pgettext_lazy("ability", "CON"),
    "cha": pgettext_lazy("ability", "CHA"),
}
REASONS = {
    "str": pgettext_lazy("modifier reason", "STR"),
    "dex": pgettext_lazy("modifier reason", "DEX"),
    "situational": pgettext_lazy("modifier reason", "situation"),
}
HEALTH = {
    "unhurt": pgettext_lazy("health", "unhurt"),
    "wounded": pgettext_lazy("health", "wounded"),
    "badly": pgettext_lazy("health", "badly wounded"),
    "down": pgettext_lazy("health", "down"),
}
DIE_LETTERS = {"cs": "k", "ru": "к", "uk": "к"}


@register.filter
def save_label(key: str) -> str:
    return SAVES.get(key, key)


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
def dice_notation(expression: str) -> str:
    """A dice expression as the viewer's language writes it: 1d20, 1k20, 1к20."""
    letter = DIE_LETTERS.get((get_language() or "en").split("-")[0], "d")
    try:
        return dice.format_expression(dice.parse(expression), letter=letter)
    except RulesError:
        return expression


@register.filter
def percent(chance) -> str:
    """A chance as a per cent figure with at most one decimal, in the viewer's locale."""
    return floatformat(float(chance) * 100, -1)


@register.simple_tag
def save_keys() -> tuple[str, ...]:
    return tuple(SAVES)
