"""The Old-School Essentials combat round: surprise, initiative, the order of a side's turn,
morale, conditions with durations, the end of a round, and experience for slain monsters.

Source: the project's issue for the combat round (OSE / B/X rules). BECMI/RC and Dolmenwood
roll surprise, initiative and morale the same way (1d6 per side, 2d6 against a morale score),
so everything a system may vary is a parameter rather than a constant: the surprise chance
(``surprised_on``), each side's initiative modifier, the tie rule, the helpless-target rule.
Only the experience table (:data:`XP_ROWS`) is OSE's own.

Every roll takes a random source (``rng``, anything with ``randint``) or the physical die a
user typed in (``natural=``, ``party_natural=`` / ``foes_natural=``, or ``naturals=`` for the
two dice of a morale check), validated as :func:`rules.core.natural_roll` does. Results are
frozen dataclasses holding numbers and keys, never text; exact odds are ``Fraction``.

=========================  ===========================  ================================
rule                       resolver                     exact odds / pure rule
=========================  ===========================  ================================
surprise (d6 per side)     ``roll_surprise``,           ``surprise_odds``,
                           ``resolve_surprise``         ``surprise_outcome_odds``,
                                                        ``surprise_outcome``
group initiative (d6)      ``roll_group_initiative``    ``group_initiative_odds``,
                                                        ``who_acts_first``
individual initiative      ``roll_initiative``          ``dex_initiative_modifier``,
                                                        ``initiative_order``
a side's turn              —                            ``TURN_STEPS``, ``next_step``
morale (2d6)               ``check_morale``             ``morale_failure_odds``,
                                                        ``morale_check_due``,
                                                        ``record_morale_check``
conditions                 —                            ``new_condition``,
                                                        ``tick_conditions``, ``can_act``,
                                                        ``is_helpless``, ``attack_on_helpless``
end of the round           —                            ``end_round``
experience                 —                            ``monster_xp``, ``slain_monsters_xp``
=========================  ===========================  ================================

Keys the interface translates
-----------------------------
* sides (:class:`Side`): ``party``, ``foes`` (the values of ``combat.models.Side``);
* surprise outcomes (:class:`SurpriseOutcome`): ``neither``, ``party_surprised``,
  ``foes_surprised``, ``both``;
* initiative (:class:`InitiativeOrder`): ``party``, ``foes``, ``simultaneous``; tie rules
  (:class:`TieRule`): ``simultaneous``, ``reroll``;
* turn steps (:class:`Step`): ``morale``, ``movement``, ``missile``, ``spells``, ``melee``;
* morale: triggers (:class:`MoraleTrigger`) ``first_death``, ``half``; outcomes
  (:class:`MoraleOutcome`) ``stands``, ``breaks``; checks settled without a roll
  (:class:`MoraleAutomatic`) ``never_fights``, ``never_checks``, ``fights_to_death``;
* conditions (:class:`Condition`): ``paralysed``, ``asleep``, ``held``, ``charmed``,
  ``blinded``, ``invisible``, ``stunned``, ``prone``, ``fleeing``, ``other`` (with the user's
  own text in ``note``); duration units (:class:`DurationUnit`): ``rounds``, ``turns``;
  helpless-target rules (:class:`HelplessRule`): ``hit_automatically``, ``slain_outright``;
* the end of a round: steps (:class:`RoundEndStep`) ``conditions``; effect kinds
  (:class:`RoundEffectKind`) ``condition_expired``;
* modifier reasons this module creates: ``dex`` (the DEX initiative modifier);
* error codes (:class:`~rules.errors.RulesError`): ``not_an_integer`` (name, value);
  ``surprise_chance_out_of_range``, ``modifier_out_of_range``, ``morale_out_of_range``,
  ``passes_out_of_range``, ``initiative_total_out_of_range``, ``duration_out_of_range``,
  ``round_out_of_range`` (name, value, low, high); ``ability_out_of_range`` (value, low,
  high); ``unknown_tie_rule``, ``unknown_step``, ``unknown_condition``,
  ``unknown_duration_unit``, ``unknown_helpless_rule`` (value); ``bad_condition_note``
  (value, limit), ``condition_note_required`` (condition); ``bad_morale_state`` (name,
  value); ``bad_combatant_id``, ``duplicate_combatant`` (value); ``too_many_combatants``,
  ``too_many_conditions``, ``too_many_monsters`` (count, limit); ``too_many_ties`` (limit);
  ``wrong_number_of_dice`` (expected, given); ``bad_hit_dice`` (value, from
  :func:`rules.ose.parse_hd`); ``bad_modifier`` (value); ``bad_argument`` (name, value,
  expected); and from :mod:`rules.core`: ``die_not_integer``, ``die_out_of_range``,
  ``no_random_source``.

Decisions where the rules leave something open
----------------------------------------------
* Surprise: ``surprised_on`` (0..6) is the highest d6 result that surprises, 2 by default;
  0 is "cannot be surprised", higher values suit a stealthy foe. The die is rolled even at 0
  or 6, so the log always shows it and the random stream does not depend on the chance.
  The party's die is rolled before the foes'.
* Group initiative: each side rolls d6 + its modifier (a whole number within ±100), the party
  first. Under :attr:`TieRule.REROLL` a tie is thrown again, both dice, from ``rng``; typed
  dice cover the first throw only. If typed dice tie and there is no ``rng`` the result's
  ``first`` is ``None`` (``needs_reroll``): the app asks for the next pair and calls again.
  A random source that ties :data:`MAX_INITIATIVE_THROWS` times in a row is refused
  (``too_many_ties``) rather than looped on forever.
* Individual initiative: DEX adds OSE's initiative column (3: −2, 4–8: −1, 9–12: 0, 13–17: +1,
  18: +2), not the attack column; a monster passes no DEX. Equal totals act at the same time
  and are grouped; within a group ids are sorted (numbers before text), so the order never
  depends on the order the caller listed them in. Combatant ids are whole numbers or text.
* Morale: the score is 2..12 and already includes any situational adjustment the referee
  makes. The dice are typed one per die (``naturals=[a, b]``, as every other multi-die entry
  in the engine), so the log can show both. Score 2 fails and 12 passes without a roll, and a
  side that has passed two checks fights to the death: none of these rolls, and dice typed
  for them are checked but not used.
* Morale occasions: after the side's first death, and when at least half of the side (its
  size at the start of the fight) is dead or unable to act; each at most once. When both
  arise at the same moment (one of two dies) one check answers both:
  :func:`record_morale_check` marks every occasion present when the check was made. A side
  that has failed a check has broken (fled or surrendered): no further checks are due; a side
  with nobody left alive has none either; a score of 12 never has one due.
* Conditions: a duration counts round ends, the round the condition began in included, so a
  1-round condition applied mid-round ends when that round ends (give 2 for "all of next
  round"). 1 turn = 60 rounds (10 minutes of 10-second rounds). No duration is indefinite:
  it lasts until the caller removes it. A condition's ``unit`` is kept only for display; the
  count is always in rounds. ``other`` needs its text (``note``), at most 200 characters.
  The same condition may be present twice (two spells), each with its own duration. Ticks
  keep the caller's order, for what remains and for what expired.
* Paralysed, asleep and held both stop a combatant acting and leave it helpless; the other
  conditions change nothing here (the referee applies their effects). Attacks on a helpless
  target follow the stored :class:`HelplessRule`: OSE's paralysis text (an automatic hit,
  damage rolled as usual) or its sleep text (slain outright; OSE says "by an edged weapon" —
  which weapon qualifies is the referee's call).
* The end of a round applies its steps (:data:`ROUND_END_STEPS`, today only conditions) in
  order, combatant by combatant in the order given, and records the round on each combatant
  (``ended_round``), so applying the same round's end twice changes nothing.
* Experience: the row of a Hit Dice string is found by ``rank``: under 1 HD (``½``, ``1-M``,
  a normal human) is 0, ``N`` is 2N − 1 and ``N+M`` or ``N+`` is 2N. A negative bonus on
  more than 1 HD counts as just below N, i.e. the row of (N − 1)+ (``2-1`` is a ``1+``
  monster), since such a monster has fewer hit points than a plain N-HD one. Each asterisk is
  one special ability.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import TypeVar

from .bounds import BOUNDS
from .core import (
    ABILITY_MAX,
    ABILITY_MIN,
    NUMBER_LIMIT,
    Modifier,
    RandomSource,
    bad_argument,
    chance,
    is_whole,
    items_of,
    modifiers_of,
    natural_roll,
    random_source,
    shown,
    total_of,
)
from .dice import DiceExpression, DiceTerm, distribution, roll
from .errors import RulesError
from .ose import HitDice, parse_hd

__all__ = [
    "DEFAULT_SURPRISED_ON",
    "HELPLESS",
    "MAX_COMBATANTS",
    "MAX_CONDITIONS",
    "MAX_DURATION_ROUNDS",
    "MAX_INITIATIVE_THROWS",
    "MAX_NOTE_LENGTH",
    "MAX_ROUNDS",
    "MAX_SIDE_SIZE",
    "MAX_SLAIN",
    "MORALE_MAX",
    "MORALE_MIN",
    "PREVENTS_ACTION",
    "ROUNDS_PER_TURN",
    "ROUND_END_STEPS",
    "TURN_STEPS",
    "XP_ROWS",
    "ActiveCondition",
    "CombatantState",
    "Condition",
    "ConditionTick",
    "DurationUnit",
    "GroupInitiative",
    "HelplessRule",
    "InitiativeGroup",
    "InitiativeOrder",
    "InitiativeRoll",
    "InitiativeThrow",
    "MonsterXp",
    "MoraleAutomatic",
    "MoraleCheck",
    "MoraleOutcome",
    "MoraleState",
    "MoraleTrigger",
    "RoundEffect",
    "RoundEffectKind",
    "RoundEnd",
    "RoundEndStep",
    "Side",
    "Step",
    "SurpriseOutcome",
    "SurpriseResult",
    "SurpriseRoll",
    "TieRule",
    "XpAward",
    "XpRow",
    "attack_on_helpless",
    "can_act",
    "check_morale",
    "dex_initiative_modifier",
    "end_round",
    "group_initiative_odds",
    "initiative_order",
    "is_helpless",
    "monster_xp",
    "morale_check_due",
    "morale_failure_odds",
    "new_condition",
    "next_step",
    "record_morale_check",
    "resolve_surprise",
    "roll_group_initiative",
    "roll_initiative",
    "roll_surprise",
    "slain_monsters_xp",
    "surprise_odds",
    "surprise_outcome",
    "surprise_outcome_odds",
    "tick_conditions",
    "who_acts_first",
]

#: Every roll in this module but morale is one six-sided die.
_D6 = 6
#: Surprised on 1–2 in 6 unless a rule says otherwise.
DEFAULT_SURPRISED_ON = 2
#: Re-rolled initiative ties give up after this many throws (a loaded source, not bad luck:
#: 100 ties in a row has a chance of 6^-100 with plain dice).
MAX_INITIATIVE_THROWS = 100
#: Bounds that keep every call's work small; past them an argument is a typing mistake.
MAX_COMBATANTS = 1000
MAX_CONDITIONS = 100
MAX_SLAIN = 1000
MAX_SIDE_SIZE = 10_000
MAX_ROUNDS = BOUNDS["round"].high
MAX_DURATION_ROUNDS = BOUNDS["rounds_left"].high
MAX_NOTE_LENGTH = 200
MORALE_MIN, MORALE_MAX = BOUNDS["morale"].low, BOUNDS["morale"].high
#: 1 turn is 10 minutes; a combat round is 10 seconds.
ROUNDS_PER_TURN = 60
# A d6 plus the largest modifier the engine accepts, either way.
_INITIATIVE_TOTAL_LOW, _INITIATIVE_TOTAL_HIGH = 1 - NUMBER_LIMIT, _D6 + NUMBER_LIMIT
_TWO_D6 = DiceExpression((DiceTerm(2, 6),), "2d6")

CombatantId = int | str


# ----- vocabularies -----


class Side(StrEnum):
    PARTY = "party"
    FOES = "foes"


class SurpriseOutcome(StrEnum):
    """Who loses the first round: nobody, one side, or both (then nothing happens in it)."""

    NEITHER = "neither"
    PARTY_SURPRISED = "party_surprised"
    FOES_SURPRISED = "foes_surprised"
    BOTH = "both"


class TieRule(StrEnum):
    """What a group-initiative tie means: both sides act at once, or the dice are thrown again."""

    SIMULTANEOUS = "simultaneous"
    REROLL = "reroll"


class InitiativeOrder(StrEnum):
    PARTY = "party"
    FOES = "foes"
    SIMULTANEOUS = "simultaneous"


class Step(StrEnum):
    """The steps of a side's turn, in the order they happen (:data:`TURN_STEPS`)."""

    MORALE = "morale"
    MOVEMENT = "movement"
    MISSILE = "missile"
    SPELLS = "spells"
    MELEE = "melee"


