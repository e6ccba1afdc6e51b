"""The body diagram: a shape per zone of a ``rules.hit_location`` body plan, drawn as inline SVG
and shaded by how much of each zone's hit points is gone.

The shapes are data here (SVG path data in each layout's own coordinates, with the point where
a zone's mark and label go); ``templates/combat/_body.html`` draws them and the ``body_diagram``
tag (``combat/templatetags/bodies.py``) puts a plan and a state together. A body is drawn from
above or from behind, so its left side is on the viewer's left. A body that combines types (a
centipede) gets a plain layout of labelled boxes, each zone in its row.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache
from math import ceil

from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext, ngettext, pgettext

from combat.templatetags.fray import percent
from combat.zone_labels import ZONE_STATES, body_label, zone_label, zone_state_label
from rules.hit_location import BodyPlan, BodyType, Direction, Side, Zone, ZoneSpec, ZoneState

__all__ = [
    "Diagram",
    "DrawnZone",
    "Layout",
    "Look",
    "Shape",
    "diagram",
    "layout_for",
    "render_diagram",
    "state_mark",
    "zone_state_key",
]


@dataclass(frozen=True)
class Shape:
    d: str  # SVG path data
    x: int  # where the zone's mark and label go
    y: int


@dataclass(frozen=True)
class Layout:
    """Shapes in drawing order (what lies behind first) within a ``width`` × ``height`` box."""

    width: int
    height: int
    shapes: tuple[tuple[Zone, Shape], ...]


def _ellipse(cx: int, cy: int, rx: int, ry: int) -> str:
    return f"M{cx - rx} {cy}a{rx} {ry} 0 1 0 {2 * rx} 0a{rx} {ry} 0 1 0 {-2 * rx} 0z"


Z = Zone

_HUMANOID = Layout(
    80,
    112,
    (
        (Z.LEFT_WING, Shape("M26 27L1 3l3 36 12-4z", 9, 20)),
        (Z.RIGHT_WING, Shape("M54 27L79 3l-3 36-12-4z", 71, 20)),
        (Z.TAIL, Shape("M52 66q16 5 15 32h-7q0-18-9-24z", 62, 86)),
        (Z.HEAD, Shape(_ellipse(40, 12, 10, 11), 40, 12)),
        (Z.CHEST, Shape("M27 25h26l-1 24H28z", 40, 37)),
        (Z.ABDOMEN, Shape("M28 50h24l1 16H27z", 40, 58)),
        (Z.LEFT_ARM, Shape("M15 25h11l-1 42h-9z", 20, 46)),
        (Z.RIGHT_ARM, Shape("M54 25h11l-1 42h-9z", 60, 46)),
        (Z.LEFT_LEG, Shape("M27 67h12v42H28z", 33, 88)),
        (Z.RIGHT_LEG, Shape("M41 67h12l-1 42H41z", 47, 88)),
    ),
)

_BIRD_SPREAD = Layout(
    120,
    84,
    (
        (Z.LEFT_WING, Shape("M49 30L2 18l5 16 42 16z", 26, 32)),
        (Z.RIGHT_WING, Shape("M71 30l47-12-5 16-42 16z", 94, 32)),
        (Z.LEFT_LEG, Shape("M51 56L37 72l7 5 12-16z", 45, 68)),
        (Z.RIGHT_LEG, Shape("M69 56l14 16-7 5-12-16z", 75, 68)),
        (Z.TAIL, Shape("M53 60h14l7 20H46z", 60, 71)),
        (Z.BODY, Shape(_ellipse(60, 42, 12, 22), 60, 42)),
        (Z.HEAD, Shape(_ellipse(60, 11, 9, 9), 60, 11)),
    ),
)

# Folded, the wings lie along the body: what a side attack reaches besides them.
_BIRD_FOLDED = Layout(
    80,
    84,
    (
        (Z.TAIL, Shape("M33 60h14l7 20H26z", 40, 71)),
        (Z.LEFT_LEG, Shape("M31 56L17 72l7 5 12-16z", 23, 68)),
        (Z.RIGHT_LEG, Shape("M49 56l14 16-7 5-12-16z", 57, 68)),
        (Z.BODY, Shape(_ellipse(40, 42, 12, 22), 40, 42)),
        (Z.LEFT_WING, Shape("M27 24h11l-2 38-14-4z", 30, 42)),
        (Z.RIGHT_WING, Shape("M42 24h11l5 34-14 4z", 50, 42)),
        (Z.HEAD, Shape(_ellipse(40, 11, 9, 9), 40, 11)),
    ),
)

_REPTILE = Layout(
    100,
    120,
    (
        (Z.LEFT_WING, Shape("M36 24L3 2l3 22 28 12z", 16, 17)),
        (Z.RIGHT_WING, Shape("M64 24L97 2l-3 22-28 12z", 84, 17)),
        (Z.TAIL, Shape("M40 74h20l-7 44h-6z", 50, 92)),
        (Z.LEFT_FORELEG, Shape("M35 28H16v18h9v-9h10z", 21, 39)),
        (Z.RIGHT_FORELEG, Shape("M65 28h19v18h-9v-9H65z", 79, 39)),
        (Z.LEFT_HIND_LEG, Shape("M35 60H16v18h9v-9h10z", 21, 71)),
        (Z.RIGHT_HIND_LEG, Shape("M65 60h19v18h-9v-9H65z", 79, 71)),
        (Z.HEAD, Shape("M41 2h18l4 18H37z", 50, 11)),
        (Z.CHEST, Shape("M36 21h28l2 22H34z", 50, 32)),
        (Z.BELLY, Shape("M34 44h32l-2 30H36z", 50, 59)),
    ),
)

# Seen from above, head first; the dorsal fin runs along the back.
_FISH = Layout(
    80,
    122,
    (
        (Z.LEFT_PECTORAL_FIN, Shape("M27 32L6 40l4 10 18-6z", 15, 42)),
        (Z.RIGHT_PECTORAL_FIN, Shape("M53 32l21 8-4 10-18-6z", 65, 42)),
        (Z.LEFT_PELVIC_FIN, Shape("M30 64L11 74l4 9 17-8z", 19, 75)),
        (Z.RIGHT_PELVIC_FIN, Shape("M50 64l19 10-4 9-17-8z", 61, 75)),
        (Z.TAIL, Shape("M34 84h12l15 36-21-9-21 9z", 40, 102)),
        (Z.HEAD, Shape("M40 2c10 0 14 10 14 22H26c0-12 4-22 14-22z", 40, 14)),
        (Z.BODY, Shape("M26 25h28c2 22 0 42-6 59H32c-6-17-8-37-6-59z", 40, 72)),
        (Z.DORSAL_FIN, Shape("M40 30l8 16-8 16-8-16z", 40, 46)),
    ),
)

_SNAKE = Layout(
    100,
    64,
    (
        (Z.LOWER_BODY, Shape("M74 36h14v8q0 14-14 14H14l-10-7 10-7h60z", 44, 51)),
        (Z.UPPER_BODY, Shape("M30 8h44q14 0 14 14v14H74V22H30z", 52, 15)),
        (Z.HEAD, Shape("M4 15q12-13 26-7v14q-14 6-26-7z", 17, 15)),
    ),
)

# Coiled: rings, the lower body outside, the head in the middle.
_SNAKE_COILED = Layout(
    80,
    80,
    (
        (Z.LOWER_BODY, Shape(_ellipse(40, 40, 38, 38) + _ellipse(40, 40, 25, 25), 40, 9)),
        (Z.UPPER_BODY, Shape(_ellipse(40, 40, 24, 24) + _ellipse(40, 40, 11, 11), 40, 22)),
        (Z.HEAD, Shape(_ellipse(40, 40, 10, 10), 40, 40)),
    ),
)
del Z


def _insect(leg_pairs: int, wing_pairs: int) -> Layout:
    """Seen from above: wings spread forward from the thorax, legs out from the body below."""
    shapes: list[tuple[Zone, Shape]] = []
    for k in range(wing_pairs):
        top = 30 + 3 * k  # where the wing leaves the thorax
        tip = 4 + 14 * k
        n = k + 1
        left = Shape(f"M40 {top}L4 {tip}l-1 11L40 {top + 6}z", 16, tip + 9)
        right = Shape(f"M60 {top}L96 {tip}l1 11L60 {top + 6}z", 84, tip + 9)
        shapes += [(Zone(f"left_wing_{n}"), left), (Zone(f"right_wing_{n}"), right)]
    last = 56
    for k in range(leg_pairs):
        y = last = 56 + 14 * k
        n = k + 1
        left = Shape(f"M42 {y - 4}L9 {y + 3}l-3 9L42 {y + 5}z", 20, y + 5)
        right = Shape(f"M58 {y - 4}L91 {y + 3}l3 9L58 {y + 5}z", 80, y + 5)
        shapes += [(Zone(f"left_leg_{n}"), left), (Zone(f"right_leg_{n}"), right)]
    bottom = last + 16
    ry = (bottom - 51) // 2
    shapes.append((Zone.HEAD, Shape(_ellipse(50, 11, 10, 10), 50, 11)))
    shapes.append((Zone.THORAX, Shape(_ellipse(50, 36, 12, 14), 50, 36)))
    shapes.append((Zone.ABDOMEN, Shape(_ellipse(50, 51 + ry, 14, ry), 50, 51 + ry)))
    return Layout(100, bottom + 4, tuple(shapes))


def _boxes(plan: BodyPlan) -> Layout:
    """Any plan as rows of boxes, top to bottom: a zone with a side shares its row with its pair."""
    shapes: list[tuple[Zone, Shape]] = []
    rows: dict[tuple[object, ...], int] = {}
    for spec in plan.zones:
        key = (spec.body, spec.part, spec.number) if spec.side else (spec.zone,)
        row = rows.setdefault(key, len(rows))
        y = 2 + 18 * row
        if spec.side is None:
            shapes.append((spec.zone, Shape(f"M22 {y}h56v15H22z", 50, y + 7)))
        elif spec.side is Side.LEFT:
            shapes.append((spec.zone, Shape(f"M2 {y}h46v15H2z", 25, y + 7)))
        else:
            shapes.append((spec.zone, Shape(f"M52 {y}h46v15H52z", 75, y + 7)))
    return Layout(100, 2 + 18 * len(rows), tuple(shapes))


def _counts(plan: BodyPlan, part: str) -> int:
    return sum(1 for spec in plan.zones if spec.part.value == part and spec.side is Side.LEFT)


@lru_cache(maxsize=256)
def layout_for(plan: BodyPlan) -> Layout:
    """The layout of a plan, with only the zones it has: its body type's drawing (and variant),
    or rows of boxes for a body that combines types."""
    if any(spec.body is not plan.body for spec in plan.zones):
        return _boxes(plan)
    if plan.body is BodyType.INSECTOID:
        full = _insect(_counts(plan, "leg") or 1, _counts(plan, "wing"))
    elif plan.body is BodyType.BIRD:
        head = next((s for s in plan.zones if s.zone is Zone.HEAD), None)
        folded = head is not None and Direction.LEFT in head.reach
        full = _BIRD_FOLDED if folded else _BIRD_SPREAD
    elif plan.body is BodyType.SNAKE:
        head = next((s for s in plan.zones if s.zone is Zone.HEAD), None)
        coiled = head is not None and Direction.REAR in head.reach
        full = _SNAKE_COILED if coiled else _SNAKE
    else:
        full = {
            BodyType.HUMANOID: _HUMANOID,
            BodyType.REPTILE: _REPTILE,
            BodyType.FISH: _FISH,
        }[plan.body]
    drawn = dict(full.shapes)
    if any(spec.zone not in drawn for spec in plan.zones):  # a hand-made plan: draw it plainly
        return _boxes(plan)
    wanted = set(plan.zone_keys)
    return Layout(full.width, full.height, tuple(s for s in full.shapes if s[0] in wanted))


class Look(StrEnum):
    """How a zone is drawn (its CSS class; its word is ``zone_labels.ZONE_STATES[look]``)."""

    UNHURT = "unhurt"
    WOUNDED = "wounded"
    BADLY = "badly"
    LOST = "lost"
    SEVERED = "severed"


def zone_state_key(damage: int, maximum: int, limb: bool) -> Look:
    """The share of a zone's points gone: the same halves as a combatant's health
    (``Combatant.health``). A lost limb is severed."""
    if damage >= maximum:
        return Look.SEVERED if limb else Look.LOST
    if damage <= 0:
        return Look.UNHURT
    return Look.WOUNDED if damage * 2 < maximum else Look.BADLY


# Marks that say the state without colour: one stroke, two strokes, a cross.
_MARKS = {
    Look.UNHURT: "",
    Look.WOUNDED: "M{a} {d}l6-6",
    Look.BADLY: "M{b} {d}l6-6m-2 6l6-6",
    Look.LOST: "M{c} {e}l8 8m0-8l-8 8",
    Look.SEVERED: "M{c} {e}l8 8m0-8l-8 8",
}


def state_mark(state: Look | str, x: int, y: int) -> str:
    """Path data of a state's mark centred at (x, y); "" for an unhurt zone."""
    template = _MARKS[Look(state)]
    return template.format(a=x - 3, b=x - 5, c=x - 4, d=y + 3, e=y - 4) if template else ""


