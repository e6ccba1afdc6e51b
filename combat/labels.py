"""The engine's keys in the interface's language: save categories, abilities, modifier
reasons, health words, read by the template filters (``combat.templatetags.fray``) and the
forms. They live here, beside the interface, so that ``rules`` imports nothing from Django.
"""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

SAVES = {
    "death": pgettext_lazy("save", "Death ray or poison"),
    "wands": pgettext_lazy("save", "Magic wands"),
    "paralysis": pgettext_lazy("save", "Paralysis or petrification"),
    "breath": pgettext_lazy("save", "Breath attacks"),
    "spells": pgettext_lazy("save", "Spells, rods or staves"),
}
# A phone's save buttons: one word each, the full name as their title (OSE's and BECMI's five
# categories alike; glossary: abbreviations on narrow screens, full words elsewhere).
SAVE_SHORT = {
    "death": pgettext_lazy("save, short", "Death"),
    "wands": pgettext_lazy("save, short", "Wands"),
    "paralysis": pgettext_lazy("save, short", "Paralysis"),
    "breath": pgettext_lazy("save, short", "Breath"),
    "spells": pgettext_lazy("save, short", "Spells"),
}
SAVE_LETTERS = {
    "death": pgettext_lazy("save letter: death ray or poison", "D"),
    "wands": pgettext_lazy("save letter: magic wands", "W"),
    "paralysis": pgettext_lazy("save letter: paralysis or petrification", "P"),
    "breath": pgettext_lazy("save letter: breath attacks", "B"),
    "spells": pgettext_lazy("save letter: spells, rods or staves", "S"),
}
ABILITIES = {
    "str": pgettext_lazy("ability", "STR"),
    "int": pgettext_lazy("ability", "INT"),
    "wis": pgettext_lazy("ability", "WIS"),
    "dex": pgettext_lazy("ability", "DEX"),
    "con": pgettext_lazy("ability", "CON"),
    "cha": pgettext_lazy("ability", "CHA"),
}
REASONS = {
    "str": pgettext_lazy("modifier reason", "STR"),
    "wis": pgettext_lazy("modifier reason", "WIS"),  # saves against magic (combat.classes)
    "dex": pgettext_lazy("modifier reason", "DEX"),
    "situational": pgettext_lazy("modifier reason", "situation"),
    "difficulty": pgettext_lazy("modifier reason", "difficulty"),  # on an ability check
    "item_bonus": pgettext_lazy("modifier reason", "magic item"),  # its bonus on a save
}
HEALTH = {
    "unhurt": pgettext_lazy("health", "unhurt"),
    "wounded": pgettext_lazy("health", "wounded"),
    "badly": pgettext_lazy("health", "badly wounded"),
    "down": pgettext_lazy("health", "down"),
}


# What a weapon's form and a creature's immunities are called (stored as keys on combatants;
# the rules systems that know them offer them).
ATTACK_FORMS = {
    "mundane": pgettext_lazy("weapon", "ordinary weapon"),
    "silver": pgettext_lazy("weapon", "silver weapon"),
    "cold_iron": pgettext_lazy("weapon", "cold iron weapon"),
    "magic": pgettext_lazy("weapon", "magic weapon"),
    "fire": pgettext_lazy("weapon", "fire"),
}
IMMUNITIES = {
    "mundane": pgettext_lazy("immunity", "ordinary weapons"),
    "silver": pgettext_lazy("immunity", "silver weapons"),
    "cold_iron": pgettext_lazy("immunity", "cold iron weapons"),
    "magic": pgettext_lazy("immunity", "magic weapons"),
    "fire": pgettext_lazy("immunity", "fire"),
}


# The reasons other systems' rolls give for a modifier (the rules systems add their own).
SYSTEM_REASONS = {
    "attack_bonus": pgettext_lazy("modifier reason", "attack bonus"),
    "str": pgettext_lazy("modifier reason", "STR"),
    "int": pgettext_lazy("modifier reason", "INT"),
    "wis": pgettext_lazy("modifier reason", "WIS"),
    "dex": pgettext_lazy("modifier reason", "DEX"),
    "con": pgettext_lazy("modifier reason", "CON"),
    "cha": pgettext_lazy("modifier reason", "CHA"),
    "situational": pgettext_lazy("modifier reason", "situation"),
    "bonus": pgettext_lazy("modifier reason", "damage bonus"),
}
