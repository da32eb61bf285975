"""Hex boards with four stone colours, two per player (Blooms).

Colours are the Okabe-Ito colour-blind-safe set, and each colour also carries its own mark,
so no one has to tell them apart by hue alone: red has a filled dot, yellow a ring, black a
square, grey a diagonal hatch. Move builder ``hex-two-colour``: pick a colour, click one or
two cells, confirm (or pass where the rules allow it).
"""

from __future__ import annotations

import math
from typing import Any, Protocol, cast

import numpy as np

from ...core.protocol import Game, State
from ...geometry.hexhex import HexBoard, all_names, name_to_axial
from ...web.views.base import BoardView, Marks
from ...web.views.svgkit import fmt, svg_open
from .notation import parse_stones


class _OnHexBoard(Protocol):
    board: HexBoard


class _WithBoard(Protocol):
    board: bytes


def _board(game: Game) -> HexBoard:
    """The board of a Blooms game, the games whose class names this view."""
    return cast(_OnHexBoard, game).board


def _cells(state: State) -> np.ndarray:
    return np.frombuffer(cast(_WithBoard, state).board, dtype=np.int8)


R = 26.0  # hex radius (centre to corner) in SVG units
SQ3 = math.sqrt(3.0)

#: letter -> (name, fill, darker edge, mark description)
COLOUR_STYLE = {
    "R": ("red", "#D55E00", "#7a3500", "filled dot"),
    "Y": ("yellow", "#F0E442", "#8a7f10", "ring"),
    "K": ("black", "#222222", "#000000", "square"),
    "G": ("grey", "#A7A9AC", "#55575a", "diagonal hatch"),
}
LETTERS = "RYKG"  # board byte - 1
#: a cell's fill: plain, or tinted as player 1's or player 2's territory at the end
TERRITORY_FILL = ("#EBD9AE", "#F6C9A8", "#B9B4AA")


def centre(q: int, r: int) -> tuple[float, float]:
    return R * SQ3 * (q + r / 2.0), 1.5 * R * r


def hex_points(cx: float, cy: float, radius: float = R) -> str:
    pts = []
    for i in range(6):
        a = math.radians(60 * i - 30)
        pts.append(f"{fmt(cx + radius * math.cos(a))},{fmt(cy + radius * math.sin(a))}")
    return " ".join(pts)


def stone_defs(s: float = R * 0.74) -> str:
    """Gradients, the hatch pattern and one ``<g id="sg-stone-X">`` per colour at (0, 0)."""
    out = ['<defs>']
    for letter, (_, fill, edge, _) in COLOUR_STYLE.items():
        out.append(
            f'<radialGradient id="sg-grad-{letter}" cx="35%" cy="30%" r="75%">'
            f'<stop offset="0" stop-color="#ffffff" stop-opacity="0.55"/>'
            f'<stop offset="0.35" stop-color="{fill}"/>'
            f'<stop offset="1" stop-color="{edge}"/></radialGradient>'
        )
    out.append(
        '<pattern id="sg-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="6" height="6" fill="none"/>'
        '<line x1="0" y1="0" x2="0" y2="6" stroke="#2b2b2b" stroke-width="2.2"/></pattern>'
    )
    sh = f'<circle cx="1.5" cy="2.5" r="{fmt(s)}" fill="#000" opacity="0.25"/>'
    body = f'<circle r="{fmt(s)}" fill="url(#sg-grad-{{L}})" stroke="{{E}}" stroke-width="1.2"/>'
    marks = {
        "R": f'<circle r="{fmt(s * 0.3)}" fill="#ffffff" opacity="0.92"/>',
        "Y": f'<circle r="{fmt(s * 0.45)}" fill="none" stroke="#5c5200" '
             f'stroke-width="{fmt(s * 0.14)}"/>',
        "K": f'<rect x="{fmt(-s * 0.27)}" y="{fmt(-s * 0.27)}" width="{fmt(s * 0.54)}" '
             f'height="{fmt(s * 0.54)}" fill="#f2f2f2"/>',
        "G": f'<circle r="{fmt(s * 0.86)}" fill="url(#sg-hatch)" opacity="0.8"/>',
    }
    for letter, (_, _, edge, _) in COLOUR_STYLE.items():
        out.append(f'<g id="sg-stone-{letter}" class="stone-shape">{sh}'
                   + body.replace("{L}", letter).replace("{E}", edge) + marks[letter] + "</g>")
    out.append("</defs>")
    return "".join(out)


