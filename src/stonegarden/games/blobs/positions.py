"""Checks that a written Blobs position (position text or diagram) is one a game can reach.

These are the geometric and bookkeeping checks; ``rules.BlobsGame`` adds the ones that need the
kernels (no cell left for an auto move, a rolled face that fits).
"""

from __future__ import annotations

from collections.abc import Callable

from ...errors import PositionError
from .lattice import OPENING_PLACEMENT, PLACEMENTS, coloured_corners
from .notation import cell_name, full_text
from .text import PositionFields

Placements = dict[tuple[int, int], int]


def check_fields(f: PositionFields, dice: int, max_grid: int, tumbling: bool,
                 source: str) -> None:
    """Raises: PositionError naming ``source`` when the position cannot arise in a game with
    these parameters."""

    def bad(why: str) -> PositionError:
        return PositionError(f"position {source!r}: {why}")

    if f.placements.get((0, 0)) != OPENING_PLACEMENT:
        raise bad("the opening die h8:RB is missing")
    check_colours(f.placements, bad)
    check_connected(f.placements, bad)
    rows = [r for r, _ in f.placements]
    cols = [c for _, c in f.placements]
    if max(rows) - min(rows) >= max_grid or max(cols) - min(cols) >= max_grid:
        raise bad(f"the dice span more than {max_grid} x {max_grid}")
    placed = len(f.placements)
    if placed + f.dice_left != dice:
        raise bad(f"{placed} dice placed and {f.dice_left} left, but the pool has {dice}")
    # record entries alternate Blue, Red (each preceded by a roll under Tumbling Dice)
    if tumbling:
        # '-': no roll is due because the game is over (checked with the kernels), which
        # happens after a placement, at an even ply
        if (f.roll in ("?", "-")) != (f.ply % 2 == 0):
            raise bad(f"at ply {f.ply} a roll is {'due' if f.ply % 2 == 0 else 'made'}")
        moves = f.ply // 2
    else:
        if f.roll != "-":
            raise bad(f"roll {f.roll!r} without Tumbling Dice")
        moves = f.ply
    expected = 2 if moves % 2 == 0 else 1
    if f.to_place != expected:
        raise bad(f"at ply {f.ply} player {expected} places next, not {f.to_place}")
    if moves > placed - 1:
        raise bad(f"{moves} moves cannot have placed only {placed - 1} dice")


def check_colours(placements: Placements, bad: Callable[[str], PositionError]) -> None:
    """Raises: PositionError when two dice show different colours at one lattice point."""
    fixed: dict[tuple[int, int], str] = {}
    for (r, c), p in sorted(placements.items()):
        for point, colour in zip(coloured_corners(r, c), PLACEMENTS[p]):
            if fixed.setdefault(point, colour) != colour:
                raise bad(f"{full_text(r, c, p)} puts {colour} on lattice point {point} "
                          f"where another die shows {fixed[point]}")


def check_connected(placements: Placements, bad: Callable[[str], PositionError]) -> None:
    """Raises: PositionError when a die is not joined by edges to the opening die."""
    seen = {(0, 0)}
    todo = [(0, 0)]
    while todo:
        r, c = todo.pop()
        for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if nb in placements and nb not in seen:
                seen.add(nb)
                todo.append(nb)
    loose = sorted(set(placements) - seen)
    if loose:
        raise bad(f"the die on {cell_name(*loose[0])} is not joined by edges to the others")
