"""Live updates: announce a change after commit, and render what each audience sees.

A change is announced on the encounter's channel group with its sequence number only. Each
process then loads the encounter's state once and renders it once per *audience* that sees it
differently (the referee; players, per language; a seat's own rows), never once per socket
(see ``combat.live.hub``). What one audience sees at one sequence number is a :class:`View`: its
rows, log entries and sections, each kept as HTML. Two views of the same audience give the
*delta* a socket needs to go from one to the other: the rows and entries that changed, a
section only when its shape changed, and the new sequence number with the one the delta
applies to. A browser that is not at that number asks for a full snapshot instead.

Rendered rows and entries are cached by everything they show, so a change renders only what
it changed. Nothing here puts a CSRF token in a fragment: these are sent to many browsers.
"""

from __future__ import annotations

import contextlib
import copy
import datetime
import decimal
import functools
import itertools
import json
import operator
import re
import threading
from collections.abc import Callable, Collection, Iterable
from dataclasses import InitVar, dataclass, field
from typing import Any, TypeVar

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db.models import F, Model, QuerySet
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from combat import registry
from combat.access import Viewer, referee_mark
from combat.db.prepared import Named, Prepared, Read, read_together
from combat.fragments import drawn, logged_once, part_notice, row_notice, tidy
from combat.live import feed
from combat.lru import Lru
from combat.models import Combatant, Condition, Encounter, Kind, LogEntry, PendingSave, Seat, Side
from combat.party import claimable, follows, seat_rows
from combat.rounds import RUNNING, Standing, conditions_by_combatant, round_context, standing
from combat.table.hooks import Announcer

# The page's own fragments, drawn with no CSRF token: these are sent to many browsers.
from combat.templatetags import fray_live

Row = TypeVar("Row", Combatant, int)
Fixed = tuple[Any, ...]
EntryKey = tuple[tuple[Any, ...], str, LogEntry]


def announce_committed(encounter_id: int, seq: int, group: str) -> None:
    """Tell every browser on the encounter that change ``seq`` has committed (the toolkit
    calls this after commit: ``combat.table.announce``), and render it here."""
    from combat.live.hub import claim_render, render_here  # the hub builds on this module

    # Claimed before the announcement, rendered after it: other processes start on the
    # change while this one renders it, and this one's hub leaves it to this thread.
    claimed = claim_render(encounter_id, seq)
    read = _taken(seq)
    layer = get_channel_layer()
    if layer is not None and not (claimed is not None and claimed.heard_alone(layer, group)):
        message: dict[str, Any] = {
            "type": "encounter.changed",
            "seq": seq,
            "encounter": encounter_id,
        }
        rows = encoded(*read) if read is not None else None
        if rows is not None:
            message["rows"] = rows
        # Sent from the hub's event loop, which this thread lets do it before rendering
        # (``TableHub.announce``), so that other workers start on the change at once.
        if claimed is None or not claimed.announce(layer, group, message):
            async_to_sync(layer.group_send)(group, message)
    if claimed is not None:
        render_here(claimed, seq, read)


# --- The table as a change leaves it, read with the change -------------------------------
#
# On PostgreSQL every statement is a wait, and after a change every worker with a socket on
# the table loaded it again: one more wait where the change was made, one on every other
# worker. Instead, the change's last statement (``combat.table.record``) reads the
# table with it, in its transaction: the number's UPDATE holds the encounter's row, so no
# other change can commit in between, and what it reads is the table as it is once this
# one commits. The worker renders from that read, and sends it with the announcement
# (``encoded``), so a worker whose last state is the one the read follows renders from it
# too. A statement after it in the same transaction spoils the read (``keep_read``); a
# state that is not the one it follows does not use it (``read_follows``).

_KEPT = threading.local()  # per thread: (the change's number, the read's ``since``, the read)


def table_ahead(encounter: Encounter) -> tuple[int | None, list[Named]]:
    """What a load after a change to ``encounter`` asks (``State.ahead``), for a worker whose
    last state is at ``encounter``'s number before the change (or this worker's, when it
    shows the table live): that number, and the queries."""
    from combat.live.hub import HUBS  # the hub builds on this module

    hub = HUBS.get(encounter.pk)
    state = hub.state if hub is not None else None
    since = state.seq if state is not None else encounter.seq
    return since, State.ahead(encounter.pk, since)


def keep_read(connection: Any, seq: int, since: int | None, read: Read) -> None:
    """Keep ``read``, the table as change ``seq`` leaves it, for the change's announcement;
    any statement after it in this transaction drops it (it may change the table again)."""

    def spoil(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any):
        _KEPT.value = None
        with contextlib.suppress(ValueError):
            connection.execute_wrappers.remove(spoil)
        return execute(sql, params, many, context)

    _KEPT.value = (seq, since, read)
    _KEPT.spoil = (connection, spoil)
    # At the bottom of the stack: Django's ``execute_wrapper`` blocks pop the top one.
    connection.execute_wrappers.insert(0, spoil)


def _taken(seq: int) -> tuple[int | None, Read] | None:
    """The read kept for change ``seq`` (None: none, or spoiled), no longer kept."""
    kept, _KEPT.value = getattr(_KEPT, "value", None), None
    spoiled, _KEPT.spoil = getattr(_KEPT, "spoil", None), None
    if spoiled is not None:
        connection, spoil = spoiled
        with contextlib.suppress(ValueError):
            connection.execute_wrappers.remove(spoil)
    if kept is None or kept[0] != seq:
        return None
    return kept[1], kept[2]


# What the toolkit calls to announce a change (``combat.table.hooks``; ``combat.apps`` plugs
# it in): this module is above the toolkit, which therefore never imports it.
ANNOUNCER = Announcer(committed=announce_committed, ahead=table_ahead, keep=keep_read)


def read_follows(read: tuple[int | None, Read], state: State | None, encounter_id: int) -> bool:
    """Whether a load after ``state`` asks exactly what ``read`` holds."""
    since = State.since(state, encounter_id)
    return read[0] == since and set(read[1]) == set(State.ahead(encounter_id, since))


def encoded(since: int | None, read: Read) -> str | None:
    """``read`` as text for the announcement: its rows in ``State.ahead``'s order, dates and
    decimals marked (the channel layer's messages carry plain values). None if a value is
    of another kind."""

    def marked(value: Any) -> dict[str, str]:
        if isinstance(value, datetime.datetime):
            return {"t": value.isoformat()}
        if isinstance(value, decimal.Decimal):
            return {"d": str(value)}
        raise TypeError(type(value).__name__)

    try:
        return json.dumps([since, list(read.values())], default=marked, separators=(",", ":"))
    except (TypeError, ValueError):
        return None


