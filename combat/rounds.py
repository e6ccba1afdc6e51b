"""The fight in rounds at the table: start, surprise, initiative, turns, the round's end,
conditions and morale. ``rules.rounds`` decides; this stores and logs it.

The round lives on the encounter: ``round`` (0: no fight) and ``turn``, a small document::

    {"surprised": "party" | "foes" | "both" | "",   # the first round only
     "rolled": bool,                                  # initiative rolled this round
     "order": [{"sides": ["party"]}, {"ids": [3, 5]}, ...],  # who acts, in turn
     "index": 0,                                      # whose turn it is in ``order``
     "step": 0}                                       # within it: morale, movement, ...

Group initiative orders sides; individual initiative orders combatants (those with equal
totals act at once). Every change here bumps the encounter's number and is announced like
any other, so every screen shows the round as it stands. Changes of the round's course are
logged with what they replaced (their payload's ``before``: ``combat.payloads.rounds``): the
latest can be undone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils.translation import pgettext_lazy

from combat import table, zones
from combat.access import Viewer
from combat.db.prepared import Prepared
from combat.errors import Refused
from combat.models import Combatant, Condition, Encounter, EntryKind, InitiativeMode, LogEntry, Side
from combat.payloads import rounds as entries
from rules import bounds
from rules import rounds as rules
from rules.errors import RulesError

SIDES = (Side.PARTY, Side.FOES)
STEP_LABELS = {
    "morale": pgettext_lazy("step", "Morale"),
    "movement": pgettext_lazy("step", "Movement"),
    "missile": pgettext_lazy("step", "Missile attacks"),
    "spells": pgettext_lazy("step", "Spells"),
    "melee": pgettext_lazy("step", "Melee"),
}
STEPS = rules.TURN_STEPS
# Conditions that keep a combatant from acting, and that make it helpless.
CANNOT_ACT = rules.PREVENTS_ACTION
OUTCOMES = {
    rules.SurpriseOutcome.NEITHER: "",
    rules.SurpriseOutcome.PARTY_SURPRISED: Side.PARTY,
    rules.SurpriseOutcome.FOES_SURPRISED: Side.FOES,
    rules.SurpriseOutcome.BOTH: "both",
}
FIRST = {
    rules.InitiativeOrder.PARTY: [[Side.PARTY], [Side.FOES]],
    rules.InitiativeOrder.FOES: [[Side.FOES], [Side.PARTY]],
    rules.InitiativeOrder.SIMULTANEOUS: [[Side.PARTY, Side.FOES]],
}


def locked_encounter(viewer: Viewer) -> Encounter:
    """The viewer's encounter with the round as the database has it, its row locked until
    the transaction ends (two taps on "next" never skip a turn between them)."""
    fresh = Encounter.objects.select_for_update().get(pk=viewer.encounter.pk)
    encounter = viewer.encounter
    for name in ("round", "turn", "morale", "seq", "public_seq", "initiative_mode", "reroll_ties"):
        setattr(encounter, name, getattr(fresh, name))
    return encounter


def _save(encounter: Encounter, *fields: str) -> None:
    Encounter.objects.filter(pk=encounter.pk).update(
        **{name: getattr(encounter, name) for name in fields}
    )


def _before(encounter: Encounter) -> entries.Before:
    return entries.Before(round=encounter.round, turn=encounter.turn)


def _in_fight(encounter: Encounter) -> None:
    if not encounter.round:
        raise Refused("no_fight")


# --- what the round shows -------------------------------------------------------------------


@dataclass(frozen=True)
class Standing:
    """The round as every screen shows it, worked out from the encounter and its combatants."""

    round: int
    surprised: str
    rolled: bool
    acting_sides: frozenset[str]
    acting_ids: frozenset[int]
    step: int
    turns_left: bool
    nothing_happens: bool  # both sides surprised, the first round
    morale_due: tuple[tuple[str, str], ...]  # (side, why) the referee is offered a check for

    @property
    def active(self) -> bool:
        return self.round > 0

    def acts(self, combatant: Combatant) -> bool:
        return combatant.pk in self.acting_ids


def able(combatant: Combatant, conditions: dict[int, list[Condition]]) -> bool:
    """Whether ``combatant`` can act: alive, still here, and under no condition that stops
    it (paralysed, asleep, held)."""
    if combatant.dead or combatant.fled:
        return False
    return not any(c.kind in CANNOT_ACT for c in conditions.get(combatant.pk, ()))


def standing(
    encounter: Encounter, combatants: list[Combatant], conditions: dict[int, list[Condition]]
) -> Standing:
    turn = encounter.turn or {}
    order = turn.get("order", [])
    index = turn.get("index", 0)
    current = order[index] if index < len(order) else {}
    present = {c.pk: c for c in combatants if not c.dead and not c.fled}
    sides = frozenset(current.get("sides", ()))
    ids = frozenset(current.get("ids", ())) | {pk for pk, c in present.items() if c.side in sides}
    surprised = turn.get("surprised", "") if encounter.round == 1 else ""
    return Standing(
        round=encounter.round,
        surprised=surprised,
        rolled=bool(turn.get("rolled")),
        acting_sides=sides,
        acting_ids=frozenset(i for i in ids if i in present),
        step=turn.get("step", 0),
        turns_left=index < len(order),
        nothing_happens=surprised == "both",
        morale_due=_morale_due(encounter, combatants, conditions) if encounter.round else (),
    )


def _morale_due(
    encounter: Encounter, combatants: list[Combatant], conditions: dict[int, list[Condition]]
) -> tuple[tuple[str, str], ...]:
    due = []
    for side in SIDES:
        state = _side_state(encounter, combatants, conditions, side)
        if state is None:
            continue
        why = rules.morale_check_due(state, side_morale(combatants, side))
        if why:
            due.append((side, str(why)))
    return tuple(due)


def _side_state(
    encounter: Encounter,
    combatants: list[Combatant],
    conditions: dict[int, list[Condition]],
    side: str,
) -> rules.MoraleState | None:
    """A side's morale as the rules count it: those with a morale score (monsters and
    retainers), how many are down, and the checks made so far (None: no one checks)."""
    members = [c for c in combatants if c.side == side and c.morale is not None]
    if not members:
        return None
    record = (encounter.morale or {}).get(side, {})
    checks = record.get("checks", 0)
    return rules.MoraleState(
        count=len(members),
        dead=sum(1 for c in members if c.dead),
        unable=sum(1 for c in members if not c.dead and not able(c, conditions)),
        checks=checks,
        passed=min(record.get("passed", 0), checks),
        first_death_checked=record.get("first_death", False),
        half_checked=record.get("half", False),
    )


RUNNING = Prepared(
    lambda encounter_id: Condition.objects.filter(combatant__encounter=encounter_id).running()
)


def conditions_by_combatant(encounter: Encounter) -> dict[int, list[Condition]]:
    """Every condition running in the encounter, by combatant: one query for all rows."""
    found: dict[int, list[Condition]] = {}
    for condition in RUNNING(encounter.pk):
        found.setdefault(condition.combatant_id, []).append(condition)
    return found


def round_context(
    encounter: Encounter,
    combatants: list[Combatant],
    conditions: dict[int, list[Condition]],
    *,
    referee: bool,
    own: frozenset[int] = frozenset(),
    now: Standing | None = None,
) -> dict[str, Any]:
    """What the round's section shows one audience (its own combatants: ``own``); ``now``
    when the caller worked out the round's standing once for many audiences."""
    if now is None:
        now = standing(encounter, combatants, conditions)
    acting = [c for c in combatants if c.pk in now.acting_ids] if now.acting_ids else []
    return {
        "standing": now,
        "steps": tuple((key, STEP_LABELS[key]) for key in STEPS),
        "acting_names": tuple(c.name for c in acting if referee or not c.hidden or c.pk in own),
        "your_turn": bool(own & now.acting_ids),
        "at": marker(encounter),
        "initiative_mode": encounter.initiative_mode,
        # The server's dice' seal, shown before every roll it covers (combat.table.dice).
        "seal": table.seal(encounter, referee=referee),
    }


