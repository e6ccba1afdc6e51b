"""The engine stands alone: no module of it imports Django, so other tools can use it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "rules"


@pytest.mark.parametrize("module", sorted(str(p.relative_to(RULES)) for p in RULES.rglob("*.py")))
def test_the_engine_imports_nothing_from_django(module):
    tree = ast.parse((RULES / module).read_text(encoding="utf-8"))
    imported = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    ] + [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert not [name for name in imported if name.split(".")[0] == "django"]
