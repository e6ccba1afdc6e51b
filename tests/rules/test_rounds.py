"""The OSE combat round: surprise, initiative, turn order, morale, conditions, the end of a
round and experience, as tables of cases and as properties over every die."""

from __future__ import annotations

import inspect
import random
from dataclasses import replace
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import rounds
from rules.core import Modifier
from rules.errors import RulesError
from rules.rounds import (
    ActiveCondition,
    CombatantState,
    Condition,
    DurationUnit,
    HelplessRule,
    InitiativeGroup,
    InitiativeOrder,
    MoraleAutomatic,
    MoraleOutcome,
    MoraleState,
    MoraleTrigger,
    RoundEffect,
    RoundEffectKind,
    RoundEndStep,
    Side,
    Step,
    SurpriseOutcome,
    TieRule,
)

D6 = range(1, 7)


class Scripted:
    """A random source that answers the given numbers in turn: the server "rolling" a chosen
    number, to compare with the same number typed in."""

    def __init__(self, *numbers: int) -> None:
        self.numbers = list(numbers)

    def randint(self, a: int, b: int) -> int:
        return self.numbers.pop(0)


def _code(call) -> str:
    with pytest.raises(RulesError) as caught:
        call()
    str(caught.value)  # the message prints, whatever the value
    return caught.value.code


# ----- surprise -----


def test_a_side_is_surprised_one_time_in_three():
    assert rounds.surprise_odds() == Fraction(1, 3)


@pytest.mark.parametrize("surprised_on", range(0, 7))
def test_the_surprise_chance_is_x_in_6(surprised_on):
    assert rounds.surprise_odds(surprised_on) == Fraction(surprised_on, 6)


@pytest.mark.parametrize(("natural", "surprised"), [(n, n <= 2) for n in D6])
def test_a_1_or_2_on_the_d6_surprises(natural, surprised):
    result = rounds.roll_surprise(natural=natural)
    assert (result.natural, result.surprised_on, result.surprised) == (natural, 2, surprised)


@pytest.mark.parametrize(
    ("party", "foes", "outcome"),
    [
        (False, False, SurpriseOutcome.NEITHER),
        (True, False, SurpriseOutcome.PARTY_SURPRISED),
        (False, True, SurpriseOutcome.FOES_SURPRISED),
        (True, True, SurpriseOutcome.BOTH),
    ],
)
def test_the_surprise_outcome_says_who_loses_the_first_round(party, foes, outcome):
    assert rounds.surprise_outcome(party, foes) is outcome


@pytest.mark.parametrize(
    ("party", "foes", "outcome", "surprised", "acting"),
    [
        (1, 1, SurpriseOutcome.BOTH, (Side.PARTY, Side.FOES), ()),
        (2, 3, SurpriseOutcome.PARTY_SURPRISED, (Side.PARTY,), (Side.FOES,)),
        (6, 2, SurpriseOutcome.FOES_SURPRISED, (Side.FOES,), (Side.PARTY,)),
        (3, 3, SurpriseOutcome.NEITHER, (), (Side.PARTY, Side.FOES)),
        (6, 6, SurpriseOutcome.NEITHER, (), (Side.PARTY, Side.FOES)),
    ],
)
def test_surprise_for_two_sides(party, foes, outcome, surprised, acting):
    result = rounds.resolve_surprise(party_natural=party, foes_natural=foes)
    assert result.outcome is outcome
    assert result.surprised == surprised
    assert result.acting_in_first_round == acting
    assert result.nothing_happens is (outcome is SurpriseOutcome.BOTH)
    assert (result.party.natural, result.foes.natural) == (party, foes)


def test_a_stealthy_foe_surprises_more_often_and_an_alert_side_never():
    result = rounds.resolve_surprise(
        party_surprised_on=4, foes_surprised_on=0, party_natural=4, foes_natural=1
    )
    assert result.outcome is SurpriseOutcome.PARTY_SURPRISED


def test_the_partys_surprise_die_is_rolled_first():
    result = rounds.resolve_surprise(rng=Scripted(1, 5))
    assert (result.party.natural, result.foes.natural) == (1, 5)
    typed_party = rounds.resolve_surprise(rng=Scripted(5), party_natural=1)
    assert typed_party == result


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"natural": 0}, "die_out_of_range"),
        ({"natural": 7}, "die_out_of_range"),
        ({"natural": 2.0}, "die_not_integer"),
        ({"natural": True}, "die_not_integer"),
        ({}, "no_random_source"),
        ({"natural": 3, "rng": object()}, "no_random_source"),
        ({"natural": 3, "surprised_on": 7}, "surprise_chance_out_of_range"),
        ({"natural": 3, "surprised_on": -1}, "surprise_chance_out_of_range"),
        ({"natural": 3, "surprised_on": "2"}, "not_an_integer"),
    ],
)
def test_it_refuses_bad_surprise_rolls(kwargs, code):
    assert _code(lambda: rounds.roll_surprise(**kwargs)) == code


def test_a_bad_typed_foes_die_is_refused_before_the_party_die_is_rolled():
    rng = Scripted(3)
    assert _code(lambda: rounds.resolve_surprise(rng=rng, foes_natural=9)) == "die_out_of_range"
    assert rng.numbers == [3]


def test_surprise_outcome_wants_true_or_false():
    assert _code(lambda: rounds.surprise_outcome(1, False)) == "bad_argument"


def test_the_default_surprise_outcome_odds():
    assert rounds.surprise_outcome_odds() == {
        SurpriseOutcome.NEITHER: Fraction(4, 9),
        SurpriseOutcome.PARTY_SURPRISED: Fraction(2, 9),
        SurpriseOutcome.FOES_SURPRISED: Fraction(2, 9),
        SurpriseOutcome.BOTH: Fraction(1, 9),
    }


