"""The bestiary: saving a monster as a template, adding several from an entry (the campaign's
own or the starter bestiary), editing and removing entries, the starter files themselves, and
the bestiary as a file (round trip, refusals, a Hypothesis fuzz, who may)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combat import bestiary, classes, monsters, transfer
from combat.models import BestiaryEntry, Combatant, Encounter, Kind, Side
from combat.systems import common as systems
from combat.systems.dolmenwood import terms as dw_terms
from rules import dice, ose

from .conftest import character, monster
from .test_transfer import fuzzed

DATA = Path(__file__).parent / "data" / "starter_bestiary.json"


def _url(name: str, encounter: Encounter, *args: object) -> str:
    return reverse(name, args=[encounter.slug, *args])


def _add(client: Client, encounter: Encounter, key: str, count: int, **extra) -> object:
    data = {"entry": key, "count": count, "side": Side.FOES} | extra
    return client.post(_url("bestiary", encounter), data, headers={"hx-request": "true"})


# --- adding from the starter bestiary ----------------------------------------------------------


def test_three_hobgoblins_from_the_starter_bestiary_each_roll_their_own_hit_points(
    encounter, referee
):
    reply = _add(referee, encounter, "s:hobgoblin", 3)
    assert reply.status_code == 200
    added = list(encounter.combatants.order_by("pk"))
    assert [c.name for c in added] == ["Hobgoblin 1", "Hobgoblin 2", "Hobgoblin 3"]
    for hobgoblin in added:
        assert hobgoblin.kind == Kind.MONSTER and hobgoblin.side == Side.FOES
        assert (hobgoblin.ac, hobgoblin.hit_dice, hobgoblin.thac0, hobgoblin.morale) == (
            6,
            "1+1",
            18,
            8,
        )
        assert 2 <= hobgoblin.hp_max <= 9 and hobgoblin.hp == hobgoblin.hp_max
        assert hobgoblin.attacks == [{"name": "weapon", "count": 1, "damage": "1d8"}]
    assert "3 monsters added: Hobgoblin 1–3." in reply.content.decode()
    encounter.refresh_from_db()
    assert encounter.seq == 1  # one change, announced once


def test_hit_points_are_rolled_per_monster_from_the_hit_dice(encounter, referee, monkeypatch):
    rolled = iter([1, 8, 5])
    monkeypatch.setattr(
        ose, "monster_hit_points", lambda expression, rng=None: next(rolled) + 1
    )  # 1+1 HD: a d8 plus one
    _add(referee, encounter, "s:hobgoblin", 3)
    assert [c.hp_max for c in encounter.combatants.order_by("pk")] == [2, 9, 6]


def test_one_monster_keeps_its_name_unnumbered_and_may_be_hidden_on_the_party_side(
    encounter, referee
):
    _add(referee, encounter, "s:ogre", 1, side=Side.PARTY, hidden="on")
    ogre = encounter.combatants.get()
    assert (ogre.name, ogre.side, ogre.hidden, ogre.xp) == ("Ogre", Side.PARTY, True, 125)


def test_a_form_sent_twice_adds_once(encounter, referee):
    page = referee.get(_url("bestiary", encounter)).content.decode()
    once = page.split('name="once" value="')[1].split('"')[0]
    for _ in range(2):
        _add(referee, encounter, "s:goblin", 2, once=once)
    assert encounter.combatants.count() == 2


@pytest.mark.parametrize(
    "data",
    [
        {"entry": "s:tarrasque", "count": 1},
        {"entry": "c:999999", "count": 1},
        {"entry": "s:goblin", "count": 0},
        {"entry": "s:goblin", "count": 31},
        {"entry": "s:goblin\x00", "count": 1},
        {"entry": "", "count": "three"},
    ],
)
def test_a_bad_add_is_a_form_error_and_adds_nothing(encounter, referee, data):
    reply = referee.post(_url("bestiary", encounter), data, headers={"hx-request": "true"})
    assert reply.status_code == 200 and b'class="errorlist' in reply.content
    assert encounter.combatants.count() == 0


def test_a_dolmenwood_encounter_adds_b_x_monsters_converted_and_says_how(db, referee):
    """Dolmenwood's own monsters are not open content: it plays B/X's with ascending AC, an
    attack bonus from the Hit Dice and the same save numbers under its own names."""
    encounter = Encounter.objects.create(name="Dolmenwood", system="dolmenwood")
    client = Client()
    client.get(reverse("referee_link", args=[encounter.referee_key]))
    page = client.get(_url("bestiary", encounter), headers={"hx-request": "true"})
    assert "not published as open content" in page.content.decode()
    assert "19 − AC" in page.content.decode()
    _add(client, encounter, "s:hobgoblin", 1)
    _add(client, encounter, "s:bandit", 1)
    hobgoblin = encounter.combatants.get(name__startswith="Hobgoblin")
    bandit = encounter.combatants.get(name__startswith="Bandit")
    b_x = {e.name: e.stats for e in bestiary.starter("ose").entries}
    assert hobgoblin.ac == 19 - b_x["Hobgoblin"]["ac"] == 13
    assert dw_terms.attack_bonus(hobgoblin) == 19 - ose.monster_thac0("1+1")
    for added, name in ((hobgoblin, "Hobgoblin"), (bandit, "Bandit")):
        saves = [getattr(added, f) for f in classes.SAVE_FIELDS]
        assert saves == [b_x[name][f] for f in classes.SAVE_FIELDS]
    assert bandit.saves_as == ""  # no class tables for Dolmenwood: the numbers are kept
    dw_page = client.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert "Doom" in dw_page


def test_a_becmi_encounter_adds_b_x_monsters_with_becmi_s_thac0(db):
    encounter = Encounter.objects.create(name="Karameikos", system="becmi")
    client = Client()
    client.get(reverse("referee_link", args=[encounter.referee_key]))
    _add(client, encounter, "s:troll", 1)
    troll = encounter.combatants.get()
    assert troll.thac0 == systems.monster_thac0("becmi", "6+3*")
    assert "Rules Cyclopedia" in client.get(_url("bestiary", encounter)).content.decode()


def test_the_panel_names_the_starter_s_source(encounter, referee):
    page = referee.get(_url("bestiary", encounter)).content.decode()
    assert "Old-School Essentials SRD" in page and "Open Game License" in page


def test_monsters_added_with_hit_locations_get_their_body_zones(encounter, referee):
    encounter.hit_locations = True
    encounter.save()
    _add(referee, encounter, "s:orc", 2)
    assert all(c.zones for c in encounter.combatants.all())


# --- saving a monster to the campaign's bestiary ---------------------------------------------


def test_a_monster_saved_from_its_row_is_offered_in_the_campaign_s_next_encounter(
    encounter, referee
):
    brute = monster(
        encounter,
        "Cave brute 2",
        hit_dice="3+1*",
        ac=4,
        thac0=16,
        attacks=[{"name": "club", "count": 2, "damage": "1d6+1"}],
        movement="90' (30')",
        xp=65,
        special_notes="Hates light.",
        morale=9,
    )
    page = referee.get(_url("encounter", encounter)).content.decode()
    assert _url("bestiary_save", encounter, brute.pk) in page
    reply = referee.post(_url("bestiary_save", encounter, brute.pk), headers={"hx-request": "true"})
    assert "Saved Cave brute to the bestiary." in reply.content.decode()
    entry = BestiaryEntry.objects.get()
    encounter.refresh_from_db()
    assert entry.campaign_id == encounter.campaign_id and entry.system == "ose"
    assert entry.stats["special_notes"] == "Hates light." and "hp" not in entry.stats

    following = Encounter.objects.create(name="Deeper", campaign=encounter.campaign)
    client = Client()
    client.get(reverse("referee_link", args=[following.referee_key]))
    _add(client, following, f"c:{entry.pk}", 2)
    copies = list(following.combatants.order_by("pk"))
    assert [c.name for c in copies] == ["Cave brute 1", "Cave brute 2"]
    for copy_ in copies:
        for field in ("ac", "hit_dice", "thac0", "attacks", "movement", "xp", "special_notes"):
            assert getattr(copy_, field) == getattr(brute, field), field


def test_saving_again_replaces_the_entry_of_that_name(encounter, referee):
    first = monster(encounter, "Goblin 1")
    referee.post(_url("bestiary_save", encounter, first.pk))
    first.ac = 5
    first.save()
    reply = referee.post(_url("bestiary_save", encounter, first.pk), headers={"hx-request": "true"})
    assert "Updated Goblin in the bestiary." in reply.content.decode()
    assert BestiaryEntry.objects.get().stats["ac"] == 5


def test_characters_and_monsters_without_hit_dice_are_not_saved(encounter, referee, fighter):
    assert referee.post(_url("bestiary_save", encounter, fighter.pk)).status_code == 404
    blob = monster(encounter, "Blob", hit_dice="")
    reply = referee.post(_url("bestiary_save", encounter, blob.pk), headers={"hx-request": "true"})
    assert reply.status_code == 200 and "Hit Dice" in reply.content.decode()
    assert BestiaryEntry.objects.count() == 0


def test_another_encounter_s_monster_is_not_found(encounter, referee):
    elsewhere = Encounter.objects.create(name="Elsewhere")
    stranger = monster(elsewhere, "Stranger")
    assert referee.post(_url("bestiary_save", encounter, stranger.pk)).status_code == 404


# --- editing and removing entries --------------------------------------------------------------


@pytest.fixture
def entry(encounter) -> BestiaryEntry:
    campaign = encounter.campaign_or_new()
    built = bestiary.entry_from(
        {"name": "Cave brute", "system": "ose", "hit_dice": "3", "ac": 5}, "test"
    )
    built.campaign = campaign
    built.save()
    return built


def test_the_referee_edits_an_entry_s_stat_block(encounter, referee, entry):
    values = {
        "entry_name": "Cave ogre",
        "ac": 4,
        "hit_dice": "4+1",
        "thac0": 15,
        "save_death": 10,
        "save_wands": 11,
        "save_paralysis": 12,
        "save_breath": 13,
        "save_spells": 14,
        "morale": 10,
        "attacks": "club 1d10, 2 fists 1d4",
        "movement": "90' (30')",
        "xp": 125,
        "special_notes": "",
    }
    reply = referee.post(
        _url("bestiary_edit", encounter, entry.pk), values, headers={"hx-request": "true"}
    )
    assert reply.status_code == 200 and "Saved Cave ogre." in reply.content.decode()
    entry.refresh_from_db()
    assert entry.name == "Cave ogre" and entry.stats["hit_dice"] == "4+1"
    assert entry.stats["attacks"] == [
        {"name": "club", "count": 1, "damage": "1d10"},
        {"name": "fists", "count": 2, "damage": "1d4"},
    ]


def test_an_edit_with_unreadable_hit_dice_is_a_form_error(encounter, referee, entry):
    page = referee.get(_url("bestiary_edit", encounter, entry.pk)).content.decode()
    assert 'name="entry_name"' in page and "Cave brute" in page
    reply = referee.post(
        _url("bestiary_edit", encounter, entry.pk),
        {"entry_name": "Cave brute", "ac": 5, "hit_dice": "lots", "thac0": 17},
        headers={"hx-request": "true"},
    )
    assert b'class="errorlist' in reply.content
    entry.refresh_from_db()
    assert entry.stats["hit_dice"] == "3"


def test_the_referee_removes_an_entry_and_a_second_tap_changes_nothing(encounter, referee, entry):
    url = _url("bestiary_delete", encounter, entry.pk)
    assert referee.post(url, headers={"hx-request": "true"}).status_code == 200
    assert referee.post(url, headers={"hx-request": "true"}).status_code == 200
    assert BestiaryEntry.objects.count() == 0


def test_another_campaign_s_entry_cannot_be_edited_nor_removed(encounter, referee, entry):
    elsewhere = Encounter.objects.create(name="Elsewhere")
    client = Client()
    client.get(reverse("referee_link", args=[elsewhere.referee_key]))
    assert client.get(_url("bestiary_edit", elsewhere, entry.pk)).status_code == 404
    client.post(_url("bestiary_delete", elsewhere, entry.pk))
    assert BestiaryEntry.objects.filter(pk=entry.pk).exists()
    assert _add(client, elsewhere, f"c:{entry.pk}", 1).status_code == 200
    assert elsewhere.combatants.count() == 0


# --- who may ---------------------------------------------------------------------------------


def test_players_and_outsiders_may_not_use_the_bestiary(encounter, player, outsider, entry, goblin):
    urls = [
        ("get", _url("bestiary", encounter)),
        ("post", _url("bestiary", encounter)),
        ("post", _url("bestiary_save", encounter, goblin.pk)),
        ("get", _url("bestiary_edit", encounter, entry.pk)),
        ("post", _url("bestiary_delete", encounter, entry.pk)),
        ("get", _url("bestiary_export", encounter)),
        ("post", _url("bestiary_import", encounter)),
    ]
    for method, url in urls:
        assert getattr(player, method)(url).status_code == 403, url
        assert getattr(outsider, method)(url).status_code == 404, url
    assert BestiaryEntry.objects.count() == 1


def test_a_player_sees_no_bestiary_button(encounter, player, fighter):
    monster(encounter, "Goblin", seat=player.seat)
    page = player.get(_url("encounter", encounter)).content.decode()
    assert "/bestiary/" not in page


# --- the starter files -----------------------------------------------------------------------


@pytest.mark.parametrize("system", ["ose", "becmi", "dolmenwood"])
def test_every_starter_entry_passes_as_a_saved_entry_would_and_its_attacks_parse(db, system):
    starter = bestiary.starter(system)
    assert len(starter.entries) >= 25
    assert "Old-School Essentials SRD" in starter.source
    raw = (bestiary.STARTER_DIR / "bx.json").read_bytes()
    for item, entry in zip(json.loads(raw)["entries"], starter.entries, strict=True):
        again = bestiary.entry_from(
            {"name": entry.name, "system": system} | entry.stats, entry.name
        )
        assert again.stats == entry.stats
        assert entry.stats["attacks"], entry.name
        text = monsters.format_attacks(entry.stats["attacks"])
        assert monsters.parse_attacks(text) == entry.stats["attacks"] == item["attacks"]
        assert dice.parse(ose.monster_hp_dice(entry.stats["hit_dice"])).maximum >= 1


def test_the_starter_bestiary_states_what_the_srd_prints(db):
    """A few entries against a table written from the OSE SRD's pages."""
    table = json.loads(DATA.read_text())
    starter = bestiary.starter("ose")
    for name, expected in table.items():
        entry = next(e for e in starter.entries if e.name == name)
        for field, value in expected.items():
            assert entry.stats[field] == value, (name, field)


