"""The party goes on: into the next encounter of its campaign, its players' seats following,
and as a ``fray-party`` file to take to the next session or another referee's table.

A party member goes on as an encounter file holds it (``combat.transfer`` walks the model's
fields, so a field added later goes too): hit points as they stand, class and level,
abilities, notes, body and zone damage, a ship's state, a monster's attacks. What ends with
the fight stays behind: the log, the round, initiative and morale, having fled, and the
conditions that run out with it (see :func:`lasting`). Hidden members go on hidden.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import DatabaseError, transaction
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from combat import table, transfer, zones
from combat.access import Viewer
from combat.models import Combatant, Condition, ConditionKind, Encounter, Seat, Side
from combat.systems import common as systems
from rules.rounds import ROUNDS_PER_TURN

FORMAT = "fray-party"
VERSION = 1

PARTY_FILE = transfer.FileKind(
    format=FORMAT,
    version=VERSION,
    parts=frozenset({"combatants"}),
    too_large=_("The file is too large: a party file is at most 1 MB."),
    not_json=_("The file is not a Fray party: it is not JSON."),
    not_this=_("The file is not a Fray party: its format is not “fray-party”."),
    too_deep=_("The file nests its data too deeply to be a Fray party."),
    missing=_("Choose a party file (.json) to import."),
)

# The next encounter plays as this one did: every setting an encounter file holds, but its
# name and the state of the fight.
FIGHT_STATE = frozenset({"name", "round", "turn", "morale"})


def lasting(condition: Condition) -> bool:
    """Whether a condition goes on after the fight: one until removed, or with a turn (ten
    minutes) or more still to run, as one set in turns has. One counted in rounds runs out
    before the next fight; one already over, and fleeing (a morale failure), end with it."""
    if condition.kind == ConditionKind.FLEEING or condition.rounds_left == 0:
        return False
    return condition.rounds_left is None or condition.rounds_left >= ROUNDS_PER_TURN


def party_of(encounter: Encounter) -> QuerySet[Combatant]:
    """The encounter's party side, in its usual order, with its conditions."""
    return encounter.combatants.filter(side=Side.PARTY).prefetch_related("conditions")


def member_record(combatant: Combatant) -> dict[str, Any]:
    """One party member as it goes on: as an encounter file holds it, minus the fight."""
    return transfer.combatant_record(combatant, keep=lasting) | {"fled": False}


def export_party(encounter: Encounter) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "combatants": [member_record(c) for c in party_of(encounter)],
    }


def export_json(encounter: Encounter) -> str:
    return transfer.dumps(export_party(encounter))


def _where(number: int) -> Any:
    return _("combatant %(number)s") % {"number": number}


def _built(records: Sequence[Any], encounter: Encounter) -> list[tuple[Combatant, list[Condition]]]:
    """Every record built and checked (``transfer.build_combatant``), or Refused."""
    built = []
    for number, item in enumerate(records, start=1):
        combatant, conditions = transfer.build_combatant(item, _where(number), encounter)
        if combatant.side != Side.PARTY:
            raise transfer.Refused(
                _("Combatant %(number)s is not on the party's side: a party file holds the party.")
                % {"number": number}
            )
        built.append((combatant, conditions))
    return built


def _stored(encounter: Encounter, built: list[tuple[Combatant, list[Condition]]]) -> None:
    for combatant, conditions in built:
        transfer.save_combatant(encounter, combatant, conditions)
        zones.sync(combatant, encounter)  # hit locations: a body the encounter can wound


def import_party(viewer: Viewer, raw: bytes, once: str = "") -> list[Combatant]:
    """The file's party added to the viewer's encounter, on its party side, in one
    transaction with the change's announcement; or Refused (or ``table.Repeated``, for a
    form sent twice) with nothing written."""
    records = transfer.combatant_list(transfer.parse(raw, PARTY_FILE))
    if not records:
        raise transfer.Refused(_("The party file holds no one."))
    built = _built(records, viewer.encounter)
    try:
        with transaction.atomic():
            _stored(viewer.encounter, built)
            table.touch(viewer, once)
    except DatabaseError:  # a bound the validators missed (the database's own checks)
        raise transfer.Refused(_("The file holds values the database does not accept.")) from None
    return [combatant for combatant, _conditions in built]


