"""The table in real browsers: a referee's laptop and players' phones on one live encounter.

Only what needs a browser is here: updates that arrive over the websocket without a reload,
htmx swaps, the language a browser chose, reconnecting, and the phone layout.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.e2e

SAVE_KEYS = ("death", "wands", "paralysis", "breath", "spells")
ENCOUNTER_PAGE = re.compile(r"/e/[^/]+/$")
# The odds line as it reads in any of Fray's languages: "needs 11+ · 55%", "cíl 11+ · 55 %".
ODDS_LINE = re.compile(r"\d+\+ · [\d.,]+\s?%")
# The attack button by its whole name: "B: Breath attacks", a save's, contains "attack" too.
ATTACK = {"name": "Attack", "exact": True}

# --- What the people at the table do --------------------------------------------------------
#
# Every wait here is on what the person at the table sees: a page that says it is live, a
# heading, a result, a name in a list, Playwright's `expect` retrying until it is there. None
# waits on a particular request: on a busy machine a request can come and go before anyone
# listens for it, or never be sent because the page got there another way.


def wait_until_live(page: Page) -> None:
    """The page's connection indicator says it is live (in whatever language the page is)."""
    expect(page.locator("#live-status")).to_have_attribute("data-state", "online")


def start_encounter(referee: Page, name: str) -> None:
    """The referee starts an encounter on the home page: its page is open, live or not yet."""
    referee.locator("#id_name").fill(name)
    referee.get_by_role("button", name="Create the encounter").click()
    expect(referee).to_have_url(ENCOUNTER_PAGE)


def create_encounter(referee: Page, name: str) -> str:
    """The referee starts an encounter on the home page; returns the players' join link."""
    start_encounter(referee, name)
    wait_until_live(referee)
    return referee.locator("a.join-link").get_attribute("href")


def join(player: Page, join_link: str, name: str) -> None:
    player.goto(join_link)
    player.locator("#id_name").fill(name)
    player.get_by_role("button", name="Take a seat").click()
    expect(player).to_have_url(ENCOUNTER_PAGE)
    wait_until_live(player)


def combatant(page: Page, name: str):
    return page.locator("li.combatant").filter(
        has=page.locator(".name", has_text=re.compile(rf"^{re.escape(name)}$"))
    )


def act_on(page: Page, name: str) -> Locator:
    """The named combatant's row with its actions in view. The referee's console shows one
    combatant's actions at a time, so the referee selects the row first, as at the table (a
    click on its name); a player's rows show their actions anyway."""
    row = combatant(page, name)
    if page.locator("#console-keys").count():
        row.locator(".line .name").click()
        expect(row).to_have_class(re.compile(r"\bselected\b"))
    return row


def open_more(referee: Page) -> None:
    """The referee's "Files, next encounter, settings", folded away on the console, opened."""
    more = referee.locator("#referee-tools details.more")
    if more.get_attribute("open") is None:
        more.locator(":scope > summary").click()
    expect(more).to_have_attribute("open", "")


def open_settings(referee: Page) -> None:
    """The encounter's settings form, in view."""
    open_more(referee)
    referee.locator("details.settings > summary").click()
    expect(referee.get_by_role("button", name="Save settings")).to_be_visible()


# htmx puts new content on the page at once but wires up its links, forms and triggers only as
# it settles, a moment later (much later on a busy machine); meanwhile it marks the new
# elements with this class. A click on an unwired link or button is a plain page load instead
# of a swap, and a change of an unwired field asks for no odds. No person is that quick; a test
# is, so it waits for the page to settle before it acts on it.
UNSETTLED = ".htmx-added"


def settled(page: Page) -> None:
    expect(page.locator(UNSETTLED)).to_have_count(0)


# htmx swaps the action panel's content after a request; until then the old form is still
# there (and may even carry the same heading). Marking the old children first lets a helper
# wait for the new ones, wired up, instead of typing into a form that is about to disappear.
MARK_STALE = "panel => { for (const child of panel.children) child.dataset.stale = '' }"


