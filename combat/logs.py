"""Log lines without secrets: the segment of a capability link (combat/capabilities.py).

Whoever reads ``/r/<key>/`` in a terminal, a log file or a log shipper can referee the table;
``/join/<token>/`` seats a stranger; ``/d/<token>/`` shows the table. Every log line Fray writes
or configures passes through ``redact`` (the ``RedactCapabilities`` filter on the logging
handlers, and the access logs of ``host`` and ``serve``).
"""

from __future__ import annotations

import logging
import re
from typing import Any, TextIO
from urllib.parse import quote, unquote

from daphne.access import AccessLogGenerator

from combat.capabilities import prefix_pattern

REDACTED = "[redacted]"

# The segment after any capability prefix (combat/capabilities.py), wherever it appears: a bare
# path, a full URL, a quoted repr. Anything up to the next slash, query, space or quote.
_CAPABILITY = re.compile(rf"(/{prefix_pattern()}/)[^/\s?#\"'<>]+", re.IGNORECASE)


def redact(text: str) -> str:
    """``text`` with every capability in a URL path replaced by ``[redacted]``."""
    return _CAPABILITY.sub(rf"\1{REDACTED}", text)


def redact_path(path: str) -> str:
    """A request path as an access log shows it, redacted even when percent-encoded: the server
    decodes ``/r%2FKEY/`` to ``/r/KEY/`` before routing it."""
    decoded = unquote(path)
    if redact(decoded) == decoded:
        return redact(path)
    return redact(quote(decoded, safe="/?&=:@+,;"))


class RedactCapabilities(logging.Filter):
    """Rewrite a record's message, arguments and traceback text without capabilities.

    The message is formatted once here and the arguments dropped: an argument may be any
    object (a request, an exception, Daphne's details dict) whose text holds the path.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: the handler reports it as it would have
            return True
        redacted = redact(message)
        if redacted != message or record.args:
            record.msg, record.args = redacted, ()
        if record.exc_info and not record.exc_text:
            # Formatters reuse exc_text when set, so the traceback is printed redacted.
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


class RedactedAccessLog(AccessLogGenerator):
    """Daphne's NCSA-style access log, with capability paths redacted."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__(stream)

    def __call__(self, protocol: str, action: str, details: dict[str, Any]) -> None:
        details = dict(details)
        if isinstance(details.get("path"), str):
            details["path"] = redact_path(details["path"])
        super().__call__(protocol, action, details)
        self.stream.flush()