# --- the next encounter ------------------------------------------------------------------


@transaction.atomic
def move_on(
    viewer: Viewer,
    *,
    name: str,
    carried: Sequence[Combatant],
    once: str = "",
    system: str = "",
) -> Encounter:
    """A new encounter of the viewer's campaign, with its settings, and copies of the party
    members ``carried`` as they stand now; each seat that controls one of them gets a seat
    of the same name there, controlling its copies, and is told where it went
    (``Seat.moved_on_to``). The encounter left behind stays as it was, but for the pointer
    its players follow (``Encounter.moved_on_to``), announced to every screen on it.

    With another rules ``system`` the new encounter plays that one: the copies' monsters take
    its THAC0 and everyone's armour class and attack values are converted to its scale, said
    in the new encounter's log (``combat.systems.common``; what it wrote is the new
    encounter's ``converted``); a value the other scale cannot hold raises ``Refused``
    (``combat.errors``) with nothing written."""
    old = viewer.encounter
    settings = {
        field.name: field.value_from_object(old)
        for field in transfer.exported_fields(Encounter, transfer.ENCOUNTER_EXCLUDED | FIGHT_STATE)
    }
    if system:
        settings["system"] = system
    new = Encounter.objects.create(name=name, campaign=old.campaign_or_new(), **settings)
    members = party_of(old).filter(pk__in=[c.pk for c in carried]).select_related("seat")
    seats: dict[int, Seat] = {}
    for member in members:
        # Through the file's own checks: the party goes on exactly as a party file takes it.
        [(copy, conditions)] = _built([member_record(member)], new)
        if member.seat is not None:
            if member.seat_id not in seats:
                seats[member.seat_id] = Seat.objects.create(encounter=new, name=member.seat.name)
            copy.seat = seats[member.seat_id]
        _stored(new, [(copy, conditions)])
    new.converted = None
    if new.system != old.system:
        systems.system_changed(new)
        new.converted = systems.convert_scales(Viewer(new, is_referee=True, seat=None), old.system)
    # A second move from here sends the players on to the newest one only.
    Seat.objects.filter(encounter=old).update(moved_on_to=None)
    for seat_id, seat in seats.items():
        Seat.objects.filter(pk=seat_id).update(moved_on_to=seat)
    Encounter.objects.filter(pk=old.pk).update(moved_on_to=new)
    old.moved_on_to = new
    table.touch(viewer, once)
    return new


def new_links(viewer: Viewer) -> None:
    """New links for the viewer's encounter (``Encounter.new_links``), and no way left into it
    from the encounter the party came from: a browser that referees that one, or holds a seat
    there that went on, would otherwise walk in on what it held before the new links. Seats
    already taken here stay, as with any new links. In the caller's transaction; the screens
    of both encounters are told."""
    encounter = viewer.encounter
    encounter.new_links()
    Seat.objects.filter(moved_on_to__encounter=encounter).update(moved_on_to=None)
    for before in Encounter.objects.filter(moved_on_to=encounter).order_by("pk"):
        Encounter.objects.filter(pk=before.pk).update(moved_on_to=None)
        before.moved_on_to = None
        table.touch(Viewer(before, is_referee=True, seat=None))  # its notice goes
    table.touch(viewer)


def destination(viewer: Viewer) -> tuple[Encounter, Seat | None] | None:
    """Where this viewer of an encounter goes on to: the encounter the party moved on to,
    and the seat there (None for a referee, who referees it); None if nowhere (no move, or
    a player whose seat did not go on)."""
    if not follows(viewer):
        return None
    new_id = viewer.encounter.moved_on_to_id
    if viewer.is_referee:
        new = Encounter.objects.filter(pk=new_id).first()
        return (new, None) if new is not None else None
    seat = (
        Seat.objects.select_related("encounter")
        .filter(pk=viewer.seat.moved_on_to_id, encounter_id=new_id)
        .first()
    )
    return (seat.encounter, seat) if seat is not None else None