def fresh(panel: Locator, selector: str) -> Locator:
    return panel.locator(f":scope > {selector}:not([data-stale]):not({UNSETTLED})")


def swap_panel(page: Page, button: Locator) -> Locator:
    """Click something that replaces the action panel; the panel once its new form is in.

    Every click here is one htmx acts on: the page has settled before it (so the button is
    wired up), and the helpers wait for each swap to finish, so no earlier swap can land after
    the mark and pass for this one."""
    settled(page)
    panel = page.locator("#panel")
    panel.evaluate(MARK_STALE)
    button.click()
    expect(fresh(panel, "form")).to_be_visible()
    return panel


def open_panel(page: Page, button_name: str) -> Locator:
    panel = swap_panel(page, page.get_by_role("link", name=button_name, exact=True))
    expect(fresh(panel, "h2")).to_have_text(button_name)
    return panel


def add_monsters(
    referee: Page, count: int, name: str, ac: int, hit_dice: str, hidden: bool = False
) -> None:
    panel = open_panel(referee, "Add several monsters")
    panel.locator("#id_count").fill(str(count))
    panel.locator("#id_name").fill(name)
    panel.locator("#id_ac").fill(str(ac))
    panel.locator("#id_hit_dice").fill(hit_dice)
    panel.get_by_label("Hidden from players").set_checked(hidden)
    swap_panel(referee, panel.get_by_role("button", name="Save"))
    last = f"{name} {count}" if count > 1 else name
    expect(combatant(referee, last)).to_be_visible()


def add_character(referee: Page, name: str, ac: int, hp: int, thac0: int, str_score: int) -> None:
    panel = open_panel(referee, "Add combatant")
    panel.locator("#id_name").fill(name)
    panel.locator("#id_side").select_option("party")
    panel.locator("#id_kind").select_option("character")
    panel.locator("#id_ac").fill(str(ac))
    panel.locator("#id_hp_max").fill(str(hp))
    panel.locator("#id_thac0").fill(str(thac0))
    for key, value in zip(SAVE_KEYS, (12, 13, 14, 15, 16), strict=True):
        panel.locator(f"#id_save_{key}").fill(str(value))
    panel.locator("#id_str_score").fill(str(str_score))
    swap_panel(referee, panel.get_by_role("button", name="Save"))
    expect(fresh(panel, ".message")).to_have_text(f"Saved {name}.")
    expect(combatant(referee, name)).to_be_visible()


def give(referee: Page, name: str, player_name: str) -> None:
    """Edit → "Controlled by": the referee hands a combatant to a player's seat."""
    panel = swap_panel(referee, act_on(referee, name).get_by_role("link", name="Edit"))
    panel.get_by_label("Controlled by").select_option(label=player_name)
    swap_panel(referee, panel.get_by_role("button", name="Save"))
    expect(combatant(referee, name).locator(".seat")).to_have_text(player_name)


def free_roll(referee: Page, label: str, dice: str = "1d6", secret: bool = False) -> None:
    panel = open_panel(referee, "Free roll")
    panel.locator("#id_expression").fill(dice)
    panel.locator("#id_label").fill(label)
    panel.get_by_label("Roll in secret").set_checked(secret)
    swap_panel(referee, panel.locator("button.primary"))
    expect(fresh(panel, ".result")).to_contain_text(label)


def open_attack(player: Page, attacker: str, target: str) -> Locator:
    """The attack form, opened by the attacker's button (in whatever language the page is),
    aimed at the target, with the odds of hitting on screen.

    The form opens with the odds against the first foe already shown, and a new choice only
    rewrites that line in place: nothing else in the form is replaced, so typing can go on."""
    panel = swap_panel(player, act_on(player, attacker).locator("a[href*='/attack/']"))
    aimed_at = panel.locator("#id_target")
    aimed_at.select_option(label=target)
    expect(aimed_at.locator("option:checked")).to_have_text(target)
    expect(panel.locator("output.odds .odds-main")).to_have_text(ODDS_LINE)
    return panel


