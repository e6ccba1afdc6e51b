"""Wrestling at a BECMI table: a hold between two combatants that lasts across rounds, and
what each of their rows shows of it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.db import transaction

from combat import table
from combat.access import Viewer
from combat.errors import Refused
from combat.models import (
    AC_MAX,
    AC_MIN,
    Combatant,
    Encounter,
    EntryKind,
    Hold,
    Kind,
    LogEntry,
    Wrestle,
)
from combat.systems.becmi.payloads import (
    HoldState,
    Restore,
    WrestleEnd,
    WrestleRoll,
    WrestleRound,
)
from combat.systems.becmi.special.common import save_roll, strength
from rules import becmi_wrestling as wrestling
from rules.becmi_hit import adjustment
from rules.core import Modifier


def hit_dice_of(combatant: Combatant) -> str | int:
    """Hit Dice as the seed counts helpers: a monster's own, a character's level."""
    if combatant.kind == Kind.MONSTER:
        return combatant.hit_dice or "1"
    return combatant.level or 1


def basic_ac(combatant: Combatant) -> int:
    """The armour's AC without DEX (magic is the referee's to take off): AC + DEX adj."""
    if combatant.kind == Kind.MONSTER:
        return combatant.ac
    # Held to the stored AC's range: the wrestling's row keeps it (rules.bounds).
    return max(AC_MIN, min(AC_MAX, combatant.ac + adjustment(combatant.dex_score)))


def rating(combatant: Combatant, ac: int) -> int:
    """The wrestling rating: a monster's ``2 × HD + basic AC``, a character's by level."""
    if combatant.kind == Kind.MONSTER:
        return wrestling.monster_wrestling_rating(combatant.hit_dice or "1", ac)
    level = combatant.level if combatant.level is not None else 1
    if combatant.kind == Kind.NORMAL_HUMAN:
        level = 0
    return wrestling.wrestling_rating(level, combatant.str_score, combatant.dex_score, ac)


# --- wrestling ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """One side of a hold as the round sees it: its wrestler's WR and the helpers' bonus."""

    rating: int
    helpers: tuple[Modifier, ...]


def _helpers(ids: list[int], opponent: Combatant, by_pk: dict[int, Combatant]) -> tuple:
    living = [by_pk[pk] for pk in ids if pk in by_pk and not by_pk[pk].dead]
    return wrestling.helper_modifiers([hit_dice_of(c) for c in living], hit_dice_of(opponent))


def sides_of(
    attacker: Combatant,
    defender: Combatant,
    *,
    attacker_ac: int,
    defender_ac: int,
    attacker_helpers: list[int],
    defender_helpers: list[int],
    by_pk: dict[int, Combatant],
) -> tuple[Side, Side]:
    return (
        Side(rating(attacker, attacker_ac), _helpers(attacker_helpers, defender, by_pk)),
        Side(rating(defender, defender_ac), _helpers(defender_helpers, attacker, by_pk)),
    )


def round_odds(
    hold: str, attacker: Side, defender: Side, penalty: int = wrestling.PINNED_PENALTY
) -> dict[Hold, Fraction]:
    """Each hold's chance after one round from ``hold``."""
    found = wrestling.wrestling_round_odds(
        hold,
        attacker.rating,
        defender.rating,
        attacker_modifiers=attacker.helpers,
        defender_modifiers=defender.helpers,
        pinned_penalty=penalty,
    )
    return {Hold(str(h)): p for h, p in found.items()}


def pin_chance(defender: Combatant) -> Fraction:
    """The chance a pinned defender fails its Death Ray save and is hurt."""
    return wrestling.pin_damage_chance(defender.save_death)