# -- Figures drawn on a zone (its hit points left, its chance of a hit): never smaller than
# LABEL_PX CSS pixels wherever the diagram is drawn, never over one another or a mark, never
# past the drawing's edge; one that does not fit is left out (the zone's name for screen
# readers, and the list beside the diagram where there is one, still say it).
LABEL_PX = 12
# A combatant's row draws its diagram 7rem high (static/fray.css, ``.combatant .body-diagram
# svg``): 112 CSS px at a phone's 16 px rem, more on the table display's larger rem.
ROW_PX = 112
# Widths in em of a bold figure's characters, on the wide side (DejaVu Sans Bold, the widest
# usual fallback), and the height of a figure (its digits' cap height, with a margin).
_EM_WIDTH = {"%": 1.0, " ": 0.35, "\u00a0": 0.35, "\u202f": 0.25, ".": 0.4, ",": 0.4}
_DIGIT_EM = 0.7
_FIGURE_EM = 0.8
_LINE_EM = 1.2  # its whole line (the em box a browser measures): how far apart two figures stay
_MARK_HALF = 4.5  # a mark's half size, with its stroke

Box = tuple[float, float, float, float]  # left, top, right, bottom

_PATH_TOKEN = re.compile(r"[MmLlHhVvQqCcAaZz]|-?(?:\d+\.?\d*|\.\d+)")
_PATH_ARGS = {"m": 2, "l": 2, "h": 1, "v": 1, "q": 4, "c": 6, "a": 7, "z": 0}


