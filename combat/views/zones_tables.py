"""The hit-location tables in full: each body type's d100 location tables by direction (and the
tables an ``A`` or ``W`` band reads), and the height matrix. The project's reconstruction of
tables lost with the 1975 original, so the page says so."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.views.decorators.http import require_GET

from combat.templatetags.fray import number
from combat.zone_labels import VARIANTS, body_label, direction_label, zone_label
from rules.hit_location import (
    Band,
    BandKind,
    BodyPlan,
    BodyType,
    Direction,
    band_table,
    body_plan,
    parse_band,
)
from rules.hit_location_tables import HEIGHT_MATRIX

# The variants shown: each body type as it comes, then what ``body_plan`` can change in it.
SHOWN: tuple[tuple[BodyType, dict[str, Any], tuple[str, ...]], ...] = (
    (BodyType.HUMANOID, {}, ()),
    (BodyType.HUMANOID, {"tail": True}, ("tail",)),
    (BodyType.HUMANOID, {"wings": True}, ("wings",)),
    (BodyType.HUMANOID, {"tail": True, "wings": True}, ("tail", "wings")),
    (BodyType.BIRD, {}, ("wings_spread",)),
    (BodyType.BIRD, {"wings_spread": False}, ("wings_folded",)),
    (BodyType.REPTILE, {}, ("four_legs", "wings")),
    (BodyType.REPTILE, {"wings": False}, ("four_legs", "no_wings")),
    (BodyType.REPTILE, {"legs": 2}, ("two_legs", "wings")),
    (BodyType.REPTILE, {"legs": 2, "wings": False}, ("two_legs", "no_wings")),
    (BodyType.REPTILE, {"upright": True}, ("upright",)),
    (BodyType.INSECTOID, {}, ("six_legs", "no_wings")),
    (BodyType.INSECTOID, {"wings": 4}, ("six_legs", "four_wings")),
    (BodyType.INSECTOID, {"legs": 8, "wings": 4}, ("eight_legs", "four_wings")),
    (BodyType.INSECTOID, {"legs": 10, "wings": 6}, ("ten_legs", "six_wings")),
    (BodyType.FISH, {}, ()),
    (BodyType.SNAKE, {}, ()),
    (BodyType.SNAKE, {"coiled": True}, ("coiled",)),
)

BANDS = ("N", "A", "W")


@dataclass(frozen=True)
class Row:
    zone: str
    name: str
    share: int
    seed_share: bool  # False: the share is the reconstruction's (a reptile's wings)
    fatal: bool
    cumulative: bool
    cells: tuple[str, ...]  # d100 range per direction, "" where the zone is not on the table


@dataclass(frozen=True)
class Table:
    band: str
    directions: tuple[str, ...]
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Variant:
    anchor: str
    title: str
    plan: BodyPlan
    tables: tuple[Table, ...]  # N, then A and W


def _range(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}–{high}"


def _table(plan: BodyPlan, band: str) -> Table:
    directions = plan.directions
    ranges: dict[tuple[str, Direction], str] = {}
    for direction in directions:
        for row in band_table(plan, direction, band).rows:
            ranges[(row.zone.value, direction)] = _range(row.low, row.high)
    rows = tuple(
        Row(
            zone=spec.zone.value,
            name=zone_label(spec.zone, spec.body),
            share=spec.share,
            seed_share=spec.seed_share,
            fatal=spec.fatal,
            cumulative=spec.cumulative,
            cells=tuple(ranges.get((spec.zone.value, d), "") for d in directions),
        )
        for spec in plan.zones
        if any((spec.zone.value, d) in ranges for d in directions)
    )
    return Table(band, tuple(direction_label(d) for d in directions), rows)


def _variants() -> list[Variant]:
    variants = []
    for body, options, words in SHOWN:
        plan = body_plan(body, **options)
        title = body_label(body)
        if words:
            title = f"{title}: " + ", ".join(str(VARIANTS[w]) for w in words)
        anchor = "-".join([body.value, *words]).replace("_", "-")
        variants.append(Variant(anchor, title, plan, tuple(_table(plan, b) for b in BANDS)))
    return variants


@dataclass(frozen=True)
class MatrixRow:
    ratio: str
    band: str
    meaning: str | Promise


def _meaning(band: Band) -> str:
    if band.kind is BandKind.AUTOMATIC:
        return gettext("a potentially fatal zone, from that direction's fatal zones")
    if band.kind is BandKind.WOUNDING:
        return gettext("a wounding zone only (limbs, tail, fins, a snake's lower body)")
    if band.kind is BandKind.NORMAL:
        return gettext("the whole table")
    if band.kind is BandKind.TOP:
        return gettext("only the top %(percent)s%% of the table") % {"percent": band.value}
    return gettext("not the top %(percent)s%% of the table") % {"percent": band.value}


def _matrix() -> list[MatrixRow]:
    """Each band with the ratios that give it: a row holds from its own bound up to the bound
    of the row above (whose inclusiveness decides the upper end)."""
    rows = []
    above: tuple[Fraction, bool] | None = None
    for bound, inclusive, key in HEIGHT_MATRIX:
        low = f"{number(bound)} {'≤' if inclusive else '<'} " if bound > 0 else ""
        high = f" {'<' if above[1] else '≤'} {number(above[0])}" if above else ""
        if not high:
            ratio = f"r {'≥' if inclusive else '>'} {number(bound)}"
        else:
            ratio = f"{low}r{high}"
        rows.append(MatrixRow(ratio, key, _meaning(parse_band(key))))
        above = (bound, inclusive)
    return rows


@require_GET
def hit_locations(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "combat/hit_locations.html",
        {"variants": _variants(), "matrix": _matrix(), "bands": BANDS},
    )