def test_every_starter_name_is_distinct_and_no_longer_than_a_table_numbers(db):
    names = [e.name for e in bestiary.starter("ose").entries]
    assert len({n.casefold() for n in names}) == len(names)
    assert all(len(n) <= bestiary.NAME_LIMIT for n in names)
    dolmenwood = bestiary.starter("dolmenwood").entries
    assert [e.name for e in dolmenwood] == names
    assert all(e.stats["ac"] >= 0 and not e.stats.get("saves_as") for e in dolmenwood)


# --- the bestiary as a file --------------------------------------------------------------------


def _import(client: Client, encounter: Encounter, raw: bytes, **headers: str) -> object:
    upload = SimpleUploadedFile("b.json", raw, content_type="application/json")
    return client.post(_url("bestiary_import", encounter), {"file": upload}, headers=headers)


def _document(*entries: dict) -> dict:
    return {"format": "fray-bestiary", "version": 1, "entries": list(entries)}


BRUTE = {"name": "Cave brute", "system": "ose", "hit_dice": "3+1", "ac": 4}


def test_an_exported_bestiary_imports_into_another_campaign_intact(encounter, referee, entry):
    second = bestiary.entry_from(
        BRUTE
        | {
            "name": "Bog wight",
            "system": "becmi",
            "attacks": [{"name": "claw", "count": 2, "damage": "1d4"}],
        },
        "test",
    )
    second.campaign = entry.campaign
    second.save()
    reply = referee.get(_url("bestiary_export", encounter))
    assert reply.status_code == 200 and "attachment" in reply["Content-Disposition"]
    exported = json.loads(reply.content)
    assert exported["format"] == "fray-bestiary" and len(exported["entries"]) == 2

    fresh = Encounter.objects.create(name="New campaign")
    client = Client()
    client.get(reverse("referee_link", args=[fresh.referee_key]))
    done = _import(client, fresh, reply.content, **{"hx-request": "true"})
    assert "Imported: 2 new, 0 replaced." in done.content.decode()
    fresh.refresh_from_db()
    again = client.get(_url("bestiary_export", fresh))
    assert json.loads(again.content) == exported