def roll_attack(player: Page, natural: int, damage: str, damage_dice: str) -> Locator:
    """Rolls the attack in the open form with dice rolled at the table; returns the result."""
    panel = player.locator("#panel")
    panel.locator("#id_natural").fill(str(natural))
    panel.locator("#id_damage").fill(damage)
    panel.locator("#id_damage_dice").fill(damage_dice)
    swap_panel(player, panel.locator("button.primary"))
    result = fresh(panel, ".result")
    expect(result.locator(".entry.attack")).to_be_visible()
    return result


def a_goblin_fight(referee: Page, player: Page, player_name: str = "Anna") -> None:
    """Two goblins and Aldric, whom the player controls from their phone."""
    join_link = create_encounter(referee, "The goblin cave")
    add_monsters(referee, 2, "Goblin", ac=6, hit_dice="1-1")
    add_character(referee, "Aldric", ac=4, hp=12, thac0=17, str_score=13)
    join(player, join_link, player_name)
    give(referee, "Aldric", player_name)
    expect(combatant(player, "Aldric").locator("a[href*='/attack/']")).to_be_visible()


# --- The stories ----------------------------------------------------------------------------


def test_a_players_attack_reaches_every_screen_without_a_reload(referee, phone):
    join_link = create_encounter(referee, "The goblin cave")
    add_monsters(referee, 2, "Goblin", ac=6, hit_dice="1-1")
    add_character(referee, "Aldric", ac=4, hp=12, thac0=17, str_score=13)

    anna = phone()
    join(anna, join_link, "Anna")
    expect(referee.locator("#seats")).to_contain_text("Anna")  # live: the referee never reloads
    expect(combatant(anna, "Aldric")).to_be_visible()
    expect(combatant(anna, "Aldric").get_by_role("link", **ATTACK)).to_have_count(0)

    give(referee, "Aldric", "Anna")
    expect(combatant(anna, "Aldric").get_by_role("link", **ATTACK)).to_be_visible()

    boris = phone()
    join(boris, join_link, "Boris")
    expect(referee.locator("#seats")).to_contain_text("Boris")
    expect(combatant(boris, "Aldric").get_by_role("link", **ATTACK)).to_have_count(0)

    panel = open_attack(anna, "Aldric", "Goblin 2")
    expect(panel.locator("output.odds")).to_have_text(re.compile(r"needs \d+\+ · [\d.]+%"))
    result = roll_attack(anna, natural=14, damage="1d6", damage_dice="4")
    expect(result).to_contain_text("Aldric attacks Goblin 2")
    expect(result).to_contain_text("Hit!")  # 14 + 1 for STR 13 against the 11 AC 6 needs

    for screen in (referee, boris):
        expect(screen.locator("#log")).to_contain_text("Aldric attacks Goblin 2")

    # A player reads a foe's health as a word; only the referee sees the numbers.
    expect(boris.locator("#foes .health")).to_have_count(2)
    expect(boris.locator("#foes .hp")).to_have_count(0)
    expect(referee.locator("#foes .hp")).to_have_count(2)
    expect(referee.locator("#foes .health")).to_have_count(0)


def test_hidden_monsters_and_secret_rolls_never_reach_a_player(referee, phone):
    join_link = create_encounter(referee, "The crypt")
    anna = phone()
    join(anna, join_link, "Anna")

    add_monsters(referee, 1, "Ghoul in the niche", ac=6, hit_dice="2*", hidden=True)
    free_roll(referee, "Ghoul's ambush", secret=True)
    free_roll(referee, "Wandering monsters")  # public: once Anna has it, she has the rest

    expect(anna.locator("#log")).to_contain_text("Wandering monsters")
    expect(referee.locator("#log")).to_contain_text("Ghoul's ambush")
    expect(combatant(referee, "Ghoul in the niche")).to_be_visible()
    assert "Ghoul" not in anna.content()

    anna.reload()  # the page as rendered, then the socket's snapshot
    expect(anna.locator("#log")).to_contain_text("Wandering monsters")
    assert "Ghoul" not in anna.content()
    wait_until_live(anna)
    # The snapshot follows the socket's opening; a roll Anna sees next comes after it.
    free_roll(referee, "Torches gutter")
    expect(anna.locator("#log")).to_contain_text("Torches gutter")
    assert "Ghoul" not in anna.content()


