"""What the lab's reports and output folders tell a designer: one run's files in a folder, who
moves first, which player is favoured and how sure, how the games of each cell end, and
one-line errors for options that do not go together."""

from __future__ import annotations

import contextlib
import json
import sqlite3

from click.testing import CliRunner

from stonegarden.cli.main import cli

STUDY = ["study", "blooms", "--param", "size=3", "--param", "target=4", "--agent", "random",
         "--games", "4"]
SWEEP = ["sweep", "blooms", "--param", "size=3", "--grid", "target=4,6", "--agent", "random",
         "--games", "4"]
LADDER = ["ladder", "blooms", "--param", "size=3", "--agent", "mcts", "--key", "sims",
          "--base", "2", "--steps", "1", "--games", "2"]


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _files(folder):
    """The outputs of the runs in ``folder``: not their database, nor the lock they hold."""
    return {str(p.relative_to(folder)) for p in folder.rglob("*")
            if p.is_file() and not p.name.startswith("lab.sqlite")
            and p.name != ".stonegarden-lock"}


def _stored(folder) -> int:
    with contextlib.closing(sqlite3.connect(folder / "lab.sqlite")) as db:
        return db.execute("SELECT COUNT(*) FROM games").fetchone()[0]


def test_a_folder_holds_the_files_of_its_last_run_only(tmp_path):
    """A sweep run into a study's folder left the study's summary, records and figures beside
    its own table, a study run into a sweep's left the sweep's table and picture."""
    out = ["--out", str(tmp_path)]
    assert _run(*STUDY, *out).exit_code == 0
    study_files = _files(tmp_path)
    assert {"summary.json", "records/game-00003.json", "plots/length.png"} <= study_files
    assert _run(*SWEEP, *out).exit_code == 0
    assert _files(tmp_path) == {"report.md", "report.html", "sweep.json", "plots/sweep.png",
                                "plots/sweep.svg"}
    assert not (tmp_path / "records").exists()
    assert _run(*LADDER, *out).exit_code == 0
    assert _files(tmp_path) == {"report.md", "report.html", "ladder.json", "plots/ladder.png",
                                "plots/ladder.svg"}
    assert _run(*STUDY, *out).exit_code == 0
    assert _files(tmp_path) == study_files
    # lab.sqlite keeps the games of every run: the sweep again plays none
    stored = _stored(tmp_path)
    assert _run(*SWEEP, *out).exit_code == 0 and _stored(tmp_path) == stored
    cells = json.loads((tmp_path / "sweep.json").read_text())["cells"]
    assert [c["summary"]["games"] for c in cells] == [4, 4]


def test_a_run_keeps_the_users_own_files_of_another_runs_names(tmp_path):
    """A folder given to --out may hold the user's own summary.json or plots/length.png: a
    sweep removed them as a study's, though no study had run there."""
    (tmp_path / "plots").mkdir()
    (tmp_path / "summary.json").write_text('{"mine": 1}')
    (tmp_path / "plots" / "length.png").write_text("my picture")
    (tmp_path / "ladder.json").write_text("[1, 2]")
    assert _run(*SWEEP, "--out", str(tmp_path)).exit_code == 0
    assert (tmp_path / "summary.json").read_text() == '{"mine": 1}'
    assert (tmp_path / "plots" / "length.png").read_text() == "my picture"
    assert (tmp_path / "ladder.json").read_text() == "[1, 2]"
    assert (tmp_path / "sweep.json").exists()


def test_a_study_of_one_game_says_one_game(tmp_path):
    assert _run(*STUDY[:-1], "1", "--out", str(tmp_path)).exit_code == 0
    text = (tmp_path / "report.md").read_text()
    assert "] over 1 game: " in text and "over 1 games" not in text


