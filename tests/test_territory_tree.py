"""The territory rules' compiled tree (``games/blooms/territory_tree.py`` in ``search/tree.py``)
walked against the rules: every node's player and proof, every expanded node's stage
decisions, and every turn in the tree must be what the checked rules say, self-fencing,
passes, the first passer's tie and the turn limit included."""

from __future__ import annotations

import numpy as np
import pytest

import stonegarden
from stonegarden.agents import make_agent
from stonegarden.games.blooms.playouts import territory_playout
from stonegarden.games.blooms.search import TerritoryProfile
from stonegarden.games.blooms.territory_tree import (
    territory_begin,
    territory_moves,
    territory_scratch,
)
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.engines import new_engine
from stonegarden.search.pools import Pools
from stonegarden.search.profile import profile_for
from stonegarden.search.protocol_tree import ProtocolTree
from stonegarden.search.tree import CompiledTree
from stonegarden.search.tree_kernels import NO_MOVE

from .tree_helpers import edges, walk_on

#: player 1 to move; R on e3 alone would fence itself, and only Y on b2 or b3, which fences
#: the K and G blooms round e3, frees it (found by random play on n=3)
RESCUE = ".Y./.GYG/.RKR./G.KR/KG. 1 0,0 8 0 0"


DEFAULT = SearchConfig()


def _engine(game, config=DEFAULT, seed=1):
    spec = profile_for(game).tree(config)
    assert spec is not None
    return CompiledTree(game, config, seed, spec, Pools(200_000, 2_000_000))


def _code(game, state):
    return {1: 1, 2: 2}[game.winner(state)]


def _choices(game, state):
    """{first choice: [second choices]} of the legal turns, in tree order (cells in
    increasing order, then the pass (N), then none); the pass continues with none only."""
    out: dict[int, list[int]] = {}
    for action in game.legal_actions(state):
        stones = game.decode(int(action))
        a, b = stones if stones is not None else (game.num_cells, NO_MOVE)
        out.setdefault(a, []).append(b)
    return {a: sorted(out[a], key=_order) for a in sorted(out, key=_order)}


def _order(move):
    return (move < 0, move)


def _walk(engine, game, state, node, depth, counts):
    """Check ``node`` (at a turn's first decision) and the turns below it, ``depth`` turns
    deep."""
    if not walk_on(engine, game, state, node, counts, _code):
        return
    P = engine.pools
    assert int(P.nd_stage[node]) == 0
    choices = _choices(game, state)
    assert [m for _, m, _ in edges(engine, node)] == list(choices)
    for _, a, mid in edges(engine, node):
        if mid < 0 or P.nd_first[mid] < 0:
            continue
        assert int(P.nd_player[mid]) == state.player and int(P.nd_stage[mid]) == 1
        assert [m for _, m, _ in edges(engine, mid)] == choices[a]
        for _, b, child in edges(engine, mid):
            action = engine.spec.turn_action(state, (a, b))
            assert game.is_legal(state, action)
            if child >= 0 and depth > 1:
                _walk(engine, game, game.play(state, action), child, depth - 1, counts)


def _random_position(game, seed, turns):
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    for _ in range(turns):
        acts = game.legal_actions(state)
        state = game.play(state, int(rng.choice(acts[acts != game.pass_action])))
    return state


POSITIONS = {
    "first turn": ({}, lambda g: g.initial_state()),
    "second turn": ({}, lambda g: g.play_text(g.initial_state(), "Rb2")),
    "mid-game": ({}, lambda g: _random_position(g, 3, 9)),
    "self-fencing rescued": ({}, lambda g: g.parse_position(RESCUE)),
    "after a pass": ({}, lambda g: g.play_text(_random_position(g, 4, 12), "pass")),
    "turn limit": ({"max_turns": 10}, lambda g: _random_position(g, 5, 8)),
}


@pytest.mark.parametrize("name", list(POSITIONS))
@pytest.mark.parametrize("eyes", [0, 1])
def test_every_node_holds_the_rules_turns_and_results(name, eyes):
    params, position = POSITIONS[name]
    game = stonegarden.make("blooms-territory", size=3, **params)
    state = position(game)
    engine = _engine(game, SearchConfig().with_game_options({"eyes": eyes}))
    engine.search(state, Budget(sims=3000))
    counts = {"expanded": 0, "terminal": 0}
    _walk(engine, game, state, engine.root, 3, counts)
    assert counts["expanded"] > 1
    if name in ("after a pass", "turn limit"):
        assert counts["terminal"] > 0


