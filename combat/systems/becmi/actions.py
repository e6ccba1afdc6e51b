"""What happens when someone attacks or saves at a BECMI / Rules Cyclopedia table: hit rolls
through the hit table with range and cover, and the five saves by their BECMI names.

As ``combat.table`` says: one transaction, the rows locked, one log entry of keys and numbers
(its payload: ``combat.systems.becmi.payloads``, ``"system": "becmi"``), announced after
commit; hit locations land a hit as for OSE.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from combat import table
from combat.access import Viewer
from combat.models import Combatant, EntryKind, LogEntry
from combat.systems.becmi import payloads as entries
from combat.systems.becmi.forms import becmi_attack_inputs, becmi_save_modifiers
from rules import becmi, dice
from rules.core import Modifier


class BecmiAttack(table.Attack):
    """An attack through BECMI's hit table, with range and cover; an AC easier than the
    table's first row adds to the damage."""

    def __init__(
        self,
        viewer: Viewer,
        *,
        range_band: str | None,
        cover: str,
        cover_material: str,
        modifier: int,
        natural: int | None,
        **common: Any,
    ):
        super().__init__(viewer, **common)
        self.range_band, self.cover, self.cover_material = range_band, cover, cover_material
        self.modifier, self.natural = modifier, natural
        self.result: becmi.AttackResult | None = None  # the roll, once made

    def entry(self, attacker: Combatant, target: Combatant) -> entries.BecmiAttack:
        return entries.BecmiAttack(
            attacker=attacker.name,
            target=target.name,
            attack_name=self.attack_name,
            mode=self.mode,
            range=self.range_band or "",
            cover=self.cover,
            cover_material=self.cover_material,
        )

    def roll(self, attacker: Combatant, target: Combatant, data: entries.BecmiAttack) -> bool:
        values = {
            "mode": self.mode,
            "range_band": self.range_band,
            "cover": self.cover,
            "cover_material": self.cover_material,
            "modifier": self.modifier,
        }
        inputs = becmi_attack_inputs(attacker, values)
        result = becmi.resolve_attack(
            attacker.thac0, target.ac, rng=table.RNG, natural=self.natural, **inputs
        )
        self.result = result
        data.outcome = result.outcome.value
        if result.natural is not None:
            entered = self.natural is not None
            data.roll = table.roll_data(
                result,
                needed=result.needed,
                success=result.hit,
                entered=entered,
                payload=entries.BecmiHitRoll,
            )
            data.roll.automatic = result.natural == 1
        return result.hit

    def damage(
        self, attacker: Combatant, target: Combatant, data: entries.BecmiAttack
    ) -> int | None:
        total = super().damage(attacker, target, data)
        assert total is not None and data.damage is not None
        bonus = self.result.damage_bonus if self.result is not None else 0
        if bonus:  # the hit table's bonus for an AC easier than its first row
            total += bonus
            data.damage.mods += table.modifiers([Modifier(bonus, "hit_table")])
            data.damage.total = total
        return total


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
    despite_surprise: bool = False,  # the referee's ruling (table.unsurprised)
    **location: Any,  # hit locations: the attack form's fields for them (table.LOCATION_FIELDS)
) -> LogEntry:
    """``actor`` attacks ``target`` (:class:`BecmiAttack`, run as ``combat.table.Attack`` runs
    every system's attack; a helpless target's entry is the classic one, as OSE's)."""
    return BecmiAttack(
        viewer,
        actor=actor,
        target=target,
        mode=mode,
        range_band=range_band,
        cover=cover,
        cover_material=cover_material,
        modifier=modifier,
        natural=natural,
        damage=damage,
        damage_dice=damage_dice,
        secret=secret,
        once=once,
        attack_name=attack_name,
        location=location,
        despite_surprise=despite_surprise,
    ).run()


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
    secret = table.kept_secret(viewer, secret, actor)  # before any die is cast
    mods = becmi_save_modifiers(actor, {"modifier": modifier, "magical": magical})
    result = becmi.resolve_save(actor.save_value(category), mods, rng=table.RNG, natural=natural)
    data = entries.BecmiSave(
        who=actor.name,
        category=category,
        magical=bool(magical),
        roll=table.roll_data(
            result,
            needed=result.target,
            success=result.saved,
            entered=natural is not None,
            payload=entries.BecmiRoll,
        ),
    )
    return table.record(viewer, EntryKind.SAVE, data, secret=secret, once=once)