@given(st.integers(0, 6), st.integers(0, 6))
def test_surprise_outcome_odds_equal_enumerating_both_dice(party_on, foes_on):
    counts = dict.fromkeys(SurpriseOutcome, 0)
    for p, f in product(D6, D6):
        result = rounds.resolve_surprise(
            party_surprised_on=party_on, foes_surprised_on=foes_on, party_natural=p, foes_natural=f
        )
        counts[result.outcome] += 1
    expected = {outcome: Fraction(n, 36) for outcome, n in counts.items()}
    assert rounds.surprise_outcome_odds(party_on, foes_on) == expected
    assert sum(expected.values()) == 1
    assert rounds.surprise_odds(party_on) == Fraction(
        sum(rounds.roll_surprise(surprised_on=party_on, natural=n).surprised for n in D6), 6
    )


# ----- group initiative -----


def test_group_initiative_odds_without_modifiers():
    assert rounds.group_initiative_odds() == {
        InitiativeOrder.PARTY: Fraction(15, 36),
        InitiativeOrder.FOES: Fraction(15, 36),
        InitiativeOrder.SIMULTANEOUS: Fraction(6, 36),
    }


def test_re_rolling_ties_gives_each_side_half():
    assert rounds.group_initiative_odds(tie_rule="reroll") == {
        InitiativeOrder.PARTY: Fraction(1, 2),
        InitiativeOrder.FOES: Fraction(1, 2),
        InitiativeOrder.SIMULTANEOUS: Fraction(0),
    }


@pytest.mark.parametrize(
    ("party_mod", "foes_mod", "rule", "party", "foes", "simultaneous"),
    [
        (1, 0, "simultaneous", Fraction(21, 36), Fraction(10, 36), Fraction(5, 36)),
        (1, 0, "reroll", Fraction(21, 31), Fraction(10, 31), Fraction(0)),
        (0, 5, "simultaneous", Fraction(0), Fraction(35, 36), Fraction(1, 36)),
        (0, 5, "reroll", Fraction(0), Fraction(1), Fraction(0)),
        (6, 0, "simultaneous", Fraction(1), Fraction(0), Fraction(0)),
        (-2, -2, "simultaneous", Fraction(15, 36), Fraction(15, 36), Fraction(6, 36)),
    ],
)
def test_group_initiative_odds_with_modifiers(party_mod, foes_mod, rule, party, foes, simultaneous):
    assert rounds.group_initiative_odds(party_mod, foes_mod, rule) == {
        InitiativeOrder.PARTY: party,
        InitiativeOrder.FOES: foes,
        InitiativeOrder.SIMULTANEOUS: simultaneous,
    }


@pytest.mark.parametrize(
    ("party", "foes", "party_mod", "foes_mod", "rule", "first"),
    [
        (5, 2, 0, 0, "simultaneous", InitiativeOrder.PARTY),
        (2, 5, 0, 0, "simultaneous", InitiativeOrder.FOES),
        (4, 4, 0, 0, "simultaneous", InitiativeOrder.SIMULTANEOUS),
        (3, 4, 1, 0, "simultaneous", InitiativeOrder.SIMULTANEOUS),
        (3, 4, 2, 0, TieRule.SIMULTANEOUS, InitiativeOrder.PARTY),
        (6, 1, 0, 6, "simultaneous", InitiativeOrder.FOES),
        (5, 2, 0, 0, "reroll", InitiativeOrder.PARTY),
        (2, 5, 0, 0, TieRule.REROLL, InitiativeOrder.FOES),
        (4, 4, 0, 0, "reroll", None),
        (3, 4, 1, 0, "reroll", None),
    ],
)
def test_the_higher_initiative_acts_first_and_ties_follow_the_setting(
    party, foes, party_mod, foes_mod, rule, first
):
    result = rounds.roll_group_initiative(
        party_modifier=party_mod,
        foes_modifier=foes_mod,
        tie_rule=rule,
        party_natural=party,
        foes_natural=foes,
    )
    assert result.first == first
    assert result.needs_reroll is (first is None)
    assert len(result.throws) == 1
    assert (result.last.party_total, result.last.foes_total) == (party + party_mod, foes + foes_mod)
    assert result.tie_rule is TieRule(rule)


def test_a_typed_tie_is_re_rolled_from_the_random_source():
    result = rounds.roll_group_initiative(
        tie_rule="reroll", party_natural=3, foes_natural=3, rng=Scripted(4, 4, 2, 5)
    )
    assert [(t.party_natural, t.foes_natural) for t in result.throws] == [(3, 3), (4, 4), (2, 5)]
    assert [t.tied for t in result.throws] == [True, True, False]
    assert result.first is InitiativeOrder.FOES


def test_a_tie_stands_when_ties_are_simultaneous_even_with_a_random_source():
    rng = Scripted(6, 6, 1, 2)
    result = rounds.roll_group_initiative(rng=rng)
    assert result.first is InitiativeOrder.SIMULTANEOUS
    assert rng.numbers == [1, 2]


def test_a_random_source_that_always_ties_is_refused():
    class Stuck:
        def randint(self, a: int, b: int) -> int:
            return 3

    assert _code(lambda: rounds.roll_group_initiative(tie_rule="reroll", rng=Stuck())) == (
        "too_many_ties"
    )


