"""OSE's seven classic classes: every level of every class against a copy of the SRD tables,
and Charisma's reactions column."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules import ose_classes
from rules.errors import RulesError

TABLE = json.loads((Path(__file__).parent / "data" / "ose_classes.json").read_text())["classes"]
ROWS = [
    (klass, row) for klass, data in sorted(TABLE.items()) for row in data["levels"]
]  # fmt: skip


def test_the_engine_knows_the_seven_classic_classes_and_their_top_levels():
    assert set(ose_classes.CLASSES) == set(TABLE)
    for klass, data in TABLE.items():
        assert ose_classes.max_level(klass) == data["max_level"]


@pytest.mark.parametrize(("klass", "row"), ROWS, ids=[f"{k}-{r[0]}" for k, r in ROWS])
def test_each_level_gives_the_tables_thac0_and_saves(klass, row):
    level, thac0, *saves = row
    found = ose_classes.progression(klass, level)
    assert found.thac0 == thac0
    assert [found.saves[key] for key in ose_classes.SAVES] == saves


@pytest.mark.parametrize(
    ("klass", "level", "code"),
    [
        ("dwarf", 13, "level_out_of_range"),
        ("fighter", 0, "level_out_of_range"),
        ("fighter", 2.5, "not_an_integer"),
        ("paladin", 1, "unknown_class"),
    ],
)
def test_a_class_or_level_the_tables_lack_is_a_rules_error(klass, level, code):
    with pytest.raises(RulesError) as raised:
        ose_classes.progression(klass, level)
    assert raised.value.code == code


@pytest.mark.parametrize(
    ("score", "modifier"), [(3, -2), (4, -1), (8, -1), (9, 0), (12, 0), (13, 1), (17, 1), (18, 2)]
)
def test_charisma_reactions(score, modifier):
    assert ose_classes.reaction_modifier(score) == modifier
