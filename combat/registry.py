"""The one registry of the rules systems a table can play, and what each offers at the table.

Each system's package describes itself with a :class:`System` and registers it when its app is
ready (``combat.systems.PACKAGES`` lists the packages). Generic code — the URLconf, the views,
the live renderer, the log, the round, the hit locations, the campaign — asks this module what
differs and never names a system:

- :func:`get` / :func:`of` — the system an encounter plays (an unknown key falls back to the
  default, the first registered with ``default=True``: OSE, whose entries carry no system);
- :func:`panel` — a panel by its key, with the system that offers it;
- :func:`drawing_entry` / :func:`entry_system` — which system draws (and types) a stored log
  entry, by what its data says;
- :func:`urlpatterns` — every panel's route and every odds route, for the URLconf.

A :class:`Panel` is one roll or action: its form (an ``ActionForm``), the action its cleaned data
is handed to (``act(viewer, **cleaned_data)``), the route under the encounter and the URL name
its form posts to, its heading, who may open it, and the view and template that serve and draw
it (by default the generic roll view and ``combat/_roll_panel.html``).

This module imports nothing of the table's, so anything may ask it, the models and the
toolkit too (it sits below them in the layers); a system registers itself from its
``apps.py``, which is what keeps every system package below the views that ask.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext_lazy as _

ROLL = _("Roll")


def anyone(viewer: Any) -> bool:
    return True


def referee(viewer: Any) -> bool:
    return bool(viewer.is_referee)


@dataclass(frozen=True)
class Panel:
    """One roll or action a system's table offers, drawn in the page's action panel.

    ``may_open(viewer)`` decides who may open it (a refusal is a 403). ``odds`` says whether
    its form shows the odds before the roll, from ``odds_route`` (a route ending in
    ``<str:kind>/``, shared by the panels that name the same ``odds_name``), worked out by
    ``odds_of(form)`` (by default ``combat.odds.for_form``) and drawn by ``odds_template``.
    ``button`` is what its submit button says and ``css`` the form's extra classes.
    ``guard(request, viewer)`` may refuse a post outright (403) beyond the actor check every
    panel makes. ``view`` and ``odds_view``, when given, name views of the views layer
    (dotted paths, imported when first asked) that replace the generic ones:
    ``view(request, slug, panel)``, ``odds_view(request, slug, panel)``."""

    key: str
    form: type
    act: Callable[..., Any]
    route: str
    heading: Any
    url_name: str = ""
    may_open: Callable[[Any], bool] = anyone
    odds: bool = True
    odds_route: str = "odds/"
    odds_name: str = "odds"
    template: str = "combat/_roll_panel.html"
    odds_template: str = "combat/_odds.html"
    button: Any = ROLL
    css: str = ""
    odds_of: Callable[[Any], Any] | None = None
    guard: Callable[[Any, Any], None] | None = None
    view: str = ""
    odds_view: str = ""

    @property
    def name(self) -> str:
        """The URL name its form posts to (``{% url panel.name slug %}``)."""
        return self.url_name or self.key


@dataclass(frozen=True)
class System:
    """A rules system as the table plays it.

    ``attack_panel`` is the key (and URL name) of the panel a monster's attack buttons open.
    Templates: ``buttons`` draws a living combatant's roll buttons in its row (inside
    ``combat/_combatant_rest.html``, with ``combatant``, ``pk``, ``action_urls`` and
    ``viewer`` in context); ``row``, when given, draws what the system adds to every row (a
    ship's hull, wrestling holds); ``tools`` what it adds to the referee's tools; ``log``
    draws an entry this system wrote (``entry``'s data says ``"system": key``), and
    ``logs`` draws entries its data marks otherwise (``{data key: template}``); ``payloads``
    types its own entries' data (``{entry kind: combat.payloads.Payload subclass}``); ``reasons``
    names the modifiers only its rolls give (``{reason key: label}``).

    Rules hooks, each optional: ``monster_thac0(hit_dice)``; ``zero_floor`` — hit points stop at
    0 rather than going on below it; ``ascending_ac`` — armour class counts upwards and
    characters attack with a bonus (``rules.scales``: a change of system to or from such a
    system converts the combatants' values); ``adapt_combatant_form(form)`` and
    ``clean_combatant(form, data)`` — its fields on the combatant form, and what they fill in;
    ``settings`` — the encounter's settings only it uses (the form shows them to its tables);
    ``holds(encounter)`` — what its rows show held (``{combatant id: [...]}``, read once per
    change, as ``combatant.holds``); ``undo(viewer, entry)`` — puts back what its own entries
    changed beyond hit points.
    """

    key: str
    label: Any
    panels: tuple[Panel, ...] = ()
    attack_panel: str = "attack"
    buttons: str = ""
    row: str = ""
    tools: str = ""
    log: str = ""
    logs: Mapping[str, str] = field(default_factory=dict)
    payloads: Mapping[str, type] = field(default_factory=dict)
    reasons: Mapping[str, Any] = field(default_factory=dict)
    default: bool = False
    zero_floor: bool = False
    ascending_ac: bool = False
    monster_thac0: Callable[[str], int] | None = None
    adapt_combatant_form: Callable[[Any], None] | None = None
    clean_combatant: Callable[[Any, dict[str, Any]], None] | None = None
    settings: tuple[str, ...] = ()
    holds: Callable[[Any], dict[int, list[Any]]] | None = None
    classes: Any = None
    ability_uses: Mapping[str, str] = field(default_factory=dict)
    normal_human_saves: Mapping[str, int] | None = None
    bestiary: str = "bx.json"
    bestiary_note: Any = ""
    from_bx: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    undo: Callable[[Any, Any], None] | None = None

    def panel(self, key: str) -> Panel | None:
        return next((p for p in self.panels if p.key == key), None)


_SYSTEMS: dict[str, System] = {}


def register(system: System) -> System:
    """Adds ``system`` (or replaces the one of the same key). Its panels' keys must be new:
    a key names one panel whatever the table plays."""
    for other in _SYSTEMS.values():
        if other.key == system.key:
            continue
        taken = {p.key for p in other.panels} & {p.key for p in system.panels}
        if taken:
            raise ValueError(f"{system.key}: panels {sorted(taken)} belong to {other.key}")
    _SYSTEMS[system.key] = system
    return system


def unregister(key: str) -> None:
    _SYSTEMS.pop(key, None)


def systems() -> Iterator[System]:
    return iter(tuple(_SYSTEMS.values()))


def keys() -> tuple[str, ...]:
    return tuple(_SYSTEMS)


def default() -> System:
    for system in _SYSTEMS.values():
        if system.default:
            return system
    raise LookupError("no default rules system is registered")


def default_key() -> str:
    """The default system's key: a new encounter's, until the referee picks another."""
    return default().key


def get(key: str | None) -> System:
    """The system of that key; the default for one no longer (or never) registered."""
    found = _SYSTEMS.get(key or "")
    return found if found is not None else default()


def of(encounter: Any) -> System:
    """The system ``encounter`` plays."""
    return get(encounter.system)


def holds_of(combatant: Any) -> list[Any]:
    """What ``combatant``'s table's system shows it held in, read on its own (one query)."""
    holds = of(combatant.encounter).holds
    return holds(combatant.encounter).get(combatant.pk, []) if holds is not None else []


def panel(key: str) -> tuple[System, Panel] | None:
    """The panel of that key, and the system that offers it."""
    for system in _SYSTEMS.values():
        found = system.panel(key)
        if found is not None:
            return system, found
    return None


def panel_of_form(form: type) -> str | None:
    """The key of the registered panel whose form is ``form`` (None: none is)."""
    for system in _SYSTEMS.values():
        for found in system.panels:
            if found.form is form:
                return found.key
    return None


def entry_system(data: Mapping[str, Any]) -> System | None:
    """The system whose own entry ``data`` is (it names it: ``"system": key``, or carries
    one of its ``logs`` markers); None for an entry of the kinds every system shares."""
    for system in _SYSTEMS.values():
        for marker in system.logs:
            if data.get(marker):
                return system
    return _SYSTEMS.get(data.get("system") or "")


def drawing_entry(data: Mapping[str, Any]) -> str:
    """The template that draws a stored entry of ``data``, or "" for the kinds every
    system shares (damage, healing, rest, free rolls, undo, the round's course)."""
    for system in _SYSTEMS.values():
        for marker, template in system.logs.items():
            if data.get(marker):
                return template
    system = _SYSTEMS.get(data.get("system") or "")
    return system.log if system is not None else ""


def undo(viewer: Any, entry: Any) -> None:
    """Put back what ``entry`` changed beyond hit points by its system's own rules
    (``System.undo``), inside the undo's transaction. The toolkit's undo calls this
    (``combat.table.undoing``, connected by ``combat.apps``) and never names a system."""
    put_back = of(viewer.encounter).undo
    if put_back is not None:
        put_back(viewer, entry)


def system_settings() -> set[str]:
    """Every encounter setting some registered system alone uses."""
    return {name for system in _SYSTEMS.values() for name in system.settings}


def choices() -> list[tuple[str, Any]]:
    """The systems a table may choose, as a form's choices."""
    return [(s.key, s.label) for s in _SYSTEMS.values()]
