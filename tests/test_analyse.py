"""``stonegarden analyse``: output shape, review, determinism, bad input."""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys

import pytest

import stonegarden
from stonegarden.agents.analysis import judgement, review_moves
from stonegarden.core.record import make_record, save_record
from stonegarden.search.config import Budget
from stonegarden.search.result import MoveStat, SearchResult

from .conftest import cli_env, ctrl_c_as_in_a_terminal, read_terminal

MOVES = ["Rb3", "Kc3,Ga2", "Rc2,Yb2", "Kd2"]


@pytest.fixture
def record_file(tmp_path):
    game = stonegarden.make("blooms", size=3)
    states = game.replay(MOVES)
    path = tmp_path / "game.json"
    save_record(make_record(game, MOVES, states[-1]), path)
    return path


@pytest.mark.slow
def test_position_analysis_shape(cli, record_file):
    r = cli("analyse", str(record_file), "--ply", "2", "--sims", "300", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["ply"] == 2 and out["player"] == 1
    assert 0.0 <= out["value"] <= 1.0
    assert out["sims"] == 300
    assert out["best_moves"]
    for m in out["best_moves"]:
        assert set(m) == {"move", "visits", "value", "proven_winner"}
        assert 0.0 <= m["value"] <= 1.0
    assert out["pv"] and out["pv"][0] == out["best_moves"][0]["move"]
    game = stonegarden.make("blooms", size=3)
    state = game.replay(MOVES[:2])[-1]
    for text in out["pv"]:  # the principal variation is a legal line
        state = game.play_text(state, text)


@pytest.mark.slow
def test_same_seed_and_sims_give_the_same_analysis(cli, record_file):
    runs = [json.loads(cli("analyse", str(record_file), "--sims", "200", "--json").stdout)
            for _ in range(2)]
    for out in runs:
        out.pop("seconds")
    assert runs[0] == runs[1]


@pytest.mark.slow
def test_review_gives_every_move_with_the_value_lost(cli, record_file):
    r = cli("analyse", str(record_file), "--review", "--sims", "150", "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)["moves"]
    assert [row["move"] for row in rows] == MOVES
    for row in rows:
        assert row["lost"] >= 0
        assert row["value_best"] - row["value_played"] == pytest.approx(row["lost"], abs=1e-3)
    # a search a move takes minutes over a game: a bar on stderr counts the moves, unless quiet
    assert f"review {'━' * 10}" in r.stderr and f"{len(MOVES)}/{len(MOVES)}" in r.stderr
    quiet = cli("analyse", str(record_file), "--review", "--sims", "50", "--json", "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == ""


@pytest.mark.slow
def test_text_output_lists_moves_and_pv(cli, record_file):
    r = cli("analyse", str(record_file), "--sims", "100")
    assert r.returncode == 0, r.stderr
    assert "win probability" in r.stdout and "pv:" in r.stdout


@pytest.mark.parametrize("args,message", [
    (["--ply", "9"], "outside 0..4"),
    (["--ply", "-1"], "outside 0..4"),
    (["--time", "1", "--sims", "5"], "not both"),
    (["--review", "--ply", "2"], "give --ply (one position) or --review (every move), not both"),
    (["--seed", "-5", "--sims", "50"], "0<=x<=9223372036854775807"),
])
@pytest.mark.slow
def test_bad_options_exit_2(cli, record_file, args, message):
    r = cli("analyse", str(record_file), *args)
    assert r.returncode == 2
    assert message in r.stderr


@pytest.mark.slow
def test_a_finished_games_end_is_no_position_to_analyse(cli, tmp_path):
    game = stonegarden.make("blooms", size=3, target=1)
    moves = ["Ra2", "Ka1", "Rb1,Yb2"]
    path = tmp_path / "won.json"
    save_record(make_record(game, moves, game.replay(moves)[-1]), path)
    r = cli("analyse", str(path), "--sims", "10", "--ply", "3")
    assert r.returncode == 2
    assert "the game is over after 3 moves" in r.stderr
    r = cli("analyse", str(path), "--sims", "10", "--threads", "1")  # the last move's position
    assert r.returncode == 0 and r.stdout.startswith("ply 2, player 1 to move")


@pytest.mark.slow
def test_a_game_over_before_its_first_move_has_no_ply_to_offer(cli, tmp_path):
    """Blobs with one die is drawn before any move: ``--ply 0`` offered "--ply 0..-1"."""
    game = stonegarden.make("blobs", dice=1)
    path = tmp_path / "over.json"
    save_record(make_record(game, [], game.initial_state()), path)
    for args in (["--ply", "0"], []):
        r = cli("analyse", str(path), "--sims", "10", *args)
        assert r.returncode == 2 and "0..-1" not in r.stderr
        assert r.stderr.endswith("no position of this record has a player to move\n")
    r = cli("analyse", str(path), "--review", "--sims", "10", "--json", "--quiet")
    assert r.returncode == 0 and json.loads(r.stdout)["moves"] == []
    # in words, not the legend of a table with no row
    r = cli("analyse", str(path), "--review", "--sims", "10", "--quiet")
    assert r.returncode == 0 and r.stdout == "the record has no moves: nothing to review\n"
    # on a terminal, without --quiet: no bar of 0/0 above the words
    done, shown = on_a_terminal(["analyse", str(path), "--review", "--sims", "10"])
    assert done.stdout == b"the record has no moves: nothing to review\n"
    assert done.returncode == 0 and "0/0" not in shown, shown


@pytest.mark.slow
def test_missing_record_exits_2(cli, tmp_path):
    r = cli("analyse", str(tmp_path / "nope.json"))
    assert r.returncode == 2
    assert "cannot read record" in r.stderr


# the first moves of a random Blooms game on the default board (1,332 legal turns a move)
OPENING = ["Rd2", "Kd5,Gg2", "Rf5,Yf2", "Gg1", "Rf1,Yd6", "Kc6,Gg3"]


@pytest.mark.slow
def test_review_values_a_rarely_tried_move_by_searching_after_it(cli, tmp_path):
    """Among 1,332 turns a search of 3,000 simulations tries most played moves a few times:
    a move tried once is worth 0 or 1 there, which made a blunder of a quiet opening move,
    or the best move's value 1.000. Such a move is valued by searching the position after it."""
    game = stonegarden.make("blooms")
    path = tmp_path / "opening.json"
    save_record(make_record(game, OPENING), path)
    r = cli("analyse", str(path), "--review", "--sims", "3000", "--threads", "1", "--json",
            "--quiet")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)["moves"]
    assert [row["move"] for row in rows] == OPENING
    for row in rows:  # nothing is decided in an opening
        assert 0.2 < row["value_played"] <= row["value_best"] < 0.8, row
        assert row["lost"] < 0.25 and row["judgement"] != "blunder", row


@pytest.mark.slow
def test_review_flags_each_loss_by_the_stated_thresholds(cli, record_file):
    r = cli("analyse", str(record_file), "--review", "--sims", "150", "--threads", "1",
            "--quiet")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == ("values: the mover's win probability; a loss from 0.06 is ?! "
                        "(inaccuracy), 0.12 is ? (mistake), 0.25 is ?? (blunder)")
    rows = json.loads(cli("analyse", str(record_file), "--review", "--sims", "150",
                          "--threads", "1", "--quiet", "--json").stdout)["moves"]
    for row, line in zip(rows, lines[1:]):
        assert row["judgement"] == judgement(row["lost"])
        mark = {"inaccuracy": "?!", "mistake": "?", "blunder": "??", None: ""}[row["judgement"]]
        shown = math.floor(row["lost"] * 1000 + 1e-9) / 1000  # rounded down
        assert line.split()[4:6] == [f"{shown:.3f}", mark or "(best"]


class Rolls:
    """A stand-in for the search: at the position before the move the played move is untried;
    after each roll the player to move wins with the chance given for that position."""

    def __init__(self, game, before, tried, values):
        self.game, self.before, self.tried, self.values = game, before, tried, values

    def forget(self):
        pass

    def analyse(self, game, state, budget):
        if game.position_text(state) == game.position_text(self.before):
            return SearchResult(0.5, [MoveStat(self.tried, 1000, 0.7)], [self.tried], 1000, 0.1)
        return SearchResult(self.values[game.position_text(state)], [], [], 1000, 0.1)


def test_a_move_into_a_roll_is_valued_by_the_rolls_expectation():
    """Under Tumbling Dice a roll follows every placement: a placement the search did not try
    is worth the mover's chances after each roll, weighted by the roll's probability (a search
    of the roll itself answers nothing: 0.5)."""
    game = stonegarden.make("blobs", tumbling=True)
    moves = ["roll:M", "h9M"]
    states = game.replay(moves)
    before, after = states[1], states[2]
    tried = next(int(a) for a in game.legal_actions(before)
                 if game.action_to_text(before, a) != "h9M")
    outcomes = game.chance_outcomes(after)
    assert len(outcomes) > 1
    values, expected = {}, 0.0
    for k, (roll, p) in enumerate(outcomes):
        child = game.play_text(after, game.action_to_text(after, roll))
        values[game.position_text(child)] = 0.1 + 0.3 * k  # player 1 to move's chances
        expected += p * (1.0 - values[game.position_text(child)])  # player 2's
    rows = review_moves(Rolls(game, before, tried, values), game, states, moves,
                        Budget(sims=1000))
    assert rows[0] == {"ply": 0, "move": "roll:M", "player": None}
    assert rows[1]["player"] == 2 and rows[1]["best"] == game.action_to_text(before, tried)
    assert rows[1]["value_played"] == pytest.approx(expected, abs=1e-4)
    assert rows[1]["value_best"] == 0.7
    assert rows[1]["lost"] == pytest.approx(0.7 - expected, abs=1e-4)


@pytest.mark.slow
def test_a_position_where_a_roll_is_due_points_to_the_one_after_the_roll(cli, tmp_path):
    game = stonegarden.make("blobs", tumbling=True)
    moves = ["roll:M", "h9M", "roll:B"]
    path = tmp_path / "dice.json"
    save_record(make_record(game, moves), path)
    r = cli("analyse", str(path), "--ply", "2", "--sims", "10")
    assert r.returncode == 2
    assert r.stderr == ("error: a roll is due after 2 moves, not a player's move: --ply 3 is "
                        "the position after its roll 'roll:B'\n")
    save_record(make_record(game, moves[:2]), path)
    r = cli("analyse", str(path), "--ply", "2", "--sims", "10")
    assert r.returncode == 2 and "the record ends before the roll" in r.stderr


@pytest.mark.slow
def test_an_sgf_file_is_pointed_to_convert(cli, tmp_path):
    path = tmp_path / "game.sgf"
    path.write_text("(;GM[1]FF[4]SZ[5]RU[stonegarden freego size=5];B[cc])")
    r = cli("analyse", str(path))
    assert r.returncode == 2
    assert "this looks like an SGF file: `stonegarden convert` it to a record first" in r.stderr


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_during_a_review_prints_the_moves_reviewed(tmp_path, stop):
    """A review takes a search a move, minutes in all: Ctrl-C keeps what was done, printed as
    the whole review would have been, with how far it got, and exit status 130. SIGTERM
    (``timeout``, ``kill``) does the same: it lost every move reviewed, without a word."""
    game = stonegarden.make("blooms")
    path = tmp_path / "opening.json"
    save_record(make_record(game, OPENING), path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "stonegarden", "analyse", str(path), "--review", "--time", "1",
         "--threads", "1", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=cli_env(), preexec_fn=ctrl_c_as_in_a_terminal)
    try:
        assert proc.stderr is not None
        while not (line := proc.stderr.readline()).startswith("review: 2/6 moves"):
            assert line, "the review ended before its second move"
        proc.send_signal(stop)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    review = json.loads(out)
    assert review["stopped"] is True
    done = [row["move"] for row in review["moves"]]
    assert 2 <= len(done) < 6 and done == OPENING[:len(done)]
    assert all(row["judgement"] == judgement(row["lost"]) for row in review["moves"])
    assert err.splitlines()[-1] == f"stopped after {len(done)} of 6 moves"


@pytest.mark.slow
def test_the_text_says_a_proven_result_and_counts_one_simulation_as_one(cli, tmp_path):
    """Free Go to the first capture: after B2 B1 C1 E5 player 1 captures at A1. The solver
    proves it at its first simulation: "win probability 1.000 (1 simulations)" read as a
    search that had not run; the line says the win is proven."""
    game = stonegarden.make("freego", size=5, target=1)
    moves = ["B2", "B1", "C1", "E5"]
    path = tmp_path / "capture.json"
    save_record(make_record(game, moves, game.replay(moves)[-1]), path)
    r = cli("analyse", str(path), "--sims", "200", "--threads", "1")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ply 4, player 1 to move: win probability 1.000, a proven win "
                               "(1 simulation, ")
    r = cli("analyse", str(path), "--ply", "3", "--sims", "200", "--threads", "1")
    assert r.stdout.startswith("ply 3, player 2 to move: win probability 0.000, a proven "
                               "loss (200 simulations, ")


@pytest.mark.slow
def test_a_proven_move_is_told_from_one_whose_playouts_all_won(cli, tmp_path):
    """Blobs: after these moves Red closes a red blob at h9 and wins. The search proves it
    in a few simulations, having tried each other move once: h9R's one playout won, and it
    read "value 1.000" as h9M did, as if it won too."""
    game = stonegarden.make("blobs")
    moves = ["h7B", "g7B", "g9M", "i8B", "g6B"]
    path = tmp_path / "blob.json"
    save_record(make_record(game, moves), path)
    assert game.winner(game.play_text(game.replay(moves)[-1], "h9M")) == 1
    r = cli("analyse", str(path), "--sims", "200", "--threads", "1", "--json")
    out = json.loads(r.stdout)
    assert out["proven_winner"] == 1
    by_move = {m["move"]: m for m in out["best_moves"]}
    assert by_move["h9M"]["proven_winner"] == 1 and by_move["h9M"]["value"] == 1.0
    unproven = [m for m in out["best_moves"] if m["proven_winner"] is None]
    assert any(m["value"] == 1.0 for m in unproven)  # a playout's 1, not a proof
    lines = cli("analyse", str(path), "--sims", "200", "--threads", "1").stdout.splitlines()
    said = {line.split()[0]: line for line in lines[1:-1]}
    assert said["h9M"].endswith("value 1.000  proven win")
    assert all(said[m["move"]].endswith(f"value {m['value']:.3f}") for m in unproven)


# a territory game on the n=3 board (the first turn one stone, then two a turn)
TERRITORY = ["Rd1", "Kc4,Gc3", "Rd2", "Ka3,Gc5", "Rd3,Ye2", "Kb3,Gc2", "Rd4,Ya1", "Ka2,Gb2"]


@pytest.mark.slow
@pytest.mark.parametrize("threads", ["1", "2"])
def test_a_review_searches_each_position_as_analyse_ply_does(cli, tmp_path, threads):
    """With a seed and simulations, the review's best move at move N and its value are those
    of ``analyse --ply N`` (and the engine's): each position is searched alone. The review
    kept one tree and one count of searches (which salts the seed) from position to position,
    so its best moves were other than the ones ``--ply N`` then showed."""
    game = stonegarden.make("blooms-territory", size=3)
    path = tmp_path / "territory.json"
    save_record(make_record(game, TERRITORY), path)
    common = ("--sims", "200", "--seed", "7", "--threads", threads, "--json")
    rows = json.loads(cli("analyse", str(path), "--review", "--quiet", *common).stdout)["moves"]
    assert [row["move"] for row in rows] == TERRITORY
    for row in rows:
        alone = json.loads(cli("analyse", str(path), "--ply", str(row["ply"]), *common).stdout)
        first = alone["best_moves"][0]
        if row["best"] != row["move"]:  # the search's best, worth more than the move played
            assert row["best"] == first["move"], row
            if first["visits"] >= 100:  # else valued by a search of the position after it
                assert row["value_best"] == first["value"], row
        else:  # the move played is worth as much as the search's best
            assert row["value_best"] == row["value_played"] and row["lost"] == 0, row
            if first["move"] != row["move"] and first["visits"] >= 100:
                assert first["value"] <= row["value_played"], row


class Searched:
    """A stand-in for the search: ``before`` gives ``moves``; any other position ``value``
    for its player to move."""

    def __init__(self, game, before, moves, value):
        self.game, self.before, self.moves, self.value = game, before, moves, value

    def forget(self):
        pass

    def analyse(self, game, state, budget):
        if state is self.before:
            return SearchResult(0.6, self.moves, [self.moves[0].action], 1000, 0.1)
        return SearchResult(self.value, [], [], 1000, 0.1)


def test_a_move_worth_more_than_the_searchs_choice_is_the_best_found():
    """The search prefers another move (0.6), but the move played, tried too rarely there and
    valued by searching after it, is worth 0.7: it is the best move found, not the other at
    0.7 (which said "best Rb3 0.700" of a move worth 0.6)."""
    game = stonegarden.make("blooms", size=3)
    states = game.replay(MOVES)
    before = states[0]
    other, played = (game.parse_action(before, t) for t in ("Rb3", "Rc3"))
    search = Searched(game, before, [MoveStat(other, 900, 0.6), MoveStat(played, 5, 0.2)], 0.3)
    row = review_moves(search, game, [before, game.play(before, played)], ["Rc3"],
                       Budget(sims=1000))[0]
    assert row == {"ply": 0, "player": 1, "move": "Rc3", "best": "Rc3", "value_best": 0.7,
                   "value_played": 0.7, "lost": 0.0, "judgement": None}
    search.value = 0.5  # worth 0.5 to the mover: the search's choice is the better
    row = review_moves(search, game, [before, game.play(before, played)], ["Rc3"],
                       Budget(sims=1000))[0]
    assert (row["best"], row["value_best"], row["lost"]) == ("Rb3", 0.6, 0.1)
    assert row["judgement"] == "inaccuracy"


def test_a_loss_just_under_a_threshold_is_not_printed_as_the_threshold(record_file, monkeypatch):
    """A loss of 0.0599 is no inaccuracy (from 0.06), 0.1199 only an inaccuracy: the review's
    line said "lost 0.060" with no mark and "lost 0.120 ?!", against its own legend. The loss
    is printed rounded down, as the web app's analysis says it."""
    from click.testing import CliRunner

    from stonegarden.cli import analyse as command
    from stonegarden.cli.main import cli

    def rows(agent, game, states, moves, budget, done=None):
        out = [{"ply": i, "player": 1 + i % 2, "move": move, "best": "Ra1",
                "value_best": 0.6, "value_played": round(0.6 - lost, 4), "lost": lost,
                "judgement": judgement(lost)}
               for i, (move, lost) in enumerate(zip(moves, (0.0599, 0.1199, 0.2499, 0.06)))]
        for row in out:
            done(row)
        return out

    monkeypatch.setattr(command, "review_moves", rows)
    out = CliRunner().invoke(cli, ["analyse", str(record_file), "--review", "--sims", "10",
                                   "--quiet"])
    assert out.exit_code == 0, out.output
    said = [line.split()[3:6] for line in out.output.splitlines()[1:]]
    assert said == [["lost", "0.059", "(best"], ["lost", "0.119", "?!"],
                    ["lost", "0.249", "?"], ["lost", "0.060", "?!"]]


@pytest.mark.slow
def test_a_seed_and_sims_reproduce_a_search_with_the_same_threads(cli, tmp_path):
    """As ``--help`` says: the default ``--threads`` is the machine's cores, and a search of
    two trees is another than one tree's, so the seed alone does not carry it between
    machines."""
    game = stonegarden.make("blooms-territory", size=3)
    path = tmp_path / "territory.json"
    save_record(make_record(game, TERRITORY), path)

    def searched(threads):
        out = json.loads(cli("analyse", str(path), "--sims", "300", "--threads", threads,
                             "--json").stdout)
        out.pop("seconds")
        return out

    assert searched("1") == searched("1") and searched("2") == searched("2")
    assert searched("1") != searched("2")
    said = " ".join(cli("analyse", "--help").stdout.split())
    assert "reproducible with --seed and the same --threads" in said


class ByPosition:
    """A stand-in for the search: ``before`` gives ``moves``; any other position the value
    ``values`` gives its text (for its player to move)."""

    def __init__(self, game, before, moves, values):
        self.game, self.before, self.moves, self.values = game, before, moves, values

    def forget(self):
        pass

    def analyse(self, game, state, budget):
        if state is self.before:
            return SearchResult(0.6, self.moves, [self.moves[0].action], 1000, 0.1)
        return SearchResult(self.values[game.position_text(state)], [], [], 1000, 0.1)


def test_the_searchs_best_tried_a_few_times_is_valued_by_searching_after_it():
    """A best move the search tried 3 times, all won, is worth 1.000 there: a move played
    worth 0.45 was a blunder against it. Like a move played tried as rarely, it is valued by
    searching the position after it (0.4 here: the move played is the better)."""
    game = stonegarden.make("blooms", size=3)
    before = game.initial_state()
    other, played = (game.parse_action(before, t) for t in ("Rb3", "Rc3"))
    values = {game.position_text(game.play(before, other)): 0.6,  # the opponent's chances
              game.position_text(game.play(before, played)): 0.55}
    search = ByPosition(game, before, [MoveStat(other, 3, 1.0), MoveStat(played, 2, 0.0)],
                        values)
    row = review_moves(search, game, [before, game.play(before, played)], ["Rc3"],
                       Budget(sims=1000))[0]
    assert (row["best"], row["value_best"], row["value_played"]) == ("Rc3", 0.45, 0.45)
    assert row["lost"] == 0 and row["judgement"] is None
    values[game.position_text(game.play(before, other))] = 0.3  # worth 0.7 to the mover
    row = review_moves(search, game, [before, game.play(before, played)], ["Rc3"],
                       Budget(sims=1000))[0]
    assert (row["best"], row["value_best"], row["lost"]) == ("Rb3", 0.7, 0.25)


def on_a_terminal(args: list[str]) -> tuple[subprocess.CompletedProcess[bytes], str]:
    """Run ``stonegarden ARGS`` with its stderr a terminal (a pty): the run and what the
    terminal showed."""
    import os
    import pty

    main, tty = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "stonegarden", *args],
                              stdout=subprocess.PIPE, stderr=tty, env=cli_env(), timeout=300)
        os.close(tty)
        seen = read_terminal(main)
    finally:
        os.close(main)
    return done, seen.decode(errors="replace")


