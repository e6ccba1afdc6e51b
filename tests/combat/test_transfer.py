"""An encounter exported as JSON and imported back as a new one: everything it stores comes
back, a fresh data folder takes it, and a bad or hostile file is refused with nothing written."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combat import classes, rounds, transfer, zones
from combat.access import Viewer
from combat.models import (
    Combatant,
    Condition,
    ConditionKind,
    Encounter,
    InitiativeMode,
    Kind,
    Side,
)

from .conftest import character, monster

pytestmark = pytest.mark.django_db

PARTY = [("Aldric", "fighter", 3), ("Brina", "thief", 2), ("Cedric", "cleric", 4)]
PARTY += [("Dwyn", "magic-user", 1)]


# A monster entry's stat block (combat.monsters), as the quick-add form stores it.
STAT = dict(
    attacks=[{"name": "weapon", "count": 1, "damage": "1d8"}],
    movement="90' (30')",
    xp=15,
    special_notes="Hates elves",
)


def _party(encounter: Encounter) -> list[Combatant]:
    """A party of four by class and level, as the Add combatant form fills them."""
    return [
        character(
            encounter,
            name,
            char_class=klass,
            level=level,
            int_score=12,
            con_score=14,
            cha_score=8,
            wis_score=11,
            notes=f"{name}: 3 torches, 20 arrows",
            **classes.filled("ose", klass, level),
        )
        for name, klass, level in PARTY
    ]


@pytest.fixture
def campaign(db) -> Encounter:
    """An OSE fight under way: a party of four, three hobgoblins, conditions, hit locations
    on with a wounded zone, individual initiative rolled, a morale check made."""
    encounter = Encounter.objects.create(
        name="Hobgoblin ford",
        hit_locations=True,
        show_foe_hp=True,
        initiative_mode=InitiativeMode.INDIVIDUAL,
    )
    party = _party(encounter)
    foes = [
        monster(encounter, f"Hobgoblin {n}", hp_max=6, hp=6, hit_dice="1+1", morale=8, **STAT)
        for n in (1, 2, 3)
    ]
    referee = Viewer(encounter, is_referee=True, seat=None)
    zones.sync_all(encounter)
    wounded = Combatant.objects.get(pk=party[0].pk)
    zone = wounded.zones["keys"][1]
    zones.damage_zone(referee, combatant=wounded, zone=zone, amount=2)
    Condition.objects.create(combatant=foes[1], kind=ConditionKind.ASLEEP, rounds_left=3)
    Condition.objects.create(combatant=party[3], kind=ConditionKind.OTHER, note="blessed")
    rounds.start(referee, surprise=False)
    rounds.roll_initiative(referee)
    rounds.check_morale(referee, side=Side.FOES, score=8, dice=[1, 1])
    encounter.refresh_from_db()
    return encounter


@pytest.fixture
def ships(db) -> Encounter:
    encounter = Encounter.objects.create(name="Sea of Dread", system="becmi")
    _party(encounter)
    ship = dict(kind=Kind.SHIP, ac=8, hp_max=100, hp=73, thac0=19, speed=90, crew=20)
    monster(encounter, "The Black Galley", **ship, rowers=60, rowers_lost=5, hull_repaired=4)
    return encounter


def _referee_of(encounter: Encounter) -> Client:
    client = Client()
    client.get(reverse("referee_link", args=[encounter.referee_key]))
    return client


def _import(client: Client, document: object, name: str = "e.json"):
    raw = document if isinstance(document, bytes) else json.dumps(document).encode()
    upload = SimpleUploadedFile(name, raw, content_type="application/json")
    return client.post(reverse("import_encounter"), {"file": upload})


# --- round trip ------------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", ["campaign", "ships"])
def test_every_exported_field_comes_back_in_a_new_encounter(request, fixture):
    original = request.getfixturevalue(fixture)
    response = _referee_of(original).get(reverse("export_encounter", args=[original.slug]))
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")
    exported = json.loads(response.content)
    assert exported["format"] == "fray-encounter" and exported["version"] == 1

    client = Client()
    before = Encounter.objects.count()
    reply = _import(client, exported)
    assert reply.status_code == 302
    assert Encounter.objects.count() == before + 1
    copy_ = Encounter.objects.exclude(pk=original.pk).get(name=original.name)
    assert reply["Location"] == reverse("encounter", args=[copy_.slug])
    assert _without_dice(transfer.export_encounter(copy_)) == _without_dice(exported)
    for name in ("slug", "referee_key", "join_token"):
        assert getattr(copy_, name) != getattr(original, name)
    assert (copy_.seq, copy_.public_seq) == (0, 0)
    assert not copy_.seats.exists() and not copy_.log.exists()
    assert not copy_.combatants.filter(seat__isnull=False).exists()
    # The importing browser referees it, and its page draws.
    page = client.get(reply["Location"])
    assert page.status_code == 200 and b"referee-tools" in page.content


def test_the_round_and_the_wounds_travel(campaign):
    exported = transfer.export_encounter(campaign)
    assert exported["encounter"]["round"] == 1
    refs = {c["ref"] for c in exported["combatants"]}
    order = exported["encounter"]["turn"]["order"]
    assert order and all(set(step["ids"]) <= refs for step in order)
    assert exported["encounter"]["morale"]["foes"]["checks"] == 1
    assert any(any(c["zones"]["damage"]) for c in exported["combatants"])
    assert [k["rounds_left"] for c in exported["combatants"] for k in c["conditions"]] == [None, 3]
    hobgoblin = exported["combatants"][4]
    assert {k: hobgoblin[k] for k in STAT} == STAT  # fields added after the exporter was written
    aldric = exported["combatants"][0]
    assert (aldric["char_class"], aldric["level"], aldric["con_score"]) == ("fighter", 3, 14)
    copy_ = transfer.import_encounter(json.dumps(exported).encode())
    ids = set(copy_.combatants.values_list("pk", flat=True))
    assert {i for step in copy_.turn["order"] for i in step["ids"]} <= ids


def test_every_concrete_field_is_exported_but_the_listed_ones(campaign):
    """A field added to a model later travels without a change to the exporter."""
    exported = transfer.export_encounter(campaign)
    for model, excluded, record in (
        (Encounter, transfer.ENCOUNTER_EXCLUDED, exported["encounter"]),
        (Combatant, transfer.COMBATANT_EXCLUDED, exported["combatants"][0]),
    ):
        names = {f.name for f in model._meta.concrete_fields}
        assert excluded <= names
        assert set(record) - {"ref", "conditions"} == names - excluded
        assert not any(model._meta.get_field(n).is_relation for n in names - excluded)


# --- a fresh data folder -------------------------------------------------------------------

IMPORT_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import django
    django.setup()
    from django.test.utils import setup_test_environment
    setup_test_environment()
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import Client
    from combat.models import Encounter
    from combat.transfer import export_encounter
    raw = open(sys.argv[1], "rb").read()
    upload = SimpleUploadedFile("e.json", raw, content_type="application/json")
    reply = Client().post("/import/", {"file": upload})
    assert reply.status_code == 302, reply.status_code
    print(json.dumps(export_encounter(Encounter.objects.get())))
    """
)


