"""Several rolls at one tap: a group of attackers, or an area effect on several targets.

A group is one transaction: everyone it involves is locked first (in id order, so it never
deadlocks with a single attack), its one-time key is claimed before anything is rolled (a
second sending waits on the key and is told the first one's result), and it writes one log
entry per attack or target, each marked with its payload's ``group`` (``combat.payloads``)::

    {"id": "…", "kind": "attack" | "area", "index": 1, "size": 4}

so the log shows them together and the panel can show the whole group again. An attack of a
group is OSE's single attack itself (``combat.systems.ose.actions.attack``), so it resolves
exactly as a single attack would; an area effect's saves follow OSE's ``saving_throw``, with
the shared damage halved or negated by a successful save. Every entry is undone on its own, as
any other.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from combat import table
from combat.access import Viewer
from combat.errors import Refused
from combat.models import ActionKey, Combatant, EntryKind, LogEntry, PendingSave
from combat.payloads import table as entries
from combat.systems.ose import actions
from rules import dice, ose
from rules.core import Modifier

ATTACK, AREA = "attack", "area"
HALF, NONE = "half", "none"  # what a successful save does to an area effect's damage
TARGET_DEAD, ATTACKER_DEAD = "target_dead", "attacker_dead"  # why an attack was skipped


@dataclass(frozen=True)
class Planned:
    """One attack of a group: who, on whom, and the dice typed in for it (None: the server
    rolls)."""

    attacker: Combatant
    target: Combatant
    natural: int | None = None
    damage_dice: list[int] | None = None


@dataclass(frozen=True)
class Exposed:
    """One target of an area effect, and the d20 typed in for its save (None: the server
    rolls)."""

    target: Combatant
    natural: int | None = None


def _locked_all(viewer: Viewer, combatants: Sequence[Combatant]) -> dict[int, Combatant]:
    """Lock everyone the group involves, in id order (as ``actions`` locks a pair), and read
    them anew. One removed since the form was read refuses the whole group."""
    pks = {c.pk for c in combatants}
    rows = {
        c.pk: c
        for c in Combatant.objects.select_for_update()
        .filter(pk__in=pks, encounter=viewer.encounter)
        .order_by("pk")
    }
    for combatant in combatants:
        if combatant.pk not in rows:
            raise Refused("combatant_gone", name=combatant.name)
    return rows


def _claim(viewer: Viewer, once: str) -> None:
    """Claim the one-time key before anything is rolled: a second sending of the same form
    waits here on the first one's key, and then rolls nothing."""
    table.claim(viewer, once)


def _keep_result(viewer: Viewer, once: str, entry: LogEntry) -> None:
    """The entry a second sending is shown (it finds the rest of its group)."""
    if once:
        ActionKey.objects.filter(encounter=viewer.encounter, key=once).update(entry=entry)


def _mark(entry: LogEntry, group: dict[str, Any], index: int) -> LogEntry:
    """Put the group marker on an attack written by ``actions`` (not announced yet: that
    happens on commit, so no one has seen it without its marker)."""
    marked = entry.payload
    marked.group = group | {"index": index}
    entry.data = marked.to_json()
    entry.save(update_fields=["data"])
    return entry


def _new_group(kind: str, size: int) -> dict[str, Any]:
    return {"id": secrets.token_urlsafe(6), "kind": kind, "size": size}


