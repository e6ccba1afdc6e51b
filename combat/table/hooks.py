"""What the layers above plug into the toolkit: the live table's announcer, hit locations, undos.

The toolkit sits below the live table, the zones, the rounds and the systems, so it never
imports them: each gives it what it needs here instead, once per process, when Django's
apps are ready (``combat.apps.CombatConfig.ready``; a system's own undo comes through the
registry, ``System.undo``). Every process Django sets up therefore
has them: ``manage.py host`` and ``serve``, the bench's servers, the tests. Asking for one
that was never connected is an error, never a silent no-op: a change nobody announces
would leave every screen behind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ImproperlyConfigured

if TYPE_CHECKING:
    from combat.access import Viewer
    from combat.db.prepared import Named, Read
    from combat.models import Combatant, Encounter, LogEntry
    from combat.payloads.table import Attack


@dataclass(frozen=True)
class Announcer:
    """How a committed change reaches every browser (``combat.live.state``)."""

    committed: Callable[[int, int, str], None]
    """Called once the change's transaction has committed, with the encounter's id, the
    change's sequence number and the encounter's channel group."""
    ahead: Callable[[Encounter], tuple[int | None, list[Named]]]
    """What the live table would load after a change to the encounter: the number its state
    is at, and the queries (on PostgreSQL, read with the change in its last statement)."""
    keep: Callable[[Any, int, int | None, Read], None]
    """Keep that read, made with change ``seq``, for its announcement (connection, seq,
    since, read)."""


@dataclass(frozen=True)
class HitLocations:
    """What an attack and an undo ask of hit locations (``combat.zones``), on an encounter
    that plays them."""

    cannot_attack: Callable[[Combatant], bool]
    """Whether the combatant's wounds leave it unable to attack."""
    remember: Callable[[Combatant, Any, Any], None]
    """Keep the attacker's height and weapon length as the attack form gave them."""
    land: Callable[[dict[str, Any], Combatant, Combatant, Any, int, Attack], dict]
    """Land a hit: (where, attacker, target, damage dice, damage rolled, the entry's payload,
    whose ``location``, ``zone_damage``, ``zone_effects`` and ``killed`` it sets); returns the
    entry's effect, its zones before and after included."""
    put_back: Callable[[Combatant, dict[str, Any]], None]
    """An undo: the zones an effect changed, put back on the locked combatant."""


_ANNOUNCER: list[Announcer] = []
_HIT_LOCATIONS: list[HitLocations] = []
_UNDOERS: list[Callable[[Viewer, LogEntry], None]] = []


def connect(*, announcer: Announcer, hit_locations: HitLocations) -> None:
    """Plug the live table and hit locations in (again: the last one counts)."""
    _ANNOUNCER[:] = [announcer]
    _HIT_LOCATIONS[:] = [hit_locations]


def undoing(put_back: Callable[[Viewer, LogEntry], None]) -> None:
    """Have every undo call ``put_back(viewer, entry)`` inside its transaction, before it
    reverses the entry's hit points: it puts back what the entry changed besides them (the
    round's course, a condition, a hold), or does nothing for an entry not its own. Each
    function is registered once, however often this is called; they run in that order."""
    if put_back not in _UNDOERS:
        _UNDOERS.append(put_back)


def announcer() -> Announcer:
    if not _ANNOUNCER:
        raise ImproperlyConfigured(_MISSING.format("the live table's announcer"))
    return _ANNOUNCER[0]


def hit_locations() -> HitLocations:
    if not _HIT_LOCATIONS:
        raise ImproperlyConfigured(_MISSING.format("hit locations"))
    return _HIT_LOCATIONS[0]


def undoers() -> tuple[Callable[[Viewer, LogEntry], None], ...]:
    return tuple(_UNDOERS)


_MISSING = "combat.table: {} not connected (combat.apps.CombatConfig.ready connects it)"
