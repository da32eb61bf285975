"""Layer 6: the real ``stonegarden`` entry point, run as a process."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import DATA, cli_env, ctrl_c_as_in_a_terminal, run_cli

ORACLE = sorted((DATA / "oracle" / "blooms").glob("*.json"))


@pytest.mark.parametrize("path", ORACLE, ids=[p.stem for p in ORACLE])
@pytest.mark.slow
def test_replay_json_matches_the_independent_oracle(path, tmp_path):
    data = json.loads(path.read_text())
    rec = tmp_path / "game.json"
    rec.write_text(json.dumps(data["record"]))
    out = run_cli("replay", str(rec), "--json")
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert rows == data["expected"]
    # equal dicts can still differ in the contract: key order, and 1 for true or 0 for false
    assert [_shape(row) for row in rows] == [_shape(row) for row in data["expected"]]


def _shape(row: dict) -> list[tuple[str, str]]:
    """A replay line's keys in order, each with its JSON type."""
    return [(key, type(value).__name__) for key, value in row.items()]


CONTRACT_KEYS = ["ply", "player", "move", "legal_moves", "captured", "self_captured", "scores",
                 "terminal", "winner"]


@pytest.mark.parametrize("game,params,moves", [
    ("blooms", {"size": 3, "target": 1}, ["Rc3", "Kb2,Gc2", "Ra1", "resign"]),
    ("blooms-territory", {"size": 3}, ["Rc3", "pass", "Yb1", "pass", "pass"]),
    ("freego", {"size": 5}, ["C3", "D4", "B2"]),
    ("bridgego", {"size": 3}, ["B2", "A2", "B1", "C2", "B3"]),
    ("blobs", {"dice": 4, "tumbling": True}, ["roll:M", "h9M", "roll:M", "g8M", "roll:M", "g9M"]),
])
@pytest.mark.slow
def test_replay_json_lines_keep_the_contracts_keys_in_order(tmp_path, game, params, moves):
    rec = tmp_path / "game.json"
    rec.write_text(json.dumps({"format": "stonegarden-record", "version": 1, "game": game,
                               "params": params, "moves": moves}))
    out = run_cli("replay", str(rec), "--json")
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [row["move"] for row in rows] == moves
    extras = ["auto_moves", "dice_left"] if game == "blobs" else []
    for row in rows:
        keys = [k for k in CONTRACT_KEYS + extras if k != "player" or not row["move"].startswith("roll:")]
        assert list(row) == keys
        assert all(type(row[k]) is int for k in ("ply", "legal_moves", "captured", "self_captured"))
        assert row.get("player", 1) in (1, 2) and type(row.get("player", 1)) is int
        assert [type(v) for v in row["scores"]] == [int, int]
        assert type(row["terminal"]) is bool
        assert row["winner"] is None if not row["terminal"] else type(row["winner"]) is int
    assert rows[-1]["terminal"] is (game != "freego")


def write_record(tmp_path: Path, moves, **extra) -> Path:
    rec = {"format": "stonegarden-record", "version": 1, "game": "blooms",
           "params": {"size": 4}, "moves": moves, **extra}
    p = tmp_path / "r.json"
    p.write_text(json.dumps(rec))
    return p


@pytest.mark.slow
def test_replay_stops_at_an_illegal_move_with_status_2(tmp_path):
    p = write_record(tmp_path, ["Rd4", "Kb5,Ga4", "Rd4"])
    out = run_cli("replay", str(p), "--json")
    assert out.returncode == 2
    assert len(out.stdout.splitlines()) == 2
    err = out.stderr.strip().splitlines()
    assert len(err) == 1 and "ply 2" in err[0] and "'Rd4'" in err[0] and "occupied" in err[0]


@pytest.mark.slow
def test_replay_malformed_move_names_ply_and_text(tmp_path):
    p = write_record(tmp_path, ["Rd4", "K??"])
    out = run_cli("replay", str(p), "--json")
    assert out.returncode == 2 and "ply 1" in out.stderr and "'K??'" in out.stderr


@pytest.mark.parametrize(
    "content,needle",
    [
        ("not json", "not valid JSON"),
        ("[]", "a record is a JSON object, not an array"),
        ("null", "a record is a JSON object, not null"),
        ('{"format": "stonegarden-record", "version": true, "game": "blooms", "moves": []}', "version"),
        ('{"format": "stonegarden-record", "version": 1, "game": "chess", "moves": []}', "unknown game"),
        ('{"format": "stonegarden-record", "version": 1, "game": "blooms", "params": {"size": 99}, "moves": []}', "size"),
        ('{"format": "stonegarden-record", "version": 1, "game": "blooms", "params": {"colour": 1}, "moves": []}', "no parameter 'colour'"),
        ('{"format": "stonegarden-record", "version": 2, "game": "blooms", "moves": []}', "version"),
        ('{"format": "stonegarden-record", "version": 1, "game": "blooms", "moves": [], '
         '"meta": {"x": NaN}}', "NaN is not a JSON number"),
        ('{"format": "stonegarden-record", "version": 1, "game": "blooms", "moves": [], '
         '"meta": {"x": ' + "9" * 5001 + "}}", "not valid JSON"),
    ],
)
@pytest.mark.slow
def test_replay_bad_records_fail_cleanly(tmp_path, content, needle):
    p = tmp_path / "bad.json"
    p.write_text(content)
    for args in (["replay", str(p), "--json"], ["convert", str(p), str(tmp_path / "out.json")]):
        out = run_cli(*args)
        assert out.returncode == 2, args
        assert needle in out.stderr, args
        assert "Traceback" not in out.stderr
    assert not (tmp_path / "out.json").exists()  # convert writes no record replay refuses


