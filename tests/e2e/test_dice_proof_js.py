"""The browser's dice verifier (static/dice-proof.js) gives exactly what rules/fair.py gives: every
fixed vector, SHA-256 and HMAC against hashlib, and the same report (compared as JSON) on good,
tampered, out-of-order and malformed proof documents.

Each check runs four ways: with Web Crypto (a secure context, http://localhost), with the
bundled SHA-256 forced (``FrayDice.fallback = true``), with ``crypto.subtle`` deleted before the
script loads, and on a plain-http LAN address (http://192.168.1.5:8000), where the browser
itself gives no ``crypto.subtle`` at all: how phones reach Fray. No server is started: every
request is answered by Playwright's routing, and the page has a strict CSP
(``script-src 'self'``), so a script that used eval would not run."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from rules import fair
from tests.rules.test_fair import SEED_1, SEED_2, VECTORS, a_document

pytestmark = pytest.mark.e2e

SCRIPT = Path(__file__).resolve().parents[2] / "static" / "dice-proof.js"
PAGE = '<!doctype html><html lang="en"><title>Dice</title><script src="/dice-proof.js"></script>'
CSP = "default-src 'none'; script-src 'self'"
SECURE = "http://localhost:9"  # localhost is a secure context even over http
LAN = "http://192.168.1.5:8000"  # is not: no crypto.subtle there

# Counts the calls the script makes into Web Crypto (installed before the page's scripts run).
SPY = """
window.subtleCalls = 0;
if (window.crypto && window.crypto.subtle) {
  const subtle = window.crypto.subtle;
  for (const name of ["digest", "importKey", "sign"]) {
    const original = subtle[name].bind(subtle);
    subtle[name] = (...args) => { window.subtleCalls += 1; return original(...args); };
  }
}
"""
DELETE_SUBTLE = "Object.defineProperty(window.crypto, 'subtle', {value: undefined});"
MODES = ("web-crypto", "fallback", "subtle-deleted", "lan-http")


def _answer(route) -> None:
    if route.request.url.endswith("/dice-proof.js"):
        route.fulfill(path=SCRIPT, content_type="text/javascript")
    else:
        route.fulfill(body=PAGE, content_type="text/html", headers={"Content-Security-Policy": CSP})


@pytest.fixture(params=MODES)
def dice_page(request: pytest.FixtureRequest, browser) -> Iterator:
    """A page with FrayDice loaded, in one of the four ways (see the module docstring)."""
    mode = request.param
    context = browser.new_context()
    problems: list[str] = []
    try:
        if mode == "subtle-deleted":
            context.add_init_script(DELETE_SUBTLE)
        context.add_init_script(SPY)
        origin = LAN if mode == "lan-http" else SECURE
        context.route(f"{origin}/**", _answer)
        page = context.new_page()
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto(origin + "/")
        assert page.evaluate("typeof window.FrayDice") == "object"
        assert page.evaluate("FrayDice.fallback") is False
        has_subtle = page.evaluate("typeof window.crypto.subtle") == "object"
        assert has_subtle == (mode in ("web-crypto", "fallback"))
        assert page.evaluate("isSecureContext") == (mode != "lan-http")
        if mode == "fallback":
            page.evaluate("FrayDice.fallback = true")
        yield page
        used_subtle = page.evaluate("window.subtleCalls") > 0
        assert used_subtle == (mode == "web-crypto")
        assert problems == []
    finally:
        context.close()


def test_every_vector_gives_the_same_die_and_commitment(dice_page):
    got = dice_page.evaluate(
        """async (vectors) => ({
          dice: await Promise.all(vectors.dice.map(
            (c) => FrayDice.die(c.seed, c.roll, c.index, c.player, c.sides))),
          commitments: await Promise.all(vectors.commitments.map(
            (c) => FrayDice.commitment(c.seed))),
          hashed: await Promise.all(vectors.commitments.map((c) => FrayDice.sha256Hex(
            Uint8Array.from(c.seed.match(/../g).map((h) => parseInt(h, 16)))))),
        })""",
        VECTORS,
    )
    assert got["dice"] == [c["expected"] for c in VECTORS["dice"]]
    assert got["commitments"] == got["hashed"] == [c["commitment"] for c in VECTORS["commitments"]]


def test_sha256_and_hmac_agree_with_hashlib(dice_page):
    generator = random.Random(7)
    # Lengths around SHA-256's block (64 bytes) and its padding (55, 56), and keys longer
    # than a block (hashed first).
    cases = []
    for length in (0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 5000):
        data = generator.randbytes(length)
        key = generator.randbytes(generator.choice((0, 1, 32, 63, 64, 65, 100, 200)))
        cases.append({"data": list(data), "key": list(key)})
    got = dice_page.evaluate(
        """async (cases) => Promise.all(cases.map(async (c) => [
          await FrayDice.sha256Hex(Uint8Array.from(c.data)),
          Array.from(await FrayDice.hmac(Uint8Array.from(c.key), Uint8Array.from(c.data))),
        ]))""",
        cases,
    )
    for case, (digest, mac) in zip(cases, got, strict=True):
        data, key = bytes(case["data"]), bytes(case["key"])
        assert digest == hashlib.sha256(data).hexdigest()
        assert bytes(mac) == hmac.new(key, data, hashlib.sha256).digest()


def _documents() -> list[object]:
    """Good, tampered, out-of-order and malformed documents, and some that are none at all."""
    good = a_document()
    tampered = a_document()
    tampered["rolls"][1]["dice"][0][1] = tampered["rolls"][1]["dice"][0][1] % 8 + 1
    wrong_seed = a_document()
    wrong_seed["periods"][0]["seed"] = SEED_2
    other_seed = a_document()
    other_seed["periods"][0] |= {"seed": SEED_2, "commitment": fair.commitment(SEED_2)}
    gap = a_document()
    del gap["rolls"][1]
    repeat = a_document()
    repeat["rolls"].insert(1, copy.deepcopy(repeat["rolls"][0]) | {"entry": 13})
    # Rolls with two problems at once: only the first of malformed, period, seed, order, die.
    seed_and_order = copy.deepcopy(wrong_seed)
    del seed_and_order["rolls"][1]
    die_and_order = copy.deepcopy(tampered)
    del die_and_order["rolls"][0]
    malformed_and_order = copy.deepcopy(gap)
    malformed_and_order["rolls"][1]["player"] = "Z"
    unordered = a_document()
    unordered["rolls"].reverse()
    malformed = a_document()
    malformed["rolls"][0]["dice"] = [[0, 1], "x", [6, 7], [6.0, 2.0], [True, 1], [1001, 3]]
    malformed["rolls"][2]["player"] = "XY"
    malformed["rolls"][3]["roll"] = 1.5
    malformed["rolls"][4]["entry"] = None
    malformed["periods"].append({"number": 1.0, "commitment": fair.commitment(SEED_1)})
    malformed["secret"][0]["seed"] = None
    malformed["secret"].append({"entry": 99, "commitment": "AB" * 32, "player": "", "dice": []})
    junk = {
        "periods": [None, 3, {}, [], {"number": 5, "commitment": "0" * 64, "seed": "zz"}],
        "rolls": [None, [], "roll", {"entry": 1, "period": 9, "roll": 1, "player": "", "dice": []}],
        "secret": [None, {}],
    }
    refused = [
        None,
        [],
        "text",
        {"periods": [], "rolls": {}},
        {"periods": [], "rolls": [], "secret": 3},
        {"periods": [], "rolls": [], "version": 2},
        {"periods": [], "rolls": [], "version": None},
    ]
    shown = copy.deepcopy(good)  # each roll says the dice its entry shows: right, then one not
    for roll in shown["rolls"] + shown["secret"]:
        roll["shown"] = [value for _sides, value in reversed(roll["dice"])]
    not_shown = copy.deepcopy(shown)
    not_shown["rolls"][0]["shown"][0] = not_shown["rolls"][0]["shown"][0] % 20 + 1
    not_shown["secret"][0]["shown"] = [1.5]
    documents: list[object] = [good, tampered, wrong_seed, other_seed, gap, repeat, unordered]
    documents += [shown, not_shown]
    documents += [seed_and_order, die_and_order, malformed_and_order]
    documents += [malformed, junk, {"periods": [], "rolls": [], "secret": None}, *refused]
    return documents + _mutations(good, 60)


JUNK: tuple[object, ...] = (
    None,
    True,
    False,
    0,
    -1,
    1,
    2,
    1.5,
    3.0,
    2**53,
    "",
    "x",
    "AB" * 32,
    SEED_1,
    [],
    {},
    [6, 7],
    [20, 1],
    1001,
)


def _mutations(document: dict, count: int) -> list[dict]:
    """``count`` copies of ``document``, each with one to three values somewhere in it replaced
    by junk (or removed), the same ones every run."""
    generator = random.Random(1234)
    mutated = []
    for _ in range(count):
        copied = copy.deepcopy(document)
        for _ in range(generator.randint(1, 3)):
            holder, key = _random_place(copied, generator)
            if isinstance(holder, dict) and generator.random() < 0.2:
                del holder[key]
            else:
                holder[key] = copy.deepcopy(generator.choice(JUNK))
        mutated.append(copied)
    return mutated


def _random_place(value: dict | list, generator: random.Random) -> tuple[dict | list, object]:
    """A container inside ``value`` and one of its keys, at a random depth."""
    while True:
        keys = list(value) if isinstance(value, dict) else list(range(len(value)))
        if not keys:  # only the document itself can be empty: we never go into an empty one
            return value, "x"
        key = generator.choice(keys)
        inner = value[key]
        if isinstance(inner, dict | list) and inner and generator.random() < 0.75:
            value = inner
            continue
        return value, key


def _python_answer(document: object) -> str:
    try:
        return json.dumps(fair.verify(document), sort_keys=True)
    except ValueError as error:
        return json.dumps({"error": str(error)})


def test_verify_gives_the_same_report_as_python(dice_page):
    documents = _documents()
    answers = dice_page.evaluate(
        """async (documents) => {
          const answers = [];
          for (const document of documents) {
            try {
              answers.push(JSON.stringify(await FrayDice.verify(document)));
            } catch (error) {
              answers.push(JSON.stringify({error: error.message}));
            }
          }
          return answers;
        }""",
        documents,
    )
    expected = [_python_answer(d) for d in documents]
    got = [json.dumps(json.loads(a), sort_keys=True) for a in answers]
    for document, mine, theirs in zip(documents, got, expected, strict=True):
        assert mine == theirs, json.dumps(document)[:2000]
    reports = [json.loads(a) for a in expected]
    # The documents reach every state and every problem, so the comparison means something.
    problems = {r["problem"] for report in reports if "rolls" in report for r in report["rolls"]}
    assert problems == {None, "seed", "die", "order", "period", "malformed", "shown"}
    assert sum("error" in report for report in reports) >= 7
    assert reports[0]["ok"] is True


def test_die_refuses_what_python_refuses(dice_page):
    refused = dice_page.evaluate(
        """async (cases) => Promise.all(cases.map((c) => FrayDice.die(...c).then(
          () => false, () => true)))""",
        [
            ["AB" * 32, 1, 0, "", 6],
            ["ab" * 32, 0, 0, "", 6],
            ["ab" * 32, 1, -1, "", 6],
            ["ab" * 32, 1, 0, "XY", 6],
            ["ab" * 32, 1, 0, "", 0],
            ["ab" * 32, 1, 0, "", 1001],
            ["ab" * 32, 1, 0, "", 1],
        ],
    )
    assert refused == [True] * 6 + [False]
