"""The terminal game as its player meets it: saving, undo under dice, automatic moves, the
help and the move list, the diagram's labels, interrupts, and errors met before the board."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import stonegarden
from stonegarden.agents import make_agent
from stonegarden.core.record import make_record, save_record
from stonegarden.errors import RecordError
from stonegarden.terminal.play import Session, help_text, moves_text, status_line
from stonegarden.terminal.render import rich_diagram

from .conftest import cli_env, ctrl_c_as_in_a_terminal, read_terminal, run_cli


def test_saving_to_a_folder_is_refused_in_one_line_and_leaves_no_temp_file(tmp_path):
    game = stonegarden.make("blooms", size=3)
    record = make_record(game, [], game.initial_state())
    (tmp_path / "adir").mkdir()
    for bad in (tmp_path / "adir", tmp_path / ".", tmp_path / ".."):
        with pytest.raises(RecordError, match="folder"):
            save_record(record, bad)
    with pytest.raises(RecordError, match="cannot save"):
        save_record(record, tmp_path / "missing" / "game.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir"]


def test_a_record_is_not_saved_under_an_sgf_name_that_convert_could_not_read(tmp_path):
    sgf = tmp_path / "g.sgf"
    out = run_cli("play", "freego", "--param", "size=5", "--save", str(sgf), input="quit\n")
    assert out.returncode == 2 and out.stdout == "" and not sgf.exists()
    assert "a record is JSON" in out.stderr and len(out.stderr.splitlines()) == 1
    out = run_cli("play", "freego", "--param", "size=5", "--p2", "random:seed=1",
                  input=f"C3\nsave {sgf}\nsave {tmp_path / 'g.json'}\nquit\n")
    assert out.returncode == 0, out.stderr
    assert "could not save" in out.stdout and not sgf.exists()
    converted = run_cli("convert", str(tmp_path / "g.json"), str(sgf))
    assert converted.returncode == 0 and sgf.read_text().startswith("(;")


def test_save_to_a_folder_at_the_prompt_keeps_the_game_going(tmp_path):
    out = run_cli("play", "blooms", "--param", "size=3", input="save .\nsave ..\nquit\n")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert out.stdout.count("could not save") == 2 and "leaving the game" in out.stdout


def tumbling_session() -> Session:
    """Tumbling Dice, a person as Blue (who rolls and places first) against an agent."""
    game = stonegarden.make("blobs", tumbling=True)
    return Session(game, {1: make_agent("random:seed=1"), 2: None})


def test_undo_takes_back_to_the_persons_turn_and_keeps_the_roll_before_it():
    s = tumbling_session()
    g = s.game
    s.push("roll:M", g.play_text(s.state, "roll:M"))
    mine = g.legal_moves_text(s.state)[0]
    s.push(mine, g.play_text(s.state, mine))
    for _ in range(2):  # the agent's roll and move
        state = s.state
        action = g.chance_outcomes(state)[0][0] if g.current_player(state) < 0 else \
            g.legal_actions(state)[0]
        s.push(g.action_to_text(state, action), g.play(state, action))
    assert s.undo() == 2  # two players' moves; the rolls are not counted
    assert s.moves == ["roll:M"] and g.current_player(s.state) == 2
    assert s.undo() == 0 and s.moves == ["roll:M"]  # no move of the person's left


def test_undo_before_the_persons_first_move_changes_nothing():
    game = stonegarden.make("blooms", size=3)
    s = Session(game, {1: make_agent("random:seed=1"), 2: None})
    s.push("Rb2", game.play_text(s.state, "Rb2"))
    assert s.undo() == 0 and s.moves == ["Rb2"]


def test_an_undone_move_played_again_meets_the_same_roll():
    """The dice are drawn from the seed and the ply: undo is no button to roll again."""
    script = "\n".join(["h9M", "undo", "h9M", "undo", "h9M", "quit"]) + "\n"
    out = run_cli("play", "blobs", "--param", "tumbling=true", "--p1", "random:seed=2",
                  "--p2", "human", "--seed", "5", input=script, COLUMNS="100")
    assert out.returncode == 0, out.stderr
    rolls = re.findall(r"chance: (roll:\w)", out.stdout)
    # the person's first roll, then after each of the three h9M the agent's roll (and the
    # person's next one)
    assert len(rolls) == 7 and rolls[1] == rolls[3] == rolls[5], rolls
    assert out.stdout.count("took back 2 move(s)") == 2


def test_the_automatic_moves_a_move_sets_off_are_shown(tmp_path):
    save = tmp_path / "g.json"
    out = run_cli("play", "blobs", "--p1", "random:seed=1", "--p2", "random:seed=2",
                  "--save", str(save), input="")
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in
            run_cli("replay", str(save), "--json").stdout.splitlines()]
    autos = [" ".join(r["auto_moves"]) for r in rows if r.get("auto_moves")]
    assert autos, "this seed's game has automatic moves"
    shown = re.findall(r"\(auto ([^)]*)\)", out.stdout)
    assert shown == autos


def test_the_status_line_shows_the_face_rolled():
    s = tumbling_session()
    s.push("roll:B", s.game.play_text(s.state, "roll:B"))
    assert status_line(s.game, s.state).endswith("; dice left 47; rolled B")


def test_pass_is_in_the_help_and_first_in_the_move_list_where_it_is_legal():
    territory = stonegarden.make("blooms-territory", size=4)
    state = territory.play_text(territory.initial_state(), "Rd4")
    texts = territory.legal_moves_text(state)
    assert "pass" in help_text(territory, state)
    assert moves_text(texts).startswith(f"{len(texts)} legal moves: pass, ")
    race = stonegarden.make("blooms", size=4)
    assert "pass" not in help_text(race, race.initial_state())


def test_column_letters_are_not_coloured_as_stones():
    game = stonegarden.make("freego", size=15)
    state = game.play_text(game.initial_state(), "O15")  # a stone under the letter O
    text = rich_diagram(game, game.play_text(state, "A1"), fields=False)
    lines = text.plain.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["A", "B"])
    start = sum(len(line) + 1 for line in lines[:header])
    end = start + len(lines[header])
    styled = [text.plain[s.start:s.end] for s in text.spans
              if s.start < end and s.end > start and s.style]
    assert styled == [], styled
    stones = [text.plain[s.start:s.end] for s in text.spans if s.style]
    assert "O" in stones and "X" in stones  # the stones themselves keep their colours


def test_an_agent_the_game_cannot_use_is_refused_before_the_board():
    out = run_cli("play", "freego", "--param", "size=5", "--p2",
                  "mcts:patterns=3,model=none,sims=10", input="C3\n")
    assert out.returncode == 2 and out.stdout == ""
    assert "agent 'mcts:patterns=3,model=none,sims=10'" in out.stderr


def test_a_person_may_be_named_in_capitals_and_a_game_without_scores_ends_without_them():
    out = run_cli("play", "bridgego", "--param", "size=3", "--p1", "HUMAN", "--p2",
                  "random:seed=1", input="resign\n")
    assert out.returncode == 0, out.stderr
    assert "player 2 (White) wins: Black resigned" in out.stdout and "scores" not in out.stdout


def test_play_help_shows_the_game_as_optional_and_names_the_levels():
    out = run_cli("play", "--help")
    assert out.returncode == 0, out.stderr
    assert "play [OPTIONS] [GAME]" in out.stdout  # `stonegarden play` alone plays Blooms
    assert "'level:1' .. 'level:6'" in " ".join(out.stdout.split())


def test_a_free_go_suicide_left_without_a_liberty_is_named_on_the_status_line():
    # the diagram draws it as any stone: the status line says it counts for nothing yet
    out = run_cli("play", "freego", "--param", "size=5", "--p2", "human",
                  input="C3\nA2\nD4\nB1\nA1\nquit\n")
    assert out.returncode == 0, out.stderr
    assert ("player 2 (White) to move; scores 0 : 0 (target 3); no liberty: A1 (the next move "
            "removes it and scores it) player 2 > quit") in " ".join(out.stdout.split())
    assert out.stdout.count("no liberty") == 1  # before White's move only


def test_the_end_of_a_game_is_said_in_words_not_as_the_record_s_reason_code():
    # a Blobs box too small for a second die: a draw at once, said as the web page says it
    out = run_cli("play", "blobs", "--param", "max_grid=1", input="")
    assert out.returncode == 0, out.stderr
    assert "Game over: draw: no die fits anywhere" in out.stdout
    assert "no-placement" not in out.stdout


def ctrl_c_once(proc: subprocess.Popen[str], ready: Callable[[], None],
                after: float) -> tuple[str, str]:
    """Ctrl-C (SIGINT) to a terminal game ``after`` seconds past ``ready`` (an agent thinking
    by then); its output. The game is killed if it is still there, whatever failed."""
    try:
        ready()
        time.sleep(after)
        proc.send_signal(signal.SIGINT)
        return proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.slow
def test_ctrl_c_while_an_agent_thinks_says_where_the_record_is(tmp_path):
    save = tmp_path / "g.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "stonegarden", "play", "blooms", "--param", "size=4",
         "--p1", "mcts:time=30", "--save", str(save)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=cli_env(), preexec_fn=ctrl_c_as_in_a_terminal)

    def ready() -> None:
        assert proc.stdout is not None
        proc.stdout.readline()  # the title: the agent thinks now

    out, err = ctrl_c_once(proc, ready, after=1.0)
    assert proc.returncode == 130, err
    assert f"the record so far is in {save}" in out.replace("\n", "")
    assert "Aborted" not in err + out
    assert json.loads(save.read_text())["moves"] == []


def test_analyse_by_default_takes_the_last_position_with_a_player_to_move(tmp_path):
    save = tmp_path / "g.json"
    assert run_cli("play", "blooms", "--param", "size=3", "--param", "target=3",
                   "--p1", "random:seed=1", "--p2", "random:seed=2", "--save", str(save),
                   input="").returncode == 0
    n = len(json.loads(save.read_text())["moves"])
    out = run_cli("analyse", str(save), "--sims", "50", "--threads", "1", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["ply"] == n - 1
    over = run_cli("analyse", str(save), "--ply", str(n), "--sims", "50")
    assert over.returncode == 2 and f"--ply 0..{n - 1}" in over.stderr


def test_replay_of_an_sgf_file_says_to_convert_it(tmp_path):
    sgf = tmp_path / "g.sgf"
    sgf.write_text("(;GM[1]FF[4]SZ[5];B[cc])")
    out = run_cli("replay", str(sgf))
    assert out.returncode == 2 and "stonegarden convert" in out.stderr


def test_a_result_that_disagrees_says_what_the_replay_found(tmp_path):
    game = stonegarden.make("blooms", size=3)
    record = make_record(game, ["Rb2"], None).to_json()
    data = json.loads(record)
    data["result"] = {"winner": 1}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    out = run_cli("replay", str(path))
    assert out.returncode == 2 and "no winner yet" in out.stderr and "None" not in out.stderr


def test_no_stray_files_in_the_working_folder(tmp_path):
    """``save ..`` once left a file named ``...tmp`` where the game was started."""
    before = set(os.listdir(tmp_path))
    subprocess.run([sys.executable, "-m", "stonegarden", "play", "blooms", "--param", "size=3"],
                   input="save ..\nsave x/\nquit\n", capture_output=True, text=True,
                   cwd=tmp_path, env=cli_env(), timeout=120)
    assert set(os.listdir(tmp_path)) == before


def test_the_game_says_where_its_record_is_however_it_is_left(tmp_path):
    def common(name: str) -> tuple[str, ...]:  # a file each: an existing one is refused
        return ("play", "blooms", "--param", "size=3", "--save", str(tmp_path / name))

    quit_ = run_cli(*common("q.json"), input="quit\n")
    assert ("leaving the game unfinished; the record so far is in "
            f"{tmp_path / 'q.json'}") in quit_.stdout
    eof = run_cli(*common("e.json"), input="")
    assert ("end of input: leaving the game unfinished; the record so far is in "
            f"{tmp_path / 'e.json'}") in eof.stdout
    save = str(tmp_path / "g.json")
    over = run_cli(*common("g.json"), "--p1", "random:seed=1", input="")
    assert over.returncode == 0 and over.stdout.splitlines()[-3] == f"the record is in {save}"
    # and what to do next with it, as commands to paste
    assert over.stdout.splitlines()[-2:] == [
        f"  replay it:        stonegarden replay {save}",
        f"  judge every move: stonegarden analyse {save} --review"]
    unsaved = run_cli("play", "blooms", "--param", "size=3", input="quit\n")
    assert unsaved.stdout.splitlines()[-1].endswith("leaving the game unfinished")


def test_a_save_file_that_exists_is_refused_not_written_over(tmp_path):
    """``play --save g.json`` run twice wrote the second game over the first one's record."""
    first = run_cli("play", "blooms", "--param", "size=3", "--p1", "random:seed=1",
                    "--save", str(tmp_path / "g.json"), input="")
    assert first.returncode == 0, first.stderr
    kept = (tmp_path / "g.json").read_bytes()
    again = run_cli("play", "blooms", "--param", "size=3", "--save", str(tmp_path / "g.json"),
                    input="quit\n")
    assert again.returncode == 2 and again.stdout == ""
    assert again.stderr.strip() == (
        f"error: --save {str(tmp_path / 'g.json')!r} already exists: a game saved before is "
        "not written over; choose another name, or remove it first")
    assert (tmp_path / "g.json").read_bytes() == kept


