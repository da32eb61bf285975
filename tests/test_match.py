"""``stonegarden match``: summary fields, JSON, saved records, workers, bad input."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from stonegarden.cli.match import run_match
from stonegarden.core.record import load_record, replay_record
from stonegarden.errors import ParameterError, RecordError
from stonegarden.lab.adjudication import ResignRule
from stonegarden.lab.selfplay import with_seed as seeded_spec
from stonegarden.stats import MatchStats, seat_adjusted

from .conftest import cli_env, ctrl_c_as_in_a_terminal, refused_as_in_use, run_cli

SMALL = ("--param", "size=3")


@pytest.mark.slow
def test_json_summary_has_the_documented_fields(cli):
    r = cli("match", "blooms", "greedy", "random", "--games", "4", *SMALL, "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    for key in ("games", "a_wins", "b_wins", "draws", "elo", "elo_ci95"):
        assert key in out
    assert out["games"] == 4 == out["a_wins"] + out["b_wins"] + out["draws"]
    lo, hi = out["elo_ci95"]  # an open end (a clean sweep's) is null
    assert (lo is None or lo <= out["elo"]) and (hi is None or out["elo"] <= hi)


def test_a_clean_sweep_reads_its_interval_as_open_at_its_end(cli):
    """4-0 read "Elo A-B +338 (95% CI +7 .. +338)": its counted figure as the upper bound."""
    args = ("match", "blooms", "mcts:sims=30", "random", *SMALL, "--games", "4", "--quiet")
    r = cli(*args)
    assert r.returncode == 0, r.stderr
    assert re.search(r"A wins 4, B wins 0, draws 0; A scores 100.0%, Elo A-B \+\d+ "
                     r"\(95% CI \+\d+ \.\. \+inf\);", r.stdout), r.stdout
    r = cli("match", "blooms", "random", "mcts:sims=30", *SMALL, "--games", "4", "--quiet",
            "--json")
    out = json.loads(r.stdout, parse_constant=lambda c: pytest.fail(f"{c} in {r.stdout}"))
    assert out["a_wins"] == 0 and out["elo"] < 0
    assert out["elo_ci95"][0] is None and out["elo"] < out["elo_ci95"][1]


def test_the_summary_splits_a_results_by_seat_as_the_records_do(tmp_path):
    out = run_match("blooms", {"size": 3}, "mcts:sims=30", "random", 5, 1, 3, str(tmp_path),
                    progress=False)
    first, second = out["a_first"], out["a_second"]
    assert (first["games"], second["games"]) == (3, 2)   # A is player 1 in games 0, 2 and 4
    for key in ("a_wins", "b_wins", "draws"):
        assert first[key] + second[key] == out[key]
    for seat, tally in ((1, first), (2, second)):
        won = 0
        for f in sorted(tmp_path.glob("game-*.json")):
            record = load_record(f)
            a_seat = 1 if record.meta["match_game"] % 2 == 0 else 2
            won += a_seat == seat and record.result["winner"] == seat
        assert tally["a_wins"] == won
    adj = out["seat_adjusted"]  # the Bradley-Terry figures of the two seats' tallies
    assert adj == seat_adjusted(MatchStats(first["a_wins"], first["b_wins"], first["draws"]),
                                MatchStats(second["a_wins"], second["b_wins"], second["draws"]))


@pytest.mark.slow
def test_text_summary_is_the_last_line(cli):
    r = cli("match", "blooms", "random", "random:seed=3", "--games", "2", *SMALL)
    assert r.returncode == 0, r.stderr
    last = r.stdout.strip().splitlines()[-1]
    assert "2 games" in last and "Elo A-B" in last and "95% CI" in last
    assert "A moving first " in last and ", second " in last
    assert "without the first move's edge" in last
    # two seeded agents in a game without chance would play two games over and over
    assert ("note: B 'random:seed=3' sets its own seed, so it plays the same way in every game "
            "(without seed=, --seed gives each game its own)") in r.stderr
    assert "note: A" not in r.stderr


@pytest.mark.slow
def test_records_are_saved_and_replay_with_seats_alternating(cli, tmp_path):
    r = cli("match", "blooms", "greedy", "random", "--games", "3", *SMALL, "--json", "--quiet",
            "--save-dir", str(tmp_path / "games"), "--workers", "2")
    assert r.returncode == 0, r.stderr
    files = sorted((tmp_path / "games").glob("*.json"))
    assert len(files) == 3
    firsts = []
    for f in files:
        record = load_record(f)
        game, states = replay_record(record)
        assert game.is_terminal(states[-1])
        firsts.append(record.players["1"].split(":")[0])
    assert firsts == ["greedy", "random", "greedy"]


def test_results_repeat_for_a_fixed_seed():
    a = run_match("blooms", {"size": 3}, "mcts:sims=30", "random", 2, 1, 5, None, progress=False)
    b = run_match("blooms", {"size": 3}, "mcts:sims=30", "random", 2, 1, 5, None, progress=False)
    assert a == b


def test_seeded_spec_adds_a_seed_only_when_missing():
    assert seeded_spec("mcts", 4) == "mcts:seed=4"
    assert seeded_spec("level:3", 4) == "level:3,seed=4"
    assert seeded_spec("mcts:seed=1", 4) == "mcts:seed=1"


@pytest.mark.slow
def test_bad_agent_spec_exits_2(cli):
    r = cli("match", "blooms", "mcts:bogus=1", "random", "--games", "1", *SMALL)
    assert r.returncode == 2
    assert "unknown option" in r.stderr


@pytest.mark.slow
def test_human_cannot_play_a_match(cli):
    r = cli("match", "blooms", "human", "random", "--games", "1", *SMALL)
    assert r.returncode == 2
    assert "human" in r.stderr


@pytest.mark.slow
def test_bad_game_parameter_exits_2(cli):
    r = cli("match", "blooms", "random", "random", "--param", "size=99")
    assert r.returncode == 2
    assert "error:" in r.stderr


@pytest.mark.slow
def test_zero_games_is_a_usage_error(cli):
    r = cli("match", "blooms", "random", "random", "--games", "0")
    assert r.returncode == 2


# --- a match's folder of records: never overwritten, and --resume goes on with it -----------

def _match(folder, games=4, seed=7, resume=False, a="mcts:sims=20", b="random", resign=None):
    return run_match("blooms", {"size": 3}, a, b, games, 1, seed, str(folder), progress=False,
                     resign=resign, resume=resume)


def _contents(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_resume_plays_only_the_missing_games_and_sums_up_as_one_match(tmp_path):
    whole = _match(tmp_path / "whole")
    part = tmp_path / "part"
    _match(part)
    kept = _contents(part)
    (part / "game-0001.json").unlink()
    (part / "game-0003.json").unlink()
    out = _match(part, resume=True)
    assert out["resumed"] == 2
    assert {k: v for k, v in out.items() if k != "resumed"} == {
        k: v for k, v in whole.items() if k != "resumed"}
    assert _contents(part) == kept          # the two games played again are the same games


def test_resume_with_more_games_extends_the_match(tmp_path):
    _match(tmp_path / "m", games=2)
    out = _match(tmp_path / "m", games=4, resume=True)
    whole = _match(tmp_path / "whole", games=4)
    assert out["resumed"] == 2 and out["games"] == 4
    assert out["a_wins"] == whole["a_wins"] and out["mean_plies"] == whole["mean_plies"]


def test_resume_with_fewer_games_than_saved_says_how_many_to_ask_for(tmp_path):
    _match(tmp_path / "m", games=2, a="random")
    with pytest.raises(ParameterError, match=r"it is game 1 and the match asks for 1 game; ask "
                                             r"for at least 2"):
        _match(tmp_path / "m", games=1, resume=True, a="random")


def test_resume_takes_the_agents_spelt_otherwise_as_the_same_match(tmp_path):
    """Options in another order, or 0.20 for 0.2, name the same agent: the match was
    refused as another one."""
    _match(tmp_path / "m", games=2, a="mcts:sims=20,c=0.2")
    out = _match(tmp_path / "m", games=3, resume=True, a="MCTS:c=0.20, sims=20")
    whole = _match(tmp_path / "whole", games=3, a="mcts:sims=20,c=0.2")
    assert out["resumed"] == 2 and out["games"] == 3
    assert out["a_wins"] == whole["a_wins"] and out["mean_plies"] == whole["mean_plies"]
    with pytest.raises(ParameterError, match=r"game-0000\.json.*players"):  # another agent
        _match(tmp_path / "m", games=3, resume=True, a="mcts:sims=20,c=0.3")


def test_resume_takes_an_agent_with_a_default_written_out_as_the_same_match(tmp_path):
    """``mcts:sims=20,c=0.2`` is ``mcts:sims=20`` in Blooms (whose c is 0.2): the match was
    refused as another one."""
    _match(tmp_path / "m", games=2, a="mcts:sims=20")
    out = _match(tmp_path / "m", games=3, resume=True, a="mcts:sims=20,c=0.2")
    assert out["resumed"] == 2 and out["games"] == 3


def test_resume_refuses_a_match_whose_model_file_changed(tmp_path):
    """An agent's model file with its .json prior edited was taken as the same: the match
    went on with games of either prior."""
    from .test_lab_runs import _copy_of_the_shipped_model, _edit_prior

    model = _copy_of_the_shipped_model(tmp_path)
    _match(tmp_path / "m", games=2, a=f"mcts:sims=5,model={model}")
    _edit_prior(model, 31)
    with pytest.raises(ParameterError, match=rf"game-0000\.json.*model '{model}' \(prior 30 "
                                             r"now 31\) is not the one"):
        _match(tmp_path / "m", games=3, resume=True, a=f"mcts:sims=5,model={model}")
    _edit_prior(model, 30)
    assert _match(tmp_path / "m", games=3, resume=True, a=f"mcts:sims=5,model={model}")[
        "resumed"] == 2


def test_resume_of_a_finished_match_plays_nothing(tmp_path):
    first = _match(tmp_path / "m", games=2)
    again = _match(tmp_path / "m", games=2, resume=True)
    assert again["resumed"] == 2
    assert {k: v for k, v in again.items() if k != "resumed"} == {
        k: v for k, v in first.items() if k != "resumed"}


def test_resume_of_a_folder_without_records_says_the_match_starts_afresh(cli, tmp_path):
    r = cli("match", "blooms", "random", "random", "--games", "1", *SMALL, "--quiet",
            "--save-dir", str(tmp_path / "typo"), "--resume")
    assert r.returncode == 0, r.stderr
    assert "holds no game record yet, so the match starts from its first game" in r.stderr
    assert (tmp_path / "typo" / "game-0000.json").is_file()
    again = cli("match", "blooms", "random", "random", "--games", "1", *SMALL, "--quiet",
                "--save-dir", str(tmp_path / "typo"), "--resume")
    assert again.returncode == 0 and "no game record" not in again.stderr


def test_a_folder_with_records_is_not_overwritten_without_resume(tmp_path):
    _match(tmp_path / "m", games=2)
    kept = _contents(tmp_path / "m")
    with pytest.raises(ParameterError, match=r"already holds 2 game record.*--resume"):
        _match(tmp_path / "m", games=2, seed=8)
    assert _contents(tmp_path / "m") == kept


@pytest.mark.parametrize("change, reason", [
    ({"seed": 8}, "players"),                      # other per-game agent seeds
    ({"a": "mcts:sims=30"}, "players"),
    ({"resign": ResignRule(0.05, 2)}, "resignation rule"),
])
def test_resume_refuses_the_records_of_another_match(tmp_path, change, reason):
    _match(tmp_path / "m", games=2)
    kept = _contents(tmp_path / "m")
    with pytest.raises(ParameterError, match=rf"game-0000\.json.*{reason}"):
        _match(tmp_path / "m", games=2, resume=True, **change)
    assert _contents(tmp_path / "m") == kept


def test_resume_refuses_a_match_with_an_explicit_seed_but_another_match_seed(tmp_path):
    # agents that carry their own seed= have the same players under any --seed; the match seed
    # (which also seeds chance events) tells the two matches apart
    _match(tmp_path / "m", games=2, a="random:seed=1", b="random:seed=2")
    with pytest.raises(ParameterError, match=r"--seed 7, not 9"):
        _match(tmp_path / "m", games=2, seed=9, resume=True, a="random:seed=1", b="random:seed=2")


def test_resume_refuses_fewer_games_than_recorded(tmp_path):
    _match(tmp_path / "m", games=3)
    with pytest.raises(ParameterError, match=r"game-0002\.json.*game 2.*at least 3"):
        _match(tmp_path / "m", games=2, resume=True)


def _edit_record(text, change):
    data = json.loads(text)
    change(data)
    return json.dumps(data)


def _other_winner(data):
    data["result"]["winner"] = 3 - data["result"]["winner"]


@pytest.mark.parametrize("damage", [
    lambda text: text[: len(text) // 2],                                            # cut short
    lambda text: _edit_record(text, lambda d: d["moves"].insert(0, "zz9")),         # an illegal move
    lambda text: _edit_record(text, _other_winner),                                 # a wrong result
], ids=["cut-short", "illegal-move", "wrong-result"])
def test_resume_refuses_a_broken_record_and_names_it(tmp_path, damage):
    _match(tmp_path / "m", games=2)
    path = tmp_path / "m" / "game-0001.json"
    path.write_text(damage(path.read_text()))
    kept = _contents(tmp_path / "m")
    with pytest.raises(RecordError, match=r"cannot resume from .*game-0001\.json"):
        _match(tmp_path / "m", games=2, resume=True)
    assert _contents(tmp_path / "m") == kept


@pytest.mark.slow
def test_cli_resume_needs_a_save_dir_and_reports_the_games_read(cli, tmp_path):
    r = cli("match", "blooms", "random", "random", "--games", "1", *SMALL, "--resume")
    assert r.returncode == 2 and "--resume needs --save-dir" in r.stderr
    folder = str(tmp_path / "m")
    assert cli("match", "blooms", "random", "random", "--games", "2", *SMALL, "--quiet",
               "--save-dir", folder).returncode == 0
    r = cli("match", "blooms", "random", "random", "--games", "2", *SMALL, "--quiet",
            "--save-dir", folder)
    assert r.returncode == 2 and "already holds 2 game record" in r.stderr
    r = cli("match", "blooms", "random", "random", "--games", "3", *SMALL, "--quiet",
            "--save-dir", folder, "--resume")
    assert r.returncode == 0, r.stderr
    assert "3 games (2 read from --save-dir)" in r.stdout.strip().splitlines()[-1]
    assert len(list((tmp_path / "m").glob("game-*.json"))) == 3


def test_a_save_dir_that_cannot_be_made_is_a_parameter_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ParameterError, match="--save-dir"):
        _match(blocker / "games", games=1)


def test_resume_counts_the_recorded_resignations(tmp_path):
    rule = ResignRule(0.45, 1)
    whole = _match(tmp_path / "m", a="mcts:sims=60", b="mcts:sims=40", resign=rule)
    (tmp_path / "m" / "game-0002.json").unlink()
    again = _match(tmp_path / "m", a="mcts:sims=60", b="mcts:sims=40", resign=rule, resume=True)
    assert again["resumed"] == 3
    assert again["resigned"] == whole["resigned"] >= 1


@pytest.mark.parametrize("sig, workers", [(signal.SIGINT, 1), (signal.SIGTERM, 1),
                                          (signal.SIGTERM, 2)],
                         ids=["ctrl-c", "sigterm", "sigterm-two-workers"])
@pytest.mark.slow
def test_a_stopped_match_sums_up_its_finished_games_and_resume_plays_the_rest(tmp_path, sig,
                                                                             workers):
    folder = tmp_path / "m"
    args = [sys.executable, "-m", "stonegarden", "match", "blooms", "mcts:sims=1500", "random",
            "--param", "size=4", "--games", "40", "--save-dir", str(folder), "--json", "--quiet",
            "--workers", str(workers)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=cli_env(),
                            preexec_fn=ctrl_c_as_in_a_terminal)
    deadline = time.monotonic() + 120
    while not list(folder.glob("game-*.json")) and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    out = json.loads(stdout.strip().splitlines()[-1])
    recorded = len(list(folder.glob("game-*.json")))
    assert out["stopped"] is True and 1 <= out["games"] == recorded < 40
    assert "--resume plays the rest" in stderr
    # the rest, cheaply: the same match asked for as many games as were recorded plus one
    r = run_cli("match", "blooms", "mcts:sims=1500", "random", "--param", "size=4",
                "--games", str(recorded + 1), "--save-dir", str(folder), "--json", "--quiet",
                "--resume")
    assert r.returncode == 0, r.stderr
    again = json.loads(r.stdout.strip().splitlines()[-1])
    assert again["resumed"] == recorded and again["games"] == recorded + 1
    assert "stopped" not in again


def test_resume_of_a_folder_without_records_plays_the_whole_match(tmp_path):
    fresh = _match(tmp_path / "new", games=2, resume=True)
    plain = _match(tmp_path / "plain", games=2)
    assert fresh == plain and fresh["resumed"] == 0


def test_a_second_match_into_the_save_dir_of_a_running_one_is_refused(cli, tmp_path):
    """Two matches at once into one --save-dir wrote the same records over each other's."""
    from stonegarden.lab.folder_lock import folder_held

    args = ("match", "blooms", "random", "random", *SMALL, "--games", "1", "--quiet",
            "--save-dir", str(tmp_path / "m"))
    with folder_held(tmp_path / "m", "--save-dir"):  # a match of this process plays there
        r = cli(*args)
    assert refused_as_in_use(r, tmp_path / "m", "--save-dir"), r.stderr
    assert not list((tmp_path / "m").glob("game-*.json"))
    assert cli(*args).returncode == 0 and (tmp_path / "m" / "game-0000.json").is_file()