def test_an_import_replaces_entries_of_the_same_name_and_system(encounter, referee, entry):
    raw = json.dumps(_document(BRUTE | {"ac": 2}, BRUTE | {"name": "Mire rat"})).encode()
    done = _import(referee, encounter, raw, **{"hx-request": "true"})
    assert "Imported: 1 new, 1 replaced." in done.content.decode()
    assert BestiaryEntry.objects.get(name="Cave brute").stats["ac"] == 2


def test_a_plain_browser_import_shows_the_page_with_the_panel(encounter, referee):
    done = _import(referee, encounter, json.dumps(_document(BRUTE)).encode())
    assert done.status_code == 200 and "Imported: 1 new, 0 replaced." in done.content.decode()
    refused = _import(referee, encounter, b"nonsense")
    assert refused.status_code == 400 and "not JSON" in refused.content.decode()


@pytest.mark.parametrize(
    ("document", "said"),
    [
        (b"[1, 2", "not JSON"),
        (json.dumps({"format": "fray-encounter", "version": 1}).encode(), "fray-bestiary"),
        (json.dumps({"format": "fray-bestiary", "version": 2}).encode(), "version 1"),
        (json.dumps(_document() | {"extra": 1}).encode(), "extra"),
        (json.dumps(_document(BRUTE | {"hp": 5})).encode(), "hp"),
        (json.dumps(_document(BRUTE | {"system": "gurps"})).encode(), "system"),
        (json.dumps(_document(BRUTE | {"name": ""})).encode(), "name"),
        (json.dumps(_document(BRUTE | {"hit_dice": ""})).encode(), "hit_dice"),
        (json.dumps(_document(BRUTE | {"hit_dice": "9999"})).encode(), "hit_dice"),
        (json.dumps(_document(BRUTE | {"ac": 99})).encode(), "ac"),
        (json.dumps(_document(BRUTE | {"attacks": [{"name": "x"}]})).encode(), "attacks"),
        (
            json.dumps(
                _document(BRUTE | {"attacks": [{"name": None, "count": 1, "damage": "1d6"}]})
            ).encode(),
            "attacks",
        ),
        (json.dumps(_document(BRUTE, BRUTE | {"ac": 3})).encode(), "twice"),
        (json.dumps(_document(*[BRUTE] * 501)).encode(), "500"),
        (json.dumps(_document(BRUTE | {"name": "a\x00"})).encode(), "NUL"),
    ],
)
def test_a_bad_file_is_refused_with_a_message_and_nothing_written(
    encounter, referee, entry, document, said
):
    before = list(BestiaryEntry.objects.values())
    reply = _import(referee, encounter, document, **{"hx-request": "true"})
    assert reply.status_code == 200 and said in reply.content.decode()
    assert 'role="alert"' in reply.content.decode()
    assert list(BestiaryEntry.objects.values()) == before


