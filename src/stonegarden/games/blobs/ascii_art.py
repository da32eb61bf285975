"""ASCII pictures of Blobs dice in the style of the play-by-email server that hosted the game
(gamerz.net pbmserv): each die a framed 7 x 5 character block, red ``o``, blue ``x``, white
``.``; an empty cell is blank. The server's Red ("O side") face looks like this::

    +oo---+
    oooo..|
    |.ooo.|
    |..oooo
    +---oo+

The blocks are computed from the lattice-point model (two discs round opposite corners), not
copied from pictures, so every block shows the colour of each half-edge next to its corner and
the blocks of neighbouring dice match along their edges.

The diagram adds file letters above the blocks, rank numbers beside them and a status line, and
:func:`parse_blocks` reads it back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache

from ...errors import NotationError, quote
from .lattice import BLUE, FACE_MIXED, HALF, PLACEMENTS, RED, SIDE, WHITE, corner_colours, face_of
from .notation import FILES

WIDTH, HEIGHT = 7, 5
CHARS = {RED: "o", BLUE: "x"}
#: the server's discs reach a little past the edge midpoints on its coarse character grid; this
#: radius reproduces its three face pictures character for character
DISC_RADIUS = 0.54
EMPTY_BLOCK = (" " * WIDTH,) * HEIGHT
_LABEL = 4  # characters left of the blocks: the rank number, right-aligned, and a space

Placements = Mapping[tuple[int, int], int]


@cache
def block(r: int, c: int, placement: int) -> tuple[str, ...]:
    """The 5 lines of 7 characters showing ``placement`` on cell (r, c), as the server drew it.

    The frame is ``+`` at the corners and ``-``/``|`` along white stretches of the edges; a
    coloured stretch of edge, like the coloured inside, shows ``o`` or ``x``; white inside is
    ``.``. Character (x, y) sits at (x / 6, y / 4) of the unit square; it lies in a disc when it
    is closer than :data:`DISC_RADIUS` to the corner the disc is centred on: the white corners of
    a Red or Blue face (whose neck is coloured), the coloured corners of a Mixed face (whose neck
    is white).
    """
    nw, ne, se, sw = corner_colours(r, c, placement)
    corners = (((0.0, 0.0), nw), ((1.0, 0.0), ne), ((1.0, 1.0), se), ((0.0, 1.0), sw))
    mixed = face_of(placement) == FACE_MIXED
    disc_corners = [(xy, col) for xy, col in corners if (col != WHITE) == mixed]
    neck = WHITE if mixed else next(col for _, col in corners if col != WHITE)
    lines = []
    for y in range(HEIGHT):
        row = []
        for x in range(WIDTH):
            u, v = x / (WIDTH - 1), y / (HEIGHT - 1)
            colour = neck
            for (cx, cy), col in disc_corners:
                if (u - cx) ** 2 + (v - cy) ** 2 < DISC_RADIUS**2:
                    colour = col
            on_x_edge, on_y_edge = x in (0, WIDTH - 1), y in (0, HEIGHT - 1)
            if on_x_edge and on_y_edge:
                row.append("+")
            elif colour != WHITE:
                row.append(CHARS[colour])
            else:
                row.append("-" if on_y_edge else "|" if on_x_edge else ".")
        lines.append("".join(row))
    return tuple(lines)


def area_of(placements: Placements, margin: int) -> tuple[int, int, int, int]:
    """Rows and columns (r0, r1, c0, c1) of the dice plus ``margin``, clipped to the board."""
    rows = [r for r, _ in placements] or [0]
    cols = [c for _, c in placements] or [0]
    return (max(min(rows) - margin, -HALF), min(max(rows) + margin, HALF),
            max(min(cols) - margin, -HALF), min(max(cols) + margin, HALF))


def ascii_board(placements: Placements, margin: int = 1, labels: bool = True) -> str:
    """The dice of ``placements`` ((r, c) -> placement code) as 7 x 5 blocks over their
    bounding box widened by ``margin`` cells, with file letters and rank numbers if ``labels``."""
    r0, r1, c0, c1 = area_of(placements, margin)
    pad = " " * _LABEL if labels else ""
    lines = []
    if labels:
        lines.append((pad + "".join(FILES[c + HALF].center(WIDTH) for c in range(c0, c1 + 1)))
                     .rstrip())
    for r in range(r0, r1 + 1):
        for j in range(HEIGHT):
            label = pad
            if labels and j == HEIGHT // 2:
                label = f"{HALF + 1 - r:>{_LABEL - 1}} "
            parts = [
                (block(r, c, placements[(r, c)]) if (r, c) in placements else EMPTY_BLOCK)[j]
                for c in range(c0, c1 + 1)
            ]
            lines.append((label + "".join(parts)).rstrip())
    return "\n".join(lines)


_HEADER = re.compile(r"[a-o](?: +[a-o])*")


def _shifted_back(lines: list[str]) -> list[str]:
    """``lines`` moved back to the columns :func:`ascii_board` draws them in when all were
    indented alike (a diagram pasted into an indented string): the header's first file letter
    says by how much."""
    header = lines[0]
    shift = len(header) - len(header.lstrip()) - (_LABEL + WIDTH // 2)
    prefix = header[:shift] if shift > 0 else ""
    if prefix and all(line.startswith(prefix) or not line.strip() for line in lines):
        return [line[shift:] for line in lines]
    return lines


def parse_blocks(lines: list[str], source: str) -> dict[tuple[int, int], int]:
    """Read the labelled blocks of :func:`ascii_board` back into placements.

    Raises:
        NotationError: a missing or inconsistent file header or rank label, a wrong number of
        lines, or a block that is neither an empty cell nor a die drawn on that cell.
    """
    if not lines or not _HEADER.fullmatch(lines[0].strip()):
        raise NotationError(f"{quote(source)}: the first line must list the files (e.g. 'g  h  i')")
    lines = _shifted_back(lines)
    files = lines[0].split()
    c0 = FILES.index(files[0]) - HALF
    if "".join(files) != FILES[c0 + HALF: c0 + HALF + len(files)]:
        raise NotationError(f"{quote(source)}: the files {' '.join(files)!r} are not consecutive")
    body = lines[1:]
    if not body or len(body) % HEIGHT:
        raise NotationError(
            f"{quote(source)}: {len(body)} lines of blocks, expected a multiple of {HEIGHT}"
        )
    width = _LABEL + WIDTH * len(files)
    placements: dict[tuple[int, int], int] = {}
    previous_rank = None
    for k in range(len(body) // HEIGHT):
        rows = [line.ljust(width) for line in body[HEIGHT * k: HEIGHT * (k + 1)]]
        if any(len(line) > width for line in rows):
            raise NotationError(f"{quote(source)}: a line of block row {k + 1} is too long")
        label = rows[HEIGHT // 2][:_LABEL].strip()
        if not re.fullmatch(r"[0-9]{1,2}", label) or not 1 <= int(label) <= SIDE:
            raise NotationError(f"{quote(source)}: block row {k + 1} has no rank number 1..15")
        rank = int(label)
        if previous_rank is not None and rank != previous_rank - 1:
            raise NotationError(f"{quote(source)}: rank {rank} does not follow rank {previous_rank}")
        previous_rank = rank
        if any(line[:_LABEL].strip() for j, line in enumerate(rows) if j != HEIGHT // 2):
            raise NotationError(f"{quote(source)}: stray text left of the blocks of rank {rank}")
        r = HALF + 1 - rank
        for n in range(len(files)):
            c = c0 + n
            start = _LABEL + WIDTH * n
            shown = tuple(line[start: start + WIDTH] for line in rows)
            if not "".join(shown).strip():
                continue
            for p in range(len(PLACEMENTS)):
                if block(r, c, p) == shown:
                    placements[(r, c)] = p
                    break
            else:
                raise NotationError(
                    f"{quote(source)}: the block at {FILES[c + HALF]}{rank} is not a die "
                    f"(expected a Red, Blue or Mixed face drawn for that cell)"
                )
    return placements
