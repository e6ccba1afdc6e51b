"""HTTP through the ASGI application: each request on one kept thread, its database
connection kept between requests, and the middleware run in one call (``combat.site.handler``)."""

from __future__ import annotations

import asyncio
import inspect
import threading

import pytest
from asgiref.sync import sync_to_async
from django.core.signals import request_finished, request_started
from django.db import connection
from django.db.backends.signals import connection_created

from combat.models import Encounter
from combat.site import handler
from combat.site.asgi import application

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def _get(path: str) -> int:
    """GET ``path`` as a server does: the request, then a disconnect once the response is
    out; returns the status once the application has finished (closed the response)."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "headers": [(b"host", b"localhost")], "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }  # fmt: skip
    answered = asyncio.Event()
    requested = False
    status = 0

    async def receive() -> dict:
        nonlocal requested
        if not requested:
            requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await answered.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif not message.get("more_body"):
            answered.set()

    await asyncio.wait_for(application(scope, receive, send), timeout=10)
    return status


@pytest.fixture(autouse=True)
async def _kept_threads_disconnected():
    """The kept threads' connections closed after each test: the test database is dropped
    at the end, and nothing may stay connected to it."""
    yield
    http = application.application_mapping["http"]
    idle = http._idle.pop(asyncio.get_running_loop(), None)
    while idle is not None and not idle.empty():
        thread = idle.get_nowait()
        await asyncio.wrap_future(thread.submit(lambda: connection.close()))
        thread.shutdown()


@pytest.fixture
def join_page(db) -> str:
    """A page that reads the database: an encounter's join form."""
    return f"/join/{Encounter.objects.create(name='Crypt').join_token}/"


class Threads:
    """The threads that opened a database connection, and those that ran each request's
    ``request_started`` and ``request_finished`` signals."""

    def __init__(self) -> None:
        self.connected: list[int] = []
        self.started: list[int] = []
        self.finished: list[int] = []

    def __enter__(self) -> Threads:
        connection_created.connect(self._connected)
        request_started.connect(self._started)
        request_finished.connect(self._finished)
        return self

    def __exit__(self, *exc: object) -> None:
        connection_created.disconnect(self._connected)
        request_started.disconnect(self._started)
        request_finished.disconnect(self._finished)

    def _connected(self, sender, **kwargs) -> None:
        self.connected.append(threading.get_ident())

    def _started(self, sender, **kwargs) -> None:
        self.started.append(threading.get_ident())

    def _finished(self, sender, **kwargs) -> None:
        self.finished.append(threading.get_ident())


async def test_requests_one_after_another_keep_one_database_connection(join_page):
    with Threads() as threads:
        for _ in range(6):
            assert await _get(join_page) == 200
    # Django's own handler gave each request a new thread, so a new connection: six here.
    assert len(threads.connected) <= 1
    assert len(set(threads.started)) == 1
    assert threads.finished == threads.started  # closed on the thread that served it


async def test_more_requests_at_once_than_threads_are_all_answered_on_the_kept_threads(
    join_page,
):
    count = handler.request_threads() * 3
    with Threads() as threads:
        answers = await asyncio.gather(*(_get(join_page) for _ in range(count)))
    assert answers == [200] * count
    assert len(threads.started) == count
    assert len(set(threads.started)) <= handler.request_threads()
    assert len(set(threads.connected)) <= handler.request_threads()
    main = threading.get_ident()
    assert main not in threads.started  # never on the event loop's thread


async def test_requests_take_turns_on_sqlite_and_overlap_on_a_database_across_the_network(
    monkeypatch,
):
    """SQLite writes one at a time, and a thread waiting for its lock sleeps in growing steps
    instead of queueing: one request thread there. Elsewhere a request's round trips to the
    database leave the interpreter to another request."""
    from django.db import connections

    database = connections["default"]
    monkeypatch.setattr(database, "vendor", "sqlite")
    assert handler.request_threads() == 1
    monkeypatch.setattr(database, "vendor", "postgresql")
    assert handler.request_threads() == 4


async def test_a_body_still_on_its_way_keeps_no_other_request_waiting(join_page):
    """A phone on a poor connection starts a POST and its body comes slowly, or never: the
    requests of everyone else are answered meanwhile, and the slow one once it is in."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": join_page, "raw_path": join_page.encode(),
        "query_string": b"", "root_path": "", "client": ("127.0.0.1", 50001),
        "headers": [
            (b"host", b"localhost"), (b"content-type", b"application/x-www-form-urlencoded"),
        ],
        "server": ("127.0.0.1", 8000),
    }  # fmt: skip
    rest_of_body = asyncio.Event()
    answered = asyncio.Event()
    sent: list[int] = []

    async def receive() -> dict:
        if not sent:
            sent.append(0)
            return {"type": "http.request", "body": b"name=An", "more_body": True}
        if len(sent) == 1:
            await rest_of_body.wait()
            sent.append(1)
            return {"type": "http.request", "body": b"na", "more_body": False}
        await answered.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            sent.append(message["status"])
        elif not message.get("more_body"):
            answered.set()

    slow = asyncio.ensure_future(application(scope, receive, send))
    for _ in range(handler.request_threads() + 1):
        assert await _get(join_page) == 200  # not waiting for the slow one's thread
    assert not slow.done()
    rest_of_body.set()
    await asyncio.wait_for(slow, timeout=10)
    assert sent[2] in (200, 302, 403)  # answered (the form's own verdict), not dropped


async def test_the_middleware_runs_in_one_call_not_one_thread_switch_per_middleware():
    http = application.application_mapping["http"]
    assert not inspect.iscoroutinefunction(http._middleware_chain)
    assert await _get("/") == 200


async def test_work_a_request_hands_to_the_event_loop_still_runs_after_the_request_ended():
    """A request hands the hub its views and its announcement (``combat.live.hub``); that work
    runs on the event loop after the request may have ended, so it must not belong to the
    request's thread-sensitive context, which refuses thread-sensitive calls once closed."""
    from concurrent.futures import ThreadPoolExecutor

    from asgiref.sync import ThreadSensitiveContext

    from combat.live.hub import TableHub

    hub = TableHub(encounter_id=0, loop=asyncio.get_running_loop())
    ran = asyncio.Event()

    class Layer:
        async def group_send(self, group: str, message: dict) -> None:
            await asyncio.sleep(0.01)  # the request is over by now
            await sync_to_async(lambda: None)()  # as database work does
            ran.set()

    async with ThreadSensitiveContext(executor=ThreadPoolExecutor(max_workers=1)):
        assert await sync_to_async(hub.announce)(Layer(), "encounter-0", {"type": "x"})
    await asyncio.wait_for(ran.wait(), timeout=5)