#: A side's turn: morale checks, then movement, missile attacks, spells, melee.
TURN_STEPS: tuple[Step, ...] = tuple(Step)


class MoraleTrigger(StrEnum):
    FIRST_DEATH = "first_death"
    HALF = "half"


class MoraleOutcome(StrEnum):
    STANDS = "stands"
    BREAKS = "breaks"  # flees or surrenders: the referee says which


class MoraleAutomatic(StrEnum):
    """Why a morale check was settled without a roll."""

    NEVER_FIGHTS = "never_fights"  # score 2
    NEVER_CHECKS = "never_checks"  # score 12
    FIGHTS_TO_DEATH = "fights_to_death"  # two checks already passed


class Condition(StrEnum):
    PARALYSED = "paralysed"
    ASLEEP = "asleep"
    HELD = "held"
    CHARMED = "charmed"
    BLINDED = "blinded"
    INVISIBLE = "invisible"
    STUNNED = "stunned"
    PRONE = "prone"
    FLEEING = "fleeing"
    OTHER = "other"
    KNOCKED_OUT = "knocked_out"  # BECMI striking: out for t rounds, like the asleep


class DurationUnit(StrEnum):
    ROUNDS = "rounds"
    TURNS = "turns"


class HelplessRule(StrEnum):
    """The two OSE readings of an attack on a helpless target, as a setting the app stores."""

    HIT_AUTOMATICALLY = "hit_automatically"
    SLAIN_OUTRIGHT = "slain_outright"


