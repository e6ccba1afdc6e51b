"""Dolmenwood's words and sheets at the table: the five saves (Doom, Ray, Hold, Blast, Spell)
stored in the five save columns, the skills on a combatant's sheet, the ascending attack bonus
and what a weapon's form and a creature's immunities are called."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from combat.labels import IMMUNITIES
from combat.models import Combatant
from rules import dolmenwood as dw
from rules import ose

# --- Dolmenwood saves: the five categories, stored in the five save columns in order -----------

DW_SAVE_FIELDS = {
    "doom": "save_death",
    "ray": "save_wands",
    "hold": "save_paralysis",
    "blast": "save_breath",
    "spell": "save_spells",
}
DW_SAVES = {
    "doom": pgettext_lazy("dolmenwood save", "Doom"),
    "ray": pgettext_lazy("dolmenwood save", "Ray"),
    "hold": pgettext_lazy("dolmenwood save", "Hold"),
    "blast": pgettext_lazy("dolmenwood save", "Blast"),
    "spell": pgettext_lazy("dolmenwood save", "Spell"),
}
DW_SAVE_LETTERS = {
    "doom": pgettext_lazy("dolmenwood save letter: doom", "D"),
    "ray": pgettext_lazy("dolmenwood save letter: ray", "R"),
    "hold": pgettext_lazy("dolmenwood save letter: hold", "H"),
    "blast": pgettext_lazy("dolmenwood save letter: blast", "B"),
    "spell": pgettext_lazy("dolmenwood save letter: spell", "S"),
}
# What each category covers, as the seed says: the hint beside the choice.
DW_SAVE_COVERS = {
    "doom": _("instant death, poison, disease, death magic; anything no other category fits"),
    "ray": _("quick aimed effects that can be dodged: energy rays, lightning"),
    "hold": _("effects that stop movement: paralysis, petrification, crushing rocks"),
    "blast": _("deadly energy filling an area: Wyrm breath, explosions"),
    "spell": _("strong effects aimed at the target: spells, Fairy Glamours, magic staves"),
}
DW_EFFECTS = {
    "poison": pgettext_lazy("effect", "poison"),
    "disease": pgettext_lazy("effect", "disease"),
    "death_magic": pgettext_lazy("effect", "death magic"),
    "instant_death": pgettext_lazy("effect", "instant death"),
    "energy_ray": pgettext_lazy("effect", "energy ray"),
    "lightning": pgettext_lazy("effect", "lightning"),
    "paralysis": pgettext_lazy("effect", "paralysis"),
    "petrification": pgettext_lazy("effect", "petrification"),
    "crushing_rocks": pgettext_lazy("effect", "falling rocks"),
    "wyrm_breath": pgettext_lazy("effect", "Wyrm breath"),
    "explosion": pgettext_lazy("effect", "explosion"),
    "arcane_spell": pgettext_lazy("effect", "arcane spell"),
    "holy_spell": pgettext_lazy("effect", "holy spell"),
    "fairy_glamour": pgettext_lazy("effect", "Fairy Glamour"),
    "magic_staff": pgettext_lazy("effect", "magic staff"),
}


def dw_save_target(combatant: Combatant, category: str) -> int:
    return getattr(combatant, DW_SAVE_FIELDS[category])


# --- skills ------------------------------------------------------------------------------

DW_SKILLS = {
    "listen": pgettext_lazy("skill", "Listen"),
    "search": pgettext_lazy("skill", "Search"),
    "survival": pgettext_lazy("skill", "Survival"),
}
# Names a referee may type for the skills everyone has, in any of the table's languages.
SKILL_ALIASES = {
    "listen": {"listen", "listening", "naslouchání", "naslouchani", "слух", "слухання"},
    "search": {"search", "hledání", "hledani", "поиск", "пошук"},
    "survival": {"survival", "přežití", "preziti", "выживание", "виживання"},
}
_SKILL_LINE = re.compile(
    r"^\s*(?P<name>[^\d:=]+?)\s*[:=]?\s*(?P<first>\d+)\s*(?:/\s*(?P<second>\d+))?\s*$"
)


@dataclass(frozen=True)
class SheetSkill:
    """One skill on a combatant's sheet: ``key`` is the engine's (``listen``, or ``class_2``
    for a class skill), ``name`` what the referee typed for a class skill, ``targets`` the
    one or two targets the sheet gives (Kindred and class), the lower of which is used."""

    key: str
    name: str
    targets: tuple[int, ...]

    @property
    def target(self) -> int:
        return dw.skill_target(*self.targets[:2])

    @property
    def universal(self) -> bool:
        return self.key in dw.UNIVERSAL_SKILLS


def universal_key(name: str) -> str | None:
    folded = name.strip().casefold()
    for key, aliases in SKILL_ALIASES.items():
        if folded in aliases or folded == str(DW_SKILLS[key]).casefold():
            return key
    return None


def parse_skills(text: str) -> list[dict[str, Any]]:
    """A skill sheet typed as ``Listen 5/4, Climb wall 4`` (lines or commas): each skill with
    one target, or two (Kindred's and class's; the lower is used). Raises ValueError with the
    offending item."""
    sheet: list[dict[str, Any]] = []
    seen: set[str] = set()
    for item in re.split(r"[,;\n]", text or ""):
        if not item.strip():
            continue
        match = _SKILL_LINE.match(item)
        if match is None:
            raise ValueError(item.strip())
        name = " ".join(match["name"].split())
        targets = [int(match["first"])] + ([int(match["second"])] if match["second"] else [])
        if any(not 1 <= t <= 6 for t in targets) or len(name) > 40:
            raise ValueError(item.strip())
        key = universal_key(name)
        folded = key or name.casefold()
        if folded in seen:
            raise ValueError(item.strip())
        seen.add(folded)
        sheet.append({"key": key or "", "name": "" if key else name, "targets": targets})
    return sheet


def format_skills(sheet: Any) -> str:
    """A stored sheet as the referee types it (universal skills in the viewer's language)."""
    if isinstance(sheet, str):
        return sheet
    parts = []
    for skill in sheet_of_data(sheet):
        name = str(DW_SKILLS[skill.key]) if skill.universal else skill.name
        parts.append(f"{name} {'/'.join(str(t) for t in skill.targets)}")
    return ", ".join(parts)


def sheet_of_data(sheet: Any) -> list[SheetSkill]:
    """The stored sheet as skills; class skills get keys ``class_1``, ``class_2`` … in order."""
    skills: list[SheetSkill] = []
    extra = 0
    for item in sheet if isinstance(sheet, list) else []:
        if not isinstance(item, dict):
            continue
        targets = tuple(t for t in item.get("targets", []) if isinstance(t, int))[:2]
        if not targets:
            continue
        key = item.get("key") or ""
        if key not in dw.UNIVERSAL_SKILLS:
            extra += 1
            key = f"class_{extra}"
        skills.append(SheetSkill(key, item.get("name") or "", targets))
    return skills


def sheet_of(combatant: Combatant) -> list[SheetSkill]:
    """The combatant's skills: every adventurer's three (target 6 unless the sheet says
    better), then its class skills."""
    listed = sheet_of_data(combatant.skills)
    by_key = {s.key: s for s in listed}
    universal = [by_key.get(key, SheetSkill(key, "", ())) for key in DW_SKILLS]
    return universal + [s for s in listed if not s.universal]


def engine_sheet(skills: list[SheetSkill]) -> dict[str, int]:
    """The sheet as ``rules.dolmenwood.skill_target_for`` reads it: key -> target."""
    return {s.key: s.target for s in skills if s.targets}


def skill_choice(skill: SheetSkill) -> str:
    """A skill as a form's choice: the key of a universal one, the name of a class skill."""
    return skill.key if skill.universal else f"name:{skill.name}"


def find_skill(combatant: Combatant, choice: str) -> SheetSkill | None:
    for skill in sheet_of(combatant):
        if skill_choice(skill) == choice or (
            not skill.universal and choice.casefold() == f"name:{skill.name}".casefold()
        ):
            return skill
    return None


def skill_label(skill: SheetSkill) -> Any:
    return DW_SKILLS[skill.key] if skill.universal else skill.name


# --- attacks: bonus, the weapon's form, immunities ------------------------------------------


def attack_bonus(combatant: Combatant) -> int:
    """The ascending attack bonus; a combatant entered with THAC0 alone gets 19 − THAC0, the
    same odds against ascending AC."""
    if combatant.attack_bonus is not None:
        return combatant.attack_bonus
    return ose.attack_bonus(combatant.thac0)


def immunities_of(combatant: Combatant) -> list[str]:
    return [key for key in combatant.immunities or [] if key in IMMUNITIES]


def is_immune(target: Combatant, weapon: str) -> bool:
    return dw.is_immune([weapon], immunities_of(target))
