"""Every kind of page, in the light theme and the dark one, checked by axe-core in a real browser.

axe-core comes bundled with axe-playwright-python, so this runs offline. A page fails on any
violation axe rates moderate or worse (contrast below WCAG AA, a control without a name, an
image without a text alternative, a page without an h1, …: issue 31 asks for nothing moderate
or worse), and the failure lists each with the elements it found.

Each theme is reached both ways a person gets it: the referee's laptop follows the system's
preference (emulated), and the player's phone prefers the other theme but picks this one with
the switch in the page header, which the phone then remembers.
"""

from __future__ import annotations

import re
from itertools import pairwise

import pytest
from playwright.sync_api import Locator, Page, expect

from .conftest import PHONE
from .test_table import (
    add_character,
    add_monsters,
    combatant,
    create_encounter,
    free_roll,
    fresh,
    give,
    join,
    open_attack,
    open_panel,
    open_settings,
    roll_attack,
    settled,
    swap_panel,
    wait_until_live,
)
from .test_zones import add_wyvern, turn_on_hit_locations

pytestmark = pytest.mark.e2e

REFEREE_SCREEN = {"viewport": {"width": 1280, "height": 800}}
BLOCKING = ("moderate", "serious", "critical")
# Found whatever axe rates them (moderate, today): every page has an h1 (issue 31: the
# player's page had none).
ALWAYS = ("page-has-heading-one",)
# The page background of each theme (static/fray.css): proof that the theme asked for is shown.
BACKGROUND = {"light": "rgb(246, 247, 249)", "dark": "rgb(22, 24, 29)"}
OTHER = {"light": "dark", "dark": "light"}


class Audit:
    """axe's moderate, serious and critical findings, page by page, reported together at the end."""

    def __init__(self, theme: str) -> None:
        from axe_playwright_python.sync_playwright import Axe

        self.axe = Axe()
        self.theme = theme
        self.found: list[str] = []
        self.pages: list[str] = []

    def check(self, page: Page, name: str) -> None:
        expect(page.locator("body")).to_have_css("background-color", BACKGROUND[self.theme])
        results = self.axe.run(page)
        self.pages.append(name)
        for violation in results.response["violations"]:
            if violation["impact"] not in BLOCKING and violation["id"] not in ALWAYS:
                continue
            targets = "\n".join(
                f"      {' '.join(node['target'])}: {node['failureSummary'].splitlines()[-1]}"
                for node in violation["nodes"][:8]
            )
            self.found.append(
                f"{name} ({self.theme}): [{violation['impact']}] {violation['id']}: "
                f"{violation['help']} ({len(violation['nodes'])}×)\n{targets}"
            )

    def assert_clean(self) -> None:
        checked = ", ".join(self.pages)
        assert not self.found, (
            f"axe checked {checked} and found moderate or worse problems:\n" + "\n".join(self.found)
        )


def choose_theme(page: Page, theme: str) -> None:
    """The switch in the page header: the page changes at once, without a reload."""
    page.get_by_label("Theme").select_option(theme)
    expect(page.locator("html")).to_have_attribute("data-theme", theme)


def a_full_table(referee: Page) -> str:
    """Hit locations on, a character, a wyvern with wings, goblins and a hidden kobold;
    returns the join link."""
    join_link = create_encounter(referee, "The wyvern's nest")
    turn_on_hit_locations(referee)
    add_character(referee, "Bára", ac=4, hp=20, thac0=17, str_score=13)
    add_wyvern(referee)
    add_monsters(referee, 2, "Goblin", ac=6, hit_dice="1-1")
    add_monsters(referee, 1, "Kobold", ac=7, hit_dice="1-1", hidden=True)
    return join_link


