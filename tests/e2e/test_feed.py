"""The personal feed on a player's phone (issue 31): being hit, a save owed and "your side acts"
land on top of the screen wherever the player has scrolled, the save is one tap from there,
"Seen" clears the rest for good, and no other phone sees them. In every language the table
speaks, at both phone sizes, and on a laptop: the words are the catalogue's, never English."""

from __future__ import annotations

import re

import pytest
from django.utils import translation
from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from combat.labels import SAVES

from .test_accessibility import Audit
from .test_group import fireball_for_phones, roll_group, row
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

# What a person sees without scrolling: all of the element on the screen, below the header,
# and inside the feed's own box (the feed scrolls itself past 55 % of the screen's height: an
# item scrolled out of it, up, down or sideways, is not seen).
ON_SCREEN = """element => {
  const header = document.querySelector("header.top").getBoundingClientRect();
  const feed = element.closest("#feed").getBoundingClientRect();
  const box = element.getBoundingClientRect();
  const top = Math.max(header.bottom, feed.top), bottom = Math.min(window.innerHeight, feed.bottom);
  const left = Math.max(0, feed.left), right = Math.min(window.innerWidth, feed.right);
  return box.height > 0 && box.top >= top - 0.5 && box.bottom <= bottom + 0.5
    && box.left >= left - 0.5 && box.right <= right + 0.5;
}"""
WHERE = """element => {
  const header = document.querySelector("header.top").getBoundingClientRect();
  const feed = element.closest("#feed").getBoundingClientRect();
  const box = element.getBoundingClientRect();
  return {header: header.bottom, feed: [feed.top, feed.bottom, feed.left, feed.right],
          box: [box.top, box.bottom, box.left, box.right],
          screen: [window.innerWidth, window.innerHeight], scrolled: window.scrollY};
}"""
# Words cut or pushed out sideways: anything in the feed wider than the room it is given.
SIDEWAYS = """feed => [feed, ...feed.querySelectorAll("*")]
  .filter(e => e.getClientRects().length && e.scrollWidth > e.clientWidth + 1
               && getComputedStyle(e).overflowX !== "visible")
  .map(e => `${e.tagName}.${e.className}: ${e.scrollWidth} > ${e.clientWidth}`)"""
# The phone's buzzes, counted (navigator.vibrate as the page calls it).
COUNT_BUZZES = """
  window.buzzes = [];
  Object.defineProperty(navigator, "vibrate", {
    configurable: true, value: pattern => { window.buzzes.push(pattern); return true; } });
"""
LANGUAGES = ("en", "cs", "ru", "uk")
PHONES = ((360, 740), (390, 844))
LAPTOP = (1280, 800)


def said(language: str, message: str, **values: object) -> str:
    """``message`` as the catalogue says it in ``language``, ``values`` put in."""
    with translation.override(language):
        text = translation.gettext(message)
        return text % {name: str(value) for name, value in values.items()} if values else text


def save_said(language: str, category: str) -> str:
    with translation.override(language):
        return str(SAVES[category])


def on_screen(page: Page, what: Locator) -> None:
    """``what`` is on the screen the player has, whole and below the header, with no scrolling."""
    expect(what).to_be_visible()
    handle = what.element_handle()
    try:
        page.wait_for_function(ON_SCREEN, arg=handle)
    except PlaywrightTimeoutError:
        pytest.fail(f"not on the screen: {handle.evaluate(WHERE)}")


def fits(page: Page) -> None:
    """Nothing in the feed is cut or runs out sideways, in the feed or off the screen."""
    feed = page.locator("#feed")
    assert feed.evaluate(SIDEWAYS) == []
    box = feed.bounding_box()
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= page.viewport_size["width"] + 0.5


def reading_the_log(page: Page) -> None:
    """The player has scrolled down to the log, far from the top of the page."""
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert page.evaluate("window.scrollY") > 150


def buzzes(page: Page) -> int:
    return page.evaluate("window.buzzes.length")