@pytest.mark.parametrize(
    ("party", "foes", "first"),
    [
        (4, 3, InitiativeOrder.PARTY),
        (3, 4, InitiativeOrder.FOES),
        (4, 4, InitiativeOrder.SIMULTANEOUS),
        (-99, -99, InitiativeOrder.SIMULTANEOUS),
        (106, -99, InitiativeOrder.PARTY),
    ],
)
def test_who_acts_first_compares_totals(party, foes, first):
    assert rounds.who_acts_first(party, foes) is first


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (
            lambda: rounds.roll_group_initiative(tie_rule="coin", rng=random.Random(1)),
            "unknown_tie_rule",
        ),
        (
            lambda: rounds.roll_group_initiative(
                party_modifier=101, party_natural=1, foes_natural=1
            ),
            "modifier_out_of_range",
        ),
        (
            lambda: rounds.roll_group_initiative(foes_modifier=1.5, rng=random.Random(1)),
            "not_an_integer",
        ),
        (lambda: rounds.roll_group_initiative(party_natural=7, foes_natural=1), "die_out_of_range"),
        (lambda: rounds.roll_group_initiative(party_natural=1), "no_random_source"),
        (lambda: rounds.group_initiative_odds(0, 0, "coin"), "unknown_tie_rule"),
        (lambda: rounds.group_initiative_odds(-101), "modifier_out_of_range"),
        (lambda: rounds.who_acts_first(107, 1), "initiative_total_out_of_range"),
        (lambda: rounds.who_acts_first("3", 1), "not_an_integer"),
    ],
)
def test_it_refuses_bad_group_initiative_inputs(call, code):
    assert _code(call) == code


modifiers = st.integers(-8, 8)
tie_rules = st.sampled_from(list(TieRule))


@given(modifiers, modifiers, tie_rules)
def test_initiative_odds_equal_enumerating_every_pair_of_dice(party_mod, foes_mod, rule):
    counts = dict.fromkeys(InitiativeOrder, 0)
    for p, f in product(D6, D6):
        result = rounds.roll_group_initiative(
            party_modifier=party_mod, foes_modifier=foes_mod, party_natural=p, foes_natural=f
        )
        counts[result.first] += 1
    if rule is TieRule.REROLL:
        decided = counts[InitiativeOrder.PARTY] + counts[InitiativeOrder.FOES]
        expected = {o: Fraction(counts[o], decided) for o in counts}
        expected[InitiativeOrder.SIMULTANEOUS] = Fraction(0)
    else:
        expected = {o: Fraction(n, 36) for o, n in counts.items()}
    odds = rounds.group_initiative_odds(party_mod, foes_mod, rule)
    assert odds == expected
    assert sum(odds.values()) == 1
    assert list(odds) == list(InitiativeOrder)


@given(modifiers, modifiers, tie_rules, st.integers(0, 2**32))
def test_seeded_group_initiative_is_deterministic(party_mod, foes_mod, rule, seed):
    def once():
        return rounds.roll_group_initiative(
            party_modifier=party_mod,
            foes_modifier=foes_mod,
            tie_rule=rule,
            rng=random.Random(seed),
        )

    first = once()
    assert first == once()
    assert first.first is not None
    assert all(t.tied for t in first.throws[:-1])


@given(st.integers(1, 6), st.integers(1, 6), modifiers, modifiers, tie_rules)
def test_typed_initiative_dice_act_as_the_same_numbers_rolled(p, f, party_mod, foes_mod, rule):
    common = {"party_modifier": party_mod, "foes_modifier": foes_mod, "tie_rule": rule}
    typed = rounds.roll_group_initiative(**common, party_natural=p, foes_natural=f)
    if typed.needs_reroll:
        # a next pair that cannot tie again: the same party die, another foes die
        rolled = rounds.roll_group_initiative(**common, rng=Scripted(p, f, p, f % 6 + 1))
        assert rolled.throws[0] == typed.throws[0]
    else:
        assert rounds.roll_group_initiative(**common, rng=Scripted(p, f)) == typed


def test_observed_initiative_frequency_stays_close_to_the_exact_odds():
    rng = random.Random(2024)
    n = 5_000
    party_first = sum(
        rounds.roll_group_initiative(party_modifier=1, rng=rng).first is InitiativeOrder.PARTY
        for _ in range(n)
    )
    p = float(rounds.group_initiative_odds(1)[InitiativeOrder.PARTY])
    assert abs(party_first / n - p) < 5 * (p * (1 - p) / n) ** 0.5  # 5 sigma: cannot flake


# ----- individual initiative -----

DEX_INITIATIVE = {3: -2, **dict.fromkeys(range(4, 9), -1), **dict.fromkeys(range(9, 13), 0)}
DEX_INITIATIVE |= {**dict.fromkeys(range(13, 18), 1), 18: 2}


@pytest.mark.parametrize(("dexterity", "modifier"), sorted(DEX_INITIATIVE.items()))
def test_dex_gives_oses_initiative_column_not_the_attack_one(dexterity, modifier):
    assert rounds.dex_initiative_modifier(dexterity) == modifier
    result = rounds.roll_initiative(dexterity=dexterity, natural=4)
    assert result.total == 4 + modifier
    assert result.modifiers == ((Modifier(modifier, "dex"),) if modifier else ())


def test_every_dex_score_has_an_initiative_modifier():
    assert sorted(DEX_INITIATIVE) == list(range(3, 19))


@pytest.mark.parametrize("dexterity", [2, 19, 0, "12", 12.0, True, None])
def test_it_refuses_a_dex_score_off_the_table(dexterity):
    assert _code(lambda: rounds.dex_initiative_modifier(dexterity)) == "ability_out_of_range"


def test_a_monster_rolls_initiative_with_no_modifier():
    result = rounds.roll_initiative(natural=5)
    assert (result.natural, result.modifiers, result.total) == (5, (), 5)


