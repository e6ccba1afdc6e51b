"""The starter bestiary in the reader's language (issue 32): its names, attack names, movement
words, special notes and "normal human" Hit Dice are said in Czech, Russian and Ukrainian; the
stored entry keeps its English key; a referee's own monsters keep the names they typed."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from combat import bestiary, starter_words
from combat.models import Side

from .conftest import form_values, monster

STARTER = Path(bestiary.STARTER_DIR)
LANGUAGES = ("cs", "ru", "uk")
LATIN_DIE = re.compile(r"\d*d\d+")


def _entries() -> list[dict]:
    return [e for path in STARTER.glob("*.json") for e in json.loads(path.read_text())["entries"]]


def _add(client: Client, encounter, key: str, count: int = 1):
    data = {"entry": key, "count": count, "side": Side.FOES}
    return client.post(
        reverse("bestiary", args=[encounter.slug]), data, headers={"hx-request": "true"}
    )


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def test_every_word_of_the_starter_files_has_its_message():
    for entry in _entries():
        assert entry["name"] in starter_words.NAMES, entry["name"]
        for attack in entry.get("attacks", []):
            assert attack["name"] in starter_words.ATTACKS, attack["name"]
        if "special_notes" in entry:
            assert entry["special_notes"] in starter_words.NOTES, entry["special_notes"]
        words = re.sub(r"[\d' ()]|,", " ", entry.get("movement", "")).split()
        for word in " ".join(words).replace("in webs", "").split():
            assert word in starter_words.MOVES, (entry["name"], word)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_starter_word_is_said_in_the_language(language):
    tables = [starter_words.NAMES, starter_words.ATTACKS, starter_words.MOVES, starter_words.NOTES]
    with translation.override(language):
        for table in tables:
            for key, said in table.items():
                text = str(said)
                # Some names are the same in Czech (Kobold, Troll…); Cyrillic is never English.
                if language != "cs":
                    assert not re.search(r"[A-Za-z]{2,}", text.replace("STR", "")), (key, text)
                assert not LATIN_DIE.search(text), (key, text)
        assert starter_words.hit_dice("normal human") != "normal human"
        assert starter_words.movement("60' (20'), fly 150' (50')").startswith("60' (20'), ")
        assert "fly" not in starter_words.movement("60' (20'), fly 150' (50')")


@pytest.mark.parametrize(
    ("language", "name", "attack"),
    [("cs", "Skřet", "zbraň"), ("ru", "Гоблин", "оружие"), ("uk", "Гоблін", "зброя")],
)
def test_a_starter_monster_added_by_a_referee_is_named_in_their_language(
    encounter, referee, player, language, name, attack
):
    referee.cookies["django_language"] = language
    reply = _add(referee, encounter, "s:goblin", 2)
    assert f"{name} 1–2" in _text(reply.content.decode())
    goblins = list(encounter.combatants.order_by("pk"))
    assert [g.name for g in goblins] == [f"{name} 1", f"{name} 2"]
    # The attack stays a key: each reader sees it in their own language.
    assert goblins[0].attacks == [{"name": "weapon", "count": 1, "damage": "1d6"}]
    page = _text(referee.get(reverse("encounter", args=[encounter.slug])).content.decode())
    assert attack in page and "weapon" not in page
    referee.cookies["django_language"] = "en"
    page = _text(referee.get(reverse("encounter", args=[encounter.slug])).content.decode())
    assert "weapon" in page


def test_movement_and_notes_are_written_in_the_referee_s_language(encounter, referee):
    referee.cookies["django_language"] = "cs"
    _add(referee, encounter, "s:harpy")
    harpy = encounter.combatants.get()
    assert harpy.movement == "60' (20'), let 150' (50')"
    assert harpy.special_notes == str(
        starter_words.NOTES["Song charms those who hear it (save vs spells)."]
    )
    assert "Song" not in harpy.special_notes


def test_the_add_form_lists_the_starter_entries_in_the_reader_s_language(encounter, referee):
    referee.cookies["django_language"] = "ru"
    panel = referee.get(reverse("bestiary", args=[encounter.slug])).content.decode()
    assert "Обычный человек · КХ обычный человек" in _text(panel)
    assert "Gelatinous cube" not in panel and "Rat, giant" not in panel
    assert "normal human" not in panel


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_attack_from_a_starter_attack_button_reads_in_each_reader_s_language(
    encounter, referee, player, language
):
    _add(referee, encounter, "s:bear-black")
    bear = encounter.combatants.get()
    target = monster(encounter, "Mirek")
    url = reverse("attack", args=[encounter.slug])
    form = referee.get(url, {"actor": bear.pk, "attack": 1}).content.decode()
    assert "bite" in form  # the referee reads English
    sent = form_values(form, url) | {"target": str(target.pk), "natural": "20"}
    reply = referee.post(url, sent, headers={"hx-request": "true"})
    assert reply.status_code == 200 and encounter.log.count() == 1, _text(reply.content.decode())
    said = {"cs": "kousnutí", "ru": "укус", "uk": "укус"}[language]
    player.cookies["django_language"] = language
    log = _text(player.get(reverse("log", args=[encounter.slug])).content.decode())
    assert said in log and "bite" not in log


def test_a_starter_attack_edited_in_another_language_stays_its_key(encounter, referee):
    _add(referee, encounter, "s:bear-black")
    bear = encounter.combatants.get()
    field = __import__("combat.monsters", fromlist=["AttacksField"]).AttacksField()
    with translation.override("cs"):
        shown = field.prepare_value(bear.attacks)
        assert shown == "2 dráp 1k3, kousnutí 1k6"
        assert field.clean(shown) == bear.attacks
        assert field.clean("2 Dráp 1k3, ocas 1k4")[1]["name"] == "ocas"  # typed: as typed


def test_a_referee_s_own_entry_keeps_the_name_they_typed(encounter, referee):
    from combat.models import BestiaryEntry

    entry = BestiaryEntry(name="Goblin", system="ose", stats={"hit_dice": "1"})
    entry.pk = 7
    with translation.override("cs"):
        assert bestiary.shown_name(entry) == "Goblin"
        assert bestiary.shown_name(bestiary.starter("ose").find("goblin")) == "Skřet"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("system", ["ose", "dolmenwood", "becmi"])
def test_every_starter_monster_can_be_added_in_every_language(encounter, referee, language, system):
    """Its name, movement and notes in the language still fit a combatant's limits."""
    encounter.system = system
    encounter.save(update_fields=["system"])
    referee.cookies["django_language"] = language
    entries = bestiary.starter(system).entries
    for entry in entries:
        _add(referee, encounter, bestiary.starter_key(entry))
    names = set(encounter.combatants.values_list("name", flat=True))
    with translation.override(language):
        assert names == {bestiary.shown_name(e) for e in entries}
