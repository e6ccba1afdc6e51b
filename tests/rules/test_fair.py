"""Verifiable server dice (rules/fair.py): fixed vectors checked against an independent
implementation, rejection sampling, a chi-square test of every die size, and the verifier's
report on good, tampered, out-of-order and malformed proof documents."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import dice, fair
from rules.core import natural_roll

VECTORS = json.loads(
    (Path(__file__).parent / "data" / "fair_vectors.json").read_text(encoding="utf-8")
)
HEX = "0123456789abcdef"


def reference_die(seed: str, roll: int, index: int, player: str, sides: int) -> tuple[int, int]:
    """The spec's loop written out plainly, apart from rules.fair: ``(die, attempts rejected)``."""
    attempt = 0
    while True:
        message = f"fray-dice-1:{roll}:{index}:{attempt}:{player}".encode()
        mac = hmac.new(bytes.fromhex(seed), message, hashlib.sha256).digest()
        x = int.from_bytes(mac[0:4], "big")
        if x < 2**32 - (2**32 % sides):
            return x % sides + 1, attempt
        attempt += 1


def regenerate_vectors() -> dict:  # pragma: no cover - run by hand, never by the suite
    """How data/fair_vectors.json was made (the three rejected first attempts were found by
    searching rolls 1, 2, 3 … of the first seed, index 0, no player value)."""
    seeds = [hashlib.sha256(f"fray dice vector seed {i}".encode()).hexdigest() for i in (1, 2, 3)]
    players = ["", "0", "00", "deadbeef", "a" * 64, HEX * 4, "f00d"]
    sides_list = [2, 3, 4, 6, 8, 10, 12, 20, 100, 1000]
    cases = [
        (
            seed,
            [1, 2, 3, 7, 42, 100, 999, 123456][(k + s) % 8],
            [0, 1, 2, 5, 17][(k * 3 + s) % 5],
            players[(k + 2 * s) % len(players)],
            sides_list[(k + s * 4) % len(sides_list)],
        )
        for s, seed in enumerate(seeds)
        for k in range(12)
    ]
    cases += [
        (seeds[0], 5, 0, "", 1),
        (seeds[1], 9, 3, "beef", 997),
        (seeds[0], 6373471, 0, "", 997),
        (seeds[0], 6373471, 0, "", 1000),
        (seeds[0], 23310577, 0, "", 100),
    ]
    return {
        "comment": VECTORS["comment"],
        "commitments": [
            {"seed": s, "commitment": hashlib.sha256(bytes.fromhex(s)).hexdigest()} for s in seeds
        ],
        "dice": [
            dict(zip(("seed", "roll", "index", "player", "sides"), case, strict=True))
            | dict(zip(("expected", "rejected"), reference_die(*case), strict=True))
            for case in cases
        ],
    }


# ----- fixed vectors -----


@pytest.mark.parametrize("case", VECTORS["dice"], ids=lambda c: f"d{c['sides']}-r{c['roll']}")
def test_each_vector_is_the_die_both_implementations_give(case):
    args = (case["seed"], case["roll"], case["index"], case["player"], case["sides"])
    assert fair.die(*args) == case["expected"]
    assert reference_die(*args) == (case["expected"], case["rejected"])


def test_the_vectors_cover_every_size_empty_players_and_rejections():
    cases = VECTORS["dice"]
    assert len(cases) >= 40
    assert {2, 3, 4, 6, 8, 10, 12, 20, 100, 1000} <= {c["sides"] for c in cases}
    assert any(c["player"] == "" for c in cases)
    assert sum(c["rejected"] > 0 for c in cases) >= 3


@pytest.mark.parametrize("case", VECTORS["commitments"], ids=lambda c: c["seed"][:8])
def test_a_commitment_is_sha256_of_the_seed_bytes(case):
    assert fair.commitment(case["seed"]) == case["commitment"]
    assert hashlib.sha256(bytes.fromhex(case["seed"])).hexdigest() == case["commitment"]
    assert case["commitment"] != hashlib.sha256(case["seed"].encode()).hexdigest()


# ----- seeds, player values, arguments -----