def test_a_match_of_one_game_says_one_game(cli):
    r = cli("match", "blooms", "random", "random", *SMALL, "--games", "1", "--quiet")
    assert r.returncode == 0, r.stderr
    assert "on blooms size=3: 1 game, A wins" in r.stdout, r.stdout  # not "1 games"


def test_an_even_match_reads_elo_plus_0_not_minus_0(cli):
    # seed 1: random against random on the default board, one game each (a 50% score)
    r = cli("match", "blooms", "random", "random", "--games", "2", "--quiet")
    assert r.returncode == 0, r.stderr
    assert "A scores 50.0%, Elo A-B +0 " in r.stdout
    r = cli("match", "blooms", "random", "random", "--games", "2", "--quiet", "--json")
    assert '"elo": 0.0,' in r.stdout and "-0.0" not in r.stdout


def _wait_for_cpu(proc: subprocess.Popen[str], seconds: float, within: float = 120) -> None:
    """Until ``proc`` has spent ``seconds`` of CPU (Linux's /proc), ``within`` seconds at most."""
    ticks = os.sysconf("SC_CLK_TCK")
    end = time.monotonic() + within
    while time.monotonic() < end:
        assert proc.poll() is None, proc.communicate()
        with open(f"/proc/{proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / ticks >= seconds:  # utime + stime
            return
        time.sleep(0.1)
    pytest.fail(f"the process spent less than {seconds} s of CPU in {within} s")


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
@pytest.mark.slow
def test_a_match_stopped_before_any_game_ends_prints_valid_json_and_no_figures(as_json):
    args = [sys.executable, "-m", "stonegarden", "match", "blooms", "mcts:time=30", "random",
            "--games", "2", "--quiet", *(["--json"] if as_json else [])]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=cli_env(),
                            preexec_fn=ctrl_c_as_in_a_terminal)
    # the first game's first search (of 30 s) is under way once the process has spent more
    # CPU than its imports and kernel loading take (about 2 s): a wait in wall time read a
    # loaded machine's import as the search
    _wait_for_cpu(proc, 4.0)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert stderr.strip().endswith("stopped after 0 of 2 games (with --save-dir, the same "
                                   "command and --resume would play the rest)")
    if as_json:  # strict JSON: Infinity, which Python writes, is not JSON
        out = json.loads(stdout, parse_constant=lambda c: pytest.fail(f"{c} in {stdout}"))
        assert out["games"] == 0 and out["stopped"] is True
        assert out["score"] is None and out["elo"] is None and out["elo_ci95"] is None
    else:
        assert stdout == "mcts:time=30 vs random on blooms standard: no game finished\n"


def test_the_summary_and_progress_name_the_parameters_as_param_takes_them(tmp_path):
    """Not in Python's forms ("blooms {'size': 3}", "blooms {}")."""
    from .conftest import run_cli

    match = run_cli("match", "blooms", "random", "random", "--games", "2", "--param", "size=3",
                    "--param", "start_scores=1,0")
    assert match.returncode == 0, match.stderr
    assert " on blooms size=3 start_scores=1,0: 2 games" in match.stdout
    study = run_cli("study", "blooms", "--agent", "random", "--games", "1", "--out",
                    str(tmp_path / "s"))
    assert study.returncode == 0, study.stderr
    assert "blooms standard: 1/1 games" in study.stderr and "{" not in study.stderr


def test_a_save_dir_on_a_read_only_disk_is_refused_before_any_game(read_only_folder):
    from click.testing import CliRunner

    from stonegarden.cli.main import cli

    out = CliRunner().invoke(cli, ["match", "blooms", "random", "random", *SMALL, "--games", "2",
                                   "--save-dir", str(read_only_folder)])
    assert out.exit_code == 2, out.output
    assert out.output.strip() == (f"error: --save-dir {str(read_only_folder)!r}: "
                                  "Read-only file system")