def initiative_dexterity(combatant: Combatant) -> int | None:
    """The DEX an individual initiative roll adds its modifier for: the party's; monsters
    roll a plain d6."""
    return combatant.dex_score if combatant.side == Side.PARTY else None


def initiative_modifier(combatant: Combatant) -> int:
    dexterity = initiative_dexterity(combatant)
    return 0 if dexterity is None else rules.dex_initiative_modifier(dexterity)


def tie_rule(encounter: Encounter) -> rules.TieRule:
    return rules.TieRule.REROLL if encounter.reroll_ties else rules.TieRule.SIMULTANEOUS


def side_morale(combatants: list[Combatant], side: str) -> int | None:
    """The score a side checks with: the lowest among its living members (the first to
    break decides whether the group holds)."""
    scores = [c.morale for c in combatants if c.side == side and c.morale and not c.dead]
    return min(scores) if scores else None


def marker(encounter: Encounter) -> str:
    """Where the round stands, as the round's buttons carry it. A stored turn that is none
    (a database edited by hand) stands at its start, so End the fight can still set it aside."""
    turn = encounter.turn if isinstance(encounter.turn, dict) else {}
    return (
        f"{encounter.round}:{turn.get('index', 0)}:{turn.get('step', 0)}:"
        f"{int(bool(turn.get('rolled')))}"
    )