@pytest.mark.parametrize("content, said", [
    ("", "record is empty: the file holds no text"),
    ("[]", "a record is a JSON object, not an array"),
])
def test_convert_names_the_file_that_is_not_a_record(tmp_path, content, said):
    from click.testing import CliRunner

    from stonegarden.cli.main import cli

    bad = tmp_path / "bad.json"
    bad.write_text(content)
    out = CliRunner().invoke(cli, ["convert", str(bad), str(tmp_path / "out.sgf")])
    assert out.exit_code == 2 and out.output == f"error: {str(bad)!r}: {said}\n"



def test_convert_reads_standard_input_and_writes_standard_output_in_the_format_given(tmp_path):
    """``convert - OUT`` was refused ("'-': unknown extension"), where ``replay -`` and
    ``analyse -`` read standard input: ``--from`` and ``--to`` give the format of ``-``, the
    converted game alone goes to standard output and the line saying so to standard error."""
    from click.testing import CliRunner

    from stonegarden.cli.main import cli
    from stonegarden.core.record import Record, save_record

    record = tmp_path / "game.json"
    save_record(Record(game="freego", params={"size": 5}, moves=("C3", "D4")), record)
    runner = CliRunner()
    made = runner.invoke(cli, ["convert", str(record), str(tmp_path / "game.sgf")])
    assert made.exit_code == 0, made.output
    sgf = (tmp_path / "game.sgf").read_text()
    out = runner.invoke(cli, ["convert", "--from", "json", "--to", "sgf", "-", "-"],
                        input=record.read_text())
    assert out.exit_code == 0, out.stderr
    assert out.stdout == sgf and out.stderr == "- -> -: freego, 2 moves\n"
    out = runner.invoke(cli, ["convert", "--from", "sgf", "-", str(tmp_path / "back.json")],
                        input=sgf)
    assert out.exit_code == 0, out.stderr
    assert (tmp_path / "back.json").read_text() == record.read_text()
    for args, said in ((["-", "x.sgf"], "give --from sgf or --from json"),
                       ([str(record), "-"], "give --to sgf or --to json")):
        out = runner.invoke(cli, ["convert", *args], input="")
        assert out.exit_code == 2 and said in out.stderr, out.stderr

@pytest.mark.slow
def test_replay_missing_file(tmp_path):
    out = run_cli("replay", str(tmp_path / "nope.json"))
    assert out.returncode == 2 and "cannot read record" in out.stderr


@pytest.mark.slow
def test_replay_rejects_moves_after_the_end(tmp_path):
    data = json.loads(ORACLE[0].read_text())["record"]
    p = tmp_path / "long.json"
    p.write_text(json.dumps({**data, "moves": [*data["moves"], "Ka1"]}))
    out = run_cli("replay", str(p), "--json")
    assert out.returncode == 2 and "already over" in out.stderr


def test_replay_rejects_a_wrong_result(tmp_path):
    data = json.loads(ORACLE[0].read_text())
    p = tmp_path / "res.json"
    p.write_text(json.dumps({**data["record"], "result": {"winner": 2}}))
    from stonegarden.core.record import load_record, replay_record

    with pytest.raises(Exception, match="winner"):
        replay_record(load_record(p))


@pytest.mark.slow
def test_replay_json_under_the_territory_rules(tmp_path):
    """Scores are the board score (stones plus territory), a pass counts once among the legal
    moves, and a tie after two passes goes to the first passer."""
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"format": "stonegarden-record", "version": 1,
                             "game": "blooms-territory", "params": {"size": 2},
                             "moves": ["Rb1", "Kb3", "pass", "PASS"]}))
    out = run_cli("replay", str(p), "--json")
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]

    def row(ply, move, legal, scores, terminal=False, winner=None):
        return {"ply": ply, "player": 1 + ply % 2, "move": move, "legal_moves": legal,
                "captured": 0, "self_captured": 0, "scores": scores, "terminal": terminal,
                "winner": winner}

    assert rows == [
        row(0, "Rb1", 2 * 7, [7, 0]),  # the stone and the six cells it alone touches
        row(1, "Kb3", 2 * 6 + 6 * 5 + 1, [1, 1]),  # the empty region touches both players
        row(2, "pass", 2 * 5 + 5 * 4 + 1, [1, 1]),
        row(3, "pass", 2 * 5 + 5 * 4 + 1, [1, 1], terminal=True, winner=1),
    ]


@pytest.mark.slow
def test_replay_without_json_prints_diagrams(tmp_path):
    p = write_record(tmp_path, ["Rd4", "Kb5,Ga4", "resign"])
    out = run_cli("replay", str(p))
    assert out.returncode == 0, out.stderr
    assert "2. player 2: Kb5,Ga4" in out.stdout
    assert "to_move=1" in out.stdout
    assert "result: winner 2 (resign)" in out.stdout  # player 1 resigned at ply 2


@pytest.mark.slow
def test_play_in_the_terminal_with_undo_bad_input_resign_and_save(tmp_path):
    save = tmp_path / "game.json"
    script = "\n".join(["help", "Rd4", "undo", "Zz9", "Rq1", "Kd4", "Yd4", "moves", "resign"]) + "\n"
    out = run_cli("play", "blooms", "--p2", "random:seed=3", "--save", str(save), input=script)
    assert out.returncode == 0, out.stderr
    assert "took back 2 move(s)" in out.stdout
    assert "not a colour" in out.stdout  # Zz9
    assert "not on a size-4 board" in out.stdout  # Rq1
    assert "belongs to player 2" in out.stdout  # Kd4
    assert "player 2 wins: Player 1 resigned" in out.stdout
    rec = json.loads(save.read_text())
    assert rec["moves"][0] == "Yd4" and rec["moves"][-1] == "resign"
    assert rec["result"]["winner"] == 2 and rec["players"] == {"1": "human", "2": "random:seed=3"}
    replayed = run_cli("replay", str(save), "--json")
    assert replayed.returncode == 0 and json.loads(replayed.stdout.splitlines()[-1])["winner"] == 2


