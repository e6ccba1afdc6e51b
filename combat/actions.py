"""What happens when someone acts: ask the rules, store the outcome, announce it.

Each function runs in one transaction: it locks the combatants it changes (row locks on
PostgreSQL; the IMMEDIATE write lock on SQLite), applies what the rules decided, appends one
log entry under a new sequence number and announces the change after commit. The log entry's
``data`` is keys and numbers only, so each viewer reads it in their own language.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from django.db import transaction

from rules import dice, ose
from rules.core import Modifier

from .access import Viewer
from .live import announce
from .models import Combatant, EntryKind, LogEntry

RNG = secrets.SystemRandom()


def _mods(modifiers: Sequence[Modifier]) -> list[list[Any]]:
    return [[m.value, m.reason] for m in modifiers]


def _locked(viewer: Viewer, combatant: Combatant) -> Combatant:
    return Combatant.objects.select_for_update().get(pk=combatant.pk, encounter=viewer.encounter)


def _locked_pair(
    viewer: Viewer, first: Combatant, second: Combatant
) -> tuple[Combatant, Combatant]:
    """Lock two combatants in id order, so two attacks in opposite directions at once never
    deadlock on PostgreSQL."""
    rows = {
        c.pk: c
        for c in Combatant.objects.select_for_update()
        .filter(pk__in=[first.pk, second.pk], encounter=viewer.encounter)
        .order_by("pk")
    }
    return rows[first.pk], rows[second.pk]


def _record(
    viewer: Viewer,
    kind: str,
    data: dict[str, Any],
    *,
    secret: bool = False,
    effects: Sequence[dict[str, int]] = (),
    undoes: LogEntry | None = None,
) -> LogEntry:
    encounter = viewer.encounter
    seq = encounter.bump()
    entry = LogEntry.objects.create(
        encounter=encounter,
        seq=seq,
        kind=kind,
        actor=viewer.actor_name,
        by_referee=viewer.is_referee,
        seat=viewer.seat,
        secret=secret,
        data=data,
        effects=list(effects),
        undoes=undoes,
    )
    announce(encounter)
    return entry


def touch(viewer: Viewer) -> None:
    """Announce a change that writes no log entry (a combatant added, a seat joined)."""
    viewer.encounter.bump()
    announce(viewer.encounter)


def _secret(viewer: Viewer, wanted: bool, *combatants: Combatant) -> bool:
    """Secret when the referee asks, and always when a hidden combatant takes part: players
    must not learn of it from the log."""
    return (viewer.is_referee and wanted) or any(c.hidden for c in combatants)


HP_FLOOR = -1_000_000  # storage bound: far below dead, far above the column's limit


def _hurt(target: Combatant, amount: int) -> dict[str, int]:
    change = ose.apply_damage(target.hp, amount)
    target.hp = max(change.after, HP_FLOOR)
    target.save(update_fields=["hp"])
    return {"combatant": target.pk, "hp": target.hp - change.before}


def _roll_data(result: Any, *, needed: int, success: bool) -> dict[str, Any]:
    return {
        "natural": result.natural,
        "mods": _mods(result.modifiers),
        "total": result.total,
        "needed": needed,
        "success": success,
    }


@transaction.atomic
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
) -> LogEntry:
    attacker, target = _locked_pair(viewer, actor, target)
    modifiers = ose.attack_modifiers(
        mode, strength=attacker.str_score, dexterity=attacker.dex_score, situational=modifier
    )
    result = ose.resolve_attack(
        thac0=attacker.thac0,
        target_ac=target.ac,
        method=viewer.encounter.attack_method,
        modifiers=modifiers,
        rng=RNG,
        natural=natural,
    )
    data: dict[str, Any] = {
        "attacker": attacker.name,
        "target": target.name,
        "mode": mode,
        "method": viewer.encounter.attack_method,
        "roll": _roll_data(result, needed=result.needed, success=result.hit)
        | {"hit_ac": result.hit_ac},
        "damage": None,
    }
    effects = []
    if result.hit and damage is not None:
        dealt = ose.resolve_damage(
            damage, mode, strength=attacker.str_score, rng=RNG, entered=damage_dice
        )
        effects.append(_hurt(target, dealt.total))
        data["damage"] = {
            "expr": dice.format_expression(dealt.roll.expression),
            "dice": list(dealt.roll.naturals),
            "rolled": dealt.roll.total,
            "mods": _mods(dealt.modifiers),
            "total": dealt.total,
        }
        data["killed"] = target.dead
    return _record(
        viewer,
        EntryKind.ATTACK,
        data,
        secret=_secret(viewer, secret, attacker, target),
        effects=effects,
    )


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
) -> LogEntry:
    actor = _locked(viewer, actor)
    modifiers = [Modifier(modifier, "situational")] if modifier else []
    result = ose.resolve_save(
        save_value=actor.save_value(category),
        category=category,
        modifiers=modifiers,
        rng=RNG,
        natural=natural,
        damage=damage,
    )
    data: dict[str, Any] = {
        "who": actor.name,
        "category": category,
        "roll": _roll_data(result, needed=result.needed, success=result.success),
        "damage": None,
    }
    effects = []
    if damage is not None:
        effects.append(_hurt(actor, result.damage_taken))
        data["damage"] = {
            "amount": damage,
            "taken": result.damage_taken,
            "halved": result.damage_taken != damage,
        }
        data["killed"] = actor.dead
    return _record(
        viewer, EntryKind.SAVE, data, secret=_secret(viewer, secret, actor), effects=effects
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
) -> LogEntry:
    result = ose.resolve_ability_check(score=score, modifier=modifier, rng=RNG, natural=natural)
    data = {
        "who": actor.name,
        "ability": ability,
        "score": score,
        "roll": _roll_data(result, needed=score, success=result.success),
    }
    return _record(viewer, EntryKind.CHECK, data, secret=_secret(viewer, secret, actor))


@transaction.atomic
def change_hit_points(viewer: Viewer, *, actor: Combatant, action: str, amount: int) -> LogEntry:
    actor = _locked(viewer, actor)
    if action == "damage":
        effect = _hurt(actor, amount)
        kind = EntryKind.DAMAGE
    else:
        change = ose.apply_healing(actor.hp, actor.hp_max, amount)
        effect = {"combatant": actor.pk, "hp": change.after - change.before}
        actor.hp = change.after
        actor.save(update_fields=["hp"])
        kind = EntryKind.HEAL
    data = {"who": actor.name, "amount": amount, "applied": abs(effect["hp"]), "killed": actor.dead}
    return _record(viewer, kind, data, secret=_secret(viewer, False, actor), effects=[effect])


@transaction.atomic
def rest(
    viewer: Viewer, *, actor: Combatant, days: int, interrupted: int, day_dice: list[int] | None
) -> LogEntry:
    actor = _locked(viewer, actor)
    # Full days first; which of the days were interrupted does not change the sum.
    schedule = [True] * (days - interrupted) + [False] * interrupted
    result = ose.natural_healing(
        schedule, rng=RNG, naturals=day_dice, current_hp=actor.hp, max_hp=actor.hp_max
    )
    effect = {"combatant": actor.pk, "hp": result.hp.change}
    actor.hp = result.hp.after
    actor.save(update_fields=["hp"])
    data = {
        "who": actor.name,
        "days": days,
        "interrupted": interrupted,
        "dice": [n for n in result.naturals if n is not None],
        "healed": effect["hp"],
    }
    return _record(
        viewer, EntryKind.REST, data, secret=_secret(viewer, False, actor), effects=[effect]
    )


@transaction.atomic
def free_roll(
    viewer: Viewer,
    *,
    expression: dice.DiceExpression,
    label: str,
    entered: list[int] | None,
    secret: bool = False,
) -> LogEntry:
    rolled = dice.roll(expression, rng=RNG, entered=entered)
    data = {
        "expr": dice.format_expression(rolled.expression),
        "dice": list(rolled.naturals),
        "total": rolled.total,
        "label": label,
    }
    return _record(viewer, EntryKind.ROLL, data, secret=_secret(viewer, secret))


class AlreadyUndone(Exception):
    pass


@transaction.atomic
def undo(viewer: Viewer, entry: LogEntry) -> LogEntry:
    """A new entry that reverses ``entry``'s hit-point changes; the original stays."""
    entry = LogEntry.objects.select_for_update().get(pk=entry.pk, encounter=viewer.encounter)
    if entry.kind == EntryKind.UNDO or LogEntry.objects.filter(undoes=entry).exists():
        raise AlreadyUndone
    reversed_effects = []
    for effect in entry.effects:
        combatant = (
            Combatant.objects.select_for_update()
            .filter(pk=effect["combatant"], encounter=viewer.encounter)
            .first()
        )
        if combatant is None:  # removed since: nothing left to reverse
            continue
        combatant.hp -= effect["hp"]
        combatant.save(update_fields=["hp"])
        reversed_effects.append({"combatant": combatant.pk, "hp": -effect["hp"]})
    data = {"entry_seq": entry.seq, "entry_kind": entry.kind}
    return _record(
        viewer, EntryKind.UNDO, data, secret=entry.secret, effects=reversed_effects, undoes=entry
    )
