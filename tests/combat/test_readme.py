"""The README is a user's guide: the title first, then the two commands a fresh machine needs,
then its sections in a fixed order; every path it names, and every path and name the internals'
own docstrings name, is where the text says it is."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from django.urls import reverse

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
COMMANDS = ["uv run manage.py host", "uv run pytest"]
SECTIONS = [
    "Running a table",
    "Playing",
    "Old-School Essentials (B/X)",
    "BECMI / Rules Cyclopedia",
    "Dolmenwood",
    "Past one machine",
    "Tests",
    "Translations",
]
# The packages whose docstrings hold what the README no longer tells (how the screens stay
# live, how few statements a change costs, how a server starts).
INTERNALS = ("combat.live", "combat.db", "combat.site")
PATH = re.compile(r"`+((?:combat|rules|tests|static|templates)/[\w./-]*)`+")


def test_the_title_comes_first_and_then_exactly_the_two_commands():
    lines = README.splitlines()
    assert lines[0] == "# Fray"
    opening = lines.index("```")
    closing = lines.index("```", opening + 1)
    assert lines[opening + 1 : closing] == COMMANDS
    assert not any(line.startswith("#") for line in lines[1:opening])
    assert README.index("```") < README.index("\n## ")


def test_the_sections_come_in_the_guide_s_order():
    assert re.findall(r"^## (.+)$", README, re.M) == SECTIONS


def test_the_pages_fray_serves_are_named_by_their_paths():
    assert f"`{reverse('formats')}`" in README
    assert f"`{reverse('hit_locations')}`" in README


def _docstring(package: str) -> str:
    return importlib.import_module(package).__doc__ or ""


@pytest.mark.parametrize("where", ["README.md", *INTERNALS])
def test_every_path_named_exists(where):
    text = README if where == "README.md" else _docstring(where)
    named = set(PATH.findall(text))
    assert named or where != "README.md"
    missing = sorted(path for path in named if not (ROOT / path).exists())
    assert missing == [], where


def _resolves(dotted: str, package: str) -> bool:
    for base in (package, "combat.models", ""):
        parts = f"{base}.{dotted}".strip(".").split(".")
        for cut in range(len(parts), 0, -1):
            try:
                found = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for name in parts[cut:]:
                    found = getattr(found, name)
            except AttributeError:
                break
            return True
    return False


@pytest.mark.parametrize("package", INTERNALS)
def test_every_name_the_internals_docstrings_give_is_there(package):
    text = _docstring(package)
    dotted = {
        name
        for name in re.findall(r"``([A-Za-z_][\w.]*)``", text)
        if "." in name and not name.startswith("security.")  # Django's check ids
    }
    assert dotted
    assert [name for name in sorted(dotted) if not _resolves(name, package)] == []