@pytest.mark.slow
def test_play_between_two_agents_runs_to_the_end(tmp_path):
    out = run_cli("play", "blooms", "--param", "size=3", "--param", "target=5",
                  "--p1", "random:seed=1", "--p2", "random:seed=2", input="")
    assert out.returncode == 0, out.stderr
    assert "Game over" in out.stdout


@pytest.mark.slow
def test_play_end_of_input_leaves_cleanly():
    out = run_cli("play", "blooms", input="")
    assert out.returncode == 0 and "end of input" in out.stdout


@pytest.mark.parametrize("args,needle", [
    (["play", "blooms", "--p2", "alphazero"], "unknown agent"),
    (["play", "blooms", "--p2", "random:depth=3"], "unknown option"),
    (["play", "chess"], "unknown game"),
    (["play", "blooms", "--param", "size=x"], "not an integer"),
    (["play", "blooms", "--param", "size"], "name=value"),
    (["bench", "playouts", "blooms", "--param", "target=0"], "below 1"),
    (["bench", "playouts", "blooms", "--seconds", "nan"], "not a number"),
    (["bench", "search", "blooms", "--seconds", "inf"], "not a number"),
    (["bench", "search", "blooms", "--seconds", "1e400"], "not in the range"),
    (["bench", "playouts", "blooms", "--seed", "9" * 23], "not in the range"),
    (["play", "blooms", "--p1", "random", "--seed=-1"], "not in the range"),
    (["play", "freego", "--p1", "random", "--save", "/nonexistent/x.json"], "cannot save"),
    (["analyse", "/nonexistent.json", "--time", "nan"], "not a number"),
    (["ladder", "freego", "--key", "sims", "--base", "100", "--steps", "3000", "--games", "1",
      "--out", "/nonexistent/l"], "not in the range"),
    (["sweep", "freego", "--grid", "target=1:100000000000", "--agent", "random", "--games", "1",
      "--out", "/nonexistent/s"], "more than 10000 values"),
    (["replay", "/dev/zero", "--json"], "larger than any record"),
    (["train", "blooms", "--steps", "9" * 20, "--out", "/proc/t"], "not in the range"),
])
@pytest.mark.slow
def test_bad_command_line_input_exits_2_with_one_line(args, needle):
    out = run_cli(*args, input="")
    assert out.returncode == 2
    assert needle in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow
def test_bench_playouts_prints_one_json_line():
    out = run_cli("bench", "playouts", "blooms", "--param", "size=5", "--param", "target=20",
                  "--seconds", "0.5", "--json")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 1
    row = json.loads(lines[0])
    assert row["playouts"] > 0 and row["playouts_per_s"] > 0 and 20 < row["mean_turns"] < 100
    assert row["p1_wins"] + row["p2_wins"] + row["draws"] == row["playouts"]


@pytest.mark.slow
def test_games_lists_every_game_with_parameters():
    out = run_cli("games")
    assert out.returncode == 0
    assert "blooms-territory" in out.stdout and "superko" in out.stdout
    territory = out.stdout.split("blooms-territory:")[1].split("freego:")[0]
    assert "max_turns (default none)" in territory  # no turn limit, nothing derived
    assert "max_turns (default derived)" in out.stdout.split("bridgego:")[1]
    # defaults as --param takes them, not Python's forms
    assert "holes (default empty)" in out.stdout and "start_scores (default 0,0)" in out.stdout
    assert "superko (default false)" in territory and "()" not in out.stdout


def test_games_gives_the_values_each_parameter_takes():
    """What an out-of-range value's error would say, before it is given; not for a choice
    whose words already name every value."""
    from click.testing import CliRunner

    from stonegarden.cli.main import cli

    out = CliRunner().invoke(cli, ["games"]).output
    race = out.split("blooms-territory:")[0]
    assert "size (default 4): cells per side of the hexhex board [2..12]" in race
    assert "[1..1000]" in race and "[up to 400 names]" in race
    assert "start_scores (default 0,0): scores at the start (handicap), each below the " \
           "target [two integers, each 0..999]" in race
    assert "size (default 9): points per side of the square board [3..19]" in out
    assert "[before-self-capture, after-self-capture]" in out and "[1..225]" in out
    assert "ko rule: simple, superko or none\n" in out and "[true, false]" not in out
    # a choice's words say what each value does, not only its name
    assert "win (default either): what gives a player a win: either (a closed blob of its " \
           "colour, or a white circle), white (a white circle), own (a closed blob of its " \
           "colour), enemy (a closed blob of the opponent's colour)\n" in out


def test_replay_ends_with_the_score_that_decided_a_territory_game(tmp_path):
    """The diagram's status line holds the capture scores, 0,0 under the territory rules: the
    result line gives the board score that won (as the terminal game's end does)."""
    from click.testing import CliRunner

    from stonegarden.cli.main import cli

    path = tmp_path / "territory.json"
    path.write_text(json.dumps({
        "format": "stonegarden-record", "version": 1, "game": "blooms-territory",
        "params": {"size": 3}, "moves": ["Yb3", "Ka2,Gb1", "Rd4,Yc1", "Kd2", "Rc3,Ya1",
                                         "Kb2,Ge1", "Rb4,Yc4", "pass", "pass"]}))
    out = CliRunner().invoke(cli, ["replay", str(path)]).output
    assert "scores=0,0 ply=9" in out
    assert out.rstrip().endswith("result: winner 1 (two-passes); scores 7 : 6")