@lru_cache(maxsize=1024)
def path_box(d: str) -> Box:
    """The box around path data (of the few commands the shapes here use): its end points and
    control points, and an arc's whole ellipse (the shapes' arcs are half ellipses), so it may
    be a little larger than the shape, never smaller."""
    tokens = _PATH_TOKEN.findall(d)
    xs: list[float] = []
    ys: list[float] = []
    x = y = 0.0
    start = (0.0, 0.0)
    command = "M"
    i = 0
    while i < len(tokens):
        if tokens[i].isalpha():
            command = tokens[i]
            i += 1
            if command in "Zz":
                x, y = start
                continue
        kind = command.lower()
        args = [float(t) for t in tokens[i : i + _PATH_ARGS[kind]]]
        i += _PATH_ARGS[kind]
        relative = command.islower()
        ox, oy = (x, y) if relative else (0.0, 0.0)
        if kind == "h":
            x = ox + args[0]
        elif kind == "v":
            y = oy + args[0]
        elif kind == "a":
            rx, ry = abs(args[0]), abs(args[1])
            end = (ox + args[5], oy + args[6])
            cx, cy = (x + end[0]) / 2, (y + end[1]) / 2
            xs += [cx - rx, cx + rx]
            ys += [cy - ry, cy + ry]
            x, y = end
        else:
            for k in range(0, len(args) - 2, 2):  # control points
                xs.append(ox + args[k])
                ys.append(oy + args[k + 1])
            x, y = ox + args[-2], oy + args[-1]
        if kind == "m":
            start = (x, y)
            command = "l" if relative else "L"  # further pairs are lines
        xs.append(x)
        ys.append(y)
    return min(xs), min(ys), max(xs), max(ys)