def test_save_at_the_prompt_expands_the_home_folder(tmp_path):
    out = run_cli("play", "blooms", "--param", "size=3", input="save ~/g.json\nquit\n",
                  HOME=str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert f"saved to {tmp_path / 'g.json'}" in out.stdout
    assert json.loads((tmp_path / "g.json").read_text())["game"] == "blooms"


def test_a_mistyped_command_is_not_read_as_a_bad_stone():
    out = run_cli("play", "blooms", "--param", "size=3", input="hnit\nZb2\nquit\n")
    assert out.returncode == 0, out.stderr
    # not "'hnit': 'H' is not a colour", as the notation would read it
    assert "'hnit' is neither a move nor a command (type 'help' for them)" in out.stdout
    assert "'Z' is not a colour" in out.stdout  # a move's mistake is still told as one


def test_hint_names_a_legal_move_and_the_game_goes_on(tmp_path):
    from stonegarden import make

    save = tmp_path / "g.json"
    out = run_cli("play", "freego", "--param", "size=5", "--save", str(save),
                  input="hint\nhelp\nquit\n")
    assert out.returncode == 0, out.stderr
    hinted = re.search(r"hint: (\S+) \(2 s of search\)", out.stdout)
    assert hinted is not None, out.stdout
    game = make("freego", size=5)
    assert hinted.group(1) in game.legal_moves_text(game.initial_state())
    assert "hint     the search's move" in out.stdout  # in the help
    assert json.loads(save.read_text())["moves"] == []  # a hint plays nothing


def test_undo_between_two_people_at_one_keyboard_goes_back_to_the_askers_turn():
    """Not only the opponent's last move: the one asking is to move again after the undo."""
    out = run_cli("play", "freego", "--param", "size=5", "--p2", "human",
                  input="C3\nD4\nundo\nmoves\nquit\n")
    assert out.returncode == 0, out.stderr
    assert "took back 2 move(s)" in out.stdout
    after = out.stdout.split("took back 2 move(s)")[1]
    assert "player 1 (Black) to move" in after and "25 legal moves" in after  # the empty board
    game = stonegarden.make("freego", size=5)
    s = Session(game, {1: None, 2: None})
    s.push("C3", game.play_text(s.state, "C3"))
    s.push("D4", game.play_text(s.state, "D4"))
    assert s.undo(1) == 2 and s.moves == []


def test_a_save_file_on_a_read_only_disk_is_refused_in_one_line(read_only_folder):
    from click.testing import CliRunner

    from stonegarden.cli.main import cli

    target = read_only_folder / "game.json"
    out = CliRunner().invoke(cli, ["play", "freego", "--param", "size=5", "--p1", "random",
                                   "--p2", "random", "--save", str(target)])
    assert out.exit_code == 2, out.output
    assert out.output.strip() == (f"error: cannot save the record to {str(target)!r}: "
                                  "Read-only file system")


def test_the_terminal_shows_the_games_display_diagram_and_knows_no_board_shape():
    """Blooms numbers its cells for a player in its own package (``display_diagram``); the
    terminal draws whatever the game gives, and the parseable diagram has no numbers."""
    game = stonegarden.make("blooms", size=4)
    state = game.play_text(game.initial_state(), "Rd4")
    shown = game.display_diagram(state)
    assert rich_diagram(game, state).plain == shown + "\n"
    lines = shown.splitlines()
    assert lines[0].strip() == lines[-2].strip() == "1 2 3 4"
    assert lines[4].startswith("d  ") and lines[4].rstrip().endswith("d7")
    assert game.parse_diagram(game.diagram(state)) == state
    freego = stonegarden.make("freego", size=5)
    assert freego.display_diagram(freego.initial_state()) == freego.diagram(freego.initial_state())
    import stonegarden.terminal.render as render

    assert "geometry" not in Path(render.__file__).read_text("utf-8")


@pytest.mark.parametrize(("game_id", "kept"), [
    ("blooms", True), ("blooms-territory", True), ("freego", True), ("bridgego", False),
    ("blobs", False)])
def test_each_game_says_whether_its_scores_are_shown(game_id, kept):
    """The territory rules' board score is shown from the first move, 0 : 0 included, and a
    game with no score shows none: the game says so (``keeps_scores``), not the terminal."""
    game = stonegarden.make(game_id)
    state = game.initial_state()
    assert game.keeps_scores(state) is kept
    assert ("scores 0 : 0" in status_line(game, state)) is kept
    import stonegarden.terminal.play as play

    assert "territory" not in Path(play.__file__).read_text("utf-8")


def test_the_game_gives_the_status_line_its_own_words():
    """Blobs' dice are Blobs' words (``status_words``), not fields the terminal picks out of
    its diagram by name; other games add none."""
    s = tumbling_session()
    after = s.game.play_text(s.state, "roll:B")
    assert s.game.status_words(after) == ("dice left 47", "rolled B")
    assert stonegarden.make("freego").status_words(stonegarden.make("freego").initial_state()) == ()
    import stonegarden.terminal.play as play

    assert "dice_left" not in Path(play.__file__).read_text("utf-8")


def test_moves_read_from_a_pipe_are_shown_after_the_prompt():
    """No terminal shows what a pipe gave: the prompt ran into the next line of output
    ("player 1 > player 2 (random) plays ..."), and the person's moves were nowhere."""
    out = run_cli("play", "blooms", "--param", "size=3", "--p2", "random:seed=1",
                  input="Rc3\nhelp\nquit\n")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert [line for line in lines if line.startswith("player 1 > ")] == [
        "player 1 > Rc3", "player 1 > help", "player 1 > quit"]
    assert lines[lines.index("player 1 > Rc3") + 1].startswith("player 2 (random:seed=1) plays")
    windows = subprocess.run([sys.executable, "-m", "stonegarden", "play", "blooms", "--param",
                              "size=3"], input=b"Rc3\r\nquit\r\n", capture_output=True,
                             env=cli_env(), timeout=120)  # bytes: no newline translation
    assert b"player 1 > Rc3\n" in windows.stdout and b"\r" not in windows.stdout


def test_a_moves_file_with_a_byte_order_mark_plays_its_first_move():
    """A moves file saved by Notepad begins with a byte order mark: its first move was refused
    as "'\\ufeffRc3' is not a stone", the mark shown as a character no one had typed."""
    out = subprocess.run([sys.executable, "-m", "stonegarden", "play", "blooms", "--param",
                          "size=3", "--p2", "human"], input="\ufeffRc3\nquit\n".encode(),
                         capture_output=True, env=cli_env(), timeout=120)
    assert out.returncode == 0, out.stderr
    assert b"player 2 (black and grey stones) to move" in out.stdout
    assert b"ufeff" not in out.stdout


def test_the_help_is_one_column_on_a_narrow_terminal():
    """Two columns on 40 would break each row in the middle of its second command."""
    narrow = run_cli("play", "freego", "--param", "size=5", input="help\nquit\n", COLUMNS="40")
    assert narrow.returncode == 0, narrow.stderr
    lines = narrow.stdout.splitlines()
    at = lines.index("  moves    list some legal moves")
    assert lines[at + 1:at + 7] == [
        "  undo     take back your last move", "  hint     the search's move (2 s)",
        "  save F   save the record to file F", "  resign   resign the game",
        "  quit     leave (--save keeps the record)", "  help     this text"]
    wide = run_cli("play", "freego", "--param", "size=5", input="help\nquit\n", COLUMNS="80")
    assert ("  moves    list some legal moves     undo     take back your last move"
            in wide.stdout.splitlines())


def test_a_save_name_no_file_can_have_is_refused_and_the_game_goes_on(tmp_path):
    """A NUL in the name (Ctrl-@ at the prompt) was a traceback that ended the game."""
    out = run_cli("play", "blooms", "--param", "size=3", input=f"save {tmp_path}/a\0b\nquit\n")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert "could not save: cannot save the record to" in out.stdout
    assert "embedded null byte" in out.stdout and "leaving the game unfinished" in out.stdout
    assert list(tmp_path.iterdir()) == []


def play_then_lose_the_save_folder(tmp_path, p2: str) -> tuple[subprocess.Popen[str], Path]:
    """A terminal game of Blooms saved to ``games/g.json`` against ``p2``, whose folder is
    removed once the record is first written (before the first prompt)."""
    folder = tmp_path / "games"
    folder.mkdir()
    save = folder / "g.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "stonegarden", "play", "blooms", "--param", "size=3", "--p2",
         p2, "--save", str(save)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=cli_env(), preexec_fn=ctrl_c_as_in_a_terminal)
    try:
        deadline = time.monotonic() + 60
        while not save.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        save.unlink()
        folder.rmdir()
    except BaseException:
        proc.kill()
        raise
    return proc, save


