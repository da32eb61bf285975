"""SGF (FF[4], GM[1]) export for games drawn on square boards (Free Go, Bridge Go).

SGF points are two letters, column then row, both from ``a`` at the top left; GTP names count
rows from the bottom, so row ``r`` (1-based from the bottom) becomes ``chr(96 + size - r + 1)``.
"""

from __future__ import annotations

from ..core.protocol import Game
from ..errors import NotationError

COLUMNS = "ABCDEFGHJKLMNOPQRST"


def sgf_point(name: str, size: int) -> str:
    """``D4`` on a 9×9 board -> ``df``.

    Raises:
        NotationError: not a point of the board.
    """
    key = name.strip().upper()
    col = COLUMNS.find(key[:1]) if key else -1
    try:
        row = int(key[1:])
    except ValueError:
        raise NotationError(f"{name!r} is not a point name") from None
    if not 0 <= col < size or not 1 <= row <= size:
        raise NotationError(f"{name!r} is not on a {size}x{size} board")
    return chr(97 + col) + chr(97 + size - row)


def to_sgf(game: Game, moves: list[str], winner: int | None, reason: str | None) -> str:
    """The game as one SGF tree; ``pass`` is an empty move, ``resign`` goes into ``RE``.

    Raises:
        NotationError: a move that is not a point name, ``pass`` or ``resign``.
    """
    size = int(game.board.size)  # type: ignore[attr-defined]
    props = [f"FF[4]GM[1]CA[UTF-8]AP[stonegarden]SZ[{size}]GN[{game.title}]"]
    if winner in (1, 2):
        how = "R" if reason == "resign" else ""
        props.append(f"RE[{'BW'[winner - 1]}+{how}]")
    elif winner == 0:
        props.append("RE[0]")
    nodes = []
    for i, text in enumerate(moves):
        colour = "BW"[i % 2]
        t = text.strip().lower()
        if t == "resign":
            break
        nodes.append(f";{colour}[{'' if t == 'pass' else sgf_point(text, size)}]")
    return "(;" + "".join(props) + "".join(nodes) + ")\n"