@pytest.mark.slow
def test_version():
    out = run_cli("--version")
    assert out.returncode == 0 and "stonegarden" in out.stdout


def test_play_shows_no_position_fields_numbers_both_axes_and_a_legal_help_example():
    out = run_cli("play", "blooms", "--param", "size=4", "--p2", "random:seed=1",
                  input="help\nquit\n")
    assert out.returncode == 0, out.stderr
    assert "to_move=" not in out.stdout  # the position fields are for replay, not for play
    lines = out.stdout.splitlines()
    assert any(line.strip() == "1 2 3 4" for line in lines)  # numbers above and below
    assert any(line.startswith("d  ") and line.rstrip().endswith("d7") for line in lines)
    example = re.search(r"e\.g\. (\S+)\)", out.stdout).group(1)
    from stonegarden.core.registry import make

    game = make("blooms", size=4)
    game.play_text(game.initial_state(), example)  # legal as the first move
    help_lines = out.stdout[out.stdout.index("Type a move"):].splitlines()[:4]
    assert help_lines[-1].rstrip().endswith("record)")  # not wrapped


@pytest.mark.parametrize("result,needle", [
    ({"winner": 1, "reason": "target", "scores": [0, 0]}, "result reason 'target'"),
    ({"winner": 1, "reason": "no-such-reason"}, "result reason 'no-such-reason'"),
])
def test_a_result_whose_reason_disagrees_with_the_replay_is_refused(tmp_path, result, needle):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"format": "stonegarden-record", "version": 1, "game": "freego",
                                "moves": ["E5", "resign"], "result": result}))
    out = run_cli("replay", str(path), "--json")
    assert out.returncode == 2 and needle in out.stderr and "('resign')" in out.stderr


def test_a_reason_given_for_a_game_that_goes_on_is_refused(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"format": "stonegarden-record", "version": 1, "game": "freego",
                                "moves": ["E5"], "result": {"reason": "resign"}}))
    out = run_cli("replay", str(path))
    assert out.returncode == 2 and "the game is not over" in out.stderr


def test_an_entry_that_is_not_text_comes_after_the_lines_before_it(tmp_path):
    """The replay contract: the lines before a malformed entry, then the error naming it."""
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"format": "stonegarden-record", "version": 1, "game": "freego",
                                "moves": ["E5", 5]}))
    out = run_cli("replay", str(path), "--json")
    assert out.returncode == 2
    assert [json.loads(line)["move"] for line in out.stdout.splitlines()] == ["E5"]
    assert out.stderr.startswith("error: ply 1: move 1 (5) is not a string")


def test_a_record_read_from_a_pipe_is_read_once(tmp_path):
    """The lines before a malformed entry came from reading the file again: a pipe is
    read once."""
    text = json.dumps({"format": "stonegarden-record", "version": 1, "game": "freego",
                       "moves": ["E5", 5]})
    out = run_cli("replay", "/dev/stdin", "--json", input=text)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert [json.loads(line)["move"] for line in out.stdout.splitlines()] == ["E5"]


def test_a_malformed_entry_is_the_error_even_when_more_is_malformed(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"format": "stonegarden-record", "version": 1, "game": "freego",
                                "moves": ["E5", 5], "players": 7}))
    out = run_cli("replay", str(path))
    assert out.returncode == 2 and "move 1 (5) is not a string" in out.stderr


@pytest.mark.parametrize("params,needle", [
    ({"size": "9"}, "parameter 'size': '9' is text, not the number a record holds"),
    ({"superko": "yes"}, "parameter 'superko': 'yes' is text, not the true or false a record"),
    ({"holes": "d4"}, "parameter 'holes': 'd4' is text, not the list of texts a record holds"),
])
def test_a_record_parameter_in_text_is_refused(tmp_path, params, needle):
    """A record holds parameters in their JSON form, as it writes them; the command line's
    text form is not a record's. The form is named in words (it was "the str list", "the
    int")."""
    game = "blooms" if "holes" in params else "bridgego" if "superko" in params else "freego"
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"format": "stonegarden-record", "version": 1, "game": game,
                                "params": params, "moves": []}))
    out = run_cli("replay", str(path))
    assert out.returncode == 2 and needle in out.stderr


@pytest.mark.parametrize("game,params,needle", [
    ("blooms-territory", {"superko": None}, "parameter 'superko': null is not true or false"),
    ("blooms", {"size": True}, "parameter 'size': true is not an integer"),
    ("blooms-territory", {"max_turns": False}, "parameter 'max_turns': false is not an integer "
                                               "or null"),
    ("blooms", {"holes": [True]}, "parameter 'holes': [true] is not a list of texts"),
    ("blooms", {"start_scores": [None, 0]}, "parameter 'start_scores': [null, 0] is not a list "
                                            "of two integers"),
])
def test_a_record_parameter_of_the_wrong_kind_is_named_in_json_words(tmp_path, game, params,
                                                                     needle):
    """The record says ``null`` and ``true``: the message said ``None`` and ``True``."""
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"format": "stonegarden-record", "version": 1, "game": game,
                                "params": params, "moves": []}))
    out = run_cli("replay", str(path), "--json")
    assert out.returncode == 2 and needle in out.stderr, out.stderr
    assert "None" not in out.stderr and "True" not in out.stderr and "False" not in out.stderr