@transaction.atomic
def advance_if_current(viewer: Viewer, at: str, step: Any) -> LogEntry | None:
    """``step`` (next step, next side, end of round, end of fight) if the round still stands
    where the button was drawn: a double tap, or two referees at once, move it once."""
    encounter = locked_encounter(viewer)
    if at != marker(encounter):
        raise Refused("round_moved_on")
    return step(viewer)


# --- changes --------------------------------------------------------------------------------


@transaction.atomic
def start(
    viewer: Viewer,
    *,
    surprise: bool,
    party_die: int | None = None,
    foes_die: int | None = None,
    once: str = "",
) -> LogEntry:
    encounter = locked_encounter(viewer)
    if encounter.round:
        raise Refused("fight_running")
    before = _before(encounter)
    before.morale = encounter.morale
    data = entries.Combat(event="start", before=before)
    surprised = ""
    if surprise:
        party = rules.roll_surprise(rng=table.RNG, natural=party_die)
        foes = rules.roll_surprise(rng=table.RNG, natural=foes_die)
        surprised = OUTCOMES[rules.surprise_outcome(party.surprised, foes.surprised)]
        data.surprise = entries.Surprise(
            party=[party.natural, party_die is not None, party.surprised],
            foes=[foes.natural, foes_die is not None, foes.surprised],
            surprised=surprised,
        )
    encounter.round = 1
    encounter.turn = {"surprised": surprised, "rolled": False, "order": [], "index": 0, "step": 0}
    encounter.morale = {}
    _save(encounter, "round", "turn", "morale")
    return table.record(viewer, EntryKind.COMBAT, data, once=once)


def _living(encounter: Encounter) -> list[Combatant]:
    return [c for c in encounter.combatants.all() if not c.dead and not c.fled]


def _without_surprised(order: list[dict[str, Any]], surprised: str, by_pk: dict) -> list:
    """The first round's order without the side that was surprised."""
    if not surprised:
        return order
    out = []
    for turn in order:
        if "sides" in turn:
            sides = [s for s in turn["sides"] if surprised not in (s, "both")]
            if sides:
                out.append({"sides": sides})
        else:
            ids = [i for i in turn["ids"] if surprised not in (by_pk[i].side, "both")]
            if ids:
                out.append({"ids": ids})
    return out