def test_a_phone_in_czech_shows_czech_terms_while_the_referee_stays_in_english(referee, phone):
    anna = phone()
    a_goblin_fight(referee, anna)

    anna.locator("#language-select").select_option("cs")
    expect(anna.locator("html")).to_have_attribute("lang", "cs")
    wait_until_live(anna)
    aldric = combatant(anna, "Aldric")
    expect(aldric.locator(".ac abbr")).to_have_text("TZ")
    # Each save by a word on the player's phone, its full name the title (the referee's
    # console keeps the letters).
    saves = aldric.locator(".saves .button")
    expect(saves).to_have_text(["Smrt", "Hůlky", "Paralýza", "Dech", "Kouzla"])
    expect(saves.first).to_have_accessible_name("Smrt")
    expect(saves.first).to_have_attribute("title", "Smrt nebo jed")

    open_attack(anna, "Aldric", "Goblin 1")
    result = roll_attack(anna, natural=17, damage="1d6", damage_dice="2")
    expect(result.locator(".damage")).to_contain_text("1k6")

    # The referee's roll reaches the Czech phone over the socket, in Czech.
    free_roll(referee, "Morale", dice="2d6")
    expect(anna.locator("#log")).to_contain_text("2k6")

    expect(referee.locator("html")).to_have_attribute("lang", "en")
    expect(referee.locator("#log .entry.attack")).to_contain_text("Aldric attacks Goblin 1")
    expect(referee.locator("#log .entry.attack .damage")).to_contain_text("1d6")
    expect(combatant(referee, "Aldric").locator(".ac abbr")).to_have_text("AC")


def test_a_tap_that_gets_no_answer_or_a_refusal_says_so_until_one_succeeds(referee, phone):
    anna = phone()
    a_goblin_fight(referee, anna)
    anna.locator("#language-select").select_option("cs")
    expect(anna.locator("html")).to_have_attribute("lang", "cs")
    wait_until_live(anna)
    open_attack(anna, "Aldric", "Goblin 1")

    def lost(route) -> None:  # the phone is out of Wi-Fi range when Anna taps
        if route.request.method == "POST":
            route.abort("internetdisconnected")
        else:
            route.continue_()

    anna.route("**/attack/", lost)
    panel = anna.locator("#panel")
    panel.locator("#id_natural").fill("17")
    settled(anna)
    panel.locator("button.primary").click()
    alert = anna.get_by_role("alert")
    expect(alert).to_be_visible()
    expect(alert).to_contain_text("Neodesláno")
    wait_until_live(anna)  # the socket checked itself again meanwhile

    anna.unroute("**/attack/")  # back in range: the same tap goes through, once
    panel.locator("#id_natural").fill("17")
    swap_panel(anna, panel.locator("button.primary"))
    expect(fresh(panel, ".result").locator(".entry.attack")).to_be_visible()
    expect(alert).to_be_hidden()
    expect(referee.locator("#log .entry.attack")).to_have_count(1)

    referee.route("**/roll/", lambda route: route.fulfill(status=403, body="Forbidden"))
    settled(referee)
    referee.get_by_role("link", name="Free roll", exact=True).click()
    refusal = referee.get_by_role("alert")
    expect(refusal).to_contain_text("Refused")
    refusal.get_by_role("button", name="Dismiss").click()
    expect(refusal).to_be_hidden()


