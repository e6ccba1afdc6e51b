"""What happens when someone attacks or saves at a BECMI / Rules Cyclopedia table: hit rolls
through the hit table with range and cover, and the five saves by their BECMI names.

As ``combat.table`` says: one transaction, the rows locked, one log entry of keys and numbers
(``"system": "becmi"``), announced after commit; hit locations land a hit as for OSE.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from combat import table
from combat.access import Viewer
from combat.errors import Refused
from combat.models import Combatant, EntryKind, LogEntry
from combat.systems.becmi.forms import becmi_attack_inputs, becmi_save_modifiers
from combat.systems.dolmenwood.actions import locate_hit
from rules import becmi, dice, ose
from rules.core import Modifier

SYSTEM = "becmi"


@transaction.atomic
def attack(
    viewer: Viewer,
    *,
    actor: Combatant,
    target: Combatant,
    mode: str,
    range_band: str | None = None,
    cover: str = "none",
    cover_material: str = "soft",
    modifier: int,
    natural: int | None,
    damage: dice.DiceExpression | None,
    damage_dice: list[int] | None,
    secret: bool = False,
    once: str = "",
    attack_name: str = "",  # a monster's attack from its button (combat.monsters)
    **location: Any,  # hit locations: the attack form's fields for them (locate_hit)
) -> LogEntry:
    attacker, target = table.attack_pair(viewer, actor, target)
    table.able(table.alive(attacker))
    where = locate_hit(viewer, attacker, location)
    if target.dead:
        raise Refused("target_is_dead", name=target.name)
    if table.helpless_outcome(viewer.encounter, target):  # as OSE's: hit without a roll, or slain
        return table.attack_helpless(
            viewer, attacker, target, mode, damage, damage_dice, secret, once, where, attack_name
        )
    values = {
        "mode": mode,
        "range_band": range_band,
        "cover": cover,
        "cover_material": cover_material,
        "modifier": modifier,
    }
    result = becmi.resolve_attack(
        attacker.thac0,
        target.ac,
        rng=table.RNG,
        natural=natural,
        **becmi_attack_inputs(attacker, values),
    )
    data: dict[str, Any] = {
        "system": SYSTEM,
        "attacker": attacker.name,
        "target": target.name,
        "attack_name": attack_name,
        "mode": mode,
        "range": range_band or "",
        "cover": cover,
        "cover_material": cover_material,
        "outcome": result.outcome.value,
        "roll": None,
        "damage": None,
    }
    if result.natural is not None:
        data["roll"] = {
            "sides": 20,
            "natural": result.natural,
            "entered": natural is not None,
            "mods": table.modifiers(result.modifiers),
            "total": result.total,
            "needed": result.needed,
            "success": result.hit,
            "automatic": result.natural == 1,
        }
    effects = []
    if result.hit and damage is not None:
        dealt = ose.resolve_damage(
            damage, mode, strength=attacker.str_score, rng=table.RNG, entered=damage_dice
        )
        data["damage"] = table.damage_data(dealt, damage_dice)
        total = dealt.total + result.damage_bonus
        if result.damage_bonus:  # the hit table's bonus for an AC easier than its first row
            data["damage"]["mods"] += table.modifiers([Modifier(result.damage_bonus, "hit_table")])
            data["damage"]["total"] = total
        if where is not None:
            from combat import zones

            effects.append(zones.land(where, attacker, target, damage, total, data))
        else:
            effect, data["killed"] = table.hurt(target, total)
            effects.append(effect)
    return table.record(
        viewer,
        EntryKind.ATTACK,
        data,
        secret=table.kept_secret(viewer, secret, attacker, target),
        effects=[e for e in effects if e["hp"] or "zones" in e],
        once=once,
    )


@transaction.atomic
def saving_throw(
    viewer: Viewer,
    *,
    actor: Combatant,
    category: str,
    magical: bool = False,
    modifier: int,
    natural: int | None,
    secret: bool = False,
    once: str = "",
) -> LogEntry:
    actor = table.alive(table.locked(viewer, actor))
    mods = becmi_save_modifiers(actor, {"modifier": modifier, "magical": magical})
    result = becmi.resolve_save(actor.save_value(category), mods, rng=table.RNG, natural=natural)
    data = {
        "system": SYSTEM,
        "who": actor.name,
        "category": category,
        "magical": bool(magical),
        "roll": {
            "sides": 20,
            "natural": result.natural,
            "entered": natural is not None,
            "mods": table.modifiers(result.modifiers),
            "total": result.total,
            "needed": result.target,
            "success": result.saved,
            "automatic": False,
        },
    }
    return table.record(
        viewer, EntryKind.SAVE, data, secret=table.kept_secret(viewer, secret, actor), once=once
    )
