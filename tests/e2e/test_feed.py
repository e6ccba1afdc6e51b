"""The personal feed on a player's phone (issue 31): being hit, a save owed and "your side acts"
land on top of the screen wherever the player has scrolled, the save is one tap from there,
"Seen" clears the rest for good, and no other phone sees them."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from .test_accessibility import Audit
from .test_group import roll_group, row
from .test_phone import YOUR_SIDE_ACTS
from .test_rounds import in_language, roll
from .test_table import (
    MARK_STALE,
    add_character,
    add_monsters,
    combatant,
    create_encounter,
    fresh,
    give,
    join,
    open_attack,
    open_panel,
    roll_attack,
    settled,
    swap_panel,
    wait_until_live,
)

pytestmark = pytest.mark.e2e

# What a person sees without scrolling: all of the element on the screen, below the header.
ON_SCREEN = """element => {
  const header = document.querySelector("header.top").getBoundingClientRect();
  const box = element.getBoundingClientRect();
  return box.height > 0 && box.top >= header.bottom - 0.5 && box.bottom <= window.innerHeight + 0.5;
}"""
WHERE = """element => {
  const header = document.querySelector("header.top").getBoundingClientRect();
  const box = element.getBoundingClientRect();
  return {header: header.bottom, top: box.top, bottom: box.bottom, screen: window.innerHeight,
          scrolled: window.scrollY};
}"""
# The phone's buzzes, counted (navigator.vibrate as the page calls it).
COUNT_BUZZES = """
  window.buzzes = [];
  Object.defineProperty(navigator, "vibrate", {
    configurable: true, value: pattern => { window.buzzes.push(pattern); return true; } });
