"""Every public callable of the engine answers any arguments with a result or a RulesError."""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable, Iterator
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import (
    becmi,
    becmi_attack,
    becmi_classes,
    becmi_hit,
    becmi_naval,
    becmi_striking,
    becmi_wrestling,
    core,
    dice,
    dolmenwood,
    hit_location,
    hit_location_tables,
    ose,
    ose_classes,
    rounds,
)
from rules.core import Modifier
from rules.errors import RulesError
from rules.hit_location import Band, BandKind, DiceSpec

# Left out on purpose: ``rules.bench`` (a command-line timing tool whose ``main`` exits through
# argparse on bad arguments, as any command does) and ``rules.errors`` (only the exception
# itself).
MODULES: tuple[ModuleType, ...] = (
    core,
    dice,
    ose,
    ose_classes,
    becmi,
    becmi_attack,
    becmi_classes,
    becmi_hit,
    becmi_naval,
    becmi_striking,
    becmi_wrestling,
    dolmenwood,
    hit_location,
    hit_location_tables,
    rounds,
)


# --------------------------------------------------------------------------- what is called


def _classes() -> Iterator[type]:
    for module in MODULES:
        for name in module.__all__:
            obj = getattr(module, name)
            if isinstance(obj, type) and obj.__module__.startswith("rules."):
                yield obj


def _instances() -> dict[type, object]:
    """One ordinary instance of each public class whose methods take arguments."""
    plan = hit_location.body_plan("humanoid", optional=True)
    return {
        dice.Distribution: dice.distribution("2d6+1"),
        becmi.Ship: becmi.Ship(40, damage=12, rowers=20, rowers_lost=3, temporary_repairs=2),
        hit_location.BodyPlan: plan,
        hit_location.ZoneState: hit_location.new_zone_state(plan, 30),
        hit_location.LocationTable: hit_location.location_table_for(plan, "front"),
        ose.AttackOddsComparison: ose.attack_odds_compared(thac0=17, target_ac=4),
    }


def _targets() -> list[tuple[str, Callable[..., Any]]]:
    """Every public function once (``rules.becmi`` re-exports its parts), the constructors
    that validate (``__post_init__``), and the public methods and class methods taking
    arguments of the public classes."""
    found: dict[int, tuple[str, Callable[..., Any]]] = {}
    for module in MODULES:
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj) and not isinstance(obj, type):
                found.setdefault(id(obj), (f"{module.__name__}.{name}", obj))
    instances = _instances()
    for cls in _classes():
        if issubclass(cls, StrEnum) or id(cls) in found:
            continue
        if "__post_init__" in vars(cls):
            found[id(cls)] = (f"{cls.__module__}.{cls.__name__}", cls)
        for attr, raw in vars(cls).items():
            if attr.startswith("_"):
                continue
            if isinstance(raw, classmethod):
                found[id(raw)] = (f"{cls.__module__}.{cls.__name__}.{attr}", getattr(cls, attr))
            elif inspect.isfunction(raw) and cls in instances:
                method = getattr(instances[cls], attr)
                if len(inspect.signature(method).parameters):
                    found[id(raw)] = (f"{cls.__module__}.{cls.__name__}.{attr}", method)
    return sorted(found.values(), key=lambda t: t[0])


TARGETS = _targets()


# --------------------------------------------------------------------------- what is passed

HUGE = (10**9, -(10**9), 2**63, 10**100, -(10**100))
junk_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from(HUGE),
    st.floats(),  # nan and infinities included
    st.fractions(),
    st.decimals(),  # NaN, sNaN, infinities and huge exponents included
    st.text(max_size=12),
    st.binary(max_size=4),
    st.sampled_from(
        [
            object(),
            Modifier(1, "str"),
            Modifier(True, "str"),
            Modifier(1, 2),
            Modifier(10**100, "str"),
            Fraction(-1, 2),
            Decimal("1E+999999999"),
            Decimal("1E-999999999"),
            int,
            print,
            "²",
            "9" * 5000,
        ]
    ),
    # past Python's 4300-digit limit for str(): no message may try to print it (built, not
    # listed, because Hypothesis prints its strategies' contents)
    st.builds(lambda: 10**5000),
)
junk = st.recursive(
    junk_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
        st.frozensets(st.integers(-3, 3), max_size=3),
    ),
    max_leaves=6,
)

