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
    """A small stand-alone SVG of one stone (legend and colour buttons)."""
    half = size / 2
    scale = fmt(size / (2 * R * 0.74 + 4))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="swatch" width="{size}" '
            f'height="{size}" viewBox="{fmt(-half)} {fmt(-half)} {size} {size}">'
            f'{stone_defs()}<g transform="scale({scale})"><use href="#sg-stone-{letter}"/></g>'
            '</svg>')


class HexColoursView(BoardView):
    kind = "hex-two-colour"

    def supports(self, game: Game) -> bool:
        return isinstance(getattr(game, "board", None), HexBoard)

    def cell_names(self, game: Game) -> list[str]:
        return list(_board(game).names)

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
            out.append(
                f'<g class="{" ".join(cls)}" data-cell="{name}" data-x="{fmt(cx)}" '
                f'data-y="{fmt(cy)}" data-content="{content}">'
                f'<polygon points="{hex_points(cx, cy, R - 0.6)}" fill="#EBD9AE" '
                f'stroke="#8a7046" stroke-width="1.3"/>'
            )
            if v:
                out.append(f'<use href="#sg-stone-{content}" x="{fmt(cx)}" y="{fmt(cy)}"/>')
            elif show_names and name not in captured:
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
        board = _board(game)
        if move.strip().lower() in ("pass", "resign"):
            return []
        return [board.names[board.cell(part.strip()[1:])] for part in move.split(",")]

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
            "can_pass": bool(getattr(game, "territory", False)) and state.ply > 0,
        }

    def legend(self, game: Game) -> list[dict[str, str]]:
        return [{"letter": c, "name": COLOUR_STYLE[c][0], "mark": COLOUR_STYLE[c][3],
                 "player": "1" if c in "RY" else "2", "swatch": swatch(c)} for c in LETTERS]

    def score_track(self, game: Game, state: State) -> dict[str, Any]:
        s = list(game.scores(state))
        if getattr(game, "territory", False):
            return {"scores": s, "target": None, "scale": _board(game).num_cells,
                    "label": "territory (cells each player owns)"}
        t = game.params["target"]
        return {"scores": s, "target": t, "scale": t, "label": f"captures, first to {t} wins"}


VIEW = HexColoursView()
