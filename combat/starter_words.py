"""The starter bestiary's words in the reader's language (issue 32).

Fray's starter files (``combat/bestiary/*.json``) keep their entries under English keys: a
name ("Rat, giant"), attack names ("bite"), movement ("fly 180' (60')"), special notes and the
"normal human" Hit Dice. The keys stay what is stored and looked up; this module says them in
the active language:

- an entry's name and its stat-block words when the referee reads the list or adds monsters
  from it: the monsters added are named and noted in the referee's language, and from then on
  their names and notes are the referee's own text (editable, kept in the bestiary as typed);
- attack names and "normal human" wherever they are shown (attack buttons, the attack form, the
  log, the XP table), for each reader in their own language, since those stay keys.

A word that is not a starter key (a referee's own monster, a typed attack) is shown as it is.
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import pgettext_lazy

NAMES: dict[str, Promise] = {
    "Bandit": pgettext_lazy("starter monster", "Bandit"),
    "Bear, black": pgettext_lazy("starter monster", "Bear, black"),
    "Bugbear": pgettext_lazy("starter monster", "Bugbear"),
    "Dire wolf": pgettext_lazy("starter monster", "Dire wolf"),
    "Gelatinous cube": pgettext_lazy("starter monster", "Gelatinous cube"),
    "Ghoul": pgettext_lazy("starter monster", "Ghoul"),
    "Gnoll": pgettext_lazy("starter monster", "Gnoll"),
    "Goblin": pgettext_lazy("starter monster", "Goblin"),
    "Harpy": pgettext_lazy("starter monster", "Harpy"),
    "Hobgoblin": pgettext_lazy("starter monster", "Hobgoblin"),
    "Killer bee": pgettext_lazy("starter monster", "Killer bee"),
    "Kobold": pgettext_lazy("starter monster", "Kobold"),
    "Lizard man": pgettext_lazy("starter monster", "Lizard man"),
    "Minotaur": pgettext_lazy("starter monster", "Minotaur"),
    "Normal human": pgettext_lazy("starter monster", "Normal human"),
    "Ogre": pgettext_lazy("starter monster", "Ogre"),
    "Orc": pgettext_lazy("starter monster", "Orc"),
    "Owlbear": pgettext_lazy("starter monster", "Owlbear"),
    "Rat, giant": pgettext_lazy("starter monster", "Rat, giant"),
    "Shadow": pgettext_lazy("starter monster", "Shadow"),
    "Skeleton": pgettext_lazy("starter monster", "Skeleton"),
    "Spider, black widow": pgettext_lazy("starter monster", "Spider, black widow"),
    "Spider, crab": pgettext_lazy("starter monster", "Spider, crab"),
    "Stirge": pgettext_lazy("starter monster", "Stirge"),
    "Thoul": pgettext_lazy("starter monster", "Thoul"),
    "Troll": pgettext_lazy("starter monster", "Troll"),
    "White ape": pgettext_lazy("starter monster", "White ape"),
    "Wolf": pgettext_lazy("starter monster", "Wolf"),
    "Zombie": pgettext_lazy("starter monster", "Zombie"),
}
ATTACKS: dict[str, Promise] = {
    "beak": pgettext_lazy("monster attack", "beak"),
    "bite": pgettext_lazy("monster attack", "bite"),
    "claw": pgettext_lazy("monster attack", "claw"),
    "club": pgettext_lazy("monster attack", "club"),
    "gore": pgettext_lazy("monster attack", "gore"),
    "sting": pgettext_lazy("monster attack", "sting"),
    "talon": pgettext_lazy("monster attack", "talon"),
    "touch": pgettext_lazy("monster attack", "touch"),
    "weapon": pgettext_lazy("monster attack", "weapon"),
}
# Movement is figures in feet ("120' (40')") and, for some, how it moves; only the words change.
MOVES: dict[str, Promise] = {
    "fly": pgettext_lazy("monster movement", "fly"),
    "swim": pgettext_lazy("monster movement", "swim"),
    "in webs": pgettext_lazy("monster movement", "in webs"),
}
_MOVE = re.compile(r"\b(fly|swim|in webs)\b")
NOTES: dict[str, Promise] = {
    "Hug: if both claws hit the same target, an extra 2d8.": pgettext_lazy(
        "starter monster notes", "Hug: if both claws hit the same target, an extra 2d8."
    ),
    "Surprise on 1-3 in 6. +1 damage with weapons (included).": pgettext_lazy(
        "starter monster notes", "Surprise on 1-3 in 6. +1 damage with weapons (included)."
    ),
    "Touch paralyses 2d4 turns (save vs paralysis); immune to cold and lightning.": pgettext_lazy(
        "starter monster notes",
        "Touch paralyses 2d4 turns (save vs paralysis); immune to cold and lightning.",
    ),
    "Undead. Each hit paralyses 2d4 turns (save vs paralysis); not elves or creatures larger "
    "than ogres.": pgettext_lazy(
        "starter monster notes",
        "Undead. Each hit paralyses 2d4 turns (save vs paralysis); not elves or creatures "
        "larger than ogres.",
    ),
    "+1 damage with weapons (included).": pgettext_lazy(
        "starter monster notes", "+1 damage with weapons (included)."
    ),
    "-1 to hit in full daylight. Infravision 90'. Morale 9 with their king.": pgettext_lazy(
        "starter monster notes",
        "-1 to hit in full daylight. Infravision 90'. Morale 9 with their king.",
    ),
    "Song charms those who hear it (save vs spells).": pgettext_lazy(
        "starter monster notes", "Song charms those who hear it (save vs spells)."
    ),
    "Morale 10 with their king.": pgettext_lazy(
        "starter monster notes", "Morale 10 with their king."
    ),
    "Sting: save vs death or die; the bee dies after stinging.": pgettext_lazy(
        "starter monster notes", "Sting: save vs death or die; the bee dies after stinging."
    ),
    "Infravision 90'. Morale 8 with their chieftain.": pgettext_lazy(
        "starter monster notes", "Infravision 90'. Morale 8 with their chieftain."
    ),
    "Or one weapon, 1d6+2.": pgettext_lazy("starter monster notes", "Or one weapon, 1d6+2."),
    "-1 to hit in full daylight. Infravision 60'. Morale 8 with their leader.": pgettext_lazy(
        "starter monster notes",
        "-1 to hit in full daylight. Infravision 60'. Morale 8 with their leader.",
    ),
    "Bite: 1 in 20 carries disease (save vs death).": pgettext_lazy(
        "starter monster notes", "Bite: 1 in 20 carries disease (save vs death)."
    ),
    "Touch drains 1 STR for 8 turns. Hit only by magic weapons.": pgettext_lazy(
        "starter monster notes", "Touch drains 1 STR for 8 turns. Hit only by magic weapons."
    ),
    "Undead: immune to charm, hold, sleep and poison.": pgettext_lazy(
        "starter monster notes", "Undead: immune to charm, hold, sleep and poison."
    ),
    "Bite: save vs poison or die in 1 turn.": pgettext_lazy(
        "starter monster notes", "Bite: save vs poison or die in 1 turn."
    ),
    "Surprise on 1-4 in 6. Bite: save vs poison (+2) or die in 1d4 turns.": pgettext_lazy(
        "starter monster notes",
        "Surprise on 1-4 in 6. Bite: save vs poison (+2) or die in 1d4 turns.",
    ),
    "+2 to hit when flying. After a hit it drains 1d3 each round until killed.": pgettext_lazy(
        "starter monster notes",
        "+2 to hit when flying. After a hit it drains 1d3 each round until killed.",
    ),
    "Touch paralyses (save vs paralysis). Regenerates 1 hp a round.": pgettext_lazy(
        "starter monster notes", "Touch paralyses (save vs paralysis). Regenerates 1 hp a round."
    ),
    "Regenerates 3 hp a round from 3 rounds after damage, not fire or acid. Morale 8 against "
    "fire.": pgettext_lazy(
        "starter monster notes",
        "Regenerates 3 hp a round from 3 rounds after damage, not fire or acid. Morale 8 "
        "against fire.",
    ),
    "May throw rocks for 1d6.": pgettext_lazy("starter monster notes", "May throw rocks for 1d6."),
    "Morale 6 in packs of three or fewer.": pgettext_lazy(
        "starter monster notes", "Morale 6 in packs of three or fewer."
    ),
    "Undead. Always loses initiative.": pgettext_lazy(
        "starter monster notes", "Undead. Always loses initiative."
    ),
}
NORMAL_HUMAN_HD = "normal human"  # the Hit Dice the starter files (and rules.ose) write
_HIT_DICE = pgettext_lazy("Hit Dice", "normal human")


def name(value: str) -> str:
    """A starter entry's name in the active language; any other name as it is."""
    return str(NAMES.get(value, value))