def test_a_null_parameter_with_a_derived_default_takes_the_default(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"format": "stonegarden-record", "version": 1, "game": "blooms",
                                "params": {"size": 5, "target": None}, "moves": ["Rd4"]}))
    out = run_cli("replay", str(path), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["legal_moves"] == 2 * 61


@pytest.mark.parametrize("args", [
    ("bench", "playouts", "blooms", "--param", "size=3", "--param", "size=5", "--seconds", "0.1"),
    ("study", "blooms", "--param", "target=5", "--param", "target=9", "--agent", "random",
     "--games", "2", "--out", "never-made"),
])
def test_a_parameter_given_twice_is_refused(args):
    """``--param size=3 --param size=5`` kept the last value without a word."""
    out = run_cli(*args)
    assert out.returncode == 2 and "given twice" in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_replay_names_an_unreadable_move_once(tmp_path):
    """The error read ``ply 1 ('Zq9'): 'Zq9': 'Z' is not a colour``: the text twice."""
    p = write_record(tmp_path, ["Rd4", "Zq9"])
    out = run_cli("replay", str(p), "--json")
    assert out.returncode == 2
    assert out.stderr.strip() == "error: ply 1 ('Zq9'): 'Z' is not a colour (R, Y, K or G)"


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
@pytest.mark.parametrize("args, query", [
    (["engine", "--threads", "1"], '{"action": "version"}\n'),
    (["engine", "--threads", "1"], '{"action": "version"}\n{"game": "freego", "time": 60}\n'),
])
def test_ctrl_c_in_any_command_exits_130_in_one_line(args, query, stop):
    """SIGTERM (``timeout``, ``kill``) ended engine, bench, replay, convert, play and the lab
    without a word, as analyse, match, train and warm-up did not: every command but serve
    takes it as Ctrl-C now."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "stonegarden", *args], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env(),
        preexec_fn=ctrl_c_as_in_a_terminal)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(query)
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["version"]  # inside the command now
        proc.send_signal(stop)  # waiting for a query, or in the middle of a search
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert err.strip() == "interrupted" and out == ""


def test_a_command_run_in_a_process_gives_it_its_sigterm_handler_back():
    """The commands take SIGTERM as Ctrl-C while they run: a program (a test) that runs one
    keeps its own handler afterwards."""
    from click.testing import CliRunner

    from stonegarden.cli.main import cli

    def mine(signum, frame):
        pass

    before = signal.signal(signal.SIGTERM, mine)
    try:
        assert CliRunner().invoke(cli, ["games"]).exit_code == 0
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, before)


#: run as ``python -c``: the commands' first import (numpy, numba) is stopped as a Ctrl-C would
#: stop it, wherever in that second it falls
CTRL_C_IN_THE_IMPORT = """
import sys
class Stop:
    def find_spec(self, name, path=None, target=None):
        if name == "numba":
            raise KeyboardInterrupt
sys.meta_path.insert(0, Stop())
sys.argv = ["stonegarden", "games"]
from stonegarden.cli import main
main()
"""


def test_ctrl_c_while_the_commands_are_imported_is_one_line_not_a_traceback():
    """Loading numpy and numba takes a second or more on a busy machine, before the command
    runs: a Ctrl-C then printed a traceback from the middle of numpy."""
    out = subprocess.run([sys.executable, "-c", CTRL_C_IN_THE_IMPORT], capture_output=True,
                         text=True, env=cli_env(), timeout=120)
    assert (out.returncode, out.stderr.strip(), out.stdout) == (130, "interrupted", "")


#: run as ``python -m`` (as ``stonegarden`` and ``python -m stonegarden`` run, where ``-c``
#: exits otherwise): a command is stopped by a Ctrl-C that strikes inside text run by
#: ``exec``, as one striking while SciPy is imported does (it runs ``from numpy import *`` so)
CTRL_C_IN_TEXT_RUN_BY_EXEC = """
import sys
from stonegarden.cli import info, main
info.games.callback = lambda *args, **kwargs: exec("raise KeyboardInterrupt")
sys.argv = ["stonegarden", "games"]
main()
"""


def test_ctrl_c_inside_text_run_by_exec_still_exits_130_not_by_a_signal(tmp_path):
    """The command said "interrupted", and then the interpreter killed itself with SIGINT
    (status -2 to its parent), taking the Ctrl-C, caught, for one no one had caught."""
    (tmp_path / "stopped_in_exec.py").write_text(CTRL_C_IN_TEXT_RUN_BY_EXEC)
    out = subprocess.run([sys.executable, "-m", "stopped_in_exec"], cwd=tmp_path,
                         capture_output=True, text=True, env=cli_env(), timeout=120)
    assert (out.returncode, out.stderr.strip(), out.stdout) == (130, "interrupted", "")


def test_the_package_and_its_command_line_load_no_numba_before_a_command_runs():
    """What the entry point imports before it can answer a Ctrl-C is Python's own time."""
    probe = ("import sys, stonegarden, stonegarden.cli; "
             "print(sorted({'numba', 'numpy', 'click'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env=cli_env(), timeout=120, check=True)
    assert out.stdout.strip() == "[]"


def _commands(group, prefix=()):
    import click

    ctx = click.Context(group)
    for name in group.list_commands(ctx):  # the top group loads its commands as they are named
        command = group.get_command(ctx, name)
        yield (*prefix, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))


def test_every_option_of_every_command_says_what_it_does():
    import click
    from click.testing import CliRunner

    from stonegarden.cli.main import cli

    silent = [(" ".join(path), option.opts) for path, command in _commands(cli)
              for option in command.params
              if isinstance(option, click.Option) and not option.hidden and not option.help]
    assert silent == []
    shown = CliRunner().invoke(cli, ["serve", "--help"], terminal_width=200)
    assert shown.exit_code == 0 and "port to listen on" in shown.output
    assert "$XDG_DATA_HOME/stonegarden/games.db" in shown.output  # the default it takes


def test_a_number_option_reads_ascii_digits_only_as_agent_specs_do():
    """click reads numbers with ``int`` and ``float``: ``--seconds 0_5`` measured for five
    seconds, ``--seed ٥`` was seed 5 and ``--base inf`` passed a range with no top."""
    import click
    from click.testing import CliRunner

    from stonegarden.cli.common import FiniteRange, WholeRange
    from stonegarden.cli.main import cli

    numbers = [(" ".join(path), option) for path, command in _commands(cli)
               for option in command.params
               if isinstance(option.type, (click.types.IntParamType, click.types.FloatParamType))]
    assert len(numbers) > 20
    assert [(path, option.opts) for path, option in numbers
            if not isinstance(option.type, (WholeRange, FiniteRange))] == []
    for args, said in (
            (["play", "--seed", "5_0"], "'5_0' is not a whole number (digits 0-9 only)."),
            (["serve", "--port", "8_080"], "'8_080' is not a whole number"),
            (["play", "--seed", "\u0665"], "is not a whole number"),
            (["analyse", "-", "--ply", "1_5"], "'1_5' is not a whole number"),
            (["bench", "playouts", "blooms", "--seconds", "0_5"],
             "'0_5' is not a number (digits 0-9, and a point: 2.5)."),
            (["bench", "playouts", "blooms", "--seconds", "\u0660.\u0665"], "is not a number"),
            (["bench", "playouts", "blooms", "--seconds", "1e999"], "is not in the range"),
            (["ladder", "blooms", "--games", "1", "--out", "l", "--base", "inf"], "not a number"),
            (["match", "blooms", "random", "random", "--games", "9" * 5000],
             "'" + "9" * 36 + "... is not in the range 1<=x<=")):
        out = CliRunner().invoke(cli, args)
        assert out.exit_code == 2 and said in out.output, (args, out.output)
        assert len(out.output) < 400


def test_the_lazy_command_group_lists_each_command_with_its_modules_own_help():
    import importlib

    import click
    from click.testing import CliRunner

    # the module, not the entry point of the same name that stonegarden.cli defines
    main = importlib.import_module("stonegarden.cli.main")

    modules = {p.stem for p in Path(main.__file__).parent.glob("*.py")}
    commands = {command.name: command
                for module in sorted(modules - {"__init__", "__main__", "main"})
                for command in vars(importlib.import_module(f"stonegarden.cli.{module}")).values()
                if isinstance(command, click.Command)
                and command.callback is not None
                and command.callback.__module__ == f"stonegarden.cli.{module}"
                and not (command.name or "").startswith("_")}
    top = {name: command for name, command in commands.items()
           if not any(name in getattr(group, "commands", {}) for group in commands.values())}
    assert sorted(top) == main.cli.list_commands(click.Context(main.cli))
    for name, command in top.items():
        assert main.cli.get_command(click.Context(main.cli), name) is command
    # the same --help as the group with every command added, at any width
    eager = click.Group(main.cli.name, commands=top, help=main.cli.help,
                        epilog=main.cli.epilog, params=main.cli.params,
                        context_settings=main.cli.context_settings)
    for width in (60, 80, 200):
        lazy = CliRunner().invoke(main.cli, ["--help"], terminal_width=width)
        full = CliRunner().invoke(eager, ["--help"], terminal_width=width)
        assert lazy.exit_code == 0 and lazy.output == full.output
        assert "  warm-up  Compile" in lazy.output


def test_no_commands_help_shows_a_range_of_none():
    """An option with no range of its own (``analyse --ply``, whose range is the record's)
    was shown in ``--help`` as ``[x<=None]``."""
    import click
    from click.testing import CliRunner

    from stonegarden.cli.main import cli

    def commands(group: click.Group, path: list[str]) -> list[list[str]]:
        found = []
        for name in group.list_commands(click.Context(group)):
            command = group.get_command(click.Context(group), name)
            if isinstance(command, click.Group):
                found += commands(command, [*path, name])
            else:
                found.append([*path, name])
        return found

    every = commands(cli, [])
    assert ["analyse"] in every and ["bench", "search"] in every
    for path in every:
        out = CliRunner().invoke(cli, [*path, "--help"], terminal_width=200)
        assert out.exit_code == 0, (path, out.output)
        assert "None]" not in out.output, (path, out.output)
    ply = CliRunner().invoke(cli, ["analyse", "--help"], terminal_width=200).output
    assert "--ply INTEGER RANGE" in ply and "analyse the position after" in ply


def test_help_and_a_light_command_import_no_other_commands_module():
    """``--help`` and ``serve`` load neither the search's modules nor numba (a second of CPU
    at every start of a server or a command)."""
    probe = ("import runpy, sys\n"
             "try:\n    runpy.run_module('stonegarden', run_name='__main__')\n"
             "except SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.startswith('stonegarden.cli.')"
             " or m == 'numba'), file=sys.stderr)")
    for args, loaded in ((["--help"], ["stonegarden.cli.main"]),
                         (["serve", "--help"], ["stonegarden.cli.common", "stonegarden.cli.main",
                                                "stonegarden.cli.serve"])):
        out = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True,
                             text=True, env=cli_env(), timeout=120)
        assert out.stdout.startswith("Usage:"), out.stderr
        assert out.stderr.strip().splitlines()[-1] == str(loaded)