def swatch(letter: str, size: int = 28) -> str:
    """A small stand-alone SVG of one stone (the legend's keys, whose words follow them: hidden
    from screen readers)."""
    half = size / 2
    scale = fmt(size / (2 * R * 0.74 + 4))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="swatch" width="{size}" '
            f'height="{size}" viewBox="{fmt(-half)} {fmt(-half)} {size} {size}" '
            'aria-hidden="true">'
            f'{stone_defs()}<g transform="scale({scale})"><use href="#sg-stone-{letter}"/></g>'
            '</svg>')


class HexColoursView(BoardView):
    kind = "hex-two-colour"
    start_caption = "The empty board, with every cell named"
    player_classes = ("p-red", "p-black")

    def player_colours(self, game: Game) -> tuple[str, str]:
        return ("red and yellow stones", "black and grey stones")

    def supports(self, game: Game) -> bool:
        return isinstance(getattr(game, "board", None), HexBoard)

    def svg(self, game: Game, state: State, marks: Marks) -> str:
        board = _board(game)
        cells = _cells(state)
        size = board.size
        full = all_names(size)
        centres = {n: centre(*name_to_axial(size, n)) for n in full}
        xs = [c[0] for c in centres.values()]
        ys = [c[1] for c in centres.values()]
        pad = R * 2.75
        x0, y0 = min(xs) - pad, min(ys) - pad
        w, h = max(xs) - min(xs) + 2 * pad, max(ys) - min(ys) + 2 * pad
        last, captured = set(marks.last), set(marks.captured)
        targets, hint = set(marks.targets), set(marks.hint)
        owners = self._territory(game, state)
        out = [svg_open("board hex-board", x0, y0, w, h, f"Blooms board, size {size}"),
               stone_defs()]
        # the board's outline: one big hexagon behind the cells
        big = R * SQ3 * (size - 1) + R * 2.6
        out.append(f'<polygon class="rim" points="{hex_points(0, 0, big)}" '
                   f'transform="rotate(30)" fill="#8a6d3b" stroke="#5e4a26" stroke-width="2"/>')
        show_names = size <= 8
        for name in full:
            cx, cy = centres[name]
            if name not in board.index:
                out.append(f'<polygon class="hole" points="{hex_points(cx, cy)}" '
                           f'fill="#3d3222" stroke="#5e4a26" stroke-width="1.5"/>')
                continue
            i = board.index[name]
            v = int(cells[i])
            cls = ["cell"]
            if name in targets:
                cls.append("legal")
            if name in last:
                cls.append("last")
            if name in captured:
                cls.append("captured")
            if name in hint:
                cls.append("hint")
            content = LETTERS[v - 1] if v else ""
            owner = int(owners[i]) if owners is not None else 0
            if owner:
                cls.append(f"territory-{owner}")
            # two colours a player: the label says whose stone it is, as the legend does
            what = f"{COLOUR_STYLE[content][0]} stone, {self.player_names(game)[(v - 1) // 2]}" if v else (
                f"empty, territory of player {owner}" if owner else "")
            out.append(
                f'<g class="{" ".join(cls)}" data-cell="{name}" data-x="{fmt(cx)}" '
                f'data-y="{fmt(cy)}" data-content="{content}" role="button" tabindex="-1" '
                f'aria-label="{self.cell_label(game, name, what)}">'
                f'<polygon points="{hex_points(cx, cy, R - 0.6)}" '
                f'fill="{TERRITORY_FILL[owner]}" stroke="#8a7046" stroke-width="1.3"/>'
            )
            if owner:
                out.append(_territory_mark(cx, cy, owner))
            if v:
                out.append(f'<use href="#sg-stone-{content}" x="{fmt(cx)}" y="{fmt(cy)}"/>')
            elif show_names and name not in captured and not owner:
                out.append(f'<text class="cell-name" x="{fmt(cx)}" y="{fmt(cy + 4)}" '
                           f'text-anchor="middle" font-size="11" fill="#a08a5e">{name}</text>')
            if name in targets and not v:
                out.append(f'<circle class="target-dot" cx="{fmt(cx)}" cy="{fmt(cy - 9)}" r="3" '
                           'fill="#0072B2" opacity="0.55"/>')
            if name in last:
                out.append(f'<circle class="last-ring" cx="{fmt(cx)}" cy="{fmt(cy)}" '
                           f'r="{fmt(R * 0.84)}" fill="none" stroke="#0072B2" stroke-width="3.2"/>')
            if name in captured:
                d = R * 0.32
                out.append(
                    f'<path class="captured-mark" d="M{fmt(cx - d)},{fmt(cy - d)}L{fmt(cx + d)},'
                    f'{fmt(cy + d)}M{fmt(cx + d)},{fmt(cy - d)}L{fmt(cx - d)},{fmt(cy + d)}" '
                    'stroke="#CC79A7" stroke-width="4" stroke-linecap="round"/>'
                )
            if name in hint:
                out.append(f'<circle class="hint-ring" cx="{fmt(cx)}" cy="{fmt(cy)}" '
                           f'r="{fmt(R * 0.9)}" fill="none" stroke="#009E73" stroke-width="4" '
                           'stroke-dasharray="6 4"/>')
            out.append("</g>")
        # row letters left of each row
        for L in range(2 * size - 1):
            first = f"{chr(ord('a') + L)}1"
            cx, cy = centres[first]
            out.append(f'<text class="row-label" x="{fmt(cx - R * 1.55)}" y="{fmt(cy + 5)}" '
                       f'text-anchor="middle" font-size="14" font-weight="600" '
                       f'fill="#f5ecd6">{chr(ord("a") + L)}</text>')
        out.append("</svg>")
        return "".join(out)

    def legal_targets(self, game: Game, state: State) -> list[str]:
        board = _board(game)
        n = board.num_cells
        acts = game.legal_actions(state)
        singles = acts[acts < 2 * n] // 2
        pairs = acts[(acts >= 2 * n) & (acts < 2 * n + n * n)] - 2 * n
        idx = np.unique(np.concatenate([singles, pairs // n, pairs % n]))
        return [board.names[int(i)] for i in idx]

    def move_cells(self, game: Game, before: State, move: str) -> list[str]:
        """The cells of the stones ``move`` places, read by the game's notation (a pass none).

        Raises:
            NotationError, IllegalMoveError: not a move of the player to move in ``before``
            (``resign`` included: ``safe_move_cells`` gives none for it).
        """
        board = _board(game)
        stones = parse_stones(board, before.player, move)
        return [board.names[c] for c in stones or () if c >= 0]

    def captured_cells(self, game: Game, before: State, after: State) -> list[str]:
        board = _board(game)
        b = _cells(before)
        a = _cells(after)
        return [board.names[int(i)] for i in np.flatnonzero((b != 0) & (a == 0))]

    def builder(self, game: Game, state: State) -> dict[str, Any]:
        if game.is_terminal(state):
            return {"kind": self.kind, "colours": [], "max_stones": 0, "can_pass": False}
        p = game.current_player(state)
        mine = LETTERS[2 * p - 2: 2 * p]
        return {
            "kind": self.kind,
            "colours": [{"letter": c, "name": COLOUR_STYLE[c][0], "mark": COLOUR_STYLE[c][3]}
                        for c in mine],
            "max_stones": 1 if state.ply == 0 else 2,
            # the rules say when a pass is legal (never in the race, nor on the first turn)
            "can_pass": game.is_legal(state, game.parse_action(state, "pass")),
        }

    def legend(self, game: Game) -> list[dict[str, str]]:
        return [{"letter": c, "name": COLOUR_STYLE[c][0], "mark": COLOUR_STYLE[c][3],
                 "player": "1" if c in "RY" else "2", "swatch": swatch(c)} for c in LETTERS]

    def score_track(self, game: Game, state: State) -> dict[str, Any]:
        s = list(game.scores(state))
        colours = list(self.player_classes)
        if getattr(game, "territory", False):
            return {"scores": s, "target": None, "scale": _board(game).num_cells,
                    "colours": colours,
                    "label": "stones on the board plus territory (empty regions only one "
                             "player's stones border)"}
        t = game.params["target"]
        return {"scores": s, "target": t, "scale": t, "colours": colours,
                "label": f"captures, first to {t} wins"}

    def _territory(self, game: Game, state: State) -> np.ndarray | None:
        """Who owns each empty cell, shown once a territory game is over (its rules say)."""
        owners_of = getattr(game, "territory_owners", None)
        if owners_of is None or not game.is_terminal(state):
            return None
        owners: np.ndarray = owners_of(state)
        return owners

    def mark_legend(self, game: Game) -> list[dict[str, str]]:
        marks = [{"name": "last move", "swatch": _mark_swatch(_LAST_RING)},
                 {"name": "captured", "swatch": _mark_swatch(_CAPTURED)},
                 {"name": "hint", "swatch": _mark_swatch(_HINT_RING)},
                 {"name": "legal", "swatch": _mark_swatch(_TARGET_DOT)}]
        if getattr(game, "territory", False):
            for p in (1, 2):
                marks.append({"name": f"player {p}'s territory (at the end)",
                              "swatch": _mark_swatch(_territory_mark(0, 0, p), TERRITORY_FILL[p])})
        return marks

    def reason_words(self, game: Game, state: State, reason: str, winner: int,
                     names: tuple[str, str]) -> str:
        s1, s2 = game.scores(state)
        if reason == "target" and winner:
            given = (game.params.get("start_scores") or (0, 0))[winner - 1]
            score = (s1, s2)[winner - 1]
            if given:  # a handicap's points are not captures
                return (f"{names[winner - 1]} captured {_stones(score - given)} and was given "
                        f"{given} at the start: {score} (the target is {game.params['target']})")
            return (f"{names[winner - 1]} captured {_stones(score)} "
                    f"(the target is {game.params['target']})")
        if reason == "no-empty-cell":
            return f"the board is full; captures {s1} to {s2}"
        if reason in ("two-passes", "max-turns"):
            why = "both players passed" if reason == "two-passes" else \
                f"the turn limit ({state.ply}) was reached"
            tie = ""
            if s1 == s2 and winner:
                first = getattr(state, "first_passer", 0)
                tie = (f"; a tie goes to the first to pass, {names[winner - 1]}" if first
                       else "; a tie goes to player 2 when nobody passed")
            return f"{why}; stones plus territory {s1} to {s2}{tie}"
        return super().reason_words(game, state, reason, winner, names)


def _stones(n: int) -> str:
    return f"{n} stone" if n == 1 else f"{n} stones"


_LAST_RING = (f'<circle r="{fmt(R * 0.84)}" fill="none" stroke="#0072B2" '
              'stroke-width="3.2"/>')
_HINT_RING = (f'<circle r="{fmt(R * 0.9)}" fill="none" stroke="#009E73" stroke-width="4" '
              'stroke-dasharray="6 4"/>')
_CAPTURED = (f'<path d="M{fmt(-R * 0.32)},{fmt(-R * 0.32)}L{fmt(R * 0.32)},{fmt(R * 0.32)}'
             f'M{fmt(R * 0.32)},{fmt(-R * 0.32)}L{fmt(-R * 0.32)},{fmt(R * 0.32)}" '
             'stroke="#CC79A7" stroke-width="4" stroke-linecap="round"/>')
_TARGET_DOT = '<circle r="4" fill="#0072B2" opacity="0.55"/>'


def _territory_mark(cx: float, cy: float, owner: int) -> str:
    """A small mark of the owner's first stone shape: a dot for player 1, a square for 2."""
    if owner == 1:
        return (f'<circle class="territory-mark" cx="{fmt(cx)}" cy="{fmt(cy)}" r="5" '
                'fill="#D55E00"/>')
    return (f'<rect class="territory-mark" x="{fmt(cx - 4.5)}" y="{fmt(cy - 4.5)}" width="9" '
            'height="9" fill="#222222"/>')


def _mark_swatch(mark: str, fill: str = "#EBD9AE", size: int = 28) -> str:
    """A legend key: one cell with ``mark`` drawn as on the board."""
    scale = fmt(size / (2 * R + 4))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="swatch" width="{size}" '
            f'height="{size}" viewBox="{fmt(-size / 2)} {fmt(-size / 2)} {size} {size}" '
            f'aria-hidden="true"><g transform="scale({scale})">'
            f'<polygon points="{hex_points(0, 0, R - 0.6)}" fill="{fill}" stroke="#8a7046" '
            f'stroke-width="1.3"/>{mark}</g></svg>')


VIEW = HexColoursView()