#: Conditions that stop a combatant acting.
PREVENTS_ACTION: frozenset[Condition] = frozenset(
    {Condition.PARALYSED, Condition.ASLEEP, Condition.HELD, Condition.KNOCKED_OUT}
)
#: Conditions that leave a combatant helpless against attacks.
HELPLESS: frozenset[Condition] = frozenset(
    {Condition.PARALYSED, Condition.ASLEEP, Condition.HELD, Condition.KNOCKED_OUT}
)


class RoundEndStep(StrEnum):
    CONDITIONS = "conditions"


#: What the end of a round does, in this order. Bleeding and death timers join as new steps.
ROUND_END_STEPS: tuple[RoundEndStep, ...] = (RoundEndStep.CONDITIONS,)


class RoundEffectKind(StrEnum):
    CONDITION_EXPIRED = "condition_expired"


# ----- validation helpers -----

_E = TypeVar("_E", bound=StrEnum)


def _member(enum: type[_E], value: object, code: str) -> _E:
    try:
        return enum(value)
    except ValueError:
        raise RulesError(code, f"no {enum.__name__} {shown(value)}", value=value) from None


def _whole(name: str, value: object, code: str, low: int, high: int) -> int:
    if not is_whole(value):
        raise RulesError("not_an_integer", f"{name} must be a whole number", name=name, value=value)
    if not low <= value <= high:  # type: ignore[operator]
        raise RulesError(
            code,
            f"{name} must be {low} to {high}, not {shown(value)}",
            name=name,
            value=value,
            low=low,
            high=high,
        )
    return value  # type: ignore[return-value]


def _surprised_on(name: str, value: object) -> int:
    return _whole(name, value, "surprise_chance_out_of_range", 0, _D6)


def _modifier(name: str, value: object) -> int:
    return _whole(name, value, "modifier_out_of_range", -NUMBER_LIMIT, NUMBER_LIMIT)


def _score(value: object) -> int:
    return _whole("score", value, "morale_out_of_range", MORALE_MIN, MORALE_MAX)


def _flag(name: str, value: object, code: str) -> bool:
    if not isinstance(value, bool):
        raise RulesError(
            code, f"{name} must be true or false, not {shown(value)}", name=name, value=value
        )
    return value


def _items(name: str, value: object, limit: int, code: str, expected: str) -> tuple[object, ...]:
    """The items of a list-like argument, refusing text, mappings and lone objects
    (``bad_argument``) and more than ``limit`` items (``code``)."""
    items = items_of(value, limit)
    if items is None:
        raise bad_argument(name, value, expected)
    if len(items) > limit:
        raise RulesError(code, f"at most {limit} {name}", count=len(items), limit=limit)
    return items


def _combatant_id(value: object) -> CombatantId:
    if not (is_whole(value) or (isinstance(value, str) and value)):
        raise RulesError(
            "bad_combatant_id",
            f"a combatant id is a whole number or text, not {shown(value)}",
            value=value,
        )
    return value  # type: ignore[return-value]


def _id_key(value: CombatantId) -> tuple[int, int | str]:
    """Sorts numbers before text so that mixed ids still have one order."""
    return (0, value) if isinstance(value, int) else (1, value)


# ----- surprise -----


def surprise_odds(surprised_on: int = DEFAULT_SURPRISED_ON) -> Fraction:
    """Exact chance that a side is surprised: ``surprised_on`` in 6 (1/3 by default)."""
    surprised_on = _surprised_on("surprised_on", surprised_on)
    return chance(_D6, lambda n: n <= surprised_on)


@dataclass(frozen=True)
class SurpriseRoll:
    """One side's surprise die: surprised when ``natural <= surprised_on``."""

    natural: int
    surprised_on: int
    surprised: bool


