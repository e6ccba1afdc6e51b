"""A scan for hidden facts: random encounters with hidden combatants, played with random
actions of every kind in every rules system, never name a hidden combatant, a note given to
one or a secret roll's label to players: on their page, the whole log, the table display or
any websocket message (``combat.unseen`` decides what players read of a log entry).

Each example builds a table (a seated player's hero, other heroes, visible foes, hidden foes
and perhaps a hidden member of the party, all with names no other text contains), plays up to
a few dozen actions as the referee and as the player (refused ones are skipped, as the table
would show the refusal), builds the live views after each as the hub does and reads every
message players' sockets would get, then loads the pages. The referee's log must name the
hidden ones the entries name on the side, or the scan would prove nothing.

Every action rolls the server's sealed dice (``combat.table.dice``), with a value "the acting
browser" sent: at the end the referee reveals the seed, and every server die of every kind
the example rolled must verify (``rules.fair.verify``), for the referee and for the player,
whose proofs must hold no secret roll and leave no gap in the numbers.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from combat import group, rounds, zones
from combat import table as toolkit
from combat.access import Viewer
from combat.errors import Refused
from combat.live.state import Audience, View, build_views, render_snapshot
from combat.models import (
    SHOWABLE,
    Combatant,
    Condition,
    ConditionKind,
    Encounter,
    EntryKind,
    HelplessRule,
    InitiativeMode,
    LogEntry,
    PendingSave,
    Seat,
    Side,
    Wrestle,
)
from combat.systems.becmi import actions as becmi
from combat.systems.becmi import special as becmi_special
from combat.systems.becmi import terms as becmi_terms
from combat.systems.dolmenwood import actions as dolmenwood
from combat.systems.dolmenwood import terms as dw_terms
from combat.systems.ose import actions
from combat.unseen import UNSEEN
from rules import dice, fair
from rules.errors import RulesError

from .conftest import character, monster
from .test_display import _display

pytestmark = pytest.mark.django_db

LANGUAGES = ("en", "cs", "ru", "uk")
HEX = "0123456789abcdef"
D6 = dice.parse("1d6")
# Individual initiative names combatants in its lines (group initiative names sides): oftener.
MODES = [InitiativeMode.GROUP, InitiativeMode.INDIVIDUAL, InitiativeMode.INDIVIDUAL]
REFUSALS = (Refused, RulesError, toolkit.AlreadyUndone, group.AlreadyRolled, toolkit.Repeated)


# --- the table --------------------------------------------------------------------------------


@dataclass
class Table:
    """One example's encounter, who looks at it, and what players must never read."""

    pk: int
    seat: Seat  # the player's (Anna's) seat: her hero acts for her
    language: str
    clients: dict[str, Client]  # the referee, the player and the table display
    secrets: set[str] = field(default_factory=set)  # hidden names, their notes, secret labels
    previous: dict[Audience, View] = field(default_factory=dict)
    state: Any = None
    heard: int = 0  # socket messages read

    @property
    def encounter(self) -> Encounter:
        return Encounter.objects.get(pk=self.pk)

    def referee(self) -> Viewer:
        return Viewer(self.encounter, is_referee=True, seat=None)

    def player(self) -> Viewer:
        return Viewer(self.encounter, is_referee=False, seat=self.seat)

    def combatants(self) -> list[Combatant]:
        return list(Combatant.objects.filter(encounter_id=self.pk).order_by("pk"))

    def living(self) -> list[Combatant]:
        return [c for c in self.combatants() if not c.dead]

    def note(self, data: st.DataObject, n: int) -> str:
        """A note only the referee may read (and a hero's own player, for its notes)."""
        note = _token(data, "NOTE-", n)
        self.secrets.add(note)
        return note

    def audiences(self) -> list[Audience]:
        return [
            Audience(referee=False, seat=self.seat.pk, language=self.language),
            Audience(referee=False, seat=None, language=self.language),
        ]


def _token(data: st.DataObject, prefix: str, n: int) -> str:
    """A name or note no other text of the pages contains, so a substring search is exact."""
    return f"{prefix}{n}x{data.draw(st.text(HEX, min_size=6, max_size=6), label=prefix)}"


