"""What happens when someone acts at a Dolmenwood table: skill and ability checks, saves,
attacks against ascending AC, and the referee's chance rolls.

As ``combat.table`` says: each runs in one transaction, locks what it changes, asks
``rules.dolmenwood``, appends one log entry (its typed payload, from ``payloads``: keys and
numbers, ``"system": "dolmenwood"``) and announces the change after commit. Hit points never
drop below 0 here.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from combat import table
from combat.access import Viewer
from combat.models import Combatant, EntryKind, LogEntry
from combat.systems.dolmenwood import payloads as entries
from combat.systems.dolmenwood import terms as systems
from rules import dice
from rules import dolmenwood as dw
from rules.core import Modifier


def _situational(value: int) -> tuple[Modifier, ...]:
    return (Modifier(value, dw.SITUATIONAL),) if value else ()


def _roll(result: Any, *, sides: int, entered: bool) -> entries.DolmenwoodRoll:
    return entries.DolmenwoodRoll(
        sides=sides,
        natural=result.natural,
        entered=entered,  # typed in from a die rolled at the table
        mods=table.modifiers(result.modifiers),
        total=result.total,
        needed=result.target,
        success=result.outcome.value in ("success", "hit"),
        automatic=result.automatic,
    )


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
    despite_surprise: bool = False,
) -> LogEntry:
    actor = table.able(table.alive(table.locked(viewer, actor)))
    secret = table.kept_secret(viewer, secret, actor)  # before any die is cast
    overruled = table.unsurprised(viewer, actor, despite_surprise=despite_surprise)
    result = dw.resolve_skill_check(
        skill.key, target, _situational(modifier), rng=table.RNG, natural=natural
    )
    data = entries.DolmenwoodSkill(
        who=actor.name,
        skill=skill.key if skill.universal else "",
        name="" if skill.universal else skill.name,
        targets=list(skill.targets),
        roll=_roll(result, sides=6, entered=natural is not None),
        despite_surprise=overruled,
    )
    return table.record(viewer, EntryKind.SKILL, data, secret=secret, once=once)


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
    despite_surprise: bool = False,
) -> LogEntry:
    actor = table.able(table.alive(table.locked(viewer, actor)))
    secret = table.kept_secret(viewer, secret, actor)  # before any die is cast
    overruled = table.unsurprised(viewer, actor, despite_surprise=despite_surprise)
    result = dw.resolve_ability_check(
        ability, score, _situational(modifier), rng=table.RNG, natural=natural
    )
    data = entries.DolmenwoodCheck(
        who=actor.name,
        ability=ability,
        score=score,
        roll=_roll(result, sides=6, entered=natural is not None),
        despite_surprise=overruled,
    )
    return table.record(viewer, EntryKind.CHECK, data, secret=secret, once=once)


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
    secret = table.kept_secret(viewer, secret, actor)  # before any die is cast
    result = dw.resolve_save(
        category,
        systems.dw_save_target(actor, category),
        _situational(modifier),
        magical=magical,
        wisdom=actor.wis_score,
        rng=table.RNG,
        natural=natural,
    )
    data = entries.DolmenwoodSave(
        who=actor.name,
        category=category,
        effect=effect or "",
        magical=bool(magical),
        roll=_roll(result, sides=20, entered=natural is not None),
    )
    return table.record(viewer, EntryKind.SAVE, data, secret=secret, once=once)


class DolmenwoodAttack(table.Attack):
    """An attack against ascending AC with the attacker's attack bonus (STR for melee and
    DEX for missiles, a character's only); damage at least 1, none against an immune
    target, and hit points that stop at 0."""

    def __init__(
        self,
        viewer: Viewer,
        *,
        weapon: str,
        modifier: int,
        natural: int | None,
        dw_dice: tuple[str, int] | None,
        **common: Any,
    ):
        super().__init__(viewer, **common)
        self.weapon, self.modifier, self.natural, self.dw_dice = weapon, modifier, natural, dw_dice
        self.immune = False  # whether the target is immune to the weapon, once asked

    def entry(self, attacker: Combatant, target: Combatant) -> entries.DolmenwoodAttack:
        self.immune = systems.is_immune(target, self.weapon)
        return entries.DolmenwoodAttack(
            attacker=attacker.name,
            target=target.name,
            mode=self.mode,
            weapon=self.weapon,
            attack_name=self.attack_name,
            immune=self.immune,
        )

    def helpless_entry(
        self, attacker: Combatant, target: Combatant, rule: str
    ) -> entries.DolmenwoodAttack:
        """Its own entry with the ``helpless`` rule that decided it: no roll, and ``killed``
        only once the damage or the rule says so."""
        data = self.entry(attacker, target)
        data.helpless = rule
        return data

    def roll(self, attacker: Combatant, target: Combatant, data: entries.DolmenwoodAttack) -> bool:
        character = attacker.kind != "monster"
        result = dw.resolve_attack(
            systems.attack_bonus(attacker),
            target.ac,
            self.mode,
            _situational(self.modifier),
            strength=attacker.str_score if character else None,
            dexterity=attacker.dex_score if character else None,
            rng=table.RNG,
            natural=self.natural,
        )
        data.roll = _roll(result, sides=20, entered=self.natural is not None)
        return result.hit

    def damage(
        self, attacker: Combatant, target: Combatant, data: entries.DolmenwoodAttack
    ) -> int | None:
        """The dice (or the weapon's, ``dw_dice``), STR for a character's melee, at least 1;
        none lands on an immune target (a damage die typed in for it is set aside, and the
        hit, its d20 and the rest of the roll stand). With hit locations it lands in a zone,
        whose damage is floored at 0 where it is stored (``combat.zones.hit_zone``)."""
        expression, bonus = self.dw_dice or (str(self.dice), 0)
        typed = None if self.immune else self.damage_dice
        character = attacker.kind != "monster"
        dealt = dw.resolve_damage(
            expression,
            self.mode,
            (Modifier(bonus, "bonus"),) if bonus else (),
            strength=attacker.str_score if character else None,
            immune=self.immune,
            rng=table.RNG,
            naturals=typed,
        )
        data.damage = entries.DolmenwoodDamage(
            expr=expression,
            dice=list(dealt.naturals),
            entered=typed is not None,
            mods=table.modifiers(dealt.modifiers),
            total=dealt.total,
            outcome=dealt.outcome.value,
        )
        return None if self.immune else dealt.total

    def after_damage(self, hp: int, taken: int) -> int:
        return dw.apply_damage(hp, min(taken, 10_000)).after  # never below 0


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
    despite_surprise: bool = False,  # the referee's ruling (table.unsurprised)
    **location: Any,  # hit locations: the attack form's fields for them (table.LOCATION_FIELDS)
) -> LogEntry:
    """``actor`` attacks ``target`` (:class:`DolmenwoodAttack`, run as ``combat.table.Attack``
    runs every system's attack)."""
    return DolmenwoodAttack(
        viewer,
        actor=actor,
        target=target,
        mode=mode,
        weapon=weapon,
        modifier=modifier,
        natural=natural,
        dw_dice=dw_dice,
        damage=damage,
        damage_dice=damage_dice,
        secret=secret,
        once=once,
        attack_name=attack_name,
        location=location,
        despite_surprise=despite_surprise,
    ).run()


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
    secret = table.kept_secret(viewer, secret)  # before any die is cast
    if kind == "x_in_6":
        result = dw.resolve_x_in_6(chance, rng=table.RNG, natural=natural)
    else:
        result = dw.resolve_percentage(chance, rng=table.RNG, natural=natural)
    data = entries.DolmenwoodChance(
        kind=kind,
        chance=chance,
        label=label,
        natural=result.natural,
        entered=natural is not None,
        success=result.success,
    )
    return table.record(viewer, EntryKind.CHANCE, data, secret=secret, once=once)