def decoded(encounter_id: int, text: str) -> tuple[int | None, Read] | None:
    """What ``encoded`` wrote, as the read it was (None: not such a read)."""

    def unmarked(value: dict[str, Any]) -> Any:
        if value.keys() == {"t"}:
            return datetime.datetime.fromisoformat(value["t"])
        if value.keys() == {"d"}:
            return decimal.Decimal(value["d"])
        return value

    try:
        since, answers = json.loads(text, object_hook=unmarked)
        if since is not None and not isinstance(since, int):
            return None
        ahead = State.ahead(encounter_id, since)
        if not isinstance(answers, list) or len(answers) != len(ahead):
            return None
        return since, {
            key: [tuple(row) for row in rows] for key, rows in zip(ahead, answers, strict=True)
        }
    except (TypeError, ValueError):
        return None


_PENDING = Prepared(
    lambda encounter_id: PendingSave.objects.filter(encounter=encounter_id, resolved=False)
)


def pending_by_combatant(encounter: Encounter) -> dict[int, list[PendingSave]]:
    """The saves area effects left to players, by combatant: one query for all rows."""
    found: dict[int, list[PendingSave]] = {}
    for pending in _PENDING(encounter.pk):
        found.setdefault(pending.combatant_id, []).append(pending)
    return found


def _holds(encounter: Encounter) -> dict[int, list[Any]]:
    """What the rules system's rows show held (wrestling), by combatant: one query on
    a table whose system has holds, none elsewhere."""
    holds = registry.of(encounter).holds
    return holds(encounter) if holds is not None else {}


def visible_log(viewer: Viewer) -> QuerySet[LogEntry]:
    """The log entries ``viewer`` may see: players only those with a number of theirs."""
    return log_for(viewer.encounter, referee=viewer.is_referee)


def log_for(encounter: Encounter, *, referee: bool) -> QuerySet[LogEntry]:
    # The undo's number comes with the entry (one join), so rendering asks no more queries.
    log = encounter.log.annotate(undo_seq=F("undone_by__seq"))
    if not referee:
        log = log.filter(public_seq__isnull=False)
    return log


def action_urls(encounter: Encounter) -> dict[str, str]:
    return {
        name: reverse(name, args=[encounter.slug])
        for name in ("attack", "save", "check", "hit_points", "rest")
    }


def own_first(rows: Iterable[Row], own: Collection[int]) -> list[Row]:
    """A side's rows (combatants or their ids) with a player's own first, the others in the
    table's order: a phone shows its player's character at the top. For the referee, who
    controls every row, the order stays the table's."""
    rows = list(rows)
    if not own:
        return rows
    if len(own) == 1 and rows and isinstance(rows[0], int):  # a seat's one character
        (pk,) = own
        at = rows.index(pk) if pk in rows else 0
        return [*rows[at : at + 1], *rows[:at], *rows[at + 1 :]]
    ids = rows if not rows or isinstance(rows[0], int) else [row.id for row in rows]
    first = [row for row, pk in zip(rows, ids, strict=True) if pk in own]
    if not first:
        return rows
    return first + [row for row, pk in zip(rows, ids, strict=True) if pk not in own]


def in_turn_order(rows: Iterable[Combatant], turn: dict[str, Any]) -> list[Combatant]:
    """``rows`` in the order they act this round when each rolled their own initiative, those
    not in it (added since, or down) after them; with a die per side, the table's order."""
    try:
        ranks = {
            pk: rank
            for rank, step in enumerate(turn.get("order") or ())
            for pk in step.get("ids", ())
        }
    except (AttributeError, TypeError):  # a stored order that is not one: the table's
        logged_once(("turn order", repr(turn)[:200]))
        return list(rows)
    if not ranks:
        return list(rows)
    return sorted(rows, key=lambda row: ranks.get(row.id, len(ranks)))


def live_context(viewer: Viewer) -> dict[str, Any]:
    """Everything the live fragments need, filtered to what ``viewer`` may see (the page)."""
    encounter = viewer.encounter
    combatants = in_turn_order(viewer.visible_combatants(), encounter.turn)
    conditions = conditions_by_combatant(encounter)
    pending = pending_by_combatant(encounter)
    holds = _holds(encounter)
    for combatant in combatants:
        combatant.shown_conditions = conditions.get(combatant.pk, [])
        combatant.saves_to_roll = pending.get(combatant.pk, [])
        combatant.holds = holds.get(combatant.pk, [])
    own = frozenset(c.pk for c in combatants if viewer.seat and c.seat_id == viewer.seat.pk)
    controlled = {c.pk for c in combatants if viewer.can_control(c)}
    # A round that cannot be worked out: its section shows a notice (``part``); the page goes on.
    fight = drawn(
        ("round", encounter.pk),
        lambda: round_context(
            encounter, combatants, conditions, referee=viewer.is_referee, own=own
        ),
        lambda: {"round_broken": True},
    )
    log_entries = list(visible_log(viewer)[: settings.FRAY_LOG_PAGE])
    # A seat's personal feed (combat.live.feed), with the round's section.
    fight |= _page_feed(viewer, [c for c in combatants if c.pk in own], log_entries, pending, fight)
    return fight | {
        "viewer": viewer,
        "encounter": encounter,
        "party": own_first([c for c in combatants if c.side == Side.PARTY], controlled),
        "foes": own_first([c for c in combatants if c.side == Side.FOES], controlled),
        "controlled_ids": controlled,
        "show_numbers": viewer.is_referee or encounter.show_foe_hp,
        "log_entries": log_entries,
        "seats": (seats := list(encounter.seats.all()) if viewer.is_referee else []),
        "seat_rows": seat_rows(seats, combatants),  # the referee's: who plays whom
        "claimable": [] if viewer.is_referee else claimable(encounter, combatants),
        "action_urls": action_urls(encounter),
        # Where the party went on to, and whether this viewer can follow (combat.party).
        "moved_on_to": encounter.moved_on_to if encounter.moved_on_to_id else None,
        "follows": follows(viewer),
    }


def _page_feed(
    viewer: Viewer,
    own: list[Combatant],
    log_entries: list[LogEntry],
    pending: dict[int, list[PendingSave]],
    fight: dict[str, Any],
) -> dict[str, Any]:
    """A seat's personal feed as the page draws it (``combat.live.feed``); the referee has none."""
    if viewer.seat is None or viewer.is_referee:
        return {}
    # What it dismissed, as stored now: "Seen" changes no number, so the seat as the live
    # table last rendered it (``combat.access.seat_in``) may not know it yet.
    seat = copy.copy(viewer.seat)
    seen = Seat.objects.filter(pk=seat.pk).values_list("feed_seen", "feed_turn_seen").first()
    if seen is not None:
        seat.feed_seen, seat.feed_turn_seen = seen
    log = feed.marked(log_entries)
    standing = fight.get("standing")
    found = feed.items(seat, own, log, pending, standing, viewer.encounter.turn)
    return feed.context(
        found,
        seat=seat,
        encounter=viewer.encounter,
        may_enter_dice=viewer.may_enter_dice,
        show_numbers=viewer.encounter.show_foe_hp,
    )


# --- audiences, state and views ------------------------------------------------------------


@dataclass(frozen=True)
class Audience:
    """Who sees the same thing: the referee, or the players in one language; a player's own
    rows (with their buttons) are theirs alone, so a player's audience names the seat."""

    referee: bool
    seat: int | None
    language: str


