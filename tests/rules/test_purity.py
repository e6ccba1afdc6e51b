"""The engine stands alone: no module of it imports Django, so other tools can use it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "rules"
# The interface layer that lives beside the engine: the app config, translated labels and
# template tags. Nothing in the engine imports them.
INTERFACE = {"apps.py", "labels.py"}


@pytest.mark.parametrize(
    "module",
    sorted(p.name for p in RULES.glob("*.py") if p.name not in INTERFACE),
)
def test_the_engine_imports_nothing_from_django(module):
    tree = ast.parse((RULES / module).read_text(encoding="utf-8"))
    imported = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    ] + [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert not [name for name in imported if name.split(".")[0] == "django"]
    assert "labels" not in imported