@transaction.atomic
def attack_together(
    viewer: Viewer,
    *,
    attacks: Sequence[Planned],
    mode: str,
    modifier: int,
    damage: dice.DiceExpression | None,
    secret: bool = False,
    once: str = "",
    despite_surprise: bool = False,
) -> list[LogEntry]:
    """Roll every attack of ``attacks`` in turn; the entries, newest first (as the log).

    Someone dead when the group starts refuses it all (the form was opened before the
    death), and so does an attacker whose side is surprised in the fight's first round,
    unless the referee rules ``despite_surprise`` (``table.unsurprised``). A target killed
    by an earlier attack of the group is not attacked again, and an
    attacker killed by one does not attack: each such attack is logged as skipped, saying
    why. Anything else ``actions.attack`` refuses (an attacker who cannot act) refuses the
    whole group, so nothing of it is applied.
    """
    if not attacks:
        raise ValueError("a group attack needs attacks")
    _claim(viewer, once)
    rows = _locked_all(viewer, [c for p in attacks for c in (p.attacker, p.target)])
    for planned in attacks:
        table.alive(rows[planned.attacker.pk])
        table.unsurprised(viewer, rows[planned.attacker.pk], despite_surprise=despite_surprise)
        if rows[planned.target.pk].dead:
            raise Refused("target_is_dead", name=planned.target.name)
    group = _new_group(ATTACK, len(attacks))
    written = []
    for index, planned in enumerate(attacks, start=1):
        attacker, target = rows[planned.attacker.pk], rows[planned.target.pk]
        if attacker.dead or target.dead:
            entry = _skipped(viewer, attacker, target, mode, secret, group | {"index": index})
        else:
            entry = actions.attack(
                viewer,
                actor=attacker,
                target=target,
                mode=mode,
                modifier=modifier,
                natural=planned.natural,
                damage=damage,
                damage_dice=planned.damage_dice,
                secret=secret,
                despite_surprise=despite_surprise,
            )
            for effect in entry.effects:  # what this attack did, for the next ones to see
                rows[effect["combatant"]].hp += effect["hp"]
            entry = _mark(entry, group, index)
        written.append(entry)
    _keep_result(viewer, once, written[-1])
    return written[::-1]


def _skipped(
    viewer: Viewer,
    attacker: Combatant,
    target: Combatant,
    mode: str,
    secret: bool,
    group: dict[str, Any],
) -> LogEntry:
    """An attack of the group that does not happen: its attacker or its target was killed by
    an earlier attack of the same group. Logged, so everyone sees why it did not come."""
    data = entries.Attack(
        attacker=attacker.name,
        target=target.name,
        mode=mode,
        skipped=ATTACKER_DEAD if attacker.dead else TARGET_DEAD,
        group=group,
    )
    return table.record(
        viewer,
        EntryKind.ATTACK,
        data,
        secret=table.kept_secret(viewer, secret, attacker, target),
    )


def damage_taken(result: ose.SaveResult, on_save: str) -> int:
    """What a target of an area effect takes: the rules' halving on a successful save, or
    nothing at all when the effect's save negates it."""
    if on_save == NONE and result.success:
        return 0
    return result.damage_taken


@transaction.atomic
def area_effect(
    viewer: Viewer,
    *,
    targets: Sequence[Exposed],
    damage: dice.DiceExpression,
    damage_dice: list[int] | None,
    category: str,
    on_save: str,
    modifier: int,
    label: str = "",
    secret: bool = False,
    players_roll: bool = False,
    once: str = "",
) -> list[LogEntry]:
    """Roll the damage once, then each target's saving throw; the entries, newest first.

    With ``players_roll``, a target a player controls (and with no die typed in for it by
    the referee) waits for its player to roll its save (``PendingSave``): its damage is
    taken then, and its entry joins the group.

    Each target gets a saving-throw entry (undone on its own), written as
    ``actions.saving_throw`` writes one; the damage roll gets an entry of its own, written
    last so that it heads its group in the log (newest first). A target dead when the
    effect starts refuses it all: the form was opened before the death.
    """
    if not targets:
        raise ValueError("an area effect needs targets")
    if on_save not in (HALF, NONE):
        raise ValueError(f"no such effect of a save: {on_save!r}")
    _claim(viewer, once)
    rows = _locked_all(viewer, [t.target for t in targets])
    for exposed in targets:
        if rows[exposed.target.pk].dead:
            raise Refused("target_is_dead", name=exposed.target.name)
    # Players may learn of the effect unless it is secret or touched only what they cannot see.
    unseen = all(rows[t.target.pk].hidden for t in targets)
    head_secret = table.secret_for(viewer, secret) or unseen
    # The damage heads the group (written last, newest first): its dice are a roll of its own,
    # numbered after the saves rolled by the server now, each a public roll of its own.
    public_saves = sum(
        1
        for t in targets
        if t.natural is None
        and not (players_roll and rows[t.target.pk].seat_id)
        and not table.secret_for(viewer, secret, rows[t.target.pk])
    )
    with table.own_roll(head_secret, after=public_saves) as damage_roll:
        rolled = dice.roll(damage, rng=table.RNG, entered=damage_dice)
    amount = max(rolled.total, 0)  # damage never heals
    group = _new_group(AREA, len(targets))
    modifiers = [Modifier(modifier, "situational")] if modifier else []
    written, waiting = [], []
    for index, exposed in enumerate(targets, start=1):
        target = rows[exposed.target.pk]
        if players_roll and target.seat_id and exposed.natural is None:
            PendingSave.objects.create(
                encounter=viewer.encounter,
                combatant=target,
                category=category,
                modifier=modifier,
                amount=amount,
                on_save=on_save,
                secret=table.secret_for(viewer, secret, target),
                label=label,
                group=group | {"index": index},
            )
            waiting.append(target)  # a hidden one is left out for players (combat.unseen)
            continue
        marker = group | {"index": index}
        entry = _save_against(
            viewer, target, category, modifiers, exposed.natural, amount, on_save, secret, marker
        )
        written.append(entry)
    data = entries.FreeRoll.of(
        rolled,
        entered=damage_dice is not None,
        label=label,
        area=entries.Area(category=category, on_save=on_save, damage=amount),
        waiting=[target.name for target in waiting],
        group=group | {"index": 0},
    )
    head = table.record(
        viewer, EntryKind.ROLL, data, secret=head_secret, names=waiting, roll=damage_roll
    )
    _keep_result(viewer, once, head)
    return [head, *written[::-1]]


