"""Dice notation: parse ``2d6+1`` / ``1k20`` / ``1к20``, roll it with an injected rng, and give
its exact distribution.

What the notation accepts (and therefore what :func:`distribution` computes exactly):

* a sum or difference of terms, each either ``NdS`` (N dice of S sides; ``dS`` means ``1dS``)
  or a whole-number constant: ``1d8+1``, ``2k6``, ``1к20``, ``d6``, ``3d6-2``, ``1d6-1d4+2``,
  ``7``; an optional leading sign (``-1d4+3``);
* the die letter is Latin ``d``/``D``, Latin ``k``/``K`` (Czech) or Cyrillic ``к``/``К``
  (Russian, Ukrainian); ``d%`` is ``d100``;
* spaces around ``+`` and ``-``; the en dash ``–`` and the minus sign ``−`` count as ``-``.

Decisions:

* No multiplication, division, keep-highest/lowest, rerolls or exploding dice: combat rolls in
  the supported systems never need them, and ``k`` already means "die" in Czech, so
  ``4d6k3`` could not mean "keep 3" without being ambiguous.
* We do not parse with the ``d20`` package: its grammar accepts far more than we can give an
  exact distribution for (comparisons, division, rerolls, sets), it treats ``k`` as "keep" and
  rolls with the module-global ``random``. A 40-line parser of exactly this grammar is smaller
  than validating and walking d20's AST, and its errors carry our codes.
* ``0dS`` and ``Nd0`` are malformed (``bad_expression``).
* Limits (checked before any work, so nothing can hang): at most :data:`MAX_DICE` dice in the
  whole expression, :data:`MAX_SIDES` sides per die, :data:`MAX_LENGTH` characters, and
  :data:`MAX_CONSTANT` for a plain number (``constant_too_large``).

Error codes (:class:`~rules.errors.RulesError`): ``expression_too_long`` (length, limit),
``bad_expression`` (expr, position), ``too_many_dice`` (count, limit), ``too_many_sides``
(sides, limit), ``constant_too_large`` (value, limit), ``wrong_number_of_dice`` (expected,
given), ``bad_die_letter`` (letter), ``not_an_integer`` (name, value) for a total asked of a
:class:`Distribution`, ``bad_argument`` (name, value, expected) for a language or a bar count
that is not one, and from :func:`rules.core.natural_roll`: ``die_not_integer``,
``die_out_of_range``, ``no_random_source``. A hand-built :class:`DiceExpression` is held to the
same limits as a parsed one.

Exact distributions: the dice are grouped by number of sides (a die subtracted has the same,
symmetric, counts as one added, only shifted). The largest groups are computed together by a
recurrence with a few terms per coefficient (the log-derivative of a product of powers of
``(1 - x^s) / (1 - x)``); any further groups are added die by die with a sliding window sum;
a small cost estimate picks the split. 10d10+5 takes a few hundredths of a millisecond;
``uv run python -m rules.bench`` prints the figures, including the slowest allowed shapes
(about 0.1 s for ``100d1000``, longer for many distinct large dice).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import accumulate, chain, islice, repeat
from operator import sub

from .core import (
    MAX_SIDES,
    RandomSource,
    bad_argument,
    is_sequence,
    is_whole,
    natural_roll,
    random_source,
    shown,
)
from .errors import RulesError

__all__ = [
    "CHART_MAX_TOTALS",
    "DIE_LETTERS",
    "MAX_CONSTANT",
    "MAX_DICE",
    "MAX_LENGTH",
    "MAX_SIDES",
    "ConstantTerm",
    "DiceExpression",
    "DiceRoll",
    "DiceTerm",
    "Distribution",
    "Summary",
    "TermRoll",
    "die_letter_for",
    "distribution",
    "format_expression",
    "parse",
    "roll",
    "summary",
]

MAX_DICE = 100
MAX_LENGTH = 100
MAX_CONSTANT = 10_000  # a bonus beyond any table's, and totals stay within storable numbers

#: How each interface language writes the die letter (the glossary's "Dice notation").
DIE_LETTERS: dict[str, str] = {"en": "d", "cs": "k", "ru": "к", "uk": "к"}

_LETTERS = "dDkKкК"
_DASHES = str.maketrans({"–": "-", "−": "-"})
_TERM = re.compile(
    r"\s*(?P<sign>[+-])?\s*(?:(?P<count>[0-9]*)[" + _LETTERS + r"](?P<sides>[0-9]+|%)"
    r"|(?P<constant>[0-9]+))\s*"
)


@dataclass(frozen=True)
class DiceTerm:
    """``count`` dice of ``sides`` sides, added (``sign`` 1) or subtracted (``sign`` -1)."""

    count: int
    sides: int
    sign: int = 1

    def __post_init__(self) -> None:
        # Hand-built terms skip parse(); keep them well-formed (parse() enforces the limits).
        ok = all(is_whole(v) for v in (self.count, self.sides, self.sign))
        if not ok or self.count < 1 or self.sides < 1 or self.sign not in (1, -1):
            raise RulesError(
                "bad_expression", f"not a dice term: {shown(self)}", expr=shown(self), position=0
            )


@dataclass(frozen=True)
class ConstantTerm:
    """A signed whole number in the expression."""

    value: int


@dataclass(frozen=True)
class DiceExpression:
    """A parsed expression: its terms in the order written. ``text`` is what was typed (not
    part of equality)."""

    terms: tuple[DiceTerm | ConstantTerm, ...]
    text: str = field(default="", compare=False)

    @property
    def dice_terms(self) -> tuple[DiceTerm, ...]:
        return tuple(t for t in self.terms if isinstance(t, DiceTerm))

    @property
    def dice_count(self) -> int:
        return sum(t.count for t in self.dice_terms)

    @property
    def constant(self) -> int:
        return sum(t.value for t in self.terms if isinstance(t, ConstantTerm))

    @property
    def minimum(self) -> int:
        return self.constant + sum(
            t.count if t.sign > 0 else -t.count * t.sides for t in self.dice_terms
        )

    @property
    def maximum(self) -> int:
        return self.constant + sum(
            t.count * t.sides if t.sign > 0 else -t.count for t in self.dice_terms
        )

    def __str__(self) -> str:
        return format_expression(self)


@dataclass(frozen=True)
class TermRoll:
    """The natural results of one dice term and its signed subtotal."""

    term: DiceTerm
    naturals: tuple[int, ...]
    subtotal: int


@dataclass(frozen=True)
class DiceRoll:
    """A rolled expression: each die's natural result grouped per dice term, the constants'
    sum, and the total."""

    expression: DiceExpression
    rolls: tuple[TermRoll, ...]
    constant: int
    total: int

    @property
    def naturals(self) -> tuple[int, ...]:
        """Every die's natural result in the order of the expression (the order ``entered``
        takes them)."""
        return tuple(n for r in self.rolls for n in r.naturals)


@dataclass(frozen=True)
class Distribution:
    """The exact distribution of an expression's total.

    ``counts[i]`` is the number of equally likely outcomes giving the total ``minimum + i`` out
    of ``denominator`` (the product of all dice's sides); probabilities are built lazily as
    fractions because the largest allowed expressions have 10^5 totals with 300-digit counts.
    """

    expression: DiceExpression
    minimum: int
    counts: tuple[int, ...]
    denominator: int

    @property
    def maximum(self) -> int:
        return self.minimum + len(self.counts) - 1

    @property
    def mean(self) -> Fraction:
        mean = Fraction(self.expression.constant)
        for t in self.expression.dice_terms:
            mean += Fraction(t.sign * t.count * (t.sides + 1), 2)
        return mean

    def probability(self, total: int) -> Fraction:
        """Exact chance that the total equals ``total`` (0 outside the range)."""
        _total(total)
        if not self.minimum <= total <= self.maximum:
            return Fraction(0)
        return Fraction(self.counts[total - self.minimum], self.denominator)

    def at_least(self, total: int) -> Fraction:
        """Exact chance that the total is ``total`` or more."""
        _total(total)
        start = min(max(total - self.minimum, 0), len(self.counts))
        return Fraction(sum(self.counts[start:]), self.denominator)

    def at_most(self, total: int) -> Fraction:
        """Exact chance that the total is ``total`` or less."""
        _total(total)
        stop = min(max(total - self.minimum + 1, 0), len(self.counts))
        return Fraction(sum(self.counts[:stop]), self.denominator)

    def probabilities(self) -> dict[int, Fraction]:
        """Every possible total with its exact chance, in increasing order of total."""
        return {
            self.minimum + i: Fraction(c, self.denominator) for i, c in enumerate(self.counts) if c
        }

    def chart(self) -> list[tuple[int, float]]:
        """``(total, probability)`` pairs as floats, for drawing (``int / int`` rounds
        correctly even for 300-digit counts)."""
        return [(self.minimum + i, c / self.denominator) for i, c in enumerate(self.counts)]


def _total(total: object) -> None:
    if not is_whole(total):
        raise RulesError("not_an_integer", "a total is a whole number", name="total", value=total)


def _bad(expr: str, position: int) -> RulesError:
    return RulesError(
        "bad_expression",
        f"cannot read dice expression {expr!r} at position {position}",
        expr=expr,
        position=position,
    )


def parse(expr: str) -> DiceExpression:
    """Parse dice notation (see the module docstring for the grammar and the limits).

    Every string gives either a :class:`DiceExpression` or a :class:`RulesError`.
    """
    if not isinstance(expr, str):
        raise RulesError(
            "bad_expression", "a dice expression must be text", expr=shown(expr), position=0
        )
    if len(expr) > MAX_LENGTH:
        raise RulesError(
            "expression_too_long",
            f"a dice expression has at most {MAX_LENGTH} characters, not {len(expr)}",
            length=len(expr),
            limit=MAX_LENGTH,
        )
    text = expr.translate(_DASHES)
    terms: list[DiceTerm | ConstantTerm] = []
    dice = 0
    pos = 0
    if not text.strip():
        raise _bad(expr, 0)
    while pos < len(text):
        m = _TERM.match(text, pos)
        if m is None or (terms and m["sign"] is None):
            raise _bad(expr, pos)
        sign = -1 if m["sign"] == "-" else 1
        if m["constant"] is not None:
            constant = int(m["constant"])
            if constant > MAX_CONSTANT:
                raise RulesError(
                    "constant_too_large",
                    f"a number in a dice expression is at most {MAX_CONSTANT}, not {constant}",
                    value=constant,
                    limit=MAX_CONSTANT,
                )
            terms.append(ConstantTerm(sign * constant))
        else:
            count = int(m["count"]) if m["count"] else 1
            sides = 100 if m["sides"] == "%" else int(m["sides"])
            if count == 0 or sides == 0:
                raise _bad(expr, m.start("count") if count == 0 else m.start("sides"))
            dice += count
            if dice > MAX_DICE:
                raise RulesError(
                    "too_many_dice",
                    f"at most {MAX_DICE} dice in one expression, not {dice}",
                    count=dice,
                    limit=MAX_DICE,
                )
            if sides > MAX_SIDES:
                raise RulesError(
                    "too_many_sides",
                    f"a die has at most {MAX_SIDES} sides, not {sides}",
                    sides=sides,
                    limit=MAX_SIDES,
                )
            terms.append(DiceTerm(count, sides, sign))
        pos = m.end()
    return DiceExpression(tuple(terms), expr)


def _checked(expression: DiceExpression) -> DiceExpression:
    """A hand-built expression held to the limits :func:`parse` enforces, so that no
    expression can make :func:`distribution` or :func:`roll` work without bound."""
    terms = expression.terms
    if not isinstance(terms, tuple) or not all(
        isinstance(t, DiceTerm | ConstantTerm) for t in terms
    ):
        raise RulesError(
            "bad_expression", f"not dice terms: {shown(terms)}", expr=shown(terms), position=0
        )
    dice = 0
    for term in terms:
        if isinstance(term, ConstantTerm):
            if not is_whole(term.value):
                raise RulesError(
                    "bad_expression",
                    f"not a constant: {shown(term)}",
                    expr=shown(term),
                    position=0,
                )
            if abs(term.value) > MAX_CONSTANT:
                raise RulesError(
                    "constant_too_large",
                    f"a number in a dice expression is at most {MAX_CONSTANT}",
                    value=term.value,
                    limit=MAX_CONSTANT,
                )
            continue
        dice += term.count
        if dice > MAX_DICE:
            raise RulesError(
                "too_many_dice",
                f"at most {MAX_DICE} dice in one expression",
                count=dice,
                limit=MAX_DICE,
            )
        if term.sides > MAX_SIDES:
            raise RulesError(
                "too_many_sides",
                f"a die has at most {MAX_SIDES} sides",
                sides=term.sides,
                limit=MAX_SIDES,
            )
    return expression


def _parsed(expr: str | DiceExpression) -> DiceExpression:
    return _checked(expr) if isinstance(expr, DiceExpression) else parse(expr)


def die_letter_for(language: str) -> str:
    """The die letter an interface language shows (``d`` for unknown languages);
    ``"cs-CZ"``-style codes use their first part."""
    if not isinstance(language, str):
        raise bad_argument("language", language, "a language code such as 'cs' or 'en-GB'")
    return DIE_LETTERS.get(language.split("-")[0].split("_")[0].lower(), "d")


def format_expression(parsed: str | DiceExpression, letter: str = "d") -> str:
    """Canonical text of an expression with the given die letter: ``1k20+1`` for Czech,
    ``1к20+1`` for Russian and Ukrainian. Counts are always written (``1d6``, not ``d6``)."""
    if letter not in ("d", "k", "к"):
        raise RulesError("bad_die_letter", f"no die letter {shown(letter)}", letter=letter)
    parts: list[str] = []
    for t in _parsed(parsed).terms:
        if isinstance(t, DiceTerm):
            body, negative = f"{t.count}{letter}{t.sides}", t.sign < 0
        else:
            body, negative = str(abs(t.value)), t.value < 0
        if negative:
            parts.append("-" + body)
        else:
            parts.append(("+" if parts else "") + body)
    return "".join(parts)


def roll(
    expr_or_parsed: str | DiceExpression,
    rng: RandomSource | None = None,
    entered: Sequence[int] | None = None,
) -> DiceRoll:
    """Roll an expression with ``rng``, or take the physical results a player ``entered``: one
    per die, in the order of the expression (``2d6+1d4`` takes three numbers)."""
    expression = _parsed(expr_or_parsed)
    random_source(rng)
    dice_terms = expression.dice_terms
    if entered is not None:
        if not is_sequence(entered):
            raise RulesError(
                "wrong_number_of_dice",
                "entered dice results must be a list of numbers",
                expected=expression.dice_count,
                given=None,
            )
        if len(entered) != expression.dice_count:
            raise RulesError(
                "wrong_number_of_dice",
                f"{expression.dice_count} dice results needed, {len(entered)} given",
                expected=expression.dice_count,
                given=len(entered),
            )
    rolls: list[TermRoll] = []
    index = 0
    for term in dice_terms:
        naturals = []
        for _ in range(term.count):
            value = entered[index] if entered is not None else None
            naturals.append(natural_roll(term.sides, rng, value))
            index += 1
        rolls.append(TermRoll(term, tuple(naturals), term.sign * sum(naturals)))
    constant = expression.constant
    return DiceRoll(expression, tuple(rolls), constant, constant + sum(r.subtotal for r in rolls))


def _sparse_mul(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for i, x in a.items():
        for j, y in b.items():
            out[i + j] = out.get(i + j, 0) + x * y
    return {k: v for k, v in out.items() if v}


def _recurrence_terms(groups: Sequence[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """The recurrence for the counts of P = prod f_i^n_i with f_i = (1 - x^s_i) / (1 - x).

    P'/P = N/(1 - x) - sum n_i s_i x^(s_i - 1) / (1 - x^s_i), so with D = (1 - x) prod(1 - x^s_i)
    we get D P' = P R, R = N prod(1 - x^s_j) - (1 - x) sum n_i s_i x^(s_i - 1) prod_(j != i) (...),
    which reads (k + 1) c[k + 1] = sum over offsets o of (a_o + b_o k) c[k - o]. Returns the
    ``(o, a_o, b_o)`` triples sorted by offset.
    """
    total = sum(n for _, n in groups)
    factors = [{0: 1, s: -1} for s, _ in groups]
    d: dict[int, int] = {0: 1, 1: -1}
    all_factors: dict[int, int] = {0: 1}
    for f in factors:
        d = _sparse_mul(d, f)
        all_factors = _sparse_mul(all_factors, f)
    r = {k: total * v for k, v in all_factors.items()}
    for i, (s, n) in enumerate(groups):
        p: dict[int, int] = {s - 1: n * s}
        for j, f in enumerate(factors):
            if j != i:
                p = _sparse_mul(p, f)
        for k, v in _sparse_mul(p, {0: 1, 1: -1}).items():
            r[k] = r.get(k, 0) - v
    terms: dict[int, list[int]] = {}
    for o, v in r.items():
        terms.setdefault(o, [0, 0])[0] += v
    for q, v in d.items():
        if q:  # -D_q (k + 1 - q) c[k + 1 - q], at offset q - 1
            t = terms.setdefault(q - 1, [0, 0])
            t[0] += v * (q - 1)
            t[1] -= v
    return sorted((o, a, b) for o, (a, b) in terms.items() if a or b)


def _recurrence_counts(groups: Sequence[tuple[int, int]]) -> list[int]:
    """Counts of each total of the dice ``groups`` ((sides, count) pairs, sides > 1) from the
    lowest total up, one short sum per coefficient; the symmetry c[k] = c[deg - k] of a sum of
    fair dice halves the work."""
    deg = sum(n * (s - 1) for s, n in groups)
    terms = _recurrence_terms(groups)
    c = [0] * (deg + 1)
    c[0] = 1
    for k in range(deg // 2):
        v = 0
        for o, a, b in terms:
            if o > k:
                break
            v += (a + b * k) * c[k - o]
        c[k + 1] = v // (k + 1)
    for k in range(deg // 2 + 1, deg + 1):
        c[k] = c[deg - k]
    return c


def _add_die(counts: list[int], sides: int) -> list[int]:
    """Counts after adding one more die: each new count is a window sum of ``sides`` old ones
    (prefix sums and a subtraction, both C loops). Sums of fair dice are symmetric, so only
    the first half is computed and mirrored."""
    length = len(counts) + sides - 1
    half = (length + 1) // 2
    prefix = list(accumulate(islice(chain(counts, repeat(0)), half), initial=0))
    first = prefix[1 : min(sides, half + 1)] + list(
        map(sub, prefix[sides : half + 1], prefix[: half + 1 - sides])
    )
    return first + first[length - half - 1 :: -1]


#: The recurrence over j groups has up to 2^(j+2) terms; past this many groups the rest are
#: always added die by die.
_MAX_RECURRENCE_GROUPS = 5


def _plan(groups: list[tuple[int, int]]) -> int:
    """How many of the (largest-first) ``groups`` to compute by the recurrence, the others
    being added die by die: the choice with the fewest estimated big-number operations."""
    best, best_cost = 1, None
    for j in range(1, min(len(groups), _MAX_RECURRENCE_GROUPS) + 1):
        deg = sum(n * (s - 1) for s, n in groups[:j])
        cost = sum(max(0, deg // 2 - o) for o, _, _ in _recurrence_terms(groups[:j]))
        length = deg + 1
        for s, n in groups[j:]:
            for _ in range(n):
                length += s - 1
                cost += length
        if best_cost is None or cost < best_cost:
            best, best_cost = j, cost
    return best


def distribution(expr: str | DiceExpression) -> Distribution:
    """The exact distribution of the expression's total (every expression :func:`parse`
    accepts)."""
    expression = _parsed(expr)
    groups: dict[int, int] = {}
    for t in expression.dice_terms:
        if t.sides > 1:  # one-sided dice only shift the total, as ``minimum`` accounts for
            groups[t.sides] = groups.get(t.sides, 0) + t.count
    denominator = 1
    for sides, n in groups.items():
        denominator *= sides**n
    key = tuple(sorted(groups.items(), key=lambda g: (g[1] * (g[0] - 1), g[0]), reverse=True))
    return Distribution(expression, expression.minimum, _counts(key), denominator)


@lru_cache(maxsize=8)  # the UI asks again on every re-render; the biggest entries are ~15 MB
def _counts(groups: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    """Counts of each total for dice ``groups`` ((sides, count), largest first)."""
    if not groups:
        return (1,)
    j = _plan(list(groups)) if len(groups) > 1 else 1
    counts = _recurrence_counts(groups[:j])
    for sides, n in groups[j:]:
        for _ in range(n):
            counts = _add_die(counts, sides)
    return tuple(counts)


# Totals beyond this many are not charted on a form: the exact distribution of the largest
# allowed expressions takes up to a second (see ``python -m rules.bench``), and a form asks
# on every keystroke. Range and mean stay exact and instant for every expression.
CHART_MAX_TOTALS = 600


@dataclass(frozen=True)
class Summary:
    """What a form shows before a free roll: the exact range and mean, and, when cheap, the
    chance of each total grouped into at most ``bars`` bars of ``(low, high, probability)``."""

    minimum: int
    maximum: int
    mean: Fraction
    bars: tuple[tuple[int, int, Fraction], ...] | None


def summary(expr: str | DiceExpression, bars: int = 24) -> Summary:
    """Range and mean of ``expr`` (exact, constant time) and a bar chart of its exact
    distribution when it has at most :data:`CHART_MAX_TOTALS` totals (else ``bars`` is None)."""
    expression = _parsed(expr)
    if not is_whole(bars) or not 1 <= bars <= CHART_MAX_TOTALS:
        raise bad_argument("bars", bars, f"a whole number from 1 to {CHART_MAX_TOTALS}")
    mean = Fraction(expression.constant) + sum(
        (Fraction(t.sign * t.count * (t.sides + 1), 2) for t in expression.dice_terms),
        Fraction(0),
    )
    totals = expression.maximum - expression.minimum + 1
    chart = None
    if totals <= CHART_MAX_TOTALS:
        dist = distribution(expression)
        width = -(-totals // bars)  # ceiling: at most ``bars`` bars
        chart = tuple(
            (
                low,
                min(low + width - 1, dist.maximum),
                Fraction(
                    sum(dist.counts[low - dist.minimum : low - dist.minimum + width]),
                    dist.denominator,
                ),
            )
            for low in range(dist.minimum, dist.maximum + 1, width)
        )
    return Summary(expression.minimum, expression.maximum, mean, chart)