def test_individual_initiative_takes_extra_modifiers_after_dex():
    result = rounds.roll_initiative(
        dexterity=16, modifiers=[Modifier(-1, "situational"), Modifier(0, "x")], natural=2
    )
    assert result.modifiers == (Modifier(1, "dex"), Modifier(-1, "situational"))
    assert result.total == 2


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"natural": 7}, "die_out_of_range"),
        ({"dexterity": 19, "natural": 3}, "ability_out_of_range"),
        ({"modifiers": Modifier(1, "x"), "natural": 3}, "bad_modifier"),
        ({"modifiers": [Modifier(200, "x")], "natural": 3}, "modifier_out_of_range"),
        ({}, "no_random_source"),
    ],
)
def test_it_refuses_bad_individual_initiative_inputs(kwargs, code):
    assert _code(lambda: rounds.roll_initiative(**kwargs)) == code


@pytest.mark.parametrize(
    ("totals", "order"),
    [
        ([], ()),
        ([("a", 3)], (InitiativeGroup(3, ("a",)),)),
        (
            [("b", 3), ("a", 5), ("c", 3)],
            (InitiativeGroup(5, ("a",)), InitiativeGroup(3, ("b", "c"))),
        ),
        (
            [(12, 4), (3, 4), (7, 6), (1, -1)],
            (InitiativeGroup(6, (7,)), InitiativeGroup(4, (3, 12)), InitiativeGroup(-1, (1,))),
        ),
        ([("x", 2), (9, 2), ("10", 2)], (InitiativeGroup(2, (9, "10", "x")),)),
        ({"elf": 1, "orc": 6}, (InitiativeGroup(6, ("orc",)), InitiativeGroup(1, ("elf",)))),
    ],
)
def test_initiative_order_is_highest_first_with_ties_grouped(totals, order):
    assert rounds.initiative_order(totals) == order


@pytest.mark.parametrize(
    ("totals", "code"),
    [
        ([("a", 3), ("a", 4)], "duplicate_combatant"),
        ([(1, 3), (True, 4)], "bad_combatant_id"),
        ([("", 3)], "bad_combatant_id"),
        ([("a", 3, 4)], "bad_argument"),
        ([("a", "3")], "not_an_integer"),
        ([("a", 500)], "initiative_total_out_of_range"),
        ("a3", "bad_argument"),
        (None, "bad_argument"),
        ([(i, 1) for i in range(1001)], "too_many_combatants"),
    ],
)
def test_it_refuses_bad_initiative_lists(totals, code):
    assert _code(lambda: rounds.initiative_order(totals)) == code


combatant_ids = st.one_of(st.integers(-50, 50), st.text(min_size=1, max_size=3))


@given(
    st.dictionaries(combatant_ids, st.integers(-3, 9), max_size=12),
    st.randoms(use_true_random=False),
)
def test_initiative_order_depends_only_on_the_totals(totals, rng):
    pairs = list(totals.items())
    order = rounds.initiative_order(pairs)
    rng.shuffle(pairs)
    assert rounds.initiative_order(pairs) == order
    assert [g.total for g in order] == sorted({t for _, t in pairs}, reverse=True)
    assert sorted(map(repr, (i for g in order for i in g.ids))) == sorted(map(repr, totals))
    assert all(totals[i] == g.total for g in order for i in g.ids)


# ----- a side's turn -----


def test_a_sides_turn_runs_morale_movement_missile_spells_melee():
    assert rounds.TURN_STEPS == ("morale", "movement", "missile", "spells", "melee")
    assert rounds.TURN_STEPS == tuple(Step)


def test_next_step_walks_the_turn_in_order():
    steps, step = [], rounds.next_step()
    while step is not None:
        steps.append(step)
        step = rounds.next_step(step)
    assert tuple(steps) == rounds.TURN_STEPS
    assert rounds.next_step("missile") is Step.SPELLS
    assert _code(lambda: rounds.next_step("looting")) == "unknown_step"


# ----- morale -----


def _failure_by_enumeration(score: int) -> Fraction:
    """P(2d6 > score) over all 36 pairs, with the two scores that never roll."""
    if score == 2:
        return Fraction(1)
    if score == 12:
        return Fraction(0)
    return Fraction(sum(a + b > score for a, b in product(D6, D6)), 36)


MORALE_FAILURE = {
    2: Fraction(1),
    3: Fraction(33, 36),
    4: Fraction(30, 36),
    5: Fraction(26, 36),
    6: Fraction(21, 36),
    7: Fraction(15, 36),
    8: Fraction(10, 36),
    9: Fraction(6, 36),
    10: Fraction(3, 36),
    11: Fraction(1, 36),
    12: Fraction(0),
}


@pytest.mark.parametrize(("score", "odds"), sorted(MORALE_FAILURE.items()))
def test_morale_failure_odds_for_every_score(score, odds):
    assert rounds.morale_failure_odds(score) == odds == _failure_by_enumeration(score)


@pytest.mark.parametrize(
    ("score", "naturals", "passed"),
    [
        (7, [3, 4], True),
        (7, [4, 4], False),
        (3, [1, 2], True),
        (3, [2, 2], False),
        (11, [5, 6], True),
        (11, [6, 6], False),
        (8, [1, 1], True),
    ],
)
def test_a_total_above_the_morale_score_fails(score, naturals, passed):
    check = rounds.check_morale(score, naturals=naturals)
    assert check.naturals == tuple(naturals)
    assert check.total == sum(naturals)
    assert check.passed is passed
    assert check.automatic is None
    assert check.outcome is (MoraleOutcome.STANDS if passed else MoraleOutcome.BREAKS)


