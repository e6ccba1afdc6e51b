"""rules.bounds: each stored quantity's range, declared once, and the engine's checks that read
it (a ship's numbers, a condition's rounds, the round, saves, abilities, morale)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import becmi_naval, core, hit_location, ose, rounds
from rules.bounds import BOUNDS, Bound, bound, check
from rules.errors import RulesError

WHOLE = [b for b in BOUNDS.values() if b.whole]


@pytest.mark.parametrize("found", list(BOUNDS.values()), ids=list(BOUNDS))
def test_each_limit_is_taken_and_one_past_it_is_refused_with_the_range(found: Bound):
    step = 1 if found.whole else Decimal("0.01")
    for fine, past in ((found.low, found.low - step), (found.high, found.high + step)):
        assert check(found.name, fine) == fine
        with pytest.raises(RulesError) as refused:
            check(found.name, past)
        assert refused.value.code == found.code
        assert refused.value.params == {
            "name": found.name,
            "value": past,
            "low": found.low,
            "high": found.high,
        }


@pytest.mark.parametrize("found", WHOLE, ids=[b.name for b in WHOLE])
@pytest.mark.parametrize("value", [True, "5", 5.0, None, Decimal(5)])
def test_a_whole_quantity_refuses_anything_but_a_whole_number(found: Bound, value: object):
    with pytest.raises(RulesError) as refused:
        found.check(value)
    assert refused.value.code == "not_an_integer"


def test_a_decimal_quantity_takes_whole_numbers_and_decimals():
    assert bound("height_ft").check(6) == 6
    assert bound("height_ft").check(Decimal("5.5")) == Decimal("5.5")
    for bad in (True, Decimal("NaN"), Decimal("sNaN"), Decimal("Infinity")):
        with pytest.raises(RulesError):
            bound("height_ft").check(bad)


@given(st.integers(min_value=-(2**70), max_value=2**70))
def test_membership_and_the_check_agree_on_every_whole_number(value: int):
    for found in WHOLE:
        if value in found:
            assert found.check(value) == value
        else:
            with pytest.raises(RulesError):
                found.check(value)


def test_a_number_too_long_to_print_is_refused_by_its_size():
    with pytest.raises(RulesError) as refused:
        check("speed", 10**5000)
    assert "very large" in str(refused.value)


def test_the_engine_s_own_limits_are_the_declared_ones():
    assert (core.ABILITY_MIN, core.ABILITY_MAX) == (BOUNDS["ability"].low, BOUNDS["ability"].high)
    assert (ose.SAVE_VALUE_MIN, ose.SAVE_VALUE_MAX) == (BOUNDS["save"].low, BOUNDS["save"].high)
    assert (rounds.MORALE_MIN, rounds.MORALE_MAX) == (BOUNDS["morale"].low, BOUNDS["morale"].high)
    assert rounds.MAX_ROUNDS == BOUNDS["round"].high
    assert rounds.MAX_DURATION_ROUNDS == BOUNDS["rounds_left"].high


def test_what_is_stored_lies_inside_what_the_engine_computes_with():
    """A stored value never makes the engine refuse to draw it: the engine may take wider
    arguments (an AC with its modifiers), never narrower ones."""
    for name in ("ac", "thac0", "attack_bonus"):
        assert -core.NUMBER_LIMIT <= BOUNDS[name].low <= BOUNDS[name].high <= core.NUMBER_LIMIT
    assert BOUNDS["height_ft"].high <= hit_location.MAX_LENGTH
    assert BOUNDS["weapon_ft"].high <= hit_location.MAX_LENGTH


def test_a_ship_at_every_limit_is_drawn_and_one_past_is_refused():
    top = becmi_naval.Ship(
        hull_points=BOUNDS["hp_max"].high,
        damage=BOUNDS["hp_max"].high,
        rowers=BOUNDS["rowers"].high,
        rowers_lost=BOUNDS["rowers"].high,
        temporary_repairs=BOUNDS["hull_repaired"].high,
    )
    assert top.speed(BOUNDS["speed"].high) == 0  # sinking
    afloat = becmi_naval.Ship(hull_points=1, rowers=BOUNDS["rowers"].high)
    assert afloat.speed(BOUNDS["speed"].high) == BOUNDS["speed"].high
    for kwargs, code in (
        ({"hull_points": BOUNDS["hp_max"].high + 1}, "bad_hull_points"),
        ({"hull_points": 1, "rowers": BOUNDS["rowers"].high + 1}, "bad_rowers"),
        ({"hull_points": 1, "temporary_repairs": BOUNDS["hull_repaired"].high + 1}, "bad_repairs"),
    ):
        with pytest.raises(RulesError) as refused:
            becmi_naval.Ship(**kwargs)
        assert refused.value.code == code
    with pytest.raises(RulesError) as refused:
        afloat.speed(BOUNDS["speed"].high + 1)
    assert refused.value.code == "bad_speed"


def test_a_condition_and_the_round_at_their_limits_still_end_a_round():
    longest = BOUNDS["rounds_left"].high
    tick = rounds.tick_conditions([rounds.ActiveCondition("asleep", longest)])
    assert tick.remaining[0].rounds_left == longest - 1
    with pytest.raises(RulesError) as refused:
        rounds.ActiveCondition("asleep", longest + 1)
    assert refused.value.code == "duration_out_of_range"
    last = BOUNDS["round"].high
    assert rounds.end_round([rounds.CombatantState(1)], last).round_number == last
    with pytest.raises(RulesError) as refused:
        rounds.end_round([rounds.CombatantState(1)], last + 1)
    assert refused.value.code == "round_out_of_range"