def figure_width(text: str, size: float) -> float:
    return sum(_EM_WIDTH.get(ch, _DIGIT_EM) for ch in text) * size


def _overlaps(a: Box, b: Box, gap: float = 1) -> bool:
    """Whether two boxes come closer than ``gap``."""
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def _place_figures(
    wanted: list[tuple[str, str, int, int, Box]],
    marks: list[Box],
    size: int,
    width: int,
    height: int,
) -> dict[str, int]:
    """Where each figure goes: ``wanted`` is (zone, figure, x, y, the zone's box) in the order
    they claim their place; a figure goes at its y or a line below or above it, inside its
    zone's height and the drawing, clear of the marks and the figures placed before it. A zone
    whose figure finds no place is not in the answer."""
    placed: dict[str, int] = {}
    lines: list[Box] = []
    half, half_line = size * _FIGURE_EM / 2, size * _LINE_EM / 2
    step = ceil(size * _LINE_EM) + 1
    for zone, text, x, y, zone_box in wanted:
        half_width = figure_width(text, size) / 2
        if x - half_width < 0 or x + half_width > width:
            continue
        for at in (y, y + step, y - step, y + 2 * step, y - 2 * step):
            box = (x - half_width, at - half, x + half_width, at + half)
            line = (x - half_width, at - half_line, x + half_width, at + half_line)
            inside = box[1] >= max(0, zone_box[1] - 1) and box[3] <= min(height, zone_box[3] + 1)
            if (
                inside
                and not any(_overlaps(box, mark) for mark in marks)
                and not any(_overlaps(line, other, gap=0) for other in lines)
            ):
                placed[zone] = at
                lines.append(line)
                break
    return placed


