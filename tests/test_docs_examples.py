"""The Python examples in the docs run as written (the README's are doctests), and so do the
README's terminal game and the replay lines that read its record; every other command the docs
show parses as written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
BLOCK = re.compile(r"```python\n(.*?)\n```", re.S)
#: optional packages an example imports (the test extra installs them)
OPTIONAL = ("pyspiel", "pettingzoo")


def examples() -> list:
    return [pytest.param(code, id=f"{page.name}-{i}")
            for page in sorted(DOCS.rglob("*.md"))
            for i, code in enumerate(BLOCK.findall(page.read_text()))]


@pytest.mark.parametrize("code", examples())
def test_a_python_example_of_the_docs_runs(code):
    for module in OPTIONAL:
        if module in code:
            pytest.importorskip(module)
    exec(compile(code, "<docs example>", "exec"), {})


README = DOCS.parent / "README.md"


def test_the_readmes_terminal_game_saves_the_record_its_replay_lines_read(tmp_path, cli):
    """The README's "Using it" lines in order, in an empty folder: the terminal game's line
    saves game.json, which the two replay lines after it read."""
    here = {"game.json": str(tmp_path / "game.json")}
    lines = [[here.get(word, word) for word in line.split("#")[0].split()]
             for line in README.read_text().splitlines()
             if line.startswith(("stonegarden play ", "stonegarden replay game.json"))]
    assert [line[:2] for line in lines] == [["stonegarden", "play"], ["stonegarden", "replay"],
                                            ["stonegarden", "replay"]]
    played = cli(*lines[0][1:], input="Rd4\nquit\n")
    assert played.returncode == 0, played.stderr
    assert "player 2 (random) plays" in played.stdout
    shown = cli(*lines[1][1:])
    assert shown.returncode == 0 and "1. player 1: Rd4" in shown.stdout, shown.stderr
    rows = cli(*lines[2][1:])
    assert rows.returncode == 0, rows.stderr
    assert [json.loads(r)["move"] for r in rows.stdout.splitlines()][:1] == ["Rd4"]


FENCE = re.compile(r"```[a-z]*\n(.*?)\n```", re.S)


def command_lines() -> list:
    """Every ``stonegarden ...`` line of the README's and the docs' code blocks that is a
    command as typed (a synopsis, with ``[--option]`` or a placeholder such as ``GAME``, is
    left out), its comment cut off."""
    lines = []
    for page in [README, *sorted(DOCS.rglob("*.md"))]:
        for block in FENCE.findall(page.read_text()):
            for line in block.replace("\\\n", " ").splitlines():
                line = line.strip().removeprefix("$ ").split(" #")[0].split(" | ")[0].strip()
                words = line.split()
                if (words[:1] == ["stonegarden"] and "[" not in line
                        and not any(re.fullmatch(r"[A-Z]{2,}", w) for w in words)):
                    lines.append(pytest.param(line, id=f"{page.name}: {line[:60]}"))
    return lines


@pytest.mark.parametrize("line", command_lines())
def test_a_command_of_the_docs_parses_as_written(line):
    """The commands the docs show have options that exist and values in their ranges (they
    are parsed as the command line would parse them, not run: some play for hours)."""
    import shlex

    import click

    from stonegarden.cli.main import cli

    words = shlex.split(line)[1:]
    ctx = click.Context(cli, info_name="stonegarden")
    command: click.Command = cli
    while isinstance(command, click.Group):  # bench playouts: a group, then its command
        _, found, words = command.resolve_command(ctx, words)
        assert found is not None, line
        command = found
    command.make_context(command.name, words, parent=ctx)  # a wrong option: a usage error


PAGES = {"blooms": "blooms", "blooms-territory": "blooms", "freego": "freego",
         "bridgego": "bridgego", "blobs": "blobs"}


@pytest.mark.parametrize("game_id", sorted(PAGES))
def test_a_game_page_lists_every_observation_plane(game_id):
    """docs/interop.md sends researchers to each game's page for the observation planes,
    which no page listed: each names its shape and every plane."""
    import stonegarden

    game = stonegarden.make(game_id)
    text = (DOCS / "games" / f"{PAGES[game_id]}.md").read_text()
    section = text.split("**Observation planes**", 1)[1].split("\n\n|", 1)[1].split("\n\n")[0]
    listed = [int(n) for row in section.splitlines()[2:]
              for n in row.split("|")[1].split(",")]
    assert listed == list(range(game.observation_shape[0]))
    assert f"= ({game.observation_shape[0]}, " in text