@transaction.atomic
def roll_initiative(
    viewer: Viewer,
    *,
    party_die: int | None = None,
    foes_die: int | None = None,
    dice: dict[int, int] | None = None,
    once: str = "",
) -> LogEntry:
    """Initiative for this round (again, if it was rolled: the referee's re-roll)."""
    encounter = locked_encounter(viewer)
    _in_fight(encounter)
    turn = dict(encounter.turn)
    data = entries.Initiative(
        round=encounter.round, before=_before(encounter), again=turn.get("rolled")
    )
    living = _living(encounter)
    by_pk = {c.pk: c for c in living}
    if encounter.initiative_mode == InitiativeMode.INDIVIDUAL:
        totals = []
        rolls = []
        for c in living:
            typed = (dice or {}).get(c.pk)
            # A hidden combatant's die is secret: players read the entry without it.
            with table.secret_dice(c.hidden):
                roll = rules.roll_initiative(
                    dexterity=initiative_dexterity(c), rng=table.RNG, natural=typed
                )
            totals.append((c.pk, roll.total))
            modifier = roll.total - roll.natural
            rolls.append([c.name, roll.natural, typed is not None, modifier, roll.total])
        order = [{"ids": list(group.ids)} for group in rules.initiative_order(totals)]
        data.mode, data.rolls = "individual", rolls
    else:
        result = rules.roll_group_initiative(
            tie_rule=tie_rule(encounter),
            rng=table.RNG,
            party_natural=party_die,
            foes_natural=foes_die,
        )
        first, *rerolls = result.throws
        order = [{"sides": sides} for sides in FIRST[result.first]]
        data.mode = "group"
        data.party = [first.party_natural, party_die is not None]
        data.foes = [first.foes_natural, foes_die is not None]
        data.rerolls = [[t.party_natural, t.foes_natural] for t in rerolls]
        data.first = str(result.first)
    surprised = turn.get("surprised", "") if encounter.round == 1 else ""
    order = _without_surprised(order, surprised, by_pk)
    data.surprised = surprised  # the log says who lost the round to it, never "a tie"
    turn |= {"rolled": True, "order": order, "index": 0, "step": 0}
    encounter.turn = turn
    _save(encounter, "turn")
    return table.record(viewer, EntryKind.INITIATIVE, data, once=once, names=living)


@transaction.atomic
def next_step(viewer: Viewer, once: str = "") -> None:
    """Tick the acting side's step (morale, movement, missiles, spells, melee); after the
    last, the next in the order acts. Steps are a checklist: not logged, but shown live."""
    encounter = locked_encounter(viewer)
    _in_fight(encounter)
    turn = dict(encounter.turn)
    if turn.get("index", 0) >= len(turn.get("order", [])):
        raise Refused("round_over")
    if turn.get("step", 0) + 1 < len(STEPS):
        turn["step"] = turn.get("step", 0) + 1
        encounter.turn = turn
        _save(encounter, "turn")
        table.touch(viewer, once)
        return
    next_turn(viewer, once=once)


@transaction.atomic
def next_turn(viewer: Viewer, once: str = "") -> LogEntry:
    """The next side (or combatants) in the order act; after the last, the round is over."""
    encounter = locked_encounter(viewer)
    _in_fight(encounter)
    turn = dict(encounter.turn)
    if turn.get("index", 0) >= len(turn.get("order", [])):
        raise Refused("round_over")
    before = _before(encounter)
    turn |= {"index": turn.get("index", 0) + 1, "step": 0}
    encounter.turn = turn
    _save(encounter, "turn")
    done = turn["index"] >= len(turn["order"])
    data = entries.Turn(event="next", round=encounter.round, before=before, done=done)
    acting: list[Combatant] = []
    if not done:
        data.acting, acting = _acting(encounter, turn["order"][turn["index"]])
    return table.record(viewer, EntryKind.TURN, data, once=once, names=acting)


def _acting(encounter: Encounter, turn: dict[str, Any]) -> tuple[entries.Acting, list[Combatant]]:
    """Who acts now, as the log names them, and the combatants it names."""
    if "sides" in turn:
        return entries.Acting(sides=turn["sides"]), []
    found = {c.pk: c for c in encounter.combatants.filter(pk__in=turn["ids"])}
    acting = [found[i] for i in turn["ids"] if i in found]
    return entries.Acting(names=[c.name for c in acting]), acting