KEYS = sorted(
    {member.value for cls in _classes() if issubclass(cls, StrEnum) for member in cls}
    | {"1", "2+1", "4+1", "½", "1/2", "1-1", "4*", "21+", "35+", "normal human", "BČ"}
    | {"1d6", "2d8+1", "d20", "3k6-2", "10d10+5", "d%", "0d6", "2d6+1d4-3"}
    | {"A", "N", "W", "40 N", "N 60", "M", "ft", "m", "d", "k", "cs", "en-GB"}
    | {"fighter", "monster", "demi-human", "normal-human", "tracking"}
)
small_ints = st.integers(-5, 40)
keys = st.sampled_from(KEYS)
modifier_lists = st.lists(
    st.builds(Modifier, st.integers(-5, 5), st.sampled_from(["str", "dex", "situational"])),
    max_size=3,
)
rngs = st.builds(random.Random, st.integers(0, 9))
naturals = st.lists(st.integers(1, 6), max_size=6)


def _states() -> list[hit_location.ZoneState]:
    rng = random.Random(0)
    states = []
    for body, wounds in (
        ("humanoid", [("left_arm", 8)]),
        ("snake", [("head", 40)]),
        ("reptile", [("left_foreleg", 9), ("belly", 30)]),
        ("bird", [("left_wing", 20)]),
        ("insectoid", [("thorax", 9)]),
        ("fish", [("tail", 9)]),
    ):
        state = hit_location.new_zone_state(body, 30, optional=True)
        states.append(state)
        for zone, damage in wounds:
            state, _ = hit_location.apply_zone_damage(state, zone, damage, rng=rng)
            states.append(state)
    return states


STATES = _states()
PLANS = [hit_location.body_plan(b.value) for b in hit_location.BodyType] + [
    hit_location.combine_bodies(
        "centipede",
        (hit_location.body_plan("insectoid"), ["head", "thorax"]),
        (hit_location.body_plan("snake"), ["lower_body"]),
    )
]
DOMAIN = [
    *STATES,
    *PLANS,
    hit_location.DiceSpec(1, 6),
    hit_location.DiceSpec(0, 0, 1),
    hit_location.DiceSpec(10**6, 10**6),
    hit_location.DiceSpec(-1, 6),
    hit_location.Band(hit_location.BandKind.TOP, 40),
    hit_location.Band(hit_location.BandKind.TOP, 10**6),
    hit_location.Band(hit_location.BandKind.BOTTOM, "x"),
    hit_location.height_band_for(6, 3, 6),
    dice.parse("2d6+1"),
    dice.DiceExpression((dice.ConstantTerm("x"),)),
    dice.DiceExpression((dice.DiceTerm(1, 6), dice.ConstantTerm(10**9))),
    dice.DiceExpression(("2d6",)),
    dolmenwood.DamageDice(2, 6),
    becmi.Ship(40, rowers=10),
    {"listen": 5, "tracking": 3},
    {"listen": "5"},
]
domain = st.sampled_from(DOMAIN)
domain_lists = st.lists(st.one_of(keys, domain), max_size=3)

