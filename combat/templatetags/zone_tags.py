"""Hit locations in the log and the zone panels: the effects of a hit or a round as one
readable clause list (``combat.zone_log``). Zone and direction words: the ``bodies`` tags."""

from __future__ import annotations

from typing import Any

from django import template

from combat.models import Combatant
from combat.payloads.zones import ZoneEffect
from combat.zone_labels import VARIANTS, zone_hit_label
from combat.zone_log import effects_text, status_words
from combat.zones import state_of
from rules.errors import RulesError
from rules.hit_location import ZoneState

register = template.Library()


@register.filter
def zone_effects(effects: list[ZoneEffect] | None, body: str | None = None) -> str:
    """A hit's or a round's effects (``combat.payloads.zones.ZoneEffect``) as one clause list."""
    return effects_text(effects or [], body)


@register.filter
def zone_hit(zone: str, body: str | None = None) -> str:
    """Where a blow lands: "in the left arm", in the case the language needs there."""
    return zone_hit_label(zone, body)


@register.filter
def zone_state(combatant: Combatant) -> ZoneState | None:
    """The combatant's zone state, None without one (or with one that no longer reads)."""
    try:
        return state_of(combatant)
    except (ValueError, KeyError, TypeError, RulesError):
        return None


@register.simple_tag
def zone_view(
    combatant: Combatant, viewer: Any, show_numbers: bool, controlled_ids: Any
) -> dict[str, Any] | None:
    """A body as its row shows it: with numbers for whom the row shows hit points (the
    referee, the party, one's own, foes when the referee shows theirs), else states only."""
    state = zone_state(combatant)
    if state is None:
        return None
    numbers = bool(
        viewer.is_referee
        or combatant.side == "party"
        or show_numbers
        or combatant.pk in (controlled_ids or ())
    )
    words = status_words(state, combatant.dex_score if numbers else None)
    return {"state": state, "numbers": numbers, "words": words}


@register.filter
def posture_name(key: str) -> str:
    return str(VARIANTS.get(key, key))
