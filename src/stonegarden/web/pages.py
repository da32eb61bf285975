"""What the rules page shows: the game's doc (docs/games/<game>.md when the source tree has
it), its parameters, and pictures drawn by its board view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from ..agents.registry import make_agent
from ..core.protocol import CHANCE
from ..core.registry import game_class, make
from .views import Marks, view_for
from .views.base import safe_move_cells

DOCS = Path(__file__).resolve().parents[3] / "docs" / "games"


def doc_html(game_id: str) -> str | None:
    """docs/games/<game>.md as HTML (raw HTML in the file is escaped), or ``None``. A variant
    (``blooms-territory``) falls back to its family's page (``blooms.md``)."""
    path = DOCS / f"{game_id}.md"
    if not path.is_file():
        path = DOCS / f"{game_id.split('-')[0]}.md"
    if not path.is_file():
        return None
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    return md.render(path.read_text(encoding="utf-8"))


def sample_pictures(game_id: str, moves: int = 6) -> list[dict[str, str]]:
    """The empty board and a position after a few seeded random moves, with the last move
    and its captures marked."""
    game = make(game_id)
    view = view_for(game)
    s = game.initial_state()
    pics = [{"caption": "The empty board, with every cell named",
             "svg": view.svg(game, s, Marks())}]
    agent = make_agent("random:seed=7")
    before, last = s, ""
    for _ in range(moves):
        if game.is_terminal(s):
            break
        if game.current_player(s) == CHANCE:
            a = game.chance_outcomes(s)[0][0]
        else:
            a = agent.choose(game, s)
        before, last = s, game.action_to_text(s, a)
        s = game.play(s, a)
    if last:
        marks = Marks(tuple(safe_move_cells(view, game, before, last)),
                      tuple(view.captured_cells(game, before, s)))
        pics.append({"caption": f"After {s.ply} random moves; the last, {last}, is ringed",
                     "svg": view.svg(game, s, marks)})
    return pics


def rules_context(game_id: str) -> dict[str, Any]:
    cls = game_class(game_id)
    game = make(game_id)
    return {
        "game_id": game_id,
        "title": cls.title,
        "doc": doc_html(game_id),
        "summary": (cls.__doc__ or "").strip().replace("``", ""),
        "params": [{"name": p.name, "doc": p.doc, "default": game.params[p.name]}
                   for p in cls.param_specs],
        "pictures": sample_pictures(game_id),
        "legend": view_for(game).legend(game),
    }