def test_a_save_that_fails_after_a_move_is_said_and_the_game_goes_on(tmp_path):
    """The --save folder removed during the game (or the disk full) ended it with an error
    and exit status 2, the game on the screen lost with its record."""
    proc, save = play_then_lose_the_save_folder(tmp_path, "random:seed=1")
    out, err = proc.communicate("Rc3\nmoves\nquit\n", timeout=120)
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert (f"could not save: cannot save the record to {str(save)!r}: No such file or "
            "directory; the game goes on (`save FILE` writes the record elsewhere)") in out
    after = out.split("could not save")[1]
    assert "player 2 (random:seed=1) plays" in after and "legal moves:" in after
    assert out.count("could not save") == 1  # said once, not at every move
    assert out.rstrip().endswith(
        f"leaving the game unfinished; its last moves could not be saved to {save}")


def test_a_session_keeps_the_reason_its_save_failed_until_one_succeeds(tmp_path):
    game = stonegarden.make("freego", size=5)
    folder = tmp_path / "games"
    folder.mkdir()
    s = Session(game, {1: None, 2: None}, save_path=folder / "g.json")
    folder.rmdir()
    s.push("C3", game.play_text(s.state, "C3"))
    assert s.moves == ["C3"] and "No such file or directory" in (s.save_error or "")
    folder.mkdir()
    s.push("D4", game.play_text(s.state, "D4"))
    assert s.save_error is None
    assert json.loads((folder / "g.json").read_text())["moves"] == ["C3", "D4"]