@pytest.mark.parametrize(
    ("score", "passes_before", "passed", "automatic"),
    [
        (2, 0, False, MoraleAutomatic.NEVER_FIGHTS),
        (12, 0, True, MoraleAutomatic.NEVER_CHECKS),
        (7, 2, True, MoraleAutomatic.FIGHTS_TO_DEATH),
        (2, 2, True, MoraleAutomatic.FIGHTS_TO_DEATH),
    ],
)
def test_some_morale_checks_need_no_roll(score, passes_before, passed, automatic):
    check = rounds.check_morale(score, passes_before=passes_before)  # no dice, no rng: fine
    assert (check.passed, check.automatic, check.naturals, check.total) == (
        passed,
        automatic,
        (),
        None,
    )
    typed = rounds.check_morale(score, passes_before=passes_before, naturals=[6, 6])
    assert typed == check


def test_the_second_passed_check_means_a_fight_to_the_death():
    first = rounds.check_morale(8, naturals=[2, 3])
    assert first.passed and not first.fights_to_death_now and not first.fights_to_death
    second = rounds.check_morale(8, passes_before=1, naturals=[4, 4])
    assert second.fights_to_death_now and second.fights_to_death
    failed = rounds.check_morale(8, passes_before=1, naturals=[5, 4])
    assert not failed.fights_to_death_now and not failed.fights_to_death
    later = rounds.check_morale(8, passes_before=2)
    assert later.fights_to_death and not later.fights_to_death_now


@pytest.mark.parametrize(
    ("args", "kwargs", "code"),
    [
        ((1,), {"naturals": [1, 1]}, "morale_out_of_range"),
        ((13,), {"naturals": [1, 1]}, "morale_out_of_range"),
        (("7",), {"naturals": [1, 1]}, "not_an_integer"),
        ((7,), {"naturals": [7, 1]}, "die_out_of_range"),
        ((7,), {"naturals": [3]}, "wrong_number_of_dice"),
        ((7,), {"naturals": 7}, "wrong_number_of_dice"),
        ((12,), {"naturals": [3, 0]}, "die_out_of_range"),
        ((7,), {"passes_before": -1, "naturals": [1, 1]}, "passes_out_of_range"),
        ((7,), {}, "no_random_source"),
    ],
)
def test_it_refuses_bad_morale_checks(args, kwargs, code):
    assert _code(lambda: rounds.check_morale(*args, **kwargs)) == code


@given(st.integers(2, 12))
def test_morale_odds_equal_enumerating_both_dice(score):
    fails = sum(not rounds.check_morale(score, naturals=[a, b]).passed for a, b in product(D6, D6))
    assert rounds.morale_failure_odds(score) == Fraction(fails, 36)


@given(st.integers(2, 12), st.integers(0, 3), st.integers(0, 2**32))
def test_seeded_morale_checks_are_deterministic(score, passes, seed):
    def once():
        return rounds.check_morale(score, passes_before=passes, rng=random.Random(seed))

    assert once() == once()


@given(st.integers(2, 12), st.integers(0, 1), st.integers(1, 6), st.integers(1, 6))
def test_typed_morale_dice_act_as_the_same_numbers_rolled(score, passes, a, b):
    typed = rounds.check_morale(score, passes_before=passes, naturals=[a, b])
    assert rounds.check_morale(score, passes_before=passes, rng=Scripted(a, b)) == typed


@pytest.mark.parametrize(
    ("state", "score", "due"),
    [
        (MoraleState(6), None, None),
        (MoraleState(6, dead=1), None, MoraleTrigger.FIRST_DEATH),
        (MoraleState(6, dead=1, first_death_checked=True, checks=1, passed=1), None, None),
        (
            MoraleState(6, dead=2, unable=1, first_death_checked=True, checks=1, passed=1),
            None,
            MoraleTrigger.HALF,
        ),
        (
            MoraleState(7, dead=2, unable=1, first_death_checked=True, checks=1, passed=1),
            None,
            None,
        ),
        (MoraleState(6, unable=3), None, MoraleTrigger.HALF),
        (
            MoraleState(6, dead=3, first_death_checked=True, half_checked=True, checks=2, passed=1),
            None,
            None,
        ),
        (MoraleState(6, dead=3), None, MoraleTrigger.FIRST_DEATH),
        (MoraleState(6, dead=1, checks=2, passed=2), None, None),
        (MoraleState(6, dead=1, checks=1, passed=0), None, None),
        (MoraleState(6, dead=6), None, None),
        (MoraleState(6, dead=1), 12, None),
        (MoraleState(6, dead=1), 2, MoraleTrigger.FIRST_DEATH),
        (MoraleState(1, unable=1), None, MoraleTrigger.HALF),
    ],
)
def test_which_morale_check_is_due(state, score, due):
    assert rounds.morale_check_due(state, score) == due


def test_one_check_answers_a_first_death_that_is_also_half_the_side():
    state = MoraleState(2, dead=1)
    assert rounds.morale_check_due(state) is MoraleTrigger.FIRST_DEATH
    after = rounds.record_morale_check(state, rounds.check_morale(7, naturals=[3, 3]))
    assert (after.checks, after.passed, after.first_death_checked, after.half_checked) == (
        1,
        1,
        True,
        True,
    )
    assert rounds.morale_check_due(after) is None


def test_a_fight_with_both_occasions_then_a_fight_to_the_death():
    state = MoraleState(8, dead=1)
    assert rounds.morale_check_due(state) is MoraleTrigger.FIRST_DEATH
    state = rounds.record_morale_check(state, rounds.check_morale(9, naturals=[4, 4]))
    state = replace(state, dead=2, unable=2)
    assert rounds.morale_check_due(state) is MoraleTrigger.HALF
    check = rounds.check_morale(9, passes_before=state.passed, naturals=[5, 4])
    assert check.fights_to_death_now
    state = rounds.record_morale_check(state, check)
    assert state.fights_to_death and not state.broken
    assert rounds.morale_check_due(replace(state, dead=6, unable=1)) is None


