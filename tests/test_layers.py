"""The layers keep their direction: the search knows no game package, and no generic layer
names a game (every game-specific table lives in the game's package)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import stonegarden

PACKAGE = Path(stonegarden.__file__).resolve().parent
GENERIC = ["search", "agents", "web", "cli", "lab", "core", "terminal", "interop", "geometry",
           "learn", "store", "jobs", "."]
#: where naming a game is what the code means: the ``play`` command's default game
ALLOWED = {("cli/play.py", "blooms")}


def _modules(folder: str) -> list[Path]:
    """The modules of a subpackage, or with ``"."`` the package's top-level modules."""
    if folder == ".":
        return sorted(PACKAGE.glob("*.py"))
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


@pytest.mark.parametrize("path", _modules("search"), ids=lambda p: p.name)
def test_the_search_imports_no_layer_above_it(path):
    """Agents, and the commands and apps over them, are built on the search, never the other
    way round (models it reads and the helpers of processes are below it)."""
    above = {"agents", "web", "cli", "lab", "terminal", "interop"}
    assert not [m for m in _imports(path) if above & set(m.split("."))]


GAME_PACKAGES = sorted(p.name for p in (PACKAGE / "games").iterdir() if (p / "__init__.py").exists())


def _imported_names(path: Path) -> list[str]:
    """Every dotted name a module imports, ``from X import a`` giving ``X.a`` too."""
    out = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            out.append(base)
            out.extend(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            out.extend(alias.name for alias in node.names)
    return out


@pytest.mark.parametrize("folder", GENERIC)
def test_no_generic_layer_imports_a_game_package(folder):
    """What a generic layer needs of a game comes through the registries (games, foreign
    record readers, views, profiles), never from a game package's modules."""
    found = []
    for path in _modules(folder):
        for name in _imported_names(path):
            parts = [p for p in name.split(".") if p]
            after = parts[parts.index("games") + 1:] if "games" in parts else []
            if after and after[0] in GAME_PACKAGES:
                found.append((str(path.relative_to(PACKAGE)), name))
    assert found == []


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



ARCHITECTURE = PACKAGE.parents[1] / "docs" / "architecture.md"


def test_architecture_md_names_only_files_that_exist_and_every_part_of_the_package():
    """docs/architecture.md is where the next engineer starts: each file it names is in the
    package or the tests (``<game>`` standing for any folder), and each subpackage and
    top-level module of the package is named in it."""
    import re

    text = ARCHITECTURE.read_text("utf-8")
    root = PACKAGE.parents[1]
    files = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")]
    files += [str(p.relative_to(root)) for p in (root / "tests").rglob("*.py")]
    missing = []
    for name in set(re.findall(r"[\w/<>]*\w\.py\b", text)):
        name = name.removeprefix("src/stonegarden/")
        pattern = re.compile(r"(.*/)?" + re.sub(r"<\w+>", "[^/]+", re.escape(name).replace(
            r"\<", "<").replace(r"\>", ">")))
        if not any(pattern.fullmatch(f) for f in files):
            missing.append(name)
    assert sorted(missing) == []
    parts = {f"{p.name}/" for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    parts |= {p.name for p in PACKAGE.glob("*.py")} - {"__init__.py", "__main__.py"}
    assert sorted(p for p in parts if f"`{p}" not in text) == []


def test_architecture_md_names_every_error_class():
    """The one error hierarchy is described where the next engineer starts."""
    from stonegarden import errors

    text = ARCHITECTURE.read_text("utf-8")
    classes = [n for n, v in vars(errors).items() if isinstance(v, type)
               and issubclass(v, errors.StonegardenError) and v is not errors.StonegardenError]
    assert [n for n in classes if f"`{n}`" not in text] == []


#: the web pages' one game-specific move builder (Blobs': a cell, then a face) and the styles
#: of Blobs' board, both still in the shared script and stylesheet rather than in its view
ALLOWED_IN_PAGES = {("static/game/builder.js", "blobs"), ("static/style.css", "blobs")}


def test_no_script_stylesheet_or_template_of_the_web_app_names_another_game():
    import re

    web = PACKAGE / "web"
    ids = sorted(stonegarden.available_games(), key=len, reverse=True)
    word = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, ids)) + r")(?![\w])")
    found = {(str(p.relative_to(web)), m) for folder in ("static", "templates")
             for p in (web / folder).rglob("*") if p.suffix in (".js", ".css", ".html")
             for m in word.findall(p.read_text("utf-8"))}
    assert sorted(found - ALLOWED_IN_PAGES) == []


def test_the_agents_bound_no_game_option_of_their_own():
    """A game option's range is its profile's declaration, read by the agents: a table of
    game options in the agents layer went stale (``patterns`` was missing from it)."""
    from stonegarden.agents.registry import OPTION_RANGES, option_range
    from stonegarden.search.profile import declared_options

    options = declared_options()
    assert sorted(set(OPTION_RANGES) & set(options)) == []
    assert {n: option_range(n) for n, o in options.items() if o.kind == "int"} == {
        n: (o.low, o.high, True) for n, o in options.items() if o.kind == "int"}


def test_what_games_share_holds_no_one_game_knowledge():
    """Free Go and Bridge Go share the square view; what only one of them has is in that
    game's own view, not asked of the game there: Bridge Go's winning chain, no score and a
    bridge as the reason; Free Go's stones a suicide left without a liberty."""
    from stonegarden.games.bridgego.view import BridgeGoView
    from stonegarden.games.freego.view import FreeGoView
    from stonegarden.web.views import view_for

    shared = (PACKAGE / "games" / "square_go_view.py").read_text("utf-8")
    assert "winning_chain" not in shared and "bridge" not in shared
    assert "without_liberty" not in shared and "suicide" not in shared.lower()
    assert type(view_for(stonegarden.make("bridgego"))) is BridgeGoView
    assert type(view_for(stonegarden.make("freego"))) is FreeGoView


def test_no_two_classes_outside_the_games_share_a_name():
    """A name read in one layer means one thing: the lab's store of finished games is
    ``StudyStore``, not a second ``Store`` beside the web app's ``stonegarden.store.Store``.
    (Each game package may name a class for the role it plays there, as ``ModelPriors``.)"""
    import collections

    where = collections.defaultdict(list)
    for path in PACKAGE.rglob("*.py"):
        if "games" in path.relative_to(PACKAGE).parts:
            continue
        for node in ast.parse(path.read_text("utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                where[node.name].append(str(path.relative_to(PACKAGE)))
    assert {name: paths for name, paths in where.items() if len(paths) > 1} == {}