def test_a_new_seed_is_64_lowercase_hex_and_fresh():
    seeds = {fair.new_seed() for _ in range(20)}
    assert len(seeds) == 20
    assert all(len(s) == 64 and set(s) <= set(HEX) for s in seeds)
    assert fair.SEED_BYTES == 32 and fair.VERSION == 1


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("", ""),
        ("  DeadBEEF \n", "deadbeef"),
        ("a" * 64, "a" * 64),
        ("a" * 65, ""),
        ("xyz", ""),
        ("12 34", ""),
        ("0x12", ""),
        ("１２", ""),  # full-width digits are not hex
        (None, ""),
        (1234, ""),
        (b"ab", ""),
    ],
)
def test_player_value_normalises_or_empties(text, value):
    assert fair.player_value(text) == value


@pytest.mark.parametrize(
    "args",
    [
        ("AB" * 32, 1, 0, "", 6),  # uppercase seed
        ("ab" * 31, 1, 0, "", 6),  # short seed
        ("ab" * 32, 0, 0, "", 6),  # roll numbers start at 1
        ("ab" * 32, True, 0, "", 6),
        ("ab" * 32, 1, -1, "", 6),
        ("ab" * 32, 1, 0, "XY", 6),  # not a normalised player value
        ("ab" * 32, 1, 0, "", 0),
        ("ab" * 32, 1, 0, "", 1001),
        ("ab" * 32, 1, 0, "", 6.0),
    ],
)
def test_die_refuses_arguments_outside_the_algorithm(args):
    with pytest.raises(ValueError):
        fair.die(*args)


def test_commitment_refuses_a_seed_that_is_not_one():
    for seed in ("", "ab", "AB" * 32, "zz" * 32, None):
        with pytest.raises(ValueError):
            fair.commitment(seed)


# ----- rejection sampling -----


@pytest.mark.parametrize(("sides", "limit"), [(6, 2**32 - 4), (100, 2**32 - 96), (3, 2**32 - 1)])
def test_accept_rejects_exactly_from_the_limit(sides, limit):
    assert limit % sides == 0
    assert fair._accept(limit - 1, sides) == (limit - 1) % sides + 1 == sides
    assert fair._accept(limit, sides) is None
    assert fair._accept(2**32 - 1, sides) is None
    assert fair._accept(0, sides) == 1


def test_accept_never_rejects_a_power_of_two_or_a_d1():
    for sides in (1, 2, 4, 8, 256):
        assert fair._accept(2**32 - 1, sides) == sides
    assert fair._accept(12345, 1) == 1


@given(st.integers(0, 2**32 - 1), st.integers(1, fair.MAX_SIDES))
def test_accept_is_the_remainder_below_the_largest_multiple(x, sides):
    limit = 2**32 - 2**32 % sides
    assert fair._accept(x, sides) == (x % sides + 1 if x < limit else None)


def test_a_rejected_first_attempt_moves_on_to_the_next(monkeypatch):
    seed = VECTORS["commitments"][0]["seed"]
    asked: list[bytes] = []
    real = fair._mac

    def first_rejected(key: bytes, message: bytes) -> bytes:
        asked.append(message)
        if message.split(b":")[3] == b"0":
            return b"\xff\xff\xff\xff" + real(key, message)[4:]  # above every d6 limit
        return real(key, message)

    monkeypatch.setattr(fair, "_mac", first_rejected)
    value = fair.die(seed, 4, 2, "beef", 6)
    assert asked == [b"fray-dice-1:4:2:0:beef", b"fray-dice-1:4:2:1:beef"]
    second = hmac.new(bytes.fromhex(seed), asked[1], hashlib.sha256).digest()
    assert value == int.from_bytes(second[:4], "big") % 6 + 1


# ----- chi-square: every die size is uniform -----