def test_warm_up_of_an_unknown_game_is_one_line_before_any_bar():
    out = run_cli("warm-up", "--game", "blooms", "--game", "nosuch")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.splitlines() == [
        "error: unknown game 'nosuch' (known: blooms, blooms-territory, freego, bridgego, blobs)"]
    # the mark --if-needed reads is of every game: with --game it would be ignored
    out = run_cli("warm-up", "--game", "blooms", "--if-needed")
    assert out.returncode == 2 and out.stderr.splitlines() == [
        "error: --if-needed is for every game: give it without --game"]


def test_warm_up_into_a_kernel_cache_on_a_read_only_disk_is_refused_before_compiling(
        read_only_folder, monkeypatch):
    from click.testing import CliRunner
    from numba.core import config

    from stonegarden.cli.main import cli

    monkeypatch.setattr(config, "CACHE_DIR", str(read_only_folder))
    out = CliRunner().invoke(cli, ["warm-up"])
    assert out.exit_code == 2, out.output
    assert out.output.splitlines() == [
        f"error: the kernel cache {str(read_only_folder)!r} cannot be written (Read-only file "
        "system): point NUMBA_CACHE_DIR at a folder that can"]


def test_a_review_or_warm_up_into_a_log_says_how_far_it_got(tmp_path):
    save = tmp_path / "g.json"
    assert run_cli("play", "blooms", "--param", "size=3", "--param", "target=3",
                   "--p1", "random:seed=1", "--p2", "random:seed=2", "--save", str(save),
                   input="").returncode == 0
    n = len(json.loads(save.read_text())["moves"])
    out = run_cli("analyse", str(save), "--review", "--sims", "5", "--threads", "1", "--json")
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["moves"]) == n  # the lines go to stderr only
    assert re.search(rf"^review: 1/{n} moves, 0:00:\d\d elapsed", out.stderr, re.M)
    assert f"review: {n}/{n} moves" in out.stderr
    quiet = run_cli("analyse", str(save), "--review", "--sims", "5", "--threads", "1",
                    "--json", "--quiet")
    assert quiet.returncode == 0 and "review" not in quiet.stderr
    warm = run_cli("warm-up", "--game", "blooms", "--game", "freego", "--jobs", "1")
    assert warm.returncode == 0, warm.stderr
    assert "compiling blooms (1 of 2)" in warm.stderr and "compiling freego (2 of 2)" in warm.stderr
    # in processes, each game is said as it is ready (in the order they finish)
    warm = run_cli("warm-up", "--game", "blooms", "--game", "freego", "--jobs", "2")
    assert warm.returncode == 0, warm.stderr
    ready = re.findall(r"^(blooms|freego) ready \((\d) of 2\), \d+ s elapsed$", warm.stderr, re.M)
    assert sorted(game for game, _ in ready) == ["blooms", "freego"]
    assert [done for _, done in ready] == ["1", "2"]


