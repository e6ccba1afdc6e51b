"""Old-School Essentials: every cell of the seed's attack matrix, the monster THAC0 and save rows,
the worked example, saves, ability checks, damage and healing."""

from __future__ import annotations

import json
import random
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import dice, ose
from rules.core import Modifier
from rules.errors import RulesError
from rules.ose import AttackMethod, HitDice, NaturalRule, Outcome, SaveCategory

# ----- the seed's own tables -----

# The numbers of the seed's tables (000_ab6126ef0dc4f820.txt, the Czech OSE document), copied
# into the repository once so that the tests run on any clone: every cell of the attack matrix,
# the monster THAC0 and save rows with the seed's row labels, and its two worked examples.
DATA = json.loads((Path(__file__).parent / "data" / "ose_tables.json").read_text("utf-8"))
MATRIX_COLUMNS: list[int] = DATA["attack_matrix"]["columns"]
# (HD label, THAC0, bracket bonus, {AC: roll needed}) for every row of the matrix
MATRIX = [
    (label, thac0, bonus, dict(zip(MATRIX_COLUMNS, cells, strict=True)))
    for label, thac0, bonus, cells in DATA["attack_matrix"]["rows"]
]
THAC0_TABLE = [(label, thac0) for label, thac0, _ in DATA["monster_thac0"]]
SAVE_TABLE = [(label, tuple(values)) for label, values in DATA["monster_saves"]["rows"]]
WORKED = DATA["worked_example"]
DIRECT = DATA["direct_thac0_example"]


def _hd_examples_for_thac0_row(label: str) -> list[str]:
    """Hit Dice strings that belong in a row of the monster THAC0 table."""
    if label == "BČ":
        return ["normal human", "BČ", "Normal-Human"]
    if label == "Až 1":
        return ["1/2", "½", "1-1", "1–1", "1", "1*", "½*"]
    if m := re.fullmatch(r"(\d+)\+ až (\d+)", label):
        low, high = int(m[1]), int(m[2])
        return (
            [f"{low}+1", f"{low}+", f"{low} + 3*", f"{low}+1**"]
            + [str(k) for k in range(low + 1, high + 1)]
            + [f"{k}-1" for k in range(low + 1, high + 1)]
            + [f"{k}+1" for k in range(low + 1, high)]
        )
    m = re.fullmatch(r"(\d+)\+ a víc", label)
    low = int(m[1])
    return [f"{low}+1", f"{low}+", str(low + 1), f"{low + 1}+5*", "30", "999"]


def _hd_examples_for_save_row(label: str) -> list[str]:
    if label == "BČ":
        return ["normal human", "BČ"]
    if m := re.fullmatch(r"(\d+)–(\d+)", label):
        low, high = int(m[1]), int(m[2])
        extra = ["½", "1/2", "1-1"] if low == 1 else []
        return extra + [h for k in range(low, high + 1) for h in (str(k), f"{k}+2", f"{k}**")]
    m = re.fullmatch(r"(\d+) a víc", label)
    low = int(m[1])
    return [str(low), f"{low}+1", f"{low}+", "40", "999"]


def test_the_seed_data_is_complete():
    assert MATRIX_COLUMNS == list(range(-3, 10))
    assert [row[1] for row in MATRIX] == list(range(20, 4, -1))
    assert all(len(row) == 4 and len(row[3]) == 13 for row in DATA["attack_matrix"]["rows"])
    assert [label for label, *_ in MATRIX] == [label for label, _ in THAC0_TABLE]
    assert len(THAC0_TABLE) == 16
    assert [t for _, t in THAC0_TABLE] == list(range(20, 4, -1))
    assert DATA["monster_saves"]["columns"] == [c.value for c in SaveCategory]
    assert len(SAVE_TABLE) == 9
    assert all(len(values) == 5 for _, values in SAVE_TABLE)
    assert SAVE_TABLE[0][0] == "BČ"
    assert [label for label, _ in SAVE_TABLE[1:]] == [
        "1–3", "4–6", "7–9", "10–12", "13–15", "16–18", "19–21", "22 a víc"
    ]  # fmt: skip


@pytest.mark.parametrize("case", [pytest.param(r, id=f"thac0-{r[1]}") for r in MATRIX])
def test_every_cell_of_the_seeds_attack_matrix(case):
    _, thac0, _, cells = case
    assert len(cells) == 13
    assert {ac: ose.roll_needed(thac0, ac) for ac in cells} == cells
    assert {ac: ose.roll_needed(thac0, ac, "matrix") for ac in cells} == cells
    assert ose.attack_matrix()[thac0] == cells


