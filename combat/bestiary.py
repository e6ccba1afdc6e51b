"""The bestiary: monsters kept as templates, per campaign and rules system, to add several
at once later (each with its own rolled hit points); the starter bestiary Fray ships per
system (``combat/bestiary/*.json``); and a campaign's bestiary as a JSON file and back.

An entry's stat block is what a combatant stores minus what belongs to one combatant in one
fight (its name, side, hit points, seat, wounds, notes): the fields are walked as
``combat.transfer`` walks them for an encounter file, and checked by the same code, so a field
added to a combatant later is kept in the bestiary too.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from django.db import DatabaseError, IntegrityError, transaction
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _

from combat import classes, registry, starter_words, table, transfer, zones
from combat.access import Viewer
from combat.errors import message_for
from combat.models import HP_LIMIT, BestiaryEntry, Campaign, Combatant, Encounter
from combat.systems import common as systems
from combat.transfer import (
    COMBATANT_EXCLUDED,
    FileKind,
    Refused,
    build,
    check_combatant,
    exported,
    wrong_value,
)
from rules import dice, ose
from rules.errors import RulesError

FORMAT = "fray-bestiary"
VERSION = 1
MAX_ENTRIES = 500  # in a file, and in one campaign's bestiary
NAME_LIMIT = 50  # numbered on the table ("Hobgoblin 30") within a combatant's 60
SOURCE_LIMIT = 200
COUNT_LIMIT = 30  # monsters added at once, as quick-add allows

# What stays behind when a combatant becomes a template: what one combatant in one fight has.
STAT_EXCLUDED = COMBATANT_EXCLUDED | {
    "name",
    "side",
    "hp",
    "hp_max",
    "hidden",
    "fled",
    "zones",
    "notes",
    "rowers_lost",
    "hull_repaired",
}
ENTRY_KEYS = ("name", "system", "source")

STARTER_DIR = Path(__file__).resolve().parent / "bestiary"


# --- one stat block ----------------------------------------------------------------------------


def stat_block(combatant: Combatant) -> dict[str, Any]:
    """The combatant's stat block as an entry keeps it (and a file holds it): plain JSON
    values, as a stored combatant's would be read back (a default's enum as its text)."""
    return json.loads(json.dumps(exported(combatant, STAT_EXCLUDED)))


def hit_point_dice(hit_dice: Any, where: Any) -> dice.DiceExpression:
    """The dice an entry's hit points are rolled with (``2+1`` → 2d8+1, ``½`` → 1d4), or
    Refused when the Hit Dice cannot be read or could roll more than a combatant may have."""
    if not isinstance(hit_dice, str) or not hit_dice.strip():
        raise Refused(wrong_value("hit_dice", where, _("no Hit Dice to roll hit points from.")))
    try:
        expression = dice.parse(ose.monster_hp_dice(hit_dice))
    except RulesError as error:
        raise Refused(wrong_value("hit_dice", where, message_for(error))) from None
    if expression.maximum > HP_LIMIT:
        raise Refused(
            wrong_value(
                "hit_dice", where, _("Hit points go up to %(limit)s.") % {"limit": HP_LIMIT}
            )
        )
    return expression


def monster_from(
    stats: Any, encounter: Encounter, where: Any, *, name: str = "-", hp: int = 1, **fixed: Any
) -> Combatant:
    """An unsaved combatant of ``encounter`` from a stat block, checked as an imported one is.
    THAC0 and saves not given come from the Hit Dice in the encounter's system (the saves from
    what it saves as, if it names that)."""
    if not isinstance(stats, dict):
        raise Refused(_("Not a JSON object: %(where)s.") % {"where": where})
    hit_dice = stats.get("hit_dice")
    hit_point_dice(hit_dice, where)
    filled = dict(stats)
    try:
        filled.setdefault("thac0", systems.monster_thac0(encounter.system, hit_dice))
        row = _saves_as(encounter.system, filled.get("saves_as")) or ose.monster_saves(hit_dice)
        for key, value in row.items():
            filled.setdefault(f"save_{key}", value)
    except RulesError as error:
        raise Refused(wrong_value("hit_dice", where, message_for(error))) from None
    combatant = build(
        Combatant,
        STAT_EXCLUDED,
        filled,
        where,
        encounter=encounter,
        name=name,
        hp=hp,
        hp_max=hp,
        **fixed,
    )
    check_combatant(combatant, where)
    return combatant


def _saves_as(system: str, key: Any) -> dict[str, int]:
    """The saves of what a monster saves as ("thief:1"), if that reads in ``system``; a key
    that does not is left to the model's own check to name."""
    if not isinstance(key, str) or not key:
        return {}
    try:
        return classes.saves_as_saves(system, key)
    except (RulesError, LookupError, ValueError):
        return {}


