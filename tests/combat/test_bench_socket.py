"""The bench-only socket: routed only when FRAY_BENCH=1, and then a bare group broadcast."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from types import ModuleType

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

import combat.routing
from combat.asgi import application
from combat.management.commands.bench_live import snapshot_seq

pytestmark = pytest.mark.asyncio


@pytest.fixture
def routing(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """``combat.routing`` imported again under the environment the test sets; afterwards,
    again as the process's own environment has it."""
    yield combat.routing
    monkeypatch.undo()
    importlib.reload(combat.routing)


def _socket(app, path: str) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    return WebsocketCommunicator(app, path, headers=headers)


async def test_without_fray_bench_the_path_is_an_unknown_socket(
    routing: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FRAY_BENCH", raising=False)
    patterns = importlib.reload(routing).websocket_urlpatterns
    assert not any("bench" in str(pattern.pattern) for pattern in patterns)
    for app in (URLRouter(patterns), application):
        socket = _socket(app, "/ws/bench/anything/")
        connected, _ = await socket.connect()
        assert connected
        assert await socket.receive_output() == {"type": "websocket.close", "code": 4404}
        await socket.disconnect()


async def test_with_fray_bench_every_socket_of_the_group_gets_the_bytes_asked_for(
    routing: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRAY_BENCH", "1")
    app = URLRouter(importlib.reload(routing).websocket_urlpatterns)
    group = [_socket(app, "/ws/bench/g1/") for _ in range(3)]
    elsewhere = _socket(app, "/ws/bench/g2/")
    for socket in [*group, elsewhere]:
        assert (await socket.connect())[0]
    await group[0].send_to(text_data=json.dumps({"seq": 7, "bytes": 300}))
    for socket in group:
        message = await socket.receive_from(timeout=5)
        assert len(message.encode()) == 300
        assert snapshot_seq(message) == 7
    assert await elsewhere.receive_nothing(timeout=0.2)
    await group[1].send_to(text_data="not json")  # ignored
    assert await group[1].receive_nothing(timeout=0.2)
    for socket in [*group, elsewhere]:
        await socket.disconnect()


async def test_a_bench_group_name_out_of_bounds_is_refused(
    routing: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRAY_BENCH", "1")
    app = URLRouter(importlib.reload(routing).websocket_urlpatterns)
    socket = _socket(app, "/ws/bench/" + "x" * 61 + "/")
    assert (await socket.connect())[0]
    assert await socket.receive_output() == {"type": "websocket.close", "code": 4404}
    await socket.disconnect()
