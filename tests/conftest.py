"""Fixtures every test package shares."""

from __future__ import annotations

import os
import shutil

import pytest


def require_or_skip(available: bool, reason: str) -> None:
    """Skip on a developer's machine that lacks a tool; fail in CI, where it must be there."""
    if available:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (required in CI)")
    pytest.skip(reason)


def has_program(path: str) -> bool:
    return os.path.exists(path) or shutil.which(path) is not None


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Rendered log entries (and their roll lines) are cached per process; each test starts
    without them."""
    from combat.templatetags.fray_live import BODIES
    from combat.templatetags.roll_lines import LINES

    BODIES.clear()
    LINES.clear()
    yield
    BODIES.clear()
    LINES.clear()


@pytest.fixture(autouse=True)
def _default_language():
    """Each test starts in the default language: a request in Czech leaves its language active
    in the thread (Django's locale middleware never deactivates it), and a test rendering
    after it would otherwise read Czech wherever pytest-django happens to order it."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _no_connection_left_open(request):
    """A test without the database starts with no connection open. Connections are kept
    between requests (see ``combat.site.settings``), so one a database test opened stays open in
    its thread: the main one, or the thread asgiref runs thread-sensitive code on, where the
    websocket tests' queries go. Django checks a kept connection at the next request, and
    pytest-django forbids that check in a test without the database."""
    from asgiref.sync import SyncToAsync
    from django.db import connections

    if request.node.get_closest_marker("django_db") is None and "db" not in request.fixturenames:
        connections.close_all()
        SyncToAsync.single_thread_executor.submit(connections.close_all).result()
    yield


def pytest_configure(config) -> None:
    """Every log entry a test reads must declare every key it stores (``combat.payloads``):
    a writer cannot store what its payload does not say."""
    from combat.payloads import base

    base.STRICT = True