def _round(
    wrestle: Wrestle,
    attacker: Combatant,
    defender: Combatant,
    *,
    attacker_natural: int | None,
    defender_natural: int | None,
    save_natural: int | None,
    penalty: int = wrestling.PINNED_PENALTY,
) -> tuple[wrestling.WrestlingRound, WrestleRound]:
    by_pk = {c.pk: c for c in wrestle.encounter.combatants.all()}
    a_side, d_side = sides_of(
        attacker,
        defender,
        attacker_ac=wrestle.attacker_ac,
        defender_ac=wrestle.defender_ac,
        attacker_helpers=wrestle.attacker_helpers,
        defender_helpers=wrestle.defender_helpers,
        by_pk=by_pk,
    )
    result = wrestling.resolve_wrestling_round(
        wrestle.hold,
        a_side.rating,
        d_side.rating,
        defender_save=defender.save_death,
        attacker_modifiers=a_side.helpers,
        defender_modifiers=d_side.helpers,
        pinner_str=strength(attacker),
        pinned_penalty=penalty,
        rng=table.RNG,
        attacker_natural=attacker_natural,
        defender_natural=defender_natural,
        save_natural=save_natural,
    )
    data = WrestleRound(
        attacker=attacker.name,
        defender=defender.name,
        before=str(result.hold_before),
        hold=str(result.hold),
        winner=str(result.winner),
        attacker_roll=WrestleRoll(
            natural=result.attacker_natural,
            entered=attacker_natural is not None,
            mods=table.modifiers(result.attacker_modifiers),
            total=result.attacker_total,
        ),
        defender_roll=WrestleRoll(
            natural=result.defender_natural,
            entered=defender_natural is not None,
            mods=table.modifiers(result.defender_modifiers),
            total=result.defender_total,
        ),
        save=save_roll(result.pin_save, save_natural is not None) if result.pin_save else None,
        damage=result.damage,
    )
    return result, data


def _wrestle_effects(
    result: wrestling.WrestlingRound, defender: Combatant, data: WrestleRound
) -> list[dict[str, int]]:
    if not result.damage:
        return []
    effect, data.killed = table.hurt(defender, result.damage)
    return [effect]


def _state(wrestle: Wrestle) -> HoldState:
    return HoldState(hold=wrestle.hold, ended=wrestle.ended, rounds=wrestle.rounds)


def _save_wrestle(wrestle: Wrestle, hold: str, *, ended: bool) -> None:
    wrestle.hold, wrestle.ended = hold, ended
    wrestle.rounds += 1
    wrestle.save(update_fields=["hold", "ended", "rounds"])


def active_between(encounter: Encounter, first: Combatant, second: Combatant) -> bool:
    pair = {first.pk, second.pk}
    return any(
        {w.attacker_id, w.defender_id} == pair
        for w in Wrestle.objects.filter(encounter=encounter, ended=False)
    )


@transaction.atomic
def start_wrestle(
    viewer: Viewer,
    *,
    actor: Combatant,
    target: Combatant,
    attacker_helpers: list[Combatant],
    defender_helpers: list[Combatant],
    attacker_ac: int,
    defender_ac: int,
    attacker_natural: int | None,
    defender_natural: int | None,
    secret: bool = False,
    once: str = "",
    despite_surprise: bool = False,
) -> LogEntry:
    """The first round: a grab from free. Won, the two are wrestling (grabbed); lost or tied,
    the grab failed and nothing holds."""
    attacker, defender = table.locked_pair(viewer, actor, target)
    secret = table.kept_secret(viewer, secret, attacker, defender)  # before any die is cast
    table.able(table.alive(attacker))
    overruled = table.unsurprised(viewer, attacker, despite_surprise=despite_surprise)
    if defender.dead:
        raise Refused("target_is_dead", name=defender.name)
    if active_between(viewer.encounter, attacker, defender):
        raise Refused("already_wrestling", name=defender.name)
    wrestle = Wrestle.objects.create(
        encounter=viewer.encounter,
        attacker=attacker,
        defender=defender,
        attacker_helpers=[c.pk for c in attacker_helpers],
        defender_helpers=[c.pk for c in defender_helpers],
        attacker_ac=attacker_ac,
        defender_ac=defender_ac,
        started_round=viewer.encounter.round,
    )
    result, data = _round(
        wrestle,
        attacker,
        defender,
        attacker_natural=attacker_natural,
        defender_natural=defender_natural,
        save_natural=None,
    )
    data.start = True
    data.despite_surprise = overruled
    data.helpers = [c.name for c in attacker_helpers]
    data.defender_helpers = [c.name for c in defender_helpers]
    started = dataclasses.replace(_state(wrestle), ended=True)
    data.restore = Restore(wrestle=wrestle.pk, state=started)
    _save_wrestle(wrestle, str(result.hold), ended=result.hold == wrestling.Hold.FREE)
    return table.record(
        viewer,
        EntryKind.WRESTLE,
        data,
        secret=secret,
        once=once,
        names=[*attacker_helpers, *defender_helpers],
    )


