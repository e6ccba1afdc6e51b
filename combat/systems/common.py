"""What every rules system shares at the table: which a table may choose, that the choice is
fixed from the first roll, and what changing it does to the monsters already there."""

from __future__ import annotations

from typing import Any

from combat import registry
from combat.labels import SYSTEM_REASONS
from combat.models import Encounter, Kind
from rules.errors import RulesError


def reason_label(key: str) -> Any:
    """What a modifier's reason is called in a rules system's roll line: the shared ones, then
    the registered systems' own (range and cover)."""
    if key in SYSTEM_REASONS:
        return SYSTEM_REASONS[key]
    for system in registry.systems():
        if key in system.reasons:
            return system.reasons[key]
    return key


def system_choices() -> list[tuple[str, Any]]:
    """The registered systems an encounter can play (the model's choices are the registry's)."""
    return registry.choices()


def has_rolled(encounter: Encounter) -> bool:
    """Whether anything was rolled or logged yet: the rules system is fixed from then on."""
    return encounter.pk is not None and encounter.log.exists()


def monster_thac0(system: str, hit_dice: str) -> int:
    """A monster's THAC0 by its Hit Dice from its system's table (the registry's; some systems'
    differ from OSE's above 7 HD)."""
    found = registry.get(system).monster_thac0 or registry.default().monster_thac0
    assert found is not None, "the default system gives monsters their THAC0"
    return found(hit_dice)


def system_changed(encounter: Encounter) -> None:
    """The encounter now plays another system (before any roll, inside the settings' own
    transaction): its monsters take their THAC0 from that system's table by their Hit Dice."""
    for monster in encounter.combatants.filter(kind=Kind.MONSTER).exclude(hit_dice=""):
        try:
            thac0 = monster_thac0(encounter.system, monster.hit_dice)
        except RulesError:
            continue
        if thac0 != monster.thac0:
            monster.thac0 = thac0
            monster.save(update_fields=["thac0"])
