"""The Free Go playout kernel plays legal games: its moves replay through the checked rules
to the same end, under every ko rule and from positions with a ko history."""

from __future__ import annotations

import numpy as np
import pytest

import stonegarden
from stonegarden.agents.registry import make_agent
from stonegarden.games.freego.playouts import freego_playout
from stonegarden.geometry.square import SIDE_TO_MOVE_KEY
from stonegarden.geometry.square_patterns import PATTERNS, ring_pattern, ring_table
from stonegarden.search.config import Budget
from stonegarden.search.profile import profile_for

from .square_go_helpers import root_visits, run_without_jit, seed_kernel_generator


def kernel_game(game, state, seed, captures=0, safe=0, best_of=0, weights=None):
    """(moves, winner, turns) of one kernel playout from ``state`` (``weights``: of the
    pattern codes, for ``best_of``)."""
    weights = np.zeros(PATTERNS) if weights is None else weights
    seed_kernel_generator(seed)
    moves = np.full(game.max_game_length, -1, np.int32)
    size = 1 << 12
    hist = state.history
    w, t = freego_playout(
        state.cells().copy(), game.board.neighbours, game.board.zobrist, SIDE_TO_MOVE_KEY,
        state.player, np.array(state.scores, np.int64), game.params["target"], game.ko_mode,
        np.int64(game.position_hash(state)), np.int64(hist[-2] if len(hist) >= 2 else 0),
        np.array(hist[:-1], np.int64), np.zeros(size, np.int64), np.zeros(size, np.int64), 1,
        game.max_game_length, captures, safe, moves, np.empty((0, 0), np.int32), -1,
        ring_table(game.board.neighbours), weights, best_of,
    )
    return [int(m) for m in moves[:t]], int(w), int(t)


@pytest.mark.parametrize(("captures", "safe", "best_of"),
                         [(0, 0, 0), (6, 0, 0), (0, 64, 0), (3, 2, 0), (0, 64, 4), (2, 0, 8)])
@pytest.mark.parametrize("ko", ["simple", "superko", "none"])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.slow
def test_kernel_playouts_replay_through_the_rules(ko, seed, captures, safe, best_of):
    game = stonegarden.make("freego", size=5, target=8, ko=ko)
    state = game.initial_state()
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(0, 12))):  # start mid-game, with a ko history
        acts = game.legal_actions(state)
        state = game.play(state, int(acts[int(rng.integers(len(acts)))]))
        if game.is_terminal(state):
            return
    weights = np.random.default_rng(seed).normal(size=PATTERNS)  # any taste for shapes
    moves, winner, turns = kernel_game(game, state, seed, captures, safe, best_of, weights)
    for m in moves:
        state = game.play(state, m)  # raises if the kernel played an illegal move
    assert game.is_terminal(state) and game.winner(state) == winner
    assert turns == len(moves)


def _black_can_capture_to_win():
    """5x5, target 1: White's corner stone a1 has one liberty left (a2); Black to move."""
    game = stonegarden.make("freego", size=5, target=1)
    return game, game.replay(["b1", "a1"])[-1]


def test_capture_policy_finds_the_capture_uniform_playouts_miss():
    game, state = _black_can_capture_to_win()
    profile = profile_for(game)
    policy = sum(profile.playout(state, seed, {"captures": 64})[0] == 1 for seed in range(400))
    uniform = game.random_playouts(state, 400, 7)
    # 64 draws among 22 empty points miss a2 with probability (21/22)**64 ~ 5%
    assert policy / 400 > 0.9
    assert uniform[0] / 400 < 0.8


def test_capture_policy_first_move_is_the_capture():
    game, state = _black_can_capture_to_win()
    a2 = game.parse_action(state, "a2")
    firsts = [kernel_game(game, state, seed, 64)[0][0] for seed in range(40)]
    assert firsts.count(a2) >= 34
    assert [kernel_game(game, state, seed, 0)[0][0] for seed in range(40)].count(a2) <= 10


def _pattern_of(game, state, point):
    return int(ring_pattern(state.cells(), ring_table(game.board.neighbours), state.player,
                            point))


def test_pattern_policy_plays_the_shape_the_weights_prefer():
    """One pattern code weighs 1, every other 0: with 64 points drawn the first move has that
    pattern (a point drawn uniformly seldom has); with the weights reversed, it never does
    while another point is drawn."""
    game = stonegarden.make("freego", size=5, target=20)
    state = game.replay(["c3", "b2"])[-1]
    empty = [int(p) for p in game.legal_actions(state)]
    liked = _pattern_of(game, state, game.parse_action(state, "d3"))
    sharing = sum(_pattern_of(game, state, p) == liked for p in empty)
    assert sharing <= 2  # the shape is rare on this board
    weights = np.zeros(PATTERNS)
    weights[liked] = 1.0

    def firsts(best_of, w):
        return [_pattern_of(game, state, kernel_game(game, state, seed, 0, 64, best_of, w)[0][0])
                for seed in range(40)]

    assert firsts(64, weights).count(liked) >= 36
    assert firsts(0, weights).count(liked) <= 10
    assert firsts(64, -weights).count(liked) <= 2


