"""What BECMI's special actions share: the referee's modifier, whose STR counts, and how a
d20 roll is logged."""

from __future__ import annotations

from typing import Any

from combat import table
from combat.models import Combatant, Kind
from rules.core import Modifier


def _situational(value: int) -> tuple[Modifier, ...]:
    return (Modifier(value, "situational"),) if value else ()


def _strength(combatant: Combatant) -> int | None:
    """The STR score whose adjustment counts: a monster's is its own strength (None: 0)."""
    return None if combatant.kind == Kind.MONSTER else combatant.str_score


def _hit_roll(attack: Any, entered: bool) -> dict[str, Any]:
    return {
        "natural": attack.natural,
        "entered": entered,
        "mods": table.modifiers(attack.modifiers),
        "total": attack.total,
        "needed": attack.needed,
        "success": attack.hit,
    }


def _save_roll(save: Any, entered: bool) -> dict[str, Any]:
    return {
        "natural": save.natural,
        "entered": entered,
        "mods": table.modifiers(save.modifiers),
        "total": save.total,
        "needed": save.target,
        "success": save.saved,
    }
