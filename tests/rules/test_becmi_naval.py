"""BECMI naval combat: hulls, speed, grappling, ramming, boarding, repairs (becmi.md, seed 003)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.becmi import (
    GrappleOutcome,
    RamTarget,
    RamVessel,
    Ship,
    ShipStatus,
    grapple_odds,
    hull_damage_from_hit_points,
    ram_damage_distribution,
    ram_odds,
    repair_life_distribution,
    resolve_attack,
    resolve_grapple,
    resolve_ram,
    roll_repair_life,
)
from rules.core import Modifier
from rules.errors import RulesError


class NoDice:
    def randint(self, a: int, b: int) -> int:
        raise AssertionError("no die should be rolled")


# --- hull points and speed ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hp", "hull"), [(0, 0), (4, 0), (5, 1), (9, 1), (10, 2), (24, 4), (100, 20)]
)
def test_a_giant_monster_does_1_hull_point_per_5_hit_points_rounded_down(hp, hull):
    assert hull_damage_from_hit_points(hp) == hull
    assert Ship(60).take_monster_damage(hp).damage == hull


@pytest.mark.parametrize(
    ("damage", "factor", "status"),
    [
        (0, 1, "afloat"),
        (9, 1, "afloat"),
        (10, Fraction(9, 10), "afloat"),
        (19, Fraction(9, 10), "afloat"),
        (20, Fraction(8, 10), "afloat"),
        (50, Fraction(5, 10), "afloat"),
        (74, Fraction(3, 10), "afloat"),
        (75, 0, "dead_in_water"),
        (99, 0, "dead_in_water"),
        (100, 0, "sinking"),
    ],
)
def test_every_10_percent_of_hull_damage_takes_10_percent_of_the_speed(damage, factor, status):
    ship = Ship(100, damage=damage)
    assert ship.speed_factor() == factor
    assert ship.status is ShipStatus(status)


def test_the_speed_is_rounded_down():
    assert Ship(100, damage=10).speed(90) == 81
    assert Ship(100, damage=30).speed(15) == 10  # 10.5


@pytest.mark.parametrize(
    ("damage", "status"),
    [(22, "afloat"), (23, "dead_in_water"), (29, "dead_in_water"), (30, "sinking")],
)
def test_dead_in_the_water_at_75_percent_and_sinking_at_100(damage, status):
    assert Ship(30, damage=damage).status is ShipStatus(status)


@pytest.mark.parametrize(
    ("lost", "rowing", "factor"),
    [
        (0, True, 1),
        (5, True, 1),
        (6, True, Fraction(9, 10)),
        (12, True, Fraction(8, 10)),
        (53, True, Fraction(2, 10)),
        (54, True, Fraction(1, 10)),
        (59, True, Fraction(1, 10)),
        (60, True, 0),
        (60, False, 1),
    ],
)
def test_every_10_percent_of_rowers_lost_takes_10_percent_of_the_speed(lost, rowing, factor):
    ship = Ship(100, rowers=60).lose_rowers(lost)
    assert ship.speed_factor(rowing) == factor
    assert ship.status is ShipStatus.AFLOAT


def test_hull_and_rower_losses_add_up():
    ship = Ship(40, damage=8, rowers=20, rowers_lost=4)  # 20% + 20%
    assert ship.speed_factor() == Fraction(6, 10)
    assert ship.speed(120) == 72


def test_damage_and_losses_stop_at_the_whole_ship():
    ship = Ship(20, rowers=10).take_damage(50).lose_rowers(50)
    assert (ship.damage, ship.rowers_lost, ship.hull_remaining) == (20, 10, 0)


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"hull_points": 0}, "bad_hull_points"),
        ({"hull_points": 10, "damage": 11}, "bad_damage"),
        ({"hull_points": 10, "rowers": 5, "rowers_lost": 6}, "bad_rowers"),
        ({"hull_points": "10"}, "bad_hull_points"),
    ],
)
def test_it_refuses_an_impossible_ship(kwargs, code):
    with pytest.raises(RulesError) as err:
        Ship(**kwargs)
    assert err.value.code == code


# --- grappling -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("natural", "outcome"), [(1, "grappled"), (2, "grappled"), (3, "failed"), (6, "failed")]
)
def test_grappling_within_50_feet_succeeds_on_2_in_6(natural, outcome):
    result = resolve_grapple(50, natural=natural)
    assert result.outcome is GrappleOutcome(outcome)
    assert result.grappled == (outcome == "grappled")


def test_grappling_beyond_50_feet_is_out_of_range_even_by_agreement():
    assert resolve_grapple(51, rng=NoDice()).outcome is GrappleOutcome.OUT_OF_RANGE
    assert resolve_grapple(51, mutual=True, rng=NoDice()).outcome is GrappleOutcome.OUT_OF_RANGE
    assert grapple_odds(51) == 0 == grapple_odds(51, mutual=True)


def test_grappling_by_mutual_agreement_needs_no_roll():
    result = resolve_grapple(20, mutual=True, rng=NoDice())
    assert result.outcome is GrappleOutcome.AGREED and result.grappled
    assert grapple_odds(20, mutual=True) == 1


def test_the_grappling_odds_match_every_natural():
    assert (
        grapple_odds(0)
        == Fraction(sum(resolve_grapple(0, natural=n).grappled for n in range(1, 7)), 6)
        == Fraction(1, 3)
    )


# --- ramming --------------------------------------------------------------------------------------

RAM_TABLE = [
    ("small_galley", "ship", [1], 50),
    ("small_galley", "ship", [4], 80),
    ("small_galley", "creature", [1, 1, 1], 3),
    ("small_galley", "creature", [8, 8, 8], 24),
    ("large_galley", "ship", [1], 60),
    ("large_galley", "ship", [6], 110),
    ("large_galley", "creature", [1] * 6, 6),
    ("large_galley", "creature", [6] * 6, 36),
]


@pytest.mark.parametrize(("vessel", "target", "dice", "damage"), RAM_TABLE)
def test_a_ram_does_the_damage_of_the_ramming_table(vessel, target, dice, damage):
    result = resolve_ram(vessel, target, 8, natural=11, damage_naturals=dice)
    assert result.attack.thac0 == 19 and result.attack.needed == 11 and result.attack.hit
    assert result.damage == damage and result.damage_naturals == tuple(dice)


@pytest.mark.parametrize(
    ("vessel", "target", "low", "high", "count"),
    [
        ("small_galley", "ship", 50, 80, 4),
        ("small_galley", "creature", 3, 24, 22),
        ("large_galley", "ship", 60, 110, 6),
        ("large_galley", "creature", 6, 36, 31),
    ],
)
def test_it_gives_the_exact_distribution_of_ramming_damage(vessel, target, low, high, count):
    dist = ram_damage_distribution(vessel, target)
    assert (min(dist), max(dist), len(dist)) == (low, high, count)
    assert sum(dist.values()) == 1


def test_the_large_galleys_damage_to_a_creature_averages_21():
    dist = ram_damage_distribution(RamVessel.LARGE_GALLEY, RamTarget.CREATURE)
    assert sum(d * p for d, p in dist.items()) == 21


def test_a_missed_ram_does_no_damage_and_rolls_no_damage_dice():
    result = resolve_ram("small_galley", "ship", 8, natural=10, rng=NoDice())
    assert not result.attack.hit and result.damage == 0 and result.damage_naturals == ()


def test_the_referee_modifies_a_ram_for_weather_and_manoeuvrability():
    rough = (Modifier(-2, "weather"), Modifier(1, "manoeuvrability"))
    assert (
        resolve_ram(
            "small_galley", "ship", 8, natural=11, modifiers=rough, damage_naturals=[1]
        ).attack.total
        == 10
    )
    assert ram_odds(8, rough) == Fraction(9, 20)
    assert ram_odds(8) == Fraction(10, 20)


@pytest.mark.parametrize(
    ("dice", "code"), [([1, 2], "wrong_dice_count"), ([5], "die_out_of_range")]
)
def test_it_refuses_ramming_dice_that_do_not_fit(dice, code):
    with pytest.raises(RulesError) as err:
        resolve_ram("small_galley", "ship", 8, natural=15, damage_naturals=dice)
    assert err.value.code == code


def test_it_refuses_an_unknown_vessel_or_target():
    with pytest.raises(RulesError):
        ram_damage_distribution("trireme", "ship")
    with pytest.raises(RulesError):
        resolve_ram("small_galley", "island", 8, natural=15)


def test_it_rolls_a_ram_from_the_random_source():
    a = resolve_ram("large_galley", "creature", 4, rng=random.Random(1234))
    b = resolve_ram("large_galley", "creature", 4, rng=random.Random(1234))
    assert a == b


# --- boarding ------------------------------------------------------------------------------------


def test_boarders_take_minus_2_to_hit_and_to_ac_during_the_boarding_round():
    result = resolve_attack(17, 5, boarding=True, target_boarding=True, natural=12)
    assert result.modifiers == (Modifier(-2, "boarding"),)
    assert result.ac == 7 and result.needed == 10 and result.total == 10 and result.hit


# --- repairs --------------------------------------------------------------------------------------


def test_repairs_need_five_crew():
    with pytest.raises(RulesError) as err:
        Ship(50, damage=20).repair(crew=4)
    assert err.value.code == "repair_crew_too_small"


def test_five_crew_repair_1_hull_point_per_turn_up_to_half_the_damage():
    ship = Ship(50, damage=21)
    assert ship.repairable == 10
    one = ship.repair(crew=5)
    assert (one.damage, one.temporary_repairs) == (20, 1)
    done = ship.repair(crew=30, turns=99)
    assert (done.damage, done.temporary_repairs, done.repairable) == (11, 10, 0)
    assert done.repair(crew=5).damage == 11


def test_new_damage_after_repairs_allows_more_repairs():
    ship = Ship(100, damage=40).repair(crew=5, turns=20).take_damage(10)
    assert (ship.damage, ship.repairable) == (30, 5)


def test_failed_repairs_bring_the_damage_back():
    ship = Ship(50, damage=30).repair(crew=5, turns=6).repairs_fail()
    assert (ship.damage, ship.temporary_repairs) == (30, 0)


def test_a_sinking_ship_cannot_be_repaired():
    with pytest.raises(RulesError) as err:
        Ship(50, damage=50).repair(crew=10)
    assert err.value.code == "ship_sunk"


def test_repairs_fail_after_5d6_days():
    life = roll_repair_life(naturals=[1, 2, 3, 4, 6])
    assert life.days == 16 and life.naturals == (1, 2, 3, 4, 6)
    dist = repair_life_distribution()
    assert (min(dist), max(dist), sum(dist.values())) == (5, 30, 1)
    assert dist[5] == Fraction(1, 6**5) and dist[17] == dist[18]
    rolled = roll_repair_life(random.Random(1234))
    assert len(rolled.naturals) == 5 and 5 <= rolled.days <= 30


ACTIONS = st.one_of(
    st.tuples(st.just("damage"), st.integers(0, 80)),
    st.tuples(st.just("monster"), st.integers(0, 200)),
    st.tuples(st.just("rowers"), st.integers(0, 30)),
    st.tuples(st.just("repair"), st.integers(0, 20)),
    st.tuples(st.just("fail"), st.just(0)),
)


@given(st.integers(1, 200), st.integers(0, 100), st.lists(ACTIONS, max_size=12))
def test_a_ship_stays_consistent_through_any_sequence_of_events(hull, rowers, actions):
    ship = Ship(hull, rowers=rowers)
    for action, amount in actions:
        try:
            if action == "damage":
                ship = ship.take_damage(amount)
            elif action == "monster":
                ship = ship.take_monster_damage(amount)
            elif action == "rowers":
                ship = ship.lose_rowers(amount)
            elif action == "repair":
                ship = ship.repair(crew=5, turns=amount)
            else:
                ship = ship.repairs_fail()
        except RulesError as err:
            assert err.code == "ship_sunk"
        assert 0 <= ship.damage <= ship.hull_points
        assert 0 <= ship.speed_factor() <= 1
        assert 2 * ship.temporary_repairs <= ship.damage + ship.temporary_repairs
        if 4 * ship.damage < 3 * ship.hull_points:
            assert ship.status is ShipStatus.AFLOAT
            assert ship.speed_factor(rowing=False) >= Fraction(3, 10)
        else:
            assert ship.status is not ShipStatus.AFLOAT
            assert ship.speed_factor() == 0
