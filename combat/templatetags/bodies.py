"""``{% body_diagram plan state numbers=True odds=None tap_url=None row=False %}``: a body
plan's zones as an SVG diagram shaded by their state (``combat.bodies``), and the words
of hit locations."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from django import template
from django.utils.safestring import SafeString

from combat import zone_labels
from combat.bodies import render_diagram, state_mark
from rules.hit_location import BodyPlan, Zone, ZoneState

register = template.Library()


@register.simple_tag
def body_diagram(
    plan: BodyPlan,
    state: ZoneState | None = None,
    numbers: bool = True,
    odds: Mapping[Zone | str, Fraction] | None = None,
    tap_url: str | None = None,
    row: bool = False,
) -> SafeString:
    """The diagram of ``plan`` in ``state`` (None: unhurt). ``numbers``: hit-point figures are
    shown (never when False, not even to screen readers). ``odds``: each zone's chance of a
    hit, drawn on it. ``tap_url``: each zone opens ``tap_url?zone=<zone>`` in the action panel,
    with a list of the zones beneath as larger targets. ``row``: drawn in a combatant's row,
    smaller (its figures sized for that)."""
    return render_diagram(plan, state, numbers=numbers, odds=odds, tap_url=tap_url, row=row)


@register.simple_tag
def zone_state_samples() -> list[dict[str, str]]:
    """Each state a zone is drawn in, with its mark and word, for a legend."""
    return [
        {"state": key, "mark": state_mark(key, 8, 8), "word": str(word)}
        for key, word in zone_labels.ZONE_STATES.items()
    ]


@register.filter
def zone_label(zone: Zone | str, body: str | None = None) -> str:
    return zone_labels.zone_label(zone, body)


@register.filter
def direction_label(direction: str) -> str:
    return zone_labels.direction_label(direction)


@register.filter
def body_label(body: str) -> str:
    return zone_labels.body_label(body)