def _save_against(
    viewer: Viewer,
    target: Combatant,
    category: str,
    modifiers: list[Modifier],
    natural: int | None,
    amount: int,
    on_save: str,
    secret: bool,
    group: dict[str, Any],
    label: str = "",
) -> LogEntry:
    """A target's save against an area effect's ``amount``, written as
    ``actions.saving_throw`` writes one, with its ``group`` marker (and a pending save's
    ``label``)."""
    secret = table.kept_secret(viewer, secret, target)  # before any die is cast
    result = ose.resolve_save(
        save_value=target.save_value(category),
        category=category,
        modifiers=modifiers,
        rng=table.RNG,
        natural=natural,
        damage=amount,
    )
    taken = damage_taken(result, on_save)
    data = entries.Save(
        who=target.name,
        category=category,
        roll=table.roll_data(
            result, needed=result.needed, success=result.success, entered=natural is not None
        ),
        damage=entries.SaveDamage(
            amount=amount,
            taken=taken,
            halved=on_save == HALF and taken != amount,
            negated=on_save == NONE and result.success,
        ),
        group=group,
        label=label,
    )
    effect, data.killed = table.hurt(target, taken)
    return table.record(
        viewer,
        EntryKind.SAVE,
        data,
        secret=secret,
        effects=[effect],
    )


@transaction.atomic
def roll_pending_save(viewer: Viewer, pending: PendingSave, natural: int | None) -> LogEntry | None:
    """The save an area effect left to a player, rolled (by its player, or the referee for
    them): the damage it lets through is taken now. Rolled once, however many taps. None:
    its character died meanwhile, and there is nothing left to roll."""
    pending = PendingSave.objects.select_for_update().get(pk=pending.pk, encounter=viewer.encounter)
    if pending.resolved:
        if pending.entry is None:
            raise Refused("save_not_needed")
        raise AlreadyRolled(pending.entry)
    target = table.locked(viewer, pending.combatant)
    pending.resolved = True
    if target.dead:  # killed meanwhile: nothing left to save, and nothing to announce
        pending.save(update_fields=["resolved"])
        return None
    modifiers = [Modifier(pending.modifier, "situational")] if pending.modifier else []
    entry = _save_against(
        viewer,
        target,
        pending.category,
        modifiers,
        natural,
        pending.amount,
        pending.on_save,
        pending.secret,
        {"index": 0} | pending.group,
        pending.label,
    )
    pending.entry = entry
    pending.save(update_fields=["resolved", "entry"])
    return entry


class AlreadyRolled(Exception):
    """The save was rolled before (a double tap, the referee and the player at once)."""

    def __init__(self, entry: LogEntry) -> None:
        super().__init__()
        self.entry = entry


def entries_of(viewer: Viewer, entry: LogEntry | None) -> list[LogEntry]:
    """The whole group ``entry`` belongs to, newest first (a lone entry: itself). Its entries
    were written in one transaction, so their numbers are next to each other's."""
    if entry is None:
        return []
    group = entry.payload.group
    if not isinstance(group, dict):
        return [entry]
    reach = int(group.get("size", 0)) + 1
    near = viewer.encounter.log.filter(
        seq__gte=entry.seq - reach, seq__lte=entry.seq + reach, data__group__id=group.get("id")
    )
    return list(near.order_by("-seq"))
