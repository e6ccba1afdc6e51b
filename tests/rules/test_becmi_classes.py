"""The Rules Cyclopedia's saving throws by class and level: every level of every class against
a copy of the book's tables (as printed, in level bands), and the normal man's row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules import becmi_classes
from rules.errors import RulesError

DATA = json.loads((Path(__file__).parent / "data" / "becmi_classes.json").read_text())
TABLE = DATA["classes"]


def _levels(bands: dict[str, list[int]]) -> list[tuple[int, list[int]]]:
    rows = []
    for span, values in bands.items():
        low, high = (int(n) for n in span.split("-"))
        rows += [(level, values) for level in range(low, high + 1)]
    return rows


ROWS = [
    (klass, level, values)
    for klass in sorted(TABLE)
    for level, values in _levels(TABLE[klass]["bands"])
]


def test_the_engine_knows_the_seven_classes_and_their_top_levels():
    assert set(becmi_classes.CLASSES) == set(TABLE)
    for klass, data in TABLE.items():
        assert becmi_classes.max_level(klass) == data["max_level"]
        levels = [level for level, _values in _levels(data["bands"])]
        assert levels == list(range(1, data["max_level"] + 1))  # the copy has every level once


@pytest.mark.parametrize(("klass", "level", "values"), ROWS, ids=[f"{k}-{lv}" for k, lv, _ in ROWS])
def test_each_level_gives_the_books_saves(klass, level, values):
    found = becmi_classes.saves(klass, level)
    assert [found[key] for key in becmi_classes.SAVES] == values


def test_the_normal_man():
    assert [becmi_classes.NORMAL_MAN_SAVES[k] for k in becmi_classes.SAVES] == DATA["normal_man"]


def test_saves_only_improve_with_level():
    for klass in becmi_classes.CLASSES:
        previous = None
        for level in range(1, becmi_classes.max_level(klass) + 1):
            row = becmi_classes.saves(klass, level)
            if previous:
                assert all(row[k] <= previous[k] for k in becmi_classes.SAVES), (klass, level)
            previous = row


@pytest.mark.parametrize(
    ("klass", "level", "code"),
    [
        ("halfling", 9, "level_out_of_range"),
        ("elf", 11, "level_out_of_range"),
        ("fighter", 37, "level_out_of_range"),
        ("thief", 0, "level_out_of_range"),
        ("cleric", 2.5, "not_an_integer"),
        ("cleric", "3", "not_an_integer"),
        ("mystic", 1, "unknown_class"),
        (None, 1, "unknown_class"),
    ],
)
def test_a_class_or_level_the_tables_lack_is_a_rules_error(klass, level, code):
    with pytest.raises(RulesError) as raised:
        becmi_classes.saves(klass, level)
    assert raised.value.code == code