def test_the_refusal_is_in_the_reader_s_language(encounter, referee):
    referee.cookies.load({"django_language": "cs"})
    raw = json.dumps({"format": "fray-bestiary", "version": 7}).encode()
    reply = _import(referee, encounter, raw, **{"accept-language": "cs", "hx-request": "true"})
    assert "čte verzi 1" in reply.content.decode()


def test_no_file_and_a_huge_one_are_refused(encounter, referee):
    reply = referee.post(_url("bestiary_import", encounter), headers={"hx-request": "true"})
    assert "Choose a bestiary file" in reply.content.decode()
    huge = _import(referee, encounter, b" " * (transfer.MAX_BYTES + 10), **{"hx-request": "true"})
    assert "1 MB" in huge.content.decode()
    assert referee.get(_url("bestiary_import", encounter)).status_code == 405


def test_an_import_without_the_csrf_token_is_refused(encounter):
    client = Client(enforce_csrf_checks=True)
    client.get(reverse("referee_link", args=[encounter.referee_key]))
    assert _import(client, encounter, b"{}").status_code == 403


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzzed_files_never_give_a_server_error_nor_a_partial_import(encounter, referee, data):
    campaign = encounter.campaign_or_new()
    base = json.loads(bestiary.export_json(campaign)) | {
        "entries": [
            BRUTE | {"attacks": [{"name": "club", "count": 1, "damage": "1d6"}]},
            BRUTE | {"name": "Mire rat", "hit_dice": "½", "movement": "60'"},
        ]
    }
    raw = fuzzed(
        data, base, lambda document: {"format": "fray-bestiary", "version": 1, "entries": document}
    )
    if raw is None:
        return
    before = list(BestiaryEntry.objects.values("pk", "name", "stats"))
    reply = _import(referee, encounter, raw, **{"hx-request": "true"})
    assert reply.status_code < 500
    if "Imported:" in reply.content.decode():
        # what was let in adds monsters and opens its edit form
        for entry in BestiaryEntry.objects.all():
            assert _add(referee, encounter, f"c:{entry.pk}", 1).status_code < 500
            assert referee.get(_url("bestiary_edit", encounter, entry.pk)).status_code < 500
        Combatant.objects.filter(encounter=encounter).delete()
        BestiaryEntry.objects.all().delete()
    else:
        assert list(BestiaryEntry.objects.values("pk", "name", "stats")) == before