def assert_big_enough_for_a_finger(buttons: Locator) -> None:
    """48 px on a touch screen (44 px is WCAG's floor), with a gap between neighbours."""
    boxes = [button.bounding_box() for button in buttons.all()]
    assert boxes, "no buttons found"
    assert min(box["height"] for box in boxes) >= 48, boxes
    assert min(box["width"] for box in boxes) >= 48, boxes
    rows: dict[float, list[dict]] = {}
    for box in boxes:
        rows.setdefault(box["y"], []).append(box)
    for row in rows.values():
        row.sort(key=lambda box: box["x"])
        gaps = [b["x"] - (a["x"] + a["width"]) for a, b in pairwise(row)]
        assert all(gap >= 6 for gap in gaps), gaps


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_page_type_passes_axe_in_both_themes(theme, new_context):
    audit = Audit(theme)
    laptop = new_context(color_scheme=theme, **REFEREE_SCREEN).new_page()
    laptop.goto("/")
    expect(laptop.locator("html")).not_to_have_attribute("data-theme", re.compile("."))
    audit.check(laptop, "home")

    join_link = a_full_table(laptop)
    encounter_url = laptop.url
    phone = new_context(color_scheme=OTHER[theme], **PHONE).new_page()
    phone.goto(join_link)
    choose_theme(phone, theme)
    audit.check(phone, "join")
    join(phone, join_link, "Anna")
    # Remembered: the next page arrives in the chosen theme, not the system's.
    expect(phone.locator("html")).to_have_attribute("data-theme", theme)
    give(laptop, "Bára", "Anna")

    # The player on a phone: their character's buttons, the attack form with the zone odds,
    # and a hit that wounds the wyvern (its diagram shaded, its health word).
    actions = combatant(phone, "Bára").locator(".actions")
    expect(actions.locator("a[href*='/attack/']")).to_be_visible()
    assert_big_enough_for_a_finger(actions.locator(".button"))
    audit.check(phone, "encounter, player")
    panel = open_attack(phone, "Bára", "Wyvern")
    audit.check(phone, "encounter, player, attack panel")
    panel.locator("#id_natural").fill("17")
    panel.locator("#id_damage").fill("1d8")
    panel.locator("#id_damage_dice").fill("8")
    swap_panel(phone, panel.locator("button.primary"))
    expect(fresh(panel, ".result")).to_be_visible()
    audit.check(phone, "encounter, player, after an attack")

    # The referee: the whole table, an attack with its odds, then a secret roll and an undone
    # attack in the log, and a free roll with its chart.
    open_attack(laptop, "Goblin 1", "Bára")
    audit.check(laptop, "encounter, referee, attack panel")
    roll_attack(laptop, natural=15, damage="1d6", damage_dice="3")
    free_roll(laptop, "Wandering monster", secret=True)
    laptop.on("dialog", lambda dialog: dialog.accept())
    settled(laptop)
    goblins_attack = laptop.locator("#log li.entry.attack").filter(has_text="Goblin 1")
    goblins_attack.get_by_role("button", name="Undo").click()
    expect(laptop.locator("#log li.entry.undone")).to_have_count(1)
    panel = open_panel(laptop, "Free roll")
    panel.locator("#id_expression").fill("3d6")
    chart = panel.get_by_role("group", name="Chance of each total")
    expect(chart).to_be_visible()
    # A screen reader hears each bar: its total and its chance.
    expect(chart.get_by_role("img")).to_have_count(16)
    expect(chart.get_by_role("img", name="10: 12.5%")).to_have_count(1)
    audit.check(laptop, "encounter, referee, free roll with its chart")
    panel = open_panel(laptop, "Add combatant")
    swap_panel(laptop, panel.get_by_role("button", name="Save"))  # nothing filled in
    expect(panel.locator(".errorlist").first).to_be_visible()
    open_settings(laptop)
    expect(laptop.get_by_role("button", name="Save settings")).to_be_visible()
    audit.check(laptop, "encounter, referee, a refused form and the settings")
    open_panel(laptop, "Bestiary")
    audit.check(laptop, "encounter, referee, the bestiary")
    panel = open_panel(laptop, "Start a fight")
    swap_panel(laptop, panel.get_by_role("button", name="Start"))
    expect(phone.locator(".round")).to_be_visible()
    audit.check(phone, "encounter, player, in a fight")
    expect(phone.locator("#log li.entry.undone")).to_have_count(1)
    audit.check(phone, "encounter, player, the log after an undo")

    # The table display on a TV across the room: the players' view, large.
    tv = new_context(color_scheme=theme, viewport={"width": 1920, "height": 1080}).new_page()
    tv.goto(laptop.locator("details.display-link a").get_attribute("href"))
    wait_until_live(tv)
    expect(combatant(tv, "Wyvern")).to_be_visible()
    audit.check(tv, "table display")

    laptop.goto(encounter_url + "log/")
    expect(laptop.get_by_role("heading", name="Roll log")).to_be_visible()
    audit.check(laptop, "log")
    phone.goto("/hit-locations/")
    expect(phone.get_by_role("heading", name="Hit location tables")).to_be_visible()
    audit.check(phone, "hit-location tables")
    phone.goto("/formats/")
    expect(phone.locator("h1")).to_be_visible()
    audit.check(phone, "file formats")
    phone.goto(encounter_url + "combatants/new/")
    expect(phone.get_by_role("heading", name="Not allowed")).to_be_visible()
    audit.check(phone, "403")
    laptop.goto("/e/no-such-encounter/")
    expect(laptop.get_by_role("heading", name="Nothing here for you")).to_be_visible()
    audit.check(laptop, "404")

    audit.assert_clean()

    # Back to the system's choice: the phone's own preference, on this page and the next.
    phone.get_by_label("Theme").select_option("auto")
    expect(phone.locator("html")).not_to_have_attribute("data-theme", re.compile("."))
    expect(phone.locator("body")).to_have_css("background-color", BACKGROUND[OTHER[theme]])
    phone.reload()
    expect(phone.locator("body")).to_have_css("background-color", BACKGROUND[OTHER[theme]])