"""


def on_screen(page: Page, what: Locator) -> None:
    """``what`` is on the screen the player has, whole and below the header, with no scrolling."""
    expect(what).to_be_visible()
    handle = what.element_handle()
    try:
        page.wait_for_function(ON_SCREEN, arg=handle)
    except PlaywrightTimeoutError:
        pytest.fail(f"not on the screen: {handle.evaluate(WHERE)}")


def reading_the_log(page: Page) -> None:
    """The player has scrolled down to the log, far from the top of the page."""
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert page.evaluate("window.scrollY") > 150


def buzzes(page: Page) -> int:
    return page.evaluate("window.buzzes.length")


@pytest.mark.parametrize(
    ("width", "height", "language"),
    [pytest.param(360, 740, "cs", id="360x740-cs"), pytest.param(390, 844, "en", id="390x844-en")],
)
def test_what_happens_to_a_players_character_is_on_top_of_their_phone_until_seen(
    referee, phone, width, height, language
):
    join_link = create_encounter(referee, "The goblin warren")
    add_monsters(referee, 6, "Goblin", ac=6, hit_dice="1-1")
    add_character(referee, "Aldric", ac=4, hp=30, thac0=17, str_score=13)
    add_character(referee, "Brina", ac=7, hp=30, thac0=19, str_score=10)
    anna, boris = phone(width, height), phone(width, height)
    anna.add_init_script(COUNT_BUZZES)
    errors: list[str] = []
    anna.on("pageerror", lambda error: errors.append(str(error)))
    join(anna, join_link, "Anna")
    join(boris, join_link, "Boris")
    give(referee, "Aldric", "Anna")
    give(referee, "Brina", "Boris")
    if language != "en":
        in_language(anna, language)
    feed = anna.locator("#feed")
    expect(feed).to_be_hidden()  # nothing has happened to Aldric yet

    # A goblin hits Aldric while Anna reads the log at the foot of her page.
    reading_the_log(anna)
    open_attack(referee, "Goblin 1", "Aldric")
    roll_attack(referee, natural=19, damage="1d6", damage_dice="4")
    hit = feed.locator(".feed-item.feed-hit")
    on_screen(anna, hit)
    expect(hit).to_contain_text("Goblin 1")
    expect(hit).to_contain_text("Aldric")
    expect(boris.locator("#feed .feed-item")).to_have_count(0)  # not Boris's character
    assert buzzes(anna) == 0  # a blow asks nothing of her: no buzz

    # A fireball whose saves the players roll: Anna's is owed, on top, one tap from there.
    reading_the_log(anna)
    panel = open_panel(referee, "Area effect")
    panel.locator("#id_label").fill("Fireball")
    panel.get_by_label("Aldric", exact=True).check()
    panel.get_by_label("Brina", exact=True).check()
    panel.locator("#id_damage").fill("2d6")
    panel.locator("#id_damage_dice").fill("5 5")
    panel.locator("#id_category").select_option("spells")
    panel.get_by_label("Players roll their characters' saves on their phones").check()
    expect(row(panel, "Aldric")).to_be_visible()
    roll_group(referee, panel, 1)
    save = feed.locator(".feed-item.feed-save")
    on_screen(anna, save)
    expect(save).to_contain_text("Aldric")
    expect(anna.locator("html")).to_have_attribute("lang", language)
    expect(boris.locator("#feed .feed-save")).to_contain_text("Brina")
    expect(boris.locator("#feed .feed-save")).not_to_contain_text("Aldric")
    anna.wait_for_function("window.buzzes.length === 1")  # asked to roll: one buzz
    # Readable and named for everyone, in both themes (axe: nothing moderate or worse).
    for theme in ("light", "dark"):
        anna.locator("#theme-select").select_option(theme)
        expect(anna.locator("html")).to_have_attribute("data-theme", theme)
        audit = Audit(theme)
        audit.check(anna, "a phone with its feed")
        audit.assert_clean()

    # One tap: the save is rolled, its result in her panel, and the item gone.
    settled(anna)
    anna.locator("#panel").evaluate(
        "panel => { for (const c of panel.children) c.dataset.stale = '' }"
    )
    save.get_by_role("button").click()
    expect(fresh(anna.locator("#panel"), ".result")).to_be_visible()
    expect(save).to_have_count(0)
    expect(referee.locator("#log")).to_contain_text("Aldric: saving throw vs Spells")

    # The party wins initiative: "your side acts" on top, with a buzz.
    panel = open_panel(referee, "Start a fight")
    panel.locator("#id_party_die").fill("3")
    panel.locator("#id_foes_die").fill("3")
    swap_panel(referee, panel.get_by_role("button", name="Start"))
    expect(fresh(panel, "h2")).to_have_text("Initiative")
    reading_the_log(anna)
    panel.locator("#id_party_die").fill("5")
    panel.locator("#id_foes_die").fill("2")
    roll(referee, panel)
    turn = feed.locator(".feed-item.feed-turn")
    on_screen(anna, turn)
    expect(turn).to_contain_text(YOUR_SIDE_ACTS.get(language, YOUR_SIDE_ACTS["en"]))
    anna.wait_for_function("window.buzzes.length === 2")
    # A fight runs: the screen is kept awake (or asked to be, where the browser refuses).
    expect(anna.locator("html")).to_have_attribute("data-wake", "held")

    # Buzzing is hers to turn off, on this phone.
    vibrate = feed.locator(".feed-vibrate")
    expect(vibrate).to_have_attribute("aria-pressed", "true")
    vibrate.click()
    expect(vibrate).to_have_attribute("aria-pressed", "false")
    assert anna.evaluate("localStorage.getItem('fray-feed-vibrate')") == "off"

    # Seen: the blow and the turn go, and stay gone on a reload.
    expect(feed.locator(".feed-item")).to_have_count(2)
    settled(anna)
    feed.locator(".feed-seen button").click()
    expect(anna.locator("#feed .feed-item")).to_have_count(0)
    expect(anna.locator("#feed")).to_be_hidden()
    anna.reload()
    wait_until_live(anna)
    expect(anna.locator("#feed .feed-item")).to_have_count(0)
    expect(anna.locator("#feed")).to_be_hidden()
    expect(combatant(anna, "Aldric")).to_be_visible()
    # Boris's own items are his: Anna's Seen took none of them.
    expect(boris.locator("#feed .feed-turn")).to_be_visible()
    expect(boris.locator("#feed .feed-save")).to_be_visible()

    # The fight's end and Anna's share of the experience, on top; the screen may sleep again.
    reading_the_log(anna)
    panel = swap_panel(referee, referee.locator("#round").get_by_role("link", name="End the fight"))
    expect(fresh(panel, "h2")).to_have_text("End of the fight")
    panel.get_by_label("Shared by how many").fill("2")
    settled(referee)
    panel.evaluate(MARK_STALE)
    panel.get_by_role("button", name="Share and end the fight").click()
    expect(fresh(panel, ".result")).to_contain_text("The fight is over")
    end = feed.locator(".feed-item.feed-end")
    on_screen(anna, end)
    expect(end.locator(".feed-xp")).to_contain_text(re.compile(r"\d"))
    expect(anna.locator("html")).to_have_attribute("data-wake", "off")
    expect(boris.locator("#feed .feed-end")).to_be_visible()  # every seat's fight ended
    # The phone needs no sideways scrolling for any of it.
    assert anna.evaluate("document.documentElement.scrollWidth") <= width
    assert errors == []  # and no script failed on the way