def chi_square_survival(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` (whole) degrees of freedom: the regularised upper
    gamma function Q(df/2, x/2) in closed form (no scipy)."""
    h = x / 2
    if df % 2 == 0:
        term = total = math.exp(-h)
        for i in range(1, df // 2):
            term *= h / i
            total += term
        return total
    total = math.erfc(math.sqrt(h))
    term = math.exp(-h) * math.sqrt(h) / math.gamma(1.5)
    for i in range(1, (df - 1) // 2 + 1):
        total += term
        term *= h / (i + 0.5)
    return total


@pytest.mark.parametrize(
    ("x", "df", "p"),
    # Critical values from the standard tables (NIST/SEMATECH e-Handbook, 1.3.6.7.4).
    [
        (10.828, 1, 0.001),
        (13.816, 2, 0.001),
        (16.266, 3, 0.001),
        (20.515, 5, 0.001),
        (24.322, 7, 0.001),
        (27.877, 9, 0.001),
        (31.264, 11, 0.001),
        (43.820, 19, 0.001),
        (149.449, 100, 0.001),
        (3.841, 1, 0.05),
        (11.070, 5, 0.05),
        (30.144, 19, 0.05),
        (124.342, 100, 0.05),
    ],
)
def test_the_chi_square_tail_matches_the_tables(x, df, p):
    assert chi_square_survival(x, df) == pytest.approx(p, rel=0.01)


def chi_square(counts: list[int]) -> float:
    expected = sum(counts) / len(counts)
    return sum((c - expected) ** 2 / expected for c in counts)


def test_the_chi_square_test_catches_a_loaded_die():
    fair_counts = [1000] * 6
    loaded = [16_500] * 5 + [17_500]  # 100,000 throws, a six 5 % more likely than 1 in 6
    assert chi_square_survival(chi_square(fair_counts), 5) == pytest.approx(1.0)
    assert chi_square_survival(chi_square(loaded), 5) < 0.001


@pytest.mark.parametrize("sides", [2, 3, 4, 6, 8, 10, 12, 20, 100])
def test_every_die_size_is_uniform(sides):
    seed = hashlib.sha256(f"fray chi-square {sides}".encode()).hexdigest()
    counts = [0] * sides
    for roll in range(1, 10_001):
        for value in fair.derive(seed, roll, "c0ffee", [sides] * 10):
            counts[value - 1] += 1
    assert sum(counts) == 100_000
    assert chi_square_survival(chi_square(counts), sides - 1) >= 0.001, counts


# ----- properties of the dice -----

seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)
players = st.text(HEX, max_size=64)
sides = st.integers(1, fair.MAX_SIDES)


@given(seeds, st.integers(1, 2**40), st.integers(0, 1000), players, sides)
def test_a_die_is_on_the_die_and_the_same_every_time(seed, roll, index, player, sides):
    value = fair.die(seed, roll, index, player, sides)
    assert 1 <= value <= sides
    assert fair.die(seed, roll, index, player, sides) == value
    assert reference_die(seed, roll, index, player, sides)[0] == value


@given(seeds, st.integers(1, 1000), players, st.lists(sides, max_size=12))
def test_committed_dice_record_exactly_what_they_returned(seed, roll, player, sides_list):
    source = fair.CommittedDice(seed, roll, player)
    returned = [source.randint(1, s) for s in sides_list]
    assert source.dice == [[s, v] for s, v in zip(sides_list, returned, strict=True)]
    assert returned == fair.derive(seed, roll, player, sides_list)


def test_committed_dice_are_a_random_source_for_the_rules():
    seed = VECTORS["commitments"][1]["seed"]
    source = fair.CommittedDice(seed, 2, "ab")
    natural = natural_roll(20, source)
    rolled = dice.roll("2d6+1d1+1", source)
    assert source.dice[0] == [20, natural]
    assert [s for s, _ in source.dice] == [20, 6, 6, 1]
    assert source.dice[3] == [1, 1]
    assert rolled.total == sum(v for _, v in source.dice[1:]) + 1
    assert fair.derive(seed, 2, "ab", [20, 6, 6, 1]) == [v for _, v in source.dice]


@pytest.mark.parametrize(("a", "b"), [(0, 6), (2, 6), (True, 6), (1, 0), (1, 1001), (1, 6.0)])
def test_committed_dice_refuse_what_the_rules_never_ask(a, b):
    source = fair.CommittedDice("ab" * 32, 1, "")
    with pytest.raises(ValueError):
        source.randint(a, b)
    assert source.dice == []


def test_committed_dice_refuse_a_bad_seed_roll_or_player():
    for args in (("AB" * 32, 1, ""), ("ab" * 32, 0, ""), ("ab" * 32, 1, " ab")):
        with pytest.raises(ValueError):
            fair.CommittedDice(*args)


# ----- proof documents -----


def build_rolls(seed: str, period: int, sides_lists: list[list[int]], first_entry: int) -> list:
    rolls = []
    for roll, sides_list in enumerate(sides_lists, 1):
        player = format(roll * 4099, "x")
        source = fair.CommittedDice(seed, roll, player)
        for s in sides_list:
            source.randint(1, s)
        rolls.append(
            {
                "entry": first_entry + 2 * roll,
                "period": period,
                "roll": roll,
                "player": player,
                "dice": source.dice,
            }
        )
    return rolls


def secret_roll(seed: str, entry: int, player: str, sides_list: list[int]) -> dict:
    source = fair.CommittedDice(seed, 1, player)
    for s in sides_list:
        source.randint(1, s)
    return {
        "entry": entry,
        "commitment": fair.commitment(seed),
        "seed": seed,
        "player": player,
        "dice": source.dice,
    }


SEED_1, SEED_2, SEED_3 = (c["seed"] for c in VECTORS["commitments"])


def a_document() -> dict:
    """Period 1 revealed (three rolls), period 2 open (two rolls), one secret roll."""
    return {
        "version": 1,
        "periods": [
            {"number": 1, "commitment": fair.commitment(SEED_1), "seed": SEED_1},
            {"number": 2, "commitment": fair.commitment(SEED_2), "seed": None},
        ],
        "rolls": build_rolls(SEED_1, 1, [[20], [8, 6, 6], [100, 10]], 10)
        + build_rolls(SEED_2, 2, [[20, 20], [4]], 100),
        "secret": [secret_roll(SEED_3, 13, "", [20, 6])],
    }


def states(report: dict) -> list[tuple[str, str | None]]:
    return [(r["state"], r["problem"]) for r in report["rolls"]]


def test_a_good_document_verifies():
    report = fair.verify(a_document())
    assert report["ok"] is True
    assert report["counts"] == {"verified": 4, "committed": 2, "failed": 0}
    assert report["periods"] == [
        {"number": 1, "state": "verified"},
        {"number": 2, "state": "committed"},
    ]
    assert states(report) == [("verified", None)] * 3 + [("committed", None)] * 2 + [
        ("verified", None)
    ]
    first = report["rolls"][1]
    assert first | {"dice": None} == {
        "entry": 14,
        "period": 1,
        "roll": 2,
        "secret": False,
        "state": "verified",
        "problem": None,
        "dice": None,
    }
    assert [d["index"] for d in first["dice"]] == [0, 1, 2]
    assert all(d["ok"] is True and d["expected"] == d["value"] for d in first["dice"])
    assert all(d["ok"] is None and d["expected"] is None for d in report["rolls"][3]["dice"])
    secret = report["rolls"][5]
    assert (secret["entry"], secret["period"], secret["roll"], secret["secret"]) == (
        13,
        None,
        1,
        True,
    )
    json.dumps(report)  # plain JSON, for the page and the command


def test_a_tampered_die_fails_with_its_expected_value():
    document = a_document()
    die_ = document["rolls"][1]["dice"][2]
    honest = die_[1]
    die_[1] = honest % 6 + 1
    report = fair.verify(document)
    assert report["ok"] is False
    assert states(report)[1] == ("failed", "die")
    assert report["rolls"][1]["dice"][2] == {
        "index": 2,
        "sides": 6,
        "value": honest % 6 + 1,
        "expected": honest,
        "ok": False,
    }
    assert report["rolls"][1]["dice"][0]["ok"] is True
    others = states(fair.verify(a_document()))
    del others[1]
    assert states(report)[:1] + states(report)[2:] == others


def test_a_tampered_die_in_an_open_period_cannot_be_caught_yet():
    document = a_document()
    document["rolls"][3]["dice"][0][1] = document["rolls"][3]["dice"][0][1] % 20 + 1
    assert states(fair.verify(document))[3] == ("committed", None)


def test_a_wrong_commitment_fails_the_period_and_its_rolls():
    document = a_document()
    document["periods"][0]["commitment"] = fair.commitment(SEED_2)
    report = fair.verify(document)
    assert report["ok"] is False
    assert report["periods"][0] == {"number": 1, "state": "failed"}
    assert states(report)[:3] == [("failed", "seed")] * 3
    assert states(report)[3:5] == [("committed", None)] * 2
    assert all(d["expected"] is None for d in report["rolls"][0]["dice"])


def test_a_failed_period_with_no_rolls_still_fails_the_document():
    document = {"periods": [{"number": 7, "commitment": "0" * 64, "seed": SEED_1}], "rolls": []}
    report = fair.verify(document)
    assert report == {
        "ok": False,
        "counts": {"verified": 0, "committed": 0, "failed": 0},
        "periods": [{"number": 7, "state": "failed"}],
        "rolls": [],
    }


def test_a_gap_in_the_roll_numbers_fails_with_order():
    document = a_document()
    del document["rolls"][1]  # period 1 now has rolls 1 and 3
    assert states(fair.verify(document))[:2] == [("verified", None), ("failed", "order")]


def test_a_repeated_roll_number_fails_with_order():
    document = a_document()
    repeat = copy.deepcopy(document["rolls"][0]) | {"entry": 13}
    document["rolls"].insert(1, repeat)  # rolls 1, 1, 2, 3 in entry order
    got = states(fair.verify(document))
    assert got[:4] == [("verified", None)] + [("failed", "order")] * 3


def test_the_order_is_that_of_the_entries_not_of_the_document():
    document = a_document()
    document["rolls"][0:3] = document["rolls"][2::-1]
    assert fair.verify(document)["ok"] is True
    document["rolls"][0]["entry"], document["rolls"][2]["entry"] = (
        document["rolls"][2]["entry"],
        document["rolls"][0]["entry"],
    )
    assert states(fair.verify(document))[0:3:2] == [("failed", "order")] * 2


def test_a_roll_with_several_problems_shows_the_first():
    """malformed, then period, then seed, then order, then die."""
    document = a_document()
    document["periods"][0]["seed"] = SEED_2  # every roll of period 1: seed
    del document["rolls"][1]  # and its old third roll: order
    assert states(fair.verify(document))[:2] == [("failed", "seed")] * 2
    document = a_document()
    del document["rolls"][0]  # rolls 2 and 3 in first and second place: order
    document["rolls"][0]["dice"][0][1] = document["rolls"][0]["dice"][0][1] % 8 + 1  # and die
    document["rolls"][1]["player"] = "Z"  # and malformed
    document["rolls"][1]["period"] = 9  # and period
    got = states(fair.verify(document))
    assert got[:2] == [("failed", "order"), ("failed", "malformed")]
    document["rolls"][1]["player"] = "ab"
    assert states(fair.verify(document))[1] == ("failed", "period")


def test_rolls_in_an_open_period_are_committed_but_still_ordered():
    document = a_document()
    document["rolls"][4]["roll"] = 5
    assert states(fair.verify(document))[3:5] == [("committed", None), ("failed", "order")]


def test_a_roll_naming_an_unknown_or_doubled_period_fails_with_period():
    document = a_document()
    document["rolls"][0]["period"] = 9
    assert states(fair.verify(document))[0] == ("failed", "period")
    document = a_document()
    document["periods"].append(dict(document["periods"][1]))
    report = fair.verify(document)
    assert [p["state"] for p in report["periods"]] == ["verified", "failed", "failed"]
    assert states(report)[3:5] == [("failed", "period")] * 2


def test_a_secret_roll_is_checked_against_its_own_seed():
    document = a_document()
    document["secret"][0]["dice"][1][1] = document["secret"][0]["dice"][1][1] % 6 + 1
    assert states(fair.verify(document))[5] == ("failed", "die")
    document = a_document()
    document["secret"][0]["seed"] = SEED_1
    assert states(fair.verify(document))[5] == ("failed", "seed")
    document = a_document()
    document["secret"][0]["seed"] = None
    assert states(fair.verify(document))[5] == ("committed", None)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda r: r.update(player="ABCD"), "malformed"),
        (lambda r: r.update(player=None), "malformed"),
        (lambda r: r.pop("player"), "malformed"),
        (lambda r: r.update(entry="14"), "malformed"),
        (lambda r: r.update(roll=0), "malformed"),
        (lambda r: r.update(dice="20,14"), "malformed"),
        (lambda r: r["dice"].append([6, 7]), "malformed"),
        (lambda r: r["dice"].append([1001, 1]), "malformed"),
        (lambda r: r["dice"].append([6]), "malformed"),
        (lambda r: r["dice"].append([True, 1]), "malformed"),
        (lambda r: r["dice"][0].__setitem__(1, 0), "malformed"),
        (lambda r: r.update(roll=2.0), None),  # a whole float reads as the browser reads it
        (lambda r: r["dice"][0].__setitem__(0, 8.0), None),
    ],
)
def test_malformed_content_fails_the_roll_without_raising(change, problem):
    document = a_document()
    change(document["rolls"][1])
    report = fair.verify(document)
    assert states(report)[1] == (("failed", problem) if problem else ("verified", None))


def test_a_malformed_die_is_shown_and_the_others_still_checked():
    document = a_document()
    document["rolls"][1]["dice"][1] = ["6", 2]
    dice_ = fair.verify(document)["rolls"][1]["dice"]
    assert dice_[1] == {"index": 1, "sides": None, "value": 2, "expected": None, "ok": False}
    assert dice_[0]["ok"] is True and dice_[2]["ok"] is True


@pytest.mark.parametrize(
    "document",
    [
        None,
        [],
        "{}",
        {},
        {"periods": []},
        {"periods": [], "rolls": {}},
        {"periods": None, "rolls": []},
        {"periods": [], "rolls": [], "secret": {}},
        {"periods": [], "rolls": [], "version": 2},
        {"periods": [], "rolls": [], "version": None},
        {"periods": [], "rolls": [], "version": True},
    ],
)
def test_only_a_document_that_is_none_is_refused(document):
    with pytest.raises(ValueError, match=r"dice proof"):
        fair.verify(document)


def test_version_and_secret_may_be_left_out():
    report = fair.verify({"periods": [], "rolls": [], "secret": None})
    assert report == {
        "ok": True,
        "counts": {"verified": 0, "committed": 0, "failed": 0},
        "periods": [],
        "rolls": [],
    }


# ----- properties of documents -----


@st.composite
def documents(draw) -> dict:
    """A document as the server would build it: periods in turn (the last maybe open), their
    rolls drawn with CommittedDice, and some secret rolls."""
    document: dict = {"version": 1, "periods": [], "rolls": [], "secret": []}
    entry = 0
    count = draw(st.integers(1, 3))
    for number in range(1, count + 1):
        seed = draw(seeds)
        open_ = number == count and draw(st.booleans())
        document["periods"].append(
            {"number": number, "commitment": fair.commitment(seed), "seed": None if open_ else seed}
        )
        for roll in range(1, draw(st.integers(0, 3)) + 1):
            entry += draw(st.integers(1, 3))
            player = draw(players)
            source = fair.CommittedDice(seed, roll, player)
            for s in draw(st.lists(st.sampled_from([1, 2, 4, 6, 8, 20, 100, 1000]), max_size=4)):
                source.randint(1, s)
            document["rolls"].append(
                {
                    "entry": entry,
                    "period": number,
                    "roll": roll,
                    "player": player,
                    "dice": source.dice,
                }
            )
    for _ in range(draw(st.integers(0, 2))):
        entry += 1
        sides_list = draw(st.lists(st.sampled_from([2, 6, 20]), min_size=1, max_size=3))
        document["secret"].append(secret_roll(draw(seeds), entry, draw(players), sides_list))
    return document


def seeds_of(document: dict) -> dict[int, str | None]:
    return {p["number"]: p["seed"] for p in document["periods"]}


PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(documents())
def test_a_document_of_committed_dice_verifies(document):
    report = fair.verify(document)
    assert report["ok"] is True
    opened = seeds_of(document)
    expected = [
        "committed" if opened[r["period"]] is None else "verified" for r in document["rolls"]
    ] + ["verified"] * len(document["secret"])
    assert [r["state"] for r in report["rolls"]] == expected


def revealed_rolls(document: dict) -> list[int]:
    opened = seeds_of(document)
    return [i for i, r in enumerate(document["rolls"]) if opened[r["period"]] is not None]


@PROPERTY
@given(documents(), st.data())
def test_any_changed_die_value_fails_its_roll(document, data):
    places = [
        (i, j)
        for i in revealed_rolls(document)
        for j, (s, _) in enumerate(document["rolls"][i]["dice"])
        if s > 1
    ]
    if not places:
        return
    i, j = data.draw(st.sampled_from(places))
    sides_, honest = document["rolls"][i]["dice"][j]
    document["rolls"][i]["dice"][j][1] = data.draw(
        st.integers(1, sides_).filter(lambda v: v != honest)
    )
    report = fair.verify(document)
    assert states(report)[i] == ("failed", "die")
    assert report["rolls"][i]["dice"][j]["expected"] == honest
    assert all(r["problem"] is None for k, r in enumerate(report["rolls"]) if k != i)


@PROPERTY
@given(documents(), st.data())
def test_a_changed_revealed_seed_fails_every_roll_of_its_period(document, data):
    numbers = [p["number"] for p in document["periods"] if p["seed"] is not None]
    if not numbers:
        return
    number = data.draw(st.sampled_from(numbers))
    period = document["periods"][number - 1]
    period["seed"] = data.draw(seeds.filter(lambda s: s != period["seed"]))
    report = fair.verify(document)
    assert report["ok"] is False
    assert report["periods"][number - 1]["state"] == "failed"
    for roll, got in zip(document["rolls"], states(report), strict=False):
        assert (got == ("failed", "seed")) == (roll["period"] == number)


@PROPERTY
@given(documents(), st.data())
def test_another_seed_with_its_own_commitment_fails_exactly_the_rolls_it_changes(document, data):
    numbers = [p["number"] for p in document["periods"] if p["seed"] is not None]
    if not numbers:
        return
    number = data.draw(st.sampled_from(numbers))
    other = data.draw(seeds.filter(lambda s: s != document["periods"][number - 1]["seed"]))
    document["periods"][number - 1] |= {"seed": other, "commitment": fair.commitment(other)}
    report = fair.verify(document)
    for roll, got in zip(document["rolls"], states(report), strict=False):
        if roll["period"] != number:
            assert got[1] is None
            continue
        sides_list = [s for s, _ in roll["dice"]]
        same = fair.derive(other, roll["roll"], roll["player"], sides_list) == [
            v for _, v in roll["dice"]
        ]
        assert got == (("verified", None) if same else ("failed", "die"))


@PROPERTY
@given(documents(), st.data())
def test_a_changed_player_value_fails_exactly_when_the_dice_differ(document, data):
    rolls = revealed_rolls(document)
    if not rolls:
        return
    i = data.draw(st.sampled_from(rolls))
    roll = document["rolls"][i]
    roll["player"] = data.draw(players.filter(lambda p: p != roll["player"]))
    seed = seeds_of(document)[roll["period"]]
    sides_list = [s for s, _ in roll["dice"]]
    same = fair.derive(seed, roll["roll"], roll["player"], sides_list) == [
        v for _, v in roll["dice"]
    ]
    assert states(fair.verify(document))[i] == (("verified", None) if same else ("failed", "die"))


@PROPERTY
@given(documents(), st.data())
def test_a_changed_roll_number_fails_with_order(document, data):
    if not document["rolls"]:
        return
    i = data.draw(st.integers(0, len(document["rolls"]) - 1))
    roll = document["rolls"][i]
    roll["roll"] = data.draw(st.integers(1, 2**40).filter(lambda n: n != roll["roll"]))
    report = fair.verify(document)
    assert states(report)[i] == ("failed", "order")
    assert all(r["problem"] is None for k, r in enumerate(report["rolls"]) if k != i)


@PROPERTY
@given(documents(), st.data())
def test_a_changed_secret_die_or_seed_fails_it(document, data):
    if not document["secret"]:
        return
    i = data.draw(st.integers(0, len(document["secret"]) - 1))
    secret = document["secret"][i]
    place = len(document["rolls"]) + i
    if data.draw(st.booleans()):
        secret["seed"] = data.draw(seeds.filter(lambda s: s != secret["seed"]))
        assert states(fair.verify(document))[place] == ("failed", "seed")
    else:
        j = data.draw(st.integers(0, len(secret["dice"]) - 1))
        sides_, honest = secret["dice"][j]
        secret["dice"][j][1] = data.draw(st.integers(1, sides_).filter(lambda v: v != honest))
        assert states(fair.verify(document))[place] == ("failed", "die")


# ----- malformed documents never raise -----

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(["", "ab", SEED_1, fair.commitment(SEED_1), SEED_1.upper()]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=6), inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["number", "commitment", "seed", "entry", "period", "roll", "player", "dice"]
            ),
            inner,
            max_size=6,
        )
    ),
    max_leaves=16,
)
almost_dice = st.lists(
    st.lists(st.integers(-2, 1002) | json_values, min_size=0, max_size=3), max_size=4
)
almost_period = st.fixed_dictionaries(
    {},
    optional={
        "number": st.integers(-1, 3) | json_values,
        "commitment": st.sampled_from([fair.commitment(SEED_1), "0" * 64]) | json_values,
        "seed": st.sampled_from([SEED_1, None]) | json_values,
    },
)
almost_roll = st.fixed_dictionaries(
    {},
    optional={
        "entry": st.integers(0, 5) | json_values,
        "period": st.integers(-1, 3) | json_values,
        "roll": st.integers(-1, 4) | json_values,
        "player": players | json_values,
        "dice": almost_dice | json_values,
        "commitment": st.just(fair.commitment(SEED_1)) | json_values,
        "seed": st.sampled_from([SEED_1, None]) | json_values,
    },
)


def check_report_shape(report: dict, document: dict) -> None:
    secret = document.get("secret") or []
    assert set(report) == {"ok", "counts", "periods", "rolls"}
    assert len(report["periods"]) == len(document["periods"])
    assert len(report["rolls"]) == len(document["rolls"]) + len(secret)
    assert sum(report["counts"].values()) == len(report["rolls"])
    for period in report["periods"]:
        assert set(period) == {"number", "state"}
        assert period["state"] in {"verified", "committed", "failed"}
    for roll in report["rolls"]:
        assert set(roll) == {"entry", "period", "roll", "secret", "state", "problem", "dice"}
        assert roll["state"] in {"verified", "committed", "failed"}
        assert (roll["problem"] is None) == (roll["state"] != "failed")
        assert roll["problem"] in {None, "seed", "die", "order", "period", "malformed", "shown"}
        for d in roll["dice"]:
            assert set(d) == {"index", "sides", "value", "expected", "ok"}
    failed = any(x["state"] == "failed" for x in report["periods"] + report["rolls"])
    assert report["ok"] is not failed
    json.dumps(report, allow_nan=False)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(almost_period | json_values, max_size=4),
    st.lists(almost_roll | json_values, max_size=5),
    st.none() | st.lists(almost_roll | json_values, max_size=3),
)
def test_malformed_content_never_raises(periods, rolls, secret):
    document = {"periods": periods, "rolls": rolls, "secret": secret}
    check_report_shape(fair.verify(document), document)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_anything_at_all_is_a_report_or_a_value_error(value):
    try:
        report = fair.verify(value)
    except ValueError:
        return
    check_report_shape(report, value)


def _shown(document: dict) -> dict:
    """``document`` with each roll saying the dice its entry's text shows (its own, reversed:
    the order does not matter)."""
    for roll in document["rolls"] + document["secret"]:
        roll["shown"] = [value for _sides, value in reversed(roll["dice"])]
    return document


def test_a_roll_whose_entry_shows_its_dice_verifies_in_any_order():
    report = fair.verify(_shown(a_document()))
    assert report["ok"] is True and report["counts"]["verified"] == 4


@pytest.mark.parametrize("where", ["rolls", "secret"])
def test_an_entry_that_shows_other_dice_than_its_proof_fails_with_shown(where):
    """The log's data changed and its proof not (a natural edited in the database): the
    derived dice still match the proof, but not what the entry says."""
    document = _shown(a_document())
    roll = document[where][0]
    roll["shown"][0] = roll["shown"][0] % 20 + 1
    got = states(fair.verify(document))
    assert got[0 if where == "rolls" else 5] == ("failed", "shown")


@pytest.mark.parametrize("shown", [[], "14", [None], [1.5], [True], [20, 20, 20, 20]])
def test_a_shown_list_that_cannot_be_the_rolls_dice_fails(shown):
    document = a_document()
    document["rolls"][0]["shown"] = shown
    assert states(fair.verify(document))[0] == ("failed", "shown")