@dataclass(frozen=True)
class DrawnZone:
    zone: str
    name: str
    d: str
    x: int
    y: int
    state: Look
    word: str  # the state, translated
    label: str  # the accessible name: zone, hit points (when shown), state
    mark: str  # path data of the state's mark, "" for unhurt
    text: str  # drawn in the zone: its chance of a hit ("12%") or its hit points left ("3")
    text_y: int
    reachable: bool  # False when odds are shown and this zone cannot be hit
    hp: str  # "3/5" when numbers are shown


@dataclass(frozen=True)
class Diagram:
    name: str  # the body type's (or a combined body's) name, translated
    width: int  # of the drawing's coordinates (the viewBox)
    height: int
    zones: tuple[DrawnZone, ...]  # drawing order
    listed: tuple[DrawnZone, ...]  # the plan's order, top to bottom
    dead: bool
    odds: bool
    label_size: int  # the figures' font size, in the drawing's units

    # Drawn at 1.5 px per unit: a humanoid is 120 × 168 px, its arms 16 px wide.
    SCALE = Fraction(3, 2)

    @property
    def px_width(self) -> int:
        return round(self.width * self.SCALE)

    @property
    def px_height(self) -> int:
        return round(self.height * self.SCALE)


def _hp_label(name: str, left: int, maximum: int, over: int, state: str) -> str:
    values = {"zone": name, "left": left, "max": maximum, "over": over, "state": state}
    if over:
        return (
            ngettext(
                "%(zone)s: %(left)s of %(max)s hit point, %(over)s over its maximum, %(state)s",
                "%(zone)s: %(left)s of %(max)s hit points, %(over)s over its maximum, %(state)s",
                maximum,
            )
            % values
        )
    return (
        ngettext(
            "%(zone)s: %(left)s of %(max)s hit point, %(state)s",
            "%(zone)s: %(left)s of %(max)s hit points, %(state)s",
            maximum,
        )
        % values
    )


def _percent(chance: Fraction) -> str:
    return pgettext("chance of a hit on a body zone", "%(percent)s%%") % {
        "percent": percent(chance)
    }


def _odds_key(zone: object) -> str:
    return zone.value if isinstance(zone, Zone) else str(zone)