def test_a_game_started_with_no_input_at_all_ends_as_at_the_end_of_input():
    """With stdin closed (``0<&-``) the prompt's input() raised RuntimeError: a traceback."""
    out = subprocess.run([sys.executable, "-m", "stonegarden", "play", "blooms", "--param",
                          "size=3"], stdin=None, capture_output=True, text=True, env=cli_env(),
                         timeout=120, preexec_fn=lambda: os.close(0))
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert out.stdout.rstrip().endswith("end of input: leaving the game unfinished")


@pytest.mark.parametrize("name", ["games/", "games/."])
def test_save_to_a_folder_that_does_not_exist_is_refused_not_made_a_file(tmp_path, name):
    """``--save games/`` (a folder not made yet) wrote the record to a file named ``games``."""
    out = subprocess.run([sys.executable, "-m", "stonegarden", "play", "blooms", "--param",
                          "size=3", "--save", name], input="quit\n", capture_output=True,
                         text=True, cwd=tmp_path, env=cli_env(), timeout=120)
    assert out.returncode == 2 and out.stdout == ""
    assert f"Invalid value for '--save': {name!r} is a folder, not a file name" in out.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_bridge_go_draw_with_no_legal_move_says_draw_once():
    """"Game over: draw: White had no legal move: a draw" said the draw twice (the web page's
    "A draw: ..." as well)."""
    from stonegarden.terminal.play import end_words

    game = stonegarden.make("bridgego", size=3)
    moves = ["C1", "C2", "B1", "C3", "A3", "B2", "B3", "A1", "C2", "A2", "B1", "C3", "A3", "A1",
             "B3", "B1"]
    state = game.initial_state()
    for move in moves:
        state = game.play_text(state, move)
    out = run_cli("play", "bridgego", "--param", "size=3", "--p2", "human",
                  input="\n".join([*moves, "C1"]) + "\n")
    assert out.returncode == 0, out.stderr
    assert "Game over: draw: White had no legal move\n" in out.stdout
    assert end_words(game, game.play_text(state, "C1")) == "draw: White had no legal move"