@dataclass
class State:
    """An encounter as loaded once for one change: everything every audience's view needs."""

    encounter: Encounter
    combatants: list[Combatant]
    seats: dict[int, Seat]
    referee_log: list[LogEntry] | None
    public_log: list[LogEntry] | None
    urls: dict[str, str]
    conditions: dict[int, list[Condition]] = field(default_factory=dict)
    pending: dict[int, list[PendingSave]] = field(default_factory=dict)
    holds: dict[int, list[Any]] = field(default_factory=dict)  # the system's (wrestling)
    # Worked out once per change, not once per audience: what each row shows, whose it is.
    shown: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    shown_to_players: dict[int, tuple[Any, ...]] = field(default_factory=dict)  # no seat name
    # A foe as players who see no foe's numbers see it: its health in words, not its hit
    # points (a blow that leaves it as wounded as it was changes nothing they see).
    shown_vaguely: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    _listed: dict[bool, tuple[list[Combatant], dict[str, tuple[int, ...]]]] = field(
        default_factory=dict
    )
    by_seat: dict[int, list[Combatant]] = field(default_factory=dict)
    by_pk: dict[int, Combatant] = field(default_factory=dict)
    # The rows as stored, for the next load to tell which changed (see ``_reread``).
    stored: dict[type[Model], dict[int, tuple[Any, ...]]] = field(default_factory=dict)
    # What each row shows besides its combatant's stored columns (see ``__post_init__``).
    around: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    # The state loaded before this one: a row that shows what it showed then keeps the very
    # tuple it had, so the views tell an unchanged row by identity (``_row``).
    previous: InitVar[State | None] = None
    round_broken: bool = False  # its round's stored state cannot be worked out (``standing``)

    def __post_init__(self, previous: State | None) -> None:
        remember = Combatant.encounter.field.set_cached_value
        before = previous.shown if previous is not None else {}
        before_to_players = previous.shown_to_players if previous is not None else {}
        before_vaguely = previous.shown_vaguely if previous is not None else {}
        instances = previous.by_pk if previous is not None else {}
        kept_around = previous.around if previous is not None else {}
        hit_locations = self.encounter.hit_locations
        for c in self.combatants:
            pk = c.id  # (``pk`` is a property: this loop and the views' run per change)
            self.by_pk[pk] = c
            remember(c, self.encounter)  # a row kept from an earlier load points here now
            seat = self.seats.get(c.seat_id) if c.seat_id else None
            if seat is not None and c._state.fields_cache.get("seat") is not seat:
                c.seat = seat  # loaded with the seats: a row asks no query for its name
            c.shown_conditions = running = self.conditions.get(pk, [])
            c.saves_to_roll = waiting = self.pending.get(pk, [])
            c.holds = held = self.holds.get(pk, [])
            for pending in waiting:
                pending.combatant = c
            self.around[pk] = around = (
                tuple((k.pk, k.kind, k.note, k.rounds_left) for k in running),
                tuple((p.pk, p.category, p.amount, p.modifier, p.needed_if_known) for p in waiting),
                tuple(h.key for h in held),
                seat.name if seat else None,
                hit_locations,
            )
            if instances.get(pk) is c and kept_around.get(pk) == around:
                # The very instance of the last load (``_reread`` keeps a row whose stored
                # columns are as they were), with the same around it: it shows what it showed.
                self.shown[pk], self.shown_to_players[pk] = before[pk], before_to_players[pk]
                if pk in before_vaguely:
                    self.shown_vaguely[pk] = before_vaguely[pk]
            else:
                self._work_out(c, around, before, before_to_players, before_vaguely)
            if c.seat_id:
                self.by_seat.setdefault(c.seat_id, []).append(c)

    def _work_out(
        self,
        c: Combatant,
        around: tuple[Any, ...],
        before: dict[int, tuple[Any, ...]],
        before_to_players: dict[int, tuple[Any, ...]],
        before_vaguely: dict[int, tuple[Any, ...]],
    ) -> None:
        """What ``c``'s row shows, to the referee, to players and to players who see no foe's
        numbers; the last load's very tuples where they are equal."""
        pk = c.id
        conditions, pending_saves, holds, seat_name, hit_locations = around
        shown = (
            pk, c.name, c.hp, c.hp_max, c.ac, c.hidden, c.side, c.fled,
            conditions, pending_saves, c.seat_id,
            # Hit locations (combat.zones): the body as the row draws it.
            repr(c.zones) if hit_locations else None,
            # Characters (combat.classes): class, abilities and notes, on the referee's
            # and the combatant's own player's rows only (the template checks control).
            c.kind, c.char_class, c.level, c.str_score, c.int_score, c.wis_score,
            c.dex_score, c.con_score, c.cha_score, c.notes,
            # A rules system's special actions: holds, and a ship's speed, crew and repairs.
            holds, c.speed, c.crew, c.rowers, c.rowers_lost, c.hull_repaired,
            # Monster entries (combat.monsters): attack buttons, movement, XP, specials.
            repr(c.attacks), c.movement, c.xp, c.special_notes, c.saves_as,
            c.hit_dice,  # a monster with Hit Dice can be kept in the bestiary
            seat_name,
        )  # fmt: skip
        if before.get(pk) == shown:
            self.shown[pk], self.shown_to_players[pk] = before[pk], before_to_players[pk]
        else:
            self.shown[pk], self.shown_to_players[pk] = shown, shown[:-1]  # name is last
        if c.side != Side.PARTY and c.kind != Kind.SHIP:  # (a ship shows its hull)
            vaguely = (pk, c.name, c.health, *self.shown_to_players[pk][3:])
            kept = before_vaguely.get(pk)
            self.shown_vaguely[pk] = kept if kept == vaguely else vaguely

    @classmethod
    def load(
        cls,
        encounter_id: int,
        *,
        referee: bool = True,
        players: bool = True,
        previous: State | None = None,
    ) -> State | None:
        """The encounter as it is now; with ``previous`` (an earlier state of it), the log
        is read as what changed since then only."""
        # Where the database is across the network, the queries every load asks go together.
        with read_together(*cls.ahead(encounter_id, cls.since(previous, encounter_id))):
            return cls._load(encounter_id, referee, players, previous)

    @staticmethod
    def since(previous: State | None, encounter_id: int) -> int | None:
        """The number a load of encounter ``encounter_id`` after ``previous`` reads what
        changed in the log since (None: it reads the log's windows whole)."""
        if previous is None or previous.encounter.pk != encounter_id:
            return None
        return previous.seq

    @staticmethod
    def ahead(encounter_id: int, since: int | None) -> list[Named]:
        """The queries every load of the encounter asks, the log's since number ``since``
        when the load follows a state at that number."""
        ahead = [(_ENCOUNTER, (encounter_id,)), (RUNNING, (encounter_id,))]
        ahead += [(_PENDING, (encounter_id,)), *((_STORED[m], (encounter_id,)) for m in _STORED)]
        if since is not None:
            ahead.append((_LOG_SINCE, (encounter_id, since)))
        return ahead

    @classmethod
    def _load(
        cls, encounter_id: int, referee: bool, players: bool, previous: State | None
    ) -> State | None:
        encounter = next(iter(_ENCOUNTER(encounter_id)), None)
        if encounter is None:
            return None
        referee_log, public_log = _logs(
            encounter, referee=referee, players=players, previous=previous
        )
        kept = previous if previous is not None and previous.encounter.pk == encounter.pk else None
        stored: dict[type[Model], dict[int, tuple[Any, ...]]] = {}
        combatants = _reread(Combatant, encounter, kept, stored)
        seats = _reread(Seat, encounter, kept, stored)
        return cls(
            encounter=encounter,
            combatants=combatants,
            seats={seat.pk: seat for seat in seats},
            stored=stored,
            referee_log=referee_log,
            public_log=public_log,
            urls=kept.urls
            if kept is not None and kept.encounter.slug == encounter.slug
            else action_urls(encounter),
            conditions=conditions_by_combatant(encounter),
            pending=pending_by_combatant(encounter),
            holds=_holds(encounter),
            previous=kept,
        )

    @property
    def seq(self) -> int:
        return self.encounter.seq

    def listed(self, referee: bool) -> tuple[list[Combatant], dict[str, tuple[int, ...]]]:
        """The rows the referee, or every player, sees, and their ids by side: worked out
        once per change, not once per audience."""
        listed = self._listed.get(referee)
        if listed is None:
            visible = in_turn_order(
                (c for c in self.combatants if referee or not c.hidden), self.encounter.turn
            )
            sides = {
                str(side): tuple(c.id for c in visible if c.side == side)
                for side in (Side.PARTY, Side.FOES)
            }
            listed = self._listed[referee] = (visible, sides)
        return listed

    @functools.cached_property
    def claimable(self) -> tuple[tuple[int, str], ...]:
        """The party members a player with no character may claim (``combat.party``)."""
        return tuple((c.pk, c.name) for c in claimable(self.encounter, self.combatants))

    @functools.cached_property
    def standing(self) -> Standing:
        """The round as it stands, worked out once for every audience. A round whose stored
        state cannot be worked out stands still (no one acts): ``round_broken`` says so, and
        the round's section shows a notice instead (``_banner``)."""

        def still() -> Standing:
            self.round_broken = True
            none: frozenset[Any] = frozenset()
            return Standing(0, "", False, none, none, 0, False, False, ())

        return drawn(
            ("round", self.encounter.pk),
            lambda: standing(self.encounter, self.combatants, self.conditions),
            still,
        )

    @functools.cached_property
    def feed_log(self) -> feed.Marked:
        """The players' window of the log as the seats' feeds read it, worked out once for
        every seat (``combat.live.feed``)."""
        return feed.marked(self.public_log or ())

    def shows_numbers(self, audience: Audience) -> bool:
        """Whether ``audience`` sees foes' hit points."""
        return audience.referee or self.encounter.show_foe_hp

    def allows(self, audience: Audience, mark: str | None) -> bool:
        """Whether a socket of ``audience`` still may look: its seat is still there, or its
        referee mark still matches the referee key (new links shut out old referees)."""
        if audience.referee:
            return mark == referee_mark(self.encounter)
        return audience.seat in self.seats


