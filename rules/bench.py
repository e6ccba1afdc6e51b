"""Timings of the rules engine's hot calls: ``uv run python -m rules.bench [-n REPEAT] [FILTER]``.

Not a test: it prints, for every entry of :data:`CASES`, the mean and the worst time of one
call in milliseconds. To cover another system, add :class:`Case` entries to ``CASES`` (one
line each); ``setup`` runs untimed before every call (e.g. to empty a cache).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from . import becmi, dice, dolmenwood, hit_location, ose
from .core import Modifier

__all__ = ["CASES", "Case", "main", "measure"]


@dataclass(frozen=True)
class Case:
    """One timed call: ``run`` is called ``repeat`` times (``-n`` overrides, capped by
    ``max_repeat`` for the slow ones)."""

    system: str
    name: str
    run: Callable[[], object]
    repeat: int = 1000
    max_repeat: int | None = None
    setup: Callable[[], object] | None = None


_rng = random.Random(1234)
_uncached = dice._counts.cache_clear  # time the computation, not the cache
_MIXED_WORST = "+".join(f"9d{s}" for s in range(1000, 989, -1))  # 99 dice, 11 sizes


def _imported(system: str, cases: list[tuple[str, Callable[[], object]]]) -> list[Case]:
    return [Case(system, name, run, repeat=200) for name, run in cases]


CASES: list[Case] = [
    Case("dice", "parse 2d6+1d4-1", lambda: dice.parse("2d6+1d4-1")),
    Case("dice", "parse 1к20+2", lambda: dice.parse("1к20+2")),
    Case("dice", "roll 10d10+5", lambda: dice.roll("10d10+5", _rng)),
    Case("dice", "distribution 10d10+5", lambda: dice.distribution("10d10+5"), setup=_uncached),
    Case("dice", "distribution 3d6 (cached)", lambda: dice.distribution("3d6")),
    Case("dice", "summary 10d10+5 (form)", lambda: dice.summary("10d10+5"), setup=_uncached),
    Case("dice", "summary 100d1000 (no chart)", lambda: dice.summary("100d1000")),
    Case(
        "dice",
        "distribution 100d1000",
        lambda: dice.distribution("100d1000"),
        repeat=5,
        max_repeat=5,
        setup=_uncached,
    ),
    Case(
        "dice",
        "distribution 50d1000+50d999",
        lambda: dice.distribution("50d1000+50d999"),
        repeat=3,
        max_repeat=3,
        setup=_uncached,
    ),
    Case(
        "dice",
        "distribution 9d1000+…+9d990",
        lambda: dice.distribution(_MIXED_WORST),
        repeat=1,
        max_repeat=1,
        setup=_uncached,
    ),
    Case("ose", "parse_hd / monster_thac0 4+1**", lambda: ose.monster_thac0("4+1**")),
    Case("ose", "monster_saves 7*", lambda: ose.monster_saves("7*")),
    Case(
        "ose",
        "attack_odds matrix",
        lambda: ose.attack_odds(thac0=17, target_ac=4, method="matrix", modifier=1),
    ),
    Case(
        "ose",
        "attack_odds_compared",
        lambda: ose.attack_odds_compared(thac0=17, target_ac=-3, modifier=2),
    ),
    Case(
        "ose",
        "resolve_attack",
        lambda: ose.resolve_attack(
            thac0=17, target_ac=4, method="matrix", modifiers=(Modifier(1, "str"),), rng=_rng
        ),
    ),
    Case(
        "ose",
        "resolve_save (damage)",
        lambda: ose.resolve_save(save_value=13, category="breath", rng=_rng, damage=21),
    ),
    Case("ose", "save_odds", lambda: ose.save_odds(13, 2)),
    Case(
        "ose",
        "resolve_ability_check",
        lambda: ose.resolve_ability_check(score=13, modifier=2, rng=_rng),
    ),
    Case("ose", "ability_check_odds", lambda: ose.ability_check_odds(13, -2)),
    Case(
        "ose",
        "natural_healing 7 days",
        lambda: ose.natural_healing(7, _rng, current_hp=3, max_hp=20),
    ),
]
CASES += _imported("becmi", becmi.BENCH_CASES)
CASES += _imported("dolmenwood", dolmenwood.BENCH_CASES)
CASES += _imported("hit_location", hit_location.BENCH_CASES)


def measure(case: Case, repeat: int | None = None) -> tuple[int, float, float]:
    """``(calls, mean ms, worst ms)`` for one case."""
    n = repeat if repeat is not None else case.repeat
    if case.max_repeat is not None:
        n = min(n, case.max_repeat)
    n = max(n, 1)
    times = []
    for _ in range(n):
        if case.setup is not None:
            case.setup()
        start = time.perf_counter()
        case.run()
        times.append(time.perf_counter() - start)
    return n, sum(times) / n * 1000, max(times) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules.bench", description=__doc__)
    parser.add_argument("-n", "--repeat", type=int, help="calls per case (default per case)")
    parser.add_argument("filter", nargs="?", default="", help="only cases whose name contains it")
    args = parser.parse_args(argv)
    cases = [c for c in CASES if args.filter.lower() in f"{c.system} {c.name}".lower()]
    width = max((len(c.name) for c in cases), default=4)
    print(f"{'system':<10} {'case':<{width}} {'calls':>6} {'mean ms':>10} {'worst ms':>10}")
    for case in cases:
        n, mean, worst = measure(case, args.repeat)
        print(f"{case.system:<10} {case.name:<{width}} {n:>6} {mean:>10.4f} {worst:>10.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
