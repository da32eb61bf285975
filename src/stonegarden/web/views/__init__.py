"""Board views: how the web app draws a game.

A view turns a state into an SVG (every cell or point carries ``data-cell="<name>"``), says
which cells a move touches, which cells are legal targets, and describes the move builder the
page offers. A game's view lives in its own package and the game class names it
(``Game.board_view``, ``"module:NAME"``); this package holds what every view shares and the
text view, which draws any game without one: its ASCII diagram and the ``move`` text field.
"""

from __future__ import annotations

from importlib import import_module

from ...core.protocol import Game
from .base import BoardView, Marks

_EXTRA: dict[str, BoardView] = {}


def register_view(game_id: str, view: BoardView) -> None:
    """Use ``view`` for ``game_id`` (tests and plug-ins; games name theirs in
    ``Game.board_view``)."""
    _EXTRA[game_id] = view


def view_for(game: Game) -> BoardView:
    """The board view of a game (the text view when it names none or it cannot draw it)."""
    from .text import VIEW as TEXT

    if game.id in _EXTRA:
        return _EXTRA[game.id]
    if not game.board_view:
        return TEXT
    module, _, name = game.board_view.partition(":")
    view = getattr(import_module(module), name)
    if not isinstance(view, BoardView) or not view.supports(game):
        return TEXT
    return view


__all__ = ["BoardView", "Marks", "register_view", "view_for"]