def _build(data: st.DataObject, system: str) -> Table:
    encounter = Encounter.objects.create(
        name="Scan",
        system=system,
        initiative_mode=data.draw(st.sampled_from(MODES), label="initiative"),
        hit_locations=data.draw(st.sampled_from([False, True, True]), label="hit locations"),
        show_foe_hp=data.draw(st.booleans(), label="foes' hit points"),
        reroll_ties=data.draw(st.booleans(), label="re-roll ties"),
        helpless_rule=data.draw(st.sampled_from(HelplessRule.values), label="helpless"),
    )
    clients = {"referee": Client(), "player": Client()}
    clients["referee"].get(reverse("referee_link", args=[encounter.referee_key]))
    clients["player"].post(reverse("join", args=[encounter.join_token]), {"name": "Anna"})
    clients["display"] = _display(encounter)
    anna = Seat.objects.get(encounter=encounter, name="Anna")
    boris = Seat.objects.create(encounter=encounter, name="Boris")
    language = data.draw(st.sampled_from(LANGUAGES), label="language")
    table = Table(encounter.pk, anna, language, clients)
    extra = {"skills": [{"key": "listen", "name": "", "targets": [5, 4]}], "wis_score": 12}
    if system != "dolmenwood":
        extra = {}
    character(encounter, "Aldric", seat=anna, hp_max=12, hp=12, **extra)
    for n in range(data.draw(st.integers(0, 2), label="more heroes")):
        # Another player's notes on their hero are theirs and the referee's alone.
        notes = table.note(data, 10 + n) if n else ""
        character(
            encounter, f"Hero {n}", seat=boris if n else None, hp_max=8, hp=8, notes=notes,
            **extra,
        )  # fmt: skip
    for n in range(data.draw(st.integers(1, 3), label="visible foes")):
        monster(
            encounter, f"Goblin {n}", morale=data.draw(st.sampled_from([None, 6, 9])),
            notes=table.note(data, 20 + n), special_notes=table.note(data, 30 + n),
        )  # fmt: skip
    for n in range(data.draw(st.integers(1, 3), label="hidden foes")):
        name = _token(data, "Zq", n)
        table.secrets.add(name)
        hp = data.draw(st.integers(1, 6), label="hidden hp")
        monster(
            encounter, name, hidden=True, morale=7, hp_max=6, hp=hp, hit_dice="1+1",
            notes=table.note(data, 40 + n), special_notes=table.note(data, 50 + n),
        )  # fmt: skip
    if data.draw(st.booleans(), label="a hidden hero"):
        name = _token(data, "Zp", 0)
        table.secrets.add(name)
        seat = data.draw(st.sampled_from([None, boris]), label="hidden hero's seat")
        character(encounter, name, seat=seat, hidden=True, hp_max=6, hp=6, **extra)
    if system == "becmi" and data.draw(st.booleans(), label="ships"):
        referee = table.referee()
        for n, hidden in enumerate((False, True)):
            name = _token(data, "Zs", n) if hidden else "Cog"
            if hidden:
                table.secrets.add(name)
            becmi_special.add_ship(
                referee, name=name, side=Side.FOES if hidden else Side.PARTY, ac=8,
                hull_points=20, speed=120, crew=10, rowers=20, hidden=hidden,
            )  # fmt: skip
    zones.sync_all(encounter)
    return table


# --- the actions ------------------------------------------------------------------------------


class Skip(Exception):
    """Nothing of this kind can be done now (no fight, no ship): the next action is drawn."""


def _pick(data: st.DataObject, items: list[Any], label: str) -> Any:
    if not items:
        raise Skip(label)
    return data.draw(st.sampled_from(items), label=label)


def _some(data: st.DataObject, items: list[Any], label: str, most: int = 3) -> list[Any]:
    if not items:
        return []
    return data.draw(st.lists(st.sampled_from(items), max_size=most, unique_by=lambda c: c.pk))


def _natural(data: st.DataObject, sides: int = 20) -> int | None:
    return data.draw(st.none() | st.integers(1, sides), label=f"d{sides}")


def _secret(data: st.DataObject) -> bool:
    return data.draw(st.booleans(), label="secret")


def _actor_and_target(t: Table, data: st.DataObject, player: bool) -> tuple[Combatant, Combatant]:
    """Anyone on anyone for the referee; for the player, her hero on what players see."""
    living = t.living()
    if player:
        actor = _pick(data, [c for c in living if c.seat_id == t.seat.pk], "own")
        return actor, _pick(data, [c for c in living if not c.hidden and c != actor], "target")
    actor = _pick(data, living, "actor")
    return actor, _pick(data, [c for c in living if c != actor], "target")


def attack(t: Table, data: st.DataObject) -> None:
    player = data.draw(st.booleans(), label="as the player")
    viewer = t.player() if player else t.referee()
    actor, target = _actor_and_target(t, data, player)
    common = {
        "actor": actor,
        "target": target,
        "mode": data.draw(st.sampled_from(["melee", "missile"]), label="mode"),
        "modifier": 0,
        "natural": _natural(data),
        "damage": D6,
        "damage_dice": None,
        "secret": _secret(data),
    }
    system = t.encounter.system
    if system == "becmi":
        becmi.attack(viewer, **common)
    elif system == "dolmenwood":
        dolmenwood.attack(viewer, **common)
    else:
        actions.attack(viewer, **common)


