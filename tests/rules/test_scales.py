"""Armour class and attack values between the descending scale (B/X, BECMI) and the ascending
one (Dolmenwood): 19 − x either way, the same hit either way, and back again unchanged."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import ose
from rules.bounds import bound
from rules.errors import RulesError
from rules.scales import Fighting, Scale, convert

DOWN, UP = Scale.DESCENDING, Scale.ASCENDING


@pytest.mark.parametrize(
    ("ac", "thac0", "aac", "bonus"),
    [
        (9, 19, 10, 0),  # unarmoured, a normal human
        (7, 19, 12, 0),  # leather
        (4, 17, 15, 2),  # chain and shield, a 3rd-level fighter
        (2, 17, 17, 2),  # plate and shield
        (0, 10, 19, 9),
        (1, 5, 18, 14),
        (20, 25, -1, -6),
        (-1, -10, 20, 29),
    ],
)
def test_the_scales_meet_at_19(ac, thac0, aac, bonus):
    assert convert(Fighting(ac, thac0), DOWN, UP) == Fighting(aac, bonus)
    assert convert(Fighting(aac, bonus), UP, DOWN) == Fighting(ac, thac0)
    # As OSE writes the bracket after a THAC0, and its ascending AC.
    assert (ose.attack_bonus(thac0), ose.ascending_ac(ac)) == (bonus, aac)


def test_the_same_scale_changes_nothing():
    assert convert(Fighting(2, 17), "descending", "descending") == Fighting(2, 17)
    assert convert(Fighting(17, 2), UP, UP) == Fighting(17, 2)


@pytest.mark.parametrize(
    ("values", "source", "target", "code"),
    [
        (Fighting(-2, 17), DOWN, UP, "converted_ac_out_of_range"),  # AAC 21
        (Fighting(-5, 17), UP, DOWN, "converted_ac_out_of_range"),  # AC 24
        (Fighting(10, 30), UP, DOWN, "converted_attack_out_of_range"),  # THAC0 −11
        (Fighting(10, -7), UP, DOWN, "converted_attack_out_of_range"),  # THAC0 26
        (Fighting(21, 17), DOWN, UP, "ac_out_of_range"),
        (Fighting(5, 26), DOWN, UP, "thac0_out_of_range"),
        (Fighting(5, 2), "sideways", UP, "unknown_scale"),
    ],
)
def test_what_the_table_cannot_hold_is_refused(values, source, target, code):
    with pytest.raises(RulesError) as refused:
        convert(values, source, target)
    assert refused.value.code == code


def test_a_refusal_names_the_value_its_twin_and_the_range():
    with pytest.raises(RulesError) as refused:
        convert(Fighting(-2, 17), DOWN, UP)
    assert refused.value.params == {"value": -2, "converted": 21, "low": -20, "high": 20}


AC = st.integers(bound("ac").low, bound("ac").high)
SCALES = st.sampled_from(list(Scale))


def _attack(scale: Scale) -> st.SearchStrategy[int]:
    limit = bound("thac0" if scale is DOWN else "attack_bonus")
    return st.integers(limit.low, limit.high)


@given(st.data())
def test_there_and_back_is_the_identity(data):
    source = data.draw(SCALES)
    target = data.draw(SCALES)
    values = Fighting(data.draw(AC), data.draw(_attack(source)))
    try:
        there = convert(values, source, target)
    except RulesError as error:  # its twin is past what the table stores: said so
        assert error.code in ("converted_ac_out_of_range", "converted_attack_out_of_range")
        return
    assert convert(there, target, source) == values


@given(AC, _attack(DOWN))
def test_a_hit_needs_the_same_roll_on_either_scale(ac, thac0):
    try:
        up = convert(Fighting(ac, thac0), DOWN, UP)
    except RulesError:
        return
    # d20 ≥ THAC0 − AC on the descending scale is d20 + bonus ≥ AAC on the ascending one.
    assert thac0 - ac == up.ac - up.attack