def entry_from(data: Any, where: Any, *, system: str | None = None) -> BestiaryEntry:
    """An unsaved entry from a file's record (``system`` given: a starter file's, which names
    none), its stat block checked and written back as a combatant stores it."""
    if not isinstance(data, dict):
        raise Refused(_("Not a JSON object: %(where)s.") % {"where": where})
    system = system or data.get("system")
    if system not in registry.keys():
        raise Refused(wrong_value("system", where, _("not a rules system Fray plays.")))
    name, source = data.get("name"), data.get("source", "")
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > NAME_LIMIT:
        problem = _("a name of 1 to %(limit)s characters.") % {"limit": NAME_LIMIT}
        raise Refused(wrong_value("name", where, problem))
    if not isinstance(source, str) or len(source) > SOURCE_LIMIT:
        problem = _("at most %(limit)s characters.") % {"limit": SOURCE_LIMIT}
        raise Refused(wrong_value("source", where, problem))
    stats = {k: v for k, v in data.items() if k not in ENTRY_KEYS}
    monster = monster_from(stats, Encounter(system=system), where)
    return BestiaryEntry(
        system=system, name=name.strip(), source=source.strip(), stats=stat_block(monster)
    )


# --- the starter bestiary --------------------------------------------------------------------


@dataclass(frozen=True)
class Starter:
    """The starter bestiary of one system: its entries and where their stat facts come from."""

    source: str
    entries: tuple[BestiaryEntry, ...]

    def find(self, slug: str) -> BestiaryEntry | None:
        return next((e for e in self.entries if slugify(e.name) == slug), None)


@cache
def starter(system: str) -> Starter:
    """The starter bestiary Fray ships for ``system``: B/X's, as that system plays it. The
    files are Fray's own, checked by the tests as any imported file is; read once per process."""
    if system not in registry.keys():
        return Starter("", ())
    name = registry.get(system).bestiary
    document = parse((STARTER_DIR / name).read_bytes())
    entries = tuple(
        entry_from(_as_played_in(system, item), item.get("name"), system=system)
        for item in _listed(document)
    )
    return Starter(document.get("source", ""), entries)


def _as_played_in(system: str, stats: dict[str, Any]) -> dict[str, Any]:
    """A B/X stat block as ``system`` plays it (its ``from_bx``; as it stands where it has none)."""
    convert = registry.get(system).from_bx
    return convert(stats) if convert is not None else stats


def starter_key(entry: BestiaryEntry) -> str:
    """How a form names an entry: ``s:<slug>`` for a starter one, ``c:<id>`` for the
    campaign's own."""
    return f"c:{entry.pk}" if entry.pk else f"s:{slugify(entry.name)}"


def offered(encounter: Encounter) -> tuple[list[BestiaryEntry], Starter]:
    """The entries an encounter may add from: its campaign's own in its system, and its
    system's starter bestiary."""
    own = (
        list(BestiaryEntry.objects.filter(campaign=encounter.campaign_id, system=encounter.system))
        if encounter.campaign_id
        else []
    )
    return own, starter(encounter.system)


def shown_name(entry: BestiaryEntry) -> str:
    """An entry's name as the reader reads it: a starter entry's in their language (its key
    stays English), a campaign's own as the referee typed it."""
    return entry.name if entry.pk else starter_words.name(entry.name)


def shown_stats(entry: BestiaryEntry) -> dict[str, Any]:
    """An entry's stat block as monsters added by this reader take it: a starter entry's
    movement and notes in their language (its attacks and Hit Dice stay keys), a campaign's
    own as stored."""
    return entry.stats if entry.pk else starter_words.localised(entry.stats)


def find(encounter: Encounter, key: str) -> BestiaryEntry | None:
    """The entry a form names (see ``starter_key``), if the encounter may add from it."""
    kind, _sep, value = str(key).partition(":")
    if kind == "s":
        return starter(encounter.system).find(value)
    if kind == "c" and value.isascii() and value.isdigit() and len(value) < 12:
        return BestiaryEntry.objects.filter(
            pk=int(value), campaign=encounter.campaign_id, system=encounter.system
        ).first()
    return None


# --- adding monsters and saving them ---------------------------------------------------------


def numbered(name: str, number: int, count: int) -> str:
    """Names as quick-add gives them: "Hobgoblin 1", "Hobgoblin 2"… for several."""
    return f"{name} {number}" if count > 1 else name


def add_monsters(
    viewer: Viewer, entry: BestiaryEntry, count: int, *, side: str, hidden: bool, once: str
) -> list[Combatant]:
    """``count`` monsters of ``entry`` in the viewer's encounter, each with its own hit points
    rolled from the Hit Dice; announced as one change. Raises ``table.Repeated`` for a form
    sent twice, and Refused for an entry its stat block no longer passes (nothing added)."""
    encounter = viewer.encounter
    expression = hit_point_dice(entry.stats.get("hit_dice"), entry.name)
    name, stats = shown_name(entry), shown_stats(entry)
    added = []
    with transaction.atomic():
        for number in range(1, count + 1):
            hp = ose.monster_hit_points(expression, rng=table.UNLOGGED)
            monster = monster_from(
                stats,
                encounter,
                name,
                name=numbered(name, number, count),
                hp=hp,
                side=side,
                hidden=hidden,
            )
            monster.save()
            zones.sync(monster, encounter)  # hit locations: its body's zones
            added.append(monster)
        table.touch(viewer, once)
    return added


