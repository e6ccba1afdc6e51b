"""BECMI's words at the table: the Rules Cyclopedia's five saves (stored in the same five columns
as OSE's), range bands, cover and what it is made of, and the reasons they add to a roll."""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

# The Rules Cyclopedia's names for the five saves, stored in the same five columns as OSE's.
BECMI_SAVES = {
    "death": pgettext_lazy("becmi save", "Death Ray or Poison"),
    "wands": pgettext_lazy("becmi save", "Magic Wands"),
    "paralysis": pgettext_lazy("becmi save", "Paralysis or Turn to Stone"),
    "breath": pgettext_lazy("becmi save", "Dragon Breath"),
    "spells": pgettext_lazy("becmi save", "Rod, Staff or Spell"),
}
BECMI_SAVE_LETTERS = {
    "death": pgettext_lazy("becmi save letter: death ray or poison", "D"),
    "wands": pgettext_lazy("becmi save letter: magic wands", "W"),
    "paralysis": pgettext_lazy("becmi save letter: paralysis or turn to stone", "P"),
    "breath": pgettext_lazy("becmi save letter: dragon breath", "B"),
    "spells": pgettext_lazy("becmi save letter: rod, staff or spell", "S"),
}
RANGES = {
    "": pgettext_lazy("range", "melee (no range)"),
    "short": pgettext_lazy("range", "short (+1)"),
    "medium": pgettext_lazy("range", "medium (0)"),
    "long": pgettext_lazy("range", "long (−1)"),
}
COVERS = {
    "none": pgettext_lazy("cover", "none"),
    "quarter": pgettext_lazy("cover", "a quarter"),
    "half": pgettext_lazy("cover", "half"),
    "three_quarters": pgettext_lazy("cover", "three quarters"),
    "full": pgettext_lazy("cover", "full"),
}
COVER_MATERIALS = {
    "soft": pgettext_lazy("cover", "soft (−1 to −4)"),
    "hard": pgettext_lazy("cover", "hard (−2 to −6; full: impossible)"),
}
REASONS = {
    "range_short": pgettext_lazy("modifier reason", "short range"),
    "range_long": pgettext_lazy("modifier reason", "long range"),
    "hit_table": pgettext_lazy("modifier reason", "beyond the hit table"),
    **{
        f"cover_{material}_{cover}": pgettext_lazy("modifier reason", "cover")
        for material in COVER_MATERIALS
        for cover in COVERS
    },
}
