"""The JSON analysis engine: answers every valid query, survives fuzzed malformed lines."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stonegarden
from stonegarden.analysis_engine import answer, serve

from .conftest import run_cli
from .test_conformance import SMALL


def ask(**query):
    return answer(query)


@pytest.mark.parametrize("game_id", stonegarden.available_games())
def test_every_game_is_analysed(game_id):
    params = dict(SMALL.get(game_id, {}))
    moves = ["roll:M"] if params.get("tumbling") else []
    out = ask(id="q", game=game_id, params=params, moves=moves, sims=200, seed=1, candidates=3)
    assert "error" not in out, out
    assert out["id"] == "q" and out["terminal"] is False
    game = stonegarden.make(game_id, **params)
    state = game.replay(moves)[-1]
    assert game.parse_move(state, out["best_move"]) >= 0  # legal
    assert 0.0 <= out["win_probability"] <= 1.0
    assert 1 <= len(out["candidates"]) <= 3
    assert out["pv"][0] == out["best_move"]
    assert out["sims"] >= 200


def test_same_seed_and_sims_give_the_same_answer():
    q = {"game": "blooms", "params": {"size": 4}, "moves": ["Rd4"], "sims": 500, "seed": 7}
    a, b = answer(q), answer(q)
    a.pop("seconds"), b.pop("seconds")
    assert a == b


def test_a_finished_game_reports_its_result():
    out = ask(game="blooms", params={"size": 3}, moves=["Rc3", "resign"])
    assert out["terminal"] is True and out["winner"] == 1 and out["reason"] == "resign"


def test_a_position_text_can_replace_the_moves():
    out = ask(game="blooms", params={"size": 3}, position=".../..../...../..../RK. 2 0,0 3 0 0",
              sims=100, seed=1)
    assert out["ply"] == 3 and out["player"] == 2


def test_a_move_the_solver_proved_is_valued_by_its_proof():
    """Player 2 has a proven win here, and the answer said so (win probability 1), while its
    best move showed the playouts' mean before the proof (0.93): a move the solver proved is
    worth 1, 0.5 or 0, as the position is."""
    out = ask(game="blooms", params={"size": 3, "target": 4}, agent="mcts", sims=3000, seed=1,
              position="R.Y/GKR./.GK.Y/YR../.KY 2 0,0 7 0 0")
    assert out["player"] == out["proven_winner"] == 2 and out["win_probability"] == 1.0
    assert out["candidates"][0] == {"move": "Kb3,Gc4", "visits": 604, "value": 1.0,
                                    "proven_winner": 2}


def test_a_byte_order_mark_before_the_first_query_is_not_part_of_it():
    """A query file saved as "UTF-8 with BOM" had its first query refused as not JSON."""
    out = io.StringIO()
    version = b'{"id": 1, "action": "version"}'
    serve([b"\xef\xbb\xbf" + version + b"\n", b"\xef\xbb\xbf" + version + b"\n"], out)
    first, second = (json.loads(x) for x in out.getvalue().splitlines())
    assert first == {"id": 1, "version": stonegarden.__version__}
    assert second["kind"] == "ParameterError" and "BOM" in second["error"]  # not a file's start
    out = io.StringIO()
    serve(["\ufeff" + version.decode()], out)
    assert json.loads(out.getvalue())["id"] == 1


@pytest.mark.parametrize("query,kind,needle", [
    ({"game": "chess"}, "ParameterError", "unknown game"),
    ({"game": "blooms", "params": {"size": 99}}, "ParameterError", "size"),
    ({"game": "blooms", "params": {"size": "5"}}, "ParameterError", "is text"),
    ({"game": "nosuchgame"}, "ParameterError", "nosuchgame"),
    ({"game": "blooms", "moves": ["Rd4", "Rd4"]}, "RecordError", "move 1"),
    ({"game": "blooms", "moves": "Rd4"}, "ParameterError", "list of move texts"),
    ({"game": "blooms", "sims": 0}, "ParameterError", "'sims'"),
    ({"game": "blooms", "sims": 10**8}, "ParameterError", "between 1 and 10000000, not"),
    ({"game": "blooms", "seed": -1}, "ParameterError", "between 0 and 9223372036854775807"),
    ({"game": "blooms", "time": "fast"}, "ParameterError", "'time'"),
    ({"game": "blooms", "agent": "random"}, "ParameterError", "does not search"),
    ({"game": "blooms", "agent": "nobody"}, "ParameterError", "unknown agent"),
    ({"game": "blooms", "agent": "mcts:sims=10"}, "ParameterError", "the query's 'sims'"),
    ({"game": "blooms", "agent": "uct-flat:time=0.05", "sims": 9}, "ParameterError", "budget"),
    ({"game": "blooms", "colour": "red"}, "ParameterError", "unknown query keys"),
    ({"game": "blooms", "moves": [], "position": "x"}, "ParameterError", "not both"),
    ({"game": "blobs", "params": {"tumbling": True}}, "ParameterError",
     "as the next entry of 'moves'"),
    ({"game": "blobs", "params": {"tumbling": True}, "position": "h8:RB 2 47 0 ?"},
     "ParameterError", "due in position 'h8:RB 2 47 0 ?': give the position after it"),
    ({"action": "dance"}, "ParameterError", "unknown action"),
    # an analyse query with a mistyped action: its position was dropped without a word
    ({"action": "games", "game": "blooms"}, "ParameterError", "takes no other keys"),
    ({"action": "quit", "sims": 5}, "ParameterError", "not ['sims']"),
    ({"game": "freego", "params": {"size": 5}, "position": f"...../...../...../...../..... 1 "
      f"{'9' * 5000},0 4"}, "NotationError", "expected the rows, then 'to-move s1,s2 ply'"),
    ({"game": "blooms", "agent": "mcts:seed=3", "seed": 4}, "ParameterError", "a seed and so"),
    ({"game": "blooms", "agent": "mcts:rave=on,rave=off"}, "ParameterError", "given twice"),
    ({"game": "blooms", "agent": "level:1,6"}, "ParameterError", "two bare values"),
])
def test_bad_queries_get_typed_errors(query, kind, needle):
    out = answer({"id": 5, **query})
    assert out["id"] == 5 and out["kind"] == kind and needle in out["error"]


@pytest.mark.parametrize("line, named", [("null", "null"), ("[1]", "an array"),
                                         ('"games"', "a string"), ("5", "a number")])
def test_a_query_that_is_not_an_object_is_named_in_json_s_words(line, named):
    out = io.StringIO()
    serve([line], out)
    assert json.loads(out.getvalue())["error"] == f"a query is a JSON object, not {named}"


def test_a_query_of_simulations_alone_still_stops_at_the_longest_time(monkeypatch):
    """The engine answers one query at a time: a huge 'sims' must not hold the next ones
    for hours, so MAX_SECONDS bounds every search."""
    import stonegarden.analysis_engine as analysis_engine

    monkeypatch.setattr(analysis_engine, "MAX_SECONDS", 0.3)
    out = ask(game="freego", params={"size": 9}, sims=10_000_000, agent="mcts")
    assert out["seconds"] < 3 and 0 < out["sims"] < 10_000_000


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(
    st.text(max_size=40),
    st.builds(json.dumps, st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=6)),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(
            st.sampled_from(["id", "game", "params", "moves", "sims", "time", "agent", "x"]),
            c, max_size=4),
        max_leaves=8)),
), max_size=6))
@pytest.mark.slow
def test_fuzzed_lines_each_get_one_answer_and_the_engine_goes_on(lines):
    lines = [ln.replace("\n", " ").replace("\r", " ") for ln in lines]
    lines = [ln for ln in lines if ln.strip()]
    # a valid query at the end proves the engine is still running
    good = json.dumps({"id": "last", "game": "blooms", "params": {"size": 2}, "sims": 20})
    out = io.StringIO()
    serve([*lines, good], out)
    replies = [json.loads(x) for x in out.getvalue().splitlines()]  # no fuzzed line can quit
    assert len(replies) == len(lines) + 1
    assert all("error" in r for r in replies[:-1] if "best_move" not in r and "games" not in r)
    assert replies[-1]["id"] == "last" and "best_move" in replies[-1]


@pytest.mark.slow
def test_engine_command_over_a_pipe():
    lines = [
        json.dumps({"id": 1, "game": "freego", "params": {"size": 5, "target": 3}, "sims": 100}),
        "{not json",
        json.dumps({"id": 2, "action": "games"}),
        json.dumps({"id": 3, "action": "quit"}),
        json.dumps({"id": 4, "action": "games"}),
    ]
    out = run_cli("engine", input="\n".join(lines) + "\n")
    assert out.returncode == 0, out.stderr
    replies = [json.loads(x) for x in out.stdout.splitlines()]
    assert [r["id"] for r in replies] == [1, None, 2, 3]
    assert "best_move" in replies[0] and "error" in replies[1] and replies[3]["quit"]


@pytest.mark.parametrize("query,said", [
    ({"game": "blooms", "sims": True}, "'sims' must be a whole number, not true"),
    ({"game": "blooms", "params": None}, "'params' must be an object, not null"),
    ({"game": "blooms", "moves": ["Rd4", None]}, "list of move texts, not [\"Rd4\", null]"),
    ({"game": "blooms", "agent": ["mcts"]}, "an agent spec, not [\"mcts\"]"),
    ({"action": False}, "unknown action false"),
])
def test_a_refused_value_is_named_as_json_writes_it(query, said):
    """The engine named what a JSON client sent in Python's words: ``None``, ``True``,
    ``['Rd4', None]``, which the client never wrote."""
    out = answer({"id": 1, **query})
    assert out["kind"] == "ParameterError" and said in out["error"], out


@pytest.mark.parametrize("moves,said", [
    (["pass"], "move 0 ('pass'): there is no pass"),
    (["Rd4", "Zq9"], "move 1 ('Zq9'): 'Z' is not a colour"),
])
def test_a_bad_move_is_named_once(moves, said):
    """A move the game could not read was named twice (``move 0 ('pass'): 'pass': there is
    no pass``), as ``replay`` no longer does."""
    game = "freego" if moves == ["pass"] else "blooms"
    out = answer({"id": 1, "game": game, "moves": moves})
    assert out["kind"] == "RecordError" and out["error"].startswith(said), out
