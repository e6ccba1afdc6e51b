"""The hit-location engine's keys in the viewer's language: zones, parts, sides, directions,
body types, body variants and the states a zone is drawn in.

One place for every word of ``rules.hit_location`` that the interface shows, so the diagram, the
forms, the tables page and the log say the same thing (terms: ``glossary.md``, the seed's
Russian for ru). Look words up with the helpers below rather than the dicts, so a zone named
differently on one body type (an insect's abdomen) comes out right.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import pgettext, pgettext_lazy

from rules.hit_location import BodyType, Direction, Part, Side, Zone

__all__ = [
    "BODY_TYPES",
    "DIRECTIONS",
    "PARTS",
    "SIDES",
    "VARIANTS",
    "ZONES",
    "ZONES_HIT",
    "ZONE_STATES",
    "body_label",
    "direction_label",
    "part_label",
    "zone_hit_label",
    "zone_label",
    "zone_state_label",
]

# Whole names, never "left" + "arm": the side agrees with the part in cs, ru and uk
# (levá paže, levé křídlo; левая рука, левое крыло).
ZONES: dict[Zone, Promise] = {
    Zone.HEAD: pgettext_lazy("body zone", "head"),
    Zone.CHEST: pgettext_lazy("body zone", "chest"),
    Zone.ABDOMEN: pgettext_lazy("body zone", "abdomen"),
    Zone.BODY: pgettext_lazy("body zone", "body"),
    Zone.BELLY: pgettext_lazy("body zone", "belly"),
    Zone.THORAX: pgettext_lazy("body zone", "thorax"),
    Zone.UPPER_BODY: pgettext_lazy("body zone", "upper body"),
    Zone.LOWER_BODY: pgettext_lazy("body zone", "lower body"),
    Zone.TAIL: pgettext_lazy("body zone", "tail"),
    Zone.DORSAL_FIN: pgettext_lazy("body zone", "dorsal fin"),
    Zone.LEFT_ARM: pgettext_lazy("body zone", "left arm"),
    Zone.RIGHT_ARM: pgettext_lazy("body zone", "right arm"),
    Zone.LEFT_LEG: pgettext_lazy("body zone", "left leg"),
    Zone.RIGHT_LEG: pgettext_lazy("body zone", "right leg"),
    Zone.LEFT_WING: pgettext_lazy("body zone", "left wing"),
    Zone.RIGHT_WING: pgettext_lazy("body zone", "right wing"),
    Zone.LEFT_FORELEG: pgettext_lazy("body zone", "left foreleg"),
    Zone.RIGHT_FORELEG: pgettext_lazy("body zone", "right foreleg"),
    Zone.LEFT_HIND_LEG: pgettext_lazy("body zone", "left hind leg"),
    Zone.RIGHT_HIND_LEG: pgettext_lazy("body zone", "right hind leg"),
    Zone.LEFT_PECTORAL_FIN: pgettext_lazy("body zone", "left pectoral fin"),
    Zone.RIGHT_PECTORAL_FIN: pgettext_lazy("body zone", "right pectoral fin"),
    Zone.LEFT_PELVIC_FIN: pgettext_lazy("body zone", "left pelvic fin"),
    Zone.RIGHT_PELVIC_FIN: pgettext_lazy("body zone", "right pelvic fin"),
    # An insect's legs and wings are numbered from the front.
    Zone.LEFT_LEG_1: pgettext_lazy("body zone", "left leg 1"),
    Zone.LEFT_LEG_2: pgettext_lazy("body zone", "left leg 2"),
    Zone.LEFT_LEG_3: pgettext_lazy("body zone", "left leg 3"),
    Zone.LEFT_LEG_4: pgettext_lazy("body zone", "left leg 4"),
    Zone.LEFT_LEG_5: pgettext_lazy("body zone", "left leg 5"),
    Zone.RIGHT_LEG_1: pgettext_lazy("body zone", "right leg 1"),
    Zone.RIGHT_LEG_2: pgettext_lazy("body zone", "right leg 2"),
    Zone.RIGHT_LEG_3: pgettext_lazy("body zone", "right leg 3"),
    Zone.RIGHT_LEG_4: pgettext_lazy("body zone", "right leg 4"),
    Zone.RIGHT_LEG_5: pgettext_lazy("body zone", "right leg 5"),
    Zone.LEFT_WING_1: pgettext_lazy("body zone", "left wing 1"),
    Zone.LEFT_WING_2: pgettext_lazy("body zone", "left wing 2"),
    Zone.LEFT_WING_3: pgettext_lazy("body zone", "left wing 3"),
    Zone.RIGHT_WING_1: pgettext_lazy("body zone", "right wing 1"),
    Zone.RIGHT_WING_2: pgettext_lazy("body zone", "right wing 2"),
    Zone.RIGHT_WING_3: pgettext_lazy("body zone", "right wing 3"),
}

# Where one body type has its own word for a zone (the seed: an insect's "брюшко", not the
# humanoid's "живот").
_ZONES_BY_BODY: dict[tuple[BodyType, Zone], Promise] = {
    (BodyType.INSECTOID, Zone.ABDOMEN): pgettext_lazy("insect's body zone", "abdomen"),
}

# Where a blow lands, for "hits Bára in the left arm": the zone's case differs from its name
# (cs "do levé paže", ru "в левую руку", uk "у ліву руку").
ZONES_HIT: dict[Zone, Promise] = {
    Zone.HEAD: pgettext_lazy("hit in a body zone", "in the head"),
    Zone.CHEST: pgettext_lazy("hit in a body zone", "in the chest"),
    Zone.ABDOMEN: pgettext_lazy("hit in a body zone", "in the abdomen"),
    Zone.BODY: pgettext_lazy("hit in a body zone", "in the body"),
    Zone.BELLY: pgettext_lazy("hit in a body zone", "in the belly"),
    Zone.THORAX: pgettext_lazy("hit in a body zone", "in the thorax"),
    Zone.UPPER_BODY: pgettext_lazy("hit in a body zone", "in the upper body"),
    Zone.LOWER_BODY: pgettext_lazy("hit in a body zone", "in the lower body"),
    Zone.TAIL: pgettext_lazy("hit in a body zone", "in the tail"),
    Zone.DORSAL_FIN: pgettext_lazy("hit in a body zone", "in the dorsal fin"),
    Zone.LEFT_ARM: pgettext_lazy("hit in a body zone", "in the left arm"),
    Zone.RIGHT_ARM: pgettext_lazy("hit in a body zone", "in the right arm"),
    Zone.LEFT_LEG: pgettext_lazy("hit in a body zone", "in the left leg"),
    Zone.RIGHT_LEG: pgettext_lazy("hit in a body zone", "in the right leg"),
    Zone.LEFT_WING: pgettext_lazy("hit in a body zone", "in the left wing"),
    Zone.RIGHT_WING: pgettext_lazy("hit in a body zone", "in the right wing"),
    Zone.LEFT_FORELEG: pgettext_lazy("hit in a body zone", "in the left foreleg"),
    Zone.RIGHT_FORELEG: pgettext_lazy("hit in a body zone", "in the right foreleg"),
    Zone.LEFT_HIND_LEG: pgettext_lazy("hit in a body zone", "in the left hind leg"),
    Zone.RIGHT_HIND_LEG: pgettext_lazy("hit in a body zone", "in the right hind leg"),
    Zone.LEFT_PECTORAL_FIN: pgettext_lazy("hit in a body zone", "in the left pectoral fin"),
    Zone.RIGHT_PECTORAL_FIN: pgettext_lazy("hit in a body zone", "in the right pectoral fin"),
    Zone.LEFT_PELVIC_FIN: pgettext_lazy("hit in a body zone", "in the left pelvic fin"),
    Zone.RIGHT_PELVIC_FIN: pgettext_lazy("hit in a body zone", "in the right pelvic fin"),
    Zone.LEFT_LEG_1: pgettext_lazy("hit in a body zone", "in the left leg 1"),
    Zone.LEFT_LEG_2: pgettext_lazy("hit in a body zone", "in the left leg 2"),
    Zone.LEFT_LEG_3: pgettext_lazy("hit in a body zone", "in the left leg 3"),
    Zone.LEFT_LEG_4: pgettext_lazy("hit in a body zone", "in the left leg 4"),
    Zone.LEFT_LEG_5: pgettext_lazy("hit in a body zone", "in the left leg 5"),
    Zone.RIGHT_LEG_1: pgettext_lazy("hit in a body zone", "in the right leg 1"),
    Zone.RIGHT_LEG_2: pgettext_lazy("hit in a body zone", "in the right leg 2"),
    Zone.RIGHT_LEG_3: pgettext_lazy("hit in a body zone", "in the right leg 3"),
    Zone.RIGHT_LEG_4: pgettext_lazy("hit in a body zone", "in the right leg 4"),
    Zone.RIGHT_LEG_5: pgettext_lazy("hit in a body zone", "in the right leg 5"),
    Zone.LEFT_WING_1: pgettext_lazy("hit in a body zone", "in the left wing 1"),
    Zone.LEFT_WING_2: pgettext_lazy("hit in a body zone", "in the left wing 2"),
    Zone.LEFT_WING_3: pgettext_lazy("hit in a body zone", "in the left wing 3"),
    Zone.RIGHT_WING_1: pgettext_lazy("hit in a body zone", "in the right wing 1"),
    Zone.RIGHT_WING_2: pgettext_lazy("hit in a body zone", "in the right wing 2"),
    Zone.RIGHT_WING_3: pgettext_lazy("hit in a body zone", "in the right wing 3"),
}
_ZONES_HIT_BY_BODY: dict[tuple[BodyType, Zone], Promise] = {
    (BodyType.INSECTOID, Zone.ABDOMEN): pgettext_lazy(
        "hit in an insect's body zone", "in the abdomen"
    ),
}

# A part regardless of side and number, for sentences such as "the wing is lost". The unsided
# parts share their zone's message.
PARTS: dict[Part, Promise] = {
    Part.HEAD: ZONES[Zone.HEAD],
    Part.CHEST: ZONES[Zone.CHEST],
    Part.ABDOMEN: ZONES[Zone.ABDOMEN],
    Part.BODY: ZONES[Zone.BODY],
    Part.BELLY: ZONES[Zone.BELLY],
    Part.THORAX: ZONES[Zone.THORAX],
    Part.UPPER_BODY: ZONES[Zone.UPPER_BODY],
    Part.LOWER_BODY: ZONES[Zone.LOWER_BODY],
    Part.TAIL: ZONES[Zone.TAIL],
    Part.DORSAL_FIN: ZONES[Zone.DORSAL_FIN],
    Part.ARM: pgettext_lazy("body zone", "arm"),
    Part.LEG: pgettext_lazy("body zone", "leg"),
    Part.FORELEG: pgettext_lazy("body zone", "foreleg"),
    Part.HIND_LEG: pgettext_lazy("body zone", "hind leg"),
    Part.WING: pgettext_lazy("body zone", "wing"),
    Part.PECTORAL_FIN: pgettext_lazy("body zone", "pectoral fin"),
    Part.PELVIC_FIN: pgettext_lazy("body zone", "pelvic fin"),
}
_PARTS_BY_BODY: dict[tuple[BodyType, Part], Promise] = {
    (BodyType.INSECTOID, Part.ABDOMEN): _ZONES_BY_BODY[(BodyType.INSECTOID, Zone.ABDOMEN)],
}

SIDES: dict[Side, Promise] = {
    Side.LEFT: pgettext_lazy("side of the body", "left side"),
    Side.RIGHT: pgettext_lazy("side of the body", "right side"),
}

# Said as where the blow comes from, so one word fits a form's choice and a log line.
DIRECTIONS: dict[Direction, Promise] = {
    Direction.FRONT: pgettext_lazy("attack direction", "from the front"),
    Direction.LEFT: pgettext_lazy("attack direction", "from the left"),
    Direction.RIGHT: pgettext_lazy("attack direction", "from the right"),
    Direction.REAR: pgettext_lazy("attack direction", "from behind"),
    Direction.ABOVE: pgettext_lazy("attack direction", "from above"),
    Direction.BELOW: pgettext_lazy("attack direction", "from below"),
}

# The same messages as ``combat.models.BodyKind``'s choices.
BODY_TYPES: dict[BodyType, Promise] = {
    BodyType.HUMANOID: pgettext_lazy("body", "humanoid"),
    BodyType.BIRD: pgettext_lazy("body", "bird-like"),
    BodyType.REPTILE: pgettext_lazy("body", "reptile"),
    BodyType.INSECTOID: pgettext_lazy("body", "insectoid"),
    BodyType.FISH: pgettext_lazy("body", "fish"),
    BodyType.SNAKE: pgettext_lazy("body", "snake"),
}

# The variants ``body_plan`` knows, by its argument names.
VARIANTS: dict[str, Promise] = {
    "wings": pgettext_lazy("body variant", "with wings"),
    "no_wings": pgettext_lazy("body variant", "without wings"),
    "tail": pgettext_lazy("body variant", "with a tail"),
    "wings_spread": pgettext_lazy("body variant", "wings spread"),
    "wings_folded": pgettext_lazy("body variant", "wings folded"),
    "two_legs": pgettext_lazy("body variant", "two legs"),
    "four_legs": pgettext_lazy("body variant", "four legs"),
    "six_legs": pgettext_lazy("body variant", "six legs"),
    "eight_legs": pgettext_lazy("body variant", "eight legs"),
    "ten_legs": pgettext_lazy("body variant", "ten legs"),
    "four_wings": pgettext_lazy("body variant", "four wings"),
    "six_wings": pgettext_lazy("body variant", "six wings"),
    "upright": pgettext_lazy("body variant", "upright"),
    "coiled": pgettext_lazy("body variant", "coiled"),
}

# How much of a zone's hit points is gone (``combat.bodies.zone_state_key``): the keys are the
# diagram's CSS classes.
ZONE_STATES: dict[str, Promise] = {
    "unhurt": pgettext_lazy("zone state", "unhurt"),
    "wounded": pgettext_lazy("zone state", "wounded"),
    "badly": pgettext_lazy("zone state", "badly wounded"),
    "lost": pgettext_lazy("zone state", "lost"),
    "severed": pgettext_lazy("zone state", "severed"),
}


def _word(
    table: Mapping[Any, Promise],
    own_words: Mapping[tuple[BodyType, Any], Promise],
    key: Any,
    body: BodyType | str | None,
) -> str:
    """``table[key]``, or the body type's own word for it; an unknown key comes back as it is."""
    if body is not None and body in _BODY_VALUES and (BodyType(body), key) in own_words:
        return str(own_words[(BodyType(body), key)])
    return str(table.get(key, key))


