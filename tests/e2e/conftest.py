"""Fixtures for the browser tests: a real Fray server, the system Chromium, phones and a laptop.

The server runs as the referee would start it (``manage.py host``) in a subprocess with its own
data folder, so these tests drive everything through pages and never touch the test database.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import has_program, require_or_skip

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
REPO = Path(__file__).resolve().parents[2]
# Generous, and bounded: a waiting test moves on the moment what it waits for is on screen, so
# a long limit costs nothing when things work, and a machine busy with other work (a build, a
# second test run) gets the slack it needs instead of a false failure.
STARTUP_TIMEOUT = 90.0
# How long a page, a swap or a live update may take to show up before a test gives up.
LIVE_TIMEOUT_MS = 20_000

LAPTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _server_env(data_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["FRAY_DATA_DIR"] = str(data_dir)
    env["SECRET_KEY"] = "e2e-only-" + os.urandom(16).hex()
    # With DATABASE_URL the server would share PostgreSQL's `test` database with pytest-django
    # and clobber it; its own SQLite file keeps the two apart. REDIS_URL stays: it is harmless
    # and exercises the Redis channel layer.
    env.pop("DATABASE_URL", None)
    env.pop("DATABASE_URL_FILE", None)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _wait_until_serving(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the server exited with {process.returncode}:\n{log.read_text()}")
        try:
            # The first page renders slowly on a loaded machine; a short limit would only
            # abandon it and ask again.
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.2)
    pytest.fail(f"the server did not answer {url} within {STARTUP_TIMEOUT} s:\n{log.read_text()}")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)  # Ctrl-C, as the referee stops it
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture(scope="session")
def server_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the server writes its output: a failing test names it."""
    return tmp_path_factory.mktemp("fray-e2e") / "server.log"


@pytest.fixture(scope="session")
def server_url(server_log: Path) -> Iterator[str]:
    """The address of a Fray server started with ``manage.py host`` for this test session.

    It serves static files as they were when it started: editing static/fray.js during a run
    gets later pages a truncated script, and no page of them ever goes live."""
    data_dir = server_log.parent
    log = server_log
    port = _free_port()
    command = [
        sys.executable,
        "manage.py",
        "host",
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
    ]
    with log.open("w") as output:
        process = subprocess.Popen(
            command,
            cwd=REPO,
            env=_server_env(data_dir),
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_serving(url + "/", process, log)
        yield url
    finally:
        _stop(process)


@pytest.fixture(scope="session")
def browser():
    """The system Chromium, driven by Playwright (never a downloaded browser)."""
    require_or_skip(has_program(CHROMIUM), "Chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


FAILED_CALL = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport:
    """Remember whether the test itself failed, so its browsers can be photographed."""
    report = yield
    if report.when == "call":
        item.stash[FAILED_CALL] = report.failed
    return report


def _evidence_folder(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """The test's temporary folder, or FRAY_E2E_EVIDENCE (kept across many runs) if set."""
    chosen = os.environ.get("FRAY_E2E_EVIDENCE")
    if not chosen:
        return tmp_path / "screens"
    return Path(chosen) / f"{time.strftime('%Y%m%d-%H%M%S')}-{request.node.name}"


def _keep_evidence(contexts: list, folder: Path, server_log: Path) -> None:
    """A screenshot and the HTML of every page the failed test had open: a flake on a busy
    machine is seldom reproduced at will, so what each screen showed is kept."""
    folder.mkdir(parents=True, exist_ok=True)
    for c, context in enumerate(contexts):
        for p, page in enumerate(context.pages):
            stem = folder / f"browser{c}-page{p}"
            try:
                page.screenshot(path=f"{stem}.png", full_page=True, timeout=5_000)
                Path(f"{stem}.html").write_text(page.content())
            except Exception as error:  # a crashed page must not hide the test's own error
                Path(f"{stem}.error.txt").write_text(repr(error))
    with contextlib.suppress(OSError):  # the server is shared: its output so far
        shutil.copyfile(server_log, folder / "server.log")
    print(f"\nScreens of the failed test and the server's output: {folder}")


@pytest.fixture
def new_context(
    request: pytest.FixtureRequest,
    browser,
    server_url: str,
    server_log: Path,
    tmp_path: Path,
) -> Iterator[Callable]:
    """Open a browser context (one person's browser), closed at the end of the test."""
    from playwright.sync_api import expect

    expect.set_options(timeout=LIVE_TIMEOUT_MS)
    opened = []

    def open_context(**options):
        context = browser.new_context(base_url=server_url, locale="en-GB", **options)
        context.set_default_timeout(LIVE_TIMEOUT_MS)
        opened.append(context)
        return context

    yield open_context
    if request.node.stash.get(FAILED_CALL, False):
        _keep_evidence(opened, _evidence_folder(request, tmp_path), server_log)
    for context in opened:
        context.close()


@pytest.fixture
def referee(new_context):
    """The referee's laptop: a page on the home page, not yet in any encounter."""
    page = new_context(**LAPTOP).new_page()
    page.goto("/")
    return page


@pytest.fixture
def phone(new_context) -> Callable:
    """Open a new phone browser (a player's), optionally at another screen size."""

    def open_phone(width: int = 390, height: int = 844):
        options = PHONE | {"viewport": {"width": width, "height": height}}
        return new_context(**options).new_page()

    return open_phone