def _logs(
    encounter: Encounter, *, referee: bool, players: bool, previous: State | None = None
) -> tuple[list[LogEntry] | None, list[LogEntry] | None]:
    """The referee's and the players' windows of the log.

    With ``previous`` holding the windows wanted, only what changed since is read: the log
    is append-only, and an entry written once changes only by being undone (its undo is a
    newer entry). Otherwise from one query when both are wanted: the players' entries are
    the referee's with a public number, in the same order, so twice the window read for the
    referee holds the players' window too, unless secret entries crowd it (then it is read
    on its own)."""
    window = settings.FRAY_LOG_PAGE
    if (
        previous is not None
        and previous.encounter.pk == encounter.pk
        and (previous.referee_log is not None or not referee)
        and (previous.public_log is not None or not players)
    ):
        changed = list(_LOG_SINCE(encounter.pk, previous.seq))
        undos = {entry.undoes_id: entry.seq for entry in changed if entry.undoes_id is not None}
        for entry in changed:
            entry.undo_seq = undos.get(entry.id)  # an undo is newer than what it undoes
        return (
            _merged(_undone(previous.referee_log, undos), changed, window) if referee else None,
            _merged(
                _undone(previous.public_log, undos),
                [entry for entry in changed if entry.public_seq is not None],
                window,
            )
            if players
            else None,
        )
    if not players:
        return (list(log_for(encounter, referee=True)[:window]) if referee else None), None
    if not referee:
        return None, list(log_for(encounter, referee=False)[:window])
    read = list(log_for(encounter, referee=True)[: 2 * window])
    public = [entry for entry in read if entry.public_seq is not None][:window]
    if len(public) < window and len(read) == 2 * window:
        public = list(log_for(encounter, referee=False)[:window])
    return read[:window], public


def _reread(
    model: type[Model],
    encounter: Encounter,
    previous: State | None,
    stored: dict[type[Model], dict[int, tuple[Any, ...]]],
) -> list[Any]:
    """``encounter``'s rows of ``model`` as they are now, in their usual order, reusing
    ``previous``'s instance of each row whose stored values have not changed since.

    The rows are read as the database stores them, by a prepared query (``combat.db.prepared``),
    and only the rows that differ from the previous load become instances again (a combatant
    has some fifty columns: making instances of them was most of a load). A changed row
    the previous load had becomes one from what was just read, with the columns left out of
    that read (set once, when the row was made) from its previous instance: no second
    query, which on PostgreSQL is a second wait. Only a new row is read again, whole; one
    gone meanwhile is left out."""
    read = _STORED[model]
    now = read.rows(encounter.pk)
    stored[model] = {row[0]: row for row in now}
    kept = _instances(previous, model) if previous is not None else {}
    before = previous.stored.get(model, {}) if previous is not None else {}
    fresh: dict[int, Model] = {}
    new: list[int] = []
    for row in now:
        pk = row[0]
        if pk not in kept:
            new.append(pk)
        elif before.get(pk) != row:
            fresh[pk] = _remade(model, kept[pk], read.values(row))
    if len(new) > _FEW:
        fresh |= {obj.pk: obj for obj in _ALL[model](encounter.pk) if obj.pk in new}
    else:
        fresh |= {obj.pk: obj for pk in new for obj in _ONE[model](pk)}
    found = (fresh[row[0]] if row[0] in fresh else kept.get(row[0]) for row in now)
    return [obj for obj in found if obj is not None]  # None: a new row gone meanwhile


def _remade(model: type[Model], kept: Model, values: list[Any]) -> Model:
    """A new instance of ``kept``'s row with ``values``, the columns ``_stored`` reads, as
    ``from_db`` makes instances; the columns it does not read are ``kept``'s."""
    by_name = dict(zip(_STORED_NAMES[model], values, strict=True))
    names = _ALL_NAMES[model]
    return model.from_db(
        kept._state.db,
        names,
        [by_name[name] if name in by_name else getattr(kept, name) for name in names],
    )


