"""The file formats page (``/formats/``): served in every language, naming every key the
exporters really write (so it cannot drift from them), its example files importing as they
stand, and linked from where the files are exported and imported."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils.functional import Promise

from combat import bestiary, party, rounds, transfer, zones
from combat.access import Viewer
from combat.models import Condition, ConditionKind, Encounter, Kind, Side

from .conftest import character, monster

pytestmark = pytest.mark.django_db

LANGUAGES = ("en", "cs", "ru", "uk")
CODE = re.compile(r"<code>(.*?)</code>", re.S)


def _page(language: str = "en") -> str:
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    response = client.get(reverse("formats"))
    assert response.status_code == 200, language
    return response.content.decode()


def _named(page: str) -> set[str]:
    """Every word the page writes as code: field names, keys and values."""
    found = set()
    for text in CODE.findall(page):
        found |= set(re.findall(r"[\w-]+", html.unescape(text)))
    return found


@pytest.fixture
def exported() -> dict[str, Any]:
    """The three files as Fray writes them from a table using what they can hold: hit
    locations, a character with a lasting condition, a monster with attacks, a ship, a fight
    under way with a morale check made."""
    encounter = Encounter.objects.create(name="Hobgoblin ford", hit_locations=True)
    hero = character(encounter, "Aldric", char_class="fighter", level=3, notes="3 torches")
    Condition.objects.create(combatant=hero, kind=ConditionKind.PARALYSED, rounds_left=120)
    goblin = monster(
        encounter,
        "Hobgoblin",
        hit_dice="1+1",
        morale=8,
        attacks=[{"name": "weapon", "count": 1, "damage": "1d8"}],
        saves_as="fighter:1",
    )
    Condition.objects.create(combatant=goblin, kind=ConditionKind.ASLEEP, rounds_left=3)
    monster(encounter, "Galley", kind=Kind.SHIP, side=Side.FOES, speed=90, crew=20, rowers=60)
    zones.sync_all(encounter)
    referee = Viewer(encounter, is_referee=True, seat=None)
    rounds.start(referee, surprise=False)
    rounds.roll_initiative(referee)
    rounds.check_morale(referee, side=Side.FOES, score=8, dice=[1, 1])
    encounter.refresh_from_db()
    campaign = encounter.campaign_or_new()
    bestiary.save_from(goblin, campaign)
    return {
        "encounter": transfer.export_encounter(encounter),
        "party": party.export_party(encounter),
        "bestiary": bestiary.export_bestiary(campaign),
    }


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_page_answers_in_every_language(language):
    page = _page(language)
    assert f'<html lang="{language}"' in page
    for anchor in ("encounter", "party", "bestiary", "refused"):
        assert f'id="{anchor}"' in page


def test_the_page_is_refused_to_a_post():
    assert Client().post(reverse("formats")).status_code == 405


def test_the_page_names_every_top_level_key_each_file_holds(exported):
    named = _named(_page())
    for kind, document in exported.items():
        assert set(document) - named == set(), kind
        assert document["format"] in named, kind
    assert "source" in named  # a bestiary file may name its source once, at the top


def test_the_page_names_every_key_of_every_record_the_exporters_write(exported):
    named = _named(_page())
    encounter = exported["encounter"]
    records = {
        "encounter": set(encounter["encounter"]),
        "combatant": {key for c in encounter["combatants"] for key in c},
        "condition": {key for c in encounter["combatants"] for k in c["conditions"] for key in k},
        "party member": {key for c in exported["party"]["combatants"] for key in c},
        "bestiary entry": {key for e in exported["bestiary"]["entries"] for key in e},
        "turn": set(encounter["encounter"]["turn"]),
        "turn order": {key for step in encounter["encounter"]["turn"]["order"] for key in step},
        "morale": {key for side in encounter["encounter"]["morale"].values() for key in side},
    }
    for what, keys in records.items():
        assert keys, what
        assert keys - named == set(), what


def test_the_page_names_every_value_a_choice_field_takes(exported):
    named = _named(_page())
    for combatant in exported["encounter"]["combatants"]:
        assert {combatant["side"], combatant["kind"], combatant["body"]} <= named
        assert {k["kind"] for k in combatant["conditions"]} <= named
    assert exported["encounter"]["encounter"]["system"] in named


def _examples(page: str) -> dict[str, bytes]:
    found = re.findall(r'<pre id="example-(\w+)"[^>]*>(.*?)</pre>', page, re.S)
    return {name: html.unescape(text).encode() for name, text in found}


def test_each_example_file_imports_as_it_stands(encounter):
    examples = _examples(_page())
    assert set(examples) == {"encounter", "party", "bestiary"}
    imported = transfer.import_encounter(examples["encounter"])
    assert imported.combatants.count() == 2 and imported.turn["order"][0]["ids"]
    viewer = Viewer(encounter, is_referee=True, seat=None)
    [member] = party.import_party(viewer, examples["party"])
    assert member.side == Side.PARTY and member.conditions.count() == 1
    result = bestiary.import_bestiary(examples["bestiary"], encounter.campaign_or_new())
    assert result.added == 1


def test_the_examples_say_what_the_files_are():
    examples = _examples(_page())
    for kind, file_kind in (
        ("encounter", transfer.ENCOUNTER_FILE),
        ("party", party.PARTY_FILE),
        ("bestiary", bestiary.BESTIARY_FILE),
    ):
        document = json.loads(examples[kind])
        assert document["format"] == file_kind.format
        assert document["version"] == file_kind.version


def test_export_and_import_link_to_the_page(encounter, referee):
    url = reverse("formats")
    home = Client().get(reverse("home")).content.decode()
    assert f'href="{url}#encounter"' in home  # Import an encounter
    tools = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert f'href="{url}"' in tools  # beside Export (JSON), with the party's files
    panel = referee.get(reverse("bestiary", args=[encounter.slug])).content.decode()
    assert f'href="{url}#bestiary"' in panel


def test_every_field_is_named_in_words_a_catalogue_translates():
    """A field whose model gives it no name of its own would show Django's English default
    ("zones") on every page: the view names it (``combat.views.formats.LABELS``)."""
    response = Client().get(reverse("formats"))
    for table in response.context["tables"]:
        for field in table.fields:
            assert isinstance(field.label, Promise) or str(field.label) == "THAC0", field.name


@pytest.mark.parametrize("language", ["cs", "ru", "uk"])
def test_the_page_and_its_links_are_in_the_reader_s_language(language, encounter, referee):
    """Needs the page's messages in the catalogues (merged by the lead from this branch's
    translations)."""
    page = _page(language)
    english = _page("en")
    main = page[page.index("<main>") :]
    for words in ("File formats", "When a file is refused", "A combatant&#x27;s fields"):
        assert words in english
        assert words not in main, (language, words)
    referee.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    panel = referee.get(reverse("bestiary", args=[encounter.slug])).content.decode()
    assert ">File formats</a>" not in panel
