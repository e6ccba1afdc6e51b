"""Issue 11's "done when", told as a new referee lives it, through the views: an encounter, a
party of four by class and level, "3 hobgoblins" from the starter bestiary, one fight
(initiative, attacks both ways with damage, a save, the round's end), the encounter exported
and imported into a fresh data folder by another process, with everything intact."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse

from combat.models import Combatant, Encounter, LogEntry
from rules import fair

from .conftest import form_values

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}

PARTY = [  # name, class, level, STR, DEX, CON, INT, WIS, CHA, AC, maximum hit points
    ("Aldric", "fighter", 3, 16, 11, 14, 9, 10, 12, 2, 22),
    ("Brina", "thief", 4, 10, 17, 12, 13, 9, 11, 6, 14),
    ("Cedric", "cleric", 2, 12, 9, 13, 10, 16, 14, 4, 11),
    ("Dwyn", "magic-user", 3, 8, 13, 10, 17, 12, 10, 9, 8),
]

IMPORT_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import django
    django.setup()
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import Client
    from combat.models import Encounter
    from combat.transfer import export_encounter

    client = Client(HTTP_HOST="localhost")  # a host the fresh folder's settings allow
    upload = SimpleUploadedFile("e.json", open(sys.argv[1], "rb").read())
    reply = client.post("/import/", {"file": upload})
    assert reply.status_code == 302, reply.status_code
    page = client.get(reply["Location"])  # the new referee's page draws it
    assert page.status_code == 200, page.status_code
    print(json.dumps(export_encounter(Encounter.objects.get())))
    """
)


def _url(name: str, encounter: Encounter, *args: object) -> str:
    return reverse(name, args=[encounter.slug, *args])


def _form(client: Client, name: str, encounter: Encounter, query: str = "") -> dict[str, str]:
    url = _url(name, encounter)
    reply = client.get(url + query, **HX)
    assert reply.status_code == 200
    return form_values(reply.content.decode(), url)


def _send(client: Client, name: str, encounter: Encounter, values: dict, *args: object) -> str:
    reply = client.post(_url(name, encounter, *args), values, **HX)
    assert reply.status_code == 200, reply.status_code
    assert b'class="errorlist' not in reply.content, reply.content.decode()[:2000]
    return reply.content.decode()


def _at(client: Client, encounter: Encounter) -> str:
    page = client.get(_url("encounter", encounter)).content.decode()
    return page.split('name="at" value="')[1].split('"')[0]


