"""Old-School Essentials' seven classic classes: THAC0 and saving throws by level, and the
reactions column of Charisma.

Source: the level progression table of each class in the OSE System Reference Document
(oldschoolessentials.necroticgnome.com/srd, as transcribed at buzzardb.me/OSE/classes/*),
cross-checked band by band against a second transcription of the SRD (the class data of the
osr-character-builder Foundry module, github.com/RabidOwlbear/osr-character-builder,
``scripts/data/srd-data-en.mjs``). The table tests keep a copy in
``tests/rules/data/ose_classes.json``.

Keys: classes ``cleric``, ``dwarf``, ``elf``, ``fighter``, ``halfling``, ``magic-user``,
``thief``; saves ``death``, ``wands``, ``paralysis``, ``breath``, ``spells``. Error codes:
``unknown_class``, ``level_out_of_range`` (with ``low`` and ``high``), ``not_an_integer``,
``ability_out_of_range``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .core import ability_score, class_level, shown
from .errors import RulesError

SAVES = ("death", "wands", "paralysis", "breath", "spells")


@dataclass(frozen=True)
class _Band:
    """Levels from ``first`` up to the next band's first: one THAC0 and the five saves."""

    first: int
    thac0: int
    saves: tuple[int, int, int, int, int]


# class: (maximum level, bands)
_TABLES: dict[str, tuple[int, tuple[_Band, ...]]] = {
    "cleric": (14, (
        _Band(1, 19, (11, 12, 14, 16, 15)),
        _Band(5, 17, (9, 10, 12, 14, 12)),
        _Band(9, 14, (6, 7, 9, 11, 9)),
        _Band(13, 12, (3, 5, 7, 8, 7)),
    )),
    "dwarf": (12, (
        _Band(1, 19, (8, 9, 10, 13, 12)),
        _Band(4, 17, (6, 7, 8, 10, 10)),
        _Band(7, 14, (4, 5, 6, 7, 8)),
        _Band(10, 12, (2, 3, 4, 4, 6)),
    )),
    "elf": (10, (
        _Band(1, 19, (12, 13, 13, 15, 15)),
        _Band(4, 17, (10, 11, 11, 13, 12)),
        _Band(7, 14, (8, 9, 9, 10, 10)),
        _Band(10, 12, (6, 7, 8, 8, 8)),
    )),
    "fighter": (14, (
        _Band(1, 19, (12, 13, 14, 15, 16)),
        _Band(4, 17, (10, 11, 12, 13, 14)),
        _Band(7, 14, (8, 9, 10, 10, 12)),
        _Band(10, 12, (6, 7, 8, 8, 10)),
        _Band(13, 10, (4, 5, 6, 5, 8)),
    )),
    "halfling": (8, (
        _Band(1, 19, (8, 9, 10, 13, 12)),
        _Band(4, 17, (6, 7, 8, 10, 10)),
        _Band(7, 14, (4, 5, 6, 7, 8)),
    )),
    "magic-user": (14, (
        _Band(1, 19, (13, 14, 13, 16, 15)),
        _Band(6, 17, (11, 12, 11, 14, 12)),
        _Band(11, 14, (8, 9, 8, 11, 8)),
    )),
    "thief": (14, (
        _Band(1, 19, (13, 14, 13, 16, 15)),
        _Band(5, 17, (12, 13, 11, 14, 13)),
        _Band(9, 14, (10, 11, 9, 12, 10)),
        _Band(13, 12, (8, 9, 7, 10, 8)),
    )),
}  # fmt: skip
CLASSES = tuple(_TABLES)


@dataclass(frozen=True)
class Progression:
    """What a class gives at one level: THAC0 and the five saving throws, by save key."""

    thac0: int
    saves: dict[str, int]


def max_level(char_class: str) -> int:
    """The highest level ``char_class`` reaches (Dwarf 12, Elf 10, Halfling 8, others 14)."""
    if not isinstance(char_class, str) or char_class not in _TABLES:
        raise RulesError("unknown_class", f"no classic class {shown(char_class)}", value=char_class)
    return _TABLES[char_class][0]


def progression(char_class: str, level: int) -> Progression:
    """THAC0 and saves of ``char_class`` at ``level``, from its level progression table."""
    level = class_level(level, max_level(char_class))
    band = [b for b in _TABLES[char_class][1] if b.first <= level][-1]
    return Progression(band.thac0, dict(zip(SAVES, band.saves, strict=True)))


def reaction_modifier(score: int) -> int:
    """Charisma's NPC reactions column: 3 → −2, 4–8 → −1, 9–12 → 0, 13–17 → +1, 18 → +2."""
    ability_score(score)
    return -2 if score <= 3 else -1 if score <= 8 else 0 if score <= 12 else 1 if score <= 17 else 2


__all__ = ["CLASSES", "SAVES", "Progression", "max_level", "progression", "reaction_modifier"]