@pytest.mark.parametrize("case", [pytest.param(r, id=r[0]) for r in MATRIX])
def test_every_matrix_row_has_the_bracket_bonus_and_the_monster_row(case):
    label, thac0, bonus, _ = case
    assert ose.attack_bonus(thac0) == bonus
    assert ose.thac0_from_bonus(bonus) == thac0
    assert (label, thac0) in THAC0_TABLE


def test_the_attack_matrix_is_the_seeds_whole_table():
    assert ose.attack_matrix() == {thac0: cells for _, thac0, _, cells in MATRIX}


@pytest.mark.parametrize("case", [pytest.param(r, id=r[0]) for r in DATA["monster_thac0"]])
def test_every_row_of_the_monster_thac0_table(case):
    label, thac0, bonus = case
    examples = _hd_examples_for_thac0_row(label)
    assert {hd: ose.monster_thac0(hd) for hd in examples} == dict.fromkeys(examples, thac0)
    assert ose.attack_bonus(thac0) == bonus


@pytest.mark.parametrize("case", [pytest.param(r, id=r[0]) for r in SAVE_TABLE])
def test_every_row_of_the_monster_save_table(case):
    label, values = case
    keys = ["death", "wands", "paralysis", "breath", "spells"]
    for hd in _hd_examples_for_save_row(label):
        saves = ose.monster_saves(hd)
        assert list(saves) == keys, hd
        assert tuple(saves.values()) == values, hd


def test_bonus_hit_points_move_the_attack_row_but_not_the_save_row():
    assert ose.monster_thac0("2") == 18
    assert ose.monster_thac0("2+1") == 17
    assert ose.monster_saves("3") == ose.monster_saves("3+5")
    assert ose.monster_thac0("21") == 6
    assert ose.monster_thac0("21+") == 5


# ----- the worked examples -----


def test_it_resolves_the_seeds_worked_example():
    # A 5th-level fighter (THAC0 17 [+2]) with STR 13 rolls 14 against AC 4.
    str_bonus = Modifier(ose.ability_modifier(WORKED["strength"]), "str")
    result = ose.resolve_attack(
        thac0=WORKED["thac0"],
        target_ac=WORKED["target_ac"],
        method="matrix",
        modifiers=[str_bonus],
        natural=WORKED["natural"],
    )
    assert str_bonus.value == WORKED["str_modifier"]
    assert result.total == WORKED["total"]
    assert result.hit_ac == WORKED["hit_ac"]
    assert result.hit is WORKED["hit"]
    assert result.outcome is Outcome.HIT
    assert result.needed == 13
    assert result.attack_bonus == WORKED["attack_bonus"]
    assert (result.target_aac, result.ascending_total) == (15, 17)


def test_it_computes_the_seeds_direct_thac0_example():
    # THAC0 19 hits AC 5 on 14 or more (19 − 5 = 14).
    thac0, ac, needed = DIRECT["thac0"], DIRECT["target_ac"], DIRECT["needed"]
    assert ose.roll_needed(thac0, ac, "thac0") == needed
    assert ose.resolve_attack(thac0=thac0, target_ac=ac, method="thac0", natural=needed).hit
    assert not ose.resolve_attack(thac0=thac0, target_ac=ac, method="thac0", natural=needed - 1).hit


# ----- attacks -----


@pytest.mark.parametrize(
    ("thac0", "ac", "method", "needed"),
    [
        (20, -3, "matrix", 20),
        (20, -3, "thac0", 23),
        (20, -3, "ascending", 23),
        (5, 9, "matrix", 2),
        (5, 9, "thac0", -4),
        (19, 10, "matrix", 9),
        (19, -5, "matrix", 20),
        (12, 3, AttackMethod.THAC0, 9),
    ],
)
def test_it_gives_the_roll_needed_under_each_method(thac0, ac, method, needed):
    assert ose.roll_needed(thac0, ac, method) == needed


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ((17, 4, "d20"), "unknown_attack_method"),
        ((17.0, 4), "not_an_integer"),
        ((17, "4"), "not_an_integer"),
        ((True, 4), "not_an_integer"),
    ],
)
def test_it_refuses_bad_attack_inputs(args, code):
    with pytest.raises(RulesError) as err:
        ose.roll_needed(*args)
    assert err.value.code == code


