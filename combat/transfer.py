"""An encounter as a JSON file and back: a campaign carried from session to session and
between referees.

The exporter walks the models' concrete fields (``_meta.concrete_fields``) minus an explicit
list of what belongs to this copy of Fray only (ids, links to the encounter and to seats,
creation times, the slug, the referee key, the join token, the change numbers), so a field
added to a model later travels without a change here. Seats are browser sessions and stay
behind; so do the log (a new session starts a new log), pending saves and wrestling
holds, which point into the log and into rounds that are over.

A party file (``combat.party``) is read by the same machinery: its kind of file
(:class:`FileKind`) and each combatant's record (:func:`build_combatant`).

The importer trusts nothing in the file: every key must be a field the exporter writes, every
value has its field's type and passes the model's ``full_clean`` (whose validators hold the
ranges), the JSON fields are checked for their shapes (hit-location zones by the rules engine
itself), and everything is written in one transaction, so a refused file leaves no trace.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import DatabaseError, models, transaction
from django.utils.translation import gettext_lazy as _

from combat import body_fields, monsters, registry, zones
from combat.labels import IMMUNITIES
from combat.models import DICE_FIELDS, Combatant, Condition, Encounter, Side
from combat.table import dice
from rules import rounds as round_rules
from rules.errors import RulesError

FORMAT = "fray-encounter"
VERSION = 1
MAX_BYTES = 1_000_000  # an encounter of 500 combatants with hit locations is about a third
MAX_COMBATANTS = 500
MAX_CONDITIONS = 50  # per combatant
MAX_DEPTH = 8  # the deepest a Fray export nests is 5 (combatant, zones, plan)
MAX_TURNS = MAX_COMBATANTS + 2  # an initiative order: one turn per combatant at most

# What stays behind: what only this copy of Fray means (ids, links, times, capabilities,
# change numbers, the server dice's seeds: their proofs travel in the file's ``dice``).
# Everything else a model stores is exported.
ENCOUNTER_EXCLUDED = DICE_FIELDS | frozenset(
    {
        "id",
        "slug",
        "referee_key",
        "join_token",
        "display_token",
        "seq",
        "public_seq",
        "created",
        "campaign",
        "moved_on_to",
    }
)
COMBATANT_EXCLUDED = frozenset({"id", "encounter", "seat", "created"})
CONDITION_EXCLUDED = frozenset({"id", "combatant", "created"})


class Refused(Exception):
    """The file cannot be imported; ``message`` says why, in the reader's language."""

    def __init__(self, message: Any) -> None:
        super().__init__(str(message))
        self.message = message


@dataclass(frozen=True)
class FileKind:
    """A kind of Fray file (an encounter, a party): its format name, version and top-level
    parts, and how a refusal names it, in messages written whole for each kind (a kind's
    name does not decline into another sentence in every language)."""

    format: str
    version: int
    parts: frozenset[str]
    too_large: Any
    not_json: Any
    not_this: Any
    too_deep: Any
    missing: Any  # no file sent


ENCOUNTER_FILE = FileKind(
    format=FORMAT,
    version=VERSION,
    # "dice": the proofs of the server's dice (combat.table.dice), for anyone to check the
    # file with (``manage.py verify_dice``, the dice page); an import leaves them behind with
    # the log they belong to.
    parts=frozenset({"encounter", "combatants", "dice"}),
    too_large=_("The file is too large: an encounter file is at most 1 MB."),
    not_json=_("The file is not a Fray encounter: it is not JSON."),
    not_this=_("The file is not a Fray encounter: its format is not “fray-encounter”."),
    too_deep=_("The file nests its data too deeply to be a Fray encounter."),
    missing=_("Choose an encounter file (.json) to import."),
)


def exported_fields(model: type[models.Model], excluded: Iterable[str]) -> list[models.Field]:
    return [f for f in model._meta.concrete_fields if f.name not in excluded]


# --- export ------------------------------------------------------------------------------------