@pytest.mark.slow
def test_ctrl_c_after_a_failed_save_does_not_say_the_record_is_there(tmp_path):
    proc, save = play_then_lose_the_save_folder(tmp_path, "mcts:time=30")

    def ready() -> None:
        assert proc.stdout is not None and proc.stdin is not None
        proc.stdin.write("Rc3\n")
        proc.stdin.flush()
        seen = ""
        while "could not save" not in seen:  # then the agent thinks
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else ""
            seen += line

    out, err = ctrl_c_once(proc, ready, after=0.5)
    assert proc.returncode == 130, err
    assert (f"interrupted: the game is left unfinished; its last moves could not be saved to "
            f"{save}") in out
    assert "the record so far is in" not in out


def test_a_board_wider_than_the_terminal_is_cut_at_its_edge_not_folded():
    """On 40 columns a wide Blobs board's rows were folded at their spaces onto the next
    line, where they read as rows of the board; the rows are cut at the edge, and said so."""
    import io

    from rich.console import Console

    from stonegarden.terminal.play import show_board

    game = stonegarden.make("blobs")
    state = game.parse_position("i10:BR,e9:BB,h9:RR,i9:RB,e8:BB,f8:BR,g8:RR,h8:RB,i8:BB,j8:BR,"
                                "e7:BB,f7:RB,g7:RB,h7:BB,i7:BR,j7:RR,f6:BB,g6:BB 2 30 12 -")
    rows = game.display_diagram(state).splitlines()[:-1]  # the fields line is not drawn
    assert max(len(row) for row in rows) == 57
    narrow = Console(file=io.StringIO(), width=40, force_terminal=True, color_system=None)
    show_board(narrow, game, state)
    lines = narrow.file.getvalue().splitlines()
    assert lines[:len(rows)] == [row[:40] for row in rows]
    note = " ".join(" ".join(lines[len(rows):]).split())  # the note folds as prose may
    assert note == "(the board is cut at 40 of its 57 columns: widen the terminal to see it whole)"
    wide = Console(file=io.StringIO(), width=80, force_terminal=True, color_system=None)
    show_board(wide, game, state)
    assert wide.file.getvalue().splitlines() == [*rows, ""]  # and no note


def test_save_at_the_prompt_keeps_a_file_this_game_did_not_write(tmp_path):
    """``save FILE`` wrote over any file of that name (a game saved before), where ``--save``
    refuses one; the game's own files it writes again."""
    before = tmp_path / "old.json"
    before.write_text("the record of another game")
    mine, own = tmp_path / "new.json", tmp_path / "g.json"
    out = run_cli("play", "blooms", "--param", "size=3", "--save", str(own),
                  input=f"save {before}\nsave {mine}\nRc3\nsave {mine}\nsave {own}\nquit\n")
    assert out.returncode == 0, out.stderr
    assert before.read_text() == "the record of another game"
    assert f"could not save: {before} already exists" in out.stdout
    assert out.stdout.count(f"saved to {mine}") == 2 and f"saved to {own}" in out.stdout
    assert json.loads(mine.read_text())["moves"][0] == "Rc3"  # written again after the move


def test_a_save_needs_a_space_before_its_file_name(tmp_path):
    """``savegame.json`` wrote the record to ``game.json``: any line beginning with "save" was a
    save, the rest of it the file's name."""
    glued, spaced = tmp_path / "glued.json", tmp_path / "spaced.json"
    out = run_cli("play", "blooms", "--param", "size=3",
                  input=f"save{glued}\nsave   {spaced}\nquit\n")
    assert out.returncode == 0, out.stderr
    assert not glued.exists() and f"saved to {glued}" not in out.stdout
    assert spaced.is_file() and f"saved to {spaced}" in out.stdout