def save(t: Table, data: st.DataObject) -> None:
    player = data.draw(st.booleans(), label="as the player")
    viewer = t.player() if player else t.referee()
    own = [c for c in t.living() if c.seat_id == t.seat.pk] if player else t.living()
    actor = _pick(data, own, "actor")
    common = {"actor": actor, "modifier": 0, "natural": _natural(data), "secret": _secret(data)}
    system = t.encounter.system
    if system == "dolmenwood":
        category = data.draw(st.sampled_from(list(dw_terms.DW_SAVES)), label="category")
        dolmenwood.saving_throw(viewer, category=category, **common)
    elif system == "becmi":
        category = data.draw(st.sampled_from(list(becmi_terms.BECMI_SAVES)), label="category")
        becmi.saving_throw(viewer, category=category, **common)
    else:
        damage = data.draw(st.none() | st.integers(0, 8), label="damage")
        actions.saving_throw(viewer, category="spells", damage=damage, **common)


def check(t: Table, data: st.DataObject) -> None:
    actor = _pick(data, t.living(), "actor")
    common = {"actor": actor, "modifier": 0, "secret": _secret(data)}
    system = t.encounter.system
    if system == "dolmenwood":
        if data.draw(st.booleans(), label="a skill"):
            skill = _pick(data, dw_terms.sheet_of(actor), "skill")
            dolmenwood.skill_check(
                t.referee(), skill=skill, target=skill.target, natural=_natural(data, 6), **common
            )
        else:
            dolmenwood.ability_check(
                t.referee(), ability="str", score=13, natural=_natural(data, 6), **common
            )
    else:
        toolkit.ability_check(
            t.referee(), ability="str", score=actor.str_score, natural=_natural(data), **common
        )


def hit_points(t: Table, data: st.DataObject) -> None:
    actor = _pick(data, t.combatants(), "actor")
    how = data.draw(st.sampled_from(["damage", "heal", "correct", "rest"]), label="how")
    amount = data.draw(st.integers(1, 8), label="amount")
    viewer = t.referee()
    if how == "correct":
        with transaction.atomic():
            locked = Combatant.objects.select_for_update().get(pk=actor.pk)
            toolkit.correct_hit_points(viewer, actor=locked, hp=amount - 3)
    elif how == "rest":
        toolkit.rest(viewer, actor=actor, days=1, interrupted=0, day_dice=None)
    else:
        toolkit.change_hit_points(viewer, actor=actor, action=how, amount=amount)


def free_roll(t: Table, data: st.DataObject) -> None:
    secret = _secret(data)
    label = _token(data, "SECRET-", 0) if secret else "Torch"
    if secret:
        t.secrets.add(label)
    if t.encounter.system == "dolmenwood" and data.draw(st.booleans(), label="chance"):
        dolmenwood.chance_roll(
            t.referee(), kind="x_in_6", chance=3, natural=None, label=label, secret=secret
        )
        return
    toolkit.free_roll(t.referee(), expression=D6, label=label, entered=None, secret=secret)


def start(t: Table, data: st.DataObject) -> None:
    rounds.start(t.referee(), surprise=data.draw(st.booleans(), label="surprise"))


def initiative(t: Table, data: st.DataObject) -> None:
    typed = {c.pk: data.draw(st.integers(1, 6)) for c in _some(data, t.living(), "typed")}
    rounds.roll_initiative(t.referee(), dice=typed)


def advance(t: Table, data: st.DataObject) -> None:
    step = data.draw(st.sampled_from(["turn"] * 4 + ["step", "round"]), label="step")
    viewer = t.referee()
    if step == "turn":
        rounds.next_turn(viewer)
    elif step == "step":
        rounds.next_step(viewer)
    else:
        rounds.end_round(viewer)


def end_round(t: Table, data: st.DataObject) -> None:
    rounds.end_round(t.referee())


def end_fight(t: Table, data: st.DataObject) -> None:
    encounter = t.encounter
    summary = rounds.fight_summary(encounter, t.combatants())
    xp = {foe.pk: foe.xp or 0 for foe in summary.slain}
    extra = data.draw(st.sampled_from(["", "Well fought"]), label="extra")
    rounds.end_fight(t.referee(), at=rounds.marker(encounter), xp=xp, extra=extra, shares=2)


def add_condition(t: Table, data: st.DataObject) -> None:
    everyone = t.combatants()  # the hidden twice as likely: their conditions' lines matter
    combatant = _pick(data, everyone + [c for c in everyone if c.hidden], "who")
    kind = data.draw(st.sampled_from(ConditionKind.values), label="condition")
    note = "calm"
    if combatant.hidden:
        note = _token(data, "NOTE-", 0)
        t.secrets.add(note)
    elif kind != ConditionKind.OTHER:
        note = data.draw(st.sampled_from(["", note]), label="note")
    span = data.draw(st.sampled_from([None, 1, 1, 2]), label="rounds")
    rounds.add_condition(t.referee(), combatant=combatant, kind=kind, rounds=span, note=note)


