"""The one exception type of the rules engine."""

from __future__ import annotations

from typing import Any

__all__ = ["RulesError"]


class RulesError(ValueError):
    """Bad input to a rule: carries a stable ``code`` and its ``params``.

    The English message is for developers and logs; the interface looks the ``code`` up and
    says what was wrong in the user's language, filling in ``params``.
    """

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params

    def __reduce__(self):  # keep pickling (multiprocessing, caches) working with kwargs
        return (_rebuild, (self.code, str(self), self.params))


def _rebuild(code: str, message: str, params: dict[str, Any]) -> RulesError:
    return RulesError(code, message, **params)