def test_a_character_in_the_file_comes_back_as_kept(encounter, referee):
    """A bestiary keeps what a combatant stores; a kind is one of them."""
    raw = json.dumps(_document(BRUTE | {"kind": "normal_human"})).encode()
    _import(referee, encounter, raw)
    assert BestiaryEntry.objects.get().stats["kind"] == Kind.NORMAL_HUMAN


def test_the_referee_tools_offer_the_bestiary(encounter, referee):
    page = referee.get(_url("encounter", encounter)).content.decode()
    assert _url("bestiary", encounter) in page


def test_character_rows_offer_no_save_to_bestiary(encounter, referee):
    hero = character(encounter, "Hero")
    page = referee.get(_url("encounter", encounter)).content.decode()
    assert _url("bestiary_save", encounter, hero.pk) not in page


def test_thac0_and_saves_left_empty_in_an_edit_come_from_the_new_hit_dice(
    encounter, referee, entry
):
    values = {"entry_name": "Cave brute", "ac": 5, "hit_dice": "9", "thac0": "", "morale": ""}
    values |= dict.fromkeys(
        ("save_death", "save_wands", "save_paralysis", "save_breath", "save_spells"), ""
    )
    reply = referee.post(
        _url("bestiary_edit", encounter, entry.pk), values, headers={"hx-request": "true"}
    )
    assert "Saved Cave brute." in reply.content.decode()
    entry.refresh_from_db()
    assert entry.stats["thac0"] == ose.monster_thac0("9")
    assert entry.stats["save_death"] == ose.monster_saves("9")["death"]


