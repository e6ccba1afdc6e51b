"""BECMI wrestling: ratings, helpers, opposed rolls and the hold ladder (becmi.md, seed 003)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.becmi import (
    Hold,
    Winner,
    helper_modifiers,
    monster_wrestling_rating,
    opposed_odds,
    pin_damage,
    pin_damage_chance,
    resolve_wrestling_round,
    wrestling_rating,
    wrestling_round_odds,
)
from rules.core import Modifier
from rules.errors import RulesError


@pytest.mark.parametrize(
    ("level", "str_", "dex", "ac", "rating"),
    [
        (1, 9, 9, 9, 10),  # ⌈1/2⌉ = 1, unarmoured
        (2, 9, 9, 9, 10),
        (3, 9, 9, 9, 11),
        (5, 16, 13, 4, 10),  # 3 + 2 + 1 + banded mail 4
        (10, 18, 18, 3, 14),  # 5 + 3 + 3 + plate 3
        (1, 3, 3, 9, 4),  # 1 - 3 - 3 + 9
        (0, 12, 12, 9, 9),  # a normal man
        (36, 12, 12, 0, 18),
    ],
)
def test_a_characters_rating_is_half_level_up_plus_str_dex_and_basic_ac(
    level, str_, dex, ac, rating
):
    assert wrestling_rating(level, str_, dex, ac) == rating


def test_an_unarmoured_character_counts_ac_9():
    assert wrestling_rating(4, 12, 12) == 11


@pytest.mark.parametrize(
    ("hd", "ac", "rating"), [("4", 5, 13), (1, 7, 9), ("2+1", 6, 10), ("½", 8, 9), ("10**", -2, 18)]
)
def test_a_monsters_rating_is_twice_its_hd_plus_basic_ac(hd, ac, rating):
    assert monster_wrestling_rating(hd, ac) == rating


@pytest.mark.parametrize(
    ("helpers", "opponent", "mods"),
    [
        ([1], 4, (Modifier(1, "helpers_small"),)),
        ([2], 4, (Modifier(1, "helpers_small"),)),  # exactly half counts as the smaller kind
        ([3], 4, (Modifier(5, "helpers_large"),)),
        ([1, 1, 5, "3+1"], "4+2", (Modifier(2, "helpers_small"), Modifier(10, "helpers_large"))),
        (["½"], 1, (Modifier(1, "helpers_small"),)),
        ([], 6, ()),
    ],
)
def test_each_helper_adds_1_if_small_or_5_if_large(helpers, opponent, mods):
    assert helper_modifiers(helpers, opponent) == mods


SMALL, LARGE = "helpers_small", "helpers_large"


@pytest.mark.parametrize(
    ("helper", "opponent", "reason"),
    [
        ("4", 8, SMALL),  # exactly half: not "more than half"
        (4, "8", SMALL),
        ("4+1", 8, LARGE),  # the seed's "4+" is more than 4 HD
        ("4+", 8, LARGE),
        ("4 + 2", 8, LARGE),
        ("4+1**", 8, LARGE),  # asterisks change nothing
        ("4*", 8, SMALL),
        ("4-1", 8, SMALL),
        ("3+1", 8, SMALL),
        ("5", 8, LARGE),
        ("4", "8+1", SMALL),  # half of 8+1 is just above 4
        ("4+1", "8+1", LARGE),
        ("4", "8-1", LARGE),  # half of 8-1 is just below 4
        ("4-1", "8-1", SMALL),
        ("4+3", 9, SMALL),  # bonus hit points never make up half a die
        ("5-1", 9, LARGE),
        ("½", 1, SMALL),
        ("½", "1+1", SMALL),
        ("1-1", 2, SMALL),
        ("1", 2, SMALL),
        ("1+1", 2, LARGE),
        ("1", "2-1", LARGE),
        (4.5, 9, SMALL),
        (Fraction(9, 2), "9*", SMALL),
        (4.5, 8, LARGE),
    ],
)
def test_a_helper_is_large_only_with_more_than_half_the_hit_dice(helper, opponent, reason):
    (modifier,) = helper_modifiers([helper], opponent)
    assert modifier == Modifier(5 if reason == LARGE else 1, reason)


def test_a_4_plus_1_helper_of_an_8_hd_wrestler_adds_5():
    assert helper_modifiers(["4+1", "4", "2+1"], 8) == (Modifier(2, SMALL), Modifier(5, LARGE))


@pytest.mark.parametrize("bad", [0, -2, True, "x", None])
def test_it_refuses_a_helper_without_hit_dice(bad):
    with pytest.raises(RulesError):
        helper_modifiers([bad], 4)


LADDER = [
    ("free", Winner.ATTACKER, "grabbed"),
    ("grabbed", Winner.ATTACKER, "thrown"),
    ("thrown", Winner.ATTACKER, "pinned"),
    ("pinned", Winner.ATTACKER, "pinned"),
    ("free", Winner.DEFENDER, "free"),
    ("grabbed", Winner.DEFENDER, "free"),
    ("thrown", Winner.DEFENDER, "grabbed"),
    ("pinned", Winner.DEFENDER, "thrown"),
    ("free", Winner.TIE, "free"),
    ("grabbed", Winner.TIE, "grabbed"),
    ("thrown", Winner.TIE, "thrown"),
    ("pinned", Winner.TIE, "pinned"),
]
NATURALS = {Winner.ATTACKER: (15, 5), Winner.DEFENDER: (5, 15), Winner.TIE: (10, 10)}


@pytest.mark.parametrize(("before", "winner", "after"), LADDER)
def test_the_winner_moves_the_hold_one_step(before, winner, after):
    a, d = NATURALS[winner]
    # equal ratings; the pinned penalty is 0 here so the naturals alone decide
    result = resolve_wrestling_round(
        before,
        10,
        10,
        defender_save=20,
        pinned_penalty=0,
        attacker_natural=a,
        defender_natural=d,
        save_natural=20,
    )
    assert result.winner is winner
    assert result.hold_before == before and result.hold == after


def test_it_adds_the_rating_and_modifiers_to_each_roll():
    result = resolve_wrestling_round(
        "free",
        12,
        9,
        defender_save=12,
        attacker_modifiers=helper_modifiers([1], 6),
        defender_modifiers=(Modifier(-2, "situational"),),
        attacker_natural=4,
        defender_natural=9,
    )
    assert result.attacker_modifiers == (
        Modifier(12, "wrestling_rating"),
        Modifier(1, "helpers_small"),
    )
    assert (result.attacker_total, result.defender_total) == (17, 16)
    assert result.winner is Winner.ATTACKER and result.hold is Hold.GRABBED


def test_a_pinned_creatures_rating_drops_by_3_or_more():
    result = resolve_wrestling_round(
        "pinned",
        10,
        10,
        defender_save=12,
        attacker_natural=10,
        defender_natural=12,
        save_natural=20,
    )
    assert result.defender_modifiers[-1] == Modifier(-3, "pinned")
    assert result.defender_total == 19 and result.winner is Winner.ATTACKER
    harsher = resolve_wrestling_round(
        "pinned",
        10,
        10,
        defender_save=12,
        pinned_penalty=5,
        attacker_natural=10,
        defender_natural=12,
        save_natural=20,
    )
    assert harsher.defender_total == 17


def test_a_pinned_creature_that_fails_its_save_takes_1_plus_the_pinners_str_adjustment():
    result = resolve_wrestling_round(
        "thrown",
        10,
        10,
        defender_save=12,
        pinner_str=17,
        attacker_natural=15,
        defender_natural=3,
        save_natural=11,
    )
    assert result.hold is Hold.PINNED
    assert not result.pin_save.saved and result.damage == 3


def test_a_pinned_creature_that_saves_takes_no_damage():
    result = resolve_wrestling_round(
        "thrown",
        10,
        10,
        defender_save=12,
        pinner_str=17,
        attacker_natural=15,
        defender_natural=3,
        save_natural=12,
    )
    assert result.pin_save.saved and result.damage == 0


def test_no_save_is_rolled_unless_the_round_ends_pinned():
    result = resolve_wrestling_round(
        "pinned", 10, 10, defender_save=12, attacker_natural=2, defender_natural=20, save_natural=1
    )
    assert result.hold is Hold.THROWN and result.pin_save is None and result.damage == 0


@pytest.mark.parametrize(("score", "damage"), [(None, 1), (3, 0), (9, 1), (13, 2), (18, 4)])
def test_the_pins_damage_is_1_plus_str_adjustment(score, damage):
    assert pin_damage(score) == damage


def test_it_gives_the_chance_of_taking_the_pins_damage():
    assert pin_damage_chance(12) == Fraction(11, 20)
    assert pin_damage_chance(12, (Modifier(2, "magic"),)) == Fraction(9, 20)


@pytest.mark.parametrize(
    ("a", "d", "win", "tie"),
    [
        (0, 0, Fraction(190, 400), Fraction(20, 400)),
        (1, 0, Fraction(210, 400), Fraction(19, 400)),
        (19, 0, Fraction(399, 400), Fraction(1, 400)),
        (20, 0, 1, 0),
        (0, 20, 0, 0),
        (0, 19, 0, Fraction(1, 400)),
    ],
)
def test_it_gives_the_exact_chance_of_winning_an_opposed_roll(a, d, win, tie):
    odds = opposed_odds(a, d)
    assert (odds.attacker, odds.tie) == (win, tie)
    assert odds.attacker + odds.tie + odds.defender == 1


@given(st.integers(-40, 40), st.integers(-40, 40))
def test_the_opposed_odds_match_an_enumeration_of_all_400_pairs(a, d):
    pairs = [(x + a, y + d) for x in range(1, 21) for y in range(1, 21)]
    odds = opposed_odds(a, d)
    assert odds.attacker == Fraction(sum(p > q for p, q in pairs), 400)
    assert odds.tie == Fraction(sum(p == q for p, q in pairs), 400)
    assert odds.defender == Fraction(sum(p < q for p, q in pairs), 400)


@settings(max_examples=40)
@given(st.sampled_from(list(Hold)), st.integers(-5, 25), st.integers(-5, 25), st.integers(0, 6))
def test_the_round_odds_match_an_enumeration_of_every_pair_of_naturals(hold, a, d, penalty):
    expected: dict[Hold, Fraction] = {}
    for x in range(1, 21):
        for y in range(1, 21):
            after = resolve_wrestling_round(
                hold,
                a,
                d,
                defender_save=10,
                pinned_penalty=penalty,
                attacker_natural=x,
                defender_natural=y,
                save_natural=10,
            ).hold
            expected[after] = expected.get(after, Fraction(0)) + Fraction(1, 400)
    assert wrestling_round_odds(hold, a, d, pinned_penalty=penalty) == expected


def test_it_rolls_every_die_from_the_random_source():
    rounds = []
    for _ in range(2):
        rng = random.Random(1234)
        hold = Hold.FREE
        trail = []
        for _ in range(10):
            result = resolve_wrestling_round(hold, 14, 10, defender_save=12, rng=rng)
            hold = result.hold
            trail.append(result)
        rounds.append(trail)
    assert rounds[0] == rounds[1]


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"hold": "hugging"}, "unknown_hold"),
        ({"attacker_rating": "10"}, "rating_out_of_range"),
        ({"defender_save": 0}, "save_target_out_of_range"),
        ({"pinned_penalty": -1}, "bad_pinned_penalty"),
        ({"pinner_str": 19}, "ability_out_of_range"),
    ],
)
def test_it_refuses_bad_wrestling_input(kwargs, code):
    args = {
        "hold": "free",
        "attacker_rating": 10,
        "defender_rating": 10,
        "defender_save": 12,
        **kwargs,
    }
    with pytest.raises(RulesError) as err:
        resolve_wrestling_round(
            args.pop("hold"),
            args.pop("attacker_rating"),
            args.pop("defender_rating"),
            attacker_natural=20,
            defender_natural=1,
            save_natural=1,
            **args,
        )
    assert err.value.code == code


@given(
    st.one_of(st.integers(-1, 40), st.none(), st.text(max_size=2)),
    st.one_of(st.integers(0, 20), st.none()),
    st.one_of(st.integers(-20, 20), st.none()),
)
def test_any_rating_input_gives_a_result_or_a_rules_error(level, score, ac):
    try:
        wrestling_rating(level, score, score, ac)
        monster_wrestling_rating(level, ac)
    except RulesError:
        pass