@transaction.atomic
def end_round(viewer: Viewer, once: str = "") -> LogEntry:
    """The round's end: conditions count down once, in order, and those that run out end
    with a line each; the next round starts, waiting for its initiative."""
    encounter = locked_encounter(viewer)
    _in_fight(encounter)
    # The round is stored in its declared range: past the last, nothing is written (the
    # caller says what to mend), where the database would refuse the row.
    next_round = bounds.check("round", encounter.round + 1)
    before = _before(encounter)
    running = list(
        Condition.objects.select_for_update()
        .filter(combatant__encounter=encounter, rounds_left__gt=0)
        .select_related("combatant")
        .order_by("combatant__pk", "pk")
    )
    ticked, expired, named = [], [], []
    for condition in running:
        tick = rules.tick_conditions(
            [rules.ActiveCondition(condition.kind, condition.rounds_left, note=condition.note)]
        )
        (after,) = tick.remaining or tick.expired
        condition.rounds_left = after.rounds_left
        condition.save(update_fields=["rounds_left"])
        ticked.append(condition.pk)
        if tick.expired:
            expired.append([condition.combatant.name, condition.kind, condition.note])
            named.append(condition.combatant)
    # Hit locations: bleeding, death and writhing timers (combat.zones), undone with the round.
    zone_effects, zone_lines = zones.tick_round(encounter)
    encounter.round = next_round
    encounter.turn = {"surprised": "", "rolled": False, "order": [], "index": 0, "step": 0}
    _save(encounter, "round", "turn")
    data = entries.Turn(
        event="round", round=encounter.round, before=before, ticked=ticked, expired=expired
    )
    if zone_lines:
        data.zones = zone_lines
        named += encounter.combatants.filter(pk__in=[e["combatant"] for e in zone_effects])
    return table.record(viewer, EntryKind.TURN, data, effects=zone_effects, once=once, names=named)


@dataclass(frozen=True)
class Someone:
    """One who fell or fled, as the fight's summary names them."""

    name: str
    side: str
    hidden: bool


@dataclass(frozen=True)
class SlainFoe:
    """A slain foe and what OSE's table gives for it (``table`` None: its Hit Dice say
    nothing the table reads, and the referee gives the figure)."""

    pk: int
    name: str
    hit_dice: str
    hidden: bool
    table: rules.MonsterXp | None

    @property
    def xp(self) -> int | None:
        return self.table.total if self.table else None


@dataclass(frozen=True)
class FightSummary:
    """The fight as its end sums it up, before the referee adjusts and shares it."""

    rounds: int
    fell: tuple[Someone, ...]
    fled: tuple[Someone, ...]
    slain: tuple[SlainFoe, ...]

    def summary_part(self) -> entries.Combat:
        """What the log keeps of the fight besides the experience: its end's head."""
        return entries.Combat(
            event="end", rounds=self.rounds, fell=_by_side(self.fell), fled=_by_side(self.fled)
        )


def _table_xp(hit_dice: str) -> rules.MonsterXp | None:
    try:
        return rules.monster_xp(hit_dice)
    except RulesError:
        return None


def fight_summary(encounter: Encounter, combatants: list[Combatant]) -> FightSummary:
    """Rounds fought, who fell and who fled (each side), and the table's experience for
    every slain foe, in the combatants' order."""

    def someone(c: Combatant) -> Someone:
        return Someone(c.name, c.side, c.hidden)

    return FightSummary(
        rounds=encounter.round,
        fell=tuple(someone(c) for c in combatants if c.dead),
        fled=tuple(someone(c) for c in combatants if c.fled and not c.dead),
        slain=tuple(
            SlainFoe(c.pk, c.name, c.hit_dice, c.hidden, _table_xp(c.hit_dice))
            for c in combatants
            if c.side == Side.FOES and c.dead
        ),
    )


def _by_side(people: tuple[Someone, ...]) -> list[list[Any]]:
    """[[side, [{name, hidden}, ...]], ...]: the party first, sides with nobody left out (a
    list, not a mapping, since a JSON column need not keep a mapping's order)."""
    return [
        [side, [{"name": p.name, "hidden": p.hidden} for p in people if p.side == side]]
        for side in SIDES
        if any(p.side == side for p in people)
    ]