def end_condition(t: Table, data: st.DataObject) -> None:
    running = Condition.objects.filter(combatant__encounter_id=t.pk).running().order_by("pk")
    rounds.end_condition(t.referee(), _pick(data, list(running), "condition"))


def morale(t: Table, data: st.DataObject) -> None:
    rounds.check_morale(
        t.referee(),
        side=data.draw(st.sampled_from(Side.values), label="side"),
        score=data.draw(st.integers(2, 12), label="morale"),
        dice=data.draw(st.none() | st.lists(st.integers(1, 6), min_size=2, max_size=2)),
        why=data.draw(st.sampled_from(["", "first_death", "half"]), label="why"),
        flee=data.draw(st.booleans(), label="flee"),
    )


def _fighting(t: Table) -> None:
    if not t.encounter.round:
        rounds.start(t.referee(), surprise=False)


def rout(t: Table, data: st.DataObject) -> None:
    """A side's morale breaks, hidden ones among those who flee."""
    _fighting(t)
    side = data.draw(st.sampled_from([Side.FOES, Side.FOES, Side.PARTY]), label="side")
    score = data.draw(st.integers(2, 11), label="morale")
    rounds.check_morale(t.referee(), side=side, score=score, dice=[6, 6], flee=True)


def expiry(t: Table, data: st.DataObject) -> None:
    """A hidden one's condition, noted, runs out at the round's end."""
    _fighting(t)
    lurker = _pick(data, [c for c in t.combatants() if c.hidden], "hidden")
    note = t.note(data, 60)
    kind = data.draw(st.sampled_from(ConditionKind.values), label="condition")
    rounds.add_condition(t.referee(), combatant=lurker, kind=kind, rounds=1, note=note)
    rounds.end_round(t.referee())


def turns(t: Table, data: st.DataObject) -> None:
    """Initiative if it is not rolled yet, then the rest of the order act in turn."""
    _fighting(t)
    if not t.encounter.turn.get("rolled"):
        rounds.roll_initiative(t.referee())
    turn = t.encounter.turn
    for _ in range(len(turn["order"]) - turn["index"]):  # the whole round: everyone acts
        rounds.next_turn(t.referee())


def aftermath(t: Table, data: st.DataObject) -> None:
    """A side routed, and the fight's summary: who fell and who fled, hidden ones among them."""
    rout(t, data)
    end_fight(t, data)


def undo(t: Table, data: st.DataObject) -> None:
    undoable = [e for e in LogEntry.objects.filter(encounter_id=t.pk).order_by("-seq")[:8]]
    entry = _pick(data, [e for e in undoable if e.undoable], "entry")
    toolkit.undo(t.referee(), entry)


def show(t: Table, data: st.DataObject) -> None:
    """The referee shows players a secret roll: what it says is theirs now (a secret roll's
    label too), but for the combatants hidden now, which stay hidden."""
    secrets = LogEntry.objects.filter(encounter_id=t.pk, secret=True).order_by("-seq")[:8]
    entry = _pick(data, [e for e in secrets if e.kind in SHOWABLE and not e.undone_seq], "entry")
    toolkit.show(t.referee(), entry)
    label = entry.data.get("label")
    t.secrets.discard(label)


def group_attack(t: Table, data: st.DataObject) -> None:
    living = t.living()
    planned = [
        group.Planned(_pick(data, living, "attacker"), _pick(data, living, "target"))
        for _ in range(data.draw(st.integers(1, 4), label="attacks"))
    ]
    group.attack_together(
        t.referee(), attacks=planned, mode="melee", modifier=0, damage=D6, secret=_secret(data)
    )


def area(t: Table, data: st.DataObject, players_roll: bool | None = None) -> None:
    targets = _some(data, t.living(), "targets", most=5)
    if not targets:
        raise Skip("no targets")
    if players_roll is None:
        players_roll = data.draw(st.booleans(), label="players roll")
    secret = _secret(data)
    label = _token(data, "SECRET-", 1) if secret else "Fireball"
    if secret:
        t.secrets.add(label)
    group.area_effect(
        t.referee(),
        targets=[group.Exposed(c, _natural(data)) for c in targets],
        damage=D6,
        damage_dice=None,
        category="breath",
        on_save=data.draw(st.sampled_from([group.HALF, group.NONE]), label="on save"),
        modifier=0,
        label=label,
        secret=secret,
        players_roll=players_roll,
    )


