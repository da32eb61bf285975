"""Reading the search's tree (``search/pools.py``) in tests: nodes, edges, children; and a
stop that interrupts a search."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def edges(engine: Any, node: int) -> list[tuple[int, int, int]]:
    """(edge, move, child) of every edge of ``node`` (child -1 if never entered)."""
    P = engine.pools
    return [(e, int(P.ed_move[e]), int(P.ed_child[e])) for e in P.edge_range(node)]


def walk_on(engine: Any, game: Any, state: Any, node: int, counts: dict[str, int],
            code: Callable[[Any, Any], int]) -> bool:
    """A tree walk's check of ``node`` (``state``'s, at a turn's first decision): a terminal
    position's node is proven as ``code(game, state)`` says, a live one's belongs to its
    mover. Whether the walk goes on below it (a live, expanded node); ``counts`` tallies the
    terminal and expanded nodes met."""
    P = engine.pools
    if game.is_terminal(state):
        assert int(P.nd_proven[node]) == code(game, state)
        counts["terminal"] += 1
        return False
    assert int(P.nd_player[node]) == state.player
    if P.nd_first[node] < 0:
        return False
    counts["expanded"] += 1
    return True


def reachable(engine: Any) -> tuple[list[int], dict[int, int]]:
    """Every node reachable from the root once (the tree may be a graph), and how many edges
    lead into each."""
    seen, parents, todo = {engine.root}, {engine.root: 0}, [engine.root]
    while todo:
        node = todo.pop()
        for _, _, child in edges(engine, node):
            if child < 0:
                continue
            parents[child] = parents.get(child, 0) + 1
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return sorted(seen), parents


def interrupt_after(calls: int) -> Callable[[], bool]:
    """A search's ``stop()`` that raises ``KeyboardInterrupt`` (Ctrl-C) at call ``calls + 1``."""
    made = [0]

    def stop() -> bool:
        made[0] += 1
        if made[0] > calls:
            raise KeyboardInterrupt
        return False

    return stop