def test_saves_as_a_class_fill_the_saves_an_entry_leaves_out(encounter, referee, entry):
    fighter = classes.saves_as_saves("ose", "fighter:3")
    built = bestiary.entry_from(BRUTE | {"saves_as": "fighter:3"}, "test")
    assert built.stats["save_death"] == fighter["death"]
    values = {"entry_name": "Cave brute", "ac": 5, "hit_dice": "3", "saves_as": "F3"}
    referee.post(_url("bestiary_edit", encounter, entry.pk), values)
    entry.refresh_from_db()
    assert entry.stats["saves_as"] == "fighter:3"
    assert [entry.stats[f"save_{k}"] for k in fighter] == list(fighter.values())
    bandit = bestiary.starter("ose").find("bandit")
    assert bandit.stats["saves_as"] == "thief:1"


def test_the_starter_bestiary_loads_without_a_query(db, django_assert_num_queries):
    """Its first opening in a process checks 29 entries: not a query each (the panel would
    outlast the page's wait for an answer on a busy laptop)."""
    bestiary.starter.cache_clear()
    with django_assert_num_queries(0):
        assert bestiary.starter("ose").entries


def test_an_entry_stored_before_a_stricter_check_says_what_fails_instead_of_a_server_error(
    encounter, referee, entry
):
    BestiaryEntry.objects.filter(pk=entry.pk).update(stats=entry.stats | {"hit_dice": "lots"})
    reply = referee.get(_url("bestiary_edit", encounter, entry.pk), headers={"hx-request": "true"})
    assert reply.status_code == 200 and "hit_dice" in reply.content.decode()
    added = _add(referee, encounter, f"c:{entry.pk}", 2)
    assert added.status_code == 200 and encounter.combatants.count() == 0


def test_quick_add_also_saves_the_stat_block_to_the_bestiary_when_asked(encounter, referee):
    url = _url("quick_add", encounter)
    values = {
        "count": 2,
        "name": "Mire rat",
        "ac": 7,
        "hit_dice": "½",
        "side": Side.FOES,
        "attacks": "bite 1d3",
        "keep": "on",
    }
    reply = referee.post(url, values, headers={"hx-request": "true"})
    assert "Saved Mire rat to the bestiary." in reply.content.decode()
    entry = BestiaryEntry.objects.get()
    assert entry.stats["attacks"] == [{"name": "bite", "count": 1, "damage": "1d3"}]
    referee.post(url, values | {"ac": 6}, headers={"hx-request": "true"})
    assert BestiaryEntry.objects.get().stats["ac"] == 6
    referee.post(url, values | {"keep": ""}, headers={"hx-request": "true"})
    assert BestiaryEntry.objects.count() == 1 and encounter.combatants.count() == 6
