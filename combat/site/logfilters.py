"""Logging filters the settings name; nothing here imports Django, since the logging
configuration loads them before the apps are ready."""

from __future__ import annotations

import logging


class OneLine(logging.Filter):
    """A record's message alone, without its traceback: for refusals of what a client sent
    (``django.security``), where the traceback only says where Django noticed."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        return True