def attack(value: Any) -> Any:
    """A starter attack name ("bite") in the active language; a typed one as it is."""
    return str(ATTACKS[value]) if isinstance(value, str) and value in ATTACKS else value


def attack_key(value: str) -> str:
    """The key of an attack name typed as the active language says a starter one ("kousnutí"
    in Czech is "bite"); any other name as typed."""
    typed = value.casefold()
    return next((key for key, said in ATTACKS.items() if str(said).casefold() == typed), value)


def movement(value: Any) -> Any:
    """A starter movement ("fly 180' (60')") with its words in the active language."""
    if not isinstance(value, str):
        return value
    return _MOVE.sub(lambda m: str(MOVES[m.group(1)]), value)


def notes(value: Any) -> Any:
    """A starter entry's special notes in the active language; typed notes as they are."""
    return str(NOTES[value]) if isinstance(value, str) and value in NOTES else value


def hit_dice(value: Any) -> Any:
    """Hit Dice as shown: "normal human" in the active language, figures as they are."""
    return str(_HIT_DICE) if value == NORMAL_HUMAN_HD else value


def localised(stats: dict[str, Any]) -> dict[str, Any]:
    """A starter stat block with its referee-owned text (movement, notes) in the active
    language, for monsters added from it; its keys (attacks, Hit Dice) are left as keys."""
    said = dict(stats)
    if "movement" in said:
        said["movement"] = movement(said["movement"])
    if "special_notes" in said:
        said["special_notes"] = notes(said["special_notes"])
    return said