def players_save(t: Table, data: st.DataObject) -> None:
    """An area effect whose saves the players roll, and some of those saves rolled."""
    area(t, data, players_roll=True)
    for _ in range(data.draw(st.integers(0, 3), label="saves rolled")):
        with contextlib.suppress(Skip):
            pending_save(t, data)


def pending_save(t: Table, data: st.DataObject) -> None:
    waiting = PendingSave.objects.filter(encounter_id=t.pk, resolved=False).order_by("pk")
    pending = _pick(data, list(waiting), "pending")
    player = pending.combatant.seat_id == t.seat.pk and data.draw(st.booleans(), label="player")
    group.roll_pending_save(t.player() if player else t.referee(), pending, _natural(data))


def zone(t: Table, data: st.DataObject) -> None:
    if not t.encounter.hit_locations:
        raise Skip("no hit locations")
    combatant = _pick(data, [c for c in t.combatants() if c.zones], "who")
    where = _pick(data, combatant.zones["keys"], "zone")
    how = data.draw(st.sampled_from(["damage", "damage", "treat", "heal"]), label="zone action")
    viewer = t.referee()
    if how == "damage":
        label = "Fall"
        if combatant.hidden:
            label = _token(data, "NOTE-", 1)
            t.secrets.add(label)
        amount = data.draw(st.integers(1, 6), label="amount")
        zones.damage_zone(viewer, combatant=combatant, zone=where, amount=amount, label=label)
    elif how == "treat":
        zones.treat(viewer, combatant=combatant, zone=where)
    else:
        zones.heal(viewer, combatant=combatant, zone=where, amount=2)


def strike(t: Table, data: st.DataObject) -> None:
    actor, target = _actor_and_target(t, data, player=False)
    becmi_special.strike(
        t.referee(),
        actor=actor,
        target=target,
        blow=data.draw(st.sampled_from(["punch", "kick"]), label="blow"),
        haymaker=data.draw(st.booleans(), label="haymaker"),
        pulled=False,
        modifier=0,
        natural=_natural(data),
        stun_natural=_natural(data),
        save_natural=_natural(data),
        secret=_secret(data),
    )


def wrestle(t: Table, data: st.DataObject) -> None:
    running = list(Wrestle.objects.filter(encounter_id=t.pk, ended=False).order_by("pk"))
    how = data.draw(st.sampled_from(["start", "start", "round", "end"]), label="wrestle")
    viewer = t.referee()
    if how == "start":  # between two the players see, mostly: hidden helpers are named aside
        seen = [c for c in t.living() if not c.hidden]
        if len(seen) > 1 and data.draw(st.sampled_from([True, True, True, False])):
            actor = _pick(data, seen, "actor")
            target = _pick(data, [c for c in seen if c != actor], "target")
        else:
            actor, target = _actor_and_target(t, data, player=False)
        others = [c for c in t.living() if c.pk not in (actor.pk, target.pk)]
        helpers = _some(data, others, "helpers", most=2)
        lurking = [c for c in others if c.hidden and c not in helpers]
        if lurking:  # helpers a player cannot see: the line names the others only
            helpers.append(_pick(data, lurking, "hidden helper"))
        becmi_special.start_wrestle(
            viewer,
            actor=actor,
            target=target,
            attacker_helpers=helpers,
            defender_helpers=_some(data, others, "helpers", most=2),
            attacker_ac=actor.ac,
            defender_ac=target.ac,
            attacker_natural=_natural(data),
            defender_natural=_natural(data),
            secret=_secret(data),
        )
    elif how == "round":
        becmi_special.wrestle_round(
            viewer,
            wrestle=_pick(data, running, "wrestle"),
            attacker_natural=_natural(data),
            defender_natural=_natural(data),
            save_natural=_natural(data),
        )
    else:
        becmi_special.end_wrestle(viewer, wrestle=_pick(data, running, "wrestle"))


def naval(t: Table, data: st.DataObject) -> None:
    ships = [c for c in t.combatants() if c.kind == "ship"]
    ship = _pick(data, ships, "ship")
    how = data.draw(
        st.sampled_from(["ram", "grapple", "hull", "repair", "fail", "rowers", "board"]),
        label="naval",
    )
    viewer = t.referee()
    if how == "ram":
        target = _pick(data, [c for c in t.living() if c != ship], "target")
        becmi_special.ram(
            viewer, actor=ship, target=target, vessel="small_galley", modifier=0,
            natural=_natural(data), damage_dice=None, secret=_secret(data),
        )  # fmt: skip
    elif how == "grapple":
        target = _pick(data, [c for c in ships if c != ship], "target")
        becmi_special.grapple(
            viewer, actor=ship, target=target, distance=30, mutual=False,
            natural=_natural(data, 6), secret=_secret(data),
        )  # fmt: skip
    elif how == "hull":
        becmi_special.hull_damage(viewer, actor=ship, hit_points=data.draw(st.integers(1, 30)))
    elif how == "repair":
        becmi_special.repair(viewer, actor=ship, crew=6, turns=2, life_dice=None)
    elif how == "fail":
        becmi_special.repairs_fail(viewer, actor=ship)
    elif how == "rowers":
        becmi_special.lose_rowers(viewer, actor=ship, count=data.draw(st.integers(1, 5)))
    else:
        actor, target = _actor_and_target(t, data, player=False)
        becmi_special.board(
            viewer, actor=actor, target=target, boarding=True, target_boarding=False,
            modifier=0, natural=_natural(data), damage=D6, damage_dice=None,
            secret=_secret(data),
        )  # fmt: skip


