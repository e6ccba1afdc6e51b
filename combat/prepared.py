"""Queries whose SQL Django writes once per process.

Writing a query's SQL costs more than running it on SQLite (a combatant's sixty columns: about
1.5 ms to write, 0.5 ms to run), and the live renderer asks the same few queries at every
change. A :class:`Prepared` query is a queryset built once with stand-in values for its
parameters; its SQL is kept, and each call runs it through ``raw()`` with the real values:
the same rows, in the same order, with the same annotations, as model instances.

Only for querysets that ``raw()`` can stand for: no ``select_related`` or ``prefetch_related``,
and a fixed number of parameters (no ``__in`` lists).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import connections, models
from django.db.models.query import RawQuerySet

# Stand-ins, one per parameter: values an id or a count could take (Django drops a comparison
# with a value outside its field's range from the SQL), yet none will in practice.
_STAND_INS = tuple(1_987_654_301 + n for n in range(8))


class Prepared:
    """``build(*values)`` run with new values and the SQL of its first writing.

    >>> running = Prepared(lambda encounter_id: Condition.objects.filter(
    ...     combatant__encounter_id=encounter_id).exclude(rounds_left=0))
    >>> running(encounter.pk)  # a RawQuerySet of Conditions
    """

    def __init__(self, build: Callable[..., models.QuerySet[Any]]) -> None:
        self.build = build
        self._written: dict[str, tuple[type[models.Model], str, tuple[Any, ...]]] = {}

    def __call__(self, *values: Any, using: str = "default") -> RawQuerySet:
        model, sql, slots = self._write(len(values), using)
        return model._default_manager.db_manager(using).raw(sql, _params(slots, values))

    def rows(self, *values: Any, using: str = "default") -> list[tuple[Any, ...]]:
        """The rows as the database gives them, unconverted (for a ``values_list`` of plain
        columns: ids, numbers, text)."""
        _model, sql, slots = self._write(len(values), using)
        with connections[using].cursor() as cursor:
            cursor.execute(sql, _params(slots, values))
            return cursor.fetchall()

    def _write(self, arity: int, using: str) -> tuple[type[models.Model], str, tuple[Any, ...]]:
        written = self._written.get(using)
        if written is None:
            queryset = self.build(*_STAND_INS[:arity]).using(using)
            if queryset.query.select_related or queryset._prefetch_related_lookups:
                raise ValueError("raw() cannot stand for select_related or prefetch_related")
            sql, params = queryset.query.sql_with_params()
            # A stand-in given to a text field comes back as text.
            where = {v: n for n, v in enumerate(_STAND_INS[:arity])}
            where |= {str(v): n for v, n in list(where.items())}
            slots = tuple(where[p] if p in where else _Fixed(p) for p in params)
            if {s for s in slots if isinstance(s, int)} != set(range(arity)):
                raise ValueError("a value passed was not kept as a parameter of the query")
            written = self._written[using] = (queryset.model, sql, slots)
        return written


def _params(slots: tuple[Any, ...], values: tuple[Any, ...]) -> list[Any]:
    return [values[slot] if isinstance(slot, int) else slot.value for slot in slots]


class _Fixed:
    """A parameter the query always has (a constant in the queryset, not a value passed)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value