def test_ascending_ac_and_the_attack_bonus_mirror_descending():
    assert ose.ascending_ac(9) == 10
    assert ose.ascending_ac(-3) == 22
    assert ose.descending_ac(ose.ascending_ac(4)) == 4
    assert ose.attack_bonus(20) == -1
    assert ose.attack_bonus(5) == 14


@pytest.mark.parametrize(
    ("thac0", "total", "method", "hit_ac"),
    [
        (17, 15, "matrix", 2),
        (17, 20, "matrix", -3),
        (20, 20, "matrix", -3),
        (20, 10, "matrix", None),
        (20, 11, "matrix", 9),
        (5, 2, "matrix", 3),
        (5, 1, "matrix", None),
        (5, 1, "thac0", 4),
        (20, 20, "thac0", 0),
        (20, 22, "thac0", -2),
        (10, 30, "ascending", -3),
    ],
)
def test_it_reports_the_best_ac_on_the_table_that_the_total_hits(thac0, total, method, hit_ac):
    natural = min(max(total, 1), 20)
    result = ose.resolve_attack(
        thac0=thac0,
        target_ac=9,
        method=method,
        natural=natural,
        modifiers=[Modifier(total - natural, "situational")] if total != natural else (),
    )
    assert result.total == total
    assert result.hit_ac == hit_ac


def test_a_total_of_20_hits_any_ac_on_the_matrix_but_not_with_direct_thac0():
    assert ose.resolve_attack(thac0=20, target_ac=-8, method="matrix", natural=20).hit
    assert not ose.resolve_attack(thac0=20, target_ac=-8, method="thac0", natural=20).hit


def test_a_natural_1_never_hits_on_the_matrix_but_can_with_direct_thac0():
    assert not ose.resolve_attack(thac0=5, target_ac=9, method="matrix", natural=1).hit
    assert ose.resolve_attack(thac0=5, target_ac=9, method="thac0", natural=1).hit
    assert ose.resolve_attack(
        thac0=5, target_ac=9, method="matrix", natural=1, modifiers=[Modifier(1, "str")]
    ).hit


def test_it_rolls_the_attack_with_the_injected_generator():
    a = ose.resolve_attack(thac0=17, target_ac=4, rng=random.Random(3))
    b = ose.resolve_attack(thac0=17, target_ac=4, rng=random.Random(3))
    assert a == b
    assert 1 <= a.natural <= 20


def test_it_refuses_a_modifier_that_is_not_a_modifier():
    with pytest.raises(RulesError) as err:
        ose.resolve_attack(thac0=17, target_ac=4, natural=3, modifiers=[1])
    assert err.value.code == "bad_modifier"


@pytest.mark.parametrize(
    ("thac0", "ac", "modifier", "matrix", "direct"),
    [
        (17, 4, 1, Fraction(9, 20), Fraction(9, 20)),
        (20, -3, 0, Fraction(1, 20), Fraction(0)),
        (20, -3, 3, Fraction(4, 20), Fraction(1, 20)),
        (5, 9, 0, Fraction(19, 20), Fraction(1)),
        (5, 9, -5, Fraction(14, 20), Fraction(1)),
    ],
)
def test_it_compares_the_odds_of_the_matrix_and_direct_thac0(thac0, ac, modifier, matrix, direct):
    odds = ose.attack_odds_compared(thac0=thac0, target_ac=ac, modifier=modifier)
    assert (odds.matrix, odds.thac0, odds.ascending) == (matrix, direct, direct)
    assert odds.differs == (matrix != direct)
    assert odds.for_method("matrix") == matrix


# ----- saves -----


def test_save_categories_come_in_the_seeds_order():
    assert [c.value for c in SaveCategory] == ["death", "wands", "paralysis", "breath", "spells"]