def _value(field: models.Field, instance: models.Model) -> Any:
    value = field.value_from_object(instance)
    if isinstance(value, Decimal):
        return str(value)  # exact, as JSON numbers are not
    return value


def exported(instance: models.Model, excluded: Iterable[str]) -> dict[str, Any]:
    return {f.name: _value(f, instance) for f in exported_fields(type(instance), excluded)}


def export_encounter(encounter: Encounter) -> dict[str, Any]:
    """The encounter as the file holds it. Combatants are numbered from 1 (``ref``), and the
    initiative order names them by that number instead of their database ids."""
    combatants = list(encounter.combatants.prefetch_related("conditions"))
    refs = {c.pk: n for n, c in enumerate(combatants, start=1)}
    data = exported(encounter, ENCOUNTER_EXCLUDED)
    data["turn"] = _map_turn(encounter.turn, refs)
    return {
        "format": FORMAT,
        "version": VERSION,
        "encounter": data,
        "combatants": [{"ref": refs[c.pk]} | combatant_record(c) for c in combatants],
        "dice": dice.document(encounter, referee=True),
    }


def combatant_record(
    combatant: Combatant, keep: Callable[[Condition], bool] = lambda condition: True
) -> dict[str, Any]:
    """One combatant as a file holds it, with its conditions (those ``keep`` keeps)."""
    conditions = [exported(k, CONDITION_EXCLUDED) for k in combatant.conditions.all() if keep(k)]
    return exported(combatant, COMBATANT_EXCLUDED) | {"conditions": conditions}


def _map_turn(turn: Any, ids: dict[int, int]) -> Any:
    """The turn document with combatants renamed through ``ids`` (those missing dropped)."""
    if not isinstance(turn, dict) or not isinstance(turn.get("order"), list):
        return turn
    order = []
    for step in turn["order"]:
        if isinstance(step, dict) and "ids" in step:
            step = {"ids": [ids[i] for i in step["ids"] if i in ids]}
        order.append(step)
    return turn | {"order": order}


def dumps(document: dict[str, Any]) -> str:
    """A Fray file's text: UTF-8 as written (names in any script stay readable)."""
    return json.dumps(document, ensure_ascii=False, indent=1)


def export_json(encounter: Encounter) -> str:
    return dumps(export_encounter(encounter))


# --- import: the file's shape ------------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise ValueError(name)  # NaN and Infinity are not JSON


def parse(raw: bytes, kind: FileKind = ENCOUNTER_FILE) -> dict[str, Any]:
    """The file's document, or Refused: too big, not JSON, nested too deep, NUL bytes, not
    this format or version."""
    if len(raw) > MAX_BYTES:
        raise Refused(kind.too_large)
    try:
        document = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Refused(kind.not_json) from None
    _check_tree(document, kind)
    if not isinstance(document, dict) or document.get("format") != kind.format:
        raise Refused(kind.not_this)
    if document.get("version") != kind.version or isinstance(document.get("version"), bool):
        raise Refused(
            _("The file's format version is not one this Fray reads (it reads version %(v)s).")
            % {"v": kind.version}
        )
    unknown = set(document) - {"format", "version"} - kind.parts
    if unknown:
        raise Refused(_unknown(sorted(unknown)[0], _("the file")))
    return document


def _check_tree(document: Any, kind: FileKind) -> None:
    """No deeper than MAX_DEPTH, and no NUL character in any string or key."""
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise Refused(kind.too_deep)
        if isinstance(value, str):
            if "\x00" in value:
                raise Refused(_("The file holds a NUL character, which no field may contain."))
        elif isinstance(value, dict):
            stack.extend((k, depth) for k in value)
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)


def _unknown(field: str, where: Any) -> Any:
    return _("Unknown field “%(field)s” in %(where)s.") % {"field": field[:40], "where": where}


def wrong_value(field: str, where: Any, problem: Any) -> Any:
    return _("Wrong value of “%(field)s” in %(where)s: %(problem)s") % {
        "field": field,
        "where": where,
        "problem": problem,
    }