# Ordinary values for a parameter, by its name; anything else gets numbers, keys and the
# engine's own objects.
BY_NAME: dict[str, st.SearchStrategy[Any]] = {
    "rng": rngs,
    "modifiers": modifier_lists,
    "attacker_modifiers": modifier_lists,
    "defender_modifiers": modifier_lists,
    "save_modifiers": modifier_lists,
    "entered": st.one_of(naturals, st.integers(1, 100)),
    "naturals": naturals,
    "damage_naturals": naturals,
    "natural": st.integers(1, 20),
    "attacker_natural": st.integers(1, 20),
    "defender_natural": st.integers(1, 20),
    "save_natural": st.integers(1, 20),
    "stun_natural": st.integers(1, 20),
    "escape_natural": st.integers(1, 100),
    "state": st.sampled_from(STATES),
    "plan": st.sampled_from(PLANS),
    "parts": st.one_of(
        st.sampled_from(PLANS), st.tuples(st.sampled_from(PLANS), st.lists(keys, max_size=3))
    ),
    "succeeds": st.sampled_from([lambda n: n > 10, lambda n: n % 2 == 0]),
    "hits": st.sampled_from([None, lambda n: n > 10]),
    "skills": st.dictionaries(keys, st.integers(0, 7), max_size=3),
    "days": st.one_of(st.integers(0, 5), st.lists(st.booleans(), max_size=5)),
    "helper_hds": st.lists(st.one_of(keys, st.integers(1, 9)), max_size=4),
    "kinds": st.lists(keys, max_size=3),
    "attack_forms": st.lists(keys, max_size=3),
    "immunities": st.lists(keys, max_size=3),
}
ordinary = st.one_of(small_ints, keys, st.booleans(), st.none(), domain, domain_lists)


def _ordinary(name: str) -> st.SearchStrategy[Any]:
    return st.one_of(BY_NAME[name], ordinary) if name in BY_NAME else ordinary


_LEFT_OUT = object()


