"""BECMI / Rules Cyclopedia hit table: the to-hit derivation, THAC0 by class, rank and HD.

The API.md lookups ``roll_needed`` and ``thac0`` live here; ``rules.becmi`` re-exports them with
the rest of the BECMI engine. The helpers ``_int`` (validated whole numbers) and ``adjustment`` (the
B/X ability adjustment) are shared by the other ``becmi_*`` modules.

Decisions where the seed is silent:
- A needed value of 0 or 1 after step 1 is read as 2 with no damage bonus; only a negative value
  earns the bonus (as ``becmi.md`` says). THAC0 and AC are whole numbers from −100 to 100.
- Class columns: level 0 is a normal man (THAC0 20); levels run 0..36. The ``demi-human``
  column takes an attack rank ``A``..``M`` or, below rank A, an int level 1..36 which uses the
  Fighter column. The ``normal-human`` column ignores ``level``.
- Monster HD: ``N+k`` and ``N+`` (bonus hit points) move up a row, as in OSE; ``N-k`` stays in the
  row of N; fractions below 1 HD (``½``, ``1/2``, ``¼``) are "up to 1"; asterisks are ignored.
  ``"normal human"`` in the monster column is THAC0 20.
- Ability adjustments use the B/X table (``adjustment``, scores 3..18; ``None`` for a monster is 0),
  defined here so the module does not depend on ``rules.ose``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from .core import NUMBER_LIMIT, ability_modifier, is_whole, shown
from .errors import RulesError

__all__ = [
    "MONSTER_HIT_ROWS",
    "NORMAL_MAN_THAC0",
    "Column",
    "HitDice",
    "parse_hit_dice",
    "roll_needed",
    "thac0",
]

_LIMIT = NUMBER_LIMIT  # THAC0 and AC beyond ±100 are typing mistakes, not creatures
_LEVEL_TEXT = re.compile(r"\s*([0-9]+)\s*")  # a level typed as text: "7" (but not "²")


def _int(value: object, code: str, name: str, low: int = -_LIMIT, high: int = _LIMIT) -> int:
    # low and high travel with the code, as OSE's thac0_out_of_range and ac_out_of_range do
    if not is_whole(value):
        raise RulesError(code, f"{name} must be a whole number", value=value, low=low, high=high)
    if not low <= value <= high:
        raise RulesError(
            code,
            f"{name} must be {low} to {high}, not {shown(value)}",
            value=value,
            low=low,
            high=high,
        )
    return value


def adjustment(score: int | None) -> int:
    """B/X ability adjustment (3 → −3 … 18 → +3); ``None`` (a monster without the score) is 0."""
    return 0 if score is None else ability_modifier(score)


# --- roll needed ------------------------------------------------------------------------------


def roll_needed(thac0: int, ac: int) -> tuple[int, int]:
    """The d20 total needed to hit descending ``ac`` and the damage bonus (0 when none).

    The seed's derivation from ``H = THAC0 − AC``: if H < 2 add up to 4 (never past 2); if H > 20
    subtract up to 4 (never below 20), then again past 30, 40, …; if H < −10 add up to 4 (never
    past −10), then again past −20, −30, …; a negative H gives 2 and −H to damage; 0 or 1 give 2.
    So 2, 20, 30, 40, … and −10, −20, … each stand for five consecutive ACs.
    Both arguments are whole numbers from −100 to 100 (``RulesError`` otherwise).
    """
    thac0 = _int(thac0, "thac0_out_of_range", "THAC0")
    ac = _int(ac, "ac_out_of_range", "AC")
    h = thac0 - ac
    if h < 2:
        h += min(4, 2 - h)
    threshold = 20
    while h > threshold:
        h -= min(4, h - threshold)
        threshold += 10
    threshold = -10
    while h < threshold:
        h += min(4, threshold - h)
        threshold -= 10
    if h < 0:
        return 2, -h
    return max(h, 2), 0


# --- hit table --------------------------------------------------------------------------------


class Column(StrEnum):
    """Columns of the hit table (the API's keys)."""

    MAGIC_USER = "magic-user"
    CLERIC = "cleric"
    THIEF = "thief"
    FIGHTER = "fighter"
    DEMI_HUMAN = "demi-human"
    MONSTER = "monster"
    NORMAL_HUMAN = "normal-human"


NORMAL_MAN_THAC0 = 20

# Levels per THAC0 step (from 19 down by 2): 5 for magic-users, 4 for clerics and thieves,
# 3 for fighters; each column stops where the seed's does.
_CLASS_STEP = {Column.MAGIC_USER: 5, Column.CLERIC: 4, Column.THIEF: 4, Column.FIGHTER: 3}
_MAX_LEVEL = 36
_RANKS = "ABCDEFGHIJKLM"  # rank A is THAC0 15, each letter one better

# (highest HD of the row, THAC0): a row "N+ to M" holds more than N up to M HD.
MONSTER_HIT_ROWS: tuple[tuple[int, int], ...] = (
    (1, 19),
    (2, 18),
    (3, 17),
    (4, 16),
    (5, 15),
    (6, 14),
    (7, 13),
    (8, 12),
    (9, 11),
    (11, 10),
    (13, 9),
    (15, 8),
    (17, 7),
    (19, 6),
    (21, 5),
    (23, 4),
    (25, 3),
    (27, 2),
    (29, 1),
    (31, 0),
    (33, -1),
    (35, -2),
)
_MONSTER_TOP_THAC0 = -3  # 35+ and up


def _class_thac0(column: Column, level: int) -> int:
    if level == 0:
        return NORMAL_MAN_THAC0
    return 19 - 2 * ((level - 1) // _CLASS_STEP[column])


@dataclass(frozen=True)
class HitDice:
    """A parsed monster Hit Dice string: ``dice`` (a Fraction, ½ for ``½``), ``bonus`` as the
    sign of the bonus hit points (+1 for ``2+1`` or ``35+``, −1 for ``1-1``, 0 for none) and
    ``special`` (how many asterisks)."""

    dice: Fraction
    bonus: int = 0
    special: int = 0

    @property
    def whole(self) -> int:
        """Whole dice, rounded down (0 for fractional HD)."""
        return int(self.dice)


_HD_RE = re.compile(
    r"""^(?:(?P<glyph>[½¼¾])|(?P<num>\d{1,3})\s*/\s*(?P<den>\d{1,3})|(?P<whole>\d{1,3}))
        \s*(?:(?P<sign>[+\-–−])\s*(?P<bonus>\d{1,3})?)?\s*(?P<stars>\**)$""",
    re.VERBOSE,
)
_GLYPHS = {"½": Fraction(1, 2), "¼": Fraction(1, 4), "¾": Fraction(3, 4)}


def parse_hit_dice(hd: str | int) -> HitDice:
    """Parse ``"3"``, ``"2+1"``, ``"35+"``, ``"1-1"`` (hyphen, en dash or minus sign), ``"½"``,
    ``"1/2"``, ``"7*"``; an int is a whole number of dice. Anything else, zero dice or a
    fraction of 1 or more raises ``RulesError`` (code ``bad_hit_dice``)."""
    if isinstance(hd, bool):
        raise RulesError("bad_hit_dice", "hit dice must be a string such as 2+1", value=hd)
    if isinstance(hd, int):
        if not 1 <= hd <= 999:
            raise RulesError(
                "bad_hit_dice", f"hit dice must be 1 to 999, not {shown(hd)}", value=hd
            )
        return HitDice(Fraction(hd))
    if not isinstance(hd, str):
        raise RulesError("bad_hit_dice", "hit dice must be a string such as 2+1", value=hd)
    match = _HD_RE.match(hd.strip())
    if match is None:
        raise RulesError("bad_hit_dice", f"cannot read hit dice {hd!r}", value=hd)
    if match["glyph"]:
        dice = _GLYPHS[match["glyph"]]
    elif match["num"]:
        num, den = int(match["num"]), int(match["den"])
        if not 0 < num < den:
            raise RulesError(
                "bad_hit_dice", f"a fraction of a hit die is below 1: {hd!r}", value=hd
            )
        dice = Fraction(num, den)
    else:
        dice = Fraction(int(match["whole"]))
        if dice == 0:
            raise RulesError("bad_hit_dice", "a monster has at least some hit dice", value=hd)
    bonus = 0
    if match["sign"]:
        amount = 1 if match["bonus"] is None else int(match["bonus"])
        bonus = 0 if amount == 0 else (1 if match["sign"] == "+" else -1)
        if match["sign"] != "+" and match["bonus"] is None:
            raise RulesError("bad_hit_dice", f"a minus needs a number: {hd!r}", value=hd)
    return HitDice(dice, bonus, len(match["stars"]))


def _monster_thac0(hd: str | int) -> int:
    if isinstance(hd, str) and hd.strip().lower() in {"normal human", "normal man"}:
        return NORMAL_MAN_THAC0
    parsed = parse_hit_dice(hd)
    if parsed.dice < 1:
        return MONSTER_HIT_ROWS[0][1]
    whole = parsed.whole
    for top, value in MONSTER_HIT_ROWS:
        # bonus hit points put N just past N, into the next row when N is a row's top
        if whole < top or (whole == top and parsed.bonus <= 0):
            return value
    return _MONSTER_TOP_THAC0


def _level_number(level: int | str, low: int) -> int:
    match = _LEVEL_TEXT.fullmatch(level) if isinstance(level, str) else None
    if match:
        digits = match[1].lstrip("0") or "0"
        if len(digits) > 3:  # no level has more digits (and int() refuses 4300 of them)
            raise RulesError("level_out_of_range", "a level is at most 36", value=level)
        level = int(digits)
    return _int(level, "level_out_of_range", "a level", low, _MAX_LEVEL)


def _column(column: Column | str) -> Column:
    key = (
        column.strip().lower().replace("_", "-").replace(" ", "-")
        if isinstance(column, str)
        else column
    )
    if key == "normal-man":
        key = Column.NORMAL_HUMAN
    try:
        return Column(key)
    except ValueError:
        raise RulesError(
            "unknown_column", f"no hit table column {shown(column)}", value=column
        ) from None


def thac0(column: Column | str, level: int | str) -> int:
    """THAC0 from the BECMI hit table.

    ``column`` is ``magic-user``, ``cleric``, ``thief``, ``fighter``, ``demi-human``,
    ``monster`` or ``normal-human``. ``level``:
    - class columns: a level 0..36 (0 is a normal man, THAC0 20);
    - ``demi-human``: an attack rank letter ``A``..``M`` (A = 15 … M = 3), or an int level
      1..36 for a demi-human below rank A, which uses the Fighter column;
    - ``monster``: a Hit Dice string (``"½"``, ``"1-1"``, ``"2+1"``, ``"7*"``, ``"35+"`` …) or
      an int; bonus hit points move the monster up a row; ``"normal human"`` gives 20;
    - ``normal-human``: ignored (always 20).
    Bad input raises ``RulesError`` (codes ``unknown_column``, ``level_out_of_range``,
    ``bad_attack_rank``, ``bad_hit_dice``).
    """
    col = _column(column)
    if col is Column.NORMAL_HUMAN:
        return NORMAL_MAN_THAC0
    if col is Column.MONSTER:
        return _monster_thac0(level)
    if col is Column.DEMI_HUMAN:
        if isinstance(level, str) and not _LEVEL_TEXT.fullmatch(level):
            rank = level.strip().upper()
            if len(rank) != 1 or rank not in _RANKS:
                raise RulesError(
                    "bad_attack_rank", f"attack ranks run A to M, not {shown(level)}", value=level
                )
            return 15 - _RANKS.index(rank)
        return _class_thac0(Column.FIGHTER, _level_number(level, 1))
    return _class_thac0(col, _level_number(level, 0))
