"""What players may read of a log entry: the one place that decides it.

A log entry can name combatants besides its actor and target: the round's initiative rolls,
who acts, whose conditions ran out, who fled, a wrestler's helpers, whom an undo brought back.
Every entry is written through ``combat.table.record``, which is told the combatants its
data names and keeps, in ``data["unseen"]``, those of them hidden from players at that moment
(name and side). When players or the table display draw the entry, ``for_players`` gives the
data they may read:

- an item of a list that stands for one of them (its name, or a list or mapping that starts
  with or carries its name) is left out: players do not learn its initiative, its condition
  or that it fled;
- a name standing alone (``who``, ``target``, ...) is worded without it: "a hidden foe", or
  "someone hidden" for one of the party;
- a note that goes with one of them (a condition's note, the referee's) goes with it.

Entries whose own actor or target is hidden are secret as a whole (``table.kept_secret``):
this is for the names an entry mentions on the side. What was hidden when the entry was written
stays hidden in it, whatever the referee reveals later.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from combat.models import Combatant, Side

UNSEEN = "unseen"

# Keys whose value is one combatant's name, and keys whose value goes with that name.
NAME_KEYS = frozenset({"who", "name", "target", "attacker", "defender", "actor", "ship"})
WITH_NAME_KEYS = frozenset({"note", "label"})

A_HIDDEN_FOE = gettext_lazy("a hidden foe")
SOMEONE_HIDDEN = gettext_lazy("someone hidden")


def unseen(combatants: Iterable[Combatant]) -> dict[str, str]:
    """The names (and sides) of ``combatants`` hidden from players now."""
    return {c.name: c.side for c in combatants if c.hidden}


def stamped(data: dict[str, Any], combatants: Iterable[Combatant]) -> dict[str, Any]:
    """``data`` knowing which of the combatants it names players may not read."""
    hidden = unseen(combatants)
    if not hidden:
        return data
    return data | {UNSEEN: dict(data.get(UNSEEN) or {}) | hidden}


def for_players(data: Any) -> Any:
    """``data`` as players and the table display may read it (itself when nothing in it was
    hidden when it was written)."""
    if not isinstance(data, Mapping) or not data.get(UNSEEN):
        return data
    hidden = data[UNSEEN]
    if not isinstance(hidden, Mapping):
        return data
    return _mapping({k: v for k, v in data.items() if k != UNSEEN}, hidden)


def _stands_for(item: Any, hidden: Mapping[str, str]) -> bool:
    """Whether a list's item is about one hidden combatant."""
    if isinstance(item, str):
        return item in hidden
    if isinstance(item, list | tuple) and item:
        return isinstance(item[0], str) and item[0] in hidden
    if isinstance(item, Mapping):
        return any(
            isinstance(item.get(key), str) and item[key] in hidden for key in ("who", "name")
        ) and not item.get("hidden")
    return False


def _worded(name: str, hidden: Mapping[str, str]) -> Promise:
    return SOMEONE_HIDDEN if hidden.get(name) == Side.PARTY else A_HIDDEN_FOE


def _mapping(data: Mapping[str, Any], hidden: Mapping[str, str]) -> dict[str, Any]:
    named_hidden = any(
        key in NAME_KEYS and isinstance(value, str) and value in hidden
        for key, value in data.items()
    )
    out = type(data)() if isinstance(data, dict) else {}
    for key, value in data.items():
        if key in NAME_KEYS and isinstance(value, str) and value in hidden:
            out[key] = _worded(value, hidden)
        elif named_hidden and key in WITH_NAME_KEYS:
            continue
        else:
            out[key] = _value(value, hidden)
    return out


def _value(value: Any, hidden: Mapping[str, str]) -> Any:
    if isinstance(value, Mapping):
        return _mapping(value, hidden)
    if isinstance(value, list | tuple):
        return type(value)(_value(item, hidden) for item in value if not _stands_for(item, hidden))
    return value