def test_an_export_imports_into_a_fresh_data_folder(campaign, tmp_path: Path):
    exported = transfer.export_encounter(campaign)
    (tmp_path / "e.json").write_text(json.dumps(exported))
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    root = Path(django_settings.BASE_DIR)
    env |= {
        "FRAY_DATA_DIR": str(tmp_path / "fray-data"),
        "DJANGO_SETTINGS_MODULE": "combat.site.settings",
        "PYTHONPATH": str(root),
    }
    run = dict(cwd=root, env=env, capture_output=True, text=True, timeout=120, check=True)
    subprocess.run([sys.executable, str(root / "manage.py"), "migrate", "-v0"], **run)
    script = tmp_path / "import.py"
    script.write_text(IMPORT_SCRIPT)
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "e.json")], **run)
    assert _without_dice(json.loads(done.stdout)) == _without_dice(exported)


def _without_dice(document: dict) -> dict:
    """An exported encounter but its server dice's proofs, which stay with the log they
    belong to: an imported encounter starts a log, and a seal, of its own."""
    return {key: value for key, value in document.items() if key != "dice"}


# --- who may export ----------------------------------------------------------------------------


def test_players_and_outsiders_cannot_export(encounter, player, outsider, referee):
    url = reverse("export_encounter", args=[encounter.slug])
    assert player.get(url).status_code == 403
    assert outsider.get(url).status_code == 404
    assert referee.get(url).status_code == 200
    assert referee.post(url).status_code == 405