def test_a_failed_check_breaks_the_side():
    state = rounds.record_morale_check(
        MoraleState(4, dead=1), rounds.check_morale(5, naturals=[6, 1])
    )
    assert state.broken
    assert rounds.morale_check_due(replace(state, dead=2)) is None


def test_a_check_settled_by_the_fight_to_the_death_is_not_counted():
    state = MoraleState(4, dead=2, checks=2, passed=2, first_death_checked=True)
    after = rounds.record_morale_check(state, rounds.check_morale(5, passes_before=2))
    assert (after.checks, after.passed, after.half_checked) == (2, 2, True)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"count": 0}, "count"),
        ({"count": 3, "dead": 4}, "dead"),
        ({"count": 3, "dead": 2, "unable": 2}, "unable"),
        ({"count": 3, "checks": 1, "passed": 2}, "passed"),
        ({"count": 3, "dead": -1}, "dead"),
        ({"count": 3.0}, "count"),
        ({"count": 3, "half_checked": 1}, "half_checked"),
        ({"count": 3, "first_death_checked": None}, "first_death_checked"),
    ],
)
def test_it_refuses_an_impossible_morale_state(kwargs, name):
    with pytest.raises(RulesError) as caught:
        MoraleState(**kwargs)
    assert caught.value.code == "bad_morale_state"
    assert caught.value.params["name"] == name


def test_morale_functions_want_their_own_objects():
    assert _code(lambda: rounds.morale_check_due({"count": 3})) == "bad_argument"
    assert _code(lambda: rounds.record_morale_check(MoraleState(3), None)) == "bad_argument"
    assert _code(lambda: rounds.morale_check_due(MoraleState(3), 13)) == "morale_out_of_range"


@given(st.integers(1, 12), st.data())
def test_each_morale_occasion_is_checked_at_most_once(count, data):
    state, triggers = MoraleState(count), []
    for _ in range(2 * count):
        dead = data.draw(st.integers(state.dead, count))
        unable = data.draw(st.integers(0, count - dead))
        state = replace(state, dead=dead, unable=unable)
        due = rounds.morale_check_due(state)
        if due is not None:
            triggers.append(due)
            naturals = [data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))]
            check = rounds.check_morale(8, passes_before=state.passed, naturals=naturals)
            state = rounds.record_morale_check(state, check)
    assert len(triggers) == len(set(triggers)) == state.checks <= 2


# ----- conditions -----


def test_the_conditions_the_app_offers():
    assert [c.value for c in Condition] == [
        "paralysed", "asleep", "held", "charmed", "blinded", "invisible", "stunned", "prone",
        "fleeing", "other", "knocked_out",
    ]  # fmt: skip


def test_a_knock_out_stops_acting_and_leaves_one_helpless_like_sleep():
    # BECMI striking (seed 003): a failed save vs death ray knocks out for t rounds.
    assert Condition.KNOCKED_OUT in rounds.PREVENTS_ACTION
    assert Condition.KNOCKED_OUT in rounds.HELPLESS
    tick = rounds.tick_conditions([rounds.ActiveCondition("knocked_out", 1)])
    assert [c.condition for c in tick.expired] == [Condition.KNOCKED_OUT]


@pytest.mark.parametrize(
    ("duration", "unit", "rounds_left", "left_in_unit"),
    [
        (1, "rounds", 1, 1),
        (4, DurationUnit.ROUNDS, 4, 4),
        (1, "turns", 60, 1),
        (3, "turns", 180, 3),
        (None, "rounds", None, None),
        (None, "turns", None, None),
    ],
)
def test_a_turn_is_60_rounds(duration, unit, rounds_left, left_in_unit):
    condition = rounds.new_condition("asleep", duration, unit)
    assert condition.rounds_left == rounds_left
    assert condition.left_in_unit == left_in_unit
    assert condition.indefinite is (duration is None)


def test_a_condition_in_turns_shows_the_turns_begun():
    held = rounds.new_condition("held", 2, "turns")
    for _ in range(61):
        (held,) = rounds.tick_conditions([held]).remaining
    assert (held.rounds_left, held.left_in_unit) == (59, 1)


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda: rounds.new_condition("asleep", 0), "duration_out_of_range"),
        (lambda: rounds.new_condition("asleep", -3), "duration_out_of_range"),
        (lambda: rounds.new_condition("asleep", 16_667, "turns"), "duration_out_of_range"),
        (lambda: rounds.new_condition("asleep", 2.5), "not_an_integer"),
        (lambda: rounds.new_condition("asleep", 2, "minutes"), "unknown_duration_unit"),
        (lambda: rounds.new_condition("dead", 2), "unknown_condition"),
        (lambda: rounds.new_condition("other", 2), "condition_note_required"),
        (lambda: rounds.new_condition("other", 2, note="   "), "condition_note_required"),
        (lambda: rounds.new_condition("prone", note="x" * 201), "bad_condition_note"),
        (lambda: rounds.new_condition("prone", note=3), "bad_condition_note"),
        (lambda: ActiveCondition("prone", -1), "duration_out_of_range"),
        (lambda: rounds.tick_conditions("asleep"), "bad_argument"),
        (lambda: rounds.tick_conditions(["asleep"]), "bad_argument"),
        (lambda: rounds.can_act([rounds.new_condition("held")] * 101), "too_many_conditions"),
        (lambda: rounds.attack_on_helpless([], "stab"), "unknown_helpless_rule"),
    ],
)
def test_it_refuses_bad_conditions(call, code):
    assert _code(call) == code


def test_other_conditions_carry_the_users_text():
    glued = rounds.new_condition("other", 3, note="glued to the floor")
    assert (glued.condition, glued.note) == (Condition.OTHER, "glued to the floor")


