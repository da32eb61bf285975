"""``stonegarden replay`` and ``convert`` under fuzzed records and SGF files: every input either
works (exit 0) or gets a one-line ``error: ...`` and exit status 2; never a traceback. A record
whose stated result disagrees with its moves is refused by both."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stonegarden
from stonegarden.cli.main import cli
from stonegarden.core.record import load_record, make_record, parse_record, save_record

from .fuzz_values import json_value, weird_text

SMALL = {"blooms": {"size": 3}, "blooms-territory": {"size": 3}, "freego": {"size": 5},
         "bridgego": {"size": 5}, "blobs": {"dice": 8}}


def seeded_record(game_id: str, seed: int, plies: int = 12) -> dict:
    game = stonegarden.make(game_id, **SMALL[game_id])
    rng = np.random.default_rng(seed)
    state, moves = game.initial_state(), []
    while len(moves) < plies and not game.is_terminal(state):
        if game.current_player(state) == stonegarden.CHANCE:
            action = game.chance_outcomes(state)[0][0]
        else:
            acts = game.legal_actions(state)
            action = int(acts[rng.integers(len(acts))])
        moves.append(game.action_to_text(state, action))
        state = game.play(state, action)
    return make_record(game, moves, state).to_dict()


@pytest.fixture(scope="session")
def records() -> dict[str, dict]:
    """A record of each game, played once by the tests that use them (played at import,
    they cost every worker of the suite its games at collection)."""
    return {g: seeded_record(g, 36) for g in SMALL}


mutation = st.one_of(
    st.tuples(st.just("field"), st.sampled_from(["format", "version", "game", "params", "moves",
                                                 "result", "players", "meta", "extra"]),
              json_value),
    st.tuples(st.just("move"), st.integers(0, 15), weird_text),
    st.tuples(st.just("drop"), st.integers(0, 15), st.none()),
    st.tuples(st.just("param"), weird_text, json_value),
    st.tuples(st.just("result"), st.sampled_from(["winner", "scores", "reason"]), json_value),
)


def mutate(record: dict, changes: list) -> dict:
    out = json.loads(json.dumps(record))
    for kind, key, value in changes:
        if kind == "field":
            out[key] = value
        elif kind == "move" and isinstance(out.get("moves"), list) and out["moves"]:
            out["moves"][key % len(out["moves"])] = value
        elif kind == "drop" and isinstance(out.get("moves"), list) and out["moves"]:
            del out["moves"][key % len(out["moves"])]
        elif kind == "param" and isinstance(out.get("params"), dict):
            out["params"][key] = value
        elif kind == "result":
            result = out.get("result")
            out["result"] = {**(result if isinstance(result, dict) else {}), key: value}
    return out


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=True)


def check_outcome(result) -> None:
    """Exit 0, or exit 2 with one ``error:`` line; no exception escaped."""
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.exception, result.output[-500:])
    assert result.exit_code in (0, 2), (result.exit_code, result.output[-500:])
    if result.exit_code == 2:
        assert "error:" in result.output and "Traceback" not in result.output


@settings(max_examples=250, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.sampled_from(sorted(SMALL)), st.lists(mutation, min_size=1, max_size=3),
       st.booleans())
def test_replay_of_a_mutated_record_works_or_says_why(tmp_path: Path, records, game_id, changes,
                                                      as_json):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(mutate(records[game_id], changes)), encoding="utf-8",
                    errors="surrogatepass")
    check_outcome(run("replay", str(path), *(["--json"] if as_json else [])))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.sampled_from(sorted(SMALL)), st.lists(mutation, min_size=1, max_size=3),
       st.sampled_from([".sgf", ".json"]))
def test_convert_of_a_mutated_record_works_or_says_why(tmp_path: Path, records, game_id, changes,
                                                       ext):
    src = tmp_path / "in.json"
    src.write_text(json.dumps(mutate(records[game_id], changes)), encoding="utf-8",
                   errors="surrogatepass")
    check_outcome(run("convert", str(src), str(tmp_path / f"out{ext}")))


sgf_text = st.one_of(
    weird_text,
    st.builds(lambda head, body: head + body,
              st.sampled_from(["(;GM[1]FF[4]SZ[5]RU[stonegarden freego size=5]",
                               "(;GM[1]FF[4]SZ[5]RU[stonegarden bridgego size=5]",
                               "(;GM[1]FF[4]SZ[5]", "(;GM[2]", "(;FF[4]RU[stonegarden blooms]",
                               "(;GM[1]SZ[9]RU[stonegarden freego self=1 game_id=2]",
                               "(;GM[1]SZ[9]RU[stonegarden freego target=" + "9" * 30 + "]",
                               "(;GM[1]SZ[5]RU[stonegarden bridgego superko=off max_turns=0]"]),
              st.lists(st.one_of(st.from_regex(r";[BW]\[[a-f]{0,3}\]", fullmatch=True),
                                 st.sampled_from([";AB[aa]", ";B[]", ";W[tt]", ";RE[B+R]",
                                                  ";RE[W+5]", "(", ")", "[", "\\"]),
                                 weird_text), max_size=8).map("".join)),
)


@settings(max_examples=250, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(sgf_text, st.sampled_from([None, "freego", "bridgego", "blooms", "chess"]))
def test_convert_of_fuzzed_sgf_works_or_says_why(tmp_path: Path, text, game):
    src = tmp_path / "in.sgf"
    src.write_bytes(text.encode("utf-8", "surrogatepass"))
    check_outcome(run("convert", str(src), str(tmp_path / "out.json"),
                      *(["--game", game] if game else [])))


@pytest.mark.slow
def test_replay_and_convert_refuse_a_result_that_disagrees_with_the_moves(tmp_path: Path, cli,
                                                                          records):
    record = records["freego"]
    assert record.get("result") is None or record["result"]["winner"] is not None
    lying = {**record, "result": {"winner": 2, "reason": "target", "scores": [0, 99]}}
    path = tmp_path / "lying.json"
    path.write_text(json.dumps(lying))
    for args in (("replay", str(path)), ("replay", str(path), "--json"),
                 ("convert", str(path), str(tmp_path / "out.sgf"))):
        out = cli(*args)
        assert out.returncode == 2, (args, out.stdout[-300:], out.stderr)
        assert out.stderr.startswith("error:") and "disagree" in out.stderr
        assert "Traceback" not in out.stderr
    honest = tmp_path / "honest.json"
    honest.write_text(json.dumps(record))
    assert cli("replay", str(honest)).returncode == 0


@pytest.mark.parametrize("meta", [{"seed": np.int64(3)}, {"value": float("nan")}, {"tags": {"a"}}])
def test_a_record_holding_a_value_json_cannot_is_refused_before_anything_is_written(
        tmp_path: Path, meta):
    """A numpy integer in ``meta`` (a seed from a generator) raised TypeError, and NaN was
    written as ``NaN``, which then made the saved record unreadable."""
    game = stonegarden.make("freego", size=5)
    record = make_record(game, ["C3"], meta=meta)
    with pytest.raises(stonegarden.RecordError, match="cannot be written as JSON"):
        save_record(record, tmp_path / "game.json")
    assert list(tmp_path.iterdir()) == []
    save_record(make_record(game, ["C3"], meta={"seed": 3}), tmp_path / "game.json")
    assert load_record(tmp_path / "game.json").meta == {"seed": 3}


def test_make_record_refuses_what_a_record_cannot_read_back():
    """``make_record(game, "Rd4")`` kept the characters as three moves, which replaying then
    refused at 'R'; players that are not text gave a record ``parse_record`` refused."""
    game = stonegarden.make("blooms", size=4)
    with pytest.raises(stonegarden.RecordError, match="a list of move texts, not one string 'Rd4'"):
        make_record(game, "Rd4")
    with pytest.raises(stonegarden.RecordError, match=r"move 1 \(5\) is not a string"):
        make_record(game, ["Rd4", 5])
    with pytest.raises(stonegarden.RecordError, match="'players' must map '1'/'2' to text"):
        make_record(game, ["Rd4"], players={"1": 3})
    record = make_record(game, ["Rd4"], players={"1": "mcts", "2": "random"})
    assert parse_record(record.to_json()) == record


@pytest.mark.parametrize("change,key", [
    ({"reslt": {"winner": 2}}, "reslt"),
    ({"player": {"1": "Ann"}}, "player"),
    ({"result": {"winnr": 2}}, "result.winnr"),
])
def test_a_key_a_record_does_not_have_is_refused_by_name(records, change, key):
    """A misspelt ``"reslt"`` or a result's ``"winnr"`` was read without a word, so the result the
    writer meant to state went unchecked: the key is named, and extras go in ``meta``."""
    with pytest.raises(stonegarden.RecordError, match=f"unknown key '{key.split('.')[-1]}'") as err:
        parse_record({**records["blooms"], **change})
    assert err.value.key == key
    kept = parse_record({**records["blooms"], "meta": {"reslt": "anything"}})
    assert kept.meta == {"reslt": "anything"}


def test_replay_names_a_key_a_record_does_not_have(tmp_path: Path, cli, records):
    path = tmp_path / "typo.json"
    path.write_text(json.dumps({**records["freego"], "reslt": {"winner": 2}}))
    out = cli("replay", str(path))
    assert out.returncode == 2 and "unknown key 'reslt'" in out.stderr
    assert "(anything else goes in 'meta')" in out.stderr


def test_a_record_nested_too_deeply_is_refused_in_words(tmp_path: Path, cli):
    """Python's "maximum recursion depth exceeded while decoding a JSON array" told a reader
    of the record nothing they could act on."""
    path = tmp_path / "deep.json"
    path.write_text('{"format": "stonegarden-record", "version": 1, "game": "freego", '
                    '"moves": [], "meta": {"a": ' + "[" * 30_000 + "]" * 30_000 + "}}")
    out = cli("replay", str(path))
    assert out.returncode == 2 and "record is nested too deeply to read" in out.stderr
    assert "recursion" not in out.stderr
