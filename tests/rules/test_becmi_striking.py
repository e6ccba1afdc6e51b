"""BECMI striking: unarmed blows, stuns, knock-outs and haymakers (becmi.md, seed 003)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.becmi import (
    StrikeOutcome,
    can_strike,
    knockout_chance,
    monster_constitution,
    resolve_strike,
    strike_damage,
    strike_odds,
    stun_chance,
)
from rules.core import Modifier
from rules.errors import RulesError

# fighter THAC0 17 against AC 7 needs 10; defender CON 12, save vs Death Ray 12
BASE = {"defender_con": 12, "defender_save": 12}


class NoDice:
    def randint(self, a: int, b: int) -> int:
        raise AssertionError("no die should be rolled")


@pytest.mark.parametrize(
    ("score", "damage"),
    [
        (None, 1),
        (3, 0),
        (4, 0),
        (5, 0),
        (6, 0),
        (8, 0),
        (9, 1),
        (12, 1),
        (13, 2),
        (15, 2),
        (16, 3),
        (17, 3),
        (18, 4),
    ],
)
def test_a_blow_does_1_plus_the_str_adjustment_never_below_0(score, damage):
    assert strike_damage(score) == damage


def test_a_pulled_blow_does_no_damage():
    assert strike_damage(18, pulled=True) == 0


@pytest.mark.parametrize(
    ("attacker", "defender", "haymaker", "allowed"),
    [(3, 6, False, True), (2.9, 6, False, False), (6, 3, False, True), (1, 12, True, True)],
)
def test_the_attacker_must_be_at_least_half_the_defenders_size_unless_a_haymaker(
    attacker, defender, haymaker, allowed
):
    assert can_strike(attacker, defender, haymaker) is allowed


def test_it_refuses_a_blow_from_a_striker_too_small():
    with pytest.raises(RulesError) as err:
        resolve_strike(17, 7, attacker_size=2, defender_size=12, natural=20, **BASE)
    assert err.value.code == "striker_too_small"
    result = resolve_strike(
        17, 7, attacker_size=2, defender_size=12, haymaker=True, natural=20, stun_natural=1, **BASE
    )
    assert result.attack.hit


@pytest.mark.parametrize("size", [0, -1, "big", True])
def test_it_refuses_a_size_that_is_not_a_positive_number(size):
    with pytest.raises(RulesError) as err:
        can_strike(size, 6)
    assert err.value.code == "bad_size"


@pytest.mark.parametrize(("hd", "con"), [("3", 6), (5, 10), ("2+1", 4), ("½", 1), ("1-1", 2)])
def test_a_monsters_c_is_twice_its_hit_dice(hd, con):
    assert monster_constitution(hd) == con


def test_a_miss_does_nothing_and_rolls_no_more_dice():
    result = resolve_strike(17, 7, natural=9, rng=NoDice(), **BASE)
    assert result.outcome is StrikeOutcome.MISS
    assert (result.damage, result.stun_natural, result.save) == (0, None, None)


def test_a_hit_with_t_of_0_or_less_does_not_stun():
    result = resolve_strike(17, 7, attacker_str=13, natural=10, stun_natural=12, **BASE)
    assert result.outcome is StrikeOutcome.HIT
    assert (result.damage, result.t, result.save) == (2, 0, None)
    assert not result.stunned


def test_a_stunned_defender_that_saves_is_not_knocked_out():
    result = resolve_strike(
        17, 7, attacker_str=16, natural=10, stun_natural=15, save_natural=10, **BASE
    )
    assert result.t == 3 and result.stunned and not result.knocked_out
    assert result.save.modifiers == (Modifier(4, "stun_save"), Modifier(-2, "attacker_str"))
    assert (result.save.total, result.save.target, result.save.saved) == (12, 12, True)
    assert result.outcome is StrikeOutcome.STUNNED and result.knockout_rounds == 0


def test_a_stunned_defender_that_fails_its_save_is_knocked_out_for_t_rounds():
    result = resolve_strike(
        17, 7, attacker_str=16, natural=10, stun_natural=19, save_natural=9, **BASE
    )
    assert result.outcome is StrikeOutcome.KNOCKED_OUT
    assert result.knocked_out and result.knockout_rounds == 7 == result.t


def test_str_adjusts_the_hit_roll():
    result = resolve_strike(17, 7, attacker_str=18, natural=7, stun_natural=1, **BASE)
    assert result.attack.modifiers == (Modifier(3, "str"),) and result.attack.hit


def test_a_haymaker_is_minus_5_to_hit_loses_initiative_and_the_save_is_at_minus_4():
    result = resolve_strike(
        17, 7, attacker_str=13, haymaker=True, natural=14, stun_natural=20, save_natural=17, **BASE
    )
    assert result.loses_initiative
    assert result.attack.modifiers == (Modifier(1, "str"), Modifier(-5, "haymaker"))
    assert result.attack.total == 10 and result.attack.hit
    assert result.save.modifiers == (Modifier(-4, "haymaker"), Modifier(-1, "attacker_str"))
    assert result.save.total == 12 and result.save.saved


def test_a_pulled_blow_can_still_knock_out():
    result = resolve_strike(17, 7, pulled=True, natural=15, stun_natural=20, save_natural=1, **BASE)
    assert result.damage == 0 and result.knocked_out


def test_a_monster_attacker_has_no_str_adjustment():
    result = resolve_strike(
        15,
        7,
        defender_con=monster_constitution(4),
        defender_save=10,
        natural=8,
        stun_natural=9,
        save_natural=5,
    )
    assert result.damage == 1 and result.t == 1
    assert result.save.modifiers == (Modifier(4, "stun_save"),) and not result.save.saved


def test_full_hard_cover_makes_a_strike_impossible():
    result = resolve_strike(17, 7, cover="full", cover_material="hard", rng=NoDice(), **BASE)
    assert result.outcome is StrikeOutcome.IMPOSSIBLE
    assert strike_odds(17, 7, cover="full", cover_material="hard", **BASE).hit == 0


@pytest.mark.parametrize(
    ("con", "odds"),
    [(0, 1), (3, Fraction(17, 20)), (12, Fraction(8, 20)), (19, Fraction(1, 20)), (20, 0), (36, 0)],
)
def test_it_gives_the_exact_chance_of_a_stun(con, odds):
    assert stun_chance(con) == odds


def test_it_gives_the_exact_chance_of_a_knock_out():
    # CON 12: stunned on 13..20 (8/20); save 12 at +4 -2 (STR 16) fails on 1..9 (9/20)
    assert knockout_chance(12, 12, attacker_str=16) == Fraction(8, 20) * Fraction(9, 20)
    # haymaker: save at -4 -2 fails on 1..17
    assert knockout_chance(12, 12, attacker_str=16, haymaker=True) == (
        Fraction(8, 20) * Fraction(17, 20)
    )


def _enumerate(t, ac, **kw):
    """Exact outcome chances by trying every natural of every die that gets rolled."""
    counts = {"hit": Fraction(0), "stun": Fraction(0), "knockout": Fraction(0)}
    for n in range(1, 21):
        first = resolve_strike(t, ac, natural=n, stun_natural=1, save_natural=1, **kw)
        if not first.attack.hit:
            continue
        counts["hit"] += Fraction(1, 20)
        for s in range(1, 21):
            second = resolve_strike(t, ac, natural=n, stun_natural=s, save_natural=1, **kw)
            if not second.stunned:
                continue
            counts["stun"] += Fraction(1, 400)
            for v in range(1, 21):
                third = resolve_strike(t, ac, natural=n, stun_natural=s, save_natural=v, **kw)
                counts["knockout"] += Fraction(third.knocked_out, 8000)
    return counts


@pytest.mark.parametrize(
    "kw",
    [
        {"attacker_str": 16, **BASE},
        {"attacker_str": 3, "haymaker": True, **BASE},
        {"defender_con": 4, "defender_save": 16, "attacker_str": 18},
        {
            "defender_con": 14,
            "defender_save": 4,
            "haymaker": True,
            "modifiers": (Modifier(2, "magic"),),
        },
    ],
)
def test_the_strike_odds_match_an_enumeration_of_every_die(kw):
    odds = strike_odds(17, 5, **kw)
    assert (odds.hit, odds.stun, odds.knockout) == tuple(_enumerate(17, 5, **kw).values())


@settings(max_examples=150)
@given(
    st.integers(-3, 20),
    st.integers(-10, 12),
    st.integers(0, 30),
    st.integers(1, 30),
    st.one_of(st.none(), st.integers(3, 18)),
    st.booleans(),
    st.booleans(),
    st.integers(1, 20),
    st.integers(1, 20),
    st.integers(1, 20),
)
def test_every_strike_outcome_agrees_with_its_rolls(
    t, ac, con, save, score, haymaker, pulled, n, s, v
):
    result = resolve_strike(
        t,
        ac,
        defender_con=con,
        defender_save=save,
        attacker_str=score,
        haymaker=haymaker,
        pulled=pulled,
        natural=n,
        stun_natural=s,
        save_natural=v,
    )
    if not result.attack.hit:
        assert result.outcome is StrikeOutcome.MISS
        return
    assert result.damage == strike_damage(score, pulled)
    assert result.t == s - con
    assert result.stunned == (s - con > 0)
    assert result.knocked_out == (result.stunned and not result.save.saved)


def test_it_rolls_every_die_from_the_random_source():
    a = resolve_strike(19, 9, rng=random.Random(1234), defender_con=3, defender_save=14)
    b = resolve_strike(19, 9, rng=random.Random(1234), defender_con=3, defender_save=14)
    assert a == b


@given(
    st.one_of(st.integers(-50, 50), st.none(), st.text(max_size=3)),
    st.one_of(st.integers(-50, 50), st.none()),
    st.one_of(st.integers(-5, 25), st.none(), st.text(max_size=2)),
)
def test_any_strike_input_gives_a_result_or_a_rules_error(con, save, score):
    try:
        resolve_strike(
            15,
            5,
            defender_con=con,
            defender_save=save,
            attacker_str=score,
            natural=20,
            stun_natural=20,
            save_natural=1,
        )
        strike_odds(15, 5, defender_con=con, defender_save=save, attacker_str=score)
    except RulesError:
        pass
