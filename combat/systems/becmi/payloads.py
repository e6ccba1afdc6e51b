"""The payloads of the log entries BECMI writes itself (``combat.payloads``), given to the
registry as its ``System.payloads`` (by entry kind)."""

from __future__ import annotations
