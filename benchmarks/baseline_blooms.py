"""A deliberately plain numba baseline for random Blooms playouts (capture-race rules).

It is the yardstick that stonegarden's own playout benchmark (``bench_playouts.py``,
``compare_versions.py``) is compared with, side by side in one run: the project's playouts
should be several times faster than this. It shares no code with the package and is not meant
to be clever: it scans the whole board for captures after every turn.

Random policy (the same one the project's benchmark must use, so the work is comparable): each
turn picks uniformly among all legal turns (2E single stones plus E(E-1) two-stone turns with E
empty cells; the very first turn is a single stone). Players 1 and 2 own colours 1,2 and 3,4.

Usage: python benchmarks/baseline_blooms.py SIZE TARGET SECONDS   -> one JSON line
"""
import json
import sys
import time

import numpy as np
from numba import njit


def neighbour_table(n):
    cells = [(q, r) for q in range(-n + 1, n) for r in range(-n + 1, n) if abs(q + r) < n]
    index = {c: i for i, c in enumerate(cells)}
    table = -np.ones((len(cells), 6), np.int64)
    for i, (q, r) in enumerate(cells):
        for k, (dq, dr) in enumerate([(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)]):
            table[i, k] = index.get((q + dq, r + dr), -1)
    return table


@njit(cache=True)
def remove_fenced(board, nb, colour_a, colour_b, stack, seen, stamp):
    removed = 0
    for s in range(board.shape[0]):
        c = board[s]
        if (c != colour_a and c != colour_b) or seen[s] == stamp:
            continue
        top = 1
        stack[0] = s
        seen[s] = stamp
        has_liberty = False
        i = 0
        while i < top:
            v = stack[i]
            i += 1
            for k in range(6):
                w = nb[v, k]
                if w < 0:
                    continue
                if board[w] == 0:
                    has_liberty = True
                elif board[w] == c and seen[w] != stamp:
                    seen[w] = stamp
                    stack[top] = w
                    top += 1
        if not has_liberty:
            for t in range(top):
                board[stack[t]] = 0
            removed += top
    return removed


@njit(cache=True)
def playout(nb, target, seed, max_turns):
    np.random.seed(seed)
    n = nb.shape[0]
    board = np.zeros(n, np.int64)
    stack = np.empty(n, np.int64)
    seen = np.zeros(n, np.int64)
    empties = np.empty(n, np.int64)
    score = np.zeros(2, np.int64)
    stamp = 0
    player = 0
    for turn in range(max_turns):
        ne = 0
        for i in range(n):
            if board[i] == 0:
                empties[ne] = i
                ne += 1
        colour_a = 1 + 2 * player
        colour_b = 2 + 2 * player
        singles = 2 * ne
        doubles = ne * (ne - 1) if turn > 0 else 0
        m = np.random.randint(singles + doubles)
        if m < singles:
            board[empties[m >> 1]] = colour_a if (m & 1) == 0 else colour_b
        else:
            m -= singles
            i = m // (ne - 1)
            j = m % (ne - 1)
            if j >= i:
                j += 1
            board[empties[i]] = colour_a
            board[empties[j]] = colour_b
        stamp += 1  # noqa: SIM113 (one stamp per turn, a numba loop)
        score[player] += remove_fenced(board, nb, 3 - 2 * player, 4 - 2 * player, stack, seen, stamp)
        if score[player] >= target:
            return player, turn + 1
        player = 1 - player
    return -1, max_turns


def main():
    size, target, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    nb = neighbour_table(size)
    playout(nb, target, 0, 10000)  # compile (or load the cache) outside the timing
    count = turns = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, t = playout(nb, target, count + 1, 10000)
        count += 1
        turns += t
    elapsed = time.perf_counter() - start
    print(json.dumps({"playouts_per_s": count / elapsed, "mean_turns": turns / count, "playouts": count}))


if __name__ == "__main__":
    main()
