"""``manage.py verify_dice FILE``: check every server die of an exported encounter.

The file is what the referee's Export gives (its ``dice``), or a proof document on its own (the
dice page's ``proofs.json``). Each die is derived again from its period's revealed seed, the
roll's number, the die's place and the player's value (``rules.fair``), each seed is checked
against the seal shown before its rolls, and each period's roll numbers must run 1, 2, 3...
with none missing or repeated. Nothing is read from the database: a copy of the file anywhere
can be checked. Exits with status 1 when anything does not match.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rules import fair

PROBLEMS = {
    "seed": "the revealed seed does not match its seal",
    "order": "its roll number skips or repeats one",
    "period": "it names a period the file does not list",
    "malformed": "it cannot be read",
    "shown": "its log entry shows other dice than its proof",
}


class Command(BaseCommand):
    help = "Check every server die of an exported encounter file against its revealed seeds."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="an exported encounter (.json) or a proof document")

    def handle(self, *args: Any, file: str, **options: Any) -> None:
        try:
            loaded = json.loads(Path(file).read_text(encoding="utf-8"))
        except OSError as error:
            raise CommandError(f"cannot read {file}: {error.strerror or error}") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise CommandError(f"{file} is not a JSON file: {error}") from None
        document = loaded.get("dice", loaded) if isinstance(loaded, dict) else loaded
        try:
            report = fair.verify(document)
        except ValueError as error:
            raise CommandError(f"{file} holds no server dice: {error}") from None
        for period in report["periods"]:
            if period["state"] == "failed":
                self.stdout.write(f"period {period['number']}: {PROBLEMS['seed']}")
        for roll in report["rolls"]:
            if roll["state"] == "failed":
                self.stdout.write(self._failure(roll))
        counts = report["counts"]
        self.stdout.write(
            f"{counts['verified']} rolls verified, {counts['committed']} sealed (their seed not"
            f" revealed yet), {counts['failed']} not matching."
        )
        if not report["ok"]:
            raise CommandError("some server dice do not match their proofs", returncode=1)

    @staticmethod
    def _failure(roll: dict[str, Any]) -> str:
        where = (
            f"secret roll, entry #{roll['entry']}"
            if roll.get("secret")
            else (f"entry #{roll['entry']}, period {roll['period']}, roll {roll['roll']}")
        )
        said = [
            f"d{die['sides']} #{die['index'] + 1} shows {die['value']},"
            f" the seed gives {die['expected']}"
            for die in roll.get("dice") or ()
            if die.get("ok") is False
        ]
        if roll.get("problem") in PROBLEMS and roll["problem"] != "die":
            said.append(PROBLEMS[roll["problem"]])
        return f"{where}: " + "; ".join(said or ["does not match"])
