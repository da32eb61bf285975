"""SVG pictures of Blobs: each die a square with its two quarter-circle arcs and its coloured
regions (red and blue discs or necks on white), drawn from the lattice-point model.

Colour-blind safe: the Okabe-Ito vermillion and blue, and red regions carry dots while blue ones
carry stripes, so the two never differ by hue alone. Every cell element has ``data-cell`` (its
name, e.g. ``h8``) for the web app; dice also carry ``data-placement`` and ``data-face``, and the
empty cells next to a die have the class ``frontier``.
"""

from __future__ import annotations

from collections.abc import Mapping

from .ascii_art import area_of
from .lattice import (
    BLUE,
    FACE_MIXED,
    FACES,
    HALF,
    PLACEMENTS,
    RED,
    WHITE,
    corner_colours,
    face_of,
)
from .notation import FILES, cell_name

FILL = {RED: "url(#blobs-red)", BLUE: "url(#blobs-blue)", WHITE: "#ffffff"}
FACE_NAMES = {0: "Red", 1: "Blue", 2: "Mixed"}
DEFS = (
    "<defs>"
    '<pattern id="blobs-red" patternUnits="userSpaceOnUse" width="8" height="8">'
    '<rect width="8" height="8" fill="#D55E00"/>'
    '<circle cx="4" cy="4" r="1.4" fill="#ffffff" fill-opacity="0.6"/></pattern>'
    '<pattern id="blobs-blue" patternUnits="userSpaceOnUse" width="8" height="8" '
    'patternTransform="rotate(45)">'
    '<rect width="8" height="8" fill="#0072B2"/>'
    '<rect width="2.5" height="8" fill="#ffffff" fill-opacity="0.45"/></pattern>'
    "</defs>"
)


def _num(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


COLOUR_WORDS = {RED: "red", BLUE: "blue"}
CORNER_WORDS = ("north-west", "north-east", "south-east", "south-west")


def die_words(r: int, c: int, placement: int) -> str:
    """A die in words, for people who cannot see it: its face and the colours at its two
    coloured corners ("Mixed face: red north-west, blue south-east")."""
    corners = [f"{COLOUR_WORDS[col]} {CORNER_WORDS[i]}"
               for i, col in enumerate(corner_colours(r, c, placement)) if col != WHITE]
    return f"{FACE_NAMES[face_of(placement)]} face: {', '.join(corners)}"


def die_elements(r: int, c: int, placement: int, x: float, y: float, size: float) -> str:
    """The SVG group of one die on cell (r, c) drawn in the square at (x, y) of side ``size``.

    The arcs (radius size / 2) are centred on the disc corners: the white corners of a Red or
    Blue face, whose neck is coloured; the coloured corners of a Mixed face, whose neck is white.
    """
    corners = list(zip(((x, y), (x + size, y), (x + size, y + size), (x, y + size)),
                       corner_colours(r, c, placement)))
    mixed = face_of(placement) == FACE_MIXED
    discs = [(xy, col) for xy, col in corners if (col != WHITE) == mixed]
    neck = WHITE if mixed else next(col for _, col in corners if col != WHITE)
    h = size / 2
    parts = [f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(size)}" height="{_num(size)}" '
             f'fill="{FILL[neck]}"/>']
    arcs = []
    for (cx, cy), col in discs:
        # the arc runs between the midpoints of the two edges meeting at the corner
        sx = cx + (h if cx == x else -h)
        ey = cy + (h if cy == y else -h)
        v1 = (sx - cx, 0.0)
        v2 = (0.0, ey - cy)
        sweep = 1 if v1[0] * v2[1] - v1[1] * v2[0] > 0 else 0
        arc = f"A{_num(h)} {_num(h)} 0 0 {sweep} {_num(cx)} {_num(ey)}"
        parts.append(f'<path d="M{_num(cx)} {_num(cy)} L{_num(sx)} {_num(cy)} {arc} Z" '
                     f'fill="{FILL[col]}"/>')
        arcs.append(f"M{_num(sx)} {_num(cy)} {arc}")
    parts.append(f'<path d="{" ".join(arcs)}" fill="none" stroke="#222222" '
                 f'stroke-width="{_num(max(1.0, size / 32))}"/>')
    parts.append(f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(size)}" height="{_num(size)}" '
                 'fill="none" stroke="#555555" stroke-width="1"/>')
    name = cell_name(r, c)
    face = FACES[face_of(placement)]
    title = f"{name}: {FACE_NAMES[face_of(placement)]} face ({PLACEMENTS[placement]})"
    return (f'<g class="die" data-cell="{name}" data-placement="{PLACEMENTS[placement]}" '
            f'data-face="{face}"><title>{title}</title>{"".join(parts)}</g>')