def test_one_long_search_shows_a_bar_on_a_terminal_only(record_file):
    """``analyse --time 600`` searched for ten minutes without a word; on a terminal a bar
    shows the seconds filling, and goes when the answer comes. In a pipe (a log), nothing."""
    position = ["analyse", str(record_file), "--ply", "2"]
    done, shown = on_a_terminal([*position, "--time", "1.5"])
    assert done.returncode == 0 and b"win probability" in done.stdout
    assert "searching the position after 2 moves" in shown and "of 1.5 s" in shown
    done, shown = on_a_terminal([*position, "--time", "0.2", "--quiet"])
    assert done.returncode == 0 and "searching" not in shown
    piped = subprocess.run([sys.executable, "-m", "stonegarden", *position, "--time", "0.2"],
                           capture_output=True, text=True, env=cli_env(), timeout=300)
    assert piped.returncode == 0 and piped.stderr == ""


@pytest.mark.slow
def test_a_resignation_in_a_review_says_who_resigned(cli, tmp_path):
    """A review's line of a resignation read "   1  resign": whose, the reader had to work
    out. It names the player, as a move's line does; a roll's line names none."""
    game = stonegarden.make("blooms", size=3)
    moves = ["Ra1", "resign"]
    path = tmp_path / "resigned.json"
    save_record(make_record(game, moves, game.replay(moves)[-1]), path)
    r = cli("analyse", str(path), "--review", "--sims", "20", "--threads", "1", "--quiet")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == "   1  P2 resign"
    tumbling = stonegarden.make("blobs", dice=4, tumbling=True)
    path = tmp_path / "rolled.json"
    save_record(make_record(tumbling, ["roll:B"]), path)
    r = cli("analyse", str(path), "--review", "--sims", "20", "--threads", "1", "--quiet")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == "   0  roll:B"