@pytest.mark.parametrize(
    ("value", "natural", "modifier", "damage", "success", "taken"),
    [
        (13, 13, 0, None, True, None),
        (13, 12, 0, None, False, None),
        (13, 12, 1, 21, True, 10),
        (13, 12, 0, 21, False, 21),
        (2, 1, 0, 7, False, 7),
        (2, 2, 0, 7, True, 3),
        (16, 20, -5, 1, False, 1),
        (16, 14, 2, 1, True, 0),
    ],
)
def test_it_halves_damage_on_a_successful_save(value, natural, modifier, damage, success, taken):
    mods = [Modifier(modifier, "situational")] if modifier else []
    result = ose.resolve_save(
        save_value=value, category="breath", natural=natural, modifiers=mods, damage=damage
    )
    assert result.success is success
    assert result.outcome is (Outcome.SUCCESS if success else Outcome.FAILURE)
    assert result.damage_taken == taken
    assert result.category is SaveCategory.BREATH
    assert result.total == natural + modifier


def test_a_save_does_not_change_a_poisons_damage():
    result = ose.resolve_save(save_value=12, category="death", natural=19, damage=8, poison=True)
    assert result.success
    assert result.damage_taken == 8


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"save_value": 0}, "save_value_out_of_range"),
        ({"save_value": 21}, "save_value_out_of_range"),
        ({"category": "dragon"}, "unknown_save_category"),
        ({"damage": -1}, "bad_damage"),
        ({"natural": 21}, "die_out_of_range"),
    ],
)
def test_it_refuses_bad_save_inputs(kwargs, code):
    args = {"save_value": 12, "category": "spells", "natural": 10} | kwargs
    with pytest.raises(RulesError) as err:
        ose.resolve_save(**args)
    assert err.value.code == code


@pytest.mark.parametrize(
    ("n", "half"), [(0, 0), (1, 0), (2, 1), (3, 1), (7, 3), (8, 4), (21, 10), (100, 50)]
)
def test_it_halves_damage_rounding_down(n, half):
    assert ose.halve_damage(n) == half


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True])
def test_it_refuses_to_halve_what_is_not_damage(bad):
    with pytest.raises(RulesError) as err:
        ose.halve_damage(bad)
    assert err.value.code == "bad_damage"


def test_a_magic_items_combat_bonus_helps_it_survive():
    result = ose.resolve_item_save(save_value=12, category="breath", item_bonus=2, natural=10)
    assert result.survived
    assert result.outcome is Outcome.SURVIVED
    assert result.modifiers == (Modifier(2, "item_bonus"),)
    plain = ose.resolve_item_save(save_value=12, category="breath", natural=10)
    assert plain.outcome is Outcome.DESTROYED
    assert ose.item_save_odds(12, 2) == Fraction(11, 20)


# ----- ability checks -----


@pytest.mark.parametrize(
    ("score", "modifier"),
    [
        (3, -3),
        (4, -2),
        (5, -2),
        (6, -1),
        (7, -1),
        (8, -1),
        (9, 0),
        (10, 0),
        (11, 0),
        (12, 0),
        (13, 1),
        (14, 1),
        (15, 1),
        (16, 2),
        (17, 2),
        (18, 3),
    ],
)
def test_it_gives_the_bx_ability_modifier(score, modifier):
    assert ose.ability_modifier(score) == modifier


@pytest.mark.parametrize("score", [2, 19, 0, -3])
def test_it_refuses_ability_scores_off_the_table(score):
    with pytest.raises(RulesError) as err:
        ose.ability_modifier(score)
    assert err.value.code == "ability_out_of_range"


@pytest.mark.parametrize(
    ("score", "modifier", "natural", "success", "rule"),
    [
        (13, 0, 13, True, None),
        (13, 0, 14, False, None),
        (3, 0, 1, True, NaturalRule.NATURAL_1_SUCCEEDS),
        (3, 4, 1, True, NaturalRule.NATURAL_1_SUCCEEDS),
        (18, -4, 20, False, NaturalRule.NATURAL_20_FAILS),
        (18, -4, 19, True, None),
        (10, 4, 6, True, None),
        (10, 4, 7, False, None),
        (10, -4, 14, True, None),
        (3, 0, 3, True, None),
        (3, 0, 4, False, None),
    ],
)
def test_it_resolves_ability_checks_rolling_under(score, modifier, natural, success, rule):
    result = ose.resolve_ability_check(score=score, modifier=modifier, natural=natural)
    assert result.success is success
    assert result.natural_rule is rule
    assert result.total == natural + modifier
    assert result.modifiers == ((Modifier(modifier, "difficulty"),) if modifier else ())


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"modifier": 5}, "modifier_out_of_range"),
        ({"modifier": -5}, "modifier_out_of_range"),
        ({"score": 19}, "ability_out_of_range"),
        ({"score": 2}, "ability_out_of_range"),
        ({"natural": 0}, "die_out_of_range"),
    ],
)
def test_it_refuses_bad_ability_check_inputs(kwargs, code):
    with pytest.raises(RulesError) as err:
        ose.resolve_ability_check(**({"score": 12, "natural": 5} | kwargs))
    assert err.value.code == code


