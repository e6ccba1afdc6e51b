"""BECMI hit rolls: the to-hit derivation, the hit table, range and cover (becmi.md, seed 003)."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import becmi
from rules.becmi import (
    AttackOutcome,
    Column,
    Cover,
    CoverMaterial,
    RangeBand,
    attack_odds,
    cover_adjustment,
    range_adjustment,
    resolve_attack,
    roll_needed,
    thac0,
)
from rules.becmi_hit import adjustment
from rules.core import Modifier
from rules.errors import RulesError


class NoDice:
    """A random source that must not be used."""

    def randint(self, a: int, b: int) -> int:
        raise AssertionError("no die should be rolled")


def test_every_public_name_is_exported():
    for name in becmi.__all__:
        assert hasattr(becmi, name), name


# --- roll_needed: the page's worked values (THAC0 10) -------------------------------------------

WORKED = [
    (8, 2, 0),
    (9, 2, 0),  # H = 1, add 1
    (12, 2, 0),  # H = -2, add 4
    (13, 2, 0),  # H = -3 + 4 = 1, read as 2
    (15, 2, 1),  # H = -5 + 4 = -1
    (28, 2, 10),  # H = -18 + 4 = -14, + 4 = -10
    (-10, 20, 0),
    (-14, 20, 0),  # H = 24, subtract 4
    (-15, 21, 0),
    (-24, 30, 0),
    (-28, 30, 0),  # 38 - 4 = 34, - 4 = 30
    (-29, 31, 0),
]


@pytest.mark.parametrize(("ac", "needed", "bonus"), WORKED)
def test_it_gives_the_worked_values_of_the_rule_page(ac, needed, bonus):
    assert roll_needed(10, ac) == (needed, bonus)


@pytest.mark.parametrize("h", range(2, 21))
def test_it_leaves_a_needed_value_from_2_to_20_alone(h):
    assert roll_needed(h, 0) == (h, 0)


@pytest.mark.parametrize(
    ("h", "needed", "bonus"),
    [
        (1, 2, 0),
        (-2, 2, 0),
        (-3, 2, 0),
        (-4, 2, 0),
        (-5, 2, 1),
        (-14, 2, 10),
        (-15, 2, 10),
        (-18, 2, 10),
        (-19, 2, 11),
        (-27, 2, 19),
        (-28, 2, 20),
        (-32, 2, 20),
        (-33, 2, 21),
        (25, 21, 0),
        (33, 29, 0),
        (34, 30, 0),
        (38, 30, 0),
        (39, 31, 0),
        (47, 39, 0),
        (48, 40, 0),
        (52, 40, 0),
        (53, 41, 0),
    ],
)
def test_it_steps_past_every_ten_by_up_to_four(h, needed, bonus):
    assert roll_needed(0, -h) == (needed, bonus)


def _ladder() -> list[int]:
    """Signed reading of roll_needed over AC for THAC0 0: the needed roll, or −bonus."""
    out = []
    for ac in range(100, -101, -1):
        needed, bonus = roll_needed(0, ac)
        out.append(-bonus if bonus else needed)
    return out


def test_each_of_20_30_40_and_minus_10_20_stands_for_five_acs():
    ladder = _ladder()
    for value in (20, 30, 40, 50, 60, 70):
        assert ladder.count(value) == 5, value
    for value in (-10, -20, -30, -40, -50):
        assert ladder.count(value) == 5, value
    assert ladder.count(2) == 7  # H = 2 .. -4: 0 and 1 read as 2 (becmi.md)


def test_the_needed_value_climbs_one_step_at_a_time_as_ac_improves():
    ladder = _ladder()
    for before, after in itertools.pairwise(ladder):
        assert after - before in (0, 1) or (before, after) == (-1, 2), (before, after)


@given(st.integers(-100, 100), st.integers(-100, 100))
def test_roll_needed_always_gives_at_least_2_and_a_bonus_only_at_2(t, ac):
    needed, bonus = roll_needed(t, ac)
    assert needed >= 2
    assert bonus >= 0
    assert bonus == 0 or needed == 2


@pytest.mark.parametrize(
    ("thac0_", "ac", "code"),
    [
        (None, 5, "thac0_out_of_range"),
        (10, "5", "ac_out_of_range"),
        (True, 5, "thac0_out_of_range"),
        (101, 0, "thac0_out_of_range"),
        (0, -101, "ac_out_of_range"),
    ],
)
def test_it_refuses_a_thac0_or_ac_that_is_not_a_sensible_whole_number(thac0_, ac, code):
    with pytest.raises(RulesError) as err:
        roll_needed(thac0_, ac)
    assert err.value.code == code


# --- the hit table: every row of the seed ---------------------------------------------------------

MAGIC_USER = [
    (1, 5, 19),
    (6, 10, 17),
    (11, 15, 15),
    (16, 20, 13),
    (21, 25, 11),
    (26, 30, 9),
    (31, 35, 7),
    (36, 36, 5),
]
CLERIC_THIEF = [
    (1, 4, 19),
    (5, 8, 17),
    (9, 12, 15),
    (13, 16, 13),
    (17, 20, 11),
    (21, 24, 9),
    (25, 28, 7),
    (29, 32, 5),
    (33, 36, 3),
]
FIGHTER = [
    (1, 3, 19),
    (4, 6, 17),
    (7, 9, 15),
    (10, 12, 13),
    (13, 15, 11),
    (16, 18, 9),
    (19, 21, 7),
    (22, 24, 5),
    (25, 27, 3),
    (28, 30, 1),
    (31, 33, -1),
    (34, 36, -3),
]
RANKS = list(zip("ABCDEFGHIJKLM", range(15, 2, -1), strict=True))
# (lower HD of the row or None for "up to 1", upper HD or None for "and up", THAC0)
MONSTER = [
    (None, 1, 19),
    (1, 2, 18),
    (2, 3, 17),
    (3, 4, 16),
    (4, 5, 15),
    (5, 6, 14),
    (6, 7, 13),
    (7, 8, 12),
    (8, 9, 11),
    (9, 11, 10),
    (11, 13, 9),
    (13, 15, 8),
    (15, 17, 7),
    (17, 19, 6),
    (19, 21, 5),
    (21, 23, 4),
    (23, 25, 3),
    (25, 27, 2),
    (27, 29, 1),
    (29, 31, 0),
    (31, 33, -1),
    (33, 35, -2),
    (35, None, -3),
]


def _levels(column, rows):
    return [(column, level, value) for low, high, value in rows for level in range(low, high + 1)]


CLASS_CASES = (
    _levels("magic-user", MAGIC_USER)
    + _levels("cleric", CLERIC_THIEF)
    + _levels("thief", CLERIC_THIEF)
    + _levels("fighter", FIGHTER)
)


@pytest.mark.parametrize(("column", "level", "value"), CLASS_CASES)
def test_it_reads_every_class_level_of_the_hit_table(column, level, value):
    assert thac0(column, level) == value


@pytest.mark.parametrize("column", ["magic-user", "cleric", "thief", "fighter", "normal-human"])
def test_a_normal_man_has_thac0_20(column):
    assert thac0(column, 0) == 20


@pytest.mark.parametrize(("rank", "value"), RANKS)
def test_it_reads_every_demi_human_attack_rank(rank, value):
    assert thac0("demi-human", rank) == value
    assert thac0(Column.DEMI_HUMAN, rank.lower()) == value


@pytest.mark.parametrize(("column", "level", "value"), _levels("demi-human", FIGHTER))
def test_a_demi_human_below_rank_a_uses_the_fighter_column(column, level, value):
    assert thac0(column, level) == value


def _monster_cases():
    cases = []
    for low, high, value in MONSTER:
        if low is None:
            cases += [
                ("½", value),
                ("1/2", value),
                ("¼", value),
                ("1-1", value),
                ("1", value),
                ("1*", value),
                (1, value),
                ("½+1", value),
            ]
            continue
        cases += [(f"{low}+1", value), (f"{low}+", value), (f"{low}+2**", value)]
        if high is None:
            cases += [(str(low + 1), value), ("99", value), ("99+3", value)]
            continue
        cases += [
            (str(high), value),
            (f"{high}*", value),
            (high, value),
            (f"{high}-1", value),
            (f"{high}–2", value),
            (f"{high} - 1", value),
        ]
        cases += [(str(hd), value) for hd in range(low + 1, high)]
    return cases


@pytest.mark.parametrize(("hd", "value"), _monster_cases())
def test_it_reads_every_monster_row_of_the_hit_table(hd, value):
    assert thac0("monster", hd) == value


def test_bonus_hit_points_move_a_monster_up_one_row():
    assert thac0("monster", "2") == 18
    assert thac0("monster", "2+1") == 17
    assert thac0("monster", "9") == 11
    assert thac0("monster", "9+1") == 10
    assert thac0("monster", "10+1") == 10  # 10+1 is still within 9+ to 11


def test_the_monster_rows_differ_from_ose_at_8_and_9_hd():
    assert thac0("monster", "8") == 12
    assert thac0("monster", "9") == 11


@pytest.mark.parametrize("name", ["normal human", "normal man", " Normal Human "])
def test_a_normal_human_in_the_monster_column_has_thac0_20(name):
    assert thac0("monster", name) == 20


@pytest.mark.parametrize("column", ["Magic_User", "magic user", " FIGHTER ", "normal-man"])
def test_it_accepts_column_names_written_loosely(column):
    assert thac0(column, 1) in (19, 20)


@pytest.mark.parametrize(
    ("column", "level", "code"),
    [
        ("paladin", 1, "unknown_column"),
        (None, 1, "unknown_column"),
        ("fighter", 37, "level_out_of_range"),
        ("fighter", -1, "level_out_of_range"),
        ("fighter", "A", "level_out_of_range"),
        ("cleric", 2.5, "level_out_of_range"),
        ("demi-human", "N", "bad_attack_rank"),
        ("demi-human", "AB", "bad_attack_rank"),
        ("demi-human", 0, "level_out_of_range"),
        ("monster", "0", "bad_hit_dice"),
        ("monster", "3/2", "bad_hit_dice"),
        ("monster", "2-", "bad_hit_dice"),
        ("monster", "d8", "bad_hit_dice"),
        ("monster", "", "bad_hit_dice"),
        ("monster", 0, "bad_hit_dice"),
        ("monster", True, "bad_hit_dice"),
        ("monster", 2.0, "bad_hit_dice"),
    ],
)
def test_it_refuses_a_level_the_column_does_not_have(column, level, code):
    with pytest.raises(RulesError) as err:
        thac0(column, level)
    assert err.value.code == code


@given(
    st.sampled_from([c.value for c in Column]),
    st.one_of(st.integers(-5, 60), st.text(max_size=6), st.none(), st.floats()),
)
def test_thac0_gives_a_value_or_a_rules_error_for_any_input(column, level):
    try:
        value = thac0(column, level)
    except RulesError:
        return
    assert -3 <= value <= 20


# --- ability adjustments (B/X table) ------------------------------------------------------------

ADJUSTMENTS = {
    3: -3,
    4: -2,
    5: -2,
    6: -1,
    7: -1,
    8: -1,
    9: 0,
    10: 0,
    11: 0,
    12: 0,
    13: 1,
    14: 1,
    15: 1,
    16: 2,
    17: 2,
    18: 3,
}


@pytest.mark.parametrize(("score", "adj"), ADJUSTMENTS.items())
def test_it_uses_the_bx_ability_adjustments(score, adj):
    assert adjustment(score) == adj


@pytest.mark.parametrize("score", [2, 19, "12", 12.0])
def test_it_refuses_an_ability_score_off_the_table(score):
    with pytest.raises(RulesError) as err:
        adjustment(score)
    assert err.value.code == "ability_out_of_range"


# --- range and cover ----------------------------------------------------------------------------


@pytest.mark.parametrize(("band", "adj"), [("short", 1), ("medium", 0), ("long", -1)])
def test_it_adjusts_for_range(band, adj):
    assert range_adjustment(band) == adj
    assert range_adjustment(RangeBand(band)) == adj


COVER = [
    ("none", 0, 0),
    ("quarter", -1, -2),
    ("half", -2, -4),
    ("three_quarters", -3, -6),
    ("full", -4, None),
]


@pytest.mark.parametrize(("cover", "soft", "hard"), COVER)
def test_it_adjusts_for_every_row_of_the_cover_table(cover, soft, hard):
    assert cover_adjustment(cover, "soft") == soft
    assert cover_adjustment(cover, CoverMaterial.HARD) == hard


def test_full_hard_cover_makes_the_attack_impossible_without_rolling():
    result = resolve_attack(15, 5, cover="full", cover_material="hard", rng=NoDice())
    assert result.outcome is AttackOutcome.IMPOSSIBLE
    assert not result.hit
    assert result.natural is None and result.total is None and result.needed is None
    assert attack_odds(15, 5, cover="full", cover_material="hard") == 0


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"range_band": "far"}, "unknown_range"),
        ({"cover": "most"}, "unknown_cover"),
        ({"cover_material": "wood"}, "unknown_cover_material"),
        ({"modifiers": (1,)}, "bad_modifier"),
        ({"modifiers": (Modifier(True, "x"),)}, "bad_modifier"),
    ],
)
def test_it_refuses_unknown_situations(kwargs, code):
    with pytest.raises(RulesError) as err:
        attack_odds(15, 5, **kwargs)
    assert err.value.code == code


# --- the attack roll ------------------------------------------------------------------------------


def test_it_hits_when_the_total_reaches_the_needed_value():
    result = resolve_attack(17, 4, natural=12, modifiers=(Modifier(1, "str"),))
    assert (result.needed, result.total, result.hit) == (13, 13, True)
    assert resolve_attack(17, 4, natural=11).outcome is AttackOutcome.MISS


def test_a_natural_1_always_misses():
    result = resolve_attack(10, 9, natural=1, modifiers=(Modifier(5, "magic"),))
    assert result.total == 6 and result.needed == 2 and not result.hit


def test_a_natural_20_does_not_always_hit():
    result = resolve_attack(10, -20, natural=20)
    assert result.needed == 26 and not result.hit
    assert attack_odds(10, -20) == 0
    assert resolve_attack(10, -20, natural=20, modifiers=(Modifier(6, "magic"),)).hit


def test_it_carries_the_damage_bonus_of_a_negative_needed_value():
    result = resolve_attack(10, 28, natural=2)
    assert result.hit and result.damage_bonus == 10


def test_it_lists_range_and_cover_as_modifiers():
    result = resolve_attack(
        15, 5, range_band="short", cover="half", cover_material="hard", natural=14
    )
    assert result.modifiers == (Modifier(1, "range_short"), Modifier(-4, "cover_hard_half"))
    assert result.total == 11 and result.needed == 10 and result.hit


def test_medium_range_and_no_cover_add_no_modifier():
    assert resolve_attack(15, 5, range_band="medium", natural=10).modifiers == ()


def test_a_boarder_has_minus_2_to_hit_and_its_ac_is_2_worse():
    boarder = resolve_attack(15, 5, boarding=True, natural=10)
    assert boarder.modifiers == (Modifier(-2, "boarding"),) and boarder.total == 8
    target = resolve_attack(15, 5, target_boarding=True, natural=10)
    assert (target.base_ac, target.ac, target.needed) == (5, 7, 8)
    assert target.ac_modifiers == (Modifier(2, "boarding"),)


def test_it_rolls_the_same_with_the_same_seed():
    a = resolve_attack(15, 3, rng=random.Random(1234))
    b = resolve_attack(15, 3, rng=random.Random(1234))
    assert a == b and 1 <= a.natural <= 20


@pytest.mark.parametrize("entered", [0, 21, 2.5, True])
def test_it_refuses_an_impossible_entered_die(entered):
    with pytest.raises(RulesError):
        resolve_attack(15, 3, natural=entered)


def test_it_needs_a_die_or_a_random_source():
    with pytest.raises(RulesError) as err:
        resolve_attack(15, 3)
    assert err.value.code == "no_random_source"


@pytest.mark.parametrize(
    ("t", "ac", "bonus", "odds"),
    [
        (19, 9, 0, Fraction(11, 20)),
        (19, 0, 0, Fraction(2, 20)),
        (19, -1, 0, Fraction(1, 20)),
        (19, -5, 0, Fraction(1, 20)),
        (19, -6, 0, Fraction(0)),
        (19, -6, 1, Fraction(1, 20)),
        (19, 17, 0, Fraction(19, 20)),
        (19, 17, -10, Fraction(9, 20)),
        (10, 9, -10, Fraction(9, 20)),
        (10, 9, -19, Fraction(0)),
        (10, 9, -5, Fraction(14, 20)),
        (15, 5, 0, Fraction(11, 20)),
    ],
)
def test_it_gives_the_exact_odds_of_a_hit(t, ac, bonus, odds):
    assert attack_odds(t, ac, modifiers=(Modifier(bonus, "magic"),)) == odds


situations = st.fixed_dictionaries(
    {
        "range_band": st.sampled_from([None, *RangeBand]),
        "cover": st.sampled_from(list(Cover)),
        "cover_material": st.sampled_from(list(CoverMaterial)),
        "boarding": st.booleans(),
        "target_boarding": st.booleans(),
        "modifiers": st.lists(
            st.builds(Modifier, st.integers(-10, 10), st.just("magic")), max_size=3
        ),
    }
)


@settings(max_examples=200)
@given(st.integers(-3, 20), st.integers(-30, 30), situations)
def test_the_odds_match_an_enumeration_of_every_natural(t, ac, situation):
    odds = attack_odds(t, ac, **situation)
    results = [resolve_attack(t, ac, natural=n, **situation) for n in range(1, 21)]
    if results[0].outcome is AttackOutcome.IMPOSSIBLE:
        assert odds == 0
        return
    assert odds == Fraction(sum(r.hit for r in results), 20)
    for r in results:
        assert r.total == r.natural + sum(m.value for m in r.modifiers)


@given(
    st.one_of(st.integers(-200, 200), st.none(), st.text(max_size=3)),
    st.one_of(st.integers(-200, 200), st.none(), st.text(max_size=3)),
    st.one_of(st.none(), st.text(max_size=8), st.sampled_from(list(RangeBand))),
    st.one_of(st.text(max_size=8), st.sampled_from(list(Cover))),
)
def test_any_attack_input_gives_a_result_or_a_rules_error(t, ac, band, cover):
    try:
        resolve_attack(t, ac, range_band=band, cover=cover, natural=10)
        attack_odds(t, ac, range_band=band, cover=cover)
    except RulesError:
        pass


def test_every_bench_case_runs():
    for name, case in becmi.BENCH_CASES:
        assert name.startswith("becmi.")
        assert case() is not None
