"""Reading the search's tree (``search/pools.py``) in tests: nodes, edges, children."""

from __future__ import annotations

from typing import Any


def edges(engine: Any, node: int) -> list[tuple[int, int, int]]:
    """(edge, move, child) of every edge of ``node`` (child -1 if never entered)."""
    P = engine.pools
    return [(e, int(P.ed_move[e]), int(P.ed_child[e])) for e in P.edge_range(node)]


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
