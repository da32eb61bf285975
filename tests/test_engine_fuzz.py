"""``stonegarden engine`` under fuzzed input: every line gets exactly one answer, bad input a
typed error (never ``InternalError``), and the engine never exits before the end of input;
invalid UTF-8 and over-long lines included."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from stonegarden.analysis_engine import MAX_LINE, answer, bounded_lines, replies

from .conftest import cli_env
from .fuzz_values import AGENTS, GAMES, game_id, json_value, params, weird_int, weird_text

TYPED = {"ParameterError", "RecordError", "NotationError", "PositionError", "IllegalMoveError"}

# budgets that keep a search short when the rest of the query is valid
small_sims = st.one_of(st.integers(1, 20), weird_int, json_value)
small_time = st.one_of(st.floats(0.001, 0.02), weird_int, json_value)
move_text = st.one_of(weird_text, st.sampled_from(["Rd4", "Rc3,Yb2", "Kb2", "A1", "E5", "pass",
                                                    "resign", "Rb2", "B2", "+1"]))
query = st.fixed_dictionaries({}, optional={
    "id": json_value,
    "action": st.one_of(st.sampled_from(["analyse", "games", "version"]), json_value),
    "game": game_id,
    "params": st.one_of(params, st.sampled_from([{"size": 3}, {"size": 5}, {}]), json_value),
    "moves": st.one_of(st.lists(move_text, max_size=6), json_value),
    "position": st.one_of(weird_text, json_value),
    "sims": small_sims,
    "time": small_time,
    "candidates": st.one_of(st.integers(0, 6), json_value),
    "agent": st.one_of(st.sampled_from([*AGENTS, "mcts", "uct-flat"]), json_value),
    "seed": st.one_of(st.integers(-2, 2**64), json_value),
    "surprise": json_value,
})
# a query aimed at a real game, so the later checks (moves, budgets, agent) are reached too
aimed = st.builds(lambda g, q: {**q, "game": g, "params": {"size": 3} if "blooms" in g else {}},
                  st.sampled_from(GAMES), query)


def _blank(line: bytes) -> bool:
    """What the engine skips: a line of UTF-8 white space."""
    try:
        return not line.decode("utf-8").strip()
    except UnicodeDecodeError:
        return False


def check(reply: dict) -> None:
    assert "id" in reply
    if "error" in reply:
        assert reply["kind"] in TYPED, reply
        assert isinstance(reply["error"], str) and reply["error"]
    json.dumps(reply)  # always writable


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(query, aimed))
def test_every_fuzzed_query_gets_an_answer_or_a_typed_error(q):
    reply = answer(q)
    check(reply)
    if "error" not in reply and q.get("action", "analyse") == "analyse":
        assert "terminal" in reply


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.one_of(st.binary(max_size=80), st.text(max_size=80).map(str.encode),
                          query.map(lambda q: json.dumps(q).encode()),
                          query.map(lambda q: json.dumps(q).encode()).flatmap(
                              lambda b: st.integers(0, max(0, len(b) - 1)).map(
                                  lambda i: b[:i] + b"\xff" + b[i + 1:]))),
                min_size=1, max_size=5))
@example(lines=[b"\xef\xbb\xbf"])  # a file saved with a byte order mark and nothing else
@pytest.mark.slow
def test_every_fuzzed_line_gets_exactly_one_answer(lines):
    stream = io.BytesIO(b"\n".join(line.replace(b"\n", b" ") for line in lines) + b"\n")
    answers = list(replies(bounded_lines(stream)))
    # a byte order mark before the first line is no part of it (a file saved with one)
    sent = [line.replace(b"\n", b" ") for line in lines]
    sent[0] = sent[0].removeprefix(b"\xef\xbb\xbf")
    assert len(answers) == sum(1 for line in sent if not _blank(line))
    for reply in answers:
        check(reply)


def test_an_over_long_line_is_refused_and_the_next_one_answered():
    stream = io.BytesIO(b"x" * (MAX_LINE + 10) + b"\n" + b'{"id": 7, "action": "version"}\n')
    answers = list(replies(bounded_lines(stream)))
    assert answers[0]["kind"] == "ParameterError" and "too long" in answers[0]["error"]
    assert answers[1]["id"] == 7 and "version" in answers[1]


def test_the_real_engine_survives_garbage_and_answers_after_it():
    """Through the real process: invalid UTF-8, a lone surrogate, huge numbers, NaN, deep
    nesting, unknown parameters, then a real query, all answered in order."""
    bad = [b"\xff\xfe\xfa", b'{"id": "\\ud800", "game": "chess"}', b'{"id": 1e999}',
           b'{"sims": ' + b"9" * 5000 + b"}", b'{"id": NaN}', b"[" * 5000 + b"]" * 5000,
           b'{"game": "blooms", "params": {"self": 1}}',
           b'{"game": "blooms", "params": {"target": 9223372036854775808}}',
           b'{"game": "bridgego", "params": {"superko": false, "max_turns": 100000000}}',
           b'{"game": "blooms", "params": {"holes": "' + b"[" * 3000 + b'"}}',
           b'{"game": "blooms", "agent": "random:seed=-1"}', b"\x00\x01", b"{}", b"null"]
    good = b'{"id": "last", "game": "blooms", "params": {"size": 3}, "sims": 30, "seed": 1}'
    out = subprocess.run([sys.executable, "-m", "stonegarden", "engine"],
                         input=b"\n".join([*bad, good]) + b"\n", capture_output=True,
                         timeout=300, env=cli_env())
    assert out.returncode == 0, out.stderr
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(answers) == len(bad) + 1
    for reply in answers[:-1]:
        assert reply["kind"] in TYPED, reply
    assert answers[-1]["id"] == "last" and answers[-1]["best_move"]