def roll_surprise(
    *,
    surprised_on: int = DEFAULT_SURPRISED_ON,
    rng: RandomSource | None = None,
    natural: int | None = None,
) -> SurpriseRoll:
    """Roll (or take the typed ``natural``) one side's surprise d6."""
    surprised_on = _surprised_on("surprised_on", surprised_on)
    random_source(rng)
    n = natural_roll(_D6, rng, natural)
    return SurpriseRoll(n, surprised_on, n <= surprised_on)


def surprise_outcome(party_surprised: bool, foes_surprised: bool) -> SurpriseOutcome:
    """Who loses the first round, from whether each side is surprised."""
    for name, value in (("party_surprised", party_surprised), ("foes_surprised", foes_surprised)):
        if not isinstance(value, bool):
            raise bad_argument(name, value, "true or false")
    party, foes = party_surprised, foes_surprised
    if party and foes:
        return SurpriseOutcome.BOTH
    if party:
        return SurpriseOutcome.PARTY_SURPRISED
    if foes:
        return SurpriseOutcome.FOES_SURPRISED
    return SurpriseOutcome.NEITHER


@dataclass(frozen=True)
class SurpriseResult:
    """Both sides' surprise dice and what they mean for the first round."""

    party: SurpriseRoll
    foes: SurpriseRoll
    outcome: SurpriseOutcome

    @property
    def surprised(self) -> tuple[Side, ...]:
        """The sides that lose the first round, party first."""
        return tuple(
            side for side, r in ((Side.PARTY, self.party), (Side.FOES, self.foes)) if r.surprised
        )

    @property
    def acting_in_first_round(self) -> tuple[Side, ...]:
        """The sides that may act in the first round (none when both are surprised)."""
        return tuple(side for side in Side if side not in self.surprised)

    @property
    def nothing_happens(self) -> bool:
        """Both sides surprised: the first round passes without action."""
        return self.outcome is SurpriseOutcome.BOTH


def resolve_surprise(
    *,
    party_surprised_on: int = DEFAULT_SURPRISED_ON,
    foes_surprised_on: int = DEFAULT_SURPRISED_ON,
    rng: RandomSource | None = None,
    party_natural: int | None = None,
    foes_natural: int | None = None,
) -> SurpriseResult:
    """Roll surprise for both sides (the party's die first), each die typed or rolled."""
    party_on = _surprised_on("party_surprised_on", party_surprised_on)
    foes_on = _surprised_on("foes_surprised_on", foes_surprised_on)
    random_source(rng)
    if party_natural is not None:  # check both typed dice before rolling either
        natural_roll(_D6, None, party_natural)
    if foes_natural is not None:
        natural_roll(_D6, None, foes_natural)
    party = roll_surprise(surprised_on=party_on, rng=rng, natural=party_natural)
    foes = roll_surprise(surprised_on=foes_on, rng=rng, natural=foes_natural)
    return SurpriseResult(party, foes, surprise_outcome(party.surprised, foes.surprised))


def surprise_outcome_odds(
    party_surprised_on: int = DEFAULT_SURPRISED_ON, foes_surprised_on: int = DEFAULT_SURPRISED_ON
) -> dict[SurpriseOutcome, Fraction]:
    """Exact chance of each surprise outcome (the two dice are independent): by default
    neither 4/9, one side 2/9 each, both 1/9."""
    party = surprise_odds(_surprised_on("party_surprised_on", party_surprised_on))
    foes = surprise_odds(_surprised_on("foes_surprised_on", foes_surprised_on))
    return {
        SurpriseOutcome.NEITHER: (1 - party) * (1 - foes),
        SurpriseOutcome.PARTY_SURPRISED: party * (1 - foes),
        SurpriseOutcome.FOES_SURPRISED: (1 - party) * foes,
        SurpriseOutcome.BOTH: party * foes,
    }


# ----- group initiative -----


def _tie_rule(value: object) -> TieRule:
    return _member(TieRule, value, "unknown_tie_rule")


def _initiative_total(name: str, value: object) -> int:
    return _whole(
        name, value, "initiative_total_out_of_range", _INITIATIVE_TOTAL_LOW, _INITIATIVE_TOTAL_HIGH
    )


def who_acts_first(party_total: int, foes_total: int) -> InitiativeOrder:
    """The higher initiative total acts first; equal totals act at the same time (under
    :attr:`TieRule.REROLL` the caller throws again instead)."""
    party = _initiative_total("party_total", party_total)
    foes = _initiative_total("foes_total", foes_total)
    if party > foes:
        return InitiativeOrder.PARTY
    if foes > party:
        return InitiativeOrder.FOES
    return InitiativeOrder.SIMULTANEOUS


@dataclass(frozen=True)
class InitiativeThrow:
    """One throw of both sides' initiative dice, with each side's modifier added."""

    party_natural: int
    foes_natural: int
    party_total: int
    foes_total: int

    @property
    def tied(self) -> bool:
        return self.party_total == self.foes_total


@dataclass(frozen=True)
class GroupInitiative:
    """Group initiative: every throw made (more than one when ties were re-rolled) and who
    acts first. ``first`` is ``None`` only under re-roll when typed dice tied and no random
    source was given to throw again (``needs_reroll``)."""

    party_modifier: int
    foes_modifier: int
    tie_rule: TieRule
    throws: tuple[InitiativeThrow, ...]
    first: InitiativeOrder | None

    @property
    def needs_reroll(self) -> bool:
        return self.first is None

    @property
    def last(self) -> InitiativeThrow:
        """The throw that decided (or the tie awaiting the next pair of dice)."""
        return self.throws[-1]