Action = Callable[[Table, st.DataObject], None]
COMMON: list[Action] = [
    attack, attack, save, check, hit_points, free_roll, add_condition, add_condition,
    end_condition, undo, undo, zone, zone, rout, expiry, turns, aftermath, show,
]  # fmt: skip
ACTIONS: dict[str, list[Action]] = {
    "ose": [*COMMON, group_attack, group_attack, area, area, players_save],
    "becmi": [*COMMON, strike, wrestle, wrestle, wrestle, naval, naval],
    "dolmenwood": [*COMMON, check, free_roll],
}


def _choose(t: Table, data: st.DataObject, system: str) -> Action:
    """An action of the system's, or the round's next step as the table stands, which comes
    often: fights reach initiative, turns, conditions running out, morale and their end."""
    encounter = t.state.encounter  # as the last change left it (``_listen``)
    turn = encounter.turn or {}
    if not encounter.round:
        course = [start] * 6
    elif not turn.get("rolled"):
        course = [initiative] * 6 + [morale, morale, end_round, end_fight]
    elif turn.get("index", 0) < len(turn.get("order", [])):
        course = [advance] * 6 + [morale, morale, initiative, end_round]
    else:
        course = [end_round] * 6 + [morale, morale, end_fight]
    if t.state.pending:
        course += [pending_save] * 3  # saves an area effect left to players
    return data.draw(st.sampled_from(ACTIONS[system] + course), label="action")


# --- what players read ----------------------------------------------------------------------


def _leaks(t: Table, text: str) -> list[str]:
    return sorted(s for s in t.secrets if s in text)


def _listen(t: Table, what: str) -> None:
    """The live views after a change, as the hub builds them; every message players'
    sockets get from them (a delta from the last view, or a snapshot for the first)."""
    built = build_views(t.pk, t.audiences(), t.previous, t.state)
    assert built is not None
    t.state, views = built
    for audience, view in views.items():
        before = t.previous.get(audience)
        message = view.message(before.seq if before is not None else None)
        t.heard += 1
        assert not _leaks(t, message), (what, audience, _leaks(t, message), message)
    t.previous = views