STOPPING = {"paralysed", "asleep", "held", "knocked_out"}


@pytest.mark.parametrize(
    ("condition", "acts", "helpless"),
    [
        (c, c not in STOPPING, c in STOPPING)  # knocked out: BECMI striking (seed 003)
        for c in Condition
    ],
)
def test_paralysed_asleep_and_held_stop_acting_and_leave_helpless(condition, acts, helpless):
    conditions = [rounds.new_condition(condition, note="x")]
    assert rounds.can_act(conditions) is acts
    assert rounds.is_helpless(conditions) is helpless


@pytest.mark.parametrize("rule", list(HelplessRule))
def test_attacks_on_the_helpless_follow_the_tables_setting(rule):
    asleep = [rounds.new_condition("prone"), rounds.new_condition("asleep", 10, "turns")]
    assert rounds.attack_on_helpless(asleep, rule) is rule
    assert rounds.attack_on_helpless(asleep[:1], rule) is None
    assert rounds.attack_on_helpless([], rule.value) is None


def test_attacks_on_the_helpless_hit_automatically_by_default():
    assert rounds.attack_on_helpless([rounds.new_condition("held", 9, "turns")]) is (
        HelplessRule.HIT_AUTOMATICALLY
    )
    assert rounds.can_act([]) and not rounds.is_helpless(())


def test_a_tick_keeps_the_order_of_what_remains_and_what_expired():
    conditions = [
        rounds.new_condition("stunned", 1),
        rounds.new_condition("charmed"),
        rounds.new_condition("prone", 1),
        rounds.new_condition("blinded", 3),
        rounds.new_condition("stunned", 1),
    ]
    tick = rounds.tick_conditions(conditions)
    assert [(c.condition, c.rounds_left) for c in tick.expired] == [
        ("stunned", 0),
        ("prone", 0),
        ("stunned", 0),
    ]
    assert [(c.condition, c.rounds_left) for c in tick.remaining] == [
        ("charmed", None),
        ("blinded", 2),
    ]


def test_a_condition_found_at_zero_expires_without_going_below():
    tick = rounds.tick_conditions([ActiveCondition("prone", 0)])
    assert tick.expired == (ActiveCondition("prone", 0),)
    assert tick.remaining == ()


conditions_strategy = st.lists(
    st.builds(
        rounds.new_condition,
        st.sampled_from([c for c in Condition if c is not Condition.OTHER]),
        st.one_of(st.none(), st.integers(1, 30)),
        st.just("rounds"),
    ),
    max_size=8,
)


@given(conditions_strategy)
def test_condition_ticks_never_go_below_zero_and_expire_exactly_once(conditions):
    current, expired_at = tuple(conditions), {}
    for tick_number in range(1, 40):
        tick = rounds.tick_conditions(current)
        assert all(c.rounds_left is None or c.rounds_left >= 1 for c in tick.remaining)
        assert all(c.rounds_left == 0 for c in tick.expired)
        assert len(tick.remaining) + len(tick.expired) == len(current)
        for c in tick.expired:
            expired_at.setdefault(tick_number, []).append(c.condition)
        current = tick.remaining
    timed = sorted(
        (c.rounds_left, str(c.condition)) for c in conditions if c.rounds_left is not None
    )
    assert sorted((t, str(c)) for t, cs in expired_at.items() for c in cs) == timed
    assert [c for c in current] == [c for c in conditions if c.rounds_left is None]


# ----- the end of a round -----


def test_the_end_of_a_round_has_its_steps_in_order():
    assert rounds.ROUND_END_STEPS == (RoundEndStep.CONDITIONS,)


def test_the_end_of_a_round_expires_conditions_and_logs_them_in_order():
    sleep, stun = rounds.new_condition("asleep", 1), rounds.new_condition("stunned", 1)
    hold = rounds.new_condition("held", 2)
    combatants = [
        CombatantState("orc", (hold, stun)),
        CombatantState(3, [sleep]),
        CombatantState("elf"),
    ]
    end = rounds.end_round(combatants, 1)
    assert end.round_number == 1
    assert [c.id for c in end.combatants] == ["orc", 3, "elf"]
    assert [c.ended_round for c in end.combatants] == [1, 1, 1]
    assert end.combatants[0].conditions == (ActiveCondition("held", 1),)
    assert end.combatants[1].conditions == ()
    step, kind = RoundEndStep.CONDITIONS, RoundEffectKind.CONDITION_EXPIRED
    assert end.effects == (
        RoundEffect(step, kind, "orc", ActiveCondition("stunned", 0)),
        RoundEffect(step, kind, 3, ActiveCondition("asleep", 0)),
    )
    second = rounds.end_round(end.combatants, 2)
    assert second.effects == (RoundEffect(step, kind, "orc", ActiveCondition("held", 0)),)


def test_the_end_of_a_round_applies_once():
    combatants = [CombatantState(1, (rounds.new_condition("prone", 1),))]
    end = rounds.end_round(combatants, 4)
    again = rounds.end_round(end.combatants, 4)
    assert again.effects == ()
    assert again.combatants == end.combatants
    assert rounds.end_round(end.combatants, 3).combatants == end.combatants


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda: rounds.end_round([], 0), "round_out_of_range"),
        (lambda: rounds.end_round([], "1"), "not_an_integer"),
        (
            lambda: rounds.end_round([CombatantState(1), CombatantState(1)], 1),
            "duplicate_combatant",
        ),
        (lambda: rounds.end_round([("orc", [])], 1), "bad_argument"),
        (lambda: rounds.end_round(CombatantState(1), 1), "bad_argument"),
        (lambda: CombatantState(None), "bad_combatant_id"),
        (lambda: CombatantState(1, ended_round=-1), "round_out_of_range"),
        (lambda: CombatantState(1, conditions=["asleep"]), "bad_argument"),
    ],
)
def test_it_refuses_bad_round_ends(call, code):
    assert _code(call) == code


