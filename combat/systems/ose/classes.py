"""OSE's class tables as the table fills a character from them: the seven classic classes' level
progression (``rules.ose_classes``, which names its sources), THAC0 and the five saves."""

from __future__ import annotations

from rules import ose, ose_classes

# What each score's modifier applies to (OSE's ability tables): INT gives languages, not a
# modifier, so it shows its score alone.
ABILITY_USES = {
    "str": "melee",
    "wis": "magic_saves",
    "dex": "ac_missile",
    "con": "hit_points",
    "cha": "reactions",
}
NORMAL_HUMAN_SAVES = ose.monster_saves("normal human")


class Classes:
    """The class tables a system lends ``combat.classes``."""

    @staticmethod
    def max_level(klass: str) -> int | None:
        return ose_classes.max_level(klass) if klass in ose_classes.CLASSES else None

    @staticmethod
    def filled(klass: str, level: int) -> dict[str, int]:
        """THAC0 and the saves by combatant field, for a level the class has."""
        found = ose_classes.progression(klass, level)
        return {"thac0": found.thac0} | {f"save_{k}": v for k, v in found.saves.items()}
