"""The bench-only socket and view: routed only when FRAY_BENCH=1, and then a bare group
broadcast, from a websocket frame or from a plain POST through every middleware."""

from __future__ import annotations

import asyncio
import importlib
import json
from collections.abc import Callable, Iterator
from types import ModuleType

import pytest
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.test import AsyncClient
from django.urls import clear_url_caches

import combat.live.routing
import combat.site.urls
from combat.live.bench_socket import payload
from combat.management.commands.bench_live import snapshot_seq
from combat.site.asgi import application

pytestmark = pytest.mark.asyncio


@pytest.fixture
def routing(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """``combat.live.routing`` imported again under the environment the test sets; afterwards,
    again as the process's own environment has it."""
    yield combat.live.routing
    monkeypatch.undo()
    importlib.reload(combat.live.routing)


@pytest.fixture
def bench_urls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[bool], None]]:
    """``route(bench)``: ``combat.site.urls`` (and ``combat.live.routing``) imported again with or
    without FRAY_BENCH=1; afterwards, again as the process's own environment has them."""

    def route(bench: bool) -> None:
        if bench:
            monkeypatch.setenv("FRAY_BENCH", "1")
        else:
            monkeypatch.delenv("FRAY_BENCH", raising=False)
        importlib.reload(combat.site.urls)
        importlib.reload(combat.live.routing)
        clear_url_caches()

    yield route
    monkeypatch.undo()
    importlib.reload(combat.site.urls)
    importlib.reload(combat.live.routing)
    clear_url_caches()


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


# --- the view: a plain POST that group_sends the same bytes --------------------------------


async def test_without_fray_bench_there_is_no_send_view(bench_urls) -> None:
    bench_urls(False)
    assert not any("bench" in str(pattern.pattern) for pattern in combat.site.urls.urlpatterns)
    response = await AsyncClient().post("/bench/send/g1/", {"seq": "1", "bytes": "300"})
    assert response.status_code == 404


async def test_with_fray_bench_a_post_sends_the_bytes_to_every_socket_of_the_group(
    bench_urls,
) -> None:
    bench_urls(True)
    app = URLRouter(combat.live.routing.websocket_urlpatterns)
    group = [_socket(app, "/ws/bench/g1/") for _ in range(2)]
    elsewhere = _socket(app, "/ws/bench/g2/")
    for socket in [*group, elsewhere]:
        assert (await socket.connect())[0]
    response = await AsyncClient().post(
        "/bench/send/g1/", {"seq": "7", "bytes": "300"}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 204
    assert response.content == b""
    for socket in group:
        message = await socket.receive_from(timeout=5)
        assert message == payload(7, 300)
        assert len(message.encode()) == 300
        assert snapshot_seq(message) == 7
    assert await elsewhere.receive_nothing(timeout=0.2)
    for socket in [*group, elsewhere]:
        await socket.disconnect()


async def test_the_send_view_goes_through_the_csrf_check_as_frays_actions_do(bench_urls) -> None:
    bench_urls(True)
    client = AsyncClient(enforce_csrf_checks=True)
    response = await client.post("/bench/send/g1/", {"seq": "1", "bytes": "300"})
    assert response.status_code == 403


@pytest.mark.parametrize(
    ("group", "seq", "size"),
    [
        ("g1", "", "300"),
        ("g1", "x", "300"),
        ("g1", "1.5", "300"),
        ("g1", "\u0663", "300"),  # an Arabic-Indic three: int() reads it, the view does not
        ("g1", "1" * 19, "300"),
        ("g1", "7", ""),
        ("g1", "7", "-1"),
        ("g1", "7", "1000001"),
        ("g1", "7", "12345678"),
        ("g1", "7", "3e2"),
        ("x" * 61, "7", "300"),
        ("a.b", "7", "300"),
    ],
)
async def test_the_send_view_refuses_what_is_out_of_bounds_and_sends_nothing(
    bench_urls, group: str, seq: str, size: str
) -> None:
    bench_urls(True)
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(f"bench-{group}", channel)
    response = await AsyncClient().post(f"/bench/send/{group}/", {"seq": seq, "bytes": size})
    assert response.status_code == 400
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(channel), 0.1)
    await layer.group_discard(f"bench-{group}", channel)


async def test_the_send_view_answers_only_posts(bench_urls) -> None:
    bench_urls(True)
    response = await AsyncClient().get("/bench/send/g1/", {"seq": "1", "bytes": "300"})
    assert response.status_code == 405