def _stored_names(model: type[Model]) -> tuple[str, ...]:
    """The columns of ``model``'s rows that can change, the id first: all but those set once
    when a row is made (``auto_now_add``), whose dates SQLite's driver would parse for every
    row and load only to find them as they were."""
    fields = model._meta.concrete_fields
    return tuple(f.attname for f in fields if not getattr(f, "auto_now_add", False))


def _stored(model: type[Model], names: tuple[str, ...]) -> Prepared:
    """An encounter's rows of ``model`` as stored: the columns ``names`` (``_stored_names``)."""
    return Prepared(lambda pk: model._default_manager.filter(encounter=pk).values_list(*names))


_FEW = 4  # new rows at most to read them one by one, rather than all
_STORED_NAMES = {m: _stored_names(m) for m in (Combatant, Seat)}
_STORED = {m: _stored(m, names) for m, names in _STORED_NAMES.items()}
_ALL_NAMES = {m: tuple(f.attname for f in m._meta.concrete_fields) for m in (Combatant, Seat)}
_ONE = {m: Prepared(lambda pk, m=m: m._default_manager.filter(pk=pk)) for m in (Combatant, Seat)}
_ALL = {
    m: Prepared(lambda pk, m=m: m._default_manager.filter(encounter=pk)) for m in (Combatant, Seat)
}


def _instances(state: State, model: type[Model]) -> dict[int, Any]:
    if model is Combatant:
        return state.by_pk
    if model is Seat:
        return state.seats
    raise TypeError(model)


_ENCOUNTER = Prepared(lambda pk: Encounter.objects.filter(pk=pk))


def _log_since(encounter_id: int, since: int) -> QuerySet[LogEntry]:
    """The log entries written since number ``since``, which hold all that changed in the log:
    an entry written once changes only by being undone, and its undo is a newer entry
    (``_logs`` marks what the new undos name).

    One range of the index on (encounter, number), however long the log has grown, the
    whole club's included, and whatever the database guesses of the values (a statement
    prepared on PostgreSQL is planned for any). Also asking for the entries the new undos
    name, and whether an undo names each entry, let PostgreSQL read every entry of every
    encounter (9.7 ms for 40 000 entries) or every undo there is."""
    return LogEntry.objects.filter(encounter=encounter_id, seq__gt=since)


_LOG_SINCE = Prepared(_log_since)


def _undone(entries: list[LogEntry] | None, undos: dict[int, int]) -> list[LogEntry] | None:
    """``entries`` with those ``undos`` names (entry id -> the undo's number) marked undone:
    copies, the earlier state keeping its own."""
    if not undos or not entries:
        return entries
    marked = []
    for entry in entries:
        if entry.id in undos:
            entry = copy.copy(entry)
            entry.undo_seq = undos[entry.id]
        marked.append(entry)
    return marked


def _merged(kept: list[LogEntry] | None, changed: list[LogEntry], window: int) -> list[LogEntry]:
    """A window of the log with the entries written since it was read (``changed``, each
    newer than all it holds) on top: in the log's order, newest first."""
    newest = sorted(changed, key=lambda entry: (entry.seq, entry.id), reverse=True)
    return (newest + list(kept or ()))[:window]


ROWS = Lru(20_000)
ENTRIES = Lru(20_000)


def _html(template: str, context: dict[str, Any], language: str) -> str:
    """``template`` rendered in ``language``, its indentation gone: one space between tags
    renders the same, and these fragments go to every socket.

    The language is switched for the render only: a view whose fragments all come from the
    caches (most seats' views, most changes) switches nothing."""
    with translation.override(language):
        return tidy(render_to_string(template, context))


OOB = re.compile(r"^(\s*<\w+)")
# What a live message says besides its fragments: built with every message (one per audience
# and language), so not drawn by templates, which cost more than the rest of such a message.
MARKER = '<div id="live-seq" data-seq="{seq}"{since} hidden hx-swap-oob="true"></div>'
LOG_ADDED = '<ol hx-swap-oob="afterbegin:#log-entries">{}</ol>'  # new entries on top
LOG_GONE = '<li id="{}" hx-swap-oob="delete"></li>'  # the window's oldest, fallen off


def _oob(html: str, how: str = "true") -> str:
    """The fragment's first tag marked as an out-of-band swap."""
    return OOB.sub(rf'\1 hx-swap-oob="{how}"', html, count=1)


def _viewer_of(state: State, audience: Audience) -> Viewer:
    return Viewer(state.encounter, is_referee=audience.referee, seat=state.seats.get(audience.seat))


def _row_fixed(state: State, audience: Audience, viewer: Viewer, before: View | None) -> Fixed:
    """What every row of ``audience``'s view depends on besides itself and whether the
    viewer controls it: the previous view's very tuple when it is the same, so that a row's
    key compares by identity (``_row``)."""
    fixed = (
        audience.referee,
        state.shows_numbers(audience),
        viewer.may_adjust_hit_points,
        viewer.may_enter_dice,
        state.encounter.slug,
        audience.language,
        # The rules system's buttons (combat.systems.terms), and whether players roll chances.
        state.encounter.system,
        state.encounter.players_roll_chances,
    )
    return before.row_fixed if before is not None and before.row_fixed == fixed else fixed


def _row(
    state: State,
    audience: Audience,
    combatant: Combatant,
    viewer: Viewer,
    fixed: Fixed,
    keys: dict[int, tuple[Any, ...]],
    before: View | None,
    controlled: bool = False,
) -> str:
    """The row's HTML: the previous view's when it showed the same (its key's ``shown`` is
    the same tuple then, see ``State``), else from the cache, else rendered. Its key goes in
    ``keys``, for the next view to compare."""
    controlled = controlled or audience.referee
    show_numbers = state.shows_numbers(audience)
    pk = combatant.id
    if audience.referee:
        shown = state.shown[pk]  # only the referee sees the seat's name
    elif show_numbers or controlled or pk not in state.shown_vaguely:
        shown = state.shown_to_players[pk]
    else:
        shown = state.shown_vaguely[pk]  # a foe's health in words
    key = (shown, controlled, fixed)
    keys[pk] = key
    if before is not None and before.row_keys.get(pk) == key:
        return before.rows[pk]

    def draw() -> str:
        language = audience.language
        context = {
            "combatant": combatant,
            "viewer": viewer,
            "encounter": state.encounter,
            "controlled_ids": {pk} if controlled else set(),
            "show_numbers": show_numbers,
            "action_urls": state.urls,
        }
        rest = ROWS.fetch(_rest_key(key, combatant), lambda: _html(REST, context, language))
        with translation.override(language):
            return fray_live.row_html(
                combatant,
                referee=audience.referee,
                controlled=controlled,
                show_numbers=show_numbers,
                rest=rest,
            )

    def notice() -> str:
        with translation.override(audience.language):
            return row_notice(combatant, referee=audience.referee)

    # A row that cannot be drawn says so, alone: the other rows and the socket go on.
    return ROWS.fetch(key, lambda: drawn(("row", pk), draw, notice))