def test_a_report_says_when_the_first_player_does_not_choose_first(tmp_path):
    """Blobs' player 1 (Red) opens with a die that is part of the initial position, and player
    2 makes the first choice: a report's "first player wins" read as the side that moves
    first."""
    note = "player 2 makes the first choice: \"first player\" and \"moving first\" below are player 1"
    blobs = _run("study", "blobs", "--param", "dice=6", "--agent", "random", "--games", "2",
                 "--out", str(tmp_path / "blobs"))
    assert blobs.exit_code == 0
    assert f"In `blobs` {note}, who moves second." in (tmp_path / "blobs" / "report.md").read_text()
    sweep = _run("sweep", "blobs", "--grid", "dice=6,8", "--agent", "random", "--games", "2",
                 "--out", str(tmp_path / "sweep"))
    assert sweep.exit_code == 0 and note in (tmp_path / "sweep" / "report.md").read_text()
    assert _run(*STUDY, "--out", str(tmp_path / "blooms")).exit_code == 0
    assert "first choice" not in (tmp_path / "blooms" / "report.md").read_text()


def test_a_sweep_reports_how_the_games_of_each_cell_end(tmp_path):
    """Whether a cell's games are decided by the target or by a full board (or drawn when the
    pool runs out) is what a sweep over a target asks; its table gave only draws and lengths."""
    assert _run("sweep", "blobs", "--grid", "dice=4,12", "--agent", "random", "--games", "6",
                "--out", str(tmp_path)).exit_code == 0
    text = (tmp_path / "report.md").read_text()
    for cell in json.loads((tmp_path / "sweep.json").read_text())["cells"]:
        ends = cell["summary"]["end_reasons"]
        counts = {reason: round(e["value"] * 6) for reason, e in ends.items()}
        assert sum(counts.values()) == 6
        shown = ", ".join(f"'{reason}' {k}" for reason, k in counts.items())
        assert f"| dice={cell['params']['dice']}: games ending by | {shown} | n=6 |" in text
    assert "| dice=4: games ending by | 'pool-empty' 6 | n=6 |" in text


def test_reports_say_which_player_is_favoured_and_how_sure(tmp_path):
    """A study's report gave its figures without the answer, and a sweep's recommendation said
    when its cell was fair but nothing when the whole interval lay to one side of 1/2."""
    head_start = ["--param", "size=3", "--param", "target=4", "--agent", "greedy", "--games", "8"]
    assert _run("sweep", "blooms", *head_start, "--grid", "start_scores=3,0;0,3",
                "--out", str(tmp_path / "sweep")).exit_code == 0
    rec = json.loads((tmp_path / "sweep" / "sweep.json").read_text())["recommendation"][0]
    s = rec["first_player_score"]
    assert s["low"] > 0.5
    assert (f"first player's score {s['value']:.3f} [{s['low']:.3f}, {s['high']:.3f}]: favours "
            "the first player (the whole interval is above 1/2)"
            in (tmp_path / "sweep" / "report.md").read_text())
    assert _run("study", "blooms", *head_start, "--param", "start_scores=0,3",
                "--out", str(tmp_path / "study")).exit_code == 0
    s = json.loads((tmp_path / "study" / "summary.json").read_text())["summary"]
    score = s["first_player_score"]
    assert score["high"] < 0.5
    assert (f"The first player's score (draws counting half) is {score['value']:.3f} "
            f"[{score['low']:.3f}, {score['high']:.3f}] over 8 games: favours the second player "
            "(the whole interval is below 1/2); 0 drawn."
            in (tmp_path / "study" / "report.md").read_text())


def test_a_recommendation_names_the_other_cells_fair_within_their_intervals(tmp_path):
    """With a few games every cell's interval holds 1/2, and the pick among them is a coin
    toss: the report gave the pick alone, as if the others were less fair."""
    assert _run("sweep", "blooms", "--param", "size=3", "--grid", "target=4:8:2", "--agent",
                "greedy", "--games", "6", "--out", str(tmp_path)).exit_code == 0
    data = json.loads((tmp_path / "sweep.json").read_text())
    fair = [c["params"] for c in data["cells"]
            if c["summary"]["first_player_score"]["low"] <= 0.5
            <= c["summary"]["first_player_score"]["high"]]
    rec = data["recommendation"][0]
    assert len(fair) >= 2 and rec["cell"] in fair
    others = [c for c in fair if c != rec["cell"]]
    assert rec["also_fair_within_interval"] == others
    assert ("also fair within their intervals, so the pick among them is within noise: "
            + "; ".join(f"target={c['target']}" for c in others)
            in (tmp_path / "report.md").read_text())