@pytest.mark.parametrize(
    ("width", "height", "language"),
    [
        *(
            pytest.param(width, height, language, id=f"{width}x{height}-{language}")
            for width, height in PHONES
            for language in LANGUAGES
        ),
        pytest.param(*LAPTOP, "ru", id=f"laptop-{LAPTOP[0]}x{LAPTOP[1]}-ru"),
    ],
)
def test_what_happens_to_a_players_character_is_on_top_of_their_screen_until_seen(
    referee, phone, new_context, width, height, language
):
    on_a_phone = (width, height) in PHONES
    join_link = create_encounter(referee, "The goblin warren")
    # Enough goblins for a page that scrolls well past its first screen (a laptop shows more).
    add_monsters(referee, 6 if on_a_phone else 24, "Goblin", ac=6, hit_dice="1-1")
    add_character(referee, "Aldric", ac=4, hp=30, thac0=17, str_score=13)
    add_character(referee, "Brina", ac=7, hp=30, thac0=19, str_score=10)
    if on_a_phone:
        anna = phone(width, height)
    else:  # a player at a laptop: no touch, the wide layout
        anna = new_context(viewport={"width": width, "height": height}).new_page()
    boris = phone()
    anna.add_init_script(COUNT_BUZZES)
    errors: list[str] = []
    anna.on("pageerror", lambda error: errors.append(str(error)))
    join(anna, join_link, "Anna")
    join(boris, join_link, "Boris")
    give(referee, "Aldric", "Anna")
    give(referee, "Brina", "Boris")
    if language != "en":
        in_language(anna, language)
    feed = anna.get_by_role("region", name=said(language, "What happens to your characters"))
    expect(anna.locator("#feed")).to_be_hidden()  # nothing has happened to Aldric yet

    # A goblin hits Aldric while Anna reads the log at the foot of her page.
    reading_the_log(anna)
    open_attack(referee, "Goblin 1", "Aldric")
    roll_attack(referee, natural=19, damage="1d6", damage_dice="4")
    hit = feed.locator(".feed-item.feed-hit")
    on_screen(anna, hit)
    expect(hit.locator(".feed-what")).to_have_text(said(language, "Hit: %(who)s", who="Aldric"))
    expect(hit).to_contain_text("Goblin 1")
    fits(anna)
    expect(boris.locator("#feed .feed-item")).to_have_count(0)  # not Boris's character
    assert buzzes(anna) == 0  # a blow asks nothing of her: no buzz

    # A fireball whose saves the players roll: Anna's is owed, on top, one tap from there.
    reading_the_log(anna)
    panel = fireball_for_phones(referee, ("Aldric", "Brina"), "5 5")
    expect(row(panel, "Aldric")).to_be_visible()
    roll_group(referee, panel, 1)
    save = feed.locator(".feed-item.feed-save")
    on_screen(anna, save)
    expect(save.locator(".feed-what")).to_have_text(
        said(language, "A save is owed: %(who)s", who="Aldric")
    )
    tap = save.get_by_role(
        "button",
        name=said(
            language,
            "Save vs %(category)s: %(amount)s damage",
            category=save_said(language, "spells"),
            amount=10,
        ),
    )
    on_screen(anna, tap)
    fits(anna)
    expect(anna.locator("html")).to_have_attribute("lang", language)
    expect(boris.locator("#feed .feed-save")).to_contain_text("Brina")
    expect(boris.locator("#feed .feed-save")).not_to_contain_text("Aldric")
    anna.wait_for_function("window.buzzes.length === 1")  # asked to roll: one buzz
    # Readable and named for everyone, in both themes (axe: nothing moderate or worse).
    for theme in ("light", "dark"):
        anna.locator("#theme-select").select_option(theme)
        expect(anna.locator("html")).to_have_attribute("data-theme", theme)
        audit = Audit(theme)
        audit.check(anna, f"{width}x{height} in {language} with its feed")
        audit.assert_clean()

    # One tap, from where the feed showed it: the save is rolled, its result in her panel, and
    # the item gone.
    settled(anna)
    anna.locator("#panel").evaluate(
        "panel => { for (const c of panel.children) c.dataset.stale = '' }"
    )
    on_screen(anna, tap)
    tap.click()
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
    expect(turn.locator(".feed-what strong")).to_have_text(said(language, "Your side acts"))
    expect(turn.locator(".feed-who")).to_have_text("Aldric")
    fits(anna)
    anna.wait_for_function("window.buzzes.length === 2")
    # A fight runs: the screen is kept awake (or asked to be, where the browser refuses).
    expect(anna.locator("html")).to_have_attribute("data-wake", "held")

    # Buzzing is hers to turn off, on this device.
    vibrate = feed.get_by_role("button", name=said(language, "Vibrate"))
    expect(vibrate).to_have_attribute("aria-pressed", "true")
    vibrate.click()
    expect(vibrate).to_have_attribute("aria-pressed", "false")
    assert anna.evaluate("localStorage.getItem('fray-feed-vibrate')") == "off"

    # Seen: the blow and the turn go, and stay gone on a reload.
    expect(feed.locator(".feed-item")).to_have_count(2)
    seen = feed.get_by_role("button", name=said(language, "Seen"), exact=True)
    on_screen(anna, seen)
    settled(anna)
    seen.click()
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
    expect(end.locator(".feed-what strong")).to_have_text(said(language, "The fight is over"))
    expect(end.locator(".feed-xp")).to_contain_text(re.compile(r"\d"))
    fits(anna)
    expect(anna.locator("html")).to_have_attribute("data-wake", "off")
    expect(boris.locator("#feed .feed-end")).to_be_visible()  # every seat's fight ended
    # No sideways scrolling for any of it.
    assert anna.evaluate("document.documentElement.scrollWidth") <= width
    assert errors == []  # and no script failed on the way
