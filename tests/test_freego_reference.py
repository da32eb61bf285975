"""Free Go against a naive reference written straight from docs/games/freego.md: full-board scans
for captures and an explicit list of earlier boards for ko, no hashing, no kernels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stonegarden

from .square_go_helpers import check_perft, perft_data_rows


def neighbours(size, p):
    c, r = p % size, p // size
    if r + 1 < size:
        yield p + size
    if r > 0:
        yield p - size
    if c > 0:
        yield p - 1
    if c + 1 < size:
        yield p + 1


def chain_and_liberties(board, size, p):
    colour = board[p]
    chain, libs, todo = {p}, set(), [p]
    while todo:
        v = todo.pop()
        for w in neighbours(size, v):
            if board[w] == 0:
                libs.add(w)
            elif board[w] == colour and w not in chain:
                chain.add(w)
                todo.append(w)
    return chain, libs


def reference_play(board, size, player, p):
    """Place, then remove every opponent chain without a liberty; returns (board, removed)."""
    board = list(board)
    board[p] = player
    dead = set()
    for q in range(size * size):
        if board[q] == 3 - player and q not in dead:
            chain, libs = chain_and_liberties(board, size, q)
            if not libs:
                dead |= chain
    for q in dead:
        board[q] = 0
    return tuple(board), len(dead)


def reference_legal(boards, size, player, ko):
    """``boards``: every board so far (the current one last), one per ply."""
    board = boards[-1]
    legal = []
    for p in range(size * size):
        if board[p]:
            continue
        after, _ = reference_play(board, size, player, p)
        if ko == "simple" and len(boards) >= 2 and after == boards[-2]:
            continue
        # same player to move as after this move: the boards an even number of plies back
        if ko == "superko" and after in boards[-2::-2]:
            continue
        legal.append(p)
    return legal


@pytest.mark.parametrize("ko", ["simple", "superko", "none"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(5, 6), target=st.integers(2, 40))
@pytest.mark.slow
def test_random_games_agree_with_the_reference(ko, seed, size, target):
    game = stonegarden.make("freego", size=size, target=target, ko=ko)
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    boards = [tuple(state.cells())]
    scores = [0, 0]
    while True:
        legal = reference_legal(boards, size, state.player, ko)
        over = not legal or max(scores) >= game.params["target"]
        assert game.is_terminal(state) == over, game.position_text(state)
        if over:
            s1, s2 = scores
            assert game.winner(state) == (1 if s1 > s2 else 2 if s2 > s1 else 0)
            break
        assert list(game.legal_actions(state)) == legal, game.position_text(state)
        p = legal[int(rng.integers(len(legal)))]
        after, removed = reference_play(boards[-1], size, state.player, p)
        scores[state.player - 1] += removed
        state = game.play(state, p)
        assert tuple(state.cells()) == after
        assert state.captured == removed
        assert list(state.scores) == scores
        boards.append(after)


# -- perft: leaf counts from the reference, stored in tests/data, checked against the engine ----

PERFT_FILE = Path(__file__).resolve().parent / "data" / "freego_perft.tsv"
PERFT_POSITIONS = [  # (size, target, ko, position text, depth)
    (5, 3, "simple", "...../...../...../...../..... 1 0,0 0", 3),
    (5, 10, "simple", "...../..XO./.X.XO/..XO./..... 2 1,0 11", 3),
    (5, 10, "none", "...../..XO./.X.XO/..XO./..... 2 1,0 11", 3),
    (5, 10, "superko", "...../..XO./.X.XO/..XO./..... 2 1,0 11", 3),
    (5, 3, "simple", "OOOO./XXXXO/...XO/..XXO/..... 1 2,2 20", 3),
    (6, 3, "superko", "....../.O..../OXO.../.O..../....X./...X.X 2 1,1 13", 2),
]


def reference_perft(boards, size, player, scores, target, ko, depth):
    if depth == 0 or max(scores) >= target:
        return 1
    legal = reference_legal(boards, size, player, ko)
    if not legal:
        return 1
    total = 0
    for p in legal:
        after, removed = reference_play(boards[-1], size, player, p)
        s = list(scores)
        s[player - 1] += removed
        total += reference_perft([*boards, after], size, 3 - player, s, target, ko, depth - 1)
    return total


def write_perft_file():
    rows = ["# size\ttarget\tko\tposition\tdepth\tleaves (from the naive reference)"]
    for size, target, ko, text, depth in PERFT_POSITIONS:
        game = stonegarden.make("freego", size=size, target=target, ko=ko)
        s = game.parse_position(text)
        count = reference_perft([tuple(s.cells())], size, s.player, list(s.scores), target, ko,
                                depth)
        rows.append(f"{size}\t{target}\t{ko}\t{text}\t{depth}\t{count}")
    PERFT_FILE.write_text("\n".join(rows) + "\n")


def perft_rows():
    for size, target, ko, text, depth, count in perft_data_rows(PERFT_FILE):
        yield pytest.param(int(size), int(target), ko, text, int(depth), int(count),
                           id=f"{ko}-{text[-12:].strip()}-d{depth}")


@pytest.mark.parametrize(("size", "target", "ko", "text", "depth", "count"), list(perft_rows()))
def test_perft_counts_match_the_reference(size, target, ko, text, depth, count):
    check_perft(stonegarden.make("freego", size=size, target=target, ko=ko), text, depth, count)


if __name__ == "__main__":  # regenerate the data file: python -m tests.test_freego_reference
    write_perft_file()
