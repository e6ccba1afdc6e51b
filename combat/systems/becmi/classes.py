"""BECMI's class tables as the table fills a character from them: the hit table's column by class
(``rules.becmi.thac0``; demi-humans take the demi-human column by level, which below attack
rank A is the Fighter's) and the Rules Cyclopedia's saves by class and level
(``rules.becmi_classes``, which names its sources)."""

from __future__ import annotations

from rules import becmi, becmi_classes

# The hit table's column for each class (the saves' tables say where each class stops).
COLUMNS = {
    "cleric": "cleric",
    "dwarf": "demi-human",
    "elf": "demi-human",
    "fighter": "fighter",
    "halfling": "demi-human",
    "magic-user": "magic-user",
    "thief": "thief",
}
# What each score's modifier applies to: the same B/X adjustments (``rules.becmi_hit``).
ABILITY_USES = {"str": "melee", "wis": "magic_saves", "dex": "ac_missile", "con": "hit_points"}
NORMAL_HUMAN_SAVES = becmi_classes.NORMAL_MAN_SAVES  # one point better against spells than OSE's


class Classes:
    """The class tables a system lends ``combat.classes``."""

    @staticmethod
    def max_level(klass: str) -> int | None:
        return becmi_classes.max_level(klass) if klass in becmi_classes.CLASSES else None

    @staticmethod
    def filled(klass: str, level: int) -> dict[str, int]:
        """THAC0 and the saves by combatant field, for a level the class has."""
        saves = becmi_classes.saves(klass, level)
        thac0 = becmi.thac0(COLUMNS[klass], level)
        return {"thac0": thac0} | {f"save_{k}": v for k, v in saves.items()}