def _locked_wrestle(viewer: Viewer, wrestle: Wrestle) -> Wrestle:
    found = (
        Wrestle.objects.select_for_update()
        .filter(pk=wrestle.pk, encounter=viewer.encounter)
        .first()
    )
    if found is None or found.ended:
        raise Refused("wrestle_over")
    return found


@transaction.atomic
def wrestle_round(
    viewer: Viewer,
    *,
    wrestle: Wrestle,
    attacker_natural: int | None,
    defender_natural: int | None,
    save_natural: int | None,
    penalty: int = wrestling.PINNED_PENALTY,
    secret: bool = False,
    once: str = "",
) -> LogEntry:
    """One more round of a hold: the winner moves it a step (the attacker towards the pin,
    the defender back towards free); a pinned defender saves or takes ``1 + STR adj``."""
    wrestle = _locked_wrestle(viewer, wrestle)
    attacker, defender = table.locked_pair(viewer, wrestle.attacker, wrestle.defender)
    secret = table.kept_secret(viewer, secret, attacker, defender)  # before any die is cast
    if attacker.dead or defender.dead:  # the hold ended with the death (rows no longer show it)
        raise Refused("wrestle_over")
    before = _state(wrestle)
    result, data = _round(
        wrestle,
        attacker,
        defender,
        attacker_natural=attacker_natural,
        defender_natural=defender_natural,
        save_natural=save_natural,
        penalty=penalty,
    )
    effects = _wrestle_effects(result, defender, data)
    broken = result.hold == wrestling.Hold.FREE
    data.broken = broken
    data.restore = Restore(wrestle=wrestle.pk, state=before)
    _save_wrestle(wrestle, str(result.hold), ended=broken or defender.dead)
    return table.record(
        viewer,
        EntryKind.WRESTLE,
        data,
        secret=secret,
        effects=effects,
        once=once,
    )


@transaction.atomic
def end_wrestle(viewer: Viewer, *, wrestle: Wrestle, once: str = "") -> LogEntry:
    """The referee parts the two."""
    wrestle = _locked_wrestle(viewer, wrestle)
    before = _state(wrestle)
    wrestle.ended = True
    wrestle.save(update_fields=["ended"])
    data = WrestleEnd(
        attacker=wrestle.attacker.name,
        defender=wrestle.defender.name,
        hold=wrestle.hold,
        restore=Restore(wrestle=wrestle.pk, state=before),
    )
    hidden = wrestle.attacker.hidden or wrestle.defender.hidden
    return table.record(viewer, EntryKind.WRESTLE, data, secret=hidden, once=once)


# What each side may try next, by hold: the attacker's step forward, the defender's back.
ATTACKER_NEXT = {"free": "grab", "grabbed": "throw", "thrown": "pin", "pinned": "keep"}
DEFENDER_NEXT = {"grabbed": "break", "thrown": "rise", "pinned": "escape"}


@dataclass(frozen=True)
class HoldView:
    """A hold as one of its two combatants' rows says it."""

    wrestle: int
    role: str  # "attacker" or "defender"
    opponent: int
    opponent_name: str
    opponent_hidden: bool
    hold: str
    rounds: int

    @property
    def next(self) -> str:
        table = ATTACKER_NEXT if self.role == "attacker" else DEFENDER_NEXT
        return table.get(self.hold, "")

    @property
    def key(self) -> tuple[Any, ...]:
        return (
            self.wrestle,
            self.role,
            self.opponent,
            self.opponent_name,
            self.opponent_hidden,
            self.hold,
        )


def holds_by_combatant(encounter: Encounter) -> dict[int, list[HoldView]]:
    """Every running hold of a BECMI encounter, by combatant: one query (none elsewhere)."""
    found: dict[int, list[HoldView]] = {}
    if encounter.system != "becmi":
        return found
    running = (
        Wrestle.objects.filter(
            encounter=encounter, ended=False, attacker__hp__gt=0, defender__hp__gt=0
        )
        .select_related("attacker", "defender")
        .order_by("pk")
    )
    for w in running:
        a, d = w.attacker, w.defender
        found.setdefault(a.pk, []).append(
            HoldView(w.pk, "attacker", d.pk, d.name, d.hidden, w.hold, w.rounds)
        )
        found.setdefault(d.pk, []).append(
            HoldView(w.pk, "defender", a.pk, a.name, a.hidden, w.hold, w.rounds)
        )
    return found


def holds_of(combatant: Combatant) -> list[HoldView]:
    return holds_by_combatant(combatant.encounter).get(combatant.pk, [])
