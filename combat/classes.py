"""Characters by class and level: what a class's level progression gives THAC0 and the five
saving throws in each rules system, and the ability score modifiers in each system's terms.

Old-School Essentials (Classic Fantasy): the level progression table of each of the seven
classic classes, from the OSE System Reference Document
(oldschoolessentials.necroticgnome.com/srd, as transcribed at buzzardb.me/OSE/classes/*), and
cross-checked band by band against a second transcription of the SRD, the class data of the
osr-character-builder Foundry module (github.com/RabidOwlbear/osr-character-builder,
``scripts/data/srd-data-en.mjs``): every band of every class agrees. The tests compare each
class and level against a copy kept in ``tests/combat/data/ose_classes.json``.

BECMI / Rules Cyclopedia: the hit table's column by class (``rules.becmi.thac0``; demi-humans
take the demi-human column by level, which below attack rank A is the Fighter's). The Rules
Cyclopedia's saving throws by class are not in the project's references, so BECMI saves are left
for the referee to type. Dolmenwood's classes are not the seven classic ones and their tables
are not known to the project: nothing is filled there.

Whatever is filled stays editable. A changed class or level refills only what still holds the
previous class and level's values (or nothing): a value the referee typed over is kept
(:func:`refill`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import models
from django.utils.translation import pgettext_lazy

from rules import becmi
from rules.core import ability_modifier

SAVE_FIELDS = ("save_death", "save_wands", "save_paralysis", "save_breath", "save_spells")
FILLED_FIELDS = ("thac0", *SAVE_FIELDS)
# The combatant form's fields for characters (WIS is the Dolmenwood fields', shown in every system).
CHARACTER_FIELDS = ("char_class", "level", "int_score", "con_score", "cha_score", "notes")
LEVEL_MAX = 36  # BECMI's human classes; OSE's stop at 14


class CharacterClass(models.TextChoices):
    CLERIC = "cleric", pgettext_lazy("class", "Cleric")
    DWARF = "dwarf", pgettext_lazy("class", "Dwarf")
    ELF = "elf", pgettext_lazy("class", "Elf")
    FIGHTER = "fighter", pgettext_lazy("class", "Fighter")
    HALFLING = "halfling", pgettext_lazy("class", "Halfling")
    MAGIC_USER = "magic-user", pgettext_lazy("class", "Magic-User")
    THIEF = "thief", pgettext_lazy("class", "Thief")


@dataclass(frozen=True)
class Band:
    """Levels from ``first`` up to the next band's first: one THAC0 and five saves (death,
    wands, paralysis, breath, spells)."""

    first: int
    thac0: int
    saves: tuple[int, int, int, int, int]


@dataclass(frozen=True)
class ClassTable:
    max_level: int
    bands: tuple[Band, ...]

    def band(self, level: int) -> Band:
        if not 1 <= level <= self.max_level:
            raise ValueError(level)
        return [b for b in self.bands if b.first <= level][-1]


OSE_CLASSES: dict[str, ClassTable] = {
    CharacterClass.CLERIC: ClassTable(
        14,
        (
            Band(1, 19, (11, 12, 14, 16, 15)),
            Band(5, 17, (9, 10, 12, 14, 12)),
            Band(9, 14, (6, 7, 9, 11, 9)),
            Band(13, 12, (3, 5, 7, 8, 7)),
        ),
    ),
    CharacterClass.DWARF: ClassTable(
        12,
        (
            Band(1, 19, (8, 9, 10, 13, 12)),
            Band(4, 17, (6, 7, 8, 10, 10)),
            Band(7, 14, (4, 5, 6, 7, 8)),
            Band(10, 12, (2, 3, 4, 4, 6)),
        ),
    ),
    CharacterClass.ELF: ClassTable(
        10,
        (
            Band(1, 19, (12, 13, 13, 15, 15)),
            Band(4, 17, (10, 11, 11, 13, 12)),
            Band(7, 14, (8, 9, 9, 10, 10)),
            Band(10, 12, (6, 7, 8, 8, 8)),
        ),
    ),
    CharacterClass.FIGHTER: ClassTable(
        14,
        (
            Band(1, 19, (12, 13, 14, 15, 16)),
            Band(4, 17, (10, 11, 12, 13, 14)),
            Band(7, 14, (8, 9, 10, 10, 12)),
            Band(10, 12, (6, 7, 8, 8, 10)),
            Band(13, 10, (4, 5, 6, 5, 8)),
        ),
    ),
    CharacterClass.HALFLING: ClassTable(
        8,
        (
            Band(1, 19, (8, 9, 10, 13, 12)),
            Band(4, 17, (6, 7, 8, 10, 10)),
            Band(7, 14, (4, 5, 6, 7, 8)),
        ),
    ),
    CharacterClass.MAGIC_USER: ClassTable(
        14,
        (
            Band(1, 19, (13, 14, 13, 16, 15)),
            Band(6, 17, (11, 12, 11, 14, 12)),
            Band(11, 14, (8, 9, 8, 11, 8)),
        ),
    ),
    CharacterClass.THIEF: ClassTable(
        14,
        (
            Band(1, 19, (13, 14, 13, 16, 15)),
            Band(5, 17, (12, 13, 11, 14, 13)),
            Band(9, 14, (10, 11, 9, 12, 10)),
            Band(13, 12, (8, 9, 7, 10, 8)),
        ),
    ),
}

# BECMI: the hit table's column for each class; demi-humans stop at the same levels as in OSE.
BECMI_COLUMNS = {
    CharacterClass.CLERIC: "cleric",
    CharacterClass.DWARF: "demi-human",
    CharacterClass.ELF: "demi-human",
    CharacterClass.FIGHTER: "fighter",
    CharacterClass.HALFLING: "demi-human",
    CharacterClass.MAGIC_USER: "magic-user",
    CharacterClass.THIEF: "thief",
}
DEMI_HUMAN_MAX = {CharacterClass.DWARF: 12, CharacterClass.ELF: 10, CharacterClass.HALFLING: 8}


def max_level(system: str, klass: str) -> int | None:
    """The highest level of ``klass`` in ``system``; None where the system has no such class."""
    if system == "ose" and klass in OSE_CLASSES:
        return OSE_CLASSES[klass].max_level
    if system == "becmi" and klass in BECMI_COLUMNS:
        return DEMI_HUMAN_MAX.get(klass, LEVEL_MAX)
    return None


def filled(system: str, klass: str, level: int) -> dict[str, int]:
    """What ``klass`` at ``level`` gives, by combatant field, as far as the project knows it
    for ``system``: OSE's THAC0 and saves, BECMI's THAC0, nothing for Dolmenwood (or for a
    class or level the system does not have)."""
    top = max_level(system, klass)
    if top is None or not isinstance(level, int) or not 1 <= level <= top:
        return {}
    if system == "ose":
        band = OSE_CLASSES[klass].band(level)
        return {"thac0": band.thac0} | dict(zip(SAVE_FIELDS, band.saves, strict=True))
    return {"thac0": becmi.thac0(BECMI_COLUMNS[klass], level)}


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
    after = filled(system, *new)
    result: dict[str, int | None] = {}
    for name in FILLED_FIELDS:
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

# What each score's modifier applies to, per system (OSE's ability tables; BECMI's are the same
# B/X adjustments, ``rules.becmi_hit._adj``; Dolmenwood's checks add the modifier of any
# score). An ability missing here shows its score without a modifier (OSE's INT gives
# languages, not a modifier).
ABILITY_USES = {
    "ose": {
        "str": "melee",
        "wis": "magic_saves",
        "dex": "ac_missile",
        "con": "hit_points",
        "cha": "reactions",
    },
    "becmi": {"str": "melee", "wis": "magic_saves", "dex": "ac_missile", "con": "hit_points"},
    "dolmenwood": {
        "str": "melee",
        "int": "checks",
        "wis": "magic_saves",
        "dex": "missile",
        "con": "checks",
        "cha": "checks",
    },
}


def _reaction_modifier(score: int) -> int:
    """OSE's CHA table (NPC reactions): 3 → −2, 4–8 → −1, 9–12 → 0, 13–17 → +1, 18 → +2."""
    return -2 if score <= 3 else -1 if score <= 8 else 0 if score <= 12 else 1 if score <= 17 else 2


def ability_modifier_for(system: str, ability: str, score: int | None) -> int | None:
    """The modifier ``score`` gives ``ability`` in ``system``; None when it gives none there
    (or there is no score)."""
    use = ABILITY_USES.get(system, ABILITY_USES["ose"]).get(ability)
    if score is None or use is None:
        return None
    if use == "reactions":
        return _reaction_modifier(score)
    return ability_modifier(score)


def ability_meaning(system: str, ability: str) -> Any:
    use = ABILITY_USES.get(system, ABILITY_USES["ose"]).get(ability)
    return MEANINGS[use] if use else None


def magic_save_modifier(system: str, wis_score: int | None) -> int:
    """What WIS adds to a save against magic (OSE's magic saves column; 0 without a score)."""
    return ability_modifier_for(system, "wis", wis_score) or 0