def roll_group_initiative(
    *,
    party_modifier: int = 0,
    foes_modifier: int = 0,
    tie_rule: TieRule | str = TieRule.SIMULTANEOUS,
    rng: RandomSource | None = None,
    party_natural: int | None = None,
    foes_natural: int | None = None,
) -> GroupInitiative:
    """Roll group initiative: each side d6 + its modifier (the party's die first), the higher
    acting first. Typed dice make the first throw; re-rolled ties come from ``rng`` (see the
    module docstring)."""
    party_mod = _modifier("party_modifier", party_modifier)
    foes_mod = _modifier("foes_modifier", foes_modifier)
    rule = _tie_rule(tie_rule)
    random_source(rng)
    if party_natural is not None:  # check both typed dice before rolling either
        natural_roll(_D6, None, party_natural)
    if foes_natural is not None:
        natural_roll(_D6, None, foes_natural)
    throws: list[InitiativeThrow] = []
    party_typed, foes_typed = party_natural, foes_natural
    while True:
        p = natural_roll(_D6, rng, party_typed)
        f = natural_roll(_D6, rng, foes_typed)
        party_typed = foes_typed = None
        throw = InitiativeThrow(p, f, p + party_mod, f + foes_mod)
        throws.append(throw)
        if not throw.tied or rule is TieRule.SIMULTANEOUS:
            first: InitiativeOrder | None = who_acts_first(throw.party_total, throw.foes_total)
            break
        if rng is None:
            first = None
            break
        if len(throws) >= MAX_INITIATIVE_THROWS:
            raise RulesError(
                "too_many_ties",
                f"the random source tied {MAX_INITIATIVE_THROWS} times in a row",
                limit=MAX_INITIATIVE_THROWS,
            )
    return GroupInitiative(party_mod, foes_mod, rule, tuple(throws), first)


def group_initiative_odds(
    party_modifier: int = 0,
    foes_modifier: int = 0,
    tie_rule: TieRule | str = TieRule.SIMULTANEOUS,
) -> dict[InitiativeOrder, Fraction]:
    """Exact chance of each initiative outcome, every key present: with no modifiers the
    party acts first 15/36, the foes 15/36, together 6/36; re-rolling ties makes it 1/2 each
    (a tie only delays the answer). The same sum works for two individuals (d6 + modifier
    each), the "party" being the first of them."""
    party_mod = _modifier("party_modifier", party_modifier)
    foes_mod = _modifier("foes_modifier", foes_modifier)
    rule = _tie_rule(tie_rule)
    counts = dict.fromkeys(InitiativeOrder, 0)
    for p in range(1, _D6 + 1):
        for f in range(1, _D6 + 1):
            counts[who_acts_first(p + party_mod, f + foes_mod)] += 1
    if rule is TieRule.REROLL:
        decided = counts[InitiativeOrder.PARTY] + counts[InitiativeOrder.FOES]
        return {
            InitiativeOrder.PARTY: Fraction(counts[InitiativeOrder.PARTY], decided),
            InitiativeOrder.FOES: Fraction(counts[InitiativeOrder.FOES], decided),
            InitiativeOrder.SIMULTANEOUS: Fraction(0),
        }
    return {order: Fraction(n, _D6 * _D6) for order, n in counts.items()}


# ----- individual initiative -----

# OSE's DEX initiative column: (highest score, modifier).
_DEX_INITIATIVE = ((3, -2), (8, -1), (12, 0), (17, 1), (18, 2))


def dex_initiative_modifier(dexterity: int) -> int:
    """OSE's DEX modifier to individual initiative (its own column, not the attack one):
    3 → −2, 4–8 → −1, 9–12 → 0, 13–17 → +1, 18 → +2."""
    if not is_whole(dexterity) or not ABILITY_MIN <= dexterity <= ABILITY_MAX:
        raise RulesError(
            "ability_out_of_range",
            f"an ability score is {ABILITY_MIN} to {ABILITY_MAX}, not {shown(dexterity)}",
            value=dexterity,
            low=ABILITY_MIN,
            high=ABILITY_MAX,
        )
    return next(mod for top, mod in _DEX_INITIATIVE if dexterity <= top)


@dataclass(frozen=True)
class InitiativeRoll:
    """One combatant's individual initiative: the d6, its modifiers (DEX first, reason
    ``dex``; none for a monster) and the total."""

    natural: int
    modifiers: tuple[Modifier, ...]
    total: int


def roll_initiative(
    *,
    dexterity: int | None = None,
    modifiers: Sequence[Modifier] = (),
    rng: RandomSource | None = None,
    natural: int | None = None,
) -> InitiativeRoll:
    """Roll (or take the typed ``natural``) one combatant's individual initiative: d6 + the
    DEX initiative modifier (no ``dexterity`` for a monster) + any ``modifiers``. Modifiers of
    0 are left out, so the log lists only what changed the roll."""
    dex = () if dexterity is None else (Modifier(dex_initiative_modifier(dexterity), "dex"),)
    mods = tuple(m for m in (*dex, *modifiers_of(modifiers)) if m.value)
    extra = total_of(mods)
    if not -NUMBER_LIMIT <= extra <= NUMBER_LIMIT:
        raise RulesError(
            "modifier_out_of_range",
            f"initiative modifiers add up to {-NUMBER_LIMIT}..{NUMBER_LIMIT}, not {shown(extra)}",
            name="modifiers",
            value=extra,
            low=-NUMBER_LIMIT,
            high=NUMBER_LIMIT,
        )
    random_source(rng)
    n = natural_roll(_D6, rng, natural)
    return InitiativeRoll(n, mods, n + extra)


@dataclass(frozen=True)
class InitiativeGroup:
    """Combatants who act together: the same initiative total, ids in sorted order."""

    total: int
    ids: tuple[CombatantId, ...]


def initiative_order(
    totals: Iterable[tuple[CombatantId, int]] | Mapping[CombatantId, int],
) -> tuple[InitiativeGroup, ...]:
    """The acting order from ``(id, total)`` pairs (or a mapping of id to total): highest
    total first, equal totals grouped to act at the same time, ids sorted within a group
    (numbers before text) so that the order is the same however the pairs were listed."""
    pairs = totals.items() if isinstance(totals, Mapping) else totals
    items = _items(
        "combatants", pairs, MAX_COMBATANTS, "too_many_combatants", "a list of (id, total) pairs"
    )
    by_total: dict[int, list[CombatantId]] = {}
    seen: set[tuple[int, int | str]] = set()
    for item in items:
        if not isinstance(item, tuple | list) or len(item) != 2:
            raise bad_argument("combatant", item, "an (id, total) pair")
        cid, total = _combatant_id(item[0]), _initiative_total("total", item[1])
        key = _id_key(cid)
        if key in seen:
            raise RulesError("duplicate_combatant", f"{shown(cid)} is listed twice", value=cid)
        seen.add(key)
        by_total.setdefault(total, []).append(cid)
    return tuple(
        InitiativeGroup(total, tuple(sorted(by_total[total], key=_id_key)))
        for total in sorted(by_total, reverse=True)
    )


