"""A player's personal feed: what happens to their own characters, on top of their phone.

A seat's feed holds, newest first after what asks something of the player:

- each save an area effect left to one of its characters (until it is rolled);
- "your side acts", while one of its characters acts now (until seen, for this turn);
- each log entry in the players' window (``FRAY_LOG_PAGE``) that changed one of its
  characters (hit, healed, a condition set, ended or run out) or ended the fight (with the
  experience), written by someone else (the referee, another player, a round's end), since
  the last one the seat dismissed ("Seen": ``Seat.feed_seen``), and not undone: the newest
  ``SHOWN`` of them.

Everything comes from what is stored, so a reload shows the same items, and every seat's
feed is worked out from its own characters alone. The live views (``combat.live.state``) draw
it only when its items change (:func:`key_of`); what an entry means to the feed is worked
out once per entry (:func:`marks_of`), not once per seat.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import mark_safe

from combat.fragments import logged_once, tidy
from combat.lru import Lru
from combat.models import Combatant, EntryKind, LogEntry, PendingSave, Seat
from combat.rounds import Standing
from combat.templatetags.fray_live import entry_body

HIT, HEALED, CONDITION, END = "hit", "healed", "condition", "end"
SAVE, TURN = "save", "turn"
TEMPLATE = "combat/_feed.html"
# The log's entries a feed shows at most, the newest: older ones are in the log below, and
# "Seen" dismisses them with the rest.
SHOWN = 5


@dataclass(frozen=True)
class Mark:
    """What a log entry means to the feeds: a ``kind`` of item, for the combatants it
    changed (``ids``) or names (``names``), or for every seat with a character (``every``)."""

    kind: str
    ids: frozenset[int] = frozenset()
    names: frozenset[str] = frozenset()
    every: bool = False


@dataclass
class Item:
    """One item of a seat's feed: a log ``entry``, a ``pending`` save, or its side's turn."""

    kind: str
    who: tuple[str, ...] = ()
    entry: LogEntry | None = None
    pending: PendingSave | None = None
    turn: str = ""
    body: str = field(default="", compare=False)  # the entry as players read it, when drawn

    @property
    def seq(self) -> int:
        """The players' number of its entry (0: not an entry)."""
        return (self.entry.public_seq or 0) if self.entry is not None else 0

    @property
    def buzz(self) -> bool:
        """Whether the phone may vibrate for it: the player is asked to do something."""
        return self.kind in (SAVE, TURN)

    @property
    def per_share(self) -> int | None:
        """The experience each share gets, at the fight's end."""
        if self.kind != END or self.entry is None:
            return None
        return getattr(self.entry.payload, "per_share", None)

    def key(self) -> tuple[Any, ...]:
        """Everything the item shows."""
        if self.pending is not None:
            p = self.pending
            # What it needs, as the combatant's row says it (None: a category it has no save
            # for, a database edited by hand: the button says nothing of it, see ``drawn``).
            needed = p.needed_if_known
            return (SAVE, self.who, p.pk, p.category, p.amount, p.modifier, needed, p.label)
        if self.entry is not None:
            e = self.entry
            return (self.kind, self.who, e.id, e.created.timestamp(), e.public_seq)
        return (self.kind, self.who, self.turn)


MARKS = Lru(20_000)


def marks_of(entry: LogEntry) -> tuple[Mark, ...]:
    """What ``entry`` means to the feeds (an entry never changes but by being undone, which
    the feed asks apart): worked out once per entry."""
    key = (entry.id, entry.created.timestamp() if entry.created else None)
    return MARKS.fetch(key, lambda: _marks(entry))


def _marks(entry: LogEntry) -> tuple[Mark, ...]:
    if entry.kind == EntryKind.UNDO:
        return ()
    marks: list[Mark] = []
    changed: dict[int, int] = {}
    try:
        for effect in entry.effects or ():
            if isinstance(effect, dict) and isinstance(effect.get("combatant"), int):
                hp = effect.get("hp", 0)
                changed[effect["combatant"]] = changed.get(effect["combatant"], 0) + (
                    hp if isinstance(hp, int) else 0
                )
        hurt = frozenset(pk for pk, hp in changed.items() if hp < 0)
        healed = frozenset(pk for pk, hp in changed.items() if hp > 0)
        if hurt:
            marks.append(Mark(HIT, ids=hurt))
        if healed:
            marks.append(Mark(HEALED, ids=healed))
        if entry.kind == EntryKind.CONDITION:
            marks.append(Mark(CONDITION, names=frozenset({entry.payload.who})))
        elif entry.kind == EntryKind.TURN:
            expired = entry.payload.expired or ()
            names = frozenset(e[0] for e in expired if e and isinstance(e[0], str))
            if names:
                marks.append(Mark(CONDITION, names=names))
        elif entry.kind == EntryKind.COMBAT and entry.payload.event == "end":
            marks.append(Mark(END, every=True))
    except (ValueError, TypeError, AttributeError, IndexError):
        # Data no payload reads (a database edited by hand): the log shows its notice.
        logged_once(("feed", entry.pk))
        return ()
    return tuple(marks)


def turn_of(standing: Standing, turn: Any) -> str:
    """The turn as "round:index": what "your side acts" was dismissed for."""
    index = turn.get("index", 0) if isinstance(turn, dict) else 0
    return f"{standing.round}:{index}"