@pytest.mark.parametrize(
    ("score", "modifier", "odds"),
    [
        (13, 0, Fraction(13, 20)),
        (18, -4, Fraction(19, 20)),
        (3, 4, Fraction(1, 20)),
        (10, 2, Fraction(8, 20)),
        (18, 0, Fraction(18, 20)),
    ],
)
def test_it_gives_exact_ability_check_odds(score, modifier, odds):
    assert ose.ability_check_odds(score, modifier) == odds


# ----- hit points -----


@pytest.mark.parametrize(
    ("hp", "damage", "after", "dead"),
    [(5, 4, 1, False), (5, 5, 0, True), (5, 7, -2, True), (5, 0, 5, False), (0, 1, -1, True)],
)
def test_it_kills_at_zero_hit_points_or_fewer(hp, damage, after, dead):
    change = ose.apply_damage(hp, damage)
    assert (change.before, change.after, change.dead) == (hp, after, dead)


@pytest.mark.parametrize(
    ("hp", "max_hp", "amount", "after"),
    [(3, 8, 2, 5), (3, 8, 10, 8), (8, 8, 3, 8), (10, 8, 3, 10), (1, 8, 0, 1)],
)
def test_healing_never_raises_hit_points_above_the_maximum(hp, max_hp, amount, after):
    change = ose.apply_healing(hp, max_hp, amount)
    assert change.after == after
    assert change.change == after - hp
    assert not change.dead


def test_the_dead_cannot_be_healed():
    with pytest.raises(RulesError) as err:
        ose.apply_healing(0, 8, 3)
    assert err.value.code == "cannot_heal_the_dead"


def test_natural_healing_gives_1d3_per_full_day_of_rest():
    result = ose.natural_healing([True, False, True], naturals=[2, 3])
    assert result.naturals == (2, None, 3)
    assert result.rolled == result.healed == 5
    assert result.hp is None


def test_natural_healing_stops_at_the_maximum():
    result = ose.natural_healing(3, naturals=[3, 3, 3], current_hp=5, max_hp=8)
    assert result.rolled == 9
    assert result.healed == 3
    assert result.hp.after == 8


def test_an_interrupted_day_heals_nothing():
    result = ose.natural_healing([False, False], rng=random.Random(1))
    assert result.naturals == (None, None)
    assert result.healed == 0


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"days": 2, "naturals": [1]}, "wrong_number_of_dice"),
        ({"days": 1, "naturals": [4]}, "die_out_of_range"),
        ({"days": -1}, "bad_rest_day"),
        ({"days": [True, 1]}, "bad_rest_day"),
        ({"days": 1001}, "too_many_days"),
        ({"days": 1, "naturals": [1], "current_hp": 3}, "current_and_max_hp_together"),
        ({"days": 1, "naturals": [1], "current_hp": 0, "max_hp": 5}, "cannot_heal_the_dead"),
    ],
)
def test_it_refuses_bad_natural_healing_inputs(kwargs, code):
    with pytest.raises(RulesError) as err:
        ose.natural_healing(**kwargs)
    assert err.value.code == code


def test_natural_healing_has_the_distribution_of_nd3():
    assert ose.natural_healing_distribution([True, False, True]) == dice.distribution("2d3")
    assert ose.natural_healing_distribution(0).probability(0) == 1


# ----- Hit Dice -----