# ----- a side's turn -----


def next_step(step: Step | str | None = None) -> Step | None:
    """The step after ``step`` in a side's turn (the first with ``None``; ``None`` after
    melee, the last)."""
    if step is None:
        return TURN_STEPS[0]
    index = TURN_STEPS.index(_member(Step, step, "unknown_step"))
    return TURN_STEPS[index + 1] if index + 1 < len(TURN_STEPS) else None


# ----- morale -----


def morale_failure_odds(score: int) -> Fraction:
    """Exact chance that a morale check fails: P(2d6 > score), except that a score of 2
    always fails (1) and 12 never does (0), neither rolling."""
    score = _score(score)
    if score == MORALE_MIN:
        return Fraction(1)
    return distribution(_TWO_D6).at_least(score + 1)


@dataclass(frozen=True)
class MoraleCheck:
    """One morale check: 2d6 (``naturals``, ``total``) against ``score``, passed unless the
    total is above it. ``automatic`` says why no dice were rolled (then ``naturals`` is empty
    and ``total`` None). ``fights_to_death_now``: this is the side's second passed check, so
    it checks no more."""

    score: int
    naturals: tuple[int, ...]
    total: int | None
    passed: bool
    automatic: MoraleAutomatic | None
    passes_before: int
    fights_to_death_now: bool

    @property
    def outcome(self) -> MoraleOutcome:
        return MoraleOutcome.STANDS if self.passed else MoraleOutcome.BREAKS

    @property
    def fights_to_death(self) -> bool:
        """Whether the side fights to the death from now on."""
        return self.passed and self.passes_before + 1 >= 2


def check_morale(
    score: int,
    *,
    passes_before: int = 0,
    rng: RandomSource | None = None,
    naturals: Sequence[int] | None = None,
) -> MoraleCheck:
    """Check a side's morale: roll 2d6 (or take the two typed ``naturals``); above ``score``
    fails (the side flees or surrenders). Score 2 fails and 12 passes without a roll, and a
    side that has passed two checks (``passes_before`` ≥ 2) fights to the death without one."""
    score = _score(score)
    passes_before = _whole("passes_before", passes_before, "passes_out_of_range", 0, MAX_SIDE_SIZE)
    random_source(rng)
    automatic = None
    if passes_before >= 2:
        automatic = MoraleAutomatic.FIGHTS_TO_DEATH
    elif score == MORALE_MIN:
        automatic = MoraleAutomatic.NEVER_FIGHTS
    elif score == MORALE_MAX:
        automatic = MoraleAutomatic.NEVER_CHECKS
    if automatic is not None:
        if naturals is not None:
            roll(_TWO_D6, entered=naturals)  # typed dice are still checked, then set aside
        passed = automatic is not MoraleAutomatic.NEVER_FIGHTS
        return MoraleCheck(
            score=score,
            naturals=(),
            total=None,
            passed=passed,
            automatic=automatic,
            passes_before=passes_before,
            fights_to_death_now=passed and passes_before == 1,
        )
    rolled = roll(_TWO_D6, rng=rng, entered=naturals)
    passed = rolled.total <= score
    return MoraleCheck(
        score=score,
        naturals=rolled.naturals,
        total=rolled.total,
        passed=passed,
        automatic=None,
        passes_before=passes_before,
        fights_to_death_now=passed and passes_before == 1,
    )


@dataclass(frozen=True)
class MoraleState:
    """A side's morale bookkeeping, stored by the app between checks.

    ``count`` is the side's size when the fight began; ``dead`` and ``unable`` (alive but
    unable to act) are counted from it; ``checks`` made and ``passed``; and which occasions
    have been checked."""

    count: int
    dead: int = 0
    unable: int = 0
    checks: int = 0
    passed: int = 0
    first_death_checked: bool = False
    half_checked: bool = False

    def __post_init__(self) -> None:
        _state_number("count", self.count, 1, MAX_SIDE_SIZE)
        _state_number("dead", self.dead, 0, self.count)
        _state_number("unable", self.unable, 0, self.count - self.dead)
        _state_number("checks", self.checks, 0, MAX_SIDE_SIZE)
        _state_number("passed", self.passed, 0, self.checks)
        _flag("first_death_checked", self.first_death_checked, "bad_morale_state")
        _flag("half_checked", self.half_checked, "bad_morale_state")

    @property
    def broken(self) -> bool:
        """A check has failed: the side has fled or surrendered."""
        return self.checks > self.passed

    @property
    def fights_to_death(self) -> bool:
        return self.passed >= 2

    @property
    def half_down(self) -> bool:
        """At least half the side is dead or unable to act."""
        return 2 * (self.dead + self.unable) >= self.count


def _state_number(name: str, value: object, low: int, high: int) -> None:
    if not is_whole(value) or not low <= value <= high:  # type: ignore[operator]
        raise RulesError(
            "bad_morale_state",
            f"{name} must be a whole number {low} to {high}, not {shown(value)}",
            name=name,
            value=value,
        )


def _morale_state(state: object) -> MoraleState:
    if not isinstance(state, MoraleState):
        raise bad_argument("state", state, "a MoraleState")
    return state


def _occasions(state: MoraleState) -> tuple[MoraleTrigger, ...]:
    """The occasions present and not yet checked, in the order they arise."""
    found = []
    if state.dead >= 1 and not state.first_death_checked:
        found.append(MoraleTrigger.FIRST_DEATH)
    if state.half_down and not state.half_checked:
        found.append(MoraleTrigger.HALF)
    return tuple(found)


def morale_check_due(state: MoraleState, score: int | None = None) -> MoraleTrigger | None:
    """Which morale check is due now: ``first_death`` after the side's first death, ``half``
    once half of it is dead or unable to act, each once; ``None`` when neither is pending, the
    side has broken, fights to the death, has nobody alive, or has a ``score`` of 12."""
    state = _morale_state(state)
    if score is not None and _score(score) == MORALE_MAX:
        return None
    if state.broken or state.fights_to_death or state.dead >= state.count:
        return None
    occasions = _occasions(state)
    return occasions[0] if occasions else None


