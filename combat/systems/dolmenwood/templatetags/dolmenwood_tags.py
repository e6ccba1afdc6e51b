"""Template filters that say Dolmenwood's keys (its saves, skills, effects, weapons and
immunities) in the viewer's language."""

from __future__ import annotations

from django import template

from combat.labels import ATTACK_FORMS, IMMUNITIES
from combat.systems.dolmenwood import terms

register = template.Library()


@register.filter
def dw_save_label(key: str) -> str:
    return terms.DW_SAVES.get(key, key)


@register.filter
def dw_save_letter(key: str) -> str:
    return terms.DW_SAVE_LETTERS.get(key, key)


@register.filter
def dw_skill_label(key: str) -> str:
    return terms.DW_SKILLS.get(key, key)


@register.filter
def dw_effect_label(key: str) -> str:
    return terms.DW_EFFECTS.get(key, key)


@register.filter
def dw_weapon_label(key: str) -> str:
    return ATTACK_FORMS.get(key, key)


@register.filter
def dw_immunity_label(key: str) -> str:
    return IMMUNITIES.get(key, key)


@register.simple_tag
def dw_save_keys() -> tuple[str, ...]:
    return tuple(terms.DW_SAVES)
