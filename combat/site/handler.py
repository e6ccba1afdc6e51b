"""Django's ASGI handler, with each request on one kept thread from its start to its end.

Django's own ``ASGIHandler`` loads the middleware in async mode. Every ``MiddlewareMixin``
then hands its ``process_request`` and ``process_response`` to a thread and back, and a
middleware that is sync-only (the static files') sends the rest of the chain back to the
event loop: some twenty switches between the loop and a thread for one request. It also
enters a ``ThreadSensitiveContext`` of its own for each request, which runs the request's sync
code on a thread made for that request: a new database connection for every request (four
PRAGMAs on SQLite), whatever ``CONN_MAX_AGE`` says, and the old one left to the garbage
collector.

Here the middleware chain is loaded in sync mode and runs in one call, on a thread lent for
the request from the kept ones (``request_threads()``), the same thread for the request's
signals and its closing (``request_started`` and ``request_finished`` look after that
thread's connection). A kept thread keeps its connection, so a process holds at most
``request_threads()`` request connections. A request that finds every thread busy waits for
one, in the order requests came.
"""

from __future__ import annotations

import asyncio
import contextvars
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler
from django.db import connections
from django.http import HttpRequest, HttpResponseBase

# The body of the request being handled, read before its thread was lent (each request runs
# in a task, hence a context, of its own).
_BODY: contextvars.ContextVar[Any] = contextvars.ContextVar("fray_request_body", default=None)


def request_threads() -> int:
    """Requests served at once per process; the rest wait their turn.

    One on SQLite. It takes one writer at a time, and a second thread's write does not queue
    for it: it waits in SQLite's busy handler, which sleeps 1, 2, 5, 10, 15... ms in turn and
    can miss its turn again and again (two threads writing in a loop: up to 180 ms for a lock
    held 3 ms). Requests also share one interpreter lock, so a second thread only slows the
    first down: at 20 tables of 6 (``bench_live --tables``), four threads held at most 40
    actions a second within 100 ms p99, one thread 40-60, at less CPU per change. Four on a
    database across the network, where one request's round trips leave the interpreter to
    another."""
    return 1 if connections["default"].vendor == "sqlite" else 4


class Handler(ASGIHandler):
    """HTTP through Django, in one switch to a kept thread per request (see the module)."""

    def __init__(self) -> None:
        super().__init__()
        # Made lazily, on each event loop that serves (tests run several).
        self._idle: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Queue[Any]]
        self._idle = weakref.WeakKeyDictionary()

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django serves HTTP here, not {scope['type']}")
        # The body is read before a thread is lent: a phone sending it slowly, or a client
        # that never finishes, holds no thread and keeps no other request waiting.
        try:
            _BODY.set(await super().read_body(receive))
        except RequestAborted:
            return
        idle = self._threads()
        thread = await idle.get()
        try:
            # Every thread-sensitive call of this request (its signals, the middleware and
            # the view, closing the response) goes to the lent thread.
            async with ThreadSensitiveContext(executor=thread):
                await self.handle(scope, receive, send)
        finally:
            idle.put_nowait(thread)

    async def read_body(self, receive: Any) -> Any:
        """The body ``__call__`` read already (``handle`` asks for it)."""
        body = _BODY.get()
        _BODY.set(None)
        return body if body is not None else await super().read_body(receive)

    async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)

    def _threads(self) -> asyncio.Queue[Any]:
        loop = asyncio.get_running_loop()
        idle = self._idle.get(loop)
        if idle is None:
            idle = self._idle[loop] = asyncio.LifoQueue()
            for _ in range(request_threads()):
                idle.put_nowait(
                    ThreadPoolExecutor(max_workers=1, thread_name_prefix="fray-request")
                )
        return idle
