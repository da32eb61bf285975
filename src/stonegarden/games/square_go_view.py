"""Square Go boards (Free Go, Bridge Go): points named as in GTP (columns A..T without I from
the left, rows from the bottom), stones black and white (told apart by lightness, so they are
colour-blind safe by construction). Move builder ``point``: click a point.

The view reads ``game.board`` with ``size`` and ``names`` (index order, index 0 = ``A1``,
``index = row * size + column`` from the bottom left) and ``state.board`` bytes (0 empty, 1
player 1 / Black, 2 player 2 / White), the shape of ``geometry/square.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, cast

import numpy as np

from ..core.protocol import Game, State
from ..web.views.base import BoardView, Marks
from ..web.views.svgkit import fmt, svg_open

STEP = 36.0
COLUMNS = "ABCDEFGHJKLMNOPQRST"


def star_points(size: int) -> list[tuple[int, int]]:
    """The usual hoshi: 3-3 (or 2-2 on small boards) corners, sides and centre when odd."""
    if size < 7:
        return [(size // 2, size // 2)] if size % 2 else []
    e = 2 if size < 13 else 3
    coords = [e, size - 1 - e] + ([size // 2] if size % 2 and size >= 9 else [])
    return [(c, r) for c in coords for r in coords]


class _Points(Protocol):
    size: int
    names: Sequence[str]
    index: Mapping[str, int]


class _OnPoints(Protocol):
    board: _Points


class _WithBoard(Protocol):
    board: bytes


def _board(game: Game) -> _Points:
    """The board this view reads (``supports`` checked that the game has one)."""
    return cast(_OnPoints, game).board


def _cells(state: State) -> np.ndarray:
    return np.frombuffer(cast(_WithBoard, state).board, dtype=np.int8)


class SquareView(BoardView):
    kind = "point"

    def supports(self, game: Game) -> bool:
        board = getattr(game, "board", None)
        return board is not None and hasattr(board, "size") and hasattr(board, "names") \
            and len(board.names) == board.size * board.size

    def cell_names(self, game: Game) -> list[str]:
        return list(_board(game).names)

    def svg(self, game: Game, state: State, marks: Marks) -> str:
        size = int(_board(game).size)
        names = _board(game).names
        cells = _cells(state)
        span = STEP * (size - 1)
        pad = STEP * 1.2
        out = [svg_open("board square-board", -pad, -pad, span + 2 * pad, span + 2 * pad,
                        f"{game.title} board, {size}x{size}"), _defs()]
        out.append(f'<rect x="{fmt(-pad * 0.8)}" y="{fmt(-pad * 0.8)}" '
                   f'width="{fmt(span + 1.6 * pad)}" height="{fmt(span + 1.6 * pad)}" rx="6" '
                   'fill="#DDB36A" stroke="#8a6a2e" stroke-width="2"/>')
        for i in range(size):
            p = fmt(i * STEP)
            out.append(f'<line x1="0" y1="{p}" x2="{fmt(span)}" y2="{p}" stroke="#3b2a12" '
                       'stroke-width="1.2"/>')
            out.append(f'<line x1="{p}" y1="0" x2="{p}" y2="{fmt(span)}" stroke="#3b2a12" '
                       'stroke-width="1.2"/>')
            out.append(f'<text class="col-label" x="{p}" y="{fmt(-pad * 0.45)}" '
                       f'text-anchor="middle" font-size="13" fill="#3b2a12">{COLUMNS[i]}</text>')
            out.append(f'<text class="row-label" x="{fmt(-pad * 0.5)}" '
                       f'y="{fmt(span - i * STEP + 4)}" text-anchor="middle" font-size="13" '
                       f'fill="#3b2a12">{i + 1}</text>')
        for c, r in star_points(size):
            out.append(f'<circle cx="{fmt(c * STEP)}" cy="{fmt(span - r * STEP)}" r="3.5" '
                       'fill="#3b2a12"/>')
        last, captured = set(marks.last), set(marks.captured)
        targets, hint = set(marks.targets), set(marks.hint)
        for i, name in enumerate(names):
            col, row = i % size, i // size
            x, y = col * STEP, span - row * STEP
            v = int(cells[i])
            cls = ["cell"] + [k for k, s in (("legal", targets), ("last", last),
                                             ("captured", captured), ("hint", hint)) if name in s]
            out.append(f'<g class="{" ".join(cls)}" data-cell="{name}" data-x="{fmt(x)}" '
                       f'data-y="{fmt(y)}" data-content="{"BW"[v - 1] if v else ""}">'
                       f'<circle class="hit" cx="{fmt(x)}" cy="{fmt(y)}" r="{fmt(STEP / 2)}" '
                       'fill="transparent"/>')
            if v:
                out.append(f'<use href="#sg-pt-{"BW"[v - 1]}" x="{fmt(x)}" y="{fmt(y)}"/>')
                if name in last:
                    out.append(f'<circle cx="{fmt(x)}" cy="{fmt(y)}" r="{fmt(STEP * 0.17)}" '
                               f'fill="{"#ffffff" if v == 1 else "#000000"}" class="last-dot"/>')
            if name in captured:
                d = STEP * 0.2
                out.append(f'<path class="captured-mark" d="M{fmt(x - d)},{fmt(y - d)}L'
                           f'{fmt(x + d)},{fmt(y + d)}M{fmt(x + d)},{fmt(y - d)}L{fmt(x - d)},'
                           f'{fmt(y + d)}" stroke="#CC79A7" stroke-width="4" '
                           'stroke-linecap="round"/>')
            if name in hint:
                out.append(f'<circle class="hint-ring" cx="{fmt(x)}" cy="{fmt(y)}" '
                           f'r="{fmt(STEP * 0.47)}" fill="none" stroke="#009E73" '
                           'stroke-width="4" stroke-dasharray="6 4"/>')
            out.append("</g>")
        out.append("</svg>")
        return "".join(out)

    def legal_targets(self, game: Game, state: State) -> list[str]:
        names = _board(game).names
        acts = game.legal_actions(state)
        return [names[int(a)] for a in acts if 0 <= a < len(names)]

    def move_cells(self, game: Game, before: State, move: str) -> list[str]:
        m = move.strip().upper()
        return [m] if m in _board(game).index else []

    def captured_cells(self, game: Game, before: State, after: State) -> list[str]:
        names = _board(game).names
        b = _cells(before)
        a = _cells(after)
        return [names[int(i)] for i in np.flatnonzero((b != 0) & (a == 0))]

    def builder(self, game: Game, state: State) -> dict[str, Any]:
        over = game.is_terminal(state)
        pass_ok = False
        if not over:
            try:
                pass_ok = game.is_legal(state, game.parse_action(state, "pass"))
            except ValueError:
                pass_ok = False
        return {"kind": self.kind, "can_pass": pass_ok,
                "player": 0 if over else game.current_player(state)}

    def legend(self, game: Game) -> list[dict[str, str]]:
        return [{"letter": "B", "name": "black", "mark": "dark stone", "player": "1",
                 "swatch": _swatch("B")},
                {"letter": "W", "name": "white", "mark": "light stone", "player": "2",
                 "swatch": _swatch("W")}]


def _defs() -> str:
    s = STEP * 0.47
    return (
        '<defs><radialGradient id="sg-pt-grad-B" cx="35%" cy="30%" r="75%">'
        '<stop offset="0" stop-color="#777"/><stop offset="1" stop-color="#111"/></radialGradient>'
        '<radialGradient id="sg-pt-grad-W" cx="35%" cy="30%" r="75%">'
        '<stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#c9c9c9"/>'
        '</radialGradient>'
        f'<g id="sg-pt-B"><circle cx="1.5" cy="2" r="{fmt(s)}" fill="#000" opacity="0.3"/>'
        f'<circle r="{fmt(s)}" fill="url(#sg-pt-grad-B)" stroke="#000" stroke-width="1"/></g>'
        f'<g id="sg-pt-W"><circle cx="1.5" cy="2" r="{fmt(s)}" fill="#000" opacity="0.3"/>'
        f'<circle r="{fmt(s)}" fill="url(#sg-pt-grad-W)" stroke="#555" stroke-width="1"/></g>'
        '</defs>'
    )


def _swatch(letter: str, size: int = 28) -> str:
    h = size / 2
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="swatch" width="{size}" '
            f'height="{size}" viewBox="{fmt(-h)} {fmt(-h)} {size} {size}">{_defs()}'
            f'<g transform="scale({fmt(size / (STEP + 4))})"><use href="#sg-pt-{letter}"/></g>'
            '</svg>')


VIEW = SquareView()