def test_a_first_stone_that_fences_itself_is_listed_only_with_the_second_that_frees_it():
    game = stonegarden.make("blooms-territory", size=3)
    state = game.parse_position(RESCUE)
    e3 = game.board.names.index("e3")
    assert not game.is_legal(state, game.encode(e3, -1))
    spec = profile_for(game).tree(SearchConfig())
    board, info = spec.root_position(state)
    scratch = territory_scratch(spec.consts)
    territory_begin(board, info, spec.consts, scratch)
    moves = np.empty(spec.max_moves, np.int32)
    priors = np.empty(spec.max_moves)
    count = territory_moves(board, info, 1, 0, spec.consts, scratch, moves, priors, False)
    assert e3 in moves[:count]
    info[3] = e3
    count = territory_moves(board, info, 1, 1, spec.consts, scratch, moves, priors, False)
    seconds = sorted(game.board.names[m] for m in moves[:count])
    assert seconds == sorted(game.board.names[b] for b in _choices(game, state)[e3])
    assert NO_MOVE not in moves[:count] and seconds


@pytest.mark.parametrize("lead", [True, False])
def test_the_search_passes_out_a_won_game_and_not_a_lost_one(lead):
    """After the opponent's pass, passing ends the game: the solver proves it a win when
    the mover leads on the board, and never chooses it when it loses."""
    game = stonegarden.make("blooms-territory", size=3)
    moves = ["Rc3", "Kb2", "Ya3,Rd2"] + (["pass"] if lead else ["Gb1", "pass"])
    state = game.replay(moves)[-1]
    mover = state.player
    after_pass = game.play(state, game.pass_action)
    assert game.is_terminal(after_pass)
    assert (game.winner(after_pass) == mover) is lead
    result = _engine(game).search(state, Budget(sims=2000))
    if lead:
        assert result.best == game.pass_action and result.proven == mover
    else:
        assert result.best != game.pass_action


def test_a_kept_tree_continues_from_the_turns_played():
    game = stonegarden.make("blooms-territory", size=3)
    engine = _engine(game, seed=2)
    state = game.play_text(game.initial_state(), "Rb3")
    mine = game.play(state, engine.search(state, Budget(sims=3000)).best)
    after = game.play(mine, engine.search(mine, Budget(sims=500)).best)
    again = engine.search(after, Budget(sims=500))
    assert again.reused > 0
    counts = {"expanded": 0, "terminal": 0}
    _walk(engine, game, after, engine.root, 2, counts)
    assert counts["expanded"] > 0


def test_the_playouts_stamp_every_stone_they_play_for_rave():
    game = stonegarden.make("blooms-territory", size=3)
    n = game.num_cells
    nb = game.board.neighbours
    np.random.seed(3)
    for stamp in range(1, 6):
        board = np.zeros(n, np.int8)
        seen = np.zeros((3, 2 * n + 2), np.int64)
        territory_playout(board, nb, 1, 0, 0, 0, 8 * n, np.zeros((n, 5), np.int64),
                          np.int64(0), np.empty(0, np.int64), False, np.zeros(2, np.int64),
                          True, seen, stamp)
        stones = np.flatnonzero(board)
        assert stones.size > 0
        for c in stones:
            player, colour = (board[c] + 1) // 2, (board[c] - 1) % 2
            assert seen[player, colour * (n + 1) + c] == stamp


def test_which_tree_searches_the_territory_rules():
    game = stonegarden.make("blooms-territory", size=3)
    assert isinstance(new_engine(game, SearchConfig(), 1), CompiledTree)
    split_off = SearchConfig().with_game_options({"split": 0})
    assert isinstance(new_engine(game, split_off, 1), ProtocolTree)
    superko = stonegarden.make("blooms-territory", size=3, superko=True)
    assert isinstance(new_engine(superko, SearchConfig(), 1), ProtocolTree)
    # the levels search as they were calibrated: through the protocol, with uniform playouts
    level = make_agent("level:3")
    config = level.config_for(game)
    assert isinstance(new_engine(game, config, 1), ProtocolTree)
    assert config.game_option("eyes") == 0


def test_the_warm_up_loads_the_default_search_and_the_levels():
    from stonegarden.search import engines

    game = stonegarden.make("blooms-territory", size=3)
    profile = profile_for(game)
    profile.warm_up()
    warmed = {config for kind, config in engines._WARM if kind is type(game)}
    assert SearchConfig() in warmed
    assert {profile.level_config(level) for level in profile.levels} <= warmed
    assert isinstance(new_engine(game, profile.level_config(1), 1), ProtocolTree)


def test_territory_level_6_searches_with_the_eye_playouts_it_was_measured_with():
    """``level_options_measured`` overrides ``level_options`` for the levels it names only
    (level 6 of the territory rules, measured with the eye playouts), and a level agent
    searches with what its profile says."""
    game = stonegarden.make("blooms-territory", size=3)
    profile = profile_for(game)
    assert TerritoryProfile.level_options_measured == {6: {"eyes": 1}}
    assert profile.level_options_for(5) == {"eyes": 0, "split": 0}
    assert profile.level_options_for(6) == {"eyes": 1, "split": 0}
    six = make_agent("level:6").config_for(game)
    assert six == profile.level_config(6)
    assert profile.option(six, "eyes") == 1 and profile.option(six, "split") == 0
    assert profile.option(make_agent("level:5").config_for(game), "eyes") == 0
    assert six.model == "none"  # the territory levels load no model
