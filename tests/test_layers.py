"""The layers keep their direction: the search knows no game package, and no generic layer
names a game (every game-specific table lives in the game's package)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import stonegarden

PACKAGE = Path(stonegarden.__file__).resolve().parent
GENERIC = ["search", "agents", "web", "cli", "lab", "core", "terminal", "interop", "geometry",
           "learn", "store", "jobs"]
#: where naming a game is what the code means: the ``play`` command's default game
ALLOWED = {("cli/play.py", "blooms")}


def _modules(folder: str) -> list[Path]:
    return sorted((PACKAGE / folder).rglob("*.py"))


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text("utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            out.append("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            out.extend(alias.name for alias in node.names)
    return out


@pytest.mark.parametrize("path", _modules("search"), ids=lambda p: p.name)
def test_the_search_imports_no_game_package(path):
    assert not [m for m in _imports(path) if "games" in m.split(".")]


def _strings(path: Path) -> list[str]:
    """String constants of a module, docstrings left out."""
    tree = ast.parse(path.read_text("utf-8"))
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docs.add(id(body[0].value))
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and id(n) not in docs]


@pytest.mark.parametrize("folder", GENERIC)
def test_no_generic_layer_names_a_game(folder):
    games = set(stonegarden.available_games())
    found = [(str(p.relative_to(PACKAGE)), s) for p in _modules(folder) for s in _strings(p)
             if s in games]
    assert [f for f in found if f not in ALLOWED] == []
