"""A character's sheet on its row: class and level, ability scores with the modifiers they give
in the encounter's rules system (combat.classes); what a monster saves as."""

from __future__ import annotations

from typing import Any

from django import template

from combat.classes import (
    ABILITY_FIELDS,
    CharacterClass,
    ability_meaning,
    ability_modifier_for,
    format_saves_as,
)
from combat.models import Combatant, Kind

register = template.Library()

LONG_NOTES = 80  # characters: longer notes are folded on the row


@register.simple_tag
def character_sheet(combatant: Combatant, system: str) -> dict[str, Any]:
    """What the row shows of ``combatant``'s sheet: its class's name, the ability scores it has
    (a character's; monsters have none of their own), what it saves as (a monster's "Fighter
    3"), and whether its notes are long."""
    abilities = []
    if combatant.kind == Kind.CHARACTER:
        for key, name in ABILITY_FIELDS.items():
            score = getattr(combatant, name)
            if score is None:
                continue
            abilities.append(
                {
                    "key": key,
                    "score": score,
                    "modifier": ability_modifier_for(system, key, score),
                    "meaning": ability_meaning(system, key),
                }
            )
    klass = combatant.char_class
    return {
        "klass": CharacterClass(klass).label if klass in CharacterClass.values else "",
        "abilities": abilities,
        "saves_as": format_saves_as(combatant.saves_as) if combatant.saves_as else "",
        "long_notes": len(combatant.notes) > LONG_NOTES or combatant.notes.count("\n") > 1,
    }
