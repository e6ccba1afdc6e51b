"""BECMI / Rules Cyclopedia combat: the public face of the BECMI rules engine.

The API.md lookups ``roll_needed(thac0, ac)`` and ``thac0(column, level)`` live here together
with everything else of the system, which is written in five modules by topic:

- ``rules.becmi_hit``: the to-hit derivation and the hit table (the API.md lookups);
- ``rules.becmi_attack``: range and cover, hit rolls and Death Ray saves (reason keys
  ``range_short``, ``range_long``, ``cover_<soft|hard>_<amount>``, ``boarding``; outcomes
  ``hit``, ``miss``, ``impossible``);
- ``rules.becmi_striking``: unarmed blows (reasons ``str``, ``haymaker``, ``stun_save``,
  ``attacker_str``; outcomes ``impossible``, ``miss``, ``hit``, ``stunned``, ``knocked_out``);
- ``rules.becmi_wrestling``: wrestling (reasons ``wrestling_rating``, ``helpers_small``,
  ``helpers_large``, ``pinned``; holds ``free``, ``grabbed``, ``thrown``, ``pinned``; winners
  ``attacker``, ``defender``, ``tie``);
- ``rules.becmi_naval``: naval combat (ship status ``afloat``, ``dead_in_water``, ``sinking``;
  grapple outcomes ``grappled``, ``failed``, ``agreed``, ``out_of_range``; vessels
  ``small_galley``, ``large_galley``; ram targets ``ship``, ``creature``).

Each module's docstring lists the decisions taken where the seed is silent. Arguments are
checked as :mod:`rules.core` describes for every system: THAC0 and AC −100..100
(``thac0_out_of_range``, ``ac_out_of_range``), modifiers a list of ``Modifier``
(``bad_modifier``), a random source with ``randint`` (``no_random_source``); the wrestling
helpers a list of at most 100 Hit Dice (``bad_argument``); entered naval dice a list
(``wrong_dice_count`` with ``value`` None otherwise).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .becmi_attack import (
    BOARDING_PENALTY,
    COVER_ADJUSTMENTS,
    RANGE_ADJUSTMENTS,
    AttackOutcome,
    AttackResult,
    Cover,
    CoverMaterial,
    RangeBand,
    SaveResult,
    attack_odds,
    cover_adjustment,
    range_adjustment,
    resolve_attack,
    resolve_save,
    save_chance,
)
from .becmi_hit import (
    MONSTER_HIT_ROWS,
    NORMAL_MAN_THAC0,
    Column,
    HitDice,
    parse_hit_dice,
    roll_needed,
    thac0,
)
from .becmi_naval import (
    GRAPPLE_RANGE_FT,
    RAM_DAMAGE,
    RAM_THAC0,
    REPAIR_CREW,
    GrappleOutcome,
    GrappleResult,
    RamResult,
    RamTarget,
    RamVessel,
    RepairLife,
    Ship,
    ShipStatus,
    grapple_odds,
    hull_damage_from_hit_points,
    ram_damage_distribution,
    ram_odds,
    repair_life_distribution,
    resolve_grapple,
    resolve_ram,
    roll_repair_life,
)
from .becmi_striking import (
    HAYMAKER_TO_HIT,
    StrikeOdds,
    StrikeOutcome,
    StrikeResult,
    can_strike,
    knockout_chance,
    monster_constitution,
    resolve_strike,
    strike_damage,
    strike_odds,
    stun_chance,
)
from .becmi_wrestling import (
    PINNED_PENALTY,
    Hold,
    OpposedOdds,
    Winner,
    WrestlingRound,
    helper_modifiers,
    monster_wrestling_rating,
    opposed_odds,
    pin_damage,
    pin_damage_chance,
    resolve_wrestling_round,
    wrestling_rating,
    wrestling_round_odds,
)
from .core import Modifier

__all__ = [
    "BENCH_CASES",
    "BOARDING_PENALTY",
    "COVER_ADJUSTMENTS",
    "GRAPPLE_RANGE_FT",
    "HAYMAKER_TO_HIT",
    "MONSTER_HIT_ROWS",
    "NORMAL_MAN_THAC0",
    "PINNED_PENALTY",
    "RAM_DAMAGE",
    "RAM_THAC0",
    "RANGE_ADJUSTMENTS",
    "REPAIR_CREW",
    "AttackOutcome",
    "AttackResult",
    "Column",
    "Cover",
    "CoverMaterial",
    "GrappleOutcome",
    "GrappleResult",
    "HitDice",
    "Hold",
    "OpposedOdds",
    "RamResult",
    "RamTarget",
    "RamVessel",
    "RangeBand",
    "RepairLife",
    "SaveResult",
    "Ship",
    "ShipStatus",
    "StrikeOdds",
    "StrikeOutcome",
    "StrikeResult",
    "Winner",
    "WrestlingRound",
    "attack_odds",
    "can_strike",
    "cover_adjustment",
    "grapple_odds",
    "helper_modifiers",
    "hull_damage_from_hit_points",
    "knockout_chance",
    "monster_constitution",
    "monster_wrestling_rating",
    "opposed_odds",
    "parse_hit_dice",
    "pin_damage",
    "pin_damage_chance",
    "ram_damage_distribution",
    "ram_odds",
    "range_adjustment",
    "repair_life_distribution",
    "resolve_attack",
    "resolve_grapple",
    "resolve_ram",
    "resolve_save",
    "resolve_strike",
    "resolve_wrestling_round",
    "roll_needed",
    "roll_repair_life",
    "save_chance",
    "strike_damage",
    "strike_odds",
    "stun_chance",
    "thac0",
    "wrestling_rating",
    "wrestling_round_odds",
]


def _bench_attack_odds() -> object:
    return attack_odds(
        thac0("fighter", 9),
        2,
        range_band="long",
        cover="half",
        cover_material="hard",
        modifiers=(Modifier(2, "magic"),),
    )


def _bench_resolve_attack() -> object:
    return resolve_attack(
        thac0("monster", "9+2*"), 2, modifiers=(Modifier(1, "str"),), rng=random.Random(1234)
    )


def _bench_strike_odds() -> object:
    return strike_odds(17, 5, defender_con=12, defender_save=12, attacker_str=16, haymaker=True)


def _bench_wrestling_round() -> object:
    attacker = wrestling_rating(5, 16, 13, basic_ac=9)
    defender = monster_wrestling_rating("4+1", 6)
    return resolve_wrestling_round(
        "grabbed",
        attacker,
        defender,
        defender_save=10,
        attacker_modifiers=helper_modifiers([1, 3], "4+1"),
        pinner_str=16,
        rng=random.Random(1234),
    )


def _bench_wrestling_odds() -> object:
    return wrestling_round_odds("thrown", 14, 12)


def _bench_ram() -> object:
    return resolve_ram("large_galley", "ship", 8, rng=random.Random(1234))


BENCH_CASES: list[tuple[str, Callable[[], object]]] = [
    ("becmi.attack_odds", _bench_attack_odds),
    ("becmi.resolve_attack", _bench_resolve_attack),
    ("becmi.strike_odds", _bench_strike_odds),
    ("becmi.resolve_wrestling_round", _bench_wrestling_round),
    ("becmi.wrestling_round_odds", _bench_wrestling_odds),
    ("becmi.resolve_ram", _bench_ram),
]
