"""Board views: the one per-game part of the web app.

A view turns a state into an SVG (every cell or point carries ``data-cell="<name>"``), says
which cells a move touches, which cells are legal targets, and describes the move builder the
page offers. Views are found by game id; adding a game to the web app is one line in
``_BY_GAME`` (and a view module if no existing one fits). A game without a view still works
with the text view: its ASCII diagram and the ``move`` text field.
"""

from __future__ import annotations

from importlib import import_module

from ...core.protocol import Game
from .base import BoardView, Marks

#: game id -> view module (in this package) that draws it
_BY_GAME: dict[str, str] = {
    "blooms": "hex_colours",
    "blooms-territory": "hex_colours",
    "freego": "square",
    "bridgego": "square",
    "blobs": "blobs",
}
_EXTRA: dict[str, BoardView] = {}


def register_view(game_id: str, view: BoardView) -> None:
    """Use ``view`` for ``game_id`` (tests and plug-ins; built-in games use ``_BY_GAME``)."""
    _EXTRA[game_id] = view


def view_for(game: Game) -> BoardView:
    """The board view of a game (the text view when none is registered or it cannot load)."""
    if game.id in _EXTRA:
        return _EXTRA[game.id]
    name = _BY_GAME.get(game.id, "text")
    module = import_module(f"{__name__}.{name}")
    view: BoardView = module.VIEW
    if not view.supports(game):
        from .text import VIEW as TEXT

        return TEXT
    return view


__all__ = ["BoardView", "Marks", "register_view", "view_for"]
