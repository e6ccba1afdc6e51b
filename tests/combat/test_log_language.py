"""Every kind of log entry, in every system, read in Czech, Russian and Ukrainian: no English
word left over and no Latin die letter (issue 12). Each sample is the data an action stores,
drawn by what the page, the htmx answer and the broadcast use (``combat.entry_text``)."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.utils import translation

from combat import payloads, zone_log
from combat.entry_text import body_html
from combat.models import EntryKind, LogEntry

# Names stand for what players type; none is an English word.
ALDRIC, BRINA, VRK, KOG = "Mirek", "Zora", "Vrk", "Kogga"
SHIP, CUTTER, CLIMB = "Vlna", "Sokol", "Lezení"  # two ships, a skill the referee typed
NAMES = {ALDRIC, BRINA, VRK, KOG, SHIP, CUTTER, CLIMB}
# Words that are the same in every language: rules' own names and abbreviations, and the
# Dolmenwood term the Ukrainian Dolmenwood itself keeps in English (shared/glossary.md rule).
ALLOWED = {"THAC0", "THAC", "Kindred"} | NAMES  # "THAC0" as the word pattern cuts it
# Czech words spelt as the English ones, and the glossary's Czech unit for feet.
SAME_IN_CZECH = {"bonus", "maximum", "ft"}


def roll(natural: int, total: int, needed: int, success: bool, **extra: Any) -> dict[str, Any]:
    return {
        "natural": natural,
        "entered": False,
        "mods": [[2, "str"]],
        "total": total,
        "needed": needed,
        "success": success,
    } | extra


ZONE_EFFECTS = [
    {"kind": "zone_lost", "zone": "left_arm"},
    {"kind": "limb_severed", "zone": "left_arm"},
    {"kind": "dex_lost", "amount": 2},
    {"kind": "dex_halved"},
    {"kind": "condition", "condition": "cannot_defend"},
    {
        "kind": "dying",
        "amount": 3,
        "cause": "chest_destroyed",
        "roll": {"count": 1, "sides": 6, "bias": 0, "dice": [3], "total": 3, "entered": True},
    },
    {"kind": "killed", "cause": "head_destroyed"},
    {"kind": "writhing", "amount": 2},
    {"kind": "wound_will_heal"},
    {"kind": "bled", "amount": 1},
    {"kind": "wound_treated", "zone": "chest"},
    {"kind": "healed", "zone": "head", "amount": 2},
]
LOCATION = {
    "zone": "head",
    "body": "humanoid",
    "natural": 91,
    "entered": False,
    "direction": "front",
    "posture": "",
    "band": "2",
    "attacker_ft": 6,
    "weapon_ft": 3,
    "defender_ft": 6,
}
# A hit in a body zone, with each of a monster's special attacks.
ZONE_HITS: list[dict[str, Any]] = [
    {
        "zone_damage": 6,
        "zone_effects": ZONE_EFFECTS,
        "special": {"kind": "swallow", "outcome": "swallowed", "escape": 40},
    },
    {"special": {"kind": "seize_and_tear", "outcome": "seized_and_torn"}},
    {"special": {"kind": "swallow", "outcome": "escaped", "escape": 12}},
    {"special": {"kind": "constriction", "round": 2, "bonus": 3}},
    {"special": {"kind": "constriction", "round": 1, "bonus": 0}},
    {"special": {"kind": "swallow", "needed": 19}},
    {"special": {"kind": "seize_and_tear", "needed": 19}},
]
DAMAGE = {"expr": "1d8", "dice": [5], "entered": False, "mods": [[1, "str"]], "total": 6}
HIT = roll(17, 19, 14, True, hit_ac=2)
MISS = roll(7, 9, 14, False, hit_ac=None)
ATTACK = {"attacker": VRK, "target": ALDRIC, "mode": "melee", "attack_name": "", "damage": None}

SECRET_HARM = {"who": ALDRIC, "hp": -4, "amount": 4, "killed": True, "revived": False}
SECRET_HELP = {"who": BRINA, "hp": 2, "amount": 2, "killed": False, "revived": True}
OSE: list[tuple[str, dict[str, Any]]] = [
    (
        "roll",
        {
            "label": "",
            "expr": "1d6",
            "dice": [4],
            "entered": False,
            "total": 4,
            "public": [SECRET_HARM, SECRET_HELP],
        },
    ),
    ("attack", ATTACK | {"roll": HIT, "damage": DAMAGE, "killed": True}),
    ("attack", ATTACK | {"roll": MISS, "mode": "missile"}),
    ("attack", ATTACK | {"helpless": "slain", "roll": None, "killed": True}),
    ("attack", ATTACK | {"helpless": "hit", "roll": None, "damage": DAMAGE}),
    *(
        ("attack", ATTACK | {"roll": HIT, "damage": DAMAGE, "location": LOCATION} | extra)
        for extra in ZONE_HITS
    ),
    ("attack", {"attacker": VRK, "skipped": "attacker_dead", "group": {"kind": "attack"}}),
    ("attack", {"attacker": VRK, "target": ALDRIC, "skipped": "target_dead"}),
    ("save", {"who": ALDRIC, "category": "death", "roll": roll(15, 15, 10, True)}),
    (
        "save",
        {
            "who": ALDRIC,
            "category": "breath",
            "roll": roll(3, 3, 13, False),
            "damage": {"amount": 9, "taken": 9},
            "killed": True,
            "group": {"kind": "area", "index": 1, "size": 2},
        },
    ),
    (
        "save",
        {
            "who": ALDRIC,
            "category": "spells",
            "roll": roll(15, 15, 14, True),
            "damage": {"amount": 9, "taken": 4, "halved": True},
        },
    ),
    (
        "save",
        {
            "who": ALDRIC,
            "category": "wands",
            "roll": roll(15, 15, 11, True),
            "damage": {"amount": 9, "taken": 0, "negated": True},
        },
    ),
    (
        "check",
        {
            "who": ALDRIC,
            "ability": "str",
            "score": 13,
            "roll": roll(1, 1, 13, True, mods=[[-2, "difficulty"]]),
        },
    ),
    ("check", {"who": ALDRIC, "ability": "dex", "score": 9, "roll": roll(20, 20, 9, False)}),
    ("damage", {"who": ALDRIC, "applied": 5, "killed": True}),
    ("heal", {"who": ALDRIC, "amount": 8, "applied": 6, "side": "party"}),
    ("heal", {"who": VRK, "amount": 8, "applied": 6, "side": "foes"}),
    (
        "rest",
        {"who": ALDRIC, "days": 3, "interrupted": 1, "dice": [2, 3], "entered": True, "healed": 5},
    ),
    (
        "roll",
        {
            "label": "",
            "expr": "2d6+1",
            "dice": [3, 4],
            "entered": False,
            "total": 8,
            "area": {"on_save": "half", "category": "breath"},
            "waiting": [BRINA],
        },
    ),
    ("correct", {"who": ALDRIC, "before": 3, "after": 0, "side": "party", "killed": True}),
    ("correct", {"who": VRK, "before": 0, "after": 4, "side": "foes", "revived": True}),
    ("undo", {"entry_seq": 4, "entry_public_seq": 3, "revived": [ALDRIC]}),
    ("undo", {"entry_seq": 4}),
    # A change of rules system that converted armour class and attack values (rules.scales).
    (
        "convert",
        {
            "from_system": "ose",
            "to_system": "dolmenwood",
            "scale": "ascending",
            "combatants": [
                {
                    "name": ALDRIC,
                    "side": "party",
                    "ac_before": 2,
                    "ac_after": 17,
                    "attack_before": 17,
                    "attack_after": 2,
                },
                {
                    "name": VRK,
                    "side": "foes",
                    "ac_before": 7,
                    "ac_after": 12,
                    "attack_before": 19,
                    "attack_after": 0,
                },
            ],
        },
    ),
    (
        "convert",
        {
            "from_system": "dolmenwood",
            "to_system": "becmi",
            "scale": "descending",
            "combatants": [
                {
                    "name": ALDRIC,
                    "side": "party",
                    "ac_before": 17,
                    "ac_after": 2,
                    "attack_before": 2,
                    "attack_after": 17,
                },
            ],
        },
    ),
    (
        "combat",
        {
            "event": "start",
            "surprise": {"party": [2, False], "foes": [5, True], "surprised": "party"},
        },
    ),
    (
        "combat",
        {
            "event": "start",
            "surprise": {"party": [1, False], "foes": [2, False], "surprised": "both"},
        },
    ),
    (
        "combat",
        {
            "event": "end",
            "rounds": 3,
            "fell": [["foes", [{"name": VRK, "hidden": False}, {"name": KOG, "hidden": True}]]],
            "fled": [["party", [{"name": BRINA, "hidden": False}]]],
            "awards": [
                {"name": VRK, "hd": "1", "xp": 10, "table": 10, "hidden": False},
                {"name": KOG, "hd": "2", "xp": 30, "table": 20, "hidden": True},
                {"name": KOG, "hd": "", "xp": 5, "table": None, "hidden": False},
            ],
            "xp_total": 45,
            "shares": 2,
            "per_share": 22,
            "remainder": 1,
        },
    ),
    (
        "initiative",
        {
            "round": 1,
            "mode": "group",
            "party": [4, False],
            "foes": [4, True],
            "rerolls": [[5, 2]],
            "first": "party",
        },
    ),
    (
        "initiative",
        {
            "round": 2,
            "again": True,
            "mode": "group",
            "party": [3, False],
            "foes": [3, False],
            "rerolls": [],
            "first": "tie",
        },
    ),
    (
        "initiative",
        {
            "round": 3,
            "mode": "individual",
            "rolls": [[ALDRIC, 4, True, 1, 5], [VRK, 2, False, 0, 2]],
        },
    ),
    (
        "turn",
        {
            "event": "round",
            "round": 2,
            "expired": [[ALDRIC, "asleep", ""]],
            "zones": [
                {
                    "who": VRK,
                    "effects": ZONE_EFFECTS,
                    "body": "humanoid",
                    "killed": True,
                    "hidden": False,
                }
            ],
        },
    ),
    ("turn", {"event": "step", "done": True}),
    ("turn", {"event": "step", "acting": {"sides": ["foes"], "names": []}}),
    ("turn", {"event": "step", "acting": {"sides": [], "names": [ALDRIC, BRINA]}}),
    (
        "morale",
        {
            "side": "foes",
            "score": 7,
            "dice": [6, 5],
            "entered": False,
            "total": 11,
            "passed": False,
            "fled": [VRK],
        },
    ),
    (
        "morale",
        {
            "side": "party",
            "score": 9,
            "dice": [2, 3],
            "entered": False,
            "total": 5,
            "passed": True,
            "to_the_death": True,
        },
    ),
    ("condition", {"event": "add", "who": ALDRIC, "kind": "paralysed", "rounds": 3}),
    ("condition", {"event": "end", "who": ALDRIC, "kind": "held"}),
    (
        "zone",
        {
            "event": "damage",
            "who": ALDRIC,
            "zone": "left_leg",
            "body": "humanoid",
            "amount": 4,
            "effects": ZONE_EFFECTS,
            "killed": True,
        },
    ),
    (
        "zone",
        {
            "event": "heal",
            "who": ALDRIC,
            "zone": "chest",
            "body": "humanoid",
            "side": "party",
            "effects": [{"kind": "healed", "zone": "chest", "amount": 2}],
        },
    ),
]

DW_ROLL = roll(12, 14, 12, True, sides=20, automatic=False, mods=[[2, "attack_bonus"]])
DOLMENWOOD: list[tuple[str, dict[str, Any]]] = [
    (
        "attack",
        ATTACK
        | {
            "weapon": "silver",
            "roll": DW_ROLL,
            "damage": DAMAGE | {"outcome": "normal", "mods": [[1, "bonus"]]},
        },
    ),
    (
        "attack",
        ATTACK
        | {"weapon": "mundane", "roll": DW_ROLL | {"total": 10, "success": False}, "killed": False},
    ),
    (
        "attack",
        ATTACK
        | {
            "weapon": "mundane",
            "roll": DW_ROLL | {"natural": 20, "automatic": True},
            "damage": {"outcome": "immune"},
        },
    ),
    (
        "attack",
        ATTACK
        | {
            "weapon": "magic",
            "roll": DW_ROLL | {"natural": 1, "total": 14, "success": False, "automatic": True},
        },
    ),
    (
        "attack",
        ATTACK
        | {
            "weapon": "mundane",
            "roll": DW_ROLL,
            "killed": True,
            "damage": DAMAGE | {"outcome": "minimum", "mods": [], "total": 1},
        },
    ),
    (
        "save",
        {
            "who": ALDRIC,
            "category": "doom",
            "effect": "poison",
            "magical": True,
            "roll": DW_ROLL | {"natural": 1, "automatic": True, "success": False},
        },
    ),
    ("save", {"who": ALDRIC, "category": "ray", "roll": DW_ROLL}),
    (
        "check",
        {
            "who": ALDRIC,
            "ability": "wis",
            "score": 12,
            "roll": roll(6, 6, 4, True, sides=6, automatic=True),
        },
    ),
    (
        "skill",
        {
            "who": ALDRIC,
            "skill": "listen",
            "targets": [5, 4],
            "roll": roll(5, 5, 4, True, sides=6, automatic=False, mods=[]),
        },
    ),
    (
        "skill",
        {
            "who": ALDRIC,
            "skill": "",
            "name": CLIMB,
            "targets": [4],
            "roll": roll(1, 1, 4, False, sides=6, automatic=True, mods=[]),
        },
    ),
    (
        "chance",
        {
            "label": "",
            "kind": "x_in_6",
            "chance": 2,
            "natural": 1,
            "entered": False,
            "success": True,
        },
    ),
    (
        "chance",
        {
            "label": "",
            "kind": "percent",
            "chance": 15,
            "natural": 40,
            "entered": True,
            "success": False,
        },
    ),
]
BECMI_ROLL = roll(9, 11, 14, False, sides=20, automatic=False, mods=[[-2, "range_long"]])
BECMI: list[tuple[str, dict[str, Any]]] = [
    (
        "attack",
        ATTACK
        | {
            "mode": "missile",
            "range": "long",
            "cover": "half",
            "cover_material": "soft",
            "outcome": "miss",
            "roll": BECMI_ROLL,
        },
    ),
    (
        "attack",
        ATTACK
        | {
            "range": "",
            "cover": "none",
            "outcome": "hit",
            "killed": True,
            "roll": BECMI_ROLL | {"total": 15, "success": True},
            "damage": DAMAGE | {"mods": [[1, "str"]]},
        },
    ),
    (
        "attack",
        ATTACK
        | {
            "range": "",
            "cover": "none",
            "outcome": "miss",
            "roll": BECMI_ROLL | {"natural": 1, "automatic": True},
        },
    ),
    (
        "attack",
        ATTACK
        | {
            "range": "",
            "cover": "full",
            "cover_material": "hard",
            "outcome": "impossible",
            "roll": None,
        },
    ),
    ("save", {"who": ALDRIC, "category": "breath", "magical": True, "roll": DW_ROLL}),
]
BECMI_SPECIAL: list[tuple[str, dict[str, Any]]] = [
    (
        "strike",
        {
            "becmi": "strike",
            "attacker": ALDRIC,
            "target": VRK,
            "blow": "punch",
            "haymaker": True,
            "pulled": True,
            "outcome": "knocked_out",
            "roll": roll(15, 17, 12, True, mods=[[2, "haymaker"]]),
            "damage": 3,
            "stun": {"natural": 4, "t": 2, "entered": False},
            "con": 2,
            "save": roll(3, 3, 12, False),
            "knockout_rounds": 4,
            "killed": False,
        },
    ),
    (
        "strike",
        {
            "becmi": "strike",
            "attacker": ALDRIC,
            "target": VRK,
            "blow": "kick",
            "outcome": "stunned",
            "roll": roll(15, 15, 12, True),
            "damage": 2,
            "stun": {"natural": 9, "t": 7},
            "con": 2,
            "save": roll(15, 15, 12, True),
        },
    ),
    (
        "strike",
        {
            "becmi": "strike",
            "attacker": ALDRIC,
            "target": VRK,
            "blow": "kick",
            "outcome": "hit",
            "roll": roll(15, 15, 12, True),
            "damage": 2,
        },
    ),
    (
        "strike",
        {
            "becmi": "strike",
            "attacker": ALDRIC,
            "target": VRK,
            "blow": "punch",
            "outcome": "miss",
            "roll": roll(2, 4, 12, False),
        },
    ),
    (
        "strike",
        {
            "becmi": "strike",
            "attacker": ALDRIC,
            "target": VRK,
            "blow": "punch",
            "outcome": "impossible",
        },
    ),
    (
        "wrestle",
        {
            "becmi": "wrestle",
            "start": True,
            "attacker": ALDRIC,
            "defender": VRK,
            "helpers": [BRINA],
            "defender_helpers": [KOG],
            "attacker_roll": roll(10, 14, 0, True, mods=[[4, "wrestling_rating"]]),
            "defender_roll": roll(6, 8, 0, False, mods=[[2, "helpers_small"]]),
            "winner": "attacker",
            "before": "free",
            "hold": "grabbed",
        },
    ),
    (
        "wrestle",
        {
            "becmi": "wrestle",
            "attacker": ALDRIC,
            "defender": VRK,
            "attacker_roll": roll(10, 10, 0, True),
            "defender_roll": roll(10, 10, 0, True),
            "winner": "tie",
            "before": "thrown",
            "hold": "thrown",
        },
    ),
    (
        "wrestle",
        {
            "becmi": "wrestle",
            "start": True,
            "attacker": ALDRIC,
            "defender": VRK,
            "attacker_roll": roll(2, 2, 0, False),
            "defender_roll": roll(10, 10, 0, True),
            "winner": "defender",
            "before": "free",
            "hold": "free",
        },
    ),
    (
        "wrestle",
        {
            "becmi": "wrestle",
            "attacker": ALDRIC,
            "defender": VRK,
            "broken": True,
            "attacker_roll": roll(2, 2, 0, False),
            "defender_roll": roll(10, 10, 0, True),
            "winner": "defender",
            "before": "grabbed",
            "hold": "free",
        },
    ),
    (
        "wrestle",
        {
            "becmi": "wrestle",
            "attacker": ALDRIC,
            "defender": VRK,
            "attacker_roll": roll(12, 12, 0, True),
            "defender_roll": roll(3, 3, 0, False, mods=[[-4, "pinned"]]),
            "winner": "attacker",
            "before": "thrown",
            "hold": "pinned",
            "save": roll(4, 4, 12, False),
            "damage": 3,
            "killed": True,
        },
    ),
    (
        "wrestle",
        {
            "becmi": "wrestle",
            "attacker": ALDRIC,
            "defender": VRK,
            "attacker_roll": roll(12, 12, 0, True),
            "defender_roll": roll(3, 3, 0, False),
            "winner": "attacker",
            "before": "pinned",
            "hold": "pinned",
            "save": roll(14, 14, 12, True),
            "damage": 0,
        },
    ),
    ("wrestle", {"becmi": "wrestle_end", "attacker": ALDRIC, "defender": VRK}),
]
HULL = {
    "hull": 20,
    "hull_max": 40,
    "speed": 60,
    "side": "party",
    "status": "sinking",
    "status_before": "afloat",
}
NAVAL: list[tuple[str, dict[str, Any]]] = [
    (
        "naval",
        {
            "becmi": "ram",
            "ship": SHIP,
            "target": CUTTER,
            "vessel": "large_galley",
            "roll": roll(15, 15, 12, True),
            "against": "ship",
            "damage": {"dice": [3, 4], "entered": False, "total": 7},
            "hull": HULL,
        },
    ),
    (
        "naval",
        {
            "becmi": "ram",
            "ship": SHIP,
            "target": VRK,
            "vessel": "small_galley",
            "roll": roll(5, 5, 12, False),
            "against": "creature",
            "killed": True,
        },
    ),
    (
        "naval",
        {
            "becmi": "grapple",
            "ship": SHIP,
            "target": CUTTER,
            "distance": 30,
            "natural": 2,
            "entered": False,
            "outcome": "grappled",
            "grappled": True,
        },
    ),
    (
        "naval",
        {
            "becmi": "grapple",
            "ship": SHIP,
            "target": CUTTER,
            "distance": 30,
            "natural": 5,
            "entered": True,
            "outcome": "missed",
            "grappled": False,
        },
    ),
    (
        "naval",
        {
            "becmi": "grapple",
            "ship": SHIP,
            "target": CUTTER,
            "distance": 60,
            "outcome": "out_of_range",
            "grappled": False,
        },
    ),
    (
        "naval",
        {
            "becmi": "grapple",
            "ship": SHIP,
            "target": CUTTER,
            "distance": 0,
            "outcome": "agreed",
            "grappled": True,
        },
    ),
    (
        "naval",
        {
            "becmi": "board",
            "attacker": ALDRIC,
            "target": VRK,
            "target_boarding": True,
            "ac": 9,
            "roll": roll(12, 12, 10, True),
            "damage": DAMAGE,
            "killed": True,
        },
    ),
    (
        "naval",
        {
            "becmi": "hull_damage",
            "ship": SHIP,
            "hit_points": 12,
            "hull_damage": 2,
            "hull": HULL | {"status_before": "afloat", "status": "dead_in_water"},
        },
    ),
    (
        "naval",
        {
            "becmi": "repair",
            "ship": SHIP,
            "crew": 10,
            "turns": 3,
            "repaired": 5,
            "dice": [1, 2, 3, 4, 5],
            "entered": False,
            "days": 15,
            "hull": HULL,
        },
    ),
    ("naval", {"becmi": "repairs_fail", "ship": SHIP, "lost": 5, "hull": HULL}),
    ("naval", {"becmi": "rowers", "ship": SHIP, "count": 3, "hull": HULL}),
]

SAMPLES: list[tuple[str, str, dict[str, Any]]] = (
    [("ose", kind, data) for kind, data in OSE]
    + [("dolmenwood", kind, data | {"system": "dolmenwood"}) for kind, data in DOLMENWOOD]
    + [("becmi", kind, data | {"system": "becmi"}) for kind, data in BECMI]
    + [("becmi", kind, data | {"system": "becmi"}) for kind, data in BECMI_SPECIAL + NAVAL]
)
LANGUAGES = ("cs", "ru", "uk")
# A die written the English way: "d20", "1d8", "2d6+1" (Czech writes k, Russian and
# Ukrainian the Cyrillic к).
LATIN_DIE = {
    "cs": re.compile(r"(?<![^\W\d_])\d*[dк]\d+"),
    "ru": re.compile(r"(?<![^\W\d_])\d*[dk]\d+"),
    "uk": re.compile(r"(?<![^\W\d_])\d*[dk]\d+"),
}
WORD = re.compile(r"[^\W\d_]{2,}")


def render(kind: str, data: dict[str, Any], language: str, *, referee: bool = True) -> str:
    entry = LogEntry(
        seq=5,
        public_seq=4,
        kind=kind,
        actor=ALDRIC,
        by_referee=True,
        data=data,
        secret="public" in data,  # players see only what a secret entry did to what they see
    )
    with translation.override(language):
        html = body_html(entry, undone=6, referee=referee, show_numbers=referee)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def english_words(text: str, english: str) -> set[str]:
    """Words of the English rendering that survive into the translated one (Czech shares
    Latin letters with English, so the English rendering says which words are English)."""
    same = set(WORD.findall(english))
    return {w for w in WORD.findall(text) if w in same} - ALLOWED - SAME_IN_CZECH


def test_the_samples_cover_every_kind_of_entry() -> None:
    assert {kind for _, kind, _ in SAMPLES} == set(EntryKind.values)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    ("system", "kind", "data"),
    SAMPLES,
    ids=[f"{system}-{kind}-{n}" for n, (system, kind, _) in enumerate(SAMPLES)],
)
def test_an_entry_reads_in_the_language_with_no_english_left(
    language: str, system: str, kind: str, data: dict[str, Any]
) -> None:
    for referee in (True, False):
        english = render(kind, data, "en", referee=referee)
        text = render(kind, data, language, referee=referee)
        assert english != text, "the entry is not translated at all"
        leftover = english_words(text, english)
        if language != "cs":  # Cyrillic: any Latin word is English
            leftover |= (
                set(WORD.findall(text))
                - ALLOWED
                - {w for w in WORD.findall(text) if not w.isascii()}
            )
        assert not leftover, f"English in the {language} entry: {sorted(leftover)}\n{text}"
        assert not LATIN_DIE[language].search(text), f"a die written in English: {text}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_zone_effects_read_in_the_language(language: str) -> None:
    english = zone_log.effects_text(ZONE_EFFECTS, "humanoid")
    with translation.override(language):
        text = zone_log.effects_text(ZONE_EFFECTS, "humanoid")
    assert not english_words(text, english), text
    assert not LATIN_DIE[language].search(text), text


def test_a_hit_says_the_ac_it_hits_and_a_miss_what_it_needed() -> None:
    hit = render("attack", ATTACK | {"roll": HIT}, "en")
    miss = render("attack", ATTACK | {"roll": MISS}, "en")
    assert "Hit! · hits AC 2" in hit
    assert "AC" not in miss and "Miss: needed 14, rolled 9." in miss
    assert "Vedle: potřeba 14, padlo 9." in render("attack", ATTACK | {"roll": MISS}, "cs")


@pytest.mark.parametrize(
    ("language", "expected"),
    [("cs", "Útok: Vrk → Zora"), ("ru", "Атака: Vrk → Zora"), ("uk", "Атака: Vrk → Zora")],
)
def test_names_need_no_grammatical_case_or_gender(language: str, expected: str) -> None:
    data = ATTACK | {"target": BRINA, "roll": HIT, "damage": DAMAGE, "killed": True}
    text = render("attack", data, language)
    assert expected in text
    assert not re.search(r"mrtv[ýá]|мёртв|мертв[аи]й", text)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_rows_state_words_need_no_gender_and_no_english(language, encounter, player):
    from combat.access import Viewer
    from combat.live.state import render_snapshot
    from combat.models import Condition, ConditionKind

    from .conftest import character, monster

    character(encounter, BRINA, hp=0, seat=player.seat)
    monster(encounter, VRK, hp=0)
    monster(encounter, KOG, hp_max=10, hp=3, fled=True)
    wounded = monster(encounter, SHIP, hp_max=10, hp=8)
    Condition.objects.create(combatant=wounded, kind=ConditionKind.ASLEEP, rounds_left=2)
    viewer = Viewer(encounter, is_referee=False, seat=player.seat)
    _seq, english = render_snapshot(viewer, "en")
    _seq, html = render_snapshot(viewer, language)
    rows = " ".join(re.findall(r'<li class="combatant[^"]*".*?</li>', html, re.S))
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", rows)).split())
    words = {"cs": ("mimo boj", "spánek"), "ru": ("вне боя", "сон"), "uk": ("поза боєм", "сон")}
    for word in words[language]:
        assert word in text, text
    assert not re.search(
        r"\b(mrtv[ýá]|vyřazen[ýá]|zraněn[ýá]|мёртв|ранен|повержен|мертв[аи]й|поранен[аи]й|вибув)\b",
        text,
    )
    english_rows = " ".join(re.findall(r'<li class="combatant[^"]*".*?</li>', english, re.S))
    english_text = unescape(re.sub(r"<[^>]+>", " ", english_rows))
    assert not english_words(text, english_text), text


@pytest.mark.parametrize(
    ("system", "kind", "data"),
    SAMPLES,
    ids=[f"{system}-{kind}-{n}" for n, (system, kind, _) in enumerate(SAMPLES)],
)
def test_every_kind_of_entry_reads_as_its_typed_payload(
    system: str, kind: str, data: dict[str, Any]
) -> None:
    """Every kind of entry of every system is read by a payload class of its own
    (``combat.payloads``), which declares every key it stores and writes back what it read."""
    payload = payloads.read(kind, data)
    assert not isinstance(payload, payloads.Raw), (system, kind)
    assert payload.undeclared == {}, (system, kind, sorted(payload.undeclared))
    assert payloads.read(kind, payload.to_json()) == payload