def test_a_command_with_words_after_it_is_said_to_take_none():
    """``undo 2`` or ``resign now`` was read as a move, and refused in the notation's words
    ("'undo 2' is not a stone (colour letter then cell)")."""
    out = run_cli("play", "blooms", "--param", "size=3",
                  input="undo 2\nresign now\nwhat now\nR c3\nquit\n")
    assert out.returncode == 0, out.stderr
    assert "'undo' takes nothing after it: type 'undo' alone" in out.stdout
    assert "'resign' takes nothing after it: type 'resign' alone" in out.stdout
    assert "'what now' is neither a move nor a command (type 'help' for them)" in out.stdout
    assert "'R c3' is not a stone" in out.stdout  # a move's mistake is still told as one
    assert "Game over" not in out.stdout


@pytest.mark.parametrize(("game_id", "turn"), [
    ("blooms", "player 1 (red and yellow stones) to move; scores 0 : 0"),
    ("blooms-territory", "player 1 (red and yellow stones) to move; scores 0 : 0"),
    ("freego", "player 1 (Black) to move; scores 0 : 0"), ("bridgego", "player 1 (Black) to move"),
    ("blobs", "player 2 (Blue) to move; dice left 47")])
def test_the_status_line_says_which_side_the_player_to_move_plays(game_id, turn):
    """It said "player 2 to move" alone: nothing on the screen said that player 2 plays Blue
    in Blobs (whose regions are the ``x``), or White in Go."""
    game = stonegarden.make(game_id)
    assert status_line(game, game.initial_state()).startswith(turn)


def on_a_terminal(args: list[str], columns: int) -> str:
    """What ``stonegarden ARGS`` shows on a terminal (a pty) ``columns`` wide, its standard input
    at its end: the output as the terminal got it, colours and all."""
    import fcntl
    import pty
    import struct
    import termios

    main, tty = pty.openpty()
    fcntl.ioctl(tty, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = {k: v for k, v in cli_env().items() if k not in ("COLUMNS", "LINES")}
    proc = subprocess.Popen([sys.executable, "-m", "stonegarden", *args], stdin=subprocess.DEVNULL,
                            stdout=tty, stderr=tty, env=env)
    os.close(tty)
    try:
        seen = read_terminal(main)
        proc.wait(timeout=300)
    finally:
        os.close(main)
        if proc.poll() is None:
            proc.kill()
    return seen.decode(errors="replace")


def test_the_commands_to_go_over_a_game_are_never_broken_on_a_narrow_terminal(tmp_path):
    """On a terminal the line naming both commands was broken where it met the edge, in the
    middle of a command (``stonegarden analyse`` on one line, its file on the next): pasted,
    the shell ran the half without its file."""
    save = tmp_path / "a-folder-name-long-enough-to-reach-the-edge" / "g.json"
    save.parent.mkdir()
    shown = on_a_terminal(["play", "blooms", "--param", "size=3", "--p1", "random:seed=1",
                           "--p2", "random:seed=2", "--save", str(save)], columns=60)
    lines = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown).replace("\r", "").splitlines()
    assert "Game over" in shown
    assert f"  replay it:        stonegarden replay {save}" in lines
    assert f"  judge every move: stonegarden analyse {save} --review" in lines


def test_a_save_name_in_quotes_is_the_name_within_them(tmp_path):
    """``save "my game.json"``, quoted as a shell needs a name with a space, wrote a file whose
    name began and ended with the quotes."""
    quoted, single = tmp_path / "my game.json", tmp_path / "Ana's game.json"
    out = run_cli("play", "blooms", "--param", "size=3",
                  input=f'save "{quoted}"\nsave {single}\nquit\n')
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Ana's game.json", "my game.json"]
    assert f"saved to {quoted}\n" in out.stdout


def test_a_game_ended_before_any_move_on_the_board_names_no_review(tmp_path):
    """A game resigned at its first move, or over at its start (one die in Blobs), named
    ``analyse FILE --review``, which has no move to judge; only the replay is named."""
    for name, args, typed in (("r.json", ["freego", "--param", "size=5"], "resign\n"),
                              ("d.json", ["blobs", "--param", "dice=1"], "")):
        save = tmp_path / name
        out = run_cli("play", *args, "--save", str(save), input=typed)
        assert out.returncode == 0, out.stderr
        assert out.stdout.splitlines()[-2:] == [
            f"the record is in {save}", f"  replay it:        stonegarden replay {save}"]
    s = Session(stonegarden.make("freego", size=5), {1: None, 2: None})
    s.push("C3", s.game.play_text(s.state, "C3"))
    s.push("resign", s.game.play_text(s.state, "resign"))
    assert s.placed() == 1


def test_a_game_left_unfinished_goes_on_with_resume(tmp_path):
    """``quit`` said the ``--save`` file kept the game, but nothing could go on with it: a new
    game began from the empty board. ``--resume FILE`` goes on after its moves, with its players,
    and saves it there again."""
    save = tmp_path / "g.json"
    first = run_cli("play", "freego", "--param", "size=5", "--p2", "random:seed=1", "--save",
                    str(save), input="C3\nquit\n")
    assert first.returncode == 0, first.stderr
    before = json.loads(save.read_text())["moves"]
    assert len(before) == 2
    out = run_cli("play", "--resume", str(save), input="undo\nD4\nquit\n")
    assert out.returncode == 0, out.stderr
    assert f"going on after move 2 of {save}" in out.stdout
    assert "took back 2 move(s)" in out.stdout  # its moves are the game's own, undo and all
    assert "player 2 (random:seed=1) plays" in out.stdout  # the record's players sit again
    record = json.loads(save.read_text())
    assert record["moves"][0] == "D4" and len(record["moves"]) == 2
    assert record["params"] == {"size": 5} and record["players"]["2"] == "random:seed=1"


