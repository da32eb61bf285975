"""Bridge Go against a naive reference written straight from docs/games/bridgego.md: one search from
each liberty to the sides (the definition), whole games replayed move by move."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stonegarden

from .square_go_helpers import check_perft, perft_data_rows

N, S, W, E = "N", "S", "W", "E"


def steps(size, p):
    """(neighbour, direction from p) pairs."""
    c, r = p % size, p // size
    if r + 1 < size:
        yield p + size, N
    if r > 0:
        yield p - size, S
    if c > 0:
        yield p - 1, W
    if c + 1 < size:
        yield p + 1, E


def sides_of(size, p):
    c, r = p % size, p // size
    out = set()
    if r == size - 1:
        out.add(N)
    if r == 0:
        out.add(S)
    if c == 0:
        out.add(W)
    if c == size - 1:
        out.add(E)
    return out


def sides_reached(board, size, colour, start):
    """The definition: search from the liberty through every point without a ``colour``
    stone, collecting the sides touched."""
    seen, todo, touched = {start}, [start], set()
    while todo:
        v = todo.pop()
        touched |= sides_of(size, v)
        for w, _ in steps(size, v):
            if w not in seen and board[w] != colour:
                seen.add(w)
                todo.append(w)
    return touched


def external(touched, direction, perpendicular):
    if perpendicular:
        need = {W, E} if direction in (N, S) else {N, S}
        return need <= touched
    return {N, S} <= touched or {W, E} <= touched


def chains(board, size, colour):
    out, done = [], set()
    for p in range(size * size):
        if board[p] == colour and p not in done:
            chain, todo = {p}, [p]
            while todo:
                v = todo.pop()
                for w, _ in steps(size, v):
                    if board[w] == colour and w not in chain:
                        chain.add(w)
                        todo.append(w)
            done |= chain
            out.append(chain)
    return out


def reference_dead(board, size, colour, perpendicular):
    """Stones of ``colour`` chains with no external liberty, one search per liberty."""
    dead = set()
    for chain in chains(board, size, colour):
        alive = any(
            board[w] == 0 and external(sides_reached(board, size, colour, w), d, perpendicular)
            for v in chain
            for w, d in steps(size, v)
        )
        if not alive:
            dead |= chain
    return dead


def bridges(board, size, colour):
    for chain in chains(board, size, colour):
        touched = set().union(*(sides_of(size, v) for v in chain))
        if {N, S} <= touched or {W, E} <= touched:
            return True
    return False


def reference_turn(board, size, player, p, perpendicular, win_after):
    """(board, captured, self-captured, won) after ``player`` plays ``p``."""
    b = list(board)
    b[p] = player
    opp = reference_dead(b, size, 3 - player, perpendicular)
    for q in opp:
        b[q] = 0
    if not win_after and bridges(b, size, player):
        return tuple(b), len(opp), 0, True
    own = reference_dead(b, size, player, perpendicular)
    for q in own:
        b[q] = 0
    return tuple(b), len(opp), len(own), win_after and bridges(b, size, player)


cells = st.integers(3, 7).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.sampled_from([0, 0, 1, 2]), min_size=n * n,
                                             max_size=n * n))
)


@pytest.mark.parametrize("external_rule", ["standard", "perpendicular"])
@settings(max_examples=150, deadline=None)
@given(board=cells)
@pytest.mark.slow
def test_fast_external_liberties_equal_the_definition(external_rule, board):
    size, values = board
    game = stonegarden.make("bridgego", size=size, external=external_rule)
    arr = np.array(values, np.int8)
    for colour in (1, 2):
        want = sorted(reference_dead(values, size, colour, external_rule == "perpendicular"))
        assert game.without_external(arr, colour) == want


OPTIONS = [
    {},
    {"win_check": "after-self-capture"},
    {"external": "perpendicular"},
    {"superko": False, "max_turns": 30},
    {"external": "perpendicular", "win_check": "after-self-capture", "superko": False},
]


def _option_id(options):
    return ",".join(f"{k}={v}" for k, v in options.items()) or "default"


@pytest.mark.parametrize("options", OPTIONS, ids=_option_id)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(3, 6))
@pytest.mark.slow
def test_random_games_agree_with_the_reference(options, seed, size):
    game = stonegarden.make("bridgego", size=size, **options)
    perpendicular = options.get("external") == "perpendicular"
    win_after = options.get("win_check") == "after-self-capture"
    superko = options.get("superko", True)
    max_turns = game.params["max_turns"]
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    boards = [tuple(state.cells())]
    won = False
    while True:
        board = boards[-1]
        legal = []
        for p in range(size * size):
            if board[p] == 0:
                after, _, _, w = reference_turn(board, size, state.player, p, perpendicular,
                                                win_after)
                if w or not superko or after not in boards:
                    legal.append(p)
        over = won or not legal or (not superko and len(boards) - 1 >= max_turns)
        assert game.is_terminal(state) == over, game.position_text(state)
        if over:
            assert game.winner(state) == (3 - state.player if won else 0)
            break
        assert list(game.legal_actions(state)) == legal, game.position_text(state)
        p = legal[int(rng.integers(len(legal)))]
        after, cap, own, won = reference_turn(board, size, state.player, p, perpendicular,
                                              win_after)
        state = game.play(state, p)
        assert tuple(state.cells()) == after, game.position_text(state)
        assert (state.captured, state.self_captured) == (cap, own)
        boards.append(after)


# -- perft: leaf counts from the reference, stored in tests/data, checked against the engine ----

PERFT_FILE = Path(__file__).resolve().parent / "data" / "bridgego_perft.tsv"
PERFT_POSITIONS = [  # (options as name=value;..., position text, depth)
    ("size=4", "..../..../..../.... 1 0", 3),
    ("size=3", "O../.X./X.. 1 4", 4),
    ("size=3;win_check=after-self-capture", "O../.X./X.. 1 4", 4),
    ("size=5", "..O.X/....X/XX.XX/X..../X.... 1 20", 2),
    ("size=5;win_check=after-self-capture", "..O.X/....X/XX.XX/X..../X.... 1 20", 2),
    ("size=7;external=perpendicular",
     "X..XO.X/.X...X./X.....X/.X...X./X.....X/.X...X./X.....X 2 21", 2),
    ("size=4;superko=false;max_turns=3", "..../..../..../.... 1 0", 4),
]


def parse_options(text):
    out = {}
    for part in text.split(";"):
        name, _, value = part.partition("=")
        out[name] = int(value) if value.isdigit() else (value == "true" if value in (
            "true", "false") else value)
    return out


def reference_perft(boards, size, player, ply, options, depth):
    perpendicular = options.get("external") == "perpendicular"
    win_after = options.get("win_check") == "after-self-capture"
    superko = options.get("superko", True)
    if depth == 0 or (not superko and ply >= options.get("max_turns", 4 * size * size)):
        return 1
    total = 0
    moved = False
    for p in range(size * size):
        if boards[-1][p]:
            continue
        after, _, _, won = reference_turn(boards[-1], size, player, p, perpendicular, win_after)
        if superko and not won and after in boards:
            continue
        moved = True
        total += 1 if won else reference_perft([*boards, after], size, 3 - player, ply + 1,
                                               options, depth - 1)
    return total if moved else 1


def write_perft_file():
    rows = ["# options\tposition\tdepth\tleaves (from the naive reference)"]
    for opts, text, depth in PERFT_POSITIONS:
        options = parse_options(opts)
        game = stonegarden.make("bridgego", **options)
        s = game.parse_position(text)
        size = options["size"]
        boards = [tuple([0] * size * size)]
        if tuple(s.cells()) != boards[0]:
            boards.append(tuple(s.cells()))
        count = reference_perft(boards, size, s.player, s.ply, options, depth)
        rows.append(f"{opts}\t{text}\t{depth}\t{count}")
    PERFT_FILE.write_text("\n".join(rows) + "\n")


def perft_rows():
    for opts, text, depth, count in perft_data_rows(PERFT_FILE):
        yield pytest.param(opts, text, int(depth), int(count), id=f"{opts}-d{depth}")


@pytest.mark.parametrize(("opts", "text", "depth", "count"), list(perft_rows()))
def test_perft_counts_match_the_reference(opts, text, depth, count):
    check_perft(stonegarden.make("bridgego", **parse_options(opts)), text, depth, count)


if __name__ == "__main__":  # regenerate the data file: python -m tests.test_bridgego_reference
    write_perft_file()
