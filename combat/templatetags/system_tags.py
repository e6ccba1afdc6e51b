"""Template filters that say a rules system's keys (Dolmenwood's saves, skills, weapons,
immunities, modifier reasons) in the viewer's language."""

from __future__ import annotations

from django import template

from combat.systems import terms as systems

register = template.Library()


@register.filter
def dw_save_label(key: str) -> str:
    return systems.DW_SAVES.get(key, key)


@register.filter
def dw_save_letter(key: str) -> str:
    return systems.DW_SAVE_LETTERS.get(key, key)


@register.filter
def dw_skill_label(key: str) -> str:
    return systems.DW_SKILLS.get(key, key)


@register.filter
def dw_effect_label(key: str) -> str:
    return systems.DW_EFFECTS.get(key, key)


@register.filter
def dw_weapon_label(key: str) -> str:
    return systems.ATTACK_FORMS.get(key, key)


@register.filter
def dw_immunity_label(key: str) -> str:
    return systems.IMMUNITIES.get(key, key)


@register.filter
def system_reason(key: str) -> str:
    return systems.REASONS.get(key, key)


@register.simple_tag
def dw_save_keys() -> tuple[str, ...]:
    return tuple(systems.DW_SAVES)


@register.filter
def becmi_save_label(key: str) -> str:
    return systems.BECMI_SAVES.get(key, key)


@register.filter
def becmi_save_letter(key: str) -> str:
    return systems.BECMI_SAVE_LETTERS.get(key, key)


@register.filter
def range_label(key: str) -> str:
    return systems.RANGES.get(key or "", key)


@register.filter
def cover_label(key: str) -> str:
    return systems.COVERS.get(key, key)


@register.simple_tag
def becmi_save_keys() -> tuple[str, ...]:
    return tuple(systems.BECMI_SAVES)