_NUMBER = re.compile(r"\s+\d{1,3}$")


def template_name(combatant: Combatant) -> str:
    """The entry's name for a combatant: without the number quick-add gave it."""
    return _NUMBER.sub("", combatant.name).strip()[:NAME_LIMIT] or combatant.name[:NAME_LIMIT]


def save_from(combatant: Combatant, campaign: Campaign) -> tuple[BestiaryEntry, bool]:
    """Keep the combatant's stat block in the campaign's bestiary, replacing an entry of the
    same name and system; returns it and whether it is new. Refused: no Hit Dice to roll from,
    or a full bestiary."""
    system = combatant.encounter.system
    monster_from(stat_block(combatant), Encounter(system=system), combatant.name)
    name = template_name(combatant)
    with transaction.atomic():
        existing = BestiaryEntry.objects.select_for_update().filter(
            campaign=campaign, system=system, name__iexact=name
        )
        entry = existing.first()
        if entry is None and campaign.bestiary.count() >= MAX_ENTRIES:
            raise Refused(_full())
        if entry is None:
            try:
                with transaction.atomic():
                    entry = BestiaryEntry.objects.create(
                        campaign=campaign, system=system, name=name, stats=stat_block(combatant)
                    )
                return entry, True
            except IntegrityError:  # saved by another tap meanwhile: replace that one
                entry = existing.get()
        entry.stats = stat_block(combatant)
        entry.save(update_fields=["stats"])
    return entry, False


def saved_message(entry: BestiaryEntry, new: bool) -> str:
    """What the referee is told after a stat block was kept (``save_from``)."""
    said = _("Saved %(name)s to the bestiary.") if new else _("Updated %(name)s in the bestiary.")
    return str(said % {"name": entry.name})


def _full() -> Any:
    return _("The bestiary is full: it holds at most %(limit)s entries.") % {"limit": MAX_ENTRIES}


# --- the bestiary as a file ------------------------------------------------------------------


def export_bestiary(campaign: Campaign | None) -> dict[str, Any]:
    entries = BestiaryEntry.objects.filter(campaign=campaign) if campaign else []
    return {
        "format": FORMAT,
        "version": VERSION,
        "entries": [
            {"name": e.name, "system": e.system, "source": e.source} | e.stats for e in entries
        ],
    }


def export_json(campaign: Campaign | None) -> str:
    return transfer.dumps(export_bestiary(campaign))


BESTIARY_FILE = FileKind(
    format=FORMAT,
    version=VERSION,
    parts=frozenset({"source", "entries"}),
    too_large=_("The file is too large: a bestiary file is at most 1 MB."),
    not_json=_("The file is not a Fray bestiary: it is not JSON."),
    not_this=_("The file is not a Fray bestiary: its format is not “fray-bestiary”."),
    too_deep=_("The file nests its data too deeply to be a Fray bestiary."),
    missing=_("Choose a bestiary file (.json) to import."),
)


def parse(raw: bytes) -> dict[str, Any]:
    """The file's document, or Refused: an encounter file's checks (size, JSON, depth, NUL
    characters, format and version, unknown parts), and a source that is text."""
    document = transfer.parse(raw, BESTIARY_FILE)
    if not isinstance(document.get("source", ""), str):
        raise Refused(wrong_value("source", _("the file"), _("not a value of this field's type.")))
    return document


def _listed(document: dict[str, Any]) -> list[Any]:
    listed = document.get("entries", [])
    if not isinstance(listed, list):
        raise Refused(_("The entries are not a JSON list."))
    if len(listed) > MAX_ENTRIES:
        raise Refused(_("The file holds more than %(limit)s entries.") % {"limit": MAX_ENTRIES})
    return listed


@dataclass(frozen=True)
class Imported:
    added: int
    replaced: int


def import_bestiary(raw: bytes, campaign: Campaign) -> Imported:
    """The file's entries into the campaign's bestiary: an entry of the same name and system
    is replaced by the file's. Refused with nothing written: a bad file, an entry twice in it,
    or more entries than a bestiary holds."""
    document = parse(raw)
    entries = []
    seen = set()
    for number, item in enumerate(_listed(document), start=1):
        entry = entry_from(item, _("entry %(number)s") % {"number": number})
        key = (entry.system, entry.name.casefold())
        if key in seen:
            raise Refused(
                _("The file holds “%(name)s” twice for the same rules system.")
                % {"name": entry.name}
            )
        seen.add(key)
        entries.append(entry)
    added = replaced = 0
    try:
        with transaction.atomic():
            for entry in entries:
                existing = BestiaryEntry.objects.select_for_update().filter(
                    campaign=campaign, system=entry.system, name__iexact=entry.name
                )
                changed = existing.update(stats=entry.stats, source=entry.source)
                if changed:
                    replaced += 1
                    continue
                entry.campaign = campaign
                entry.save()
                added += 1
            if campaign.bestiary.count() > MAX_ENTRIES:
                raise Refused(_full())
    except DatabaseError:  # a bound the checks missed (the database's own)
        raise Refused(_("The file holds values the database does not accept.")) from None
    return Imported(added, replaced)