def diagram(
    plan: BodyPlan,
    state: ZoneState | None = None,
    *,
    numbers: bool = True,
    odds: Mapping[Zone | str, Fraction] | None = None,
    row: bool = False,
) -> Diagram:
    """What the template draws: each zone's shape, state, mark, accessible name and the chance
    of a hit on it (when ``odds`` are given). Without ``numbers`` no hit-point figure appears,
    not even in the accessible names. ``row``: drawn in a combatant's row (``ROW_PX`` high),
    else at ``Diagram.SCALE``; the figures are sized for it, and left out where they do not fit."""
    layout = layout_for(plan)
    scale = Fraction(ROW_PX, layout.height) if row else Diagram.SCALE
    size = ceil(LABEL_PX / scale)
    specs: dict[Zone, tuple[int, ZoneSpec]] = {s.zone: (i, s) for i, s in enumerate(plan.zones)}
    if state is not None and state.plan != plan:
        state = None if state.plan.zone_keys != plan.zone_keys else state
    chances = {_odds_key(z): Fraction(c) for z, c in (odds or {}).items()}
    drawn: dict[Zone, DrawnZone] = {}
    for zone, shape in layout.shapes:
        index, spec = specs[zone]
        name = zone_label(zone, spec.body)
        if state is None:
            key, damage, maximum = Look.UNHURT, 0, 0
        else:
            damage, maximum = state.damage[index], state.zone_max[index]
            key = zone_state_key(damage, maximum, spec.limb)
        word = str(ZONE_STATES[key])
        text = ""
        if numbers and state is not None:
            left, over = max(0, maximum - damage), max(0, damage - maximum)
            label = _hp_label(name, left, maximum, over, word)
            hp = f"{left}/{maximum}" + (f" +{over}" if over else "")
            text = str(left)
        else:
            label = zone_state_label(name, key)
            hp = ""
        chance = chances.get(zone.value)
        if odds is not None:
            text = _percent(chance) if chance else ""
            if chance:
                label = gettext("%(zone)s; chance of a hit: %(percent)s") % {
                    "zone": label,
                    "percent": text,
                }
        # A mark and a figure share the zone: the mark above, the figure below.
        marked_at = (shape.x, shape.y - 5) if text else (shape.x, shape.y)
        figure_at = shape.y
        if key is not Look.UNHURT and text:
            figure_at = marked_at[1] + ceil(_MARK_HALF + size * _FIGURE_EM / 2 + 1)
        drawn[zone] = DrawnZone(
            zone=zone.value,
            name=name,
            d=shape.d,
            x=shape.x,
            y=shape.y,
            state=key,
            word=word,
            label=label,
            mark=state_mark(key, *marked_at),
            text=text,
            text_y=figure_at,
            reachable=odds is None or bool(chance),
            hp=hp,
        )
    marks = [
        (z.x - _MARK_HALF - 1, z.y - 5 - _MARK_HALF, z.x + _MARK_HALF + 1, z.y - 5 + _MARK_HALF)
        if z.text
        else (z.x - _MARK_HALF - 1, z.y - _MARK_HALF, z.x + _MARK_HALF + 1, z.y + _MARK_HALF)
        for z in drawn.values()
        if z.mark
    ]
    wanted = [
        (z.zone, z.text, z.x, z.text_y, path_box(z.d))
        for z in (drawn[spec.zone] for spec in plan.zones)
        if z.text
    ]
    placed = _place_figures(wanted, marks, size, layout.width, layout.height)
    for zone, found in drawn.items():
        if found.text:
            at = placed.get(found.zone)
            drawn[zone] = replace(found, text="") if at is None else replace(found, text_y=at)
    return Diagram(
        name=body_label(plan.name),
        width=layout.width,
        height=layout.height,
        zones=tuple(drawn[zone] for zone, _ in layout.shapes),
        listed=tuple(drawn[spec.zone] for spec in plan.zones),
        dead=bool(state and state.dead),
        odds=odds is not None,
        label_size=size,
    )


# Rendered diagrams by everything they depend on. A change re-renders every row for every
# audience, while a body's diagram changes only when that body is hurt: most are drawn as
# before. Bounded, and emptied when full (a fight has a few dozen bodies, a few states each).
_RENDERED: dict[tuple[object, ...], SafeString] = {}
_RENDERED_MAX = 2048


def render_diagram(
    plan: BodyPlan,
    state: ZoneState | None = None,
    *,
    numbers: bool = True,
    odds: Mapping[Zone | str, Fraction] | None = None,
    tap_url: str | None = None,
    row: bool = False,
) -> SafeString:
    """The diagram as HTML (``templates/combat/_body.html``): see :func:`diagram`; with a
    ``tap_url``, each zone links to ``tap_url?zone=<zone>`` (``&zone=`` after a query)."""
    tap = f"{tap_url}{'&' if '?' in tap_url else '?'}zone=" if tap_url else ""
    drawn = None if state is None else (state.plan, state.damage, state.zone_max, state.dead)
    chances = None if odds is None else frozenset((_odds_key(z), c) for z, c in odds.items())
    key = (plan, drawn, bool(numbers), chances, tap, bool(row), get_language())
    html = _RENDERED.get(key)
    if html is None:
        found = diagram(plan, state, numbers=numbers, odds=odds, row=row)
        html = render_to_string("combat/_body.html", {"d": found, "tap": tap})
        if len(_RENDERED) >= _RENDERED_MAX:
            _RENDERED.clear()
        _RENDERED[key] = html
    return html
