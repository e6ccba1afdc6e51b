"""Who is looking: the referee, a seated player, or nobody this encounter knows.

The referee link and the join link are exchanged for marks in the browser's (signed) session;
from then on every request and websocket is judged by those marks alone. A referee's mark
names the referee key it was granted under, so new links (see ``Encounter.new_links``) shut
out every other browser that opened the old referee link.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest

from combat.db.prepared import Prepared
from combat.models import Combatant, Encounter, Seat

_BY_SLUG = Prepared(lambda slug: Encounter.objects.filter(slug=slug))
_COMBATANTS = Prepared(lambda pk: Combatant.objects.filter(encounter=pk))
_SEAT = Prepared(lambda pk, encounter_id: Seat.objects.filter(pk=pk, encounter=encounter_id))


@dataclass
class Rendered:
    """What this process shows live, as its last render had it: the live hub lends its own
    readers here when it is loaded (``combat.live.hub``), this module being below it. Until
    then (no table is shown live in this process) every read goes to the database."""

    rows_at: Callable[[Encounter], list[Combatant] | None] = lambda encounter: None
    seat_at: Callable[[Encounter, int], tuple[Seat | None] | None] = lambda encounter, pk: None
    encounter_as_rendered: Callable[[str], Encounter | None] = lambda slug: None


RENDERED = Rendered()


def encounter_rows(encounter: Encounter) -> list[Combatant]:
    """``encounter.combatants.all()``, in their order, each knowing its encounter: on a table
    this process renders live, from its last render when that was at the number ``encounter``
    was read at (``combat.live.hub.rows_at``), else from the database."""
    rows = RENDERED.rows_at(encounter)
    if rows is None:
        rows = list(_COMBATANTS(encounter.pk))
    remember = Combatant.encounter.field.set_cached_value
    for row in rows:
        remember(row, encounter)
    return rows


REFEREE_KEY = "referee"
SEATS_KEY = "seats"
DISPLAYS_KEY = "displays"


@dataclass(frozen=True)
class Viewer:
    """Who is looking.

    The encounter's combatants are read once per Viewer and change (see ``combatants``): a
    request builds its forms from one reading. To see the database as it is after a change
    made elsewhere, ask a new Viewer (``dataclasses.replace(viewer)``).
    """

    encounter: Encounter
    is_referee: bool
    seat: Seat | None

    @property
    def role(self) -> str:
        return "referee" if self.is_referee else "player"

    @property
    def combatants(self) -> list[Combatant]:
        """All the encounter's combatants in their usual order, read once, and read again
        once a change made through this viewer's encounter moved its change number on (an
        action with this viewer, then a form with it, sees what the action did). On a table
        this process renders live, from its last render (``encounter_rows``)."""
        seq = self.encounter.seq
        read = self.__dict__.get("_combatants")
        if read is None or read[0] != seq:
            read = (seq, encounter_rows(self.encounter))
            object.__setattr__(self, "_combatants", read)  # a cache, not part of the value
        return read[1]

    def _own(self, combatant: Combatant) -> bool:
        # As ``Q(seat=self.seat)`` reads it.
        return combatant.seat_id == (self.seat.pk if self.seat is not None else None)

    def visible_list(self) -> list[Combatant]:
        """``visible_combatants`` from the combatants read once."""
        if self.is_referee:
            return list(self.combatants)
        return [c for c in self.combatants if not c.hidden or self._own(c)]

    def controlled_list(self) -> list[Combatant]:
        """``controlled_combatants`` from the combatants read once."""
        if self.is_referee:
            return list(self.combatants)
        return [c for c in self.combatants if self._own(c)]

    def visible_combatants(self) -> QuerySet[Combatant]:
        combatants = self.encounter.combatants.select_related("seat")
        if self.is_referee:
            return combatants
        return combatants.filter(Q(hidden=False) | Q(seat=self.seat))

    def controlled_combatants(self) -> QuerySet[Combatant]:
        combatants = self.encounter.combatants.select_related("seat")
        if self.is_referee:
            return combatants
        return combatants.filter(seat=self.seat)

    def can_control(self, combatant: Combatant) -> bool:
        return self.is_referee or (self.seat is not None and combatant.seat_id == self.seat.pk)

    @property
    def actor_name(self) -> str:
        return self.seat.name if self.seat else ""

    @property
    def may_enter_dice(self) -> bool:
        """Whether this viewer may type in dice rolled at the table instead of the server's."""
        return self.is_referee or self.encounter.players_enter_dice

    @property
    def may_adjust_hit_points(self) -> bool:
        """Whether this viewer may add or take hit points by hand (the referee always)."""
        return self.is_referee or self.encounter.players_adjust_hp