# An entry as a feed reads it: the entry, its mark's rank among the entry's marks (the first
# wins: a blow before a healing, a condition, the fight's end), and the mark.
Marking = tuple[LogEntry, int, Mark]


@dataclass
class Marked:
    """The players' window of the log as the feeds read it: each entry that means something
    to one, by the combatant it changed (``by_id``) or names (``by_name``), or for every seat
    (``every``), newest first. Worked out once per change for all seats (``marked``): a
    seat's feed then reads only what concerns its own characters."""

    by_id: dict[int, list[Marking]] = field(default_factory=dict)
    by_name: dict[str, list[Marking]] = field(default_factory=dict)
    every: list[Marking] = field(default_factory=list)


def marked(entries: Iterable[LogEntry]) -> Marked:
    """``entries`` (the players' window of the log, newest first) as the feeds read them:
    undone entries and those players cannot number left out."""
    found = Marked()
    for entry in entries:
        if entry.public_seq is None or entry.undone_seq is not None:
            continue
        for rank, mark in enumerate(marks_of(entry)):
            marking = (entry, rank, mark)
            for pk in mark.ids:
                found.by_id.setdefault(pk, []).append(marking)
            for name in mark.names:
                found.by_name.setdefault(name, []).append(marking)
            if mark.every:
                found.every.append(marking)
    return found


def items(
    seat: Seat,
    own: Sequence[Combatant],
    log: Marked,
    pending: Mapping[int, Sequence[PendingSave]],
    standing: Standing | None,
    turn: Any,
) -> list[Item]:
    """``seat``'s feed: its characters ``own``, the players' window of the log as the feeds
    read it (``marked``), the saves waiting by combatant, and the round as it stands."""
    if not own:
        return []
    ids = {c.id for c in own}
    found: list[Item] = []
    for c in own:
        if not c.dead:  # the dead roll nothing (the row offers them nothing either)
            found += [Item(SAVE, who=(c.name,), pending=p) for p in pending.get(c.id, ())]
    if standing is not None and standing.acting_ids and not ids.isdisjoint(standing.acting_ids):
        now = turn_of(standing, turn)
        if now != seat.feed_turn_seen:
            acting = tuple(c.name for c in own if c.id in standing.acting_ids)
            found.append(Item(TURN, who=acting, turn=now))
    seen, mine = seat.feed_seen, seat.pk
    # By entry: the first of its marks that concerns this seat, and whom of its own it names.
    concerns: dict[int, tuple[LogEntry, int, Mark, set[str]]] = {}

    def add(marking: Marking, name: str | None) -> None:
        entry, rank, mark = marking
        if entry.public_seq <= seen or entry.seat_id == mine:
            return  # seen, or its own player's doing (their panel shows it)
        kept = concerns.get(entry.id)
        if kept is None or rank < kept[1]:
            kept = concerns[entry.id] = (entry, rank, mark, set())
        if name is not None and kept[1] == rank:
            kept[3].add(name)

    for c in own:
        for marking in log.by_id.get(c.id, ()):
            add(marking, c.name)
        for marking in log.by_name.get(c.name, ()):
            add(marking, c.name)
    for marking in log.every:
        add(marking, None)
    newest = sorted(concerns.values(), key=lambda kept: kept[0].public_seq, reverse=True)
    for entry, _rank, mark, who in newest[:SHOWN]:
        found.append(Item(mark.kind, who=tuple(sorted(who)), entry=entry))
    return found


def key_of(found: Sequence[Item]) -> tuple[Any, ...]:
    return tuple(item.key() for item in found)


def seen_upto(found: Sequence[Item]) -> int:
    """The players' number "Seen" dismisses up to: the newest entry shown."""
    return max((item.seq for item in found), default=0)


def context(
    found: list[Item], *, seat: Seat, encounter: Any, may_enter_dice: bool, show_numbers: bool
) -> dict[str, Any]:
    """What ``combat/_feed.html`` draws, its entries' bodies in the active language."""
    for item in found:
        if item.entry is not None and not item.body:
            body = entry_body(item.entry, referee=False, show_numbers=show_numbers)
            item.body = mark_safe(body)  # drawn by the log's own templates, escaped there
    turns = [item.turn for item in found if item.kind == TURN]
    return {
        "feed_items": found,
        "feed_seat": seat,
        "feed_seen_upto": seen_upto(found),
        "feed_turn": turns[0] if turns else "",
        "feed_dismissable": any(item.kind != SAVE for item in found),
        "feed_fight": bool(encounter.round),
        "encounter": encounter,
        "may_enter_dice": may_enter_dice,
    }


def render(
    found: list[Item],
    *,
    seat: Seat,
    encounter: Any,
    may_enter_dice: bool,
    show_numbers: bool,
    language: str,
    oob: bool,
) -> str:
    """The feed's section in ``language`` (its indentation gone, no CSRF token: the page
    sends it in a header)."""
    with translation.override(language):
        extra = context(
            found,
            seat=seat,
            encounter=encounter,
            may_enter_dice=may_enter_dice,
            show_numbers=show_numbers,
        )
        return tidy(render_to_string(TEMPLATE, extra | {"oob": oob}))