def shares_of(total: int, shares: int | None) -> tuple[int, int] | None:
    """The experience each of ``shares`` gets, rounded down, and what is left over."""
    return divmod(total, shares) if shares else None


@transaction.atomic
def end_fight(
    viewer: Viewer,
    *,
    at: str,
    xp: Mapping[int, int],
    extra: str = "",
    shares: int | None = None,
    once: str = "",
) -> LogEntry:
    """The fight is over, as the referee shares it: rounds fought, what it cost each side,
    the experience for every slain foe (``xp``: the referee's figure by combatant, which
    may differ from the table's; both are kept), an optional extra line and, when
    ``shares`` is given, what each share gets.

    Refused when the round has moved on from ``at`` (the summary was drawn before someone
    ended or advanced the fight) or when the slain are no longer those ``xp`` names (one
    fell or was healed since): the referee checks the summary again."""
    encounter = locked_encounter(viewer)
    if at != marker(encounter):
        raise Refused("round_moved_on")
    _in_fight(encounter)
    combatants = list(encounter.combatants.all())
    summary = fight_summary(encounter, combatants)
    if {foe.pk for foe in summary.slain} != set(xp):
        raise Refused("summary_changed")
    awards = [
        entries.Award(
            name=foe.name,
            hd=foe.hit_dice,
            hidden=foe.hidden,
            xp=xp[foe.pk],
            table=foe.xp,
            base=foe.table.base if foe.table else None,
            bonus=foe.table.bonus if foe.table else None,
        )
        for foe in summary.slain
    ]
    total = sum(award.xp for award in awards)
    each = shares_of(total, shares)
    data = summary.summary_part()
    data.before, data.awards, data.xp_total = _before(encounter), awards, total
    data.extra, data.shares = extra, shares
    data.per_share, data.remainder = each if each else (None, None)
    encounter.round = 0
    encounter.turn = {}
    _save(encounter, "round", "turn")
    # The fight's dice are revealed with its end: anyone may check them now.
    revealed = table.reveal(encounter, only_if_rolled=True)
    data.dice_period = revealed.number if revealed is not None else None
    return table.record(viewer, EntryKind.COMBAT, data, once=once, names=combatants)


@transaction.atomic
def add_condition(
    viewer: Viewer,
    *,
    combatant: Combatant,
    kind: str,
    rounds: int | None,
    note: str = "",
    once: str = "",
) -> LogEntry:
    combatant = Combatant.objects.select_for_update().get(
        pk=combatant.pk, encounter=viewer.encounter
    )
    condition = Condition.objects.create(
        combatant=combatant, kind=kind, rounds_left=rounds, note=note
    )
    data = entries.ConditionChange(
        event="add",
        who=combatant.name,
        kind=kind,
        note=note,
        rounds=rounds,
        condition=condition.pk,
    )
    return table.record(viewer, EntryKind.CONDITION, data, secret=combatant.hidden, once=once)


@transaction.atomic
def end_condition(viewer: Viewer, condition: Condition, once: str = "") -> LogEntry:
    condition = (
        Condition.objects.select_for_update()
        .select_related("combatant")
        .get(pk=condition.pk, combatant__encounter=viewer.encounter)
    )
    if condition.rounds_left == 0:
        raise Refused("condition_over", name=condition.combatant.name)
    data = entries.ConditionChange(
        event="end",
        who=condition.combatant.name,
        kind=condition.kind,
        note=condition.note,
        condition=condition.pk,
        rounds_left=condition.rounds_left,
    )
    condition.rounds_left = 0
    condition.save(update_fields=["rounds_left"])
    return table.record(
        viewer, EntryKind.CONDITION, data, secret=condition.combatant.hidden, once=once
    )