# ----- experience -----

XP_TABLE = [
    ("<1", 5, 1), ("1", 10, 3), ("1+", 15, 4), ("2", 20, 5), ("2+", 25, 10), ("3", 35, 15),
    ("3+", 50, 25), ("4", 75, 50), ("4+", 125, 75), ("5", 175, 125), ("5+", 225, 175),
    ("6", 275, 225), ("6+", 350, 300), ("7–7+", 450, 400), ("8–8+", 650, 550),
    ("9–10+", 900, 700), ("11–12+", 1100, 800), ("13–16+", 1350, 950), ("17–20+", 2000, 1150),
    ("21+", 2500, 2000),
]  # fmt: skip

# Hit Dice in each row, its first and last entries and the nearest negative bonus included.
XP_EXAMPLES = {
    "<1": ["½", "1/2", "1-1", "1-3", "normal human", "BČ"],
    "1": ["1"],
    "1+": ["1+1", "1+", "1+7", "2-1", "2-2"],
    "2": ["2"],
    "2+": ["2+1", "2+", "3-1"],
    "3": ["3"],
    "3+": ["3+1", "4-1"],
    "4": ["4"],
    "4+": ["4+1", "4+", "5-2"],
    "5": ["5"],
    "5+": ["5+1", "6-1"],
    "6": ["6"],
    "6+": ["6+1", "7-1"],
    "7–7+": ["7", "7+1", "7+", "8-1"],
    "8–8+": ["8", "8+3", "9-1"],
    "9–10+": ["9", "9+1", "10", "10+", "10+5", "11-1"],
    "11–12+": ["11", "12", "12+1", "13-1"],
    "13–16+": ["13", "14+2", "16", "16+", "17-1"],
    "17–20+": ["17", "20", "20+", "21-1"],
    "21+": ["21", "21+", "21+4", "22", "35+", "999", "22-1"],
}


def test_the_experience_table_is_oses():
    assert [(r.label, r.base, r.per_special) for r in rounds.XP_ROWS] == XP_TABLE
    assert list(XP_EXAMPLES) == [label for label, _, _ in XP_TABLE]


@pytest.mark.parametrize(
    ("hd", "label", "base", "per_special"),
    [
        pytest.param(hd, label, base, per, id=f"{label}:{hd}")
        for label, base, per in XP_TABLE
        for hd in XP_EXAMPLES[label]
    ],
)
def test_every_row_of_the_experience_table(hd, label, base, per_special):
    plain = rounds.monster_xp(hd)
    assert (plain.row.label, plain.total, plain.specials, plain.bonus) == (label, base, 0, 0)
    if hd[0].isdigit() or hd[0] == "½":
        starred = rounds.monster_xp(hd + "**")
        assert (starred.row.label, starred.specials) == (label, 2)
        assert starred.total == base + 2 * per_special == starred.base + starred.bonus


@pytest.mark.parametrize(
    ("hd", "xp"),
    [
        ("1-1", 5),
        ("1-1*", 6),
        ("4*", 125),
        ("5**", 425),
        ("2+1*", 35),
        ("½*", 6),
        ("9*****", 4400),
        ("21+*", 4500),
        ("3*", 50),
        ("6+1**", 950),
    ],
)
def test_each_asterisk_adds_the_rows_special_bonus(hd, xp):
    assert rounds.monster_xp(hd).total == xp


def test_the_experience_for_a_fight_is_the_sum():
    award = rounds.slain_monsters_xp(["1-1"] * 6 + ["4*", "normal human"])
    assert [m.total for m in award.monsters] == [5] * 6 + [125, 5]
    assert award.total == 160
    assert rounds.slain_monsters_xp([]).total == 0
    assert rounds.slain_monsters_xp(iter(["2", "3"])).total == 55


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda: rounds.monster_xp("0"), "bad_hit_dice"),
        (lambda: rounds.monster_xp(3), "bad_hit_dice"),
        (lambda: rounds.slain_monsters_xp("1-1"), "bad_argument"),
        (lambda: rounds.slain_monsters_xp(["1", "3d8"]), "bad_hit_dice"),
        (lambda: rounds.slain_monsters_xp(["1"] * 1001), "too_many_monsters"),
        (lambda: rounds.slain_monsters_xp(iter(lambda: "1", None)), "too_many_monsters"),
    ],
)
def test_it_refuses_bad_slain_monster_lists(call, code):
    assert _code(call) == code


@given(st.integers(1, 40), st.integers(-3, 3), st.integers(-3, 3), st.integers(0, 3))
def test_more_hit_dice_never_give_less_experience(dice, bonus, other_bonus, stars):
    def xp(d: int, b: int) -> int:
        return rounds.monster_xp((f"{d}{b:+d}" if b else str(d)) + "*" * stars).total

    low, high = sorted((bonus, other_bonus))
    assert xp(dice, low) <= xp(dice, high)
    assert xp(dice, low) <= xp(dice + 1, low)


# ----- every public function of the module -----


def _public_callables():
    found = []
    for name in rounds.__all__:
        obj = getattr(rounds, name)
        if isinstance(obj, type):
            if "__post_init__" in vars(obj):
                found.append((name, obj))
        elif callable(obj):
            found.append((name, obj))
    return found


PUBLIC = _public_callables()


def test_every_public_function_is_typed_and_explained():
    for name, func in PUBLIC:
        assert func.__doc__, name
        if inspect.isfunction(func):
            assert "return" in func.__annotations__, name


# Any arguments give a result or a RulesError: the sweep in test_arguments.py covers this
# module with every other.