@pytest.mark.parametrize(
    ("text", "hd"),
    [
        ("1/2", HitDice(Fraction(1, 2))),
        ("½", HitDice(Fraction(1, 2))),
        ("1-1", HitDice(1, -1)),
        ("1–1", HitDice(1, -1)),
        ("1−1", HitDice(1, -1)),
        ("2+1", HitDice(2, 1)),
        (" 2 + 1 ", HitDice(2, 1)),
        ("3*", HitDice(3, 0, 1)),
        ("4**", HitDice(4, 0, 2)),
        ("4+1**", HitDice(4, 1, 2)),
        ("½*", HitDice(Fraction(1, 2), 0, 1)),
        ("21+", HitDice(21, 0, 0, open_bonus=True)),
        ("normal human", HitDice(normal_human=True)),
        ("BČ", HitDice(normal_human=True)),
        ("12", HitDice(12)),
    ],
)
def test_it_reads_hit_dice(text, hd):
    assert ose.parse_hd(text) == hd


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "0",
        "1/4",
        "½+1",
        "2-",
        "3d8",
        "x",
        "1000",
        "2+0",
        "1.5",
        "-1",
        "+1",
        "2++1",
        "2+1+1",
        "*",
        "2*+1",
        "normal",
        "1**********",
        "01",
        None,
        3,
    ],
)
def test_it_refuses_anything_else_as_hit_dice(text):
    with pytest.raises(RulesError) as err:
        ose.parse_hd(text)
    assert err.value.code == "bad_hit_dice"
    assert err.value.params == {"value": text}


@pytest.mark.parametrize("text", ["2+1*", "½", "1-1", "21+", "normal human", "4**"])
def test_hit_dice_print_back_as_read(text):
    assert str(ose.parse_hd(text)) == text


# ----- properties -----

thac0s = st.integers(-5, 30)
acs = st.integers(-15, 20)
methods = st.sampled_from(list(AttackMethod))
naturals = st.integers(1, 20)
mod_values = st.integers(-10, 10)


@given(thac0s, acs, methods, mod_values)
def test_attack_odds_equal_enumerating_every_natural(thac0, ac, method, modifier):
    mods = [Modifier(modifier, "situational")]
    hits = sum(
        ose.resolve_attack(thac0=thac0, target_ac=ac, method=method, modifiers=mods, natural=n).hit
        for n in range(1, 21)
    )
    assert ose.attack_odds(thac0=thac0, target_ac=ac, method=method, modifier=modifier) == (
        Fraction(hits, 20)
    )


@given(thac0s, acs, naturals, mod_values)
def test_ascending_ac_gives_the_direct_thac0_result(thac0, ac, natural, modifier):
    mods = [Modifier(modifier, "situational")]
    asc = ose.resolve_attack(
        thac0=thac0, target_ac=ac, method="ascending", modifiers=mods, natural=natural
    )
    direct = ose.resolve_attack(
        thac0=thac0, target_ac=ac, method="thac0", modifiers=mods, natural=natural
    )
    assert asc.hit == direct.hit == (asc.ascending_total >= asc.target_aac)


@given(thac0s, acs, naturals, mod_values)
def test_the_matrix_and_direct_thac0_agree_inside_the_matrix_clamps(thac0, ac, natural, modifier):
    mods = [Modifier(modifier, "situational")]
    both = [
        ose.resolve_attack(thac0=thac0, target_ac=ac, method=m, modifiers=mods, natural=natural)
        for m in ("matrix", "thac0")
    ]
    if 2 <= thac0 - ac <= 20:
        assert both[0].hit == both[1].hit
        assert not ose.attack_odds_compared(thac0=thac0, target_ac=ac, modifier=modifier).differs


@given(thac0s, methods, naturals, mod_values)
def test_hit_ac_splits_the_table_into_hit_and_missed(thac0, method, natural, modifier):
    result = ose.resolve_attack(
        thac0=thac0,
        target_ac=9,
        method=method,
        natural=natural,
        modifiers=[Modifier(modifier, "situational")],
    )
    for ac in ose.MATRIX_AC:
        target = ose.resolve_attack(
            thac0=thac0,
            target_ac=ac,
            method=method,
            natural=natural,
            modifiers=[Modifier(modifier, "situational")],
        )
        assert target.hit == (result.hit_ac is not None and ac >= result.hit_ac)


@given(st.integers(1, 20), mod_values)
def test_save_odds_equal_enumerating_every_natural(value, modifier):
    mods = [Modifier(modifier, "situational")]
    wins = sum(
        ose.resolve_save(save_value=value, category="wands", modifiers=mods, natural=n).success
        for n in range(1, 21)
    )
    assert ose.save_odds(value, modifier) == Fraction(wins, 20)


@given(st.integers(3, 18), st.integers(-4, 4))
def test_ability_check_odds_equal_enumerating_every_natural(score, modifier):
    wins = sum(
        ose.resolve_ability_check(score=score, modifier=modifier, natural=n).success
        for n in range(1, 21)
    )
    assert ose.ability_check_odds(score, modifier) == Fraction(wins, 20)


