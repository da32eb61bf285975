"""Last good reply with forgetting (``mcts:lgr=on``): the table's update rule, the playout
kernels of Free Go and Bridge Go answering with it, and the search learning and using it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import stonegarden
from stonegarden.agents.registry import make_agent
from stonegarden.games.bridgego.playouts import bridge_reply
from stonegarden.search.config import Budget, SearchConfig
from stonegarden.search.profile import profile_for
from stonegarden.search.protocol_tree import ProtocolTree
from stonegarden.search.replies import lgr_update, new_replies

LGR = dataclasses.replace(SearchConfig(), fast=False, lgr=True)


def _update(replies, tree, playout, first, winner):
    lgr_update(replies, np.array(tree, np.int32), np.array(playout, np.int32), first, winner)


def test_the_winner_s_moves_become_replies_to_the_move_before_across_tree_and_playout():
    r = new_replies(10)
    # player 1 plays 3, 2 plays 4 (tree), 1 plays 5, 2 plays 6 (playout); player 1 wins
    _update(r, [3, 4], [5, 6], 1, 1)
    assert r[1, 4] == 5  # player 1's reply to 4, across the tree/playout seam
    assert (r[2] == -1).all()  # the loser learns nothing
    assert (r[1] >= 0).sum() == 1  # the first move answers nothing
    _update(r, [7, 0], [], 2, 2)  # player 2 opened with 7, player 1 answered 0, player 2 won
    assert r[1, 7] == -1 and (r[2] == -1).all()


def test_a_losing_reply_is_forgotten_but_other_replies_stay():
    r = new_replies(10)
    _update(r, [3, 4, 5], [], 1, 1)  # 1 plays 3, 2 plays 4, 1 answers 5 and wins
    assert r[1, 4] == 5
    _update(r, [3, 4, 2], [], 1, 2)  # player 1 answered 4 with 2 and lost: 5 is kept
    assert r[1, 4] == 5
    assert r[2, 3] == 4  # and the winner learned its own reply
    _update(r, [3, 4], [5], 1, 2)  # player 1 answered 4 with 5 and lost: forgotten
    assert r[1, 4] == -1
    assert r[2, 3] == 4


@pytest.mark.parametrize("winner", [0, -1])
def test_draws_and_unfinished_playouts_teach_nothing(winner):
    r = new_replies(6)
    r[1, 2] = 3
    _update(r, [0, 2, 4], [5], 2, winner)
    assert r[1, 2] == 3 and (r >= 0).sum() == 1


def _random_table(game, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, game.num_distinct_actions, (3, game.num_distinct_actions)).astype(
        np.int32)


@pytest.mark.parametrize("seed", range(6))
def test_bridge_go_playouts_answer_with_the_stored_reply_when_no_bridge_needs_saving(seed):
    """Without superko every empty point is legal, so the kernel must play the table's reply
    whenever its point is empty and no bridge reply comes first; replayed through the rules."""
    game = stonegarden.make("bridgego", size=6, superko=False, max_turns=80)
    table = _random_table(game, seed)
    state = game.initial_state()
    state = game.play(state, 14)
    winner, moves = profile_for(game).playout(state, seed, {"bridges": 1}, table, 14)
    last, answered = 14, 0
    for m in moves:
        cells = state.cells()
        saving = bridge_reply(cells, game.board.neighbours, state.player, last)
        stored = table[state.player, last]
        if saving >= 0:
            assert m == saving
        elif cells[stored] == 0:
            assert m == stored
            answered += 1
        state = game.play(state, int(m))
        last = int(m)
    assert answered >= 3  # the first move included: it answers the move before the playout
    assert (game.winner(state) or 0) == winner


@pytest.mark.parametrize("seed", range(6))
def test_free_go_playouts_answer_with_the_stored_reply_when_its_point_is_empty(seed):
    game = stonegarden.make("freego", size=6, target=8, ko="none")
    table = _random_table(game, seed)
    state = game.play(game.initial_state(), 20)
    winner, moves = profile_for(game).playout(state, seed, {}, table, 20)
    last, answered = 20, 0
    for m in moves:
        stored = table[state.player, last]
        if state.cells()[stored] == 0:
            assert m == stored
            answered += 1
        state = game.play(state, int(m))
        last = int(m)
    assert answered >= 3
    assert game.is_terminal(state) and (game.winner(state) or 0) == winner


def test_free_go_playouts_drop_a_stored_reply_that_ko_forbids():
    """Simple ko: White just took a ko; Black's stored reply is the immediate retake, which the
    rules forbid, so the playouts never play it first."""
    game = stonegarden.make("freego", size=5, target=20)
    # White's b2 has just taken Black's c2; Black retaking at c2 would repeat the position
    moves = ["b3", "c3", "a2", "d2", "b1", "c1", "c2", "b2"]
    state = game.replay(moves)[-1]
    retake = game.parse_action(state, "c2")
    assert state.cells()[retake] == 0 and retake not in set(game.legal_actions(state).tolist())
    table = np.full((3, game.num_distinct_actions), -1, np.int32)
    table[state.player, game.parse_action(state, "b2")] = retake
    for seed in range(20):
        _, played = profile_for(game).playout(state, seed, {}, table,
                                              game.parse_action(state, "b2"))
        assert played[0] != retake


@pytest.mark.parametrize("game_id", ["freego", "bridgego"])
def test_a_search_with_lgr_learns_replies_and_is_reproducible(game_id):
    game = stonegarden.make(game_id, size=5)
    state = game.initial_state()
    first = ProtocolTree(game, LGR, 3)
    a = first.search(state, Budget(sims=400))
    assert (first.replies[1:] >= 0).sum() > 10
    again = ProtocolTree(game, LGR, 3).search(state, Budget(sims=400))
    assert [m.action for m in a.moves] == [m.action for m in again.moves]
    assert [m.visits for m in a.moves] == [m.visits for m in again.moves]
    plain = ProtocolTree(game, dataclasses.replace(LGR, lgr=False), 3)
    assert plain.replies.size == 0


def test_lgr_is_an_agent_option_and_games_without_the_policy_ignore_it():
    agent = make_agent("mcts:lgr=on,sims=50,seed=1")
    assert agent.config.lgr is True
    assert make_agent("mcts").config.lgr is None  # the game's default
    game = stonegarden.make("blobs")
    assert not profile_for(game).replies
    state = game.initial_state()
    on = make_agent("mcts:lgr=on,sims=200,seed=4").analyse(game, state)
    off = make_agent("mcts:lgr=off,sims=200,seed=4").analyse(game, state)
    assert [(m.action, m.visits) for m in on.moves] == [(m.action, m.visits) for m in off.moves]


def test_lgr_search_still_blocks_a_bridge_one_move_from_completion():
    """5x5 Bridge Go: Black's column a1-a4 needs a5; White to move must take it."""
    game = stonegarden.make("bridgego", size=5)
    state = game.replay(["a1", "e1", "a2", "e2", "a3", "d4", "a4"])[-1]
    result = ProtocolTree(game, LGR, 1).search(state, Budget(sims=600))
    assert game.action_to_text(state, result.best).lower() == "a5"


@pytest.mark.parametrize("game_id", ["freego", "bridgego", "blobs", "blooms-territory"])
def test_lgr_follows_the_game_s_default_unless_the_agent_says(game_id):
    profile = profile_for(stonegarden.make(game_id))
    has = profile.replies
    assert profile.lgr_for(SearchConfig()) == (profile.lgr and has)
    assert profile.lgr_for(SearchConfig(lgr=True)) == has
    assert profile.lgr_for(SearchConfig(lgr=False)) is False
    assert profile.lgr == (game_id == "freego")  # on by default where it was shown to pay