def test_a_swept_boolean_is_named_as_the_command_line_writes_it(tmp_path):
    """`--grid superko=true,false` gave rows and a recommendation of `superko=True`."""
    assert _run("sweep", "bridgego", "--param", "size=3", "--grid", "superko=true,false",
                "--agent", "random", "--games", "2", "--out", str(tmp_path)).exit_code == 0
    text = (tmp_path / "report.md").read_text()
    assert "| superko=true: first player's score |" in text
    assert "| superko=false: first player's score |" in text and "True" not in text


def test_a_sweep_names_no_value_and_no_holes_as_the_command_line_writes_them(tmp_path):
    """`--grid max_turns=none,6` gave rows of `max_turns=None`, the recommendation named its
    cell in JSON (`{"size": 2, ..., "max_turns": null}`), and no hole at all could not be a
    cell: an empty value between semicolons was dropped."""
    assert _run("sweep", "blooms-territory", "--param", "size=2", "--grid", "holes=;a1",
                "--grid", "max_turns=none,6", "--agent", "random", "--games", "1", "--out",
                str(tmp_path)).exit_code == 0
    cells = json.loads((tmp_path / "sweep.json").read_text())["cells"]
    assert [(c["params"]["holes"], c["params"]["max_turns"]) for c in cells] == [
        ([], None), ([], 6), (["a1"], None), (["a1"], 6)]
    text = (tmp_path / "report.md").read_text()
    assert "| holes=none, max_turns=none: first player's score |" in text
    assert "- size=2, holes=a1, max_turns=" in text
    assert "None" not in text and "null" not in text.split("Recommendation")[1]


def test_a_sweeps_recommendation_says_the_draws_it_allows_as_given(tmp_path):
    """`--max-draws 0.025` read "draws at most 2%" (rounded to a whole percent), and
    sweep.json did not say what its recommendation allowed."""
    assert _run(*SWEEP, "--max-draws", "0.025", "--out", str(tmp_path)).exit_code == 0
    assert "draws at most 2.5%;" in (tmp_path / "report.md").read_text()
    assert json.loads((tmp_path / "sweep.json").read_text())["max_draws"] == 0.025


def test_the_html_report_shows_code_and_the_recommendation_as_html(tmp_path):
    """report.html showed the Markdown's backticks (`blooms`) and the sweep's recommendation
    as preformatted Markdown."""
    assert _run(*SWEEP, "--out", str(tmp_path)).exit_code == 0
    page = (tmp_path / "report.html").read_text()
    assert "Game <code>blooms</code>, swept <code>target</code>" in page
    assert "`" not in page and "<pre>" not in page
    assert page.count("<li>") == 1 and "<li>size=3, target=" in page


def test_a_sweep_refusing_a_cell_names_it(tmp_path):
    """`--grid size=3,6 --grid 'start_scores=0,0;0,12'` said "start_scores [0, 12] must stay
    below the target 10", a target derived from one of the sizes, without saying which."""
    out = _run("sweep", "blooms", "--grid", "size=3,6", "--grid", "start_scores=0,0;0,12",
               "--agent", "random", "--games", "1", "--out", str(tmp_path / "s"))
    assert out.exit_code == 2
    assert out.output == ("error: start_scores [0, 12] must stay below the target 10 (in the "
                          "cell size=3, start_scores=0,12)\n")
    assert not (tmp_path / "s").exists()