# --- import: one record --------------------------------------------------------------------


def _typed(field: models.Field, value: Any) -> bool:
    """Whether ``value`` has the JSON type the exporter writes for ``field``."""
    if value is None:
        return field.null
    if isinstance(field, models.JSONField):
        return True
    if isinstance(field, models.BooleanField):
        return isinstance(value, bool)
    if isinstance(field, models.IntegerField):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(field, models.DecimalField):
        return isinstance(value, str | int) and not isinstance(value, bool)
    if isinstance(field, models.CharField | models.TextField):
        return isinstance(value, str)
    return isinstance(value, str | int) and not isinstance(value, bool)


def build(
    model: type[models.Model],
    excluded: Iterable[str],
    data: Any,
    where: Any,
    *,
    extra: Iterable[str] = (),
    **fixed: Any,
) -> models.Model:
    """An unsaved instance of ``model`` from ``data``, checked field by field and by the
    model's ``full_clean`` (the relation fields in ``fixed`` are set by the caller)."""
    if not isinstance(data, dict):
        raise Refused(_("Not a JSON object: %(where)s.") % {"where": where})
    fields = {f.name: f for f in exported_fields(model, excluded)}
    unknown = set(data) - set(fields) - set(extra)
    if unknown:
        raise Refused(_unknown(sorted(unknown)[0], where))
    values: dict[str, Any] = {}
    for name, value in data.items():
        if name not in fields:
            continue
        field = fields[name]
        if not _typed(field, value):
            raise Refused(wrong_value(name, where, _("not a value of this field's type.")))
        if not isinstance(field, models.JSONField):
            try:
                value = field.to_python(value)
            except ValidationError as error:
                raise Refused(wrong_value(name, where, " ".join(error.messages))) from None
        values[name] = value
    instance = model(**fixed, **values)
    try:
        # The fields' validators hold the same bounds as the models' check constraints, which
        # would cost a query each here; the database still checks them on save (DatabaseError).
        instance.full_clean(exclude=list(fixed), validate_unique=False, validate_constraints=False)
    except ValidationError as error:
        name, messages = next(iter(error.message_dict.items()))
        raise Refused(wrong_value(name, where, " ".join(messages))) from None
    return instance


# --- import: the JSON fields -----------------------------------------------------------------


def _check_turn(turn: Any, refs: set[int], where: Any) -> None:
    problem = wrong_value("turn", where, _("not the round's state as Fray stores it."))
    if turn == {}:
        return
    if not isinstance(turn, dict) or set(turn) - {"surprised", "rolled", "order", "index", "step"}:
        raise Refused(problem)
    order = turn.get("order", [])
    if (
        turn.get("surprised", "") not in ("", Side.PARTY, Side.FOES, "both")
        or not isinstance(turn.get("rolled", False), bool)
        or not isinstance(order, list)
        or len(order) > MAX_TURNS
        or not _count(turn.get("index", 0), len(order))
        or not _count(turn.get("step", 0), len(round_rules.TURN_STEPS))
    ):
        raise Refused(problem)
    for step in order:
        if not isinstance(step, dict) or len(step) != 1:
            raise Refused(problem)
        sides, ids = step.get("sides"), step.get("ids")
        if sides is not None:
            ok = isinstance(sides, list) and set(sides) <= {Side.PARTY, Side.FOES}
        else:
            ok = isinstance(ids, list) and all(isinstance(i, int) and i in refs for i in ids)
        if not ok:
            raise Refused(problem)