REST = "combat/_combatant_rest.html"  # all of a row below its line, drawn apart


def _rest_key(key: tuple[Any, ...], combatant: Combatant) -> tuple[Any, ...]:
    """What the row below its line shows: all the row does, but its hit points only as
    whether it is dead (a ship's hull aside): a blow that does not kill redraws only the
    line, not the actions, sheet and body under it."""
    shown = key[0]
    hp = shown[2] if combatant.kind == Kind.SHIP else None
    return ("rest", shown[:2] + shown[3:], combatant.dead, hp, *key[1:])


def _entry(state: State, audience: Audience, entry: LogEntry, key: tuple[Any, ...]) -> str:
    def render() -> str:
        with translation.override(audience.language):
            return fray_live.entry_html(
                entry,
                referee=audience.referee,
                slug=state.encounter.slug,
                show_numbers=state.shows_numbers(audience),
            )

    return ENTRIES.fetch(key, render)


@dataclass
class View:
    """What one audience sees at one sequence number, fragment by fragment."""

    audience: Audience
    seq: int
    rows: dict[int, str]
    row_keys: dict[int, tuple[Any, ...]]  # what each row rendered here shows (``_row``)
    row_fixed: Fixed  # what all of them depend on besides (``_row_fixed``)
    sides: dict[str, tuple[Any, ...]]  # party/foes: the rows in order, and what else shows
    entries: dict[str, str]  # log entry element id -> its HTML, newest first
    entry_keys: dict[int, EntryKey]  # entry id -> what it shows, element id, the entry
    sections: dict[str, Callable[[], str]]
    seats_html: str
    banner: str = ""  # the round's section, as this audience sees it
    moved: str = ""  # where the party went on to, as this audience may follow it
    shared: View | None = None  # the players' common view this one adds a seat's rows to
    own: tuple[int, ...] = ()  # with ``shared``: the rows this seat sees its own way
    feed: str = ""  # with ``shared``: the seat's personal feed (``_feed``)
    feed_key: tuple[Any, ...] = ()  # what it shows
    previous: View | None = None
    _messages: dict[int | None, str] = field(default_factory=dict)
    _log_deltas: dict[int, list[str]] = field(default_factory=dict)

    @property
    def entry_ids(self) -> tuple[str, ...]:
        return tuple(self.entries)

    def message(self, since: int | None) -> str:
        """The websocket message that brings a page at ``since`` to this view: a delta when
        ``since`` is the previous view's number, else a full snapshot. Built once per view and
        starting point, whatever the number of sockets it goes to."""
        base = self.previous if self.previous and since == self.previous.seq else None
        key = base.seq if base else None
        message = self._messages.get(key)
        if message is None:
            message = self._delta(base) if base else self._snapshot()
            self._messages[key] = message
        return message

    def marker(self, since: int | None = None) -> str:
        """The sequence number alone: all a page at this number needs to hear (static/fray.js
        reads it; in a delta, with the number it applies to)."""
        since_attr = f' data-from="{since:d}"' if since is not None else ""
        return MARKER.format(seq=f"{self.seq:d}", since=since_attr)  # numbers: nothing to escape

    def _snapshot(self) -> str:
        parts = [self.marker(None), self.moved, self.banner]
        if self.feed:
            parts.append(self.feed)
        parts += [self.sections["party"](), self.sections["foes"]()]
        if self.audience.referee:
            parts.append(self.seats_html)
        parts.append(self.sections["log"]())
        return "\n".join(parts)

    def _delta(self, base: View) -> str:
        if self._as_shared(base):
            # Nothing of this seat's own changed: the very message every player gets.
            return self.shared.message(base.seq)
        parts = [self.marker(base.seq)]
        if self.moved != base.moved:
            parts.append(self.moved)
        if self.banner != base.banner:
            parts.append(self.banner)
        if self.feed != base.feed:
            parts.append(self.feed)
        for side in ("party", "foes"):
            if self.sides[side] != base.sides[side]:
                parts.append(self.sections[side]())
                continue
            ids = self.sides[side][0]
            parts += [_oob(self.rows[pk]) for pk in ids if self.rows[pk] != base.rows.get(pk)]
        if self.audience.referee and self.seats_html != base.seats_html:
            parts.append(self.seats_html)
        parts += self._log_delta(base)
        return "\n".join(parts)

    def _as_shared(self, base: View) -> bool:
        shared, before = self.shared, base.shared
        return (
            shared is not None
            and shared is not self
            and before is not None
            and shared.previous is before
            # The same rows as everyone's, and no section to send (a seat's differ).
            and self.sides == base.sides
            and shared.sides == before.sides
            # (a seat lists its own first: the same rows, maybe in another order, which the
            # rows sent by id do not depend on)
            and all(set(self.sides[side][0]) == set(shared.sides[side][0]) for side in self.sides)
            and self.banner == shared.banner
            and base.banner == before.banner
            and self.moved == shared.moved
            and base.moved == before.moved
            and self.feed == base.feed  # (a seat's own)
            and all(
                self.rows[pk] == base.rows.get(pk) and shared.rows.get(pk) == before.rows.get(pk)
                for pk in self.own
            )
        )

    def _log_delta(self, base: View) -> list[str]:
        # Every seat of a language shares its log: worked out once, on the common view.
        if self.shared is not None and base.shared is not None and self.shared is not self:
            return self.shared._log_delta(base.shared)
        if base.seq in self._log_deltas:
            return self._log_deltas[base.seq]
        self._log_deltas[base.seq] = parts = self._log_parts(base)
        return parts

    def _log_parts(self, base: View) -> list[str]:
        new, old = self.entry_ids, base.entry_ids
        if new == old:
            return [_oob(self.entries[i]) for i in new if self.entries[i] != base.entries[i]]
        # New entries on top, the window's oldest falling off the end: anything else (the
        # first entry, an entry gone) sends the whole log.
        kept = [i for i in new if i in base.entries]
        added = new[: len(new) - len(kept)]
        if not old or tuple(kept) != old[: len(kept)] or new[len(added) :] != tuple(kept):
            return [self.sections["log"]()]
        parts = []
        if added:
            inserted = mark_safe("".join(self.entries[i] for i in added))  # drawn already
            parts.append(format_html(LOG_ADDED, inserted))
        parts += [_oob(self.entries[i]) for i in kept if self.entries[i] != base.entries[i]]
        parts += [format_html(LOG_GONE, i) for i in old[len(kept) :]]
        return parts


