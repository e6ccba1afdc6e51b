"""BECMI / Rules Cyclopedia saving throws by class and level, and the normal man's.

Source: the Saving Throws Table of each class in chapter 2 of the Rules Cyclopedia (TSR 1991),
as transcribed in github.com/Light-of-Earendil/BECMI-D-D
(``docs/Chapter_2-The_Character_Classes.md``), cross-checked band by band against a second
transcription, the saving-throw tables of the BECMI character generator
github.com/peterjschroeder/becmi_gen (``savingthrows.py``). The two agree everywhere but the
halfling's 4th–6th levels, where the generator repeats the dwarf's row (6 7 8 10 9); the book's
own table (5 6 7 9 8) is the one kept here. The normal man's row is the one printed beside the
fighter's table. The table tests keep a copy in ``tests/rules/data/becmi_classes.json``.

The Rules Cyclopedia's five categories, in its order: Death Ray/Poison, Magic Wands,
Paralysis/Turn to Stone, Dragon Breath, Rod/Staff/Spell; keyed ``death``, ``wands``,
``paralysis``, ``breath``, ``spells`` as in ``rules.ose``.

The human classes go to 36th level; the demi-humans' tables stop at their top level (dwarf 12,
elf 10, halfling 8): attack ranks past it improve their attacks (``rules.becmi.thac0``'s
demi-human column) and give the special defences the book describes, never the saving throws.

Keys: classes ``cleric``, ``dwarf``, ``elf``, ``fighter``, ``halfling``, ``magic-user``,
``thief``. Error codes: ``unknown_class``, ``level_out_of_range`` (with ``low`` and ``high``),
``not_an_integer``.
"""

from __future__ import annotations

from .core import class_level, shown
from .errors import RulesError

SAVES = ("death", "wands", "paralysis", "breath", "spells")

# class: (maximum level, ((first level of the band, (death, wands, paralysis, breath, spells)),
# ...)); a band runs up to the next band's first level.
_TABLES: dict[str, tuple[int, tuple[tuple[int, tuple[int, int, int, int, int]], ...]]] = {
    "cleric": (36, (
        (1, (11, 12, 14, 16, 15)),
        (5, (9, 10, 12, 14, 13)),
        (9, (7, 8, 10, 12, 11)),
        (13, (6, 7, 8, 10, 9)),
        (17, (5, 6, 6, 8, 7)),
        (21, (4, 5, 5, 6, 5)),
        (25, (3, 4, 4, 4, 4)),
        (29, (2, 3, 3, 3, 3)),
        (33, (2, 2, 2, 2, 2)),
    )),
    "dwarf": (12, (
        (1, (8, 9, 10, 13, 12)),
        (4, (6, 7, 8, 10, 9)),
        (7, (4, 5, 6, 7, 6)),
        (10, (2, 3, 4, 4, 3)),
    )),
    "elf": (10, (
        (1, (12, 13, 13, 15, 15)),
        (4, (8, 10, 10, 11, 11)),
        (7, (4, 7, 7, 7, 7)),
        (10, (2, 4, 4, 3, 3)),
    )),
    "fighter": (36, (
        (1, (12, 13, 14, 15, 16)),
        (4, (10, 11, 12, 13, 14)),
        (7, (8, 9, 10, 11, 12)),
        (10, (6, 7, 8, 9, 10)),
        (13, (6, 6, 7, 8, 9)),
        (16, (5, 6, 6, 7, 8)),
        (19, (5, 5, 6, 6, 7)),
        (22, (4, 5, 5, 5, 6)),
        (25, (4, 4, 5, 4, 5)),
        (28, (3, 4, 4, 3, 4)),
        (31, (3, 3, 3, 2, 3)),
        (34, (2, 2, 2, 2, 2)),
    )),
    "halfling": (8, (
        (1, (8, 9, 10, 13, 12)),
        (4, (5, 6, 7, 9, 8)),
        (7, (2, 3, 4, 5, 4)),
    )),
    "magic-user": (36, (
        (1, (13, 14, 13, 16, 15)),
        (6, (11, 12, 11, 14, 12)),
        (11, (9, 10, 9, 12, 9)),
        (16, (7, 8, 7, 10, 6)),
        (21, (5, 6, 5, 8, 4)),
        (25, (4, 4, 4, 6, 3)),
        (29, (3, 3, 3, 4, 2)),
        (33, (2, 2, 2, 2, 2)),
    )),
    "thief": (36, (
        (1, (13, 14, 13, 16, 15)),
        (5, (11, 12, 11, 14, 13)),
        (9, (9, 10, 9, 12, 11)),
        (13, (7, 8, 7, 10, 9)),
        (17, (5, 6, 5, 8, 7)),
        (21, (4, 5, 4, 6, 5)),
        (25, (3, 4, 3, 4, 4)),
        (29, (2, 3, 2, 3, 3)),
        (33, (2, 2, 2, 2, 2)),
    )),
}  # fmt: skip
CLASSES = tuple(_TABLES)
#: The normal man's saves (a human of no class; the Rules Cyclopedia prints them beside the
#: fighter's), keyed as :data:`SAVES`.
NORMAL_MAN_SAVES: dict[str, int] = dict(zip(SAVES, (14, 15, 16, 17, 17), strict=True))


def max_level(char_class: str) -> int:
    """The highest level ``char_class``'s saving throws table reaches (36 for the human classes;
    dwarf 12, elf 10, halfling 8)."""
    if not isinstance(char_class, str) or char_class not in _TABLES:
        raise RulesError("unknown_class", f"no BECMI class {shown(char_class)}", value=char_class)
    return _TABLES[char_class][0]


def saves(char_class: str, level: int) -> dict[str, int]:
    """The five saving throws of ``char_class`` at ``level``, by save key."""
    level = class_level(level, max_level(char_class))
    row = [values for first, values in _TABLES[char_class][1] if first <= level][-1]
    return dict(zip(SAVES, row, strict=True))


__all__ = ["CLASSES", "NORMAL_MAN_SAVES", "SAVES", "max_level", "saves"]