def test_a_study_of_two_agents_says_which_is_the_stronger(tmp_path):
    assert _run("study", "blooms", "--param", "size=3", "--param", "target=4", "--agents",
                "greedy", "random", "--games", "10", "--out", str(tmp_path)).exit_code == 0
    a = json.loads((tmp_path / "summary.json").read_text())["summary"]["a_score"]
    assert a["low"] > 0.5
    assert (f"A's score is {a['value']:.3f} [{a['low']:.3f}, {a['high']:.3f}]: A is the "
            "stronger (the whole interval is above 1/2)." in (tmp_path / "report.md").read_text())


def test_resign_moves_without_resign_is_refused_before_any_game(tmp_path):
    """Every game was played out, and the report said nothing of the adjudication asked for."""
    for args in (["study", "blooms", "--param", "size=3", "--agent", "random", "--games", "2",
                  "--out", str(tmp_path / "s")],
                 ["match", "blooms", "random", "random", "--param", "size=3", "--games", "2"]):
        out = _run(*args, "--resign-moves", "3")
        assert out.exit_code == 2
        assert out.output == ("error: --resign-moves 3 counts moves below --resign V: give "
                              "--resign V too (without it no player resigns)\n")
    assert not (tmp_path / "s").exists()


def test_a_heatmaps_axes_of_numbers_are_in_increasing_order(tmp_path, monkeypatch):
    """--grid size=4,3 --grid target=8,4,6 drew its axes as given: 8, 4, 6 across."""
    from stonegarden.lab import plots

    monkeypatch.setattr(plots, "_save", lambda fig, out, name: fig)  # the figure, not a file
    score = {(s, t): round(0.1 * s + 0.01 * t, 2) for s in (4, 3) for t in (8, 4, 6)}
    rows = [{"params": {"size": s, "target": t},
             "summary": {"first_player_score": {"value": v}}} for (s, t), v in score.items()]
    fig = plots.sweep_heatmap(rows, "target", "size", tmp_path)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["4", "6", "8"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["3", "4"]
    drawn = ax.images[0].get_array()
    assert [[float(drawn[i][j]) for j in range(3)] for i in range(2)] == [
        [score[s, t] for t in (4, 6, 8)] for s in (3, 4)]
    # values that are not numbers keep the grid's order
    named = [{"params": {"rule": r, "size": 3}, "summary": {"first_player_score": {"value": 0.5}}}
             for r in ("b", "a")]
    fig = plots.sweep_heatmap(named, "rule", "size", tmp_path)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["b", "a"]


def test_of_cells_as_near_one_half_the_recommendation_takes_the_grids_first_and_names_the_rest():
    """Scores of 0.3 and 0.7 are as near 1/2, but 0.7 - 0.5 rounds a hair below 0.2: the
    recommendation took the second cell, as if it were the fairer, and with 100 games (both
    intervals clear of 1/2) did not name the first at all."""
    from stonegarden.lab.statistics import wilson
    from stonegarden.lab.sweep import _tied_text, recommend

    def cell(target: int, wins: int) -> dict:
        return {"params": {"target": target},
                "summary": {"first_player_score": wilson(wins, 100).as_dict(),
                            "draw_rate": wilson(0, 100).as_dict()}}

    [rec] = recommend([cell(10, 30), cell(15, 70), cell(20, 80)], None, 0.1)
    assert rec["cell"] == {"target": 10}
    assert rec["equally_close"] == [{"target": 15}] and rec["also_fair_within_interval"] == []
    assert _tied_text(rec, {"target": [10, 15, 20]}) == (
        "; as near 1/2, so the pick among them is the grid's order: target=15")
    # where the pick is fair within its interval the tied cells are named as fair already
    [rec] = recommend([cell(10, 45), cell(15, 55)], None, 0.1)
    assert rec["cell"] == {"target": 10} and rec["also_fair_within_interval"] == [{"target": 15}]
    assert _tied_text(rec, {"target": [10, 15]}) == ""