def build_view(
    state: State,
    audience: Audience,
    previous: View | None = None,
    shared: View | None = None,
) -> View:
    """``audience``'s view of ``state``: rows and entries from the caches, sections on demand.

    With ``shared`` (the players' view in this language, with no seat), a seat's view is that
    one with the seat's own rows put in: what all players see is built once per language.
    """
    viewer = _viewer_of(state, audience)
    row_keys: dict[int, tuple[Any, ...]] = {}
    fixed = _row_fixed(state, audience, viewer, previous)
    if shared is None:
        visible, ids = state.listed(audience.referee)
        rows = {c.id: _row(state, audience, c, viewer, fixed, row_keys, previous) for c in visible}
        entries, entry_keys = _entries(state, audience, previous)
        controlled = set(rows) if audience.referee else set()
        # Players with no character of their own see the party members they may claim.
        claim = () if audience.referee else state.claimable
        sides = {
            side: (ids[side], (not audience.referee, claim if side == Side.PARTY else ()))
            for side in (Side.PARTY, Side.FOES)
        }
    else:
        # A seat's view is the common one with its own rows: work in its own rows only.
        own = state.by_seat.get(audience.seat, [])
        moved = _moved(state, audience)
        if not own and moved == shared.moved:
            return _linked(shared, previous)  # it sees just what every player sees
        rows = dict(shared.rows)
        rows.update(
            {c.pk: _row(state, audience, c, viewer, fixed, row_keys, previous, True) for c in own}
        )
        entries, entry_keys = shared.entries, shared.entry_keys
        controlled = {c.pk for c in own}
        if any(c.hidden for c in own):  # hidden from the others, not from its player
            visible = in_turn_order(
                (c for c in state.combatants if not c.hidden or c.pk in controlled),
                state.encounter.turn,
            )
            sides = {
                side: (
                    tuple(own_first([c.pk for c in visible if c.side == side], controlled)),
                    False,
                )
                for side in (Side.PARTY, Side.FOES)
            }
        else:
            sides = {
                side: (
                    ids if controlled.isdisjoint(ids) else tuple(own_first(ids, controlled)),
                    False,
                )
                for side, (ids, _waiting) in shared.sides.items()
            }
    context = {
        "viewer": viewer,
        "encounter": state.encounter,
        "controlled_ids": controlled,
        "rendered_rows": rows,
        "oob": True,
        "action_urls": state.urls,
    }

    def section(template: str, extra: Callable[[], dict[str, Any]]) -> Callable[[], str]:
        return _Section(template, context, extra, audience.language)

    if shared is None:
        banner, moved = _banner(state, audience, viewer, frozenset()), _moved(state, audience)
    elif controlled.isdisjoint(state.standing.acting_ids):
        banner = shared.banner  # none of its own acts now: the round as every player sees it
    else:
        banner = _banner(state, audience, viewer, frozenset(controlled))
    by_pk = state.by_pk
    seats_html = _seats(state, audience, context) if audience.referee else ""
    # A seat's personal feed, from its own rows only (``combat.live.feed``).
    feed_html, feed_key = (
        _feed(state, audience, viewer, own, previous) if shared is not None else ("", ())
    )
    view = View(
        audience=audience,
        seq=state.seq,
        rows=rows,
        row_keys=row_keys,
        row_fixed=fixed,
        sides={str(k): v for k, v in sides.items()},
        entries=entries,
        entry_keys=entry_keys,
        sections={
            "party": section(
                "combat/_party.html",
                lambda: {
                    "party": [by_pk[pk] for pk in sides[Side.PARTY][0]],
                    "claimable": [by_pk[pk] for pk, _name in state.claimable],
                },
            ),
            "foes": shared.sections["foes"]
            if shared is not None
            and sides[Side.FOES][0] == shared.sides[Side.FOES][0]
            and controlled.isdisjoint(sides[Side.FOES][0])
            else section(
                "combat/_foes.html",
                lambda: {"foes": [by_pk[pk] for pk in sides[Side.FOES][0]]},
            ),
            "log": shared.sections["log"]
            if shared is not None
            else section("combat/_log.html", lambda: {"rendered_entries": list(entries.values())}),
        },
        seats_html=seats_html,
        banner=banner,
        moved=moved,
        shared=shared,
        own=tuple(controlled) if shared is not None else (),
        feed=feed_html,
        feed_key=feed_key,
    )
    return _linked(view, previous)


class _Section:
    """A section of a view, drawn when first asked for, once however many sockets and
    seats' views ask (most changes ask for none)."""

    __slots__ = ("context", "extra", "html", "language", "template")

    def __init__(
        self,
        template: str,
        context: dict[str, Any],
        extra: Callable[[], dict[str, Any]],
        language: str,
    ) -> None:
        self.template, self.context, self.extra, self.language = template, context, extra, language
        self.html: str | None = None

    def __call__(self) -> str:
        if self.html is None:
            self.html = _html(self.template, self.context | self.extra(), self.language)
        return self.html


def _banner(state: State, audience: Audience, viewer: Viewer, own: frozenset[int]) -> str:
    """The round's section for ``audience`` (a seat's says when its side acts)."""

    def broken() -> str:
        context = {"encounter": state.encounter, "oob": True}
        with translation.override(audience.language):
            return part_notice(referee=audience.referee, element="round", context=context)

    what = ("round", state.encounter.pk)
    fight = drawn(
        what,
        lambda: round_context(
            state.encounter,
            state.combatants,
            state.conditions,
            referee=audience.referee,
            own=own,
            now=state.standing,
        ),
        lambda: None,
    )
    if fight is None or state.round_broken:
        return broken()
    # The steps' labels are lazy translations, fixed by the language: left out of the key,
    # whose hashing would translate them for every audience.
    key = (
        "round",
        state.encounter.slug,
        audience.language,
        audience.referee,
        *(value for name, value in fight.items() if name != "steps"),
    )
    context = {"viewer": viewer, "encounter": state.encounter, "oob": True} | fight
    return ROWS.fetch(
        key,
        lambda: drawn(
            what, lambda: _html("combat/_round.html", context, audience.language), broken
        ),
    )


def _feed(
    state: State,
    audience: Audience,
    viewer: Viewer,
    own: list[Combatant],
    before: View | None,
) -> tuple[str, tuple[Any, ...]]:
    """The seat's personal feed and what it shows: drawn again only when its items change
    (the previous view's, else from the cache), whatever the number of its sockets."""
    seat = state.seats.get(audience.seat)
    if seat is None:
        return "", ()
    standing = state.standing  # (works out whether the round is broken)
    found = feed.items(
        seat,
        own,
        state.feed_log,
        state.pending,
        None if state.round_broken else standing,
        state.encounter.turn,
    )
    encounter = state.encounter
    key = (
        "feed",
        feed.key_of(found),
        seat.pk,
        encounter.slug,
        audience.language,
        bool(encounter.round),
        viewer.may_enter_dice,
        state.shows_numbers(audience),
    )
    if before is not None and before.feed_key == key:
        return before.feed, before.feed_key

    def render() -> str:
        return feed.render(
            found,
            seat=seat,
            encounter=encounter,
            may_enter_dice=viewer.may_enter_dice,
            show_numbers=state.shows_numbers(audience),
            language=audience.language,
            oob=True,
        )

    def notice() -> str:
        context = {"encounter": encounter, "oob": True}
        with translation.override(audience.language):
            return part_notice(referee=False, element="feed", context=context)

    # A feed that cannot be drawn says so, alone: the rest of the view and the socket go on.
    return ROWS.fetch(key, lambda: drawn(("feed", seat.pk), render, notice)), key