_BODY_VALUES = frozenset(b.value for b in BodyType)
_ZONE_VALUES = frozenset(z.value for z in Zone)
_PART_VALUES = frozenset(p.value for p in Part)


def zone_label(zone: Zone | str, body: BodyType | str | None = None) -> str:
    """A zone's name, in the words of the body type it belongs to when given (``ZoneSpec.body``,
    which a combined body keeps per zone)."""
    key = Zone(zone) if zone in _ZONE_VALUES else zone
    return _word(ZONES, _ZONES_BY_BODY, key, body)


def zone_state_label(name: str, state: str) -> str:
    """A zone's name and its state (a ``ZONE_STATES`` key), "left leg: severed": the diagram's
    label and the log's clause alike, so the two never use different words for one state."""
    word = str(ZONE_STATES.get(state, state))
    return pgettext("zone and its state", "%(zone)s: %(state)s") % {"zone": name, "state": word}


def zone_hit_label(zone: Zone | str, body: BodyType | str | None = None) -> str:
    """Where a blow lands, "in the left arm", in the case each language needs there."""
    key = Zone(zone) if zone in _ZONE_VALUES else zone
    return _word(ZONES_HIT, _ZONES_HIT_BY_BODY, key, body)


def part_label(part: Part | str, body: BodyType | str | None = None) -> str:
    key = Part(part) if part in _PART_VALUES else part
    return _word(PARTS, _PARTS_BY_BODY, key, body)


def direction_label(direction: Direction | str) -> str:
    try:
        return str(DIRECTIONS[Direction(direction)])
    except ValueError:
        return str(direction)


def body_label(body: BodyType | str) -> str:
    """A body type's name; a combined body's own name (``BodyPlan.name``) is returned as it is."""
    try:
        return str(BODY_TYPES[BodyType(body)])
    except ValueError:
        return str(body)