class FlakyNetwork:
    """Stands between a phone and the server's websocket, so a test can drop the connection as
    a phone walking out of Wi-Fi range does (close code 1006) and refuse new ones until the
    network is back."""

    def __init__(self, phone: Page) -> None:
        self.up = True
        self.connections = 0  # every socket the phone managed to open
        self.open: dict = {}  # the phone's side of each open socket: the server's side
        phone.route_web_socket(re.compile(r"/ws/"), self._connect)

    def _connect(self, socket) -> None:
        if not self.up:
            socket.close(code=1006, reason="offline")
            return
        self.open[socket] = socket.connect_to_server()
        self.connections += 1

        def closed_by_page(code: int | None, reason: str | None) -> None:
            server = self.open.pop(socket, None)
            if server is not None:
                server.close(code=code, reason=reason)

        socket.on_close(closed_by_page)

    def go_down(self) -> None:
        self.up = False
        for socket, server in list(self.open.items()):
            del self.open[socket]
            server.close()
            socket.close(code=1006, reason="offline")

    def come_back(self) -> None:
        self.up = True


def back_in_hand(phone: Page) -> None:
    """The phone returns to the foreground (fray.js reconnects or asks for a snapshot)."""
    phone.evaluate("document.dispatchEvent(new Event('visibilitychange'))")


def test_a_phone_that_lost_its_connection_catches_up_when_it_returns(referee, phone):
    join_link = create_encounter(referee, "The bridge")
    anna, boris = phone(), phone()
    network = FlakyNetwork(anna)  # Anna walks out of Wi-Fi range; Boris stays at the table
    join(anna, join_link, "Anna")
    join(boris, join_link, "Boris")

    network.go_down()
    expect(anna.locator("#live-status")).to_have_attribute("data-state", "offline")
    free_roll(referee, "Troll at the bridge")
    # Once Boris has it, it has gone out to every phone that was there to get it.
    expect(boris.locator("#log")).to_contain_text("Troll at the bridge")
    assert "Troll at the bridge" not in anna.locator("#log").inner_text()
    expect(anna.locator("#live-status")).to_have_attribute("data-state", "offline")

    network.come_back()
    back_in_hand(anna)
    expect(anna.locator("#log")).to_contain_text("Troll at the bridge")
    wait_until_live(anna)


def test_a_phone_back_in_hand_settles_on_one_connection(referee, phone):
    join_link = create_encounter(referee, "The ford")
    anna = phone()
    network = FlakyNetwork(anna)
    join(anna, join_link, "Anna")

    network.go_down()
    expect(anna.locator("#live-status")).to_have_attribute("data-state", "offline")
    back_in_hand(anna)  # while the Wi-Fi is still coming back
    network.come_back()
    wait_until_live(anna)

    # What this proves is that nothing more happens, so here the test watches for a while
    # instead of waiting for something: 3 s, long past any retry that was pending when the
    # network came back. (A loaded machine only makes the watch longer.)
    once_live = network.connections
    for _ in range(30):
        anna.wait_for_timeout(100)
        assert network.connections == once_live, "it keeps opening new sockets"
        assert len(network.open) == 1, f"{len(network.open)} sockets open at once"


def test_a_small_phone_needs_no_sideways_scrolling_and_gets_big_buttons(referee, phone):
    anna = phone(width=360, height=740)
    a_goblin_fight(referee, anna)

    def assert_it_fits_and_the_buttons_are_big(buttons: Locator) -> None:
        assert anna.evaluate("document.documentElement.scrollWidth") <= 360
        heights = [button.bounding_box()["height"] for button in buttons.all()]
        assert heights, "no buttons found"
        assert min(heights) >= 40, heights

    assert_it_fits_and_the_buttons_are_big(combatant(anna, "Aldric").locator(".actions .button"))
    panel = open_attack(anna, "Aldric", "Goblin 2")
    assert_it_fits_and_the_buttons_are_big(panel.locator(".buttons").locator("button, .button"))