def referee_mark(encounter: Encounter) -> str:
    # A digest, not the key: the signed session cookie is readable by its browser.
    return hashlib.sha256(encounter.referee_key.encode()).hexdigest()[:32]


def grant_referee(session: MutableMapping[str, Any], encounter: Encounter) -> None:
    refereed = dict(session.get(REFEREE_KEY, {}))
    refereed[str(encounter.pk)] = referee_mark(encounter)
    session[REFEREE_KEY] = refereed


def refereed_ids(session: MutableMapping[str, Any]) -> set[int]:
    """The encounters this session holds a referee mark for (valid or not: for listing)."""
    return {int(pk) for pk in session.get(REFEREE_KEY, {})}


def display_mark(encounter: Encounter) -> str:
    """The table display's mark: a digest of its token, so new links shut out old displays."""
    return hashlib.sha256(f"display:{encounter.display_token}".encode()).hexdigest()[:32]


def grant_display(session: MutableMapping[str, Any], encounter: Encounter) -> None:
    displays = dict(session.get(DISPLAYS_KEY, {}))
    displays[str(encounter.pk)] = display_mark(encounter)
    session[DISPLAYS_KEY] = displays


def shows_display(session: MutableMapping[str, Any], encounter: Encounter) -> bool:
    """Whether this session opened ``encounter``'s table display link, still the current one."""
    return session.get(DISPLAYS_KEY, {}).get(str(encounter.pk)) == display_mark(encounter)


def grant_seat(session: MutableMapping[str, Any], seat: Seat) -> None:
    seats = dict(session.get(SEATS_KEY, {}))
    seats[str(seat.encounter_id)] = seat.pk
    session[SEATS_KEY] = seats


def seat_in(session: MutableMapping[str, Any], encounter: Encounter) -> Seat | None:
    """The seat this session took at ``encounter``, if it is still there: on a table this
    process renders live, as its last render had it at the number ``encounter`` was read at
    (``combat.live.hub.seat_at``), else from the database."""
    seat_id = session.get(SEATS_KEY, {}).get(str(encounter.pk))
    if not isinstance(seat_id, int):
        return None
    known = RENDERED.seat_at(encounter, seat_id)
    if known is not None:
        return known[0]
    return next(iter(_SEAT(seat_id, encounter.pk)), None)


def viewer_from_session(session: MutableMapping[str, Any], encounter: Encounter) -> Viewer | None:
    if session.get(REFEREE_KEY, {}).get(str(encounter.pk)) == referee_mark(encounter):
        return Viewer(encounter, is_referee=True, seat=None)
    seat = seat_in(session, encounter)
    if seat is not None:
        return Viewer(encounter, is_referee=False, seat=seat)
    return None


def viewer_of(session: MutableMapping[str, Any], slug: str) -> Viewer | None:
    """Who this session is at encounter ``slug``; None for a stranger or no such encounter."""
    encounter = next(iter(_BY_SLUG(slug)), None)
    return None if encounter is None else viewer_from_session(session, encounter)


def viewer_as_rendered(session: MutableMapping[str, Any], slug: str) -> Viewer | None:
    """Who this session is at encounter ``slug`` as this process last rendered it, on a
    table it shows live, reading nothing (``combat.live.hub.encounter_as_rendered``): for a change
    that confirms it as it is stored (``Encounter.moved_to``, which raises ``Stale``
    otherwise). None where that does not say: not known here, or a stranger to it (who may
    have joined since: ask ``viewer_of``)."""
    encounter = RENDERED.encounter_as_rendered(slug)
    return None if encounter is None else viewer_from_session(session, encounter)


def viewer_for(request: HttpRequest, slug: str) -> Viewer:
    """The viewer of encounter ``slug``, or 404 for anyone it does not know: an outsider
    learns nothing, not even that the encounter exists."""
    viewer = viewer_of(request.session, slug)
    if viewer is None:
        raise Http404
    return viewer


def referee_for(request: HttpRequest, slug: str) -> Viewer:
    """Like ``viewer_for``, but only the referee passes; a player gets 403."""
    viewer = viewer_for(request, slug)
    if not viewer.is_referee:
        raise PermissionDenied
    return viewer