def test_a_model_of_another_game_is_refused_before_any_game_starts(tmp_path):
    from stonegarden import make
    from stonegarden.errors import quote
    from stonegarden.search.profile import profile_for

    spec = f"mcts:model={profile_for(make('blooms')).shipped_model_path()},sims=5"
    play = run_cli("play", "freego", "--param", "size=5", "--p2", spec, input="C3\n")
    assert play.returncode == 2 and play.stdout == ""  # refused before the board, not after C3
    out = tmp_path / "study"
    for args in (["match", "freego", spec, "random", "--games", "2"],
                 ["study", "freego", "--agent", spec, "--games", "2", "--out", str(out)]):
        refused = run_cli(*args, "--param", "size=5")
        assert refused.returncode == 2, args
        assert refused.stderr.splitlines() == [
            # the spec is cut to 80 characters (it holds a path of any length); the model's path
            # follows in full
            f"error: agent {quote(spec)}: model {spec[11:-7]!r} is a 'blooms-race-patterns' model, "
            "not one of 'freego' ('freego-patterns')"], args
    assert "not one of 'freego'" in play.stderr and not out.exists()


@pytest.mark.parametrize("args", [
    ["play", "blooms", "--save", ""],
    ["match", "blooms", "random", "random", "--games", "2", "--save-dir", ""],
    ["study", "blooms", "--agent", "random", "--games", "2", "--out", ""],
    ["train", "blooms", "--games", "2", "--sims", "5", "--out", " "],
], ids=["play", "match", "study", "train"])
def test_an_empty_file_or_folder_name_is_refused_not_taken_for_none_or_here(tmp_path, args):
    # --save "$FILE" with FILE unset: no record at all, or the lab's files in the current folder
    out = subprocess.run([sys.executable, "-m", "stonegarden", *args], input="", cwd=tmp_path,
                         capture_output=True, text=True, env=cli_env(), timeout=120)
    assert out.returncode == 2 and out.stdout == ""
    assert "an empty name is no file or folder" in out.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [
    ["serve", "--port", "0", "--db", ""],
    ["serve", "--port", "0", "--public-url", ""],
    ["serve", "--port", "0", "--host", ""],
    ["serve", "--port", "0", "--forwarded-allow-ips", ""],
    ["train", "blooms", "--games", "2", "--sims", "5", "--teacher", " "],
], ids=["serve-db", "serve-public-url", "serve-host", "serve-forwarded-allow-ips",
        "train-teacher"])
def test_an_empty_value_is_refused_not_taken_for_the_default_or_here(tmp_path, args):
    # --db "$DB" with DB unset served the default database's games, not the ones meant;
    # --teacher "" was said to be the current folder; --host "" said "cannot listen on :0:
    # name or service not known", and --forwarded-allow-ips "" believed no proxy
    out = subprocess.run([sys.executable, "-m", "stonegarden", *args], input="",
                         cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env=cli_env(XDG_DATA_HOME=str(tmp_path / "data")))
    assert out.returncode == 2 and out.stdout == ""
    assert f"Invalid value for '{args[-2]}'" in out.stderr and "empty value" in out.stderr
    assert list(tmp_path.iterdir()) == []