def follows(viewer: Viewer) -> bool:
    """Whether the viewer has somewhere to follow the party to (their seat went on)."""
    encounter = viewer.encounter
    if encounter.moved_on_to_id is None:
        return False
    return viewer.is_referee or (viewer.seat is not None and viewer.seat.moved_on_to_id is not None)


# --- who plays whom: the referee gives a character to a seat, a player claims one -----------


def claimable(encounter: Encounter, combatants: Sequence[Combatant]) -> list[Combatant]:
    """The party members a seated player may claim, in ``combatants``' order: none unless the
    encounter's settings allow it (``players_claim``); else those no one plays, in sight of
    players and alive (``combatants``: the encounter's, as read once)."""
    if not encounter.players_claim:
        return []
    return [
        c
        for c in combatants
        if c.side == Side.PARTY and c.seat_id is None and not c.hidden and not c.dead
    ]


class ClaimRefused(Exception):
    """A claim the table does not allow now, with what to tell the player."""

    def __init__(self, message: Any) -> None:
        super().__init__(str(message))
        self.message = message


def give(viewer: Viewer, combatant: Combatant, seat: Seat | None, once: str = "") -> bool:
    """The referee gives ``combatant`` to ``seat``'s player (None: back to the referee), in
    one step from the list of players; whether anything changed (a second tap changes
    nothing). In the caller's transaction, announced after commit."""
    changed = (
        Combatant.objects.filter(pk=combatant.pk, encounter=viewer.encounter)
        .exclude(seat=seat)
        .update(seat=seat)
    )
    if changed:
        table.touch(viewer, once)
    return bool(changed)


def claim(viewer: Viewer, pk: int, once: str = "") -> Combatant:
    """The seated viewer takes party member ``pk`` to play, when the settings allow it: one
    UPDATE that only a member no one plays passes, so of two players claiming at once one
    gets it and the other is told. ``ClaimRefused`` says why not; in the caller's
    transaction, announced after commit."""
    encounter, seat = viewer.encounter, viewer.seat
    if seat is None or viewer.is_referee:
        raise ClaimRefused(_("Only a seated player claims a character."))
    if not encounter.players_claim:
        raise ClaimRefused(_("The referee gives out the characters here: ask them."))
    mine = Combatant.objects.filter(encounter=encounter, seat=seat).first()
    if mine is not None and mine.pk == pk:  # claimed already (a retried tap): it stands
        return mine
    if mine is not None:
        raise ClaimRefused(
            _("You play %(name)s already: ask the referee for another.") % {"name": mine.name}
        )
    wanted = Combatant.objects.filter(
        pk=pk, encounter=encounter, side=Side.PARTY, hidden=False
    ).first()
    if wanted is None or wanted.dead:
        raise ClaimRefused(_("That is not a party member you can claim."))
    taken = Combatant.objects.filter(pk=pk, seat=None).update(seat=seat)
    if not taken:
        raise ClaimRefused(
            _("Someone else claimed %(name)s first: choose another.") % {"name": wanted.name}
        )
    table.touch(viewer, once)
    wanted.seat = seat
    return wanted


def seat_rows(seats: Sequence[Seat], combatants: Sequence[Combatant]) -> list[dict[str, Any]]:
    """The referee's list of players: each seat, the party members it plays, and those it
    may be given in one step (``offer``: id, name, and the seat's name that plays it now)."""
    party = [c for c in combatants if c.side == Side.PARTY]
    names = {seat.pk: seat.name for seat in seats}
    return [
        {
            "seat": seat,
            "plays": [c.name for c in party if c.seat_id == seat.pk],
            "offer": [(c.pk, c.name, names.get(c.seat_id)) for c in party if c.seat_id != seat.pk],
        }
        for seat in seats
    ]
