"""What every board view provides (see the package docstring)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...core.protocol import Game, State
from ...errors import StonegardenError


@dataclass(frozen=True)
class Marks:
    """Cells to mark on a drawn board, by name."""

    last: tuple[str, ...] = ()
    captured: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    hint: tuple[str, ...] = ()
    #: cells the last move filled by itself (Blobs' auto moves)
    auto: tuple[str, ...] = ()


class BoardView:
    """Base view: subclasses set ``kind`` (the move builder the page uses) and draw."""

    kind = "text"
    #: whether a click on a legal cell plays a move at once (the page then offers "confirm
    #: moves"); the Blooms builder always asks for a confirmation
    click_to_play = False
    #: the caption of the start position's picture on the rules page
    start_caption = "The empty board"
    #: what the scores count, in the score track's words (a capture race's "captures")
    score_name = "score"

    def supports(self, game: Game) -> bool:
        """Whether this view can draw ``game`` (it has the geometry the view reads)."""
        return True

    def svg(self, game: Game, state: State, marks: Marks) -> str:
        """The board as an SVG document fragment (``<svg ...>...</svg>``)."""
        raise NotImplementedError

    def legal_targets(self, game: Game, state: State) -> list[str]:
        """Cells some legal move of the player to move places on (highlighted on the page)."""
        return []

    def move_cells(self, game: Game, before: State, move: str) -> list[str]:
        """Cells a move (canonical text, played in ``before``) places on."""
        return []

    def chance_words(self, game: Game, event: str) -> str:
        """A chance event (canonical text) in words for the page ("a Blue face was rolled"),
        or ``""`` to show its text alone."""
        return ""

    def captured_cells(self, game: Game, before: State, after: State) -> list[str]:
        """Cells emptied by the move from ``before`` to ``after``."""
        return []

    def self_captured_cells(self, game: Game, before: State, after: State) -> list[str]:
        """Those of ``captured_cells`` that held the mover's own stones (Bridge Go removes
        the mover's chains without an external liberty): not captures, whose words they
        must not take."""
        return []

    def no_liberty_cells(self, game: Game, state: State) -> list[str]:
        """Stones on the board that count for nothing, drawn and said so: Free Go's suicide,
        which stays until the opponent's next move removes and scores it. None by default."""
        return []

    def builder(self, game: Game, state: State) -> dict[str, Any]:
        """What the page's move builder needs (JSON): ``kind`` plus view-specific keys."""
        return {"kind": self.kind}

    def legend(self, game: Game) -> list[dict[str, str]]:
        """Stone kinds shown in the legend: letter, name, mark description, swatch SVG."""
        return []

    def mark_legend(self, game: Game) -> list[dict[str, str]]:
        """The marks drawn on the board (last move, captures, hint...): ``name`` and a
        ``swatch`` SVG drawn as the board draws the mark."""
        return []

    def score_track(self, game: Game, state: State) -> dict[str, Any]:
        """Scores and what they race toward: ``{"scores", "target", "label", "colours"}``
        (``scores`` empty when the game keeps none; ``colours`` are the CSS classes of the
        players' bars, their stone colours)."""
        s = game.scores(state)
        target = game.params.get("target")
        return {"scores": list(s), "target": target, "colours": list(self.player_classes),
                "label": (self.score_name if target is None
                          else f"{self.score_name}, first to {target} wins")}

    #: CSS classes of each player's colour (score bars, seat labels)
    player_classes: tuple[str, str] = ("p-one", "p-two")

    def player_names(self, game: Game) -> tuple[str, str]:
        """How the page names the players ("Black", "White")."""
        return ("Player 1", "Player 2")

    def player_colours(self, game: Game) -> tuple[str, str]:
        """What each player plays with, in a few words ("black stones")."""
        return ("", "")

    def cell_label(self, game: Game, name: str, content: str) -> str:
        """The accessible name of a cell: its name and what is on it ("d4, empty")."""
        return f"{name}, {content or 'empty'}"

    def outcome(self, game: Game, state: State) -> dict[str, Any] | None:
        """The end of a game in words (``None`` while it goes on): ``winner`` (0 a draw) and
        ``detail``, a sentence naming the players as ``player_names`` does, e.g. "Black
        joined north and south" or "Player 2 resigned"."""
        winner = game.winner(state)
        if winner is None:
            return None
        reason = game.result_reason(state) or ""
        names = self.player_names(game)
        if reason == "resign":
            detail = f"{names[2 - winner]} resigned" if winner else "resigned"
        else:
            detail = self.reason_words(game, state, reason, winner, names)
        return {"winner": winner, "reason": reason, "detail": detail}

    def reason_words(self, game: Game, state: State, reason: str, winner: int,
                     names: tuple[str, str]) -> str:
        """``outcome``'s sentence for a reason other than resignation; views override it with
        their games' reasons."""
        if reason == "no-legal-move":
            return "the player to move had no legal move"
        if reason == "max-turns":
            return f"the move limit ({state.ply} move{'' if state.ply == 1 else 's'}) was reached"
        return reason.replace("-", " ")


def safe_move_cells(view: BoardView, game: Game, before: State, move: str) -> list[str]:
    """``view.move_cells`` that never raises (marks are decoration, never an error)."""
    try:
        return view.move_cells(game, before, move)
    except (StonegardenError, IndexError, KeyError):
        return []
