"""A deliberately naive Blooms implementation written straight from docs/games/blooms.md with Python
sets and dicts, independent of the kernels: the differential oracle for property tests."""

from __future__ import annotations

DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))


def cells_of(n, holes=()):
    out = {}
    for L in range(2 * n - 1):
        for k in range(1, 2 * n - abs(n - 1 - L)):
            name = f"{chr(97 + L)}{k}"
            if name in holes:
                continue
            r = (n - 1) - L
            q = (k - 1) - (n - 1) - min(0, r)
            out[(q, r)] = name
    return out


def neighbours(coord, cells):
    q, r = coord
    return [(q + dq, r + dr) for dq, dr in DIRS if (q + dq, r + dr) in cells]


def blooms(board, cells):
    """List of (colour, set of coords) for every bloom; board maps coord -> colour letter."""
    done, out = set(), []
    for c, col in board.items():
        if c in done:
            continue
        group, todo = {c}, [c]
        while todo:
            v = todo.pop()
            for w in neighbours(v, cells):
                if board.get(w) == col and w not in group:
                    group.add(w)
                    todo.append(w)
        done |= group
        out.append((col, group))
    return out


def fenced(group, board, cells):
    return all(w in board for v in group for w in neighbours(v, cells))


OWN = {1: "RY", 2: "KG"}


def apply(board, cells, player, stones):
    """stones: list of (colour letter, coord). Returns (new board, removed count, own fenced?)."""
    b = dict(board)
    for col, c in stones:
        b[c] = col
    enemy = OWN[3 - player]
    doomed = [g for col, g in blooms(b, cells) if col in enemy and fenced(g, b, cells)]
    removed = 0
    for g in doomed:
        for v in g:
            del b[v]
        removed += len(g)
    own_fenced = any(col in OWN[player] and fenced(g, b, cells) for col, g in blooms(b, cells))
    return b, removed, own_fenced


def territory_score(board, cells):
    score = {1: sum(1 for v in board.values() if v in "RY"), 2: sum(1 for v in board.values() if v in "KG")}
    seen = set()
    for c in cells:
        if c in board or c in seen:
            continue
        region, todo, touch = {c}, [c], set()
        while todo:
            v = todo.pop()
            for w in neighbours(v, cells):
                if w in board:
                    touch.add(1 if board[w] in "RY" else 2)
                elif w not in region:
                    region.add(w)
                    todo.append(w)
        seen |= region
        if len(touch) == 1:
            score[touch.pop()] += len(region)
    return score[1], score[2]


def legal_turns(board, cells, player, first, territory):
    """All legal turns as frozensets of (colour, coord), pass as None."""
    empties = [c for c in cells if c not in board]
    a, b = OWN[player]
    turns = [[(a, c)] for c in empties] + [[(b, c)] for c in empties]
    if not first:
        turns += [[(a, x), (b, y)] for x in empties for y in empties if x != y]
    out = []
    for t in turns:
        if territory and apply(board, cells, player, t)[2]:
            continue
        out.append(frozenset(t))
    if territory and not first:
        out.append(None)
    return out