def record_morale_check(state: MoraleState, check: MoraleCheck) -> MoraleState:
    """The side's state after ``check``: counted (unless it was settled because the side
    already fights to the death), and every occasion present marked as checked, so that a
    first death that also brings the side to half is answered by one check."""
    state = _morale_state(state)
    if not isinstance(check, MoraleCheck):
        raise bad_argument("check", check, "a MoraleCheck")
    counts = check.automatic is not MoraleAutomatic.FIGHTS_TO_DEATH
    return MoraleState(
        count=state.count,
        dead=state.dead,
        unable=state.unable,
        checks=min(MAX_SIDE_SIZE, state.checks + counts),
        passed=min(MAX_SIDE_SIZE, state.passed + int(counts and check.passed)),
        first_death_checked=state.first_death_checked or state.dead >= 1,
        half_checked=state.half_checked or state.half_down,
    )


# ----- conditions -----


@dataclass(frozen=True)
class ActiveCondition:
    """A condition on a combatant. ``rounds_left`` counts the round ends still to come before
    it ends (``None``: indefinite, until removed); ``unit`` is how its duration was given, for
    display only; ``note`` the user's own text (required for ``other``)."""

    condition: Condition
    rounds_left: int | None = None
    unit: DurationUnit = DurationUnit.ROUNDS
    note: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "condition", _member(Condition, self.condition, "unknown_condition")
        )
        object.__setattr__(self, "unit", _member(DurationUnit, self.unit, "unknown_duration_unit"))
        if self.rounds_left is not None:
            _whole("rounds_left", self.rounds_left, "duration_out_of_range", 0, MAX_DURATION_ROUNDS)
        if not isinstance(self.note, str) or len(self.note) > MAX_NOTE_LENGTH:
            raise RulesError(
                "bad_condition_note",
                f"a note is text of at most {MAX_NOTE_LENGTH} characters, not {shown(self.note)}",
                value=self.note,
                limit=MAX_NOTE_LENGTH,
            )
        if self.condition is Condition.OTHER and not self.note.strip():
            raise RulesError(
                "condition_note_required", "say what the other condition is", condition="other"
            )

    @property
    def indefinite(self) -> bool:
        return self.rounds_left is None

    @property
    def left_in_unit(self) -> int | None:
        """What is left in the unit the duration was given in, rounded up (2 turns less one
        round still shows as 2 turns)."""
        if self.rounds_left is None or self.unit is DurationUnit.ROUNDS:
            return self.rounds_left
        return -(-self.rounds_left // ROUNDS_PER_TURN)


def new_condition(
    condition: Condition | str,
    duration: int | None = None,
    unit: DurationUnit | str = DurationUnit.ROUNDS,
    note: str = "",
) -> ActiveCondition:
    """A condition lasting ``duration`` rounds or turns (1 turn = 60 rounds), or indefinitely
    without one."""
    unit = _member(DurationUnit, unit, "unknown_duration_unit")
    rounds = None
    if duration is not None:
        per = ROUNDS_PER_TURN if unit is DurationUnit.TURNS else 1
        rounds = per * _whole(
            "duration", duration, "duration_out_of_range", 1, MAX_DURATION_ROUNDS // per
        )
    return ActiveCondition(condition, rounds, unit, note)  # type: ignore[arg-type]


def _conditions(conditions: object) -> tuple[ActiveCondition, ...]:
    items = _items(
        "conditions", conditions, MAX_CONDITIONS, "too_many_conditions", "a list of conditions"
    )
    for item in items:
        if not isinstance(item, ActiveCondition):
            raise bad_argument("condition", item, "an ActiveCondition")
    return items  # type: ignore[return-value]


@dataclass(frozen=True)
class ConditionTick:
    """Conditions after one round end: those that go on (one round fewer) and those that
    just ended (shown with 0 rounds left), each in the order given."""

    remaining: tuple[ActiveCondition, ...]
    expired: tuple[ActiveCondition, ...]


def tick_conditions(conditions: Sequence[ActiveCondition]) -> ConditionTick:
    """Count one round end off every timed condition; those reaching 0 expire. Indefinite
    conditions stay as they are; a count never goes below 0."""
    remaining: list[ActiveCondition] = []
    expired: list[ActiveCondition] = []
    for c in _conditions(conditions):
        if c.rounds_left is None:
            remaining.append(c)
            continue
        left = max(0, c.rounds_left - 1)
        ticked = ActiveCondition(c.condition, left, c.unit, c.note)
        (remaining if left else expired).append(ticked)
    return ConditionTick(tuple(remaining), tuple(expired))


def can_act(conditions: Sequence[ActiveCondition]) -> bool:
    """Whether none of the conditions (paralysed, asleep, held) stops the combatant acting."""
    return not any(c.condition in PREVENTS_ACTION for c in _conditions(conditions))


def is_helpless(conditions: Sequence[ActiveCondition]) -> bool:
    """Whether a condition (paralysed, asleep, held) leaves the combatant helpless."""
    return any(c.condition in HELPLESS for c in _conditions(conditions))


def attack_on_helpless(
    conditions: Sequence[ActiveCondition],
    rule: HelplessRule | str = HelplessRule.HIT_AUTOMATICALLY,
) -> HelplessRule | None:
    """What an attack on a target with these conditions does without an attack roll: the
    table's ``rule`` when the target is helpless, ``None`` (roll as usual) otherwise."""
    rule = _member(HelplessRule, rule, "unknown_helpless_rule")
    return rule if is_helpless(conditions) else None


# ----- the end of a round -----


@dataclass(frozen=True)
class CombatantState:
    """What the end of a round changes on a combatant: its conditions, and the last round
    whose end was applied to it (0: none yet), which makes applying a round end idempotent.
    Bleeding and death timers are to join here."""

    id: CombatantId
    conditions: tuple[ActiveCondition, ...] = ()
    ended_round: int = 0

    def __post_init__(self) -> None:
        _combatant_id(self.id)
        object.__setattr__(self, "conditions", _conditions(self.conditions))
        _whole("ended_round", self.ended_round, "round_out_of_range", 0, MAX_ROUNDS)


@dataclass(frozen=True)
class RoundEffect:
    """One thing the end of a round did, for the log: its step and kind, the combatant, and
    (for conditions) the condition concerned."""

    step: RoundEndStep
    kind: RoundEffectKind
    combatant: CombatantId
    condition: ActiveCondition | None = None


@dataclass(frozen=True)
class RoundEnd:
    """The combatants after round ``round_number`` ended, in the order given, and the
    effects in the order they were applied."""

    round_number: int
    combatants: tuple[CombatantState, ...]
    effects: tuple[RoundEffect, ...]


def end_round(combatants: Sequence[CombatantState], round_number: int) -> RoundEnd:
    """Apply the end of round ``round_number``: each step of :data:`ROUND_END_STEPS` in turn
    over every combatant in the order given. A combatant whose ``ended_round`` is already
    ``round_number`` or later is left alone, so a repeated request changes nothing."""
    round_number = _whole("round_number", round_number, "round_out_of_range", 1, MAX_ROUNDS)
    items = _items(
        "combatants", combatants, MAX_COMBATANTS, "too_many_combatants", "a list of combatants"
    )
    seen: set[tuple[int, int | str]] = set()
    for item in items:
        if not isinstance(item, CombatantState):
            raise bad_argument("combatant", item, "a CombatantState")
        key = _id_key(item.id)
        if key in seen:
            raise RulesError(
                "duplicate_combatant", f"{shown(item.id)} is listed twice", value=item.id
            )
        seen.add(key)
    states: list[CombatantState] = list(items)  # type: ignore[arg-type]
    due = [s.ended_round < round_number for s in states]
    effects: list[RoundEffect] = []
    for step in ROUND_END_STEPS:
        if step is RoundEndStep.CONDITIONS:
            for i, state in enumerate(states):
                if not due[i]:
                    continue
                tick = tick_conditions(state.conditions)
                states[i] = CombatantState(state.id, tick.remaining, state.ended_round)
                effects.extend(
                    RoundEffect(step, RoundEffectKind.CONDITION_EXPIRED, state.id, c)
                    for c in tick.expired
                )
    finished = tuple(
        CombatantState(s.id, s.conditions, round_number) if due[i] else s
        for i, s in enumerate(states)
    )
    return RoundEnd(round_number, finished, tuple(effects))


# ----- experience -----


@dataclass(frozen=True)
class XpRow:
    """A row of OSE's experience table: the Hit Dice it covers (``label``, HD notation), the
    base award and the bonus per special ability (asterisk)."""

    label: str
    base: int
    per_special: int


# (highest rank in the row or None for the last, row); rank: under 1 HD 0, N 2N−1, N+ 2N.
_XP_TABLE: tuple[tuple[int | None, XpRow], ...] = (
    (0, XpRow("<1", 5, 1)),
    (1, XpRow("1", 10, 3)),
    (2, XpRow("1+", 15, 4)),
    (3, XpRow("2", 20, 5)),
    (4, XpRow("2+", 25, 10)),
    (5, XpRow("3", 35, 15)),
    (6, XpRow("3+", 50, 25)),
    (7, XpRow("4", 75, 50)),
    (8, XpRow("4+", 125, 75)),
    (9, XpRow("5", 175, 125)),
    (10, XpRow("5+", 225, 175)),
    (11, XpRow("6", 275, 225)),
    (12, XpRow("6+", 350, 300)),
    (14, XpRow("7–7+", 450, 400)),
    (16, XpRow("8–8+", 650, 550)),
    (20, XpRow("9–10+", 900, 700)),
    (24, XpRow("11–12+", 1100, 800)),
    (32, XpRow("13–16+", 1350, 950)),
    (40, XpRow("17–20+", 2000, 1150)),
    (None, XpRow("21+", 2500, 2000)),
)
#: OSE's experience table for slain monsters, fewest Hit Dice first.
XP_ROWS: tuple[XpRow, ...] = tuple(row for _, row in _XP_TABLE)


def _xp_rank(hd: HitDice) -> int:
    """Where Hit Dice fall in the experience table (see the module docstring)."""
    if hd.normal_human or hd.dice < 1 or (hd.dice == 1 and hd.bonus < 0):
        return 0
    dice = int(hd.dice)
    if hd.bonus < 0:
        return 2 * (dice - 1)  # just below N: the row of (N - 1)+
    return 2 * dice if hd.bonus > 0 or hd.open_bonus else 2 * dice - 1


@dataclass(frozen=True)
class MonsterXp:
    """The experience for one slain monster: its Hit Dice, the table row, the special
    abilities counted (asterisks) and the award."""

    hd: HitDice
    row: XpRow
    specials: int
    total: int

    @property
    def base(self) -> int:
        return self.row.base

    @property
    def bonus(self) -> int:
        return self.specials * self.row.per_special


def monster_xp(hd: str) -> MonsterXp:
    """The experience for slaying a monster of Hit Dice ``hd`` (``"1-1"``, ``"2+1"``,
    ``"4*"``, ``"5**"``, ``"½"``, ``"normal human"`` …): the row's base plus its bonus for
    each asterisk."""
    parsed = parse_hd(hd)
    rank = _xp_rank(parsed)
    row = next(r for top, r in _XP_TABLE if top is None or rank <= top)
    specials = parsed.asterisks
    return MonsterXp(parsed, row, specials, row.base + specials * row.per_special)


@dataclass(frozen=True)
class XpAward:
    """The experience for a list of slain monsters: each one's award, in order, and the sum
    (to be shared among the party by the caller)."""

    monsters: tuple[MonsterXp, ...]
    total: int


def slain_monsters_xp(hds: Iterable[str]) -> XpAward:
    """The experience for every monster slain, one Hit Dice string per monster (a band of
    six goblins is six ``"1-1"``)."""
    items = _items("monsters", hds, MAX_SLAIN, "too_many_monsters", "a list of Hit Dice")
    monsters = tuple(monster_xp(hd) for hd in items)  # type: ignore[arg-type]
    return XpAward(monsters, sum(m.total for m in monsters))
