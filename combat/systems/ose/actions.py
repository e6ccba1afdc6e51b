"""OSE's own actions at the table: an attack through the attack matrix, a saving throw by the
five categories, an ability check.

Each runs as ``combat.table`` says: one transaction, the rows locked, one log entry of keys and
numbers (OSE's carry no ``"system"``: it is the default), announced after commit.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from combat import classes, table
from combat.access import Viewer
from combat.models import Combatant, EntryKind, LogEntry
from combat.payloads import table as entries
from rules import dice, ose
from rules.core import Modifier


class OseAttack(table.Attack):
    """An attack through OSE's attack matrix (or THAC0, as the table set it), with STR for
    melee and DEX for missiles."""

    def __init__(self, viewer: Viewer, *, modifier: int, natural: int | None, **common: Any):
        super().__init__(viewer, **common)
        self.modifier, self.natural = modifier, natural

    def entry(self, attacker: Combatant, target: Combatant) -> entries.Attack:
        return entries.Attack(
            attacker=attacker.name,
            target=target.name,
            mode=self.mode,
            method=self.viewer.encounter.attack_method,
            attack_name=self.attack_name,
        )

    def roll(self, attacker: Combatant, target: Combatant, data: entries.Attack) -> bool:
        modifiers = ose.attack_modifiers(
            self.mode,
            strength=attacker.str_score,
            dexterity=attacker.dex_score,
            situational=self.modifier,
        )
        result = ose.resolve_attack(
            thac0=attacker.thac0,
            target_ac=target.ac,
            method=self.viewer.encounter.attack_method,
            modifiers=modifiers,
            rng=table.RNG,
            natural=self.natural,
        )
        entered = self.natural is not None
        rolled = table.roll_data(result, needed=result.needed, success=result.hit, entered=entered)
        data.roll = entries.AttackRoll.from_json(rolled)
        data.roll.hit_ac = result.hit_ac
        return result.hit


def attack(
    viewer: Viewer,
    *,
    actor: Combatant,
    target: Combatant,
    mode: str,
    modifier: int,
    natural: int | None,
    damage: dice.DiceExpression | None,
    damage_dice: list[int] | None,
    secret: bool = False,
    once: str = "",
    direction: str | None = None,
    attacker_ft: Any = None,
    weapon_ft: Any = None,
    location: int | None = None,
    special: str = "",
    hold_round: int | None = None,
    escape: int | None = None,
    wound_dice: list[int] | None = None,
    posture: str = "",
    attack_name: str = "",  # a monster's attack from its button (combat.monsters)
    despite_surprise: bool = False,  # the referee's ruling (table.unsurprised)
) -> LogEntry:
    """``actor`` attacks ``target`` (:class:`OseAttack`, run as ``combat.table.Attack`` runs
    every system's attack)."""
    located = {
        "direction": direction,
        "attacker_ft": attacker_ft,
        "weapon_ft": weapon_ft,
        "location": location,
        "special": special,
        "hold_round": hold_round,
        "escape": escape,
        "wound_dice": wound_dice,
        "posture": posture,
    }
    return OseAttack(
        viewer,
        actor=actor,
        target=target,
        mode=mode,
        modifier=modifier,
        natural=natural,
        damage=damage,
        damage_dice=damage_dice,
        secret=secret,
        once=once,
        attack_name=attack_name,
        location=located,
        despite_surprise=despite_surprise,
    ).run()


@transaction.atomic
def saving_throw(
    viewer: Viewer,
    *,
    actor: Combatant,
    category: str,
    modifier: int,
    natural: int | None,
    damage: int | None,
    secret: bool = False,
    once: str = "",
    magical: bool = False,
) -> LogEntry:
    actor = table.alive(table.locked(viewer, actor))
    secret = table.kept_secret(viewer, secret, actor)  # before any die is cast
    modifiers = [Modifier(modifier, "situational")] if modifier else []
    # Against magic the stored WIS counts (combat.classes), as OSE's magic saves column says.
    wis = classes.magic_save_modifier(viewer.encounter.system, actor.wis_score) if magical else 0
    if wis:
        modifiers.insert(0, Modifier(wis, "wis"))
    result = ose.resolve_save(
        save_value=actor.save_value(category),
        category=category,
        modifiers=modifiers,
        rng=table.RNG,
        natural=natural,
        damage=damage,
    )
    data = entries.Save(
        who=actor.name,
        category=category,
        roll=table.roll_data(
            result, needed=result.needed, success=result.success, entered=natural is not None
        ),
    )
    effects = []
    if damage is not None:
        effect, data.killed = table.hurt(actor, result.damage_taken)
        effects.append(effect)
        data.damage = entries.SaveDamage(
            amount=damage, taken=result.damage_taken, halved=result.damage_taken != damage
        )
    return table.record(
        viewer,
        EntryKind.SAVE,
        data,
        secret=secret,
        effects=effects,
        once=once,
    )
