"""One source of bounds: every stored number's range is declared once (``rules.bounds``) and
the engine, the model's validators and check constraints, every form and every importer hold
the same one, so anything stored can be drawn.

The walk below takes every model field with a declared range and checks each of them at both
ends: the limit is taken by each, one past it is refused by each with a message."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from typing import Any

import pytest
from django import forms as django_forms
from django.apps import apps
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import models
from django.test import Client
from django.urls import reverse

from combat import bestiary_forms, bounded, party, transfer
from combat.errors import message_for
from combat.forms import CombatantForm, QuickAddForm
from combat.models import (
    BestiaryEntry,
    Campaign,
    Combatant,
    Condition,
    ConditionKind,
    Encounter,
    Kind,
    Side,
    Wrestle,
)
from combat.systems.becmi import special_forms as becmi_forms
from combat.systems.becmi.special import ship_of, ship_view
from rules import becmi_naval, rounds
from rules.bounds import BOUNDS, Bound
from rules.errors import RulesError

from .conftest import character, migrate, migrated_to, monster

ROW_NOTICE = "This row cannot be drawn"

# Every stored number, field by field: the bounded ones hold a declared range; these do not,
# and say why.
UNBOUNDED = {
    ("encounter", "id"): "an id",
    ("encounter", "seq"): "a counter the server alone moves on, one per change",
    ("encounter", "public_seq"): "the same, as players number the log",
    ("encounter", "dice_period"): "a counter the server alone moves on, one per revealed seed",
    ("encounter", "dice_rolls"): "a counter the server alone moves on, one per roll it seals",
    ("encounter", "secret_rolls"): "the same, for secret rolls",
    ("diceseed", "id"): "an id",
    ("diceseed", "number"): "a dice period's number, copied from the encounter's counter",
    ("diceseed", "rolls"): "how many rolls the period sealed, copied from the same",
    ("combatant", "id"): "an id",
    ("combatant", "wings"): "a choice of 0, 2, 4 or 6 (the model's choices)",
    ("combatant", "legs"): "a choice the hit-location rules check with the body",
    ("condition", "id"): "an id",
    ("campaign", "id"): "an id",
    ("bestiaryentry", "id"): "an id",
    ("seat", "id"): "an id",
    ("seat", "feed_seen"): "a players' log number (logentry.public_seq), set by the server",
    ("pendingsave", "id"): "an id",
    ("pendingsave", "modifier"): "the save form's modifier, written by the server alone",
    ("pendingsave", "amount"): "damage the server rolled, never drawn as a value to check",
    ("logentry", "id"): "an id",
    ("logentry", "seq"): "the encounter's counter as the entry was written",
    ("logentry", "public_seq"): "the same, as players number the log",
    ("actionkey", "id"): "an id",
    ("wrestle", "id"): "an id",
}


def _numbers(model: type[models.Model]) -> list[models.Field]:
    return [
        f
        for f in model._meta.concrete_fields
        if isinstance(f, models.IntegerField | models.DecimalField) and not f.is_relation
    ]


def _bounded_fields() -> list[tuple[type[models.Model], str, Bound]]:
    found = []
    for model in apps.get_app_config("combat").get_models():
        for field in _numbers(model):
            bound = bounded.bound_of(model, field.name)
            if bound is not None:
                found.append((model, field.name, bound))
    return found


BOUNDED = _bounded_fields()
IDS = [f"{model._meta.model_name}.{name}" for model, name, _b in BOUNDED]


def _step(bound: Bound) -> Any:
    """One past a limit: a whole number's 1, a decimal's smallest stored step."""
    return 1 if bound.whole else Decimal("0.01")


def _ends(bound: Bound) -> list[tuple[Any, Any]]:
    """Each limit and the value one past it."""
    return [(bound.high, bound.high + _step(bound)), (bound.low, bound.low - _step(bound))]


def test_every_stored_number_has_a_declared_range_or_a_reason_not_to():
    for model in apps.get_app_config("combat").get_models():
        for field in _numbers(model):
            key = (model._meta.model_name, field.name)
            declared = bounded.bound_of(model, field.name) is not None
            assert declared != (key in UNBOUNDED), key


@pytest.mark.parametrize(("model", "name", "bound"), BOUNDED, ids=IDS)
def test_the_model_holds_each_declared_range_in_its_validators_and_its_check(
    db, model, name, bound
):
    field = model._meta.get_field(name)
    checks = [c for c in model._meta.constraints if c.name.endswith(f"_{name}_bounds")]
    assert len(checks) == 1, name
    instance = model(**{name: bound.high})
    for fine, past in _ends(bound):
        field.run_validators(fine)
        setattr(instance, name, fine)
        checks[0].validate(model, instance)
        with pytest.raises(ValidationError) as refused:
            field.run_validators(past)
        assert refused.value.messages
        setattr(instance, name, past)
        with pytest.raises(ValidationError):
            checks[0].validate(model, instance)


@pytest.mark.parametrize("bound", list(BOUNDS.values()), ids=list(BOUNDS))
def test_the_engine_checks_each_range_with_a_message(bound):
    for fine, past in _ends(bound):
        assert bound.check(fine) == fine
        with pytest.raises(RulesError) as refused:
            bound.check(past)
        assert (refused.value.params["low"], refused.value.params["high"]) == (
            bound.low,
            bound.high,
        )
        assert message_for(refused.value)


# --- forms -----------------------------------------------------------------------------------


@pytest.fixture
def sea(db) -> Encounter:
    """A BECMI encounter with hit locations; on the party's side (so a party file holds them
    too) a ship, a fighter and a hired ogre put to sleep for two turns."""
    encounter = Encounter.objects.create(name="Sea of Dread", system="becmi", hit_locations=True)
    monster(
        encounter, "Black Cog", side=Side.PARTY, kind=Kind.SHIP, ac=8, hp_max=100, hp=100,
        hit_dice="",
        speed=120, crew=20, rowers=40, rowers_lost=4, hull_repaired=3,
    )  # fmt: skip
    character(encounter, "Aldric", char_class="fighter", level=3, hp_max=20, hp=20)
    ogre = monster(encounter, "Hired ogre", side=Side.PARTY, morale=7, xp=10)
    Condition.objects.create(combatant=ogre, kind=ConditionKind.ASLEEP, rounds_left=120)
    return encounter


def _form_fields(encounter: Encounter) -> list[tuple[str, dict[str, django_forms.Field]]]:
    """Every form that edits a stored number, by name, with its fields."""
    ship = encounter.combatants.get(kind=Kind.SHIP)
    woods = Encounter.objects.create(name="Woods", system="dolmenwood")
    goblin = monster(woods, "Goblin")
    entry = BestiaryEntry.objects.create(
        campaign=Campaign.objects.create(),
        system="ose",
        name="Goblin",
        stats={"hit_dice": "1-1", "ac": 6},
    )
    return [
        ("edit a ship", CombatantForm(instance=ship, encounter=encounter).fields),
        ("edit in Dolmenwood", CombatantForm(instance=goblin, encounter=woods).fields),
        ("add a ship", becmi_forms.ShipForm(viewer=_viewer(encounter)).fields),
        ("add monsters", QuickAddForm(encounter=encounter).fields),
        ("a bestiary entry", bestiary_forms.EntryForm(entry=entry).fields),
    ]


def _viewer(encounter: Encounter) -> Any:
    from combat.access import Viewer

    return Viewer(encounter, True, None)


# What no form writes as it is stored (the server writes it), and what keeps it in range.
NOT_TYPED = {
    "hull_repaired": "repairs add at most half the damage taken (rules.becmi_naval)",
    "round": "the fight's buttons step it on, End the round refusing past the last",
    "rounds_left": "a condition's duration, at most 999 turns (checked below)",
    "started_round": "the round the wrestling starts in",
    "rounds": "one more per wrestling round",
    "attacker_ac": "the wrestling form's AC fields (checked below)",
    "defender_ac": "the same",
}
# Checked by the form in words closer to the case; the browser's min and max still given.
SAID_BETTER = {"level": "Levels of this class: 1 to 14."}
# A form field for a stored number under another name.
FORM_NAMES = {"hull_points": "hp_max"}


def test_every_form_field_for_a_stored_number_takes_its_range_and_refuses_past_it(sea):
    typed: set[str] = set()
    for form, fields in _form_fields(sea):
        for name, field in fields.items():
            bound = bounded.bound_of(Combatant, FORM_NAMES.get(name, name))
            if bound is None or not isinstance(field, django_forms.IntegerField):
                if bound is not None:
                    assert isinstance(field, django_forms.DecimalField), (form, name)
                else:
                    continue
            typed.add(FORM_NAMES.get(name, name))
            if not getattr(field, "localize", False):
                attrs = field.widget.attrs
                assert (attrs["min"], attrs["max"]) == (bound.low, bound.high), (form, name)
            if name in SAID_BETTER:
                continue
            for fine, past in _ends(bound):
                assert field.clean(str(fine)) == fine, (form, name)
                with pytest.raises(ValidationError) as refused:
                    field.clean(str(past))
                assert refused.value.messages, (form, name)
    every = {name for _m, name, _b in BOUNDED}
    assert every - typed == set(NOT_TYPED)


def test_what_no_form_types_stays_in_range_by_the_forms_that_make_it():
    from combat.round_forms import ConditionForm

    longest = ConditionForm.base_fields["duration"].max_value * rounds.ROUNDS_PER_TURN
    assert longest <= BOUNDS["rounds_left"].high
    ac = becmi_forms._ac_field("AC")
    assert (ac.min_value, ac.max_value) == (BOUNDS["ac"].low, BOUNDS["ac"].high)


def test_a_character_s_level_past_its_class_is_said_by_the_class(sea):
    referee = Client()
    referee.get(reverse("referee_link", args=[sea.referee_key]))
    woods = Encounter.objects.create(name="Keep")
    aldric = character(woods, "Aldric", char_class="fighter", level=3)
    from .conftest import form_values

    referee.get(reverse("referee_link", args=[woods.referee_key]))
    edit = reverse("combatant_edit", args=[woods.slug, aldric.pk])
    values = form_values(referee.get(edit).content.decode(), edit) | {"level": "37"}
    said = referee.post(edit, values, HTTP_HX_REQUEST="true").content.decode()
    assert SAID_BETTER["level"] in said
    aldric.refresh_from_db()
    assert aldric.level == 3


# --- the Edit combatant and Add a ship forms on a ship ------------------------------------------


def _referee(encounter: Encounter) -> Client:
    client = Client()
    client.get(reverse("referee_link", args=[encounter.referee_key]))
    return client


@pytest.mark.parametrize("name", ["speed", "crew", "rowers", "rowers_lost"])
def test_the_edit_combatant_form_refuses_a_ship_past_its_range_and_writes_nothing(sea, name):
    from .conftest import form_values

    referee = _referee(sea)
    ship = sea.combatants.get(kind=Kind.SHIP)
    edit = reverse("combatant_edit", args=[sea.slug, ship.pk])
    opened = form_values(referee.get(edit).content.decode(), edit)
    for value in ("1000001", str(BOUNDS[name].high + 1), "-1"):
        reply = referee.post(edit, opened | {name: value}, HTTP_HX_REQUEST="true")
        assert reply.status_code == 200
        assert "less than or equal to 100000" in reply.content.decode() or value == "-1"
        assert getattr(Combatant.objects.get(pk=ship.pk), name) == getattr(ship, name)
    reply = referee.post(edit, opened | {name: str(BOUNDS[name].high)}, HTTP_HX_REQUEST="true")
    assert getattr(Combatant.objects.get(pk=ship.pk), name) == BOUNDS[name].high
    page = referee.get(reverse("encounter", args=[sea.slug]))
    assert page.status_code == 200 and ROW_NOTICE not in page.content.decode()


def test_the_add_a_ship_form_takes_the_same_range(sea):
    referee = _referee(sea)
    add = reverse("bx_ship", args=[sea.slug])
    base = {"name": "Sea Wolf", "side": Side.PARTY, "ac": "8", "hull_points": "60"}
    top = {name: str(BOUNDS[name].high) for name in ("speed", "crew", "rowers")}
    for name in top:
        refused = referee.post(add, base | top | {name: "100001"}, HTTP_HX_REQUEST="true")
        assert "less than or equal to 100000" in refused.content.decode()
        assert not sea.combatants.filter(name="Sea Wolf").exists()
    assert referee.post(add, base | top, HTTP_HX_REQUEST="true").status_code == 200
    wolf = sea.combatants.get(name="Sea Wolf")
    assert (wolf.speed, wolf.crew, wolf.rowers) == (100_000, 100_000, 100_000)
    assert ship_view(wolf).speed == 100_000


# --- importers ---------------------------------------------------------------------------------


def _counts() -> tuple[int, int, int]:
    return Encounter.objects.count(), Combatant.objects.count(), Condition.objects.count()


def _record_path(document: dict, model: type[models.Model], name: str) -> list[Any]:
    """Where the file holds the field: the encounter, the ship's, the fighter's, a condition."""
    if model is Encounter:
        return ["encounter", name]
    names = [c["name"] for c in document["combatants"]]
    if model is Condition:
        return ["combatants", names.index("Hired ogre"), "conditions", 0, name]
    kind_of = {"speed", "crew", "rowers", "rowers_lost", "hull_repaired"}
    return ["combatants", names.index("Black Cog" if name in kind_of else "Aldric"), name]


def _set(document: dict, path: list[Any], value: Any) -> dict:
    changed = copy.deepcopy(document)
    target = changed
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = str(value) if isinstance(value, Decimal) else value
    return changed


IMPORTED = [(m, n, b) for m, n, b in BOUNDED if m is not Wrestle]  # no file holds a wrestling


@pytest.mark.parametrize(
    ("model", "name", "bound"),
    IMPORTED,
    ids=[f"{m._meta.model_name}.{n}" for m, n, _b in IMPORTED],
)
def test_an_encounter_file_takes_each_limit_draws_it_and_refuses_one_past(sea, model, name, bound):
    document = transfer.export_encounter(sea)
    path = _record_path(document, model, name)
    for fine, past in _ends(bound):
        before = _counts()
        with pytest.raises(transfer.Refused) as refused:
            transfer.import_encounter(json.dumps(_set(document, path, past)).encode())
        assert name in str(refused.value.message)
        assert _counts() == before
        copy_ = transfer.import_encounter(json.dumps(_set(document, path, fine)).encode())
        page = _referee(copy_).get(reverse("encounter", args=[copy_.slug]))
        assert page.status_code == 200, (name, fine)
        assert ROW_NOTICE not in page.content.decode(), (name, fine)


@pytest.mark.parametrize(
    ("model", "name", "bound"),
    [(m, n, b) for m, n, b in IMPORTED if m is not Encounter],
    ids=[f"{m._meta.model_name}.{n}" for m, n, _b in IMPORTED if m is not Encounter],
)
def test_a_party_file_takes_each_limit_and_refuses_one_past(sea, model, name, bound):
    document = party.export_party(sea)
    path = _record_path(document, model, name)
    viewer = _viewer(Encounter.objects.create(name="Next session"))
    for fine, past in _ends(bound):
        before = _counts()
        with pytest.raises(transfer.Refused) as refused:
            party.import_party(viewer, json.dumps(_set(document, path, past)).encode())
        assert name in str(refused.value.message)
        assert _counts() == before
        assert party.import_party(viewer, json.dumps(_set(document, path, fine)).encode())


# The files found taking a table down (issue 29, items 2 and 3): refused at the door, in the
# reader's language, nothing stored.
POISONED = [
    ("ship speed", "Black Cog", "speed", 1_000_001),
    ("ship rowers", "Black Cog", "rowers", 1_000_001),
    ("ship hull repaired", "Black Cog", "hull_repaired", 1_000_001),
    ("condition rounds", "Hired ogre", ("conditions", 0, "rounds_left"), 1_000_001),
]


def _poisoned(document: dict, who: str, field: Any, value: int) -> dict:
    names = [c["name"] for c in document["combatants"]]
    path = ["combatants", names.index(who), *((field,) if isinstance(field, str) else field)]
    return _set(document, path, value)


@pytest.mark.parametrize(("case", "who", "field", "value"), POISONED, ids=[p[0] for p in POISONED])
def test_a_poisoned_encounter_file_is_refused_in_the_reader_s_language(
    sea, case, who, field, value
):
    raw = json.dumps(_poisoned(transfer.export_encounter(sea), who, field, value)).encode()
    before = _counts()
    reply = Client(headers={"accept-language": "cs"}).post(
        reverse("import_encounter"), {"file": SimpleUploadedFile("e.json", raw)}
    )
    assert reply.status_code == 400
    said = reply.content.decode()
    limit = BOUNDS[field if isinstance(field, str) else field[-1]].high
    assert 'role="alert"' in said
    assert f"Hodnota musí být menší nebo rovna {limit}." in said  # Django's words, in Czech
    assert _counts() == before


@pytest.mark.parametrize(("case", "who", "field", "value"), POISONED, ids=[p[0] for p in POISONED])
def test_a_poisoned_party_file_is_refused_in_the_reader_s_language(sea, case, who, field, value):
    document = _poisoned(party.export_party(sea), who, field, value)
    upload = SimpleUploadedFile("party.json", json.dumps(document).encode())
    referee = Client(headers={"accept-language": "uk"})
    referee.get(reverse("referee_link", args=[sea.referee_key]))
    before = _counts()
    reply = referee.post(
        reverse("import_party", args=[sea.slug]), {"file": upload}, HTTP_HX_REQUEST="true"
    )
    assert reply.status_code == 200
    assert "Переконайтеся" in reply.content.decode()  # Django's own words, in Ukrainian
    assert _counts() == before
    assert referee.get(reverse("encounter", args=[sea.slug])).status_code == 200


def test_an_encounter_file_at_the_last_round_there_is_is_refused(sea):
    document = transfer.export_encounter(sea)
    before = _counts()
    for round_ in (9223372036854775807, 2**31, BOUNDS["round"].high + 1, -1):
        with pytest.raises(transfer.Refused):
            transfer.import_encounter(
                json.dumps(_set(document, ["encounter", "round"], round_)).encode()
            )
    assert _counts() == before


# --- End the round at the limits ---------------------------------------------------------------


def test_end_the_round_counts_a_condition_down_from_the_longest_there_is(sea):
    referee = _referee(sea)
    assert referee.post(reverse("fight", args=[sea.slug]), {}).status_code in (200, 302)
    sea.refresh_from_db()
    condition = Condition.objects.get()
    Condition.objects.filter(pk=condition.pk).update(rounds_left=BOUNDS["rounds_left"].high)
    at = f"{sea.round}:0:0:0"
    reply = referee.post(
        reverse("advance", args=[sea.slug, "round"]), {"at": at}, HTTP_HX_REQUEST="true"
    )
    assert reply.status_code == 200
    condition.refresh_from_db()
    sea.refresh_from_db()
    assert (sea.round, condition.rounds_left) == (2, BOUNDS["rounds_left"].high - 1)


def test_end_the_round_at_the_last_round_is_refused_with_a_message(sea):
    referee = _referee(sea)
    assert referee.post(reverse("fight", args=[sea.slug]), {}).status_code in (200, 302)
    last = BOUNDS["round"].high
    Encounter.objects.filter(pk=sea.pk).update(round=last)
    reply = referee.post(
        reverse("advance", args=[sea.slug, "round"]),
        {"at": f"{last}:0:0:0"},
        HTTP_HX_REQUEST="true",
    )
    assert reply.status_code == 200 and "The round cannot end" in reply.content.decode()
    sea.refresh_from_db()
    assert sea.round == last
    assert _referee(sea).get(reverse("encounter", args=[sea.slug])).status_code == 200


# --- the engine draws whatever is stored -------------------------------------------------------


def test_the_engine_draws_a_ship_at_every_limit(sea):
    ship = sea.combatants.get(kind=Kind.SHIP)
    for name in ("speed", "crew", "rowers", "rowers_lost", "hull_repaired", "hp_max"):
        for value in (BOUNDS[name].low, BOUNDS[name].high):
            setattr(ship, name, value)
            ship.hp = min(ship.hp, ship.hp_max)
            assert ship_view(ship) is not None
    ship_of(ship).speed(BOUNDS["speed"].high)
    with pytest.raises(RulesError):
        becmi_naval.Ship(hull_points=10, rowers=BOUNDS["rowers"].high + 1)
    with pytest.raises(RulesError):
        becmi_naval.Ship(hull_points=10, temporary_repairs=BOUNDS["hull_repaired"].high + 1)
    with pytest.raises(RulesError):
        becmi_naval.Ship(hull_points=10).speed(BOUNDS["speed"].high + 1)


# --- the migration -----------------------------------------------------------------------------


BEFORE, AFTER = ("combat", "0015_log_found_by_number"), ("combat", "0016_bounds")


@pytest.mark.django_db(transaction=True)
def test_the_migration_brings_stored_values_into_range_before_it_checks_them():
    with migrated_to(BEFORE) as old:
        encounter = old.get_model("combat", "Encounter").objects.create(
            name="Old", slug="old", referee_key="r", join_token="j", display_token="d",
            round=2**31 - 1,
        )  # fmt: skip
        saves = {f"save_{s}": 10 for s in ("death", "wands", "paralysis", "breath", "spells")}
        ship = old.get_model("combat", "Combatant").objects.create(
            encounter=encounter, name="Cog", kind="ship", ac=8, hp_max=50, hp=50, thac0=19,
            speed=1_000_001, crew=2**31 - 1, rowers=1_000_001, rowers_lost=200_000,
            hull_repaired=1_000_001, wis_score=30, attack_bonus=-99,
            height_ft=Decimal("0.01"), weapon_ft=Decimal("5000"), **saves,
        )  # fmt: skip
        old.get_model("combat", "Condition").objects.create(
            combatant=ship, kind="asleep", rounds_left=2**31 - 1
        )
        migrate(AFTER)
    ship = Combatant.objects.get(name="Cog")
    assert (ship.speed, ship.crew, ship.rowers, ship.rowers_lost, ship.hull_repaired) == (
        100_000,
        100_000,
        100_000,
        100_000,
        9999,
    )
    assert (ship.wis_score, ship.attack_bonus) == (18, -20)
    assert (ship.height_ft, ship.weapon_ft) == (Decimal("0.1"), Decimal(1000))
    assert Encounter.objects.get(name="Old").round == 1_000_000
    assert Condition.objects.get(combatant=ship).rounds_left == 1_000_000