@pytest.mark.parametrize(("record", "args", "said"), [
    ({"moves": ["C3", "resign"]}, [], "is over: `stonegarden replay"),
    ({"moves": ["C3"], "meta": {"ended": {"winner": 2, "reason": "time"}}}, [], "is over"),
    ({"moves": ["C3"]}, ["freego"], "give no GAME with it"),
    ({"moves": ["C3"]}, ["--save", "other.json"], "give no --save with it"),
    ({"moves": ["Z9"]}, [], "'Z9'"),
])
def test_resume_refuses_a_game_it_cannot_go_on_with_in_one_line(tmp_path, record, args, said):
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"format": "stonegarden-record", "version": 1, "game": "freego",
                                "params": {"size": 5}, **record}))
    out = run_cli("play", *args, "--resume", str(path), input="quit\n")
    assert out.returncode == 2 and out.stdout == "" and said in out.stderr
    assert len(out.stderr.splitlines()) == 1


def test_resume_of_a_file_that_is_no_record_names_it_and_says_to_convert_an_sgf(tmp_path):
    """``play --resume game.sgf`` (the SGF a web page downloads) said "record is not valid
    JSON" without naming the file, where replay and analyse say to convert it first."""
    sgf = tmp_path / "game.sgf"
    sgf.write_text("(;GM[1]FF[4]SZ[5];B[cc])")
    out = run_cli("play", "--resume", str(sgf), input="quit\n")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith(f"error: {str(sgf)!r}: record is not valid JSON")
    assert out.stderr.rstrip().endswith("(this looks like an SGF file: `stonegarden convert` it "
                                        "to a record first)")


def test_a_record_s_player_who_names_no_agent_is_a_person_on_resume(tmp_path):
    """The web page's record names a person by the name shown there ("Ana")."""
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"format": "stonegarden-record", "version": 1, "game": "freego",
                                "params": {"size": 5}, "moves": ["C3"],
                                "players": {"1": "level:1", "2": "Ana"}}))
    out = run_cli("play", "--resume", str(path), "--p1", "human", input="quit\n")
    assert out.returncode == 0, out.stderr
    assert "player 2 (White) to move" in out.stdout and "plays" not in out.stdout


def test_a_record_s_agent_that_cannot_play_here_is_refused_not_made_a_person(tmp_path):
    """An agent whose model file had moved was taken for a person's name: the person at the
    keyboard was asked for its moves, which the record then said the agent had played."""
    path = tmp_path / "g.json"
    gone = tmp_path / "gone.npz"
    path.write_text(json.dumps({"format": "stonegarden-record", "version": 1, "game": "freego",
                                "params": {"size": 5}, "moves": ["C3", "B2"],
                                "players": {"1": f"mcts:model={gone}", "2": "Ana"}}))
    out = run_cli("play", "--resume", str(path), input="D4\nquit\n")
    assert out.returncode == 2 and out.stdout == "", out.stdout
    assert out.stderr.startswith("error: the record's player 1 cannot play here: agent ")
    assert out.stderr.rstrip().endswith("; give --p1 human, or another agent")
    assert len(out.stderr.splitlines()) == 1 and str(gone) in out.stderr
    out = run_cli("play", "--resume", str(path), "--p1", "human", input="D4\nquit\n")
    assert out.returncode == 0, out.stderr
    assert json.loads(path.read_text())["players"] == {"1": "human", "2": "Ana"}


def test_resume_saves_the_records_people_and_meta_back(tmp_path):
    """A web page's record of an unfinished game ("Ana", its date and clock) was saved back by
    ``play --resume`` with "human" for Ana and no ``meta``: the way through the terminal lost
    who played and when. Its clock is left out, with a note: the moves played in the terminal,
    on no clock, were saved as played under it (an SGF made of it said so in ``TM``)."""
    path = tmp_path / "g.json"
    meta = {"date": "2024-01-02", "clock": {"initial": 600, "increment": 5}}
    path.write_text(json.dumps({"format": "stonegarden-record", "version": 1, "game": "freego",
                                "params": {"size": 5}, "moves": ["C3"],
                                "players": {"1": "Bo", "2": "Ana"}, "meta": meta}))
    out = run_cli("play", "--resume", str(path), input="B2\nquit\n")
    assert out.returncode == 0, out.stderr
    record = json.loads(path.read_text())
    assert record["moves"] == ["C3", "B2"]
    assert record["players"] == {"1": "Bo", "2": "Ana"}
    assert record["meta"] == {"date": "2024-01-02"}
    assert out.stderr == ("note: the record's clock is left out of it from now on: the "
                          "terminal game has none\n")


@pytest.mark.slow
def test_sigterm_while_an_agent_thinks_on_a_terminal_says_so_and_shows_the_cursor(tmp_path):
    """SIGTERM (``kill``, a closed terminal's session manager) ended the game without a word,
    and with the cursor the thinking spinner hides still hidden in the shell after it. It is
    taken as Ctrl-C: the spinner is taken down and the game says where its record is."""
    import pty

    save = tmp_path / "g.json"
    main, tty = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "stonegarden", "play", "blooms", "--param", "size=4",
         "--p1", "mcts:time=30", "--save", str(save)],
        stdin=tty, stdout=tty, stderr=tty, env=cli_env())
    os.close(tty)
    try:
        seen = b""
        while b"thinking" not in seen:
            chunk = os.read(main, 65536)
            assert chunk, seen
            seen += chunk
        proc.send_signal(signal.SIGTERM)
        seen += read_terminal(main)
        proc.wait(timeout=60)
    finally:
        os.close(main)
        if proc.poll() is None:
            proc.kill()
    shown = seen.decode(errors="replace")
    assert proc.returncode == 130, shown
    assert shown.rfind("\x1b[?25h") > shown.rfind("\x1b[?25l") >= 0  # the cursor shown again
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown).replace("\r", "").replace("\n", "")
    assert f"interrupted: the game is left unfinished; the record so far is in {save}" in plain


