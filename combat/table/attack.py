"""What every system's attack shares: the helpless rule applied, damage dealt, a hit located."""

from __future__ import annotations

from typing import Any

from combat.access import Viewer
from combat.models import Combatant, EntryKind, HelplessRule, LogEntry
from combat.table import hooks
from combat.table.life import hurt, set_hp
from combat.table.record import kept_secret, record
from combat.table.rolls import RNG, damage_data
from rules import dice, ose


def attack_helpless(
    viewer: Viewer,
    attacker: Combatant,
    target: Combatant,
    mode: str,
    damage: dice.DiceExpression | None,
    damage_dice: list[int] | None,
    wanted_secret: bool,
    once: str,
    where: dict[str, Any] | None = None,
    attack_name: str = "",
) -> LogEntry:
    """A helpless target (paralysed, asleep, held) is hit without a roll, or slain outright,
    as the referee set the table's rule; the caller has asked ``helpless_outcome``."""
    rule = viewer.encounter.helpless_rule
    data: dict[str, Any] = {
        "attacker": attacker.name,
        "target": target.name,
        "attack_name": attack_name,
        "mode": mode,
        "method": viewer.encounter.attack_method,
        "helpless": rule,
        "roll": None,
        "damage": None,
    }
    if rule == HelplessRule.SLAIN:
        effect, data["killed"] = set_hp(target, min(target.hp, 0))
    else:
        effect, data["killed"] = {"combatant": target.pk, "hp": 0}, False
        if damage is not None:
            effect = deal_damage(attacker, target, mode, damage, damage_dice, data, where)
    return record(
        viewer,
        EntryKind.ATTACK,
        data,
        secret=kept_secret(viewer, wanted_secret, attacker, target),
        effects=[effect] if effect["hp"] else [],
        once=once,
    )


def deal_damage(
    attacker: Combatant,
    target: Combatant,
    mode: str,
    damage: dice.DiceExpression,
    damage_dice: list[int] | None,
    data: dict[str, Any],
    where: dict[str, Any] | None = None,
) -> dict[str, int]:
    """Roll a hit's damage and take it from ``target``; the roll and whether it killed go
    into the entry's ``data``. Returns the effect an undo reverses. With ``where`` (hit
    locations), the location is rolled first and the damage lands in that zone."""
    dealt = ose.resolve_damage(
        damage, mode, strength=attacker.str_score, rng=RNG, entered=damage_dice
    )
    data["damage"] = damage_data(dealt, damage_dice)
    if where is not None:
        return hooks.hit_locations().land(where, attacker, target, damage, dealt.total, data)
    effect, data["killed"] = hurt(target, dealt.total)
    return effect


def where(
    viewer: Viewer,
    attacker: Combatant,
    direction: str | None,
    attacker_ft: Any,
    weapon_ft: Any,
    location: int | None,
) -> dict[str, Any] | None:
    """How a hit is located when the encounter plays hit locations: the direction, the
    attacker's height and weapon (remembered on the attacker when the form changed them)
    and the d100 typed in, if any."""
    if not viewer.encounter.hit_locations:
        return None
    hooks.hit_locations().remember(attacker, attacker_ft, weapon_ft)
    roll = {"direction": direction, "natural": location}
    return {"encounter": viewer.encounter, "roll": roll}
