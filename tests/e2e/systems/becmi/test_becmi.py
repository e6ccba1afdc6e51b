"""BECMI's special actions in real browsers: the referee's laptop in English, a player's
390x844 phone in Russian. The player's fighter punches an ogre with the odds on screen; the
referee starts a wrestle that lasts two rounds; then two ships meet and one rams the other.
Both screens show the knock-out, the hold and the hull live, each in its own language."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_rounds import in_language
from tests.e2e.test_table import (
    ENCOUNTER_PAGE,
    act_on,
    add_character,
    add_monsters,
    combatant,
    fresh,
    give,
    join,
    open_panel,
    swap_panel,
    wait_until_live,
)

pytestmark = pytest.mark.e2e


def create_becmi_encounter(referee: Page, name: str) -> str:
    referee.locator("#id_name").fill(name)
    referee.locator("#id_system").select_option("becmi")
    referee.get_by_role("button", name="Create the encounter").click()
    expect(referee).to_have_url(ENCOUNTER_PAGE)
    wait_until_live(referee)
    return referee.locator("a.join-link").get_attribute("href")


def fill_and_roll(page: Page, **values: str):
    panel = page.locator("#panel")
    for name, value in values.items():
        panel.locator(f"#id_{name}").fill(value)
    swap_panel(page, panel.locator("button.primary"))
    return fresh(panel, ".result")


def add_ship(referee: Page, name: str, side: str, hull: int) -> None:
    panel = open_panel(referee, "Add a ship")
    panel.locator("#id_name").fill(name)
    panel.locator("#id_side").select_option(side)
    panel.locator("#id_hull_points").fill(str(hull))
    panel.locator("#id_speed").fill("120")
    panel.locator("#id_crew").fill("20")
    swap_panel(referee, panel.locator("button.primary"))
    expect(fresh(panel, ".message")).to_have_text(f"Added {name}.")
    expect(combatant(referee, name)).to_be_visible()


def test_a_punch_a_wrestle_and_a_ram_between_a_laptop_and_a_russian_phone(referee, phone):
    join_link = create_becmi_encounter(referee, "The ogre's bridge")
    add_monsters(referee, 1, "Ogre", ac=5, hit_dice="4+1")
    add_character(referee, "Sir Kay", ac=2, hp=50, thac0=15, str_score=13)
    anna = phone(390, 844)
    join(anna, join_link, "Anna")
    give(referee, "Sir Kay", "Anna")
    in_language(anna, "ru")

    # A punch: THAC0 15 against AC 5 needs 10, STR +1: 9 or more, 60 %; the ogre's C is 8,
    # so a hit stuns on 9+ (60 %): 36 % before the roll. Shown in Russian before the roll.
    row = combatant(anna, "Sir Kay")
    panel = swap_panel(anna, row.locator("a[href*='/bx/strike/']"))
    expect(panel.locator("h2")).to_have_text("Безоружный удар")
    panel.locator("#id_target").select_option(label="Ogre")
    odds = panel.locator("output.odds")
    expect(odds).to_contain_text("попадание: нужно 9+ · 60")
    expect(odds).to_contain_text("оглушение: 36")
    # 18 hits; stun 15 − 8 = 7; the save vs death ray (10) at +4 − 1 with a 2 fails.
    result = fill_and_roll(anna, natural="18", stun_natural="15", save_natural="2")
    expect(result).to_contain_text("Безоружный удар: Sir Kay → Ogre")
    expect(result).to_contain_text("Ogre теряет сознание на 7 раундов.")
    strike = referee.locator("#log .entry.strike").first
    expect(strike).to_contain_text("Sir Kay strikes Ogre unarmed (punch)")
    expect(strike).to_contain_text("Ogre is knocked out for 7 rounds.")
    expect(combatant(referee, "Ogre").locator(".badge.condition")).to_contain_text("knocked out")
    expect(combatant(anna, "Ogre").locator(".badge.condition")).to_contain_text("без сознания")

    # The referee grabs the ogre with Sir Kay (WR 1 + 1 + 0 + AC 2 = 4): 24 against 1 + 13.
    ogre_row = combatant(referee, "Ogre")
    panel = swap_panel(referee, act_on(referee, "Sir Kay").locator("a[href*='/bx/wrestle/']"))
    expect(panel.locator("h2")).to_have_text("Wrestling: grab")
    panel.locator("#id_target").select_option(label="Ogre")
    expect(panel.locator("output.odds")).to_contain_text("wrestling ratings 4 against 13")
    result = fill_and_roll(referee, attacker_natural="20", defender_natural="1")
    expect(result).to_contain_text("Hold: free → grabbed")
    expect(ogre_row.locator(".badge.hold")).to_have_text("held by Sir Kay: grabbed")
    expect(combatant(anna, "Sir Kay").locator(".badge.hold")).to_have_text("борьба → Ogre: захват")
    expect(combatant(anna, "Ogre").locator(".hold-next")).to_have_text("может попытаться вырваться")
    expect(combatant(anna, "Sir Kay").locator(".hold-next")).to_have_text(
        "может попытаться повалить"
    )

    # The second round, from the referee's row button: 20 against 1 again, thrown down.
    panel = swap_panel(referee, act_on(referee, "Sir Kay").locator("a[href*='/bx/wrestle/round/']"))
    expect(panel.locator("h2")).to_have_text("Wrestling round")
    result = fill_and_roll(referee, attacker_natural="20", defender_natural="1")
    expect(result).to_contain_text("Hold: grabbed → thrown down")
    expect(ogre_row.locator(".badge.hold")).to_have_text("held by Sir Kay: thrown down")
    expect(combatant(anna, "Ogre").locator(".badge.hold")).to_have_text(
        "борьба ← Sir Kay: на земле"
    )
    expect(anna.locator("#log .entry.wrestle").first).to_contain_text("Борьба: захват → на земле")

    # Two ships: the foes' cog rams the party's galley, (1d4 + 4) × 10 with a 2: 60 of 100.
    add_ship(referee, "Sea Wolf", "party", 100)
    add_ship(referee, "Black Cog", "foes", 80)
    panel = swap_panel(referee, act_on(referee, "Black Cog").locator("a[href*='/bx/ram/']"))
    panel.locator("#id_target").select_option(label="Sea Wolf")
    expect(panel.locator("output.odds")).to_contain_text("THAC0 19: needs")
    result = fill_and_roll(referee, natural="20", damage_dice="2")
    expect(result).to_contain_text("Black Cog rams Sea Wolf (small galley)")
    expect(combatant(referee, "Sea Wolf").locator(".hull")).to_have_text("Hull 40/100")
    wolf = combatant(anna, "Sea Wolf")
    expect(wolf.locator(".hull")).to_have_text("Корпус 40/100")
    expect(wolf.locator(".speed")).to_have_text("скорость 48 из 120")
    expect(anna.locator("#log .entry.naval").first).to_contain_text("Таран")
    # Every row's new lines and buttons fit the phone: no sideways scrolling.
    assert anna.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
