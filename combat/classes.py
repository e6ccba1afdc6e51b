"""Characters by class and level: what a class's level progression gives THAC0 and the five
saving throws in each rules system, and the ability score modifiers in each system's terms.

Each rules system lends its class tables, its abilities' uses and a normal human's saves
through the registry (``combat.registry``); a system without them (its classes are not
the seven classic ones, or not known to the project) fills nothing.

Whatever is filled stays editable. A changed class or level refills only what still holds the
previous class and level's values (or nothing): a value the referee typed over is kept
(:func:`refill`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from combat import registry
from rules import ose_classes
from rules.bounds import BOUNDS
from rules.core import ability_modifier

SAVE_FIELDS = ("save_death", "save_wands", "save_paralysis", "save_breath", "save_spells")
FILLED_FIELDS = ("thac0", *SAVE_FIELDS)
# The combatant form's fields for characters (WIS is among the form's optional fields, shown by
# every system).
CHARACTER_FIELDS = ("char_class", "level", "int_score", "con_score", "cha_score", "notes")
LEVEL_MAX = BOUNDS["level"].high  # the longest class table's (36)


class CharacterClass(models.TextChoices):
    CLERIC = "cleric", pgettext_lazy("class", "Cleric")
    DWARF = "dwarf", pgettext_lazy("class", "Dwarf")
    ELF = "elf", pgettext_lazy("class", "Elf")
    FIGHTER = "fighter", pgettext_lazy("class", "Fighter")
    HALFLING = "halfling", pgettext_lazy("class", "Halfling")
    MAGIC_USER = "magic-user", pgettext_lazy("class", "Magic-User")
    THIEF = "thief", pgettext_lazy("class", "Thief")


def _tables(system: str) -> Any:
    """The class tables of ``system`` (the registry's), None where the project lacks them."""
    return registry.get(system).classes if system in registry.keys() else None


def max_level(system: str, klass: str) -> int | None:
    """The highest level of ``klass`` in ``system``; None where the system has no such class."""
    tables = _tables(system)
    return tables.max_level(klass) if tables is not None else None


def has_class_tables(system: str) -> bool:
    """Whether the project knows ``system``'s class tables."""
    return any(max_level(system, klass) for klass in CharacterClass.values)


def filled(system: str, klass: str, level: int) -> dict[str, int]:
    """What ``klass`` at ``level`` gives, by combatant field, as far as the project knows it
    for ``system``: THAC0 and the five saves where it knows the system's tables, nothing
    elsewhere (or for a class or level the system does not have)."""
    top = max_level(system, klass)
    if top is None or not isinstance(level, int) or not 1 <= level <= top:
        return {}
    return _tables(system).filled(klass, level)


def _save_fields(saves: Mapping[str, int]) -> dict[str, int]:
    return {f"save_{key}": value for key, value in saves.items()}


def refill(
    system: str,
    previous: tuple[str, int | None] | None,
    new: tuple[str, int],
    values: Mapping[str, int | None],
) -> dict[str, int | None]:
    """The values after choosing class and level ``new``: a field that is empty, or that still
    holds what the ``previous`` class and level gave, takes the new class and level's value; a
    field the referee typed over keeps it. Fields the system does not fill stay as given."""
    before = filled(system, previous[0], previous[1]) if previous and previous[1] else {}
    return _refilled(before, filled(system, *new), values, FILLED_FIELDS)


def refill_saves(
    before: Mapping[str, int], after: Mapping[str, int], values: Mapping[str, int | None]
) -> dict[str, int | None]:
    """The save fields (``save_death`` …) when the saves ``after`` (keys ``death`` …) take the
    place of ``before`` (a monster's Hit Dice row, or what it saved as): :func:`refill`'s rule."""
    return _refilled(_save_fields(before), _save_fields(after), values, SAVE_FIELDS)


def _refilled(
    before: Mapping[str, int],
    after: Mapping[str, int],
    values: Mapping[str, int | None],
    names: tuple[str, ...],
) -> dict[str, int | None]:
    result: dict[str, int | None] = {}
    for name in names:
        value = values.get(name)
        if name in after and (value is None or before.get(name) == value):
            result[name] = after[name]
        else:
            result[name] = value
    return result


def parse_filled_from(text: Any) -> tuple[str, int] | None:
    """``"fighter:3"`` (what a form's values were filled from) as a class and level."""
    klass, _sep, level = str(text or "").partition(":")
    digits = level.isascii() and level.isdigit()  # not "²", which int() refuses
    if klass not in CharacterClass.values or not digits or len(level) > 2:
        return None
    return klass, int(level)


def filled_from(klass: str, level: int | None) -> str:
    return f"{klass}:{level}" if klass and level else ""


# --- ability scores ---------------------------------------------------------------------------

ABILITY_FIELDS = {
    "str": "str_score",
    "int": "int_score",
    "wis": "wis_score",
    "dex": "dex_score",
    "con": "con_score",
    "cha": "cha_score",
}

MEANINGS = {
    "melee": pgettext_lazy("ability modifier", "melee attacks and damage"),
    "missile": pgettext_lazy("ability modifier", "missile attacks"),
    "ac_missile": pgettext_lazy("ability modifier", "armour class and missile attacks"),
    "magic_saves": pgettext_lazy("ability modifier", "saves against magic"),
    "hit_points": pgettext_lazy("ability modifier", "hit points per Hit Die"),
    "reactions": pgettext_lazy("ability modifier", "reactions of NPCs"),
    "checks": pgettext_lazy("ability modifier", "ability checks"),
}


def _uses(system: str) -> Mapping[str, str]:
    """What each score's modifier applies to in ``system`` (the default system's where it
    says nothing); an ability missing shows its score without a modifier."""
    return registry.get(system).ability_uses or registry.default().ability_uses


def ability_modifier_for(system: str, ability: str, score: int | None) -> int | None:
    """The modifier ``score`` gives ``ability`` in ``system``; None when it gives none there
    (or there is no score)."""
    use = _uses(system).get(ability)
    if score is None or use is None:
        return None
    if use == "reactions":
        return ose_classes.reaction_modifier(score)
    return ability_modifier(score)


def ability_meaning(system: str, ability: str) -> Any:
    use = _uses(system).get(ability)
    return MEANINGS[use] if use else None


def magic_save_modifier(system: str, wis_score: int | None) -> int:
    """What WIS adds to a save against magic (OSE's magic saves column; 0 without a score)."""
    return ability_modifier_for(system, "wis", wis_score) or 0


# --- monsters that save as a class ----------------------------------------------------------

NORMAL_HUMAN = "normal-human"  # what "saves as Normal human" is stored as
NORMAL_HUMAN_LABEL = pgettext_lazy("class", "Normal human")
SAVES_AS_TYPED_LIMIT = 40  # "as a 3rd level Magic-User" and the like
NOT_SAVES_AS = _(
    "A class and level as a stat block writes them (Fighter 3, F3, Dwarf 2), or Normal human."
)
# How stat blocks abbreviate what a monster saves as ("Save As: F3", "MU5", "D2", "NH"), and the
# glossary's abbreviations of "normal human"; the classes' own names come from their labels in
# every language the app speaks (:func:`_names`).
_ABBREVIATIONS = {
    "c": CharacterClass.CLERIC,
    "cl": CharacterClass.CLERIC,
    "d": CharacterClass.DWARF,
    "dw": CharacterClass.DWARF,
    "e": CharacterClass.ELF,
    "f": CharacterClass.FIGHTER,
    "ftr": CharacterClass.FIGHTER,
    "h": CharacterClass.HALFLING,
    "m": CharacterClass.MAGIC_USER,
    "mu": CharacterClass.MAGIC_USER,
    "t": CharacterClass.THIEF,
    "nh": NORMAL_HUMAN,
    "nm": NORMAL_HUMAN,
    "normalman": NORMAL_HUMAN,
    "human": NORMAL_HUMAN,
    "bč": NORMAL_HUMAN,
    "оч": NORMAL_HUMAN,
    "зл": NORMAL_HUMAN,
}
# Words around the class and level that say nothing ("as Fighter 3", "3rd level", "3. úroveň").
_FILLER = frozenset(
    {"as", "save", "saves", "level", "lvl", "lv", "jako", "úroveň", "úrovně", "úrovni", "úr"}
    | {"как", "уровень", "уровня", "ур", "як", "рівень", "рівня", "рів"}
)
_ORDINAL = re.compile(r"(?<=[0-9])(?:st|nd|rd|th|\.|-?го|-?й|-?ий|-?ого)?(?![^\W\d_])")


def _key(text: str) -> str:
    """Letters only, lower case: "Magic-User" and "M-U" as "magicuser" and "mu"."""
    return "".join(re.findall(r"[^\W\d_]+", text.lower()))


@cache
def _names() -> dict[str, str]:
    """Every class's name (and "normal human") in every language the app speaks, by key."""
    found = {key: str(value) for key, value in _ABBREVIATIONS.items()}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            found |= {_key(str(c.label)): c.value for c in CharacterClass}
            found[_key(str(NORMAL_HUMAN_LABEL))] = NORMAL_HUMAN
            found[_key(str(translation.gettext("Normal human")))] = NORMAL_HUMAN
    return found


class SavesAsError(ValueError):
    """Text that is not what a monster saves as; ``message`` says why, in the user's language."""

    def __init__(self, message: Any) -> None:
        super().__init__(str(message))
        self.message = message


def parse_saves_as(text: str) -> tuple[str, int | None]:
    """What a stat block says a monster saves as ("F3", "Fighter 3", "as Dwarf 2", "MU 5",
    "3rd level thief", "Bojovník 3", "воин 3", "Normal human", "NH") as a class and level, or
    :data:`NORMAL_HUMAN` and None. Raises :class:`SavesAsError` for anything else. The level is
    not checked against a system's tables here (see :func:`saves_as_saves`)."""
    text = str(text or "").strip().lower()
    if len(text) > SAVES_AS_TYPED_LIMIT:  # before any work: no stat block writes more
        raise SavesAsError(NOT_SAVES_AS)
    numbers = re.findall(r"[0-9]+", text)
    words = re.findall(r"[^\W\d_]+", _ORDINAL.sub(" ", text))
    name = _names().get("".join(w for w in words if w not in _FILLER))
    if len(numbers) > 1 or name is None:
        raise SavesAsError(NOT_SAVES_AS)
    level = int(numbers[0]) if numbers else None
    if name == NORMAL_HUMAN:
        if level:
            raise SavesAsError(_("A normal human has no level."))
        return NORMAL_HUMAN, None
    if level is None:
        raise SavesAsError(_("Give the level too, as in Fighter 3."))
    return name, level


def saves_as_key(klass: str, level: int | None) -> str:
    """How what a monster saves as is stored: "fighter:3", or "normal-human"."""
    return NORMAL_HUMAN if klass == NORMAL_HUMAN else f"{klass}:{level}"


def split_saves_as(key: Any) -> tuple[str, int | None] | None:
    """A stored key as a class and level (or :data:`NORMAL_HUMAN` and None); None if it is not
    one."""
    if key == NORMAL_HUMAN:
        return NORMAL_HUMAN, None
    klass, sep, level = str(key or "").partition(":")
    if klass not in CharacterClass.values or not (sep and level.isascii() and level.isdigit()):
        return None
    return klass, int(level)


def format_saves_as(key: Any) -> str:
    """A stored key as the user reads it, in their language ("Fighter 3"); anything else as
    it is (a value being typed)."""
    found = split_saves_as(key)
    if found is None:
        return "" if key is None else str(key)
    klass, level = found
    if klass == NORMAL_HUMAN:
        return str(NORMAL_HUMAN_LABEL)
    return f"{CharacterClass(klass).label} {level}"


def normal_human_saves(system: str) -> Mapping[str, int] | None:
    """A normal human's five saves in ``system``; None where it has no class tables."""
    return registry.get(system).normal_human_saves if system in registry.keys() else None


def saves_as_top(system: str, klass: str) -> int | None:
    """The highest level ``klass`` saves as in ``system`` (0 for a normal human, who has no
    level); None where the system has no class tables."""
    if klass == NORMAL_HUMAN:
        return 0 if normal_human_saves(system) is not None else None
    return max_level(system, klass)


def saves_as_saves(system: str, key: str) -> dict[str, int]:
    """The five saves (keys ``death`` … ``spells``) of what ``key`` saves as in ``system``:
    that class and level's row, or the normal human's; empty where the system's tables lack
    it."""
    found = split_saves_as(key)
    if found is None:
        return {}
    klass, level = found
    if klass == NORMAL_HUMAN:
        return dict(normal_human_saves(system) or {})
    return {
        name.removeprefix("save_"): value
        for name, value in filled(system, klass, level).items()
        if name != "thac0"
    }


def validate_saves_as(value: str) -> None:
    """The model's check of a stored key (an imported encounter file is checked with it): a
    class at a level some system's table has, or a normal human."""
    found = split_saves_as(value)
    if found is not None:
        klass, level = found
        tops = [saves_as_top(s.key, klass) or 0 for s in registry.systems() if s.classes]
        if klass == NORMAL_HUMAN or 1 <= (level or 0) <= max(tops):
            return
    raise ValidationError(_("That is not a class and level a monster can save as."))