def _count(value: Any, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= high


MORALE_KEYS = frozenset({"checks", "passed", "first_death", "half"})


def _check_morale(morale: Any, where: Any) -> None:
    problem = wrong_value("morale", where, _("not the sides' morale checks as Fray stores them."))
    if not isinstance(morale, dict) or set(morale) - {Side.PARTY, Side.FOES}:
        raise Refused(problem)
    for record in morale.values():
        if not isinstance(record, dict) or set(record) - MORALE_KEYS:
            raise Refused(problem)
        for key in ("checks", "passed"):
            if not _count(record.get(key, 0), round_rules.MAX_SIDE_SIZE):
                raise Refused(problem)
        for key in ("first_death", "half"):
            if not isinstance(record.get(key, False), bool):
                raise Refused(problem)


class _BodyCheck:
    """What ``body_fields.clean_body`` needs of a form: somewhere to put its errors."""

    def __init__(self) -> None:
        self.errors: dict[str, Any] = {}

    def add_error(self, field: str, message: Any) -> None:
        self.errors.setdefault(field, message)


def _check_body(combatant: Combatant, where: Any) -> None:
    """The body's parts as the combatant form allows them, so a body plan can be drawn."""
    check = _BodyCheck()
    values = {name: getattr(combatant, name) for name in body_fields.BODY_FIELDS}
    body_fields.clean_body(check, values)
    if check.errors:
        name, message = next(iter(check.errors.items()))
        raise Refused(wrong_value(name, where, message))
    try:
        zones.plan_for(combatant)
    except RulesError:
        problem = _("body zones the hit-location rules do not accept.")
        raise Refused(wrong_value("body", where, problem)) from None


def _check_zones(combatant: Combatant, where: Any) -> None:
    """The hit-location state as the engine reads it back, and nothing else beside."""
    _check_body(combatant, where)
    if combatant.zones == {}:
        return
    problem = wrong_value("zones", where, _("body zones the hit-location rules do not accept."))
    try:
        state = zones.from_dict(combatant.zones)
        same = zones.to_dict(state, combatant.zones["plan"]) == combatant.zones
    # A hostile document can break the reader in any of these ways; each is a refusal.
    except (LookupError, TypeError, ValueError, AttributeError, ArithmeticError, RulesError):
        raise Refused(problem) from None
    if not same:
        raise Refused(problem)


def _check_skills(combatant: Combatant, where: Any) -> None:
    sheet = combatant.skills
    problem = wrong_value("skills", where, _("not a skill sheet as Fray stores it."))
    if not isinstance(sheet, list) or len(sheet) > 100:
        raise Refused(problem)
    for item in sheet:
        if not isinstance(item, dict) or set(item) != {"key", "name", "targets"}:
            raise Refused(problem)
        targets = item["targets"]
        if (
            not isinstance(item["key"], str)
            or not isinstance(item["name"], str)
            or len(item["name"]) > 40
            or not isinstance(targets, list)
            or not 1 <= len(targets) <= 2
            or not all(_count(t, 6) and t >= 1 for t in targets)
        ):
            raise Refused(problem)


def _check_attacks(combatant: Combatant, where: Any) -> None:
    """A monster's attacks as the combatant form stores them: what its parser gives back
    from the attacks written out."""
    attacks = combatant.attacks
    problem = wrong_value("attacks", where, _("not a monster's attacks as Fray stores them."))
    shaped = isinstance(attacks, list) and all(
        isinstance(a, dict)
        and set(a) == {"name", "count", "damage"}
        and isinstance(a["name"], str)  # the writer reads them as text and a number
        and isinstance(a["damage"], str)
        and _count(a["count"], monsters.COUNT_LIMIT)
        for a in attacks
    )
    if not shaped:
        raise Refused(problem)
    try:
        same = monsters.parse_attacks(monsters.format_attacks(attacks)) == attacks
    except (ValidationError, LookupError, TypeError, ValueError, RulesError):
        raise Refused(problem) from None
    if not same:
        raise Refused(problem)


def _check_immunities(combatant: Combatant, where: Any) -> None:
    found = combatant.immunities
    known = isinstance(found, list) and all(isinstance(k, str) and k in IMMUNITIES for k in found)
    if not known:
        raise Refused(wrong_value("immunities", where, _("not a list of known immunities.")))


def check_combatant(combatant: Combatant, where: Any) -> None:
    """The JSON fields of a built combatant (``build``) as Fray's rules read them back: its
    hit-location zones and body, skills, immunities and attacks (also a bestiary entry's)."""
    _check_zones(combatant, where)
    _check_skills(combatant, where)
    _check_immunities(combatant, where)
    _check_attacks(combatant, where)


# --- import: combatants -----------------------------------------------------------------------


def combatant_list(document: dict[str, Any]) -> list[Any]:
    """The file's combatants: a list of at most MAX_COMBATANTS, or Refused."""
    listed = document.get("combatants", [])
    if not isinstance(listed, list):
        raise Refused(_("The combatants are not a JSON list."))
    if len(listed) > MAX_COMBATANTS:
        raise Refused(
            _("The file holds more than %(limit)s combatants.") % {"limit": MAX_COMBATANTS}
        )
    return listed


def build_combatant(
    item: Any, where: Any, encounter: Encounter, *, extra: Iterable[str] = ()
) -> tuple[Combatant, list[Condition]]:
    """An unsaved combatant of ``encounter`` and its conditions from one record of a file,
    every field and JSON shape checked (``extra``: other keys the record may hold)."""
    combatant = build(
        Combatant,
        COMBATANT_EXCLUDED,
        item,
        where,
        extra=(*extra, "conditions"),
        encounter=encounter,
    )
    check_combatant(combatant, where)
    conditions = item.get("conditions", [])
    if not isinstance(conditions, list) or len(conditions) > MAX_CONDITIONS:
        raise Refused(wrong_value("conditions", where, _("at most 50 conditions, as a list.")))
    return combatant, [
        build(
            Condition,
            CONDITION_EXCLUDED,
            c,
            _("a condition of %(where)s") % {"where": where},
            combatant=combatant,
        )
        for c in conditions
    ]


def save_combatant(encounter: Encounter, combatant: Combatant, conditions: list[Condition]) -> None:
    """Store a built combatant in ``encounter`` (saved meanwhile), with its conditions."""
    combatant.encounter = encounter
    combatant.save()
    for condition in conditions:
        condition.combatant = combatant
        condition.save()


# --- import ----------------------------------------------------------------------------------


def import_encounter(raw: bytes) -> Encounter:
    """A new encounter from the file's bytes (new slug, referee key, join token, change
    numbers from 0), or Refused with nothing written."""
    document = parse(raw)
    where_encounter = _("the encounter")
    data = document.get("encounter")
    if isinstance(data, dict) and "system" in data and data["system"] not in registry.keys():
        raise Refused(
            _("Unknown rules system “%(system)s”.") % {"system": str(data["system"])[:40]}
        )
    encounter = build(Encounter, ENCOUNTER_EXCLUDED, data, where_encounter)
    built: list[tuple[Any, Combatant, list[Condition]]] = []
    for number, item in enumerate(combatant_list(document), start=1):
        where = _("combatant %(number)s") % {"number": number}
        combatant, conditions = build_combatant(item, where, encounter, extra=("ref",))
        built.append((item.get("ref", number), combatant, conditions))
    refs = [ref for ref, _c, _k in built]
    if not all(_count(r, 10**9) for r in refs) or len(set(refs)) != len(refs):
        raise Refused(_("The combatants' numbers (“ref”) are not distinct whole numbers."))
    _check_turn(encounter.turn, set(refs), where_encounter)
    _check_morale(encounter.morale, where_encounter)
    try:
        with transaction.atomic():
            encounter.save()
            ids = {}
            for ref, combatant, conditions in built:
                save_combatant(encounter, combatant, conditions)
                ids[ref] = combatant.pk
            encounter.turn = _map_turn(encounter.turn, ids)
            encounter.save(update_fields=["turn"])
    except DatabaseError:  # a bound the validators missed (the database's own checks)
        raise Refused(_("The file holds values the database does not accept.")) from None
    return encounter