def test_a_first_game_after_an_install_says_the_kernels_may_compile(tmp_path, monkeypatch):
    """A fresh install compiles the kernels at their first call: the first move and the
    agent's first reply waited minutes without a word ("thinking..."). Before the board,
    a line says why, as bench does."""
    from click.testing import CliRunner

    from stonegarden.cli import warmup
    from stonegarden.cli.main import cli

    said = "the first moves may take minutes after an install (`stonegarden warm-up`"
    marker = tmp_path / "warmed-up"
    monkeypatch.setattr(warmup, "_marker", lambda: marker)
    args = ["play", "freego", "--param", "size=5"]
    first = CliRunner().invoke(cli, args, input="quit\n")
    assert first.exit_code == 0, first.output
    assert said in first.stderr and said not in first.stdout
    marker.touch()  # warmed up: nothing to say
    later = CliRunner().invoke(cli, args, input="quit\n")
    assert later.exit_code == 0 and "compil" not in later.output


def test_the_automatic_moves_of_a_persons_move_are_shown_as_an_agents_are(tmp_path):
    """Two people at the keyboard play the moves of a recorded game with automatic moves: each
    is shown as ``(auto ...)``, as the docs and an agent's moves show it."""
    save = tmp_path / "g.json"
    assert run_cli("play", "blobs", "--p1", "random:seed=1", "--p2", "random:seed=2",
                   "--save", str(save), input="").returncode == 0
    moves = json.loads(save.read_text())["moves"]
    rows = [json.loads(line) for line in
            run_cli("replay", str(save), "--json").stdout.splitlines()]
    autos = [" ".join(r["auto_moves"]) for r in rows if r.get("auto_moves")]
    assert autos, "this seed's game has automatic moves"
    out = run_cli("play", "blobs", "--p1", "human", "--p2", "human",
                  input="\n".join(moves) + "\n")
    assert out.returncode == 0, out.stderr
    assert re.findall(r"^\(auto ([^)]*)\)$", out.stdout, re.M) == autos


def test_pass_in_blobs_says_there_is_none_and_offers_no_roll_to_type():
    out = run_cli("play", "blobs", "--param", "tumbling=true", "--p2", "random:seed=1",
                  "--seed", "3", input="pass\nh9\nquit\n")
    assert out.returncode == 0, out.stderr
    assert "'pass': there is no pass in Blobs" in out.stdout
    # a person at their turn never types a roll: not among the examples they are given
    refused = [line for line in out.stdout.splitlines() if "is not a Blobs move" in line]
    assert len(refused) == 1 and "roll:" not in refused[0], refused
    game = stonegarden.make("blobs", tumbling=True)
    with pytest.raises(stonegarden.errors.NotationError, match="roll:M"):  # at a roll: offered
        game.parse_action(game.initial_state(), "h9")


def test_a_line_of_a_megabyte_from_a_pipe_is_echoed_cut_with_its_length():
    out = run_cli("play", "blooms", "--param", "size=3", input="x" * 1_000_000 + "\nquit\n")
    assert out.returncode == 0, out.stderr
    assert len(out.stdout) < 5_000 and "... (1000000 characters)" in out.stdout
    assert "is neither a move nor a command" in out.stdout


class _StoppedHint:
    """A hint's search the player stops with Ctrl-C (the first time it is asked)."""

    spec = "mcts:time=2"

    def choose(self, game, state):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt


def test_ctrl_c_during_a_hint_stops_the_hint_and_the_game_goes_on(monkeypatch, tmp_path):
    import io

    from rich.console import Console

    import stonegarden.terminal.play as terminal

    made: list[str] = []

    def agent_for(game, spec):  # type: ignore[no-untyped-def]
        if spec != terminal.HINT_SPEC:  # the seat's agent
            return make_agent(spec)
        made.append(spec)
        return _StoppedHint() if len(made) == 1 else make_agent("random:seed=1")

    monkeypatch.setattr(terminal, "agent_for", agent_for)
    lines = iter(["hint", "hint", "Rd4", "quit"])
    out = io.StringIO()
    console = Console(file=out, width=100)
    console.input = lambda prompt="", **_: next(lines)  # type: ignore[method-assign]
    game = stonegarden.make("blooms", size=4)
    save = tmp_path / "g.json"
    assert terminal.play_terminal(game, "human", "random:seed=2", save, console) == -1
    text = out.getvalue()
    assert "hint stopped; the game goes on" in text
    # the stopped search is not asked again: the next hint is a new one's, and answers
    assert made == ["mcts:time=2", "mcts:time=2"] and text.count("hint: ") == 1
    assert json.loads(save.read_text())["moves"][0] == "Rd4"


class _TerminatedHint:
    """A hint's search that a SIGTERM strikes (``timeout``, ``kill``)."""

    spec = "mcts:time=2"

    def choose(self, game, state):  # type: ignore[no-untyped-def]
        from stonegarden.cli.main import _as_ctrl_c

        _as_ctrl_c(signal.SIGTERM, None)  # the handler ``stop_on_sigterm`` installs


def test_sigterm_during_a_hint_ends_the_game_as_at_the_prompt(monkeypatch, tmp_path):
    """A Ctrl-C during a hint stops the hint alone; a SIGTERM, which the commands take as a
    Ctrl-C, was taken for one too, and the game went on reading moves: it ends the game."""
    import io

    from rich.console import Console

    import stonegarden.terminal.play as terminal

    monkeypatch.setattr(terminal, "agent_for", lambda game, spec: (
        _TerminatedHint() if spec == terminal.HINT_SPEC else make_agent(spec)))
    lines = iter(["hint", "Rd4", "quit"])
    out = io.StringIO()
    console = Console(file=out, width=100)
    console.input = lambda prompt="", **_: next(lines)  # type: ignore[method-assign]
    game = stonegarden.make("blooms", size=4)
    with pytest.raises(SystemExit) as stopped:
        terminal.play_terminal(game, "human", "random:seed=2", tmp_path / "g.json", console)
    assert stopped.value.code == 130
    text = out.getvalue()
    assert "interrupted: the game is left unfinished" in text
    assert "hint stopped" not in text and next(lines) == "Rd4"  # no move read after it
