"""Group rolls in real browsers: the referee's laptop rolls for several at one tap, and a
player's phone sees every result arrive without a reload."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from .test_table import (
    ODDS_LINE,
    add_character,
    add_monsters,
    combatant,
    create_encounter,
    fresh,
    give,
    join,
    open_panel,
    swap_panel,
)

pytestmark = pytest.mark.e2e


def row(panel: Locator, name: str) -> Locator:
    """A combatant's line in the list of who takes part."""
    return panel.locator("tr.member").filter(
        has=panel.page.locator("label", has_text=re.compile(rf"^\s*{re.escape(name)}\s*$"))
    )


def roll_group(referee: Page, panel: Locator, entries: int) -> Locator:
    """Tap Roll; the result once the panel shows the whole group."""
    swap_panel(referee, panel.locator("button.primary"))
    result = fresh(panel, ".result")
    expect(result.locator(".entry")).to_have_count(entries)
    return result


def fireball_for_phones(referee: Page, names: tuple[str, ...], dice: str) -> Locator:
    """The referee's area effect: a 2d6 fireball (``dice`` typed in) on ``names``, each
    character's save rolled by its player on their phone; the panel, ready to roll."""
    panel = open_panel(referee, "Area effect")
    panel.locator("#id_label").fill("Fireball")
    for name in names:
        panel.get_by_label(name, exact=True).check()
    panel.locator("#id_damage").fill("2d6")
    panel.locator("#id_damage_dice").fill(dice)
    panel.locator("#id_category").select_option("spells")
    panel.get_by_label("Players roll their characters' saves on their phones").check()
    return panel


def test_a_group_attack_and_a_fireball_reach_a_players_phone(referee, phone):
    join_link = create_encounter(referee, "The goblin warren")
    add_monsters(referee, 3, "Goblin", ac=6, hit_dice="1-1")
    add_character(referee, "Aldric", ac=4, hp=30, thac0=17, str_score=13)
    add_character(referee, "Brina", ac=7, hp=30, thac0=19, str_score=10)
    anna = phone()
    join(anna, join_link, "Anna")
    give(referee, "Aldric", "Anna")

    # Three goblins at once on Aldric, each with the die rolled at the table.
    panel = open_panel(referee, "Group attack")
    panel.get_by_label("every Goblin (3)").check()
    panel.locator("#id_target").select_option(label="Aldric")
    # Before the roll: each goblin's odds of hitting Aldric.
    odds = panel.locator(".group-odds .odds-line")
    expect(odds).to_have_count(3)
    for line in odds.all():
        expect(line).to_contain_text(" → Aldric: ")
        expect(line).to_have_text(re.compile(ODDS_LINE.pattern))
    for name, natural, damage in (
        ("Goblin 1", 20, "3"),
        ("Goblin 2", 2, ""),
        ("Goblin 3", 15, "2"),
    ):
        row(panel, name).locator("input[name^='natural_']").fill(str(natural))
        row(panel, name).locator("input[name^='damage_dice_']").fill(damage)
    result = roll_group(referee, panel, 3)
    for name in ("Goblin 1", "Goblin 2", "Goblin 3"):
        expect(result).to_contain_text(f"{name} attacks Aldric")
    expect(result.locator(".entry .badge.group")).to_have_count(3)

    # Anna's phone hears it over the socket: three attacks, two of them hits, 5 damage.
    log = anna.locator("#log")
    expect(log.locator(".entry.attack")).to_have_count(3)
    expect(log).to_contain_text("Goblin 2 attacks Aldric")
    expect(log.locator(".badge.group")).to_have_count(3)
    expect(combatant(anna, "Aldric").locator(".hp")).to_contain_text("25")

    # A fireball on both characters: one damage roll, a saving throw each.
    panel = open_panel(referee, "Area effect")
    panel.locator("#id_label").fill("Fireball")
    panel.get_by_label("Aldric", exact=True).check()
    panel.get_by_label("Brina", exact=True).check()
    panel.locator("#id_damage").fill("2d6")
    panel.locator("#id_damage_dice").fill("6 6")
    panel.locator("#id_category").select_option("spells")
    panel.locator("#id_on_save").select_option("half")
    expect(panel.locator(".group-odds .odds-line")).to_have_count(2)
    expect(panel.locator(".group-odds")).to_contain_text("2 to 12")
    row(panel, "Aldric").locator("input[name^='natural_']").fill("20")
    row(panel, "Brina").locator("input[name^='natural_']").fill("2")
    result = roll_group(referee, panel, 3)
    expect(result).to_contain_text("Fireball: 2d6")
    expect(result).to_contain_text("Damage 12, halved (rounded down): 6")

    expect(log).to_contain_text("Fireball: 2d6")
    expect(log).to_contain_text("Aldric: saving throw vs Spells")
    expect(log).to_contain_text("Damage 12, halved (rounded down): 6")
    expect(log).to_contain_text("Brina: saving throw vs Spells")
    expect(log).to_contain_text("Damage taken: 12")
    expect(combatant(anna, "Aldric").locator(".hp")).to_contain_text("19")
    # The phone needs no sideways scrolling for any of it.
    assert anna.evaluate("document.documentElement.scrollWidth") <= 390


def test_a_fireball_whose_saves_two_players_roll_on_their_phones(referee, phone):
    join_link = create_encounter(referee, "The dragon's lair")
    add_character(referee, "Aldric", ac=4, hp=30, thac0=17, str_score=13)
    add_character(referee, "Brina", ac=7, hp=30, thac0=19, str_score=10)
    anna, boris = phone(), phone()
    join(anna, join_link, "Anna")
    join(boris, join_link, "Boris")
    give(referee, "Aldric", "Anna")
    give(referee, "Brina", "Boris")
    boris.locator("#language-select").select_option("ru")
    expect(boris.locator("html")).to_have_attribute("lang", "ru")
    expect(boris.locator("#live-status")).to_have_attribute("data-state", "online")

    panel = fireball_for_phones(referee, ("Aldric", "Brina"), "5 5")
    result = roll_group(referee, panel, 1)  # the damage: the saves wait for the players
    expect(result).to_contain_text("Their players roll the saves of: Aldric, Brina")

    # Each phone offers its own character's save, with its odds; Anna types her die.
    anna_save = combatant(anna, "Aldric").locator("form.pending-save")
    expect(anna_save).to_contain_text("needs 16+")
    expect(combatant(anna, "Brina").locator("form.pending-save")).to_have_count(0)
    anna_save.locator("input[name='natural']").fill("17")
    anna_save.get_by_role("button").click()
    expect(anna.locator("#panel .result")).to_contain_text("Damage 10, halved (rounded down): 5")
    boris_save = combatant(boris, "Brina").locator("form.pending-save")
    boris_save.locator("input[name='natural']").fill("3")
    boris_save.get_by_role("button").click()
    expect(boris.locator("#panel .result")).to_be_visible()

    # Every screen has both saves, each in its own language, and the hit points they cost.
    expect(referee.locator("#log")).to_contain_text("Damage 10, halved (rounded down): 5")
    expect(referee.locator("#log")).to_contain_text("Damage taken: 10")
    expect(combatant(referee, "Aldric").locator(".hp")).to_contain_text("25/30")
    expect(combatant(referee, "Brina").locator(".hp")).to_contain_text("20/30")
    expect(combatant(anna, "Brina").locator(".hp")).to_contain_text("20/30")
    expect(anna_save).to_have_count(0)
    expect(combatant(boris, "Aldric").locator(".hp")).to_contain_text("25/30")
    expect(boris.locator("#log")).to_contain_text("Brina: спасбросок")
