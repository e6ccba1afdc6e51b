"""Every tap answers (issue 12), in real browsers against a server these tests stop for real.

The table's server here is this module's own ``manage.py host``, so a test can take it away as
a night at the table does: stopped (the referee closed the laptop's terminal: connections are
refused) or frozen (the laptop asleep: connections hang, an open socket looks open). A tap
meanwhile shows an error within 5 s, Retry sends it again once the server is back and it is
done once; the live status says the truth within 5 s; a tap whose request runs shows it.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .conftest import (
    FAILED_CALL,
    LAPTOP,
    LIVE_TIMEOUT_MS,
    PHONE,
    REPO,
    _evidence_folder,
    _free_port,
    _keep_evidence,
    _server_env,
    _stop,
    _wait_until_serving,
)
from .test_table import (
    MARK_STALE,
    ODDS_LINE,
    a_goblin_fight,
    combatant,
    fresh,
    open_attack,
    settled,
    wait_until_live,
)

pytestmark = pytest.mark.e2e

# The promise: what a person sees within 5 s of the server going away.
PROMISED_MS = 5_000


class TableServer:
    """The referee's laptop: ``manage.py host`` on one port and data folder, which a test can
    stop and start again, or freeze and thaw."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.log = folder / "server.log"
        self.env = _server_env(folder)  # one secret key: sessions outlive a restart
        self.url = f"http://127.0.0.1:{_free_port()}"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        port = self.url.rsplit(":", 1)[1]
        command = [sys.executable, "manage.py", "host", "--port", port, "--bind", "127.0.0.1"]
        with self.log.open("a") as output:
            self.process = subprocess.Popen(
                command,
                cwd=REPO,
                env=self.env,
                stdout=output,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        _wait_until_serving(self.url + "/", self.process, self.log)

    def stop(self) -> None:
        """Ctrl-C in the referee's terminal: every connection closes, new ones are refused."""
        if self.process is not None:
            self.thaw()
            _stop(self.process)
            self.process = None

    def freeze(self) -> None:
        """The laptop asleep: connections stay open and nothing answers."""
        os.kill(self.process.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        if self.process is not None:
            os.kill(self.process.pid, signal.SIGCONT)

    def ensure_up(self) -> None:
        self.thaw()
        if self.process is None or self.process.poll() is not None:
            self.start()


@pytest.fixture(scope="module")
def table_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableServer]:
    server = TableServer(tmp_path_factory.mktemp("fray-taps"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def open_browser(
    request: pytest.FixtureRequest, browser, table_server: TableServer, tmp_path: Path
) -> Iterator[Callable[..., Page]]:
    """A page in a new browser on this module's server; the server is up again afterwards."""
    expect.set_options(timeout=LIVE_TIMEOUT_MS)
    opened = []

    def open_page(device: dict) -> Page:
        context = browser.new_context(base_url=table_server.url, locale="en-GB", **device)
        context.set_default_timeout(LIVE_TIMEOUT_MS)
        opened.append(context)
        return context.new_page()

    try:
        yield open_page
    finally:
        if request.node.stash.get(FAILED_CALL, False):
            _keep_evidence(opened, _evidence_folder(request, tmp_path), table_server.log)
        for context in opened:
            context.close()
        table_server.ensure_up()


def a_fight_on_a_phone_in(open_browser, language: str) -> tuple[Page, Page]:
    """The referee's laptop and Anna's phone, in ``language``, with her attack form open."""
    referee, anna = open_browser(LAPTOP), open_browser(PHONE)
    referee.goto("/")
    a_goblin_fight(referee, anna)
    anna.locator("#language-select").select_option(language)
    expect(anna.locator("html")).to_have_attribute("lang", language)
    wait_until_live(anna)
    open_attack(anna, "Aldric", "Goblin 1")
    anna.locator("#panel #id_natural").fill("17")
    settled(anna)
    return referee, anna


def attacks_on(page: Page):
    return page.locator("#log .entry.attack")


def tap_attack(page: Page):
    """Tap the open form's attack button; the foot of the screen's alert."""
    page.locator("#panel button.primary").click()
    return page.get_by_role("alert")


def retried(page: Page, retry) -> None:
    """Tap Retry: the attack's result is shown and the alert is gone."""
    retry.click()
    expect(fresh(page.locator("#panel"), ".result").locator(".entry.attack")).to_be_visible()
    expect(page.get_by_role("alert")).to_be_hidden()


def test_a_tap_while_the_server_is_stopped_says_so_and_retry_does_it_once_it_is_back(
    open_browser, table_server
):
    referee, anna = a_fight_on_a_phone_in(open_browser, "uk")
    table_server.stop()
    alert = tap_attack(anna)
    expect(alert).to_contain_text("Не надіслано", timeout=PROMISED_MS)
    expect(anna.locator("#live-status")).to_have_attribute("data-state", "offline")
    retry = alert.get_by_role("button", name="Повторити")
    expect(retry).to_be_visible()
    # Nothing is busy any more: the tap has its answer, an error.
    expect(anna.locator("#panel button.primary")).to_be_enabled()
    expect(anna.locator(".busy")).to_have_count(0)

    table_server.start()
    wait_until_live(referee)
    retried(anna, retry)
    wait_until_live(anna)
    expect(attacks_on(referee)).to_have_count(1)
    expect(attacks_on(anna)).to_have_count(1)


def test_retry_sends_the_failed_tap_even_if_the_odds_failed_after_it(open_browser, table_server):
    """The odds are fetched again as Anna changes the form: with the server gone that fails
    too, after her tap did. Retry still sends the attack, not the odds."""
    referee, anna = a_fight_on_a_phone_in(open_browser, "ru")
    table_server.stop()
    alert = tap_attack(anna)
    expect(alert).to_contain_text("Не отправлено", timeout=PROMISED_MS)
    anna.locator("#panel #id_modifier").fill("1")
    anna.locator("#panel #id_modifier").press("Tab")  # a change: the odds are asked for at once
    table_server.start()
    wait_until_live(referee)
    retried(anna, alert.get_by_role("button", name="Повторить"))
    expect(attacks_on(referee)).to_have_count(1)


def test_a_failure_landing_as_the_button_is_pressed_does_not_take_the_tap(open_browser):
    """Pressing the attack button takes the focus from the field just typed in, whose odds
    are asked for again. When that fails at once, its alert must not come up over the button
    under the pointer and take the click: the attack is sent, and the alert is gone after."""
    referee, anna = a_fight_on_a_phone_in(open_browser, "cs")
    odds = anna.locator("#panel output.odds")
    before = odds.inner_text()
    anna.locator("#panel #id_modifier").fill("2")  # the focus stays in it, its change pending
    expect(odds).not_to_have_text(before)
    anna.route(re.compile(r"/odds/attack/"), lambda route: route.abort("connectionrefused"))
    anna.evaluate(
        "() => document.addEventListener("
        "'htmx:sendError', () => { document.documentElement.dataset.failed = '' })"
    )
    attack = anna.locator("#panel button.primary")
    attack.evaluate("button => button.scrollIntoView({block: 'end'})")  # where the alert comes
    box = attack.bounding_box()
    anna.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    anna.mouse.down()  # the field's change: its odds are asked for, and fail
    # That failure is in, the button still held.
    expect(anna.locator("html")).to_have_attribute("data-failed", "")
    anna.mouse.up()
    expect(fresh(anna.locator("#panel"), ".result").locator(".entry.attack")).to_be_visible()
    expect(anna.get_by_role("alert")).to_be_hidden()
    expect(attacks_on(referee)).to_have_count(1)


def test_a_tap_the_sleeping_server_never_answers_times_out_and_retry_never_applies_it_twice(
    open_browser, table_server
):
    referee, anna = a_fight_on_a_phone_in(open_browser, "cs")
    table_server.freeze()
    alert = tap_attack(anna)
    expect(alert).to_contain_text("neodpověděl včas", timeout=PROMISED_MS)
    # The tap may still reach the server when it wakes: Retry sends the same one-time key, so
    # it shows what the first sending did instead of attacking again.
    table_server.thaw()
    wait_until_live(anna)
    retried(anna, alert.get_by_role("button", name="Zkusit znovu"))
    expect(attacks_on(referee)).to_have_count(1)
    # Tapping again afterwards is a new attack (the form came back with a new key).
    anna.locator("#panel #id_natural").fill("3")
    settled(anna)
    tap_attack(anna)
    expect(attacks_on(referee)).to_have_count(2)


def test_the_status_tells_the_truth_within_5_s_of_losing_the_server(open_browser, table_server):
    anna = open_browser(PHONE)
    referee = open_browser(LAPTOP)
    referee.goto("/")
    a_goblin_fight(referee, anna)
    anna.locator("#language-select").select_option("ru")
    expect(anna.locator("html")).to_have_attribute("lang", "ru")
    status = anna.locator("#live-status")
    expect(status).to_have_text("онлайн")  # read out politely, not colour alone
    expect(status).to_have_attribute("role", "status")

    # The phone leaves the Wi-Fi: it knows at once.
    anna.context.set_offline(True)
    expect(status).to_have_text("нет сети", timeout=PROMISED_MS)
    anna.context.set_offline(False)
    expect(status).to_have_attribute("data-state", "online")

    # The laptop falls asleep: the socket still looks open, but no pong comes back.
    table_server.freeze()
    for page in (anna, referee):
        expect(page.locator("#live-status")).to_have_attribute(
            "data-state", "offline", timeout=PROMISED_MS
        )
    expect(status).to_have_text("переподключение…")
    table_server.thaw()
    wait_until_live(anna)
    wait_until_live(referee)

    # The referee stops the server: every screen says so, and is live again once it is back.
    table_server.stop()
    for page in (anna, referee):
        expect(page.locator("#live-status")).to_have_attribute(
            "data-state", "offline", timeout=PROMISED_MS
        )
    table_server.start()
    wait_until_live(anna)
    wait_until_live(referee)


ATTACK_PATH = re.compile(r"/e/[^/]+/attack/(\?|$)")  # not its odds (/odds/attack/)


def test_a_tap_shows_it_is_working_until_its_answer_comes(open_browser):
    referee, anna = a_fight_on_a_phone_in(open_browser, "uk")
    held = []  # requests whose answer is slow to come

    def slow(route) -> None:
        held.append(route)

    anna.route(ATTACK_PATH, slow)
    attack = anna.locator("#panel button.primary")
    attack.click()

    expect(attack).to_have_attribute("aria-busy", "true")
    expect(attack).to_be_disabled()
    expect(attack).to_have_class(re.compile(r"\bbusy\b"))
    assert len(held) == 1
    held[0].continue_()
    result = fresh(anna.locator("#panel"), ".result").locator(".entry.attack")
    expect(result).to_be_visible()
    expect(anna.locator("[aria-busy=true]")).to_have_count(0)
    expect(attacks_on(referee)).to_have_count(1)

    # A link is busy too while its panel is on its way, and a second tap sends nothing more.
    settled(anna)
    link = combatant(anna, "Aldric").locator("a[href*='/attack/']")
    link.click()
    expect(link).to_have_attribute("aria-busy", "true")
    link.click(force=True)  # a busy link is aria-disabled: only a person's tap goes through
    held[1].continue_()
    expect(link).not_to_have_attribute("aria-busy", "true")
    expect(fresh(anna.locator("#panel"), "form")).to_be_visible()
    assert len(held) == 2, "a second tap on a busy link sent another request"
    expect(anna.get_by_role("alert")).to_be_hidden()


def test_a_server_error_offers_retry_and_a_refusal_does_not(open_browser):
    referee, anna = a_fight_on_a_phone_in(open_browser, "uk")
    alert = anna.get_by_role("alert")
    retry = alert.get_by_role("button", name="Повторити")

    def answer(status: int):
        def route(route) -> None:
            if route.request.method == "POST":
                route.fulfill(status=status, body="")
            else:
                route.continue_()

        return route

    anna.route(ATTACK_PATH, answer(500))
    tap_attack(anna)
    expect(alert).to_contain_text("Серверу не вдалося")
    expect(retry).to_be_visible()
    anna.unroute(ATTACK_PATH)
    retried(anna, retry)
    expect(attacks_on(referee)).to_have_count(1)

    anna.route(ATTACK_PATH, answer(403))
    anna.locator("#panel #id_natural").fill("9")
    settled(anna)
    tap_attack(anna)
    expect(alert).to_contain_text("Відхилено")
    expect(retry).to_be_hidden()
    alert.get_by_role("button", name="Закрити").click()
    expect(alert).to_be_hidden()
    expect(attacks_on(referee)).to_have_count(1)

    # A boosted link (the combatant's Attack) that got no answer is tapped again by Retry.
    anna.unroute(ATTACK_PATH)
    anna.route(ATTACK_PATH, lambda route: route.abort("connectionrefused"))
    panel = anna.locator("#panel")
    panel.evaluate(MARK_STALE)
    # The attack's live update has re-drawn her row: its link is htmx's once that has settled.
    expect(attacks_on(anna)).to_have_count(1)
    settled(anna)
    combatant(anna, "Aldric").locator("a[href*='/attack/']").click()
    expect(alert).to_contain_text("Не надіслано")
    anna.unroute(ATTACK_PATH)
    retry.click()
    expect(fresh(panel, "form")).to_be_visible()
    expect(alert).to_be_hidden()

    # The odds a form asks for as it is filled in: Retry asks again, and the alert goes.
    odds = re.compile(r"/odds/attack/")
    anna.route(odds, lambda route: route.abort("connectionrefused"))
    settled(anna)
    panel.locator("#id_natural").fill("12")
    expect(alert).to_contain_text("Не надіслано")
    anna.unroute(odds)
    retry.click()
    expect(alert).to_be_hidden()
    expect(panel.locator("output.odds .odds-main")).to_have_text(ODDS_LINE)
