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
    """Rendered log entries are cached per process; each test starts without them."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _default_language():
    """Each test starts in the default language: a request in Czech leaves its language active
    in the thread (Django's locale middleware never deactivates it), and a test rendering
    after it would otherwise read Czech wherever pytest-django happens to order it."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()
