"""What every rules system shares at the table: which a table may choose, that the choice is
fixed from the first roll, and what changing it does to the combatants already there (the
monsters' THAC0 by their Hit Dice; armour class and attack values between the descending and
the ascending scale, said in the log)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from combat import registry, table
from combat.access import Viewer
from combat.errors import Refused
from combat.labels import SYSTEM_REASONS
from combat.models import Combatant, Encounter, EntryKind, Kind
from combat.payloads.table import Converted, ScaleChange
from rules import scales
from rules.errors import RulesError
from rules.scales import Fighting, Scale


def reason_label(key: str) -> Any:
    """What a modifier's reason is called in a rules system's roll line: the shared ones, then
    the registered systems' own (range and cover)."""
    if key in SYSTEM_REASONS:
        return SYSTEM_REASONS[key]
    for system in registry.systems():
        if key in system.reasons:
            return system.reasons[key]
    return key


def system_choices() -> list[tuple[str, Any]]:
    """The registered systems an encounter can play (the model's choices are the registry's)."""
    return registry.choices()


def has_rolled(encounter: Encounter) -> bool:
    """Whether anything was rolled or logged yet: the rules system is fixed from then on.
    (The log's account of a change of system is no roll.)"""
    return encounter.pk is not None and encounter.log.exclude(kind=EntryKind.CONVERT).exists()


def monster_thac0(system: str, hit_dice: str) -> int:
    """A monster's THAC0 by its Hit Dice from its system's table (the registry's; some systems'
    differ from OSE's above 7 HD)."""
    found = registry.get(system).monster_thac0 or registry.default().monster_thac0
    assert found is not None, "the default system gives monsters their THAC0"
    return found(hit_dice)


def system_changed(encounter: Encounter) -> None:
    """The encounter now plays another system (before any roll, inside the settings' own
    transaction): its monsters take their THAC0 from that system's table by their Hit Dice."""
    for monster in encounter.combatants.filter(kind=Kind.MONSTER).exclude(hit_dice=""):
        try:
            thac0 = monster_thac0(encounter.system, monster.hit_dice)
        except RulesError:
            continue
        if thac0 != monster.thac0:
            monster.thac0 = thac0
            monster.save(update_fields=["thac0"])


# --- armour class and attack values between scales (rules.scales) ------------------------


def scale_of(system: str) -> Scale:
    """The scale a system's armour class and attack values are on: the registry says."""
    return Scale.ASCENDING if registry.get(system).ascending_ac else Scale.DESCENDING


def attack_value(combatant: Combatant, scale: Scale) -> int:
    """The combatant's attack value on ``scale``: its THAC0 on the descending one; on the
    ascending one its attack bonus, or 19 − THAC0 for a monster that takes it from its Hit Dice."""
    if scale is Scale.DESCENDING:
        return combatant.thac0
    if combatant.attack_bonus is not None:
        return combatant.attack_bonus
    return scales.twin(combatant.thac0)


def _converted(combatant: Combatant, source: Scale, target: Scale) -> ScaleChange:
    before = Fighting(ac=combatant.ac, attack=attack_value(combatant, source))
    try:
        after = scales.convert(before, source, target)
    except RulesError as error:
        code = "cannot_convert_attack" if "attack" in error.code else "cannot_convert_ac"
        raise Refused(code, name=combatant.name, **error.params) from error
    return ScaleChange(
        name=combatant.name,
        side=combatant.side,
        ac_before=before.ac,
        ac_after=after.ac,
        attack_before=before.attack,
        attack_after=after.attack,
    )


def convert_scales(viewer: Viewer, before: str) -> Converted | None:
    """The viewer's encounter now plays its ``system``, and played ``before`` until now (inside
    the change's transaction): when the two count armour class on different scales, every
    combatant's armour class and attack value is converted (``rules.scales``), and the log
    says what changed, in every viewer's language. On the ascending scale a character keeps
    its attack bonus (THAC0 stays its twin) and a monster takes it from its Hit Dice; on the
    descending one THAC0 is the value. Returns what it wrote, None if there was nothing to
    convert; ``Refused`` (nothing written) for a value the other scale cannot hold."""
    encounter = viewer.encounter
    source, target = scale_of(before), scale_of(encounter.system)
    if source is target:
        return None
    combatants = list(Combatant.objects.filter(encounter=encounter).order_by("created", "pk"))
    if not combatants:
        return None
    changes = [_converted(c, source, target) for c in combatants]
    for combatant, change in zip(combatants, changes, strict=True):
        combatant.ac = change.ac_after
        if target is Scale.ASCENDING:
            keeps_bonus = combatant.kind != Kind.MONSTER
            combatant.attack_bonus = change.attack_after if keeps_bonus else None
        else:
            combatant.thac0 = change.attack_after
            combatant.attack_bonus = None  # read on the ascending scale only
        combatant.save(update_fields=["ac", "thac0", "attack_bonus"])
    payload = Converted(
        from_system=before,
        to_system=encounter.system,
        scale=str(target),
        combatants=changes,
    )
    table.record(viewer, EntryKind.CONVERT, payload, names=combatants)
    return payload


def attack_said(value: int, scale: str) -> str:
    """An attack value as its scale writes it: ``THAC0 17``, ``attack bonus +2``."""
    if scale == Scale.DESCENDING:
        return gettext("THAC0 %(value)s") % {"value": value}
    return gettext("attack bonus %(value)s") % {"value": f"{value:+d}"}


def converted_message(payload: Converted) -> str:
    """What the referee is told on screen of a conversion: to which system, and each
    combatant's values before and after."""
    source = Scale.ASCENDING if payload.scale == Scale.DESCENDING else Scale.DESCENDING
    lines = [
        gettext("%(name)s: AC %(before)s → %(after)s, %(attack_before)s → %(attack_after)s")
        % {
            "name": change.name,
            "before": change.ac_before,
            "after": change.ac_after,
            "attack_before": attack_said(change.attack_before, source),
            "attack_after": attack_said(change.attack_after, payload.scale),
        }
        for change in payload.combatants
    ]
    if payload.scale == Scale.ASCENDING:
        said = gettext("%(system)s counts armour class upwards: converted as 19 − AC.")
    else:
        said = gettext("%(system)s counts armour class downwards: converted as 19 − AC.")
    return " ".join(
        [said % {"system": registry.get(payload.to_system).label}, "; ".join(lines) + "."]
    )