# Black to move; White's one chain has the eyes a5 c5 e5 a3 c3 a1: a Black stone on any of
# them is a suicide that captures nothing (it hands White one stone). e3 and c1 each join a
# Black stone into a chain with one liberty, e1 (White takes two stones next turn); e1 joins
# both into a chain with two liberties, the one point that hands White nothing.
EYES = ".O.O./OOOOO/.O.O./OOOOX/.O.X. 1 0,0 20"


def _first_moves(game, state, safe, seeds=40):
    return [game.action_to_text(state, kernel_game(game, state, seed, 0, safe)[0][0]).lower()
            for seed in range(seeds)]


def test_safe_policy_plays_the_point_that_hands_over_no_stones():
    game = stonegarden.make("freego", size=5, target=20)
    state = game.parse_position(EYES)
    assert set(_first_moves(game, state, 64)) == {"e1"}
    assert _first_moves(game, state, 0).count("e1") <= 12  # uniform: one in nine
    assert _first_moves(game, state, 1) == _first_moves(game, state, 0)  # 1 is uniform


def test_safe_policy_with_a_small_budget_plays_the_cheaper_of_the_points_tried():
    """safe=2: one costly point is passed over, and if the second costs too the cheaper of
    the two is played. e1 comes first with probability 2/9 (uniform: 1/9); e3 or c1 (two
    stones) only when both points drawn are those two, 1/36 (uniform: 2/9)."""
    game = stonegarden.make("freego", size=5, target=20)
    state = game.parse_position(EYES)
    firsts = _first_moves(game, state, 2, seeds=200)
    assert 25 <= firsts.count("e1") <= 70
    assert firsts.count("e3") + firsts.count("c1") <= 20


def test_safe_policy_throws_a_stone_in_rather_than_hand_over_a_chain():
    """White's chain has two liberties, e5 and c3, both its own eyes: filling either leaves
    it in atari (13 stones handed over), so White throws a stone into Black's eye (one)."""
    game = stonegarden.make("freego", size=5, target=20)
    state = game.parse_position("OOOO./OOOOO/OO.OO/XXXXX/X.X.X 2 0,0 21")
    assert set(_first_moves(game, state, 64)) <= {"b1", "d1"}
    assert sum(m in {"e5", "c3"} for m in _first_moves(game, state, 0)) >= 8


def test_safe_policy_plays_a_suicide_when_nothing_else_is_left():
    """Only White's eyes are empty and Black has no stone: every point is a suicide, and the
    playout plays one (White removes it on its turn), never stops as if no move were legal."""
    game = stonegarden.make("freego", size=5, target=20)
    state = game.parse_position(".O.O./OOOOO/.O.O./OOOOO/.O.O. 1 0,0 20")
    for seed in range(10):
        moves, _, _ = kernel_game(game, state, seed, 0, 64)
        after = game.play(game.play(state, moves[0]), moves[1])
        assert after.scores[1] == 1


@pytest.mark.nojit
@pytest.mark.slow
def test_rule_and_kernel_tests_pass_without_the_jit():
    """The kernels are plain Python with NUMBA_DISABLE_JIT=1 (coverage, debuggers): run this
    game's rule and playout tests that way in a subprocess."""
    run_without_jit("tests/test_freego_rules.py", "tests/test_freego_playouts.py")


def test_free_go_searches_with_safe_playouts_unless_the_agent_says():
    """The default search of Free Go is the search with ``safe=64`` playouts, seed for seed,
    and not the one with uniform playouts; games without the option ignore it."""
    game = stonegarden.make("freego", size=5, target=6)
    state = game.replay(["c3", "b2"])[-1]

    def visits(spec):
        return root_visits(spec, game, state)

    assert visits("mcts:seed=4") == visits("mcts:seed=4,safe=64")
    assert visits("mcts:seed=4") != visits("mcts:seed=4,safe=0")
    blooms = stonegarden.make("blooms", size=3)
    a = make_agent("mcts:seed=4,safe=9").analyse(blooms, blooms.initial_state(), Budget(sims=200))
    b = make_agent("mcts:seed=4").analyse(blooms, blooms.initial_state(), Budget(sims=200))
    assert [(m.action, m.visits) for m in a.moves] == [(m.action, m.visits) for m in b.moves]