@transaction.atomic
def check_morale(
    viewer: Viewer,
    *,
    side: str,
    score: int,
    dice: list[int] | None,
    why: str = "",
    flee: bool = True,
    once: str = "",
) -> LogEntry:
    encounter = locked_encounter(viewer)
    _in_fight(encounter)
    record = dict((encounter.morale or {}).get(side, {}))
    result = rules.check_morale(
        score, passes_before=record.get("passed", 0), rng=table.RNG, naturals=dice
    )
    combatants = list(encounter.combatants.all())
    state = _side_state(encounter, combatants, conditions_by_combatant(encounter), side)
    if state is None:  # a side with no morale scores, checked by hand: count it all the same
        state = rules.MoraleState(
            count=1, checks=record.get("checks", 0), passed=record.get("passed", 0)
        )
    after = rules.record_morale_check(state, result)
    record |= {
        "checks": after.checks,
        "passed": after.passed,
        "first_death": after.first_death_checked or why == "first_death",
        "half": after.half_checked or why == "half",
    }
    fled: list[Combatant] = []
    if not result.passed and flee:
        members = Combatant.objects.select_for_update().filter(
            encounter=encounter, side=side, hp__gt=0, fled=False
        )
        fled = list(members.only("pk", "name", "side", "hidden"))
        members.update(fled=True)
    before = encounter.morale or {}
    encounter.morale = before | {side: record}
    _save(encounter, "morale")
    data = entries.Morale(
        side=side,
        score=score,
        why=why,
        dice=list(result.naturals),
        entered=dice is not None and result.automatic is None,
        total=result.total,
        passed=result.passed,
        automatic=str(result.automatic) if result.automatic else "",
        to_the_death=result.fights_to_death,
        fled=[c.name for c in fled],
        fled_ids=[c.pk for c in fled],
        before_morale=before,
    )
    return table.record(viewer, EntryKind.MORALE, data, once=once, names=fled)


# --- undo -----------------------------------------------------------------------------------

COURSE = (EntryKind.COMBAT, EntryKind.INITIATIVE, EntryKind.TURN)


def undo_entry(viewer: Viewer, entry: LogEntry) -> None:
    """What an entry of the round's course, a morale check or a condition changed besides hit
    points, put back inside the undo's transaction (``combat.table.undo`` calls it: see
    ``combat.apps``); any other entry is not the round's business."""
    if entry.kind in COURSE:
        undo_course(locked_encounter(viewer), entry)
    elif entry.kind == EntryKind.MORALE:
        undo_morale(locked_encounter(viewer), entry)
    elif entry.kind == EntryKind.CONDITION:
        undo_condition(entry)


def undo_course(encounter: Encounter, entry: LogEntry) -> None:
    """Put the round back as it was before ``entry`` (inside the undo's transaction). Only
    the latest change of the round's course can be undone: an older one would bring back a
    round that later turns were played on."""
    later = (
        LogEntry.objects.filter(encounter=encounter, seq__gt=entry.seq, kind__in=COURSE)
        .filter(undone_by__isnull=True)
        .exists()
    )
    if later:
        raise Refused("undo_later_turn_first")
    course = entry.payload
    before = course.before or entries.Before()
    if before.round not in bounds.bound("round"):  # an entry no round of this table wrote
        raise ValueError(f"no round {before.round!r} to go back to")
    encounter.round = before.round
    encounter.turn = before.turn
    if before.morale is not None:
        encounter.morale = before.morale
    _save(encounter, "round", "turn", "morale")
    ticked = course.ticked if isinstance(course, entries.Turn) else None  # the round's end's
    if ticked:
        for condition in Condition.objects.select_for_update().filter(pk__in=ticked):
            condition.rounds_left = (condition.rounds_left or 0) + 1
            condition.save(update_fields=["rounds_left"])


def undo_morale(encounter: Encounter, entry: LogEntry) -> None:
    """The check never happened: its side's record as it was, and those it sent fleeing
    back in the fight."""
    check = entry.payload
    encounter.morale = check.before_morale
    _save(encounter, "morale")
    Combatant.objects.filter(encounter=encounter, pk__in=check.fled_ids).update(fled=False)


def undo_condition(entry: LogEntry) -> None:
    """An added condition undone is gone; an ended one runs again as it was."""
    change = entry.payload
    condition = Condition.objects.select_for_update().filter(pk=change.condition).first()
    if condition is None:
        return
    if change.event == "add":
        condition.rounds_left = 0
    else:
        condition.rounds_left = change.rounds_left
    condition.save(update_fields=["rounds_left"])