def test_the_referee_tools_offer_the_export_and_the_home_page_the_import(encounter, referee):
    page = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert reverse("export_encounter", args=[encounter.slug]) in page
    assert reverse("import_encounter") in Client().get(reverse("home")).content.decode()


# --- refusals ----------------------------------------------------------------------------------


def _valid(encounter: Encounter) -> dict:
    return transfer.export_encounter(encounter)


def _mutated(base: dict, path: list, value: object) -> dict:
    document = copy.deepcopy(base)
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return document


REFUSALS = [
    ("not json", b"{nope", "not JSON"),
    ("wrong format", {"format": "other", "version": 1}, "format"),
    ("wrong version", ["version"], 2),
    ("unknown top field", ["extra"], 1),
    ("unknown encounter field", ["encounter", "referee_key"], "x"),
    ("unknown combatant field", ["combatants", 0, "seat"], 1),
    ("unknown system", ["encounter", "system"], "gurps"),
    ("hp out of range", ["combatants", 0, "hp_max"], 0),
    ("thac0 a string", ["combatants", 0, "thac0"], "17"),
    ("a bool for a number", ["combatants", 0, "ac"], True),
    ("nul in a name", ["combatants", 0, "name"], "Ald\x00ric"),
    ("a name too long", ["combatants", 0, "name"], "x" * 61),
    ("a bad zones blob", ["combatants", 0, "zones", "damage"], [1]),
    ("zones not fitting", ["combatants", 0, "zones", "plan"], {"body": "snake"}),
    ("dexterity halved -1 times", ["combatants", 0, "zones", "dex_halvings"], -1),
    ("dexterity halved 10**6 times", ["combatants", 0, "zones", "dex_halvings"], 10**6),
    ("negative damage to a zone", ["combatants", 0, "zones", "damage"], [-1, 0, 0, 0, 0, 0]),
    ("negative blood lost", ["combatants", 0, "zones", "bleed_loss"], -3),
    ("dying in -2 rounds", ["combatants", 0, "zones", "dies_in"], -2),
    ("a bad turn", ["encounter", "turn", "order"], [{"ids": [999]}]),
    ("a bad morale", ["encounter", "morale"], {"foes": {"checks": -1}}),
    ("a bad condition", ["combatants", 5, "conditions", 0, "kind"], "cursed"),
    ("bad attacks", ["combatants", 4, "attacks"], [{"name": "bite", "count": 99, "damage": "1"}]),
    ("attacks not a list", ["combatants", 4, "attacks"], "2 claws 1d4"),
    ("bad immunities", ["combatants", 0, "immunities"], ["garlic"]),
    ("bad skills", ["combatants", 0, "skills"], [{"key": "", "name": "x", "targets": [9]}]),
    ("deep nesting", ["combatants", 0, "skills"], [[[[[[[[[[]]]]]]]]]]),
    ("combatants not a list", ["combatants"], {"a": 1}),
    ("duplicate refs", ["combatants", 1, "ref"], 1),
]


