"""What happens when someone acts at a Dolmenwood table: skill and ability checks, saves,
attacks against ascending AC, and the referee's chance rolls.

As ``combat.table`` says: each runs in one transaction, locks what it changes, asks
``rules.dolmenwood``, appends one log entry (keys and numbers, ``"system": "dolmenwood"``)
and announces the change after commit. Hit points never drop below 0 here.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from combat import table
from combat.access import Viewer
from combat.errors import Refused
from combat.models import Combatant, EntryKind, HelplessRule, LogEntry
from combat.systems.dolmenwood import terms as systems
from rules import dice
from rules import dolmenwood as dw
from rules.core import Modifier

SYSTEM = "dolmenwood"


def locate_hit(viewer: Viewer, attacker: Combatant, fields: dict[str, Any]) -> dict | None:
    """How a hit is located when the encounter plays hit locations, from the attack form's
    fields as an attack reads them (direction, heights, the d100, a monster's special
    attack, wound dice, the target's posture); None when it does not."""
    where = table.where(
        viewer,
        attacker,
        fields.get("direction"),
        fields.get("attacker_ft"),
        fields.get("weapon_ft"),
        fields.get("location"),
    )
    if where is not None:
        where["special"] = {
            "kind": fields.get("special") or "",
            "round": fields.get("hold_round"),
            "escape": fields.get("escape"),
        }
        where["wound_dice"] = fields.get("wound_dice")
        where["roll"]["posture"] = fields.get("posture") or ""
    return where


def _situational(value: int) -> tuple[Modifier, ...]:
    return (Modifier(value, dw.SITUATIONAL),) if value else ()


def _roll(result: Any, *, sides: int, entered: bool) -> dict[str, Any]:
    return {
        "sides": sides,
        "natural": result.natural,
        "entered": entered,  # typed in from a die rolled at the table
        "mods": table.modifiers(result.modifiers),
        "total": result.total,
        "needed": result.target,
        "success": result.outcome.value in ("success", "hit"),
        "automatic": result.automatic,
    }


@transaction.atomic
def skill_check(
    viewer: Viewer,
    *,
    actor: Combatant,
    skill: systems.SheetSkill,
    target: int,
    modifier: int,
    natural: int | None,
    secret: bool = False,
    once: str = "",
) -> LogEntry:
    actor = table.able(table.alive(table.locked(viewer, actor)))
    result = dw.resolve_skill_check(
        skill.key, target, _situational(modifier), rng=table.RNG, natural=natural
    )
    data = {
        "system": SYSTEM,
        "who": actor.name,
        "skill": skill.key if skill.universal else "",
        "name": "" if skill.universal else skill.name,
        "targets": list(skill.targets),
        "roll": _roll(result, sides=6, entered=natural is not None),
    }
    return table.record(
        viewer, EntryKind.SKILL, data, secret=table.kept_secret(viewer, secret, actor), once=once
    )


@transaction.atomic
def ability_check(
    viewer: Viewer,
    *,
    actor: Combatant,
    ability: str,
    score: int,
    modifier: int,
    natural: int | None,
    secret: bool = False,
    once: str = "",
) -> LogEntry:
    actor = table.able(table.alive(table.locked(viewer, actor)))
    result = dw.resolve_ability_check(
        ability, score, _situational(modifier), rng=table.RNG, natural=natural
    )
    data = {
        "system": SYSTEM,
        "who": actor.name,
        "ability": ability,
        "score": score,
        "roll": _roll(result, sides=6, entered=natural is not None),
    }
    return table.record(
        viewer, EntryKind.CHECK, data, secret=table.kept_secret(viewer, secret, actor), once=once
    )


@transaction.atomic
def saving_throw(
    viewer: Viewer,
    *,
    actor: Combatant,
    category: str,
    effect: str = "",
    magical: bool = False,
    modifier: int,
    natural: int | None,
    secret: bool = False,
    once: str = "",
) -> LogEntry:
    actor = table.alive(table.locked(viewer, actor))
    result = dw.resolve_save(
        category,
        systems.dw_save_target(actor, category),
        _situational(modifier),
        magical=magical,
        wisdom=actor.wis_score,
        rng=table.RNG,
        natural=natural,
    )
    data = {
        "system": SYSTEM,
        "who": actor.name,
        "category": category,
        "effect": effect or "",
        "magical": bool(magical),
        "roll": _roll(result, sides=20, entered=natural is not None),
        "damage": None,
    }
    return table.record(
        viewer, EntryKind.SAVE, data, secret=table.kept_secret(viewer, secret, actor), once=once
    )


@transaction.atomic
def attack(
    viewer: Viewer,
    *,
    actor: Combatant,
    target: Combatant,
    mode: str,
    weapon: str = "mundane",
    modifier: int,
    natural: int | None,
    damage: dice.DiceExpression | None,
    dw_dice: tuple[str, int] | None = None,
    damage_dice: list[int] | None,
    secret: bool = False,
    once: str = "",
    attack_name: str = "",  # a monster's attack from its button (combat.monsters)
    **location: Any,  # hit locations: the attack form's fields for them (locate_hit)
) -> LogEntry:
    attacker, target = table.attack_pair(viewer, actor, target)
    table.able(table.alive(attacker))
    # Hit locations: where a hit lands, as for OSE (combat.zones); off, None.
    where = locate_hit(viewer, attacker, location)
    if target.dead:
        raise Refused("target_is_dead", name=target.name)
    immune = systems.is_immune(target, weapon)
    data: dict[str, Any] = {
        "system": SYSTEM,
        "attacker": attacker.name,
        "target": target.name,
        "mode": mode,
        "weapon": weapon,
        "attack_name": attack_name,
        "roll": None,
        "damage": None,
        "immune": immune,
    }
    effects = []
    rule = table.helpless_outcome(viewer.encounter, target)
    if rule:
        data["helpless"] = rule
        if rule == HelplessRule.SLAIN:
            effect, data["killed"] = table.set_hp(target, 0)
            return table.record(
                viewer,
                EntryKind.ATTACK,
                data,
                secret=table.kept_secret(viewer, secret, attacker, target),
                effects=[effect] if effect["hp"] else [],
                once=once,
            )
        hit = True
    else:
        character = attacker.kind != "monster"
        result = dw.resolve_attack(
            systems.attack_bonus(attacker),
            target.ac,
            mode,
            _situational(modifier),
            strength=attacker.str_score if character else None,
            dexterity=attacker.dex_score if character else None,
            rng=table.RNG,
            natural=natural,
        )
        data["roll"] = _roll(result, sides=20, entered=natural is not None)
        hit = result.hit
    if hit and damage is not None:
        effects.append(
            _deal_damage(attacker, target, mode, damage, dw_dice, damage_dice, immune, data, where)
        )
    return table.record(
        viewer,
        EntryKind.ATTACK,
        data,
        secret=table.kept_secret(viewer, secret, attacker, target),
        effects=[e for e in effects if e["hp"] or "zones" in e],
        once=once,
    )


def _deal_damage(
    attacker: Combatant,
    target: Combatant,
    mode: str,
    damage: dice.DiceExpression,
    dw_dice: tuple[str, int] | None,
    damage_dice: list[int] | None,
    immune: bool,
    data: dict[str, Any],
    where: dict[str, Any] | None,
) -> dict[str, Any]:
    """A hit's damage: the dice, STR for melee, at least 1, none against an immune target;
    hit points floored at 0. With hit locations the damage lands in a zone."""
    expression, bonus = dw_dice or (str(damage), 0)
    character = attacker.kind != "monster"
    dealt = dw.resolve_damage(
        expression,
        mode,
        (Modifier(bonus, "bonus"),) if bonus else (),
        strength=attacker.str_score if character else None,
        immune=immune,
        rng=table.RNG,
        naturals=damage_dice,
    )
    data["damage"] = {
        "expr": expression,
        "dice": list(dealt.naturals),
        "entered": damage_dice is not None,
        "mods": table.modifiers(dealt.modifiers),
        "total": dealt.total,
        "outcome": dealt.outcome.value,
    }
    if immune:
        data["killed"] = False
        return {"combatant": target.pk, "hp": 0}
    if where is not None:
        from combat import zones

        # Hit points stop at 0 there too: a Dolmenwood zone's damage is floored where it is
        # stored (combat.zones.hit_zone), for the referee's zone panel and bleeding alike.
        return zones.land(where, attacker, target, damage, dealt.total, data)
    change = dw.apply_damage(target.hp, min(dealt.total, 10_000))
    effect, data["killed"] = table.set_hp(target, change.after)
    return effect


@transaction.atomic
def chance_roll(
    viewer: Viewer,
    *,
    kind: str,
    chance: int,
    natural: int | None,
    label: str = "",
    secret: bool = False,
    once: str = "",
) -> LogEntry:
    if kind == "x_in_6":
        result = dw.resolve_x_in_6(chance, rng=table.RNG, natural=natural)
    else:
        result = dw.resolve_percentage(chance, rng=table.RNG, natural=natural)
    data = {
        "system": SYSTEM,
        "kind": kind,
        "chance": chance,
        "label": label,
        "natural": result.natural,
        "entered": natural is not None,
        "success": result.success,
    }
    return table.record(
        viewer, EntryKind.CHANCE, data, secret=table.kept_secret(viewer, secret), once=once
    )
