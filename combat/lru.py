"""A bounded cache of rendered fragments, the least recently used forgotten first."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any


class Lru(OrderedDict):
    """Fragments by what they show, at most ``size`` of them. Shared between threads (pages
    render in several, live views in one): the lock is held to read or write, never while a
    fragment renders, since a render may fetch from the same cache (a row, the part under
    its line)."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size
        self._lock = threading.Lock()

    def fetch(self, key: Any, render: Callable[[], str]) -> str:
        with self._lock:
            html = self.get(key)
            if html is not None:
                self.move_to_end(key)
                return html
        html = render()
        with self._lock:
            self[key] = html
            if len(self) > self.size:
                self.popitem(last=False)
        return html
