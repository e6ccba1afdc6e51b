"""Typed log payloads: the base class, how stored JSON is read back, which class reads an entry.

A log entry stores its rules result as JSON (``LogEntry.data``: keys and numbers, never
translated text). Each entry kind has a :class:`Payload` subclass declaring those keys as
typed fields; writers build one and :func:`combat.table.record` stores its :meth:`to_json`;
readers (templates, an undo, the live view) get it back with :func:`read` (or
``LogEntry.payload``) and read attributes: ``d.damage.total`` in a template and in Python alike.

- **Which class.** The kinds every system shares register here (:func:`kind`); a rules
  system's own entries (those whose data names the system: ``"system": key``, or one of its
  ``System.logs`` markers) are read by the class its ``System.payloads`` gives for the kind,
  and fall back on the shared one.
- **Entries already stored keep reading.** A key the stored data lacks takes the field's
  default; a payload may also rename or reshape older data in :meth:`Payload.upgrade`. A key
  no field declares is kept as it was (:attr:`Payload.undeclared`), so nothing stored is lost when
  an entry is read and written back; the test suite refuses such keys (:data:`STRICT`), so
  every key a writer stores is declared.
- **The envelope.** Every payload carries what the table adds to any entry: ``unseen`` (the
  names hidden from players when it was written: ``combat.unseen``), ``public`` (what a
  secret entry did to what players see), ``group`` (an area effect's or a group roll's
  marker), ``label`` (a free roll's, a pending save's), ``despite_surprise`` (a surprised
  combatant acted in the fight's first round by the referee's ruling: ``table.unsurprised``)
  and ``shown`` (the secret entry, by the referee's number, that this one shows players:
  ``table.show``).
  They are stored only when set.

Nested values are payloads too (:class:`Roll`, :class:`DamageRoll`, ...): a field typed as a
payload, a list of payloads or an optional payload is read and written as one.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from combat import registry

P = TypeVar("P", bound="Payload")

STRICT = False
"""Refuse stored keys no field declares (:class:`UnknownKeys`). The test suite turns it on,
so a writer cannot store what its payload does not say; a server keeps them (``undeclared``)."""

_OMIT = "fray_omit"


class UnknownKeys(ValueError):
    """Stored data holds keys its payload does not declare (only with :data:`STRICT`)."""


class Unreadable(ValueError):
    """Stored data is not a payload's at all (a list or a number where a mapping belongs):
    whoever reads it refuses it as it would any data it cannot read (an undo says so, the log
    draws a notice in its place)."""


def omitted(default: Any = None, *, factory: Callable[[], Any] | None = None) -> Any:
    """A field stored only when it differs from ``default`` (it was absent from older entries,
    or is absent from most: a hit's location when hit locations are off)."""
    if factory is not None:
        return field(default_factory=factory, metadata={_OMIT: True})
    return field(default=default, metadata={_OMIT: True})


@dataclass(kw_only=True)
class Payload:
    """The base of every payload: its envelope (see the module's docstring), reading from
    and writing to JSON."""

    unseen: dict[str, str] = omitted(factory=dict)
    public: list[Shown] = omitted(factory=list)
    group: dict[str, Any] | None = omitted()
    label: str = omitted("")
    despite_surprise: bool = omitted(False)
    shown: int | None = omitted()  # the referee's number of the secret entry it shows players
    undeclared: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    open: ClassVar[bool] = False  # its data may hold keys no field declares (:class:`Raw`)

    # How each field is read from JSON, by class (built on first use: the annotations name
    # classes defined after this one).
    _plans: ClassVar[dict[type, tuple[tuple[str, Callable[[Any], Any], bool, Any], ...]]] = {}

    @classmethod
    def upgrade(cls, data: dict[str, Any]) -> dict[str, Any]:
        """Older stored data as this class reads it now (a key renamed, a shape changed);
        by default, as it is."""
        return data

    @classmethod
    def from_json(cls: type[P], data: Any) -> P:
        """The payload ``data`` (stored JSON) holds; missing keys take their defaults."""
        if isinstance(data, cls):
            return data
        if isinstance(data, Payload):  # another class's: as its JSON reads
            data = data.to_json()
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise Unreadable(f"{cls.__name__}: stored as {type(data).__name__}, not a mapping")
        data = cls.upgrade(dict(data))
        values: dict[str, Any] = {}
        for name, read_value, _omit, _default in _plan(cls):
            if name in data:
                values[name] = read_value(data[name])
        undeclared = {k: v for k, v in data.items() if k not in values and k != "undeclared"}
        if undeclared and STRICT and not cls.open:
            raise UnknownKeys(f"{cls.__name__}: undeclared keys {sorted(undeclared)}")
        return cls(**values, undeclared=undeclared)

    def to_json(self) -> dict[str, Any]:
        """The JSON an entry stores: every field, but those marked :func:`omitted` only when
        they differ from their default; then the undeclared keys it was read with."""
        out: dict[str, Any] = {}
        for name, _read, omit, default in _plan(type(self)):
            value = getattr(self, name)
            if omit and value == default:
                continue
            out[name] = to_json(value)
        return out | self.undeclared

    def __getitem__(self, key: str) -> Any:
        """Django's templates try ``d[key]`` before ``d.key``: an attribute is found at once
        (a key no field declares raises, as a missing one would)."""
        try:
            return getattr(self, key)
        except AttributeError:
            raise KeyError(key) from None

    def __getattr__(self, name: str) -> Any:
        """A key no field declares, as stored (an entry of :class:`Raw`, or one a payload read
        before its class declared it)."""
        if name.startswith("__") or name == "undeclared":
            raise AttributeError(name)
        try:
            return self.undeclared[name]
        except KeyError:
            raise AttributeError(name) from None

    def get(self, key: str, default: Any = None) -> Any:
        """A field's value, or an undeclared key's (older entries), or ``default``."""
        if key in self.undeclared:
            return self.undeclared[key]
        return getattr(self, key, default)


def to_json(value: Any) -> Any:
    """``value`` as JSON stores it: a payload as its :meth:`Payload.to_json`, and so each one
    inside a list or a dict (a secret entry's ``public`` outcome, ``combat.table.record``)."""
    if isinstance(value, Payload):
        return value.to_json()
    if isinstance(value, list | tuple):
        return [to_json(item) for item in value]
    if isinstance(value, dict):
        return {key: to_json(item) for key, item in value.items()}
    return value


def _plan(cls: type[Payload]) -> tuple[tuple[str, Callable[[Any], Any], bool, Any], ...]:
    found = Payload._plans.get(cls)
    if found is not None:
        return found
    hints = typing.get_type_hints(cls)
    plan = []
    for f in dataclasses.fields(cls):
        if f.name == "undeclared":
            continue
        omit = bool(f.metadata.get(_OMIT))
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = dataclasses.MISSING
        plan.append((f.name, _reader(hints[f.name]), omit, default))
    found = Payload._plans[cls] = tuple(plan)
    return found


def _same(value: Any) -> Any:
    return value


def _reader(hint: Any) -> Callable[[Any], Any]:
    """How a stored value of the type ``hint`` is read: a payload from its mapping, a list of
    them item by item, an optional one unless None; anything else as stored."""
    origin = typing.get_origin(hint)
    if isinstance(hint, type) and issubclass(hint, Payload):
        return hint.from_json
    if origin in (types.UnionType, typing.Union):
        inner = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(inner) == 1:
            read_inner = _reader(inner[0])
            if read_inner is not _same:
                return lambda value: None if value is None else read_inner(value)
        return _same
    if origin is list:
        (item,) = typing.get_args(hint) or (Any,)
        read_item = _reader(item)
        if read_item is not _same:
            return lambda value: [read_item(v) for v in value] if isinstance(value, list) else value
    return _same


# --- which class reads an entry --------------------------------------------------------------

_KINDS: dict[str, type[Payload]] = {}


def kind(name: str) -> Callable[[type[P]], type[P]]:
    """Register the payload class of the entry kind ``name`` every system shares."""

    def register(cls: type[P]) -> type[P]:
        _KINDS[name] = cls
        return cls

    return register


def class_of(entry_kind: str, data: Mapping[str, Any]) -> type[Payload]:
    """The class that reads stored ``data`` of ``entry_kind``: its system's (when the data
    names one that declares the kind), else the shared kind's, else :class:`Raw`."""
    system = registry.entry_system(data)
    if system is not None:
        found = system.payloads.get(entry_kind)
        if found is not None:
            return found
    return _KINDS.get(entry_kind, Raw)


def read(entry_kind: str, data: Any) -> Payload:
    """The typed payload of an entry of ``entry_kind`` stored as ``data``
    (:class:`Unreadable` when it is not a mapping)."""
    if isinstance(data, Payload):
        return data
    if not isinstance(data, Mapping):
        raise Unreadable(f"an entry of kind {entry_kind!r} stored as {type(data).__name__}")
    return class_of(entry_kind, data).from_json(data)


# --- what every kind shares ------------------------------------------------------------------


@dataclass(kw_only=True)
class Shown(Payload):
    """What a secret entry did to one combatant players see (``combat.table.record``)."""

    who: str = ""
    hp: int = 0
    amount: int = 0
    killed: bool = False
    revived: bool = False


@dataclass(kw_only=True)
class Roll(Payload):
    """A d20 roll: its natural (``entered``: typed in from a die rolled at the table; None in
    entries written before dice said where they came from),
    modifiers (``[value, reason key]`` pairs), total, the number it needed, and whether it
    succeeded. What only some rolls say is stored only when they say it, and every roll line
    reads it (``combat/log/_roll_line.jinja``, ``_hit.jinja``): the die's ``sides`` (None: a d20),
    whether the natural alone decided it (``automatic``), the armour class an attack hit
    (``hit_ac``: B/X's matrix)."""

    natural: int | None = None
    entered: bool | None = None
    mods: list[list[Any]] = field(default_factory=list)
    total: int | None = None
    needed: int | None = None
    success: bool = False
    sides: int | None = omitted()
    automatic: bool = omitted(False)
    hit_ac: int | None = omitted()


@dataclass(kw_only=True)
class DamageRoll(Payload):
    """A damage roll: the dice expression, the dice (``entered``: typed in, else the
    server's; None in older entries), their sum, modifiers, and the total dealt; ``outcome``,
    stored by a system whose rules can decide the damage (Dolmenwood's "minimum", "immune")."""

    expr: str = ""
    dice: list[int] = field(default_factory=list)
    entered: bool | None = None
    rolled: int | None = None
    mods: list[list[Any]] = field(default_factory=list)
    total: int = 0
    outcome: str = omitted("")


@dataclass(kw_only=True)
class Raw(Payload):
    """An entry of a kind no class declares (a system no longer installed): its keys read as
    they were stored."""

    open: ClassVar[bool] = True