def test_observed_attack_frequency_stays_close_to_the_exact_odds():
    rng = random.Random(1234)
    n = 5_000
    mods = [Modifier(1, "str")]
    hits = sum(
        ose.resolve_attack(thac0=17, target_ac=4, modifiers=mods, rng=rng).hit for _ in range(n)
    )
    p = float(ose.attack_odds(thac0=17, target_ac=4, method="matrix", modifier=1))
    assert abs(hits / n - p) < 5 * (p * (1 - p) / n) ** 0.5  # 5 sigma: cannot flake in practice


@given(
    st.integers(1, 60),
    st.integers(0, 30),
    st.lists(st.booleans(), max_size=20),
    st.randoms(use_true_random=False),
)
def test_natural_healing_heals_1d3_per_rested_day_up_to_the_maximum(max_hp, lost, days, rng):
    current = max(1, max_hp - lost)
    result = ose.natural_healing(days, rng, current_hp=current, max_hp=max_hp)
    assert all((r is None) == (not d) for r, d in zip(result.naturals, days, strict=True))
    assert all(1 <= r <= 3 for r in result.naturals if r is not None)
    assert result.healed == min(result.rolled, max_hp - current)
    assert result.hp.after <= max_hp


@given(st.text(max_size=12))
def test_every_text_is_hit_dice_or_a_rules_error(text):
    try:
        hd = ose.parse_hd(text)
    except RulesError as err:
        assert err.code == "bad_hit_dice"
        return
    assert 5 <= ose.monster_thac0(text) <= 20
    assert ose.parse_hd(str(hd)) == hd


@given(st.from_regex(r"\A(½|1/2|[1-9][0-9]?)([+\-–][1-9]?)?\**\Z"))
def test_every_well_formed_hit_dice_has_a_thac0_and_saves(text):
    try:
        ose.parse_hd(text)
    except RulesError as err:
        assert err.code == "bad_hit_dice"
        return
    assert 5 <= ose.monster_thac0(text) <= 19
    assert len(ose.monster_saves(text)) == 5


@pytest.mark.parametrize(
    ("hd", "expression"),
    [
        ("1", "1d8"),
        ("2+1", "2d8+1"),
        ("1-1", "1d8-1"),
        ("½", "1d4"),
        ("1/2", "1d4"),
        ("4*", "4d8"),
        ("normal human", "1d4"),
        ("21+", "21d8"),
    ],
)
def test_it_rolls_a_monsters_hit_points_with_a_d8_per_hit_die(hd, expression):
    assert ose.monster_hp_dice(hd) == expression


def test_a_monsters_hit_points_are_at_least_1():
    assert ose.monster_hit_points("1d8-1", entered=[1]) == 1
    assert ose.monster_hit_points("1d8-1", entered=[8]) == 7


@pytest.mark.parametrize(
    ("kind", "strength", "dexterity", "situational", "expected"),
    [
        ("melee", 13, 9, 0, [Modifier(1, "str")]),  # the seed's fighter
        ("missile", 13, 16, 0, [Modifier(2, "dex")]),
        ("melee", 10, 18, -2, [Modifier(-2, "situational")]),
        ("missile", 3, 3, 1, [Modifier(-3, "dex"), Modifier(1, "situational")]),
    ],
)
def test_melee_attacks_add_str_and_missile_attacks_dex(
    kind, strength, dexterity, situational, expected
):
    got = ose.attack_modifiers(
        kind, strength=strength, dexterity=dexterity, situational=situational
    )
    assert list(got) == expected


@pytest.mark.parametrize(
    ("kind", "strength", "entered", "total", "reasons"),
    [
        ("melee", 13, [5], 6, ["str"]),
        ("missile", 18, [5], 5, []),
        ("melee", 3, [1], 0, ["str"]),  # 1 − 3: damage never heals
    ],
)
def test_damage_adds_str_only_in_melee_and_is_never_negative(
    kind, strength, entered, total, reasons
):
    result = ose.resolve_damage("1d8", kind, strength=strength, entered=entered)
    assert result.total == total
    assert [m.reason for m in result.modifiers] == reasons
    assert result.roll.naturals == tuple(entered)


def test_an_unknown_attack_kind_is_the_librarys_error():
    with pytest.raises(RulesError) as caught:
        ose.attack_modifiers("telepathy", strength=10, dexterity=10)
    assert caught.value.code == "unknown_attack_kind"
