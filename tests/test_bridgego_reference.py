"""Bridge Go against a naive reference written straight from spec/bridgego.md: one search from
each liberty to the sides (the definition), whole games replayed move by move."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stonegarden

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