def _fresh_data_folder_import(exported: bytes, tmp_path: Path) -> dict:
    """Another process, with an empty data folder: migrate, import the file as a browser
    would, and answer the imported encounter's own export."""
    (tmp_path / "e.json").write_bytes(exported)
    root = Path(django_settings.BASE_DIR)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env |= {
        "FRAY_DATA_DIR": str(tmp_path / "fray-data"),
        "DJANGO_SETTINGS_MODULE": "combat.site.settings",
        "PYTHONPATH": str(root),
    }
    run = dict(cwd=root, env=env, capture_output=True, text=True, timeout=180)
    migrated = subprocess.run([sys.executable, str(root / "manage.py"), "migrate", "-v0"], **run)
    assert migrated.returncode == 0, migrated.stderr
    script = tmp_path / "import.py"
    script.write_text(IMPORT_SCRIPT)
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "e.json")], **run)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_new_referee_s_first_evening_survives_a_fresh_data_folder(tmp_path: Path):
    referee = Client()

    # An encounter, made on the home page: this browser referees it.
    made = referee.post(
        reverse("home"), {"name": "Hobgoblin ford", "system": "ose", "attack_method": "matrix"}
    )
    assert made.status_code == 302
    encounter = Encounter.objects.get()
    settings = form_values(referee.get(made["Location"]).content.decode(), "/settings/")
    settings |= {"settings-show_foe_hp": "on", "settings-reroll_ties": "on"}
    assert referee.post(_url("encounter_settings", encounter), settings).status_code == 302

    # A party of four by class and level: THAC0 and saves come from the class's table.
    for name, klass, level, st, dx, co, it, wi, ch, ac, hp in PARTY:
        values = _form(referee, "combatant_new", encounter)
        for filled in ("thac0", "save_death", "save_wands", "save_paralysis"):
            values[filled] = ""
        values |= {"save_breath": "", "save_spells": ""}
        values |= {
            "name": name,
            "side": "party",
            "kind": "character",
            "char_class": klass,
            "level": str(level),
            "ac": str(ac),
            "hp_max": str(hp),
            "str_score": str(st),
            "dex_score": str(dx),
            "con_score": str(co),
            "int_score": str(it),
            "wis_score": str(wi),
            "cha_score": str(ch),
        }
        _send(referee, "combatant_new", encounter, values)
    aldric = Combatant.objects.get(name="Aldric")
    assert (aldric.char_class, aldric.level, aldric.thac0, aldric.save_death) == (
        "fighter",
        3,
        19,
        12,
    )

    # "3 hobgoblins" from the starter bestiary, each with its own hit points.
    add = _form(referee, "bestiary", encounter) | {"entry": "s:hobgoblin", "count": "3"}
    said = _send(referee, "bestiary", encounter, add)
    assert "3 monsters added: Hobgoblin 1–3." in said
    hobgoblins = list(Combatant.objects.filter(name__startswith="Hobgoblin").order_by("pk"))
    assert len(hobgoblins) == 3 and all(h.attacks[0]["damage"] == "1d8" for h in hobgoblins)

    # One fight: initiative, the party hits, a hobgoblin hits back, a save, the round's end.
    start = _form(referee, "fight", encounter)
    start.pop("surprise", None)
    _send(referee, "fight", encounter, start)
    initiative = _form(referee, "initiative", encounter) | {"party_die": "5", "foes_die": "2"}
    _send(referee, "initiative", encounter, initiative)

    target = hobgoblins[0]
    swing = _form(referee, "attack", encounter, f"?actor={aldric.pk}")
    swing |= {"target": str(target.pk), "natural": "20", "damage": "1d8", "damage_dice": "3"}
    _send(referee, "attack", encounter, swing)
    target.refresh_from_db()
    hit = LogEntry.objects.filter(kind="attack").first()
    assert hit.data["roll"]["success"] and hit.data["damage"]["dice"] == [3]
    assert target.hp_max - target.hp == hit.data["damage"]["total"] >= 3  # STR's bonus on top

    _send(referee, "advance", encounter, {"at": _at(referee, encounter)}, "turn")
    brina = Combatant.objects.get(name="Brina")
    claw = _form(referee, "attack", encounter, f"?actor={hobgoblins[1].pk}&attack=0")
    assert claw["damage"] == "1d8"  # the stat block's weapon, filled in
    claw |= {"target": str(brina.pk), "natural": "19", "damage_dice": "5"}
    _send(referee, "attack", encounter, claw)
    brina.refresh_from_db()
    back = LogEntry.objects.filter(kind="attack").first()
    assert back.data["roll"]["success"] and brina.hp == 14 - back.data["damage"]["total"]

    dwyn = Combatant.objects.get(name="Dwyn")
    save = _form(referee, "save", encounter, f"?actor={dwyn.pk}&category=spells")
    save |= {"natural": "17"}
    _send(referee, "save", encounter, save)
    assert LogEntry.objects.filter(kind="save").exists()

    _send(referee, "advance", encounter, {"at": _at(referee, encounter)}, "round")
    encounter.refresh_from_db()
    assert encounter.round == 2

    # The encounter as a file, into a fresh data folder, by another process.
    exported = referee.get(_url("export_encounter", encounter))
    assert exported.status_code == 200
    document = json.loads(exported.content)
    imported = _fresh_data_folder_import(exported.content, tmp_path)
    # Every field, combatant and setting, as it was; the server dice's proofs stay with the
    # log they belong to (the new encounter has rolled none).
    proofs = document.pop("dice")
    assert fair.verify(proofs)["ok"]
    assert imported.pop("dice")["rolls"] == []
    assert imported == document

    by_name = {c["name"]: c for c in imported["combatants"]}
    assert set(by_name) == {"Aldric", "Brina", "Cedric", "Dwyn"} | {
        f"Hobgoblin {n}" for n in (1, 2, 3)
    }
    for name, klass, level, st, dx, co, it, wi, ch, ac, hp in PARTY:
        row = by_name[name]
        assert (row["char_class"], row["level"], row["ac"], row["hp_max"]) == (
            klass,
            level,
            ac,
            hp,
        )
        scores = [row[f"{a}_score"] for a in ("str", "dex", "con", "int", "wis", "cha")]
        assert scores == [st, dx, co, it, wi, ch]
    assert by_name["Brina"]["hp"] == brina.hp and by_name["Dwyn"]["save_spells"] == dwyn.save_spells
    assert by_name["Hobgoblin 1"]["hp"] == target.hp
    assert [by_name[f"Hobgoblin {n}"]["hp_max"] for n in (1, 2, 3)] == [
        h.hp_max for h in hobgoblins
    ]
    assert all(
        by_name[f"Hobgoblin {n}"]["attacks"] == [{"name": "weapon", "count": 1, "damage": "1d8"}]
        for n in (1, 2, 3)
    )
    settings_back = imported["encounter"]
    assert settings_back["show_foe_hp"] is True and settings_back["reroll_ties"] is True
    assert settings_back["round"] == 2 and settings_back["system"] == "ose"