@pytest.mark.parametrize(("case", "where", "value"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_a_bad_file_is_refused_with_a_message_and_nothing_written(campaign, case, where, value):
    base = _valid(campaign)
    if isinstance(where, bytes | dict):
        document = where
    else:
        document = _mutated(base, where, value)
    counts = (Encounter.objects.count(), Combatant.objects.count(), Condition.objects.count())
    reply = _import(Client(), document)
    assert reply.status_code == 400, case
    assert b'role="alert"' in reply.content
    after = (Encounter.objects.count(), Combatant.objects.count(), Condition.objects.count())
    assert after == counts


@pytest.mark.parametrize(
    "body", [{"body": "reptile", "legs": 3}, {"body": "humanoid", "wings": 6}, {"tail": True}]
)
def test_a_body_the_hit_location_rules_cannot_draw_is_refused(campaign, body):
    document = _valid(campaign)
    document["combatants"][4] |= {"body": "fish", "zones": {}} | body
    reply = _import(Client(), document)
    assert reply.status_code == 400
    assert Encounter.objects.count() == 1


def test_too_many_combatants_and_too_big_a_file_are_refused(campaign):
    base = _valid(campaign)
    many = dict(base, combatants=[dict(base["combatants"][4], ref=n) for n in range(1, 502)])
    reply = _import(Client(), many)
    assert reply.status_code == 400 and b"500" in reply.content
    reply = _import(Client(), b" " * (transfer.MAX_BYTES + 1))
    assert reply.status_code == 400 and b"1 MB" in reply.content
    assert Encounter.objects.count() == 1


def test_no_file_is_refused_and_a_get_is_not_allowed(db):
    assert Client().post(reverse("import_encounter")).status_code == 400
    assert Client().get(reverse("import_encounter")).status_code == 405


def test_the_refusal_is_in_the_reader_s_language(campaign):
    document = _mutated(_valid(campaign), ["version"], 7)
    client = Client(headers={"accept-language": "cs"})
    upload = SimpleUploadedFile("e.json", json.dumps(document).encode())
    reply = client.post(reverse("import_encounter"), {"file": upload})
    assert reply.status_code == 400
    assert "čte verzi 1".encode() in reply.content


# --- fuzz --------------------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)


def _paths(document: object, prefix: tuple = ()) -> list[tuple]:
    found = [prefix] if prefix else []
    if isinstance(document, dict):
        for key, value in document.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found += _paths(value, (*prefix, index))
    return found


def fuzzed(data: st.DataObject, base: dict, wrap: Callable[[object], dict]) -> bytes | None:
    """A file for a fuzzed import: any JSON (wrapped as the format's, half the time), or ``base``
    with one to three of its values replaced by any JSON; None if it cannot be JSON."""
    if data.draw(st.booleans()):
        document = data.draw(JSON)
        if data.draw(st.booleans()):
            document = wrap(document)
    else:
        document = copy.deepcopy(base)
        for _ in range(data.draw(st.integers(1, 3))):
            paths = _paths(document)
            if not paths:
                break
            path = data.draw(st.sampled_from(paths))
            document = _mutated(document, list(path), data.draw(JSON))
    try:
        return json.dumps(document).encode()
    except ValueError:
        return None


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzzed_files_never_give_a_server_error_nor_a_partial_import(campaign, data):
    raw = fuzzed(
        data,
        _valid(campaign),
        lambda document: {"format": "fray-encounter", "version": 1, "encounter": document},
    )
    if raw is None:
        return
    counts = (Encounter.objects.count(), Combatant.objects.count(), Condition.objects.count())
    reply = _import(Client(), raw)
    assert reply.status_code < 500
    after = (Encounter.objects.count(), Combatant.objects.count(), Condition.objects.count())
    if reply.status_code == 302:
        new = Encounter.objects.order_by("-pk").first()
        referee = _referee_of(new)
        assert referee.get(reply["Location"]).status_code == 200  # what was let in draws
        first = new.combatants.first()
        if first is not None:  # and so do the forms that read a combatant's stored fields
            for name in ("combatant_edit", "zone"):
                url = reverse(name, args=[new.slug, first.pk])
                assert referee.get(url).status_code < 500, name
        assert referee.get(reverse("attack", args=[new.slug])).status_code < 500
        new.delete()
    else:
        assert after == counts


def test_a_huge_upload_is_dropped_as_it_arrives_and_refused(db, monkeypatch):
    """Five megabytes: read no further than an encounter file may weigh, never stored."""
    from combat.views import transfer as views

    kept = []
    original = views.CappedUpload.receive_data_chunk

    def counting(self, raw_data, start):
        kept.append(start + len(raw_data))
        return original(self, raw_data, start)

    monkeypatch.setattr(views.CappedUpload, "receive_data_chunk", counting)
    reply = _import(Client(), b" " * (5 * transfer.MAX_BYTES))
    assert reply.status_code == 400 and b"1 MB" in reply.content
    assert max(kept) <= transfer.MAX_BYTES + 64 * 1024  # one chunk past the cap, no more
    assert Encounter.objects.count() == 0


def test_an_import_without_the_csrf_token_is_refused(db):
    client = Client(enforce_csrf_checks=True)
    upload = SimpleUploadedFile("e.json", b"{}", content_type="application/json")
    assert client.post(reverse("import_encounter"), {"file": upload}).status_code == 403