def board_svg(placements: Mapping[tuple[int, int], int], cell_size: int = 48, margin: int = 1,
              labels: bool = True) -> str:
    """The dice of ``placements`` ((r, c) -> placement code) over their bounding box widened by
    ``margin`` empty cells, with file letters and rank numbers if ``labels``."""
    r0, r1, c0, c1 = area_of(placements, margin)
    pad = cell_size * 0.6 if labels else 2.0
    width = pad + (c1 - c0 + 1) * cell_size + 2
    height = pad + (r1 - r0 + 1) * cell_size + 2
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="blobs-board" '
           f'width="{_num(width)}" height="{_num(height)}" '
           f'viewBox="0 0 {_num(width)} {_num(height)}">', DEFS]
    font = f'font-family="sans-serif" font-size="{_num(cell_size * 0.3)}" fill="#333333"'
    if labels:
        for c in range(c0, c1 + 1):
            cx = pad + (c - c0 + 0.5) * cell_size
            out.append(f'<text x="{_num(cx)}" y="{_num(pad * 0.7)}" text-anchor="middle" '
                       f"{font}>{FILES[c + HALF]}</text>")
        for r in range(r0, r1 + 1):
            cy = pad + (r - r0 + 0.5) * cell_size
            out.append(f'<text x="{_num(pad * 0.5)}" y="{_num(cy)}" text-anchor="middle" '
                       f'dominant-baseline="central" {font}>{HALF + 1 - r}</text>')
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            x = pad + (c - c0) * cell_size
            y = pad + (r - r0) * cell_size
            if (r, c) in placements:
                out.append(die_elements(r, c, placements[(r, c)], x, y, cell_size))
                continue
            frontier = any(nb in placements
                           for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)))
            cls = "cell empty frontier" if frontier else "cell empty"
            out.append(f'<rect class="{cls}" data-cell="{cell_name(r, c)}" x="{_num(x)}" '
                       f'y="{_num(y)}" width="{cell_size}" height="{cell_size}" '
                       f'fill="{"#f4f4f4" if frontier else "none"}" stroke="#cccccc" '
                       'stroke-dasharray="3 3"/>')
    out.append("</svg>")
    return "".join(out)


def blobs_svg(game: object, state: object, cell_size: int = 48) -> str:
    """The position of ``state`` (a ``BlobsState`` of ``game``) as an SVG document.

    Raises:
        TypeError: ``state`` is not a Blobs state.
    """
    from .rules import BlobsState

    if not isinstance(state, BlobsState):
        raise TypeError(f"blobs_svg draws Blobs states, not {type(state).__name__}")
    return board_svg(state.placements(), cell_size=cell_size)


def face_svg(placement: int, size: int = 96, r: int = 0, c: int = 0) -> str:
    """One die alone (for the docs): ``placement`` on cell (r, c), ``size`` pixels wide."""
    s = size + 4
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{s}" height="{s}" '
            f'viewBox="0 0 {s} {s}">{DEFS}{die_elements(r, c, placement, 2, 2, size)}</svg>')

