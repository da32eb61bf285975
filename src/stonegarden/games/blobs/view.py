"""Blobs: dice with their arcs, drawn by the game's own ``games/blobs/svg.py`` (colour-blind
safe: red regions dotted, blue ones striped); this view adds the marks (last move, legal
frontier cells, hint) as classes on the ``data-cell`` elements, and the ``blobs`` move builder:
click a frontier cell, then choose one of its faces."""

from __future__ import annotations

import re
from importlib import import_module
from typing import Any

from ...core.protocol import CHANCE, Game, State
from ...web.views.base import BoardView, Marks

_MOVE = re.compile(r"^([a-o])([0-9]{1,2})(?::[a-z]{2}|[a-z])$", re.IGNORECASE)
FACE_LABELS = {"R": "Red face", "B": "Blue face", "M": "Mixed face"}


def _cell_of(move: str) -> str | None:
    m = _MOVE.match(move.strip())
    return f"{m.group(1).lower()}{m.group(2)}" if m else None


def _add_classes(svg: str, classes: dict[str, list[str]]) -> str:
    """Add mark classes to the ``data-cell`` elements, and make each one a focusable button
    with an accessible name ("h9, empty", "h9, empty, a die fits here", "h8, Mixed face: red
    north-west, blue south-east")."""
    from ...games.blobs.lattice import PLACEMENTS
    from ...games.blobs.notation import parse_cell
    from ...games.blobs.svg import die_words

    def repl(m: re.Match[str]) -> str:
        cls, cell, placement = m.group(1), m.group(2), m.group(3)
        extra = classes.get(cell, [])
        what = die_words(*parse_cell(cell), PLACEMENTS.index(placement)) if placement else "empty"
        if "legal" in extra:  # most empty cells take no die: say which do
            what += ", a die fits here"
        if "auto" in extra:
            what += ", filled automatically"
        if "decisive" in extra:  # drawn in green: said too
            what += ", round the closed blob that ended the game"
        return (f'class="{" ".join([cls, *extra])}" data-cell="{cell}" role="button" '
                f'tabindex="-1" aria-label="{cell}, {what}"'
                + (f' data-placement="{placement}"' if placement else ""))

    return re.sub(r'class="([^"]*)" data-cell="([^"]+)"(?: data-placement="([^"]+)")?', repl, svg)


#: what wins under each ``win`` parameter, in words (docs/games/blobs.md's table)
WIN_WORDS = {
    "either": "a closed blob, or a white circle ringed by one colour, wins for that colour",
    "white": "a white circle ringed by one colour wins for that colour",
    "own": "a closed blob wins for its colour",
    "enemy": "a closed blob wins for the other colour",
}