def _pages(client: Client, t: Table, name: str, count: int) -> list[str]:
    """Every page of the whole log (100 entries a page), or the one page ``name`` names."""
    url = reverse(name, args=[t.encounter.slug])
    pages = range(1, 2 + count // 100) if name == "log" else [1]
    language = {"HTTP_ACCEPT_LANGUAGE": t.language}
    found = []
    for page in pages:
        response = client.get(url, {"page": page} if name == "log" else {}, **language)
        assert response.status_code == 200, (name, response.status_code)
        found.append(response.content.decode())
    return found


def _read_everything(t: Table, tally: Counter) -> None:
    count = LogEntry.objects.filter(encounter_id=t.pk).count()
    referee, player, display = (t.clients[k] for k in ("referee", "player", "display"))
    for who, client, name in (
        ("player", player, "encounter"),
        ("player", player, "log"),
        ("display", display, "display"),
    ):
        for html in _pages(client, t, name, count):
            assert "Aldric" in html or name != "encounter", (who, name, "not the player's page")
            assert not _leaks(t, html), (who, name, _leaks(t, html))
    for name, html in _panels(t, player):
        assert not _leaks(t, html), ("player", name, _leaks(t, html))
    _seq, snapshot = render_snapshot(t.player(), t.language)
    assert not _leaks(t, snapshot), ("snapshot", _leaks(t, snapshot))
    # Not vacuous: the hidden ones public entries name on the side, the referee reads.
    named = set().union(*(_named(t, entry) for entry in _public(t))) if count else set()
    referees = "".join(_pages(referee, t, "log", count))
    assert named <= {s for s in t.secrets if s in referees}, named
    if named:
        tally["hidden named in a public entry"] += 1


# The panels the player opens for her hero, by system (their target lists among them).
PANELS = {
    "ose": ["attack", "save", "group_attack"],
    "becmi": ["becmi_attack", "becmi_save", "bx_strike", "bx_wrestle", "bx_board"],
    "dolmenwood": ["dw_attack", "dw_save", "dw_skill"],
}


def _panels(t: Table, player: Client) -> list[tuple[str, str]]:
    """The player's panels for her hero, and her hero's notes."""
    encounter = t.encounter
    aldric = Combatant.objects.get(encounter=encounter, name="Aldric")
    found = []
    for name in PANELS[encounter.system]:
        url = reverse(name, args=[encounter.slug])
        response = player.get(url, {"actor": aldric.pk}, HTTP_HX_REQUEST="true")
        assert response.status_code in (200, 403), (name, response.status_code)
        found.append((name, response.content.decode()))
    notes = reverse("combatant_notes", args=[encounter.slug, aldric.pk])
    found.append(("notes", player.get(notes, HTTP_HX_REQUEST="true").content.decode()))
    return found


def _public(t: Table) -> list[LogEntry]:
    return list(LogEntry.objects.filter(encounter_id=t.pk, secret=False).order_by("seq"))


def _named(t: Table, entry: LogEntry) -> set[str]:
    """The hidden names a public entry's data holds (besides its own list of them, and what
    the round was before it, which an undo restores and no line says)."""
    data = entry.data if isinstance(entry.data, dict) else {}
    said = {k: v for k, v in data.items() if k not in (UNSEEN, "before", "before_morale")}
    text = json.dumps(said)
    return {s for s in data.get(UNSEEN, {}) if s in text}


def _tally(t: Table, tally: Counter) -> None:
    """Which of the ways an entry names a hidden one on the side this example reached."""
    rolled = PendingSave.objects.filter(encounter_id=t.pk, entry__isnull=False).count()
    tally["saves players rolled"] += rolled
    for entry in _public(t):
        data = entry.data
        if not _named(t, entry):
            continue
        reached = {
            "initiative": entry.kind == EntryKind.INITIATIVE,
            "acting": bool(data.get("acting")),
            "expired": bool(data.get("expired")),
            "fled": entry.kind == EntryKind.MORALE,
            "summary": entry.kind == EntryKind.COMBAT,
            "revived": entry.kind == EntryKind.UNDO,
            "helpers": entry.kind == EntryKind.WRESTLE,
        }
        for name, hit in reached.items():
            if hit:
                tally[name] += 1
                event(f"a hidden one named in: {name}")


def _play(data: st.DataObject, system: str, tally: Counter, rng: random.Random) -> None:
    rng.seed(data.draw(st.integers(0, 2**32), label="the dice"))  # replayed, for Hypothesis
    t = _build(data, system)
    _listen(t, "the table set")
    steps = data.draw(st.integers(4, 32), label="actions")
    for _ in range(steps):
        act = _choose(t, data, system)
        try:
            _sealed(t, data, act)
        except Skip:
            continue
        except REFUSALS as refused:
            tally[f"refused {act.__name__}"] += 1
            event(f"refused: {type(refused).__name__}")
            continue
        tally[act.__name__] += 1
        _listen(t, act.__name__)
    _tally(t, tally)
    _read_everything(t, tally)
    _dice_verify(t, tally)


def _sealed(t: Table, data: st.DataObject, act: Action) -> None:
    """``act``, its server dice sealed as a view rolls them, with a value the browser sent."""
    sent = data.draw(st.text(HEX, max_size=32), label="the browser's value")
    with toolkit.server_dice(t.encounter, sent):
        act(t, data)


def _dice_verify(t: Table, tally: Counter) -> None:
    """The seed revealed (the referee's button), every server die rolled verifies: every one
    for the referee, secret rolls too; the public ones for the player, numbered with no gap
    (``fair.verify`` fails a roll whose number skips), none of them secret."""
    referee, player = t.clients["referee"], t.clients["player"]
    response = referee.post(reverse("dice_rotate", args=[t.encounter.slug]))
    assert response.status_code == 302
    url = reverse("dice_proofs", args=[t.encounter.slug])
    everything = referee.get(url).json()
    seen = player.get(url).json()
    # Of the secret rolls, players see those the referee showed them, and no other.
    shown = {e.public_seq for e in _public(t) if e.data.get("shown")}
    assert {roll["entry"] for roll in seen.get("secret", [])} <= shown
    full, public = fair.verify(everything), fair.verify(seen)
    assert full["ok"] and not full["counts"]["committed"], full
    assert public["ok"] and not public["counts"]["committed"], public
    assert len(seen["rolls"]) == len(everything["rolls"])  # no public roll is kept from them
    numbers = {entry.public_seq for entry in _public(t)}
    assert {roll["entry"] for roll in seen["rolls"]} <= numbers
    entries = LogEntry.objects.filter(encounter_id=t.pk).exclude(proof={})
    for entry in entries:
        for stream in entry.proof:
            tally[f"dice {stream} {entry.kind}"] += 1
            event(f"server dice: {stream} {entry.kind}")
        tally[f"dice {entry.kind}"] += 1


def _seeded_dice(monkeypatch: pytest.MonkeyPatch) -> random.Random:
    """The server's seeds, from a seed each example draws: its dice derive from them and the
    values its browsers send, so an example replays as it ran (the dead and the living decide
    what the next draws choose from)."""
    rng = random.Random()
    monkeypatch.setattr(fair, "new_seed", lambda: rng.randbytes(fair.SEED_BYTES).hex())
    return rng


def _scan(system: str, examples: int, monkeypatch: pytest.MonkeyPatch) -> Counter:
    tally: Counter = Counter()
    rng = _seeded_dice(monkeypatch)

    # In CI the same examples every run: what they reach (``_reached``) is then a fact, not a
    # chance; a developer's run draws new ones each time.
    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=bool(os.environ.get("CI")),
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=st.data())
    def scan(data: st.DataObject) -> None:
        _play(data, system, tally, rng)

    scan()
    print(system, sorted(tally.items()))  # what was reached, shown with -s
    return tally