def _moved(state: State, audience: Audience) -> str:
    """Where the party went on to, for ``audience``: with a button for the referee and for a
    seat that went on with it (combat.party)."""
    encounter = state.encounter
    if encounter.moved_on_to_id is None:  # hidden, empty, the same for every audience
        moved_on_to, can, key = None, False, ("moved", encounter.slug)
    else:
        moved_on_to = encounter.moved_on_to
        can = follows(_viewer_of(state, audience))
        key = ("moved", encounter.slug, audience.language, moved_on_to.name, can)

    def render() -> str:
        context = {"encounter": encounter, "moved_on_to": moved_on_to, "follows": can}
        return _html("combat/_party_moved.html", context | {"oob": True}, audience.language)

    return ROWS.fetch(key, render)


def _seats(state: State, audience: Audience, context: dict[str, Any]) -> str:
    """The referee's list of players, rendered again only when a seat comes or goes, or the
    party (who plays whom) changes."""
    seats = list(state.seats.values())
    party = tuple((c.pk, c.name, c.seat_id) for c in state.combatants if c.side == Side.PARTY)
    key = (
        "seats",
        tuple((s.pk, s.name) for s in seats),
        party,
        state.encounter.slug,
        audience.language,
    )

    def render() -> str:
        rows = {"seats": seats, "seat_rows": seat_rows(seats, state.combatants)}
        return _html("combat/_seats.html", context | rows, audience.language)

    return ROWS.fetch(key, render)


def _entries(
    state: State, audience: Audience, before: View | None
) -> tuple[dict[str, str], dict[int, EntryKey]]:
    """``audience``'s window of the log, by element id, and what each entry shows (with its
    element id) by entry: an entry the previous view showed the same way is taken from it."""
    log = state.referee_log if audience.referee else state.public_log
    entries: dict[str, str] = {}
    keys: dict[int, EntryKey] = {}
    way = (audience.referee, state.shows_numbers(audience), state.encounter.slug, audience.language)
    fixed = _WAYS.setdefault(way, way)  # one tuple per way, told apart by identity
    if before is not None and log:
        on_top = _entries_on_top(state, audience, before, log, fixed)
        if on_top is not None:
            return on_top
    for entry in log or ():
        pk = entry.id  # (not the ``pk`` property: this loop runs per entry and audience)
        kept = before.entry_keys.get(pk) if before is not None else None
        if kept is not None and kept[2] is entry and kept[0][3] is fixed:
            # The very entry the previous view showed (a log entry read again is a new
            # instance: ``_logs``), shown the same way.
            keys[pk] = kept
            entries[kept[1]] = before.entries[kept[1]]
            continue
        key = (pk, entry.created.timestamp(), entry.undone_seq, fixed)
        if kept is not None and kept[0] == key:
            element = kept[1]
            html = before.entries[element]
        else:
            html = _entry(state, audience, entry, key)
            element = f"entry-{entry.seq if audience.referee else entry.public_seq}"
        entries[element] = html
        keys[pk] = (key, element, entry)
    return entries, keys


def _entries_on_top(
    state: State,
    audience: Audience,
    before: View,
    log: list[LogEntry],
    fixed: tuple[Any, ...],
) -> tuple[dict[str, str], dict[int, EntryKey]] | None:
    """The usual change to the log, worked out without a step per entry: new entries on
    top of the very ones ``before`` showed, in its order and the same way, its oldest falling
    off the window. None for anything else (an entry undone, another way of showing them)."""
    shown = before.entry_keys
    added = 0
    for entry in log:
        if entry.id in shown:
            break
        added += 1
    kept = len(log) - added
    if not kept or kept > len(shown):
        return None
    old = list(itertools.islice(shown.values(), kept))
    if old[0][0][3] is not fixed or not all(
        map(operator.is_, map(operator.itemgetter(2), old), log[added:])
    ):
        return None
    entries: dict[str, str] = {}
    keys: dict[int, EntryKey] = {}
    for entry in log[:added]:
        key = (entry.id, entry.created.timestamp(), entry.undone_seq, fixed)
        element = f"entry-{entry.seq if audience.referee else entry.public_seq}"
        entries[element] = _entry(state, audience, entry, key)
        keys[entry.id] = (key, element, entry)
    entries.update(itertools.islice(before.entries.items(), kept))
    keys.update(itertools.islice(shown.items(), kept))
    return entries, keys


# The ways an entry is shown (audience, numbers or not, encounter, language), each one tuple
# for the life of the process: the views' entries compare theirs by identity, not by value.
_WAYS: dict[tuple[Any, ...], tuple[Any, ...]] = {}


def _linked(view: View, previous: View | None) -> View:
    """``view`` one step after ``previous``, never a longer chain (a view shared by several
    audiences is linked to the same previous view by each)."""
    if previous is not None and previous is not view:
        previous.previous = None
        view.previous = previous
    return view


def build_views(
    encounter_id: int,
    audiences: Iterable[Audience],
    previous: dict[Audience, View],
    state: State | None = None,
    *,
    current: bool = False,
) -> tuple[State, dict[Audience, View]] | None:
    """Load the encounter once (what changed since ``state``, where it can) and build every
    audience's view (None: it is gone). Players' views share one view per language (kept
    under a seatless audience) for all they have in common; the referee's are their own.

    With ``current``, ``state`` is recent enough: only audiences without a view of it are
    built, from it, with no query (sockets of new audiences connecting)."""
    audiences = list(audiences)
    reuse = (
        current
        and state is not None
        and state.referee_log is not None
        and state.public_log is not None
    )
    if not reuse:
        # Both windows of the log, whoever is here now: one query reads them, and a socket
        # of the other kind connecting next needs no load of its own.
        state = State.load(encounter_id, referee=True, players=True, previous=state)
    if state is None:
        return None
    views: dict[Audience, View] = {}

    def kept(audience: Audience) -> View | None:
        view = previous.get(audience)
        return view if reuse and view is not None and view.seq == state.seq else None

    for audience in audiences:
        if audience.referee:
            views[audience] = kept(audience) or build_view(state, audience, previous.get(audience))
            continue
        common = Audience(referee=False, seat=None, language=audience.language)
        if common not in views:
            views[common] = kept(common) or build_view(state, common, previous.get(common))
        views[audience] = kept(audience) or build_view(
            state, audience, previous.get(audience), shared=views[common]
        )
    return state, views


def audience_of(viewer: Viewer, language: str) -> Audience:
    return Audience(viewer.is_referee, None if viewer.is_referee else viewer.seat.pk, language)


def render_snapshot(viewer: Viewer, language: str) -> tuple[int, str]:
    """A full snapshot for one viewer, as its socket would receive it (tests, benchmarks)."""
    audience = audience_of(viewer, language)
    built = build_views(viewer.encounter.pk, [audience], {})
    if built is None:
        raise Encounter.DoesNotExist
    _state, views = built
    view = views[audience]
    return view.seq, view.message(None)


__all__ = [
    "ANNOUNCER",
    "Audience",
    "State",
    "View",
    "announce_committed",
    "audience_of",
    "build_views",
    "live_context",
    "render_snapshot",
    "visible_log",
]