class BlobsView(BoardView):
    kind = "die-face"  # a frontier cell, then one of the faces that fit it
    click_to_play = True
    player_classes = ("p-red", "p-blue")
    start_caption = ("The opening position: Red's die on h8, already placed, with the files and "
                     "ranks next to it")
    #: pixels per die: the board keeps this scale however many dice it shows
    CELL = 72

    def supports(self, game: Game) -> bool:
        try:
            import_module("stonegarden.games.blobs.svg")
        except ImportError:
            return False
        return game.id == "blobs" or hasattr(game, "frontier_options")

    def player_names(self, game: Game) -> tuple[str, str]:
        return ("Red", "Blue")

    def player_colours(self, game: Game) -> tuple[str, str]:
        return ("red regions", "blue regions")

    def svg(self, game: Game, state: State, marks: Marks) -> str:
        from ...games.blobs.svg import blobs_svg

        svg = blobs_svg(game, state, cell_size=self.CELL).replace(
            'class="blobs-board"', 'class="board blobs-board" role="img" '
            'aria-label="Blobs: the dice placed so far"', 1)
        classes: dict[str, list[str]] = {}
        for kind, cells in (("legal", marks.targets), ("last", marks.last), ("auto", marks.auto),
                            ("hint", marks.hint), ("decisive", self._decisive(game, state))):
            for c in cells:
                classes.setdefault(c, []).append(kind)
        return _add_classes(svg, classes)

    def _decisive(self, game: Game, state: State) -> list[str]:
        """The dice around the closed blobs that ended the game (its rules find the blobs)."""
        blobs_of = getattr(game, "blobs", None)
        if blobs_of is None or not game.is_terminal(state) or state.resigned:
            return []
        from ...games.blobs.notation import cell_name

        cells: set[str] = set()
        for blob in blobs_of(state):
            if blob.closed:
                for r, c in blob.points:
                    cells.update(cell_name(r + dr, c + dc) for dr in (-1, 0) for dc in (-1, 0))
        return sorted(cells)

    def _options(self, game: Game, state: State) -> dict[str, list[dict[str, str]]]:
        from ...games.blobs.lattice import cell_rc
        from ...games.blobs.svg import die_words, face_svg

        out: dict[str, list[dict[str, str]]] = {}
        if game.is_terminal(state) or game.current_player(state) == CHANCE:
            return out
        for a in game.legal_actions(state):
            text = game.action_to_text(state, int(a))
            cell = _cell_of(text)
            if cell is not None:
                face = text[-1].upper()
                r, c = cell_rc(int(a) // 4)
                out.setdefault(cell, []).append(
                    {"text": text, "face": face, "label": FACE_LABELS.get(face, text),
                     "words": die_words(r, c, int(a) % 4),
                     "svg": face_svg(int(a) % 4, size=44, r=r, c=c)})
        return out

    def legal_targets(self, game: Game, state: State) -> list[str]:
        return sorted(self._options(game, state))

    def chance_words(self, game: Game, event: str) -> str:
        face = event.strip()[-1:].upper() if event.strip().lower().startswith("roll:") else ""
        return f"a {FACE_LABELS[face]} was rolled" if face in FACE_LABELS else ""

    def move_cells(self, game: Game, before: State, move: str) -> list[str]:
        cell = _cell_of(move)
        return [cell] if cell else []

    def builder(self, game: Game, state: State) -> dict[str, Any]:
        """The ``die-face`` builder: ``options``, the faces that fit each frontier cell;
        ``dice_left``; ``roll``, the face rolled under Tumbling Dice ("Mixed face"), which the
        mover must place, else ``None``; ``prompt``, what to do, in the game's words;
        ``example``, a move of this position for the move field (``None`` when none is)."""
        from ...games.blobs.lattice import FACES

        roll = getattr(state, "roll", -1)
        rolled = FACE_LABELS[FACES[roll]] if roll >= 0 else None
        # "frontier", the rules' word for programs, is not one a player has met
        prompt = "click a highlighted cell, where a die fits"
        if rolled is not None:
            prompt = f"Tumbling Dice: you rolled a {rolled} and must place it; {prompt}"
        options = self._options(game, state)
        # the move field's example, a move of this position: the page's, of the first
        # decision, may place a face other than the one rolled
        moves = [o["text"] for cell in sorted(options) for o in options[cell]]
        return {"kind": self.kind, "options": options,
                "dice_left": getattr(state, "dice_left", None), "roll": rolled,
                "prompt": prompt, "example": moves[len(moves) // 2] if moves else None}

    def legend(self, game: Game) -> list[dict[str, str]]:
        return [{"letter": "R", "name": "red", "mark": "dotted regions", "player": "1",
                 "swatch": _region_swatch("blobs-red")},
                {"letter": "B", "name": "blue", "mark": "striped regions", "player": "2",
                 "swatch": _region_swatch("blobs-blue")}]

    def mark_legend(self, game: Game) -> list[dict[str, str]]:
        return [{"name": "last move", "swatch": _cell_swatch("last")},
                {"name": "filled automatically by the last move", "swatch": _cell_swatch("auto")},
                {"name": "you can place here", "swatch": _cell_swatch("legal")},
                {"name": "hint", "swatch": _cell_swatch("hint")},
                {"name": "dice round the closed blob that ended the game",
                 "swatch": _cell_swatch("decisive")}]

    def score_track(self, game: Game, state: State) -> dict[str, Any]:
        left = getattr(state, "dice_left", None)
        return {"scores": [], "target": None, "colours": list(self.player_classes),
                "label": "No score: " + WIN_WORDS.get(game.params.get("win", "either"),
                                                      WIN_WORDS["either"])
                # the rule a newcomer loses a first game to: a move that makes the opponent's
                # win loses, even when it makes the mover's own too
                + "; a move that hands the opponent a win loses" + (
                    f" · dice left: {left}" if left is not None else "")}

    def reason_words(self, game: Game, state: State, reason: str, winner: int,
                     names: tuple[str, str]) -> str:
        w = names[winner - 1] if winner else ""
        loser = names[2 - winner] if winner else ""
        colour = ("red", "blue")[winner - 1] if winner else ""
        words = {
            "own-blob": f"{w} closed a {colour} blob",
            "white-circle": f"{w} completed a white circle",
            # the mover won: a closed blob of the other colour wins for that colour's opponent
            "enemy-blob": f"{w} closed a {('red', 'blue')[2 - winner] if winner else ''} blob "
                          "(under these rules a closed blob wins for the other colour)",
            "mover-gave-win": f"{loser} completed {w}'s winning shape, which loses",
            "pool-empty": "the dice ran out",
            "no-placement": "no die fits anywhere",
        }
        return words.get(reason) or super().reason_words(game, state, reason, winner, names)


def _region_swatch(pattern: str, size: int = 18) -> str:
    from ...games.blobs.svg import DEFS

    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="swatch" width="{size}" '
            f'height="{size}" viewBox="0 0 {size} {size}" aria-hidden="true">{DEFS}'
            f'<rect width="{size}" height="{size}" rx="3" fill="url(#{pattern})"/></svg>')


def _cell_swatch(kind: str, size: int = 22) -> str:
    """A legend key: an empty cell with the class the board gives the mark (style.css)."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="swatch blobs-board" width="{size}" '
            f'height="{size}" viewBox="-2 -2 {size + 4} {size + 4}" aria-hidden="true">'
            f'<rect class="cell key-{kind} {kind}" width="{size}" height="{size}" fill="#f4f4f4" '
            'stroke="#999999"/></svg>')


VIEW = BlobsView()
