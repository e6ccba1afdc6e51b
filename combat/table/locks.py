"""The row locks every action takes: the combatants it changes, in id order, in its transaction."""

from __future__ import annotations

from django.db import router
from django.db.models import Q

from combat.access import Viewer
from combat.db.prepared import Prepared, lock_later, read_together
from combat.models import Combatant, Condition, Encounter

# The queries every action asks, their SQL written once (combat.db.prepared).
_LOCKED = Prepared(
    lambda first, second, encounter: (
        Combatant.objects.select_for_update()
        .filter(Q(pk=first) | Q(pk=second), encounter=encounter)
        .order_by("pk")
    )
)
_RUNNING_KINDS = Prepared(
    lambda combatant: Condition.objects.filter(combatant=combatant).running().values_list("kind")
)
_RUNNING_KINDS_OF_TWO = Prepared(
    lambda first, second: (
        Condition.objects.filter(Q(combatant=first) | Q(combatant=second))
        .running()
        .values_list("combatant", "kind")
    )
)


def locked(viewer: Viewer, combatant: Combatant) -> Combatant:
    """``combatant`` locked for the current transaction, as :func:`locked_pair` locks one."""
    return locked_pair(viewer, combatant, combatant)[0]


def locked_pair(viewer: Viewer, first: Combatant, second: Combatant) -> tuple[Combatant, Combatant]:
    """Lock two combatants in id order, so two attacks in opposite directions at once never
    deadlock on PostgreSQL. Must run inside the action's transaction, before it writes
    anything; both must be the viewer's encounter's (else ``Combatant.DoesNotExist``).

    On a copy of the table as this process last rendered it (``Encounter.moved_to``), the
    rows the request has are the stored ones, as the change's number will confirm: nothing
    is read, and the lock goes with the next statement (on PostgreSQL, one wait less)."""
    encounter = viewer.encounter
    if _taken_as_rendered(encounter, first, second):
        return first, second
    rows = {c.pk: c for c in _LOCKED(first.pk, second.pk, encounter.pk)}
    if first.pk not in rows or second.pk not in rows:
        raise Combatant.DoesNotExist
    for row in rows.values():
        Combatant.encounter.field.set_cached_value(row, encounter)
    return rows[first.pk], rows[second.pk]


def _taken_as_rendered(encounter: Encounter, first: Combatant, second: Combatant) -> bool:
    """Whether ``first`` and ``second`` are ``encounter``'s as this process last rendered
    it (its copy of the table, ``as_rendered``, until a bump confirms it): then what the
    request has is what is stored, and they are taken as they are, set up as ``_LOCKED``
    reads them. Their lock goes with the next statement: it is not needed to read them, but
    it keeps the order every change takes its locks in (combatants by id first, the
    encounter's number last), so that no two changes at once wait for each other."""
    if not encounter.as_rendered or any(
        row.encounter_id != encounter.pk or "_shown_conditions" not in row.__dict__
        for row in (first, second)
    ):
        return False
    for row in (first, second):
        Combatant.encounter.field.set_cached_value(row, encounter)
    lock_later(_LOCKED, first.pk, second.pk, encounter.pk, using=router.db_for_write(Combatant))
    return True


def attack_pair(
    viewer: Viewer, attacker: Combatant, target: Combatant
) -> tuple[Combatant, Combatant]:
    """The attacker and its target locked (:func:`locked_pair`), each with the conditions in
    force on it, read in one query for both: an attack asks whether the one can act and
    whether the other is helpless (``able``, ``helpless``)."""
    if _taken_as_rendered(viewer.encounter, attacker, target):  # with the conditions rendered
        attacker.running_kinds = [c.kind for c in attacker.shown_conditions]
        target.running_kinds = [c.kind for c in target.shown_conditions]
        return attacker, target
    first, second, encounter = attacker.pk, target.pk, viewer.encounter.pk
    # (on PostgreSQL the lock and the read in one round trip, in this order)
    with read_together(
        (_LOCKED, (first, second, encounter)), (_RUNNING_KINDS_OF_TWO, (first, second))
    ):
        attacker, target = locked_pair(viewer, attacker, target)
        running: dict[int, list[str]] = {attacker.pk: [], target.pk: []}
        for pk, kind in _RUNNING_KINDS_OF_TWO.rows(first, second):
            running[pk].append(kind)
    attacker.running_kinds, target.running_kinds = running[attacker.pk], running[target.pk]
    return attacker, target


def conditions_in_force(combatant: Combatant) -> list[str]:
    """The kinds of the conditions running on ``combatant``: read with it when it was locked
    as an attacker or a target (:func:`attack_pair`), else asked now."""
    known = getattr(combatant, "running_kinds", None)
    if known is not None:
        return known
    return [kind for (kind,) in _RUNNING_KINDS.rows(combatant.pk)]
