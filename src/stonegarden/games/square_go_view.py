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
from ..errors import IllegalMoveError
from ..web.views.base import BoardView, Marks
from ..web.views.svgkit import fmt, svg_open

STEP = 36.0
COLUMNS = "ABCDEFGHJKLMNOPQRST"


def star_points(size: int) -> list[tuple[int, int]]:
    """The usual hoshi: the 3-3 points (2-2 below 13x13) and, on odd boards, the centre (5 on
    9x9 and 13x13); from 15x15 the side points too (9 on 19x19)."""
    if size < 7:
        return [(size // 2, size // 2)] if size % 2 else []
    e = 2 if size < 13 else 3
    corners = [(c, r) for c in (e, size - 1 - e) for r in (e, size - 1 - e)]
    if size % 2 == 0:
        return corners
    m = size // 2
    sides = [(m, e), (m, size - 1 - e), (e, m), (size - 1 - e, m)] if size >= 15 else []
    return [*corners, *sides, (m, m)]


class _Points(Protocol):
    size: int
    names: Sequence[str]
    index: Mapping[str, int]


class _OnPoints(Protocol):
    board: _Points


class _WithBoard(Protocol):
    board: bytes


def points_of(game: Game) -> _Points:
    """The board this view reads (``supports`` checked that the game has one)."""
    return cast(_OnPoints, game).board


def _cells(state: State) -> np.ndarray:
    return np.frombuffer(cast(_WithBoard, state).board, dtype=np.int8)


class SquareView(BoardView):
    kind = "point"
    start_caption = "The empty board, with its columns' letters and rows' numbers"
    click_to_play = True
    player_classes = ("p-black", "p-white")
    score_name = "captures"  # Free Go's scores (Bridge Go keeps none: its view says so)

    def supports(self, game: Game) -> bool:
        board = getattr(game, "board", None)
        return board is not None and hasattr(board, "size") and hasattr(board, "names") \
            and len(board.names) == board.size * board.size

    def player_names(self, game: Game) -> tuple[str, str]:
        return ("Black", "White")

    def player_colours(self, game: Game) -> tuple[str, str]:
        return ("black stones", "white stones")

    def svg(self, game: Game, state: State, marks: Marks) -> str:
        size = int(points_of(game).size)
        names = points_of(game).names
        cells = _cells(state)
        span = STEP * (size - 1)
        # the labels sit outside the stones of the edge lines (a stone reaches 0.47 STEP)
        pad = STEP * 1.3
        out = [svg_open("board square-board", -pad, -pad, span + 2 * pad, span + 2 * pad,
                        f"{game.title} board, {size}x{size}"), _defs()]
        out.append(f'<rect class="wood" x="{fmt(-pad * 0.95)}" y="{fmt(-pad * 0.95)}" '
                   f'width="{fmt(span + 1.9 * pad)}" height="{fmt(span + 1.9 * pad)}" rx="6" '
                   'fill="#DDB36A" stroke="#8a6a2e" stroke-width="2"/>')
        for i in range(size):
            p = fmt(i * STEP)
            out.append(f'<line x1="0" y1="{p}" x2="{fmt(span)}" y2="{p}" stroke="#3b2a12" '
                       'stroke-width="1.2"/>')
            out.append(f'<line x1="{p}" y1="0" x2="{p}" y2="{fmt(span)}" stroke="#3b2a12" '
                       'stroke-width="1.2"/>')
            for y in (-STEP * 0.72, span + STEP * 0.72 + 10):
                out.append(f'<text class="col-label" x="{p}" y="{fmt(y)}" text-anchor="middle" '
                           f'font-size="13" fill="#3b2a12">{COLUMNS[i]}</text>')
            for x in (-STEP * 0.88, span + STEP * 0.88):
                out.append(f'<text class="row-label" x="{fmt(x)}" '
                           f'y="{fmt(span - i * STEP + 4.5)}" text-anchor="middle" '
                           f'font-size="13" fill="#3b2a12">{i + 1}</text>')
        for c, r in star_points(size):
            out.append(f'<circle class="star" cx="{fmt(c * STEP)}" cy="{fmt(span - r * STEP)}" '
                       'r="3.5" fill="#3b2a12"/>')
        chain = self._decisive(game, state)
        out.extend(_chain_lines(chain, size, span))
        lost = set(self.no_liberty_cells(game, state))
        taker = self.player_names(game)[game.current_player(state) - 1] if lost else ""
        last, captured = set(marks.last), set(marks.captured)
        targets, hint = set(marks.targets), set(marks.hint)
        for i, name in enumerate(names):
            col, row = i % size, i // size
            x, y = col * STEP, span - row * STEP
            v = int(cells[i])
            cls = ["cell"] + [k for k, s in (("legal", targets), ("last", last),
                                             ("captured", captured), ("hint", hint),
                                             ("decisive", chain)) if name in s]
            content = "BW"[v - 1] if v else ""
            label = self.cell_label(game, name, f"{('black', 'white')[v - 1]} stone" if v else "")
            if name in chain:  # drawn in green: said too
                label += ", in the chain that won"
            if name in lost:  # drawn faded and struck through: said too
                cls.append("no-liberty")
                label += f", no liberty: {taker}'s next move removes it and scores it"
            out.append(f'<g class="{" ".join(cls)}" data-cell="{name}" data-x="{fmt(x)}" '
                       f'data-y="{fmt(y)}" data-content="{content}" role="button" '
                       f'tabindex="-1" aria-label="{label}">'
                       f'<circle class="hit" cx="{fmt(x)}" cy="{fmt(y)}" r="{fmt(STEP / 2)}" '
                       'fill="transparent"/>')
            if v:
                faded = ' opacity="0.5"' if name in lost else ""
                out.append(f'<use href="#sg-pt-{content}" x="{fmt(x)}" y="{fmt(y)}"{faded}/>')
                if name in last:
                    out.append(_last_mark(x, y, v))
                if name in lost:
                    out.append(_no_liberty_mark(x, y, v))
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

    def _decisive(self, game: Game, state: State) -> set[str]:
        """The points drawn as what won the game (a connection game's chain: Bridge Go's view);
        none here."""
        return set()

    def legal_targets(self, game: Game, state: State) -> list[str]:
        names = points_of(game).names
        acts = game.legal_actions(state)
        return [names[int(a)] for a in acts if 0 <= a < len(names)]

    def move_cells(self, game: Game, before: State, move: str) -> list[str]:
        m = move.strip().upper()
        return [m] if m in points_of(game).index else []

    def captured_cells(self, game: Game, before: State, after: State) -> list[str]:
        return _emptied(game, before, after, _cells(before) != 0)

    def self_captured_cells(self, game: Game, before: State, after: State) -> list[str]:
        return _emptied(game, before, after, _cells(before) == game.current_player(before))

    def builder(self, game: Game, state: State) -> dict[str, Any]:
        over = game.is_terminal(state)
        pass_ok = False
        if not over:
            try:
                pass_ok = game.is_legal(state, game.parse_action(state, "pass"))
            except ValueError:
                pass_ok = False
        player = 0 if over else game.current_player(state)
        return {"kind": self.kind, "can_pass": pass_ok, "player": player,
                "ghost": f"sg-pt-{'BW'[player - 1]}" if player else "",
                "refused": {} if over else self.refused_points(game, state)}

    def refused_points(self, game: Game, state: State) -> dict[str, str]:
        """Why each empty point that is no legal move is refused (``{"C3": "it recreates the
        board before the opponent's last move (ko)"}``): a click there says the rule."""
        legal = set(self.legal_targets(game, state))
        cells = _cells(state)
        refused = {}
        for i, name in enumerate(points_of(game).names):
            if cells[i] == 0 and name not in legal:
                try:
                    game.play_text(state, name)
                except IllegalMoveError as exc:
                    refused[name] = exc.reason
        return refused

    def legend(self, game: Game) -> list[dict[str, str]]:
        return [{"letter": "B", "name": "black", "mark": "dark stone", "player": "1",
                 "swatch": swatch("B")},
                {"letter": "W", "name": "white", "mark": "light stone", "player": "2",
                 "swatch": swatch("W")}]

    def mark_legend(self, game: Game) -> list[dict[str, str]]:
        return [{"name": "last move", "swatch": swatch("B", _last_mark(0, 0, 1))},
                {"name": "captured", "swatch": swatch("", _CAPTURED)},
                {"name": "hint", "swatch": swatch("", _HINT)}]

    def reason_words(self, game: Game, state: State, reason: str, winner: int,
                     names: tuple[str, str]) -> str:
        s = game.scores(state)
        if reason == "target" and winner:
            n = s[winner - 1]
            return (f"{names[winner - 1]} captured {n} stone{'' if n == 1 else 's'} "
                    f"(the target is {game.params.get('target')})")
        if reason == "no-legal-move":
            return (f"{names[state.player - 1]} had no legal move; captures "
                    f"{s[0]} to {s[1]}")
        return super().reason_words(game, state, reason, winner, names)


_CAPTURED = ('<path d="M-7,-7L7,7M7,-7L-7,7" stroke="#CC79A7" stroke-width="4" '
             'stroke-linecap="round"/>')
_HINT = ('<circle r="16" fill="none" stroke="#009E73" stroke-width="4" '
         'stroke-dasharray="6 4"/>')
CHAIN_HALO = '<circle r="21" fill="#009E73" opacity="0.75"/>'


def _last_mark(x: float, y: float, v: int) -> str:
    """A ring in the stone's opposite colour: the last move."""
    return (f'<circle class="last-mark" cx="{fmt(x)}" cy="{fmt(y)}" r="{fmt(STEP * 0.2)}" '
            f'fill="none" stroke="{"#ffffff" if v == 1 else "#000000"}" stroke-width="3"/>')


def _no_liberty_mark(x: float, y: float, v: int) -> str:
    """A stroke across a stone without a liberty (drawn faded): it counts for nothing, and the
    opponent's next move removes it. In the stone's own colour, outlined in the other, so that
    it stands out on the faded stone and on the board."""
    d = STEP * 0.33
    line = f'M{fmt(x - d)},{fmt(y + d)}L{fmt(x + d)},{fmt(y - d)}'
    own, other = ("#000000", "#ffffff") if v == 1 else ("#ffffff", "#000000")
    return (f'<path class="no-liberty-mark" d="{line}" stroke="{other}" stroke-width="7" '
            f'stroke-linecap="round"/><path d="{line}" stroke="{own}" stroke-width="3.5" '
            'stroke-linecap="round"/>')


def _chain_lines(chain: set[str], size: int, span: float) -> list[str]:
    """A green band under the stones of the winning chain, along the lines joining them."""
    if not chain:
        return []
    def xy(name: str) -> tuple[float, float]:
        return COLUMNS.index(name[0]) * STEP, span - (int(name[1:]) - 1) * STEP

    out = []
    for name in sorted(chain):
        x, y = xy(name)
        out.append(f'<circle class="chain" cx="{fmt(x)}" cy="{fmt(y)}" r="{fmt(STEP * 0.58)}" '
                   'fill="#009E73" opacity="0.75"/>')
        for other in chain:
            ox, oy = xy(other)
            if abs(ox - x) + abs(oy - y) == STEP and (ox, oy) > (x, y):
                out.append(f'<line class="chain" x1="{fmt(x)}" y1="{fmt(y)}" x2="{fmt(ox)}" '
                           f'y2="{fmt(oy)}" stroke="#009E73" stroke-width="{fmt(STEP * 0.6)}" '
                           'opacity="0.75"/>')
    return out


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


def swatch(letter: str, extra: str = "", size: int = 28, under: bool = False) -> str:
    """A small stand-alone SVG of a stone (``letter`` B or W, or none) with ``extra`` drawn
    over it (or ``under`` it) in board units: the legend's keys."""
    h = size / 2
    stone = f'<use href="#sg-pt-{letter}"/>' if letter else ""
    body = extra + stone if under else stone + extra
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="swatch" width="{size}" '
            f'height="{size}" viewBox="{fmt(-h)} {fmt(-h)} {size} {size}" aria-hidden="true">'
            f'{_defs()}<g transform="scale({fmt(size / (STEP * 1.2 + 4))})">{body}</g></svg>')


VIEW = SquareView()


def _emptied(game: Game, before: State, after: State, held: np.ndarray) -> list[str]:
    """The names of the points ``held`` marks that the move from ``before`` to ``after``
    emptied."""
    return [points_of(game).names[int(i)] for i in np.flatnonzero(held & (_cells(after) == 0))]