def test_replay_says_a_draw_in_words(tmp_path):
    """A drawn game ended ``result: winner 0 (pool-empty)``, as if player 0 had won."""
    import numpy as np

    import stonegarden
    from stonegarden.core.record import make_record, save_record

    game = stonegarden.make("blobs", dice=16, max_grid=5)  # seed 7 ends drawn (golden file)
    rng, state, moves = np.random.default_rng(7), game.initial_state(), []
    while not game.is_terminal(state):
        if game.current_player(state) == stonegarden.CHANCE:
            outcomes = game.chance_outcomes(state)
            action = outcomes[int(rng.integers(len(outcomes)))][0]
        else:
            legal = game.legal_actions(state)
            action = int(legal[int(rng.integers(len(legal)))])
        moves.append(game.action_to_text(state, action))
        state = game.play(state, action)
    assert game.winner(state) == 0
    path = tmp_path / "draw.json"
    save_record(make_record(game, moves, state), path)
    out = run_cli("replay", str(path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.rstrip().endswith("result: a draw (pool-empty)")


@pytest.mark.parametrize("command", ["replay", "analyse"])
def test_a_file_that_is_not_a_record_is_named_in_the_error(tmp_path, command):
    """A loop over many files (``for f in *.json; do stonegarden replay "$f"; done``) says
    which one is not a record; an error of one move names the move and its text, once."""
    binary, text = tmp_path / "photo.json", tmp_path / "notes.json"
    binary.write_bytes(bytes(range(256)))
    text.write_text("blooms\n")
    for path, why in ((binary, "record is not UTF-8 text"), (text, "record is not valid JSON")):
        r = run_cli(command, str(path))
        assert r.returncode == 2 and r.stdout == ""
        assert r.stderr.startswith(f"error: {str(path)!r}: {why}"), r.stderr
    bad_move = tmp_path / "bad.json"
    bad_move.write_text('{"format": "stonegarden-record", "version": 1, "game": "blooms", '
                        '"params": {"size": 2}, "moves": ["Rb2", "Zz9"]}')
    r = run_cli(command, str(bad_move))
    assert r.returncode == 2 and str(bad_move) not in r.stderr, r.stderr
    assert " 1 ('Zz9'): 'Z' is not a colour" in r.stderr and r.stderr.count("Zz9") == 1


def test_a_record_with_a_byte_order_mark_replays_and_converts(tmp_path):
    """A record saved by an editor that writes a UTF-8 byte order mark was "not valid JSON:
    Unexpected UTF-8 BOM" to ``replay`` and ``convert``."""
    text = ('{"format": "stonegarden-record", "version": 1, "game": "freego", '
            '"params": {"size": 5}, "moves": ["C3", "B2"]}')
    path = tmp_path / "edited.json"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    out = run_cli("replay", str(path), "--json")
    assert out.returncode == 0, out.stderr
    assert [json.loads(line)["move"] for line in out.stdout.splitlines()] == ["C3", "B2"]
    out = run_cli("convert", str(path), str(tmp_path / "game.sgf"))
    assert out.returncode == 0, out.stderr
    assert ";B[cc];W[bd]" in (tmp_path / "game.sgf").read_text()


@pytest.mark.parametrize("ended,last", [
    ({"winner": 2, "reason": "time"}, "result: winner 2 (time, from meta.ended)"),
    ({"winner": 1, "reason": "resign"}, "result: winner 1 (resign, from meta.ended)"),
    ({"winner": None, "reason": "aborted"}, "result: no winner (aborted, from meta.ended)"),
])
def test_replay_says_how_a_game_ended_off_the_board(tmp_path, ended, last):
    """The web app's record of a game lost on time (``meta.ended``) replayed to its last
    diagram with no word of its end; ``--json`` rows stay as they are."""
    record = {"format": "stonegarden-record", "version": 1, "game": "freego",
              "params": {"size": 5}, "moves": ["C3", "B2"], "meta": {"ended": ended}}
    path = tmp_path / "clock.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    out = run_cli("replay", str(path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.rstrip().endswith(last)
    rows = [json.loads(line) for line in run_cli("replay", str(path), "--json").stdout.splitlines()]
    assert [r["winner"] for r in rows] == [None, None]


def test_replay_and_analyse_read_a_record_from_standard_input_as_dash(tmp_path):
    """``curl ... | stonegarden replay -``: "cannot read record '-': No such file or
    directory", the Unix convention for standard input unknown to the commands."""
    p = write_record(tmp_path, ["Rd4"])
    text = p.read_text()
    from_file = run_cli("replay", str(p), "--json")
    piped = run_cli("replay", "-", "--json", input=text)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == from_file.stdout
    analysed = run_cli("analyse", "-", "--sims", "20", "--threads", "1", "--json", input=text)
    assert analysed.returncode == 0, analysed.stderr
    assert json.loads(analysed.stdout)["ply"] == 1
    sgf = run_cli("replay", "-", input="(;GM[1]SZ[9])")
    assert sgf.returncode == 2
    assert sgf.stderr.startswith("error: standard input: ")
    assert "this looks like an SGF file" in sgf.stderr


def test_serve_open_says_so_where_no_browser_opens_the_page(monkeypatch, capsys):
    """``serve --open`` (what ``scripts/serve.sh`` does without arguments) on a machine with no
    browser (a server reached over SSH) opened nothing and said nothing."""
    import webbrowser

    from stonegarden.cli.serve import open_in_browser

    url = "http://127.0.0.1:8000/"
    monkeypatch.setattr(webbrowser, "open", lambda u: False)
    open_in_browser(url)
    assert capsys.readouterr().err.splitlines() == [
        f"stonegarden serve: --open found no browser on this machine: open {url} in one that "
        "reaches it"]

    def broken(u: str) -> bool:
        raise webbrowser.Error("could not locate runnable browser")

    monkeypatch.setattr(webbrowser, "open", broken)
    open_in_browser(url)
    assert "--open found no browser" in capsys.readouterr().err
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda u: opened.append(u) or True)
    open_in_browser(url)
    assert opened == [url] and capsys.readouterr().err == ""