# The server rolls every system makes: attacks and their damage, saves, initiative, surprise
# (the fight's start), morale, free rolls and area effects (rest, rarer here, is rolled and
# verified in tests/combat/test_server_dice.py).
COMMON_ROLLS = ("attack", "save", "initiative", "combat", "morale", "roll")


def _reached(tally: Counter, *names: str) -> None:
    missed = [name for name in names if not tally[name]]
    assert not missed, f"never reached: {missed}; reached: {sorted(tally.items())}"


def test_no_hidden_name_or_note_reaches_players_at_an_ose_table(monkeypatch):
    tally = _scan("ose", 70, monkeypatch)
    _reached(tally, "initiative", "acting", "expired", "fled", "summary")
    _reached(tally, "area", "group_attack", "saves players rolled")
    # Every kind of server roll was sealed, revealed and verified, in both streams.
    _reached(tally, *(f"dice {kind}" for kind in COMMON_ROLLS), "dice check")
    _reached(tally, "dice public attack", "dice secret attack", "dice secret initiative")


def test_no_hidden_name_or_note_reaches_players_at_a_becmi_table(monkeypatch):
    tally = _scan("becmi", 55, monkeypatch)
    _reached(tally, "initiative", "acting", "expired", "fled", "summary", "helpers")
    _reached(tally, "strike", "naval", "wrestle")
    _reached(tally, *(f"dice {kind}" for kind in COMMON_ROLLS), "dice wrestle", "dice strike")
    _reached(tally, "dice naval", "dice check")


def test_no_hidden_name_or_note_reaches_players_at_a_dolmenwood_table(monkeypatch):
    tally = _scan("dolmenwood", 55, monkeypatch)
    _reached(tally, "initiative", "acting", "expired", "fled", "summary")
    _reached(tally, "check", "free_roll")
    _reached(tally, *(f"dice {kind}" for kind in COMMON_ROLLS), "dice skill", "dice chance")


# --- one case the random tables reach rarely -----------------------------------------------


def test_undoing_the_round_a_hidden_foe_bled_to_death_in_does_not_name_it(monkeypatch):
    """The round's end is public; the bleeding that killed a hidden foe in it is not, and
    neither is the undo that brings it back."""
    encounter = Encounter.objects.create(name="Scan", hit_locations=True)
    player = Client()
    player.post(reverse("join", args=[encounter.join_token]), {"name": "Anna"})
    character(encounter, "Aldric", seat=encounter.seats.get())
    lurker = monster(encounter, "Zq0xbleeds", hidden=True, hp_max=20, hp=20)
    zones.sync_all(encounter)
    lurker.refresh_from_db()
    referee = Viewer(encounter, is_referee=True, seat=None)
    arm = next(k for k in lurker.zones["keys"] if "arm" in k)
    cut = lurker.zones["zone_max"][lurker.zones["keys"].index(arm)]
    zones.damage_zone(referee, combatant=lurker, zone=arm, amount=cut)
    with transaction.atomic():
        toolkit.correct_hit_points(referee, actor=Combatant.objects.get(pk=lurker.pk), hp=1)
    rounds.start(referee, surprise=False)
    ended = rounds.end_round(Viewer(Encounter.objects.get(pk=encounter.pk), True, None))
    assert Combatant.objects.get(pk=lurker.pk).dead and not ended.secret
    undone = toolkit.undo(referee, ended)
    assert not undone.secret and undone.data["revived"] == [lurker.name]
    for url in (reverse("encounter", args=[encounter.slug]), reverse("log", args=[encounter.slug])):
        html = player.get(url).content.decode()
        assert "undone" in html and lurker.name not in html
