"""Template filters that say BECMI's keys in the viewer's language: its saves, range and cover;
its special actions' holds, what a wrestler may try next, blows, vessels, how a ship floats."""

from __future__ import annotations

from django import template
from django.utils.translation import pgettext_lazy

from combat.models import Combatant, Hold
from combat.systems.becmi import terms
from combat.systems.becmi.special import ShipView, ship_view
from combat.systems.becmi.special_forms import BLOWS, VESSELS
from combat.systems.common import reason_label

register = template.Library()

NEXT = {
    "grab": pgettext_lazy("wrestling: may try next", "may try to grab"),
    "throw": pgettext_lazy("wrestling: may try next", "may try to throw down"),
    "pin": pgettext_lazy("wrestling: may try next", "may try to pin"),
    "keep": pgettext_lazy("wrestling: may try next", "holds the pin"),
    "break": pgettext_lazy("wrestling: may try next", "may try to break free"),
    "rise": pgettext_lazy("wrestling: may try next", "may try to get up"),
    "escape": pgettext_lazy("wrestling: may try next", "may try to escape the pin"),
}
STATUS = {
    "afloat": pgettext_lazy("ship", "afloat"),
    "dead_in_water": pgettext_lazy("ship", "dead in the water"),
    "sinking": pgettext_lazy("ship", "sinking"),
}

REASONS = {
    "situational": pgettext_lazy("modifier reason", "situation"),
    "str": pgettext_lazy("modifier reason", "STR"),
    "haymaker": pgettext_lazy("modifier reason", "haymaker"),
    "stun_save": pgettext_lazy("modifier reason", "stunned"),
    "attacker_str": pgettext_lazy("modifier reason", "the striker's STR"),
    "wrestling_rating": pgettext_lazy("modifier reason", "wrestling rating"),
    "helpers_small": pgettext_lazy("modifier reason", "small helpers"),
    "helpers_large": pgettext_lazy("modifier reason", "large helpers"),
    "pinned": pgettext_lazy("modifier reason", "pinned"),
    "boarding": pgettext_lazy("modifier reason", "boarding"),
}


@register.filter
def becmi_reason(key: str) -> str:
    """A modifier's reason; the hit roll's own (cover, the hit table) as the attack's words."""
    if key in REASONS:
        return str(REASONS[key])
    return str(reason_label(key))


@register.filter
def hold_label(key: str) -> str:
    try:
        return str(Hold(key).label)
    except ValueError:
        return key


@register.filter
def next_label(key: str) -> str:
    return str(NEXT.get(key, key))


@register.filter
def blow_label(key: str) -> str:
    return str(BLOWS.get(key, key))


@register.filter
def vessel_label(key: str) -> str:
    return str(VESSELS.get(key, key))


@register.filter
def ship_status_label(key: str) -> str:
    return str(STATUS.get(key, key))


@register.filter
def ship_card(combatant: Combatant) -> ShipView:

    return ship_view(combatant)


@register.filter
def becmi_save_label(key: str) -> str:
    return terms.BECMI_SAVES.get(key, key)


@register.filter
def becmi_save_letter(key: str) -> str:
    return terms.BECMI_SAVE_LETTERS.get(key, key)


@register.filter
def range_label(key: str) -> str:
    return terms.RANGES.get(key or "", key)


@register.filter
def cover_label(key: str) -> str:
    return terms.COVERS.get(key, key)


@register.simple_tag
def becmi_save_keys() -> tuple[str, ...]:
    return tuple(terms.BECMI_SAVES)