def _call_with(
    func: Callable[..., Any],
    params: list[inspect.Parameter],
    values: dict[str, Any],
    keyword: set[str],
) -> Any:
    """Call ``func`` with ``values`` by parameter name (``_LEFT_OUT``: not passed), positionally
    unless the name is in ``keyword`` or an earlier positional parameter was left out."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    by_keyword = False
    for p in params:
        value = values[p.name]
        if p.kind is p.VAR_POSITIONAL:
            if not by_keyword:
                args.extend(value)
        elif value is _LEFT_OUT:
            by_keyword = True
        elif p.kind is p.KEYWORD_ONLY or by_keyword or p.name in keyword:
            kwargs[p.name] = value
            by_keyword = True
        else:
            args.append(value)
    return func(*args, **kwargs)


def _calls(data: st.DataObject, func: Callable[..., Any]) -> Iterator[Callable[[], Any]]:
    """Calls of ``func`` from one example: every parameter with an ordinary value (optional
    ones passed or left out), then each parameter in turn given one odd value (anything at
    all) while the others stay ordinary, then every parameter given it. Drawing is what costs
    time, so each example draws one odd value and calls ``func`` with it in every place."""
    params = [p for p in inspect.signature(func).parameters.values() if p.kind is not p.VAR_KEYWORD]
    choices = data.draw(st.integers(0, 4 ** len(params) - 1), "which are passed, by keyword")
    odd = data.draw(junk, "odd value")
    ordinary_values: dict[str, Any] = {}
    odd_values: dict[str, Any] = {}
    keyword: set[str] = set()
    for i, p in enumerate(params):
        passed, by_keyword = choices >> (2 * i) & 1, choices >> (2 * i + 1) & 1
        if p.kind is p.VAR_POSITIONAL:
            ordinary_values[p.name] = data.draw(st.lists(_ordinary(p.name), max_size=3), p.name)
            odd_values[p.name] = [odd]
            continue
        optional = p.default is not p.empty
        if optional and not passed:
            ordinary_values[p.name] = _LEFT_OUT
        else:
            ordinary_values[p.name] = data.draw(_ordinary(p.name), p.name)
        odd_values[p.name] = odd
        if optional and by_keyword:
            keyword.add(p.name)
    yield lambda: _call_with(func, params, ordinary_values, keyword)
    for p in params:
        values = ordinary_values | {p.name: odd_values[p.name]}
        yield lambda values=values: _call_with(func, params, values, keyword)
    yield lambda: _call_with(func, params, odd_values, keyword)


# --------------------------------------------------------------------------- the sweep


def test_the_sweep_covers_every_public_function_of_every_rules_module():
    swept = {id(func) for _, func in TARGETS}
    for module in MODULES:
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj) and not isinstance(obj, type):
                assert id(obj) in swept, f"{module.__name__}.{name}"
    assert len(TARGETS) > 130


@pytest.mark.parametrize(("name", "func"), TARGETS, ids=[name for name, _ in TARGETS])
@settings(
    max_examples=10,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_any_arguments_give_a_result_or_a_rules_error(name, func, data):
    for call in _calls(data, func):
        try:
            call()
        except RulesError as error:
            assert isinstance(error.code, str) and error.code, error
            assert isinstance(error.params, dict)


# --------------------------------------------------------------------------- known cases

HUMANOID = hit_location.new_zone_state("humanoid", 30, optional=True)
PLAN = HUMANOID.plan
STRIKE = {"thac0": 17, "ac": 4, "defender_con": 9, "defender_save": 12}
BARE = Modifier(1, "str")

# Every BECMI function taking modifiers: (function, arguments, keyword arguments, parameter).
BECMI_MODIFIER_PARAMETERS = [
    (becmi.resolve_attack, (17, 4), {"natural": 10}, "modifiers"),
    (becmi.attack_odds, (17, 4), {}, "modifiers"),
    (becmi.resolve_save, (12,), {"natural": 10}, "modifiers"),
    (becmi.save_chance, (12,), {}, "modifiers"),
    (
        becmi.resolve_strike,
        (17, 4),
        {"defender_con": 10, "defender_save": 12, "rng": random.Random(1)},
        "modifiers",
    ),
    (becmi.strike_odds, (17, 4), {"defender_con": 10, "defender_save": 12}, "modifiers"),
    (becmi.wrestling_round_odds, ("free", 10, 10), {}, "attacker_modifiers"),
    (becmi.wrestling_round_odds, ("free", 10, 10), {}, "defender_modifiers"),
    *(
        (
            becmi.resolve_wrestling_round,
            ("thrown", 10, 10),
            {"defender_save": 12, "rng": random.Random(1)},
            name,
        )
        for name in ("attacker_modifiers", "defender_modifiers", "save_modifiers")
    ),
    (becmi.pin_damage_chance, (12,), {}, "save_modifiers"),
    (becmi.resolve_ram, ("small_galley", "ship", 5), {"rng": random.Random(1)}, "modifiers"),
    (becmi.ram_odds, (5,), {}, "modifiers"),
]


@pytest.mark.parametrize(
    ("func", "args", "kwargs", "parameter"),
    BECMI_MODIFIER_PARAMETERS,
    ids=[f"{f.__name__}-{p}" for f, _, _, p in BECMI_MODIFIER_PARAMETERS],
)
@pytest.mark.parametrize("bad", [BARE, None, 3, "str"], ids=["bare", "none", "int", "text"])
def test_every_becmi_function_refuses_modifiers_that_are_not_a_list(
    func, args, kwargs, parameter, bad
):
    func(*args, **kwargs, **{parameter: [BARE]})  # a list of modifiers is fine
    with pytest.raises(RulesError) as caught:
        func(*args, **kwargs, **{parameter: bad})
    assert caught.value.code == "bad_modifier"


def _roll_with(rng):
    return [
        lambda: core.natural_roll(6, rng),
        lambda: dice.roll("1d6", rng=rng),
        lambda: dice.roll("3", rng=rng),  # nothing to roll: refused all the same
        lambda: ose.resolve_attack(thac0=17, target_ac=4, rng=rng),
        lambda: ose.natural_healing([False], rng),
        lambda: becmi.resolve_attack(17, 4, cover="full", cover_material="hard", rng=rng),
        lambda: becmi.resolve_grapple(60, rng=rng),
        lambda: becmi.roll_repair_life(rng),
        lambda: dolmenwood.resolve_x_in_6(3, rng=rng),
        lambda: dolmenwood.resolve_damage("1d6", immune=True, rng=rng),
        lambda: hit_location.roll_location("humanoid", "front", rng=rng),
        lambda: hit_location.apply_zone_damage(HUMANOID, "head", 1, rng=rng),
    ]


@pytest.mark.parametrize("call", _roll_with(object()))
def test_it_refuses_a_random_source_without_randint(call):
    with pytest.raises(RulesError) as caught:
        call()
    assert caught.value.code == "no_random_source"


class _Broken:
    def randint(self, a: int) -> int:  # the wrong signature
        return a


class _Loaded:
    def randint(self, a: int, b: int) -> int:
        return b + 1


def test_it_refuses_a_random_source_that_fails_or_rolls_off_the_die():
    with pytest.raises(RulesError) as caught:
        core.natural_roll(6, _Broken())
    assert caught.value.code == "no_random_source"
    with pytest.raises(RulesError) as caught:
        core.natural_roll(6, _Loaded())
    assert (caught.value.code, caught.value.params) == (
        "die_out_of_range",
        {"sides": 6, "value": 7},
    )


KNOWN = [
    # the wrestling helpers: a list of Hit Dice, never text, None or an endless number
    ("helpers-none", lambda: becmi.helper_modifiers(None, 6), "bad_argument"),
    ("helpers-text", lambda: becmi.helper_modifiers("12", 6), "bad_argument"),
    ("helpers-int", lambda: becmi.helper_modifiers(3, 6), "bad_argument"),
    ("helper-pair", lambda: becmi.helper_modifiers([(3, 6)], 6), "bad_hit_dice"),
    ("opponent-pair", lambda: becmi.helper_modifiers([3], (3, 6)), "bad_hit_dice"),
    ("opponent-inf", lambda: becmi.helper_modifiers([1], float("inf")), "bad_hit_dice"),
    ("helper-inf", lambda: becmi.helper_modifiers([float("inf")], 6), "bad_hit_dice"),
    ("helper-nan", lambda: becmi.helper_modifiers([float("nan")], 6), "bad_hit_dice"),
    ("opponent-huge", lambda: becmi.helper_modifiers([1], Fraction(10**9)), "bad_hit_dice"),
    # hit locations: checked before the caches hash the arguments
    (
        "direction-list",
        lambda: hit_location.location_table("humanoid", ["front"]),
        "unknown_direction",
    ),
    ("wings-list", lambda: hit_location.body_plan("humanoid", wings=[1]), "bad_wing_count"),
    ("legs-float", lambda: hit_location.body_plan("insectoid", legs=6.0), "bad_leg_count"),
    ("tail-list", lambda: hit_location.body_plan("humanoid", tail=[1]), "bad_argument"),
    ("table-for-text", lambda: hit_location.location_table_for("humanoid", "x"), "bad_argument"),
    ("table-for-list", lambda: hit_location.location_table_for([], "front"), "bad_argument"),
    # a bare number where a list of dice is expected
    (
        "zone-entered-int",
        lambda: hit_location.apply_zone_damage(HUMANOID, "tail", 99, entered=5),
        "bad_argument",
    ),
    ("round-entered-int", lambda: hit_location.end_round(HUMANOID, entered=5), "bad_argument"),
    ("repair-naturals-int", lambda: becmi.roll_repair_life(naturals=5), "wrong_dice_count"),
    ("repair-naturals-text", lambda: becmi.roll_repair_life(naturals="33333"), "wrong_dice_count"),
    (
        "damage-naturals-int",
        lambda: dolmenwood.resolve_damage("1d6", naturals=5),
        "wrong_number_of_dice",
    ),
    (
        "immune-naturals-int",
        lambda: dolmenwood.resolve_damage("1d6", immune=True, naturals=5),
        "wrong_number_of_dice",
    ),
    # OSE bounds THAC0 and AC as BECMI does (±100)
    ("ose-thac0-huge", lambda: ose.roll_needed(10**9, 4), "thac0_out_of_range"),
    ("ose-thac0-101", lambda: ose.roll_needed(101, 4, "thac0"), "thac0_out_of_range"),
    ("ose-thac0--101", lambda: ose.roll_needed(-101, 4), "thac0_out_of_range"),
    ("ose-ac-huge", lambda: ose.roll_needed(17, -(10**9)), "ac_out_of_range"),
    (
        "ose-attack-huge",
        lambda: ose.resolve_attack(thac0=10**9, target_ac=4, natural=3),
        "thac0_out_of_range",
    ),
    ("ose-odds-huge", lambda: ose.attack_odds(thac0=17, target_ac=10**9), "ac_out_of_range"),
    ("ose-bonus-huge", lambda: ose.attack_bonus(10**9), "thac0_out_of_range"),
    ("ose-from-bonus-120", lambda: ose.thac0_from_bonus(120), "thac0_out_of_range"),
    ("ose-aac-101", lambda: ose.ascending_ac(101), "ac_out_of_range"),
    ("ose-from-aac--82", lambda: ose.descending_ac(-82), "ac_out_of_range"),
    # every argument is checked, even one the rule then does not use
    ("pulled-str", lambda: becmi.strike_damage(99, pulled=True), "ability_out_of_range"),
    (
        "melee-dex",
        lambda: ose.attack_modifiers("melee", strength=10, dexterity=99),
        "ability_out_of_range",
    ),
    (
        "missile-str",
        lambda: ose.resolve_damage("1d6", "missile", strength=99, entered=[3]),
        "ability_out_of_range",
    ),
    ("one-size", lambda: becmi.can_strike(-1, 6), "bad_size"),
    ("one-size-given", lambda: becmi.strike_odds(**STRIKE, attacker_size=-1), "bad_size"),
    # no unbounded work, no ZeroDivisionError, no int() of 5000 digits
    ("chance-huge", lambda: core.chance(10**9, bool), "bad_argument"),
    ("chance-zero", lambda: core.chance(0, bool), "bad_argument"),
    ("chance-not-callable", lambda: core.chance(6, 3), "bad_argument"),
    ("sides-text", lambda: core.natural_roll("6", entered=3), "bad_argument"),
    ("total-none", lambda: core.total_of(None), "bad_modifier"),
    ("total-texts", lambda: core.total_of(["str"]), "bad_modifier"),
    (
        "many-modifiers",
        lambda: core.total_of(Modifier(1, "str") for _ in iter(int, 1)),  # endless
        "bad_modifier",
    ),
    ("odds-spec-huge", lambda: hit_location.roll_odds(DiceSpec(10**6, 10**6)), "bad_argument"),
    ("odds-spec-none", lambda: hit_location.roll_odds(None), "bad_argument"),
    (
        "hand-built-dice",
        lambda: dice.distribution(dice.DiceExpression((dice.DiceTerm(10**6, 6),))),
        "too_many_dice",
    ),
    (
        "hand-built-sides",
        lambda: dice.roll(dice.DiceExpression((dice.DiceTerm(1, 10**6),)), entered=[1]),
        "too_many_sides",
    ),
    (
        "hand-built-constant",
        lambda: dice.summary(dice.DiceExpression((dice.ConstantTerm("x"),))),
        "bad_expression",
    ),
    ("bars-zero", lambda: dice.summary("1d6", bars=0), "bad_argument"),
    ("language-none", lambda: dice.die_letter_for(None), "bad_argument"),
    ("total-text", lambda: dice.distribution("2d6").probability("7"), "not_an_integer"),
    ("metres-huge", lambda: hit_location.feet_from_metres(Decimal("1E+9999999")), "height_invalid"),
    ("height-huge", lambda: hit_location.height_band(10**5000, 6), "height_invalid"),
    ("band-huge", lambda: hit_location.parse_band(Band(BandKind.TOP, 10**6)), "unknown_band"),
    ("band-number", lambda: hit_location.parse_band(10**5000), "unknown_band"),
    ("level-digits", lambda: becmi.thac0("fighter", "9" * 5000), "level_out_of_range"),
    ("level-superscript", lambda: becmi.thac0("demi-human", "²"), "bad_attack_rank"),
    ("save-huge", lambda: ose.save_odds(10**5000), "save_value_out_of_range"),
    # hit-location states, plans and lookups
    ("state-none", lambda: hit_location.mobility(None), "bad_argument"),
    ("state-text", lambda: hit_location.end_round("humanoid"), "bad_argument"),
    ("hits-not-callable", lambda: hit_location.special_attack_chance("swallow", 3), "bad_argument"),
    ("combine-text", lambda: hit_location.combine_bodies("x", "humanoid"), "bad_argument"),
    ("combine-name", lambda: hit_location.combine_bodies(3, PLAN), "bad_argument"),
    ("zone-key", lambda: hit_location_tables.zone_key("leg", "left", 7), "unknown_zone"),
    ("zone-key-part", lambda: hit_location_tables.zone_key(None), "unknown_zone"),
    ("zone-anatomy", lambda: hit_location_tables.zone_anatomy([]), "unknown_zone"),
    ("zone-at", lambda: hit_location.band_table(PLAN, "front").zone_at(None), "die_not_integer"),
    ("escape-text", lambda: hit_location.swallow_escape_allowed("6", 24), "damage_invalid"),
]


@pytest.mark.parametrize(
    ("call", "code"), [(c, k) for _, c, k in KNOWN], ids=[i for i, _, _ in KNOWN]
)
def test_it_refuses_the_arguments_that_used_to_escape_as_python_errors(call, code):
    with pytest.raises(RulesError) as caught:
        call()
    assert caught.value.code == code
    str(caught.value)  # the message prints, whatever the value


def test_no_entered_dice_may_be_given_as_none():
    assert hit_location.apply_zone_damage(
        HUMANOID, "tail", 99, entered=None, rng=random.Random(1)
    ) == (hit_location.apply_zone_damage(HUMANOID, "tail", 99, entered=(), rng=random.Random(1)))
    assert hit_location.end_round(HUMANOID, entered=None) == hit_location.end_round(HUMANOID)


def test_a_tuple_of_helpers_is_a_list_of_helpers():
    assert becmi.helper_modifiers((3, 6), 8) == (
        Modifier(1, "helpers_small"),
        Modifier(5, "helpers_large"),
    )


def test_the_wrestling_helpers_are_at_most_100():
    assert becmi.helper_modifiers([1] * 100, 8) == (Modifier(100, "helpers_small"),)
    with pytest.raises(RulesError) as caught:
        becmi.helper_modifiers(iter(lambda: 1, 0), 8)  # endless
    assert caught.value.code == "bad_argument"


@pytest.mark.parametrize(
    "call",
    [lambda: ose.roll_needed(101, 4), lambda: becmi.roll_needed(101, 4)],
    ids=["ose", "becmi"],
)
def test_a_thac0_out_of_range_says_the_range_in_every_system(call):
    with pytest.raises(RulesError) as caught:
        call()
    assert (caught.value.code, caught.value.params) == (
        "thac0_out_of_range",
        {"value": 101, "low": -100, "high": 100},
    )


def test_ose_accepts_every_thac0_and_ac_from_minus_100_to_100():
    assert ose.roll_needed(100, -100, "thac0") == 200
    assert ose.roll_needed(-100, 100) == 2
    assert ose.thac0_from_bonus(119) == -100
    assert ose.descending_ac(-81) == 100
