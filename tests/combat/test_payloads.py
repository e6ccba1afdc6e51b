"""The typed log payloads' machinery (``combat.payloads``): reading stored JSON back, writing it,
older entries, keys no field declares, which class reads an entry."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from combat import payloads, registry
from combat.payloads import base, table


@dataclass(kw_only=True)
class Hit(payloads.Payload):
    target: str = ""
    roll: payloads.Roll | None = None
    damage: list[payloads.DamageRoll] = field(default_factory=list)
    killed: bool | None = payloads.omitted()

    @classmethod
    def upgrade(cls, data: dict) -> dict:
        if "victim" in data:  # an older name of the key
            data["target"] = data.pop("victim")
        return data


def test_nested_payloads_are_read_and_written_back() -> None:
    stored = {
        "target": "Goblin",
        "roll": {"natural": 17, "entered": True, "mods": [[2, "str"]], "total": 19},
        "damage": [{"expr": "1d8", "dice": [5], "total": 5}],
    }
    hit = Hit.from_json(stored)
    assert isinstance(hit.roll, payloads.Roll) and hit.roll.total == 19 and hit.roll.entered
    assert hit.roll.needed is None and hit.roll.success is False  # missing: the defaults
    assert isinstance(hit.damage[0], payloads.DamageRoll) and hit.damage[0].dice == [5]
    again = hit.to_json()
    assert again["roll"]["mods"] == [[2, "str"]] and again["damage"][0]["total"] == 5
    assert Hit.from_json(again) == hit


def test_fields_stored_only_when_set_and_the_envelope() -> None:
    plain = Hit(target="Goblin").to_json()
    assert plain == {"target": "Goblin", "roll": None, "damage": []}
    killed = Hit(target="Goblin", killed=False, unseen={"Nim": "party"}).to_json()
    assert killed["killed"] is False and killed["unseen"] == {"Nim": "party"}
    shown = Hit.from_json({"public": [{"who": "Zora", "hp": -2, "amount": 2}]})
    assert isinstance(shown.public[0], payloads.Shown) and shown.public[0].amount == 2


def test_older_entries_keep_reading() -> None:
    assert Hit.from_json({"victim": "Orc"}).target == "Orc"
    assert Hit.from_json({}).target == ""
    assert Hit.from_json(None).roll is None  # nothing stored: every default


def test_data_that_is_not_a_payloads_is_refused_not_read_as_defaults() -> None:
    with pytest.raises(payloads.Unreadable):
        Hit.from_json([1, 2, 3])
    with pytest.raises(payloads.Unreadable):
        Hit.from_json({"target": "Orc", "roll": 17})  # a nested payload stored as a number
    with pytest.raises(payloads.Unreadable):
        payloads.read("attack", "hit")


def test_undeclared_keys_are_kept_on_a_server_and_refused_by_the_tests(monkeypatch) -> None:
    monkeypatch.setattr(base, "STRICT", False)
    hit = Hit.from_json({"target": "Orc", "mystery": 3})
    assert hit.undeclared == {"mystery": 3} and hit.mystery == 3 and hit.get("mystery") == 3
    assert hit.to_json()["mystery"] == 3  # read and written back, nothing lost
    monkeypatch.setattr(base, "STRICT", True)
    with pytest.raises(payloads.UnknownKeys):
        Hit.from_json({"target": "Orc", "mystery": 3})


def test_templates_read_fields_as_keys_and_attributes() -> None:
    from django.template import Context, Template

    hit = Hit.from_json({"target": "Orc", "roll": {"total": 12}})
    html = Template("{{ d.target }} {{ d.roll.total }} [{{ d.nothing }}]").render(
        Context({"d": hit})
    )
    assert html == "Orc 12 []"
    with pytest.raises(KeyError):
        hit["nothing"]


def test_an_entry_of_an_unknown_kind_reads_as_stored() -> None:
    raw = payloads.read("no-such-kind", {"who": "Nim", "label": "x"})
    assert isinstance(raw, payloads.Raw)
    assert raw.who == "Nim" and raw.label == "x"
    assert raw.to_json() == {"who": "Nim", "label": "x"}


def test_a_system_types_its_own_entries_through_the_registry() -> None:
    system = registry.System(key="toy-payloads", label="Toy", payloads={"attack": Hit})
    registry.register(system)
    try:
        assert payloads.class_of("attack", {"system": "toy-payloads"}) is Hit
        assert payloads.class_of("attack", {}) is not Hit  # the shared attack
        assert payloads.class_of("save", {"system": "toy-payloads"}) is not Hit
    finally:
        registry.unregister("toy-payloads")


def test_a_dict_holding_payloads_is_stored_as_their_json() -> None:
    """Payloads inside a list or a dict are stored as their JSON (``combat.table.record``
    stores a secret entry's public outcome so)."""
    data = {"who": "Nim", "roll": payloads.Roll(total=3), "seen": [payloads.Shown(who="Zora")]}
    stored = payloads.to_json(data)
    assert stored["roll"] == payloads.Roll(total=3).to_json()
    assert stored["seen"][0]["who"] == "Zora" and stored["who"] == "Nim"


def test_the_shared_kinds_store_what_they_stored_before() -> None:
    """A free roll keeps its label even when empty; an area effect's own keys, and a save's
    ``negated``, only where they were written (``combat.group``)."""
    free = payloads.read("roll", {"label": "", "expr": "1d6", "dice": [4], "total": 4})
    assert isinstance(free, table.FreeRoll)
    assert free.to_json() == {"label": "", "expr": "1d6", "dice": [4], "entered": None, "total": 4}
    save = table.Save(who="Nim", damage=table.SaveDamage(amount=4, taken=2, halved=True))
    assert "negated" not in save.to_json()["damage"] and "killed" not in save.to_json()
