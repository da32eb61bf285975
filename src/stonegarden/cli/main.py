"""The ``stonegarden`` command group (its entry point, ``main``, is in ``__init__.py``)."""

from __future__ import annotations

import importlib
import signal
import sys
import threading
from typing import Any

import click
from click.utils import make_default_short_help

from .. import __version__
from ..errors import Terminated

# Each command's module, its function, and the first sentence of its help (what
# ``stonegarden --help`` lists). A command's module is imported only when it runs: analyse's
# alone loads the search and numba, a second of CPU that ``replay``, ``convert``, ``serve``
# or ``--help`` would otherwise pay at every start (tests check the summaries against the
# modules' own help).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "analyse": ("analyse", "analyse", "Analyse a recorded game's position, or review all its moves."),
    "bench": ("bench", "bench", "Speed measurements (see benchmarks/ for side-by-side comparisons)."),
    "convert": ("convert", "convert",
                "Convert a game between a record (.json) and SGF (.sgf), replaying every move."),
    "engine": ("engine", "engine",
               "Answer JSON analysis queries, one per line on stdin, one answer per line on stdout."),
    "games": ("info", "games", "List the games and their parameters."),
    "ladder": ("lab", "ladder", "The agent at base, 2*base, 4*base ..."),
    "match": ("match", "match",
              "Agent A against agent B on GAME, seats alternating (A is player 1 in even games)."),
    "play": ("play", "play",
             "Play GAME (default blooms) in the terminal against a person or an agent."),
    "replay": ("replay", "replay",
               "Replay a game record move by move (diagrams, or JSON lines with --json), then "
               "check its stated result: a record that does not replay, or whose result "
               "disagrees, exits with 2."),
    "serve": ("serve", "serve", "Start the web app: play, study and review games in the browser."),
    "study": ("lab", "study",
              "Self-play statistics with 95% intervals, a report with plots, and the records."),
    "sweep": ("lab", "sweep",
              "A study per grid cell: the first player's score per cell and a recommended value."),
    "train": ("train", "train",
              "Train GAME's move model on self-play: play the games (a rerun with the same --out "
              "goes on where it stopped), fit, write OUT/GAME.npz and OUT/GAME.json; prints the "
              "metadata."),
    "warm-up": ("warmup", "warm_up",
                "Compile (or load from the cache) the kernels of every game: the rules, the "
                "playouts, the search, and what the web app draws."),
}


class Commands(click.Group):
    """The sub-commands, each imported from its module when it runs (click's lazy group); a
    Ctrl-C that no command handles itself (``play`` and the lab say where their games are)
    says so in one line and exits with status 130, as shells expect, instead of click's bare
    "Aborted!" and status 1."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, name, _summary = COMMANDS[cmd_name]
        command = getattr(importlib.import_module(f".{module}", __package__), name)
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's list of commands, from the summaries above, importing none of them."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, make_default_short_help(COMMANDS[name][2], limit))
                for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("\ninterrupted", err=True)
            sys.exit(130)


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]},
             epilog="Exit status: 0 done; 2 an option or an input refused, with one line on "
                    "standard error saying why (replay: also a record that does not replay, or "
                    "whose result disagrees); 130 stopped by Ctrl-C or SIGTERM (serve shuts "
                    "down on either, as a server does).")
@click.version_option(__version__, prog_name="stonegarden")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Play, study and design Blooms, Free Go, Bridge Go and Blobs."""
    if ctx.invoked_subcommand != "serve":  # uvicorn shuts a server down on SIGTERM itself
        stop_on_sigterm(ctx)


def stop_on_sigterm(ctx: click.Context) -> None:
    """SIGTERM (``timeout``, ``kill``, a service manager) stops the command as Ctrl-C does:
    what it finished is said and kept, with exit status 130, rather than lost without a word
    (and a terminal game's spinner leaving the cursor hidden). Until ``ctx`` closes: a command
    run inside a longer process (a test's) gives the process its own handler back."""
    if threading.current_thread() is not threading.main_thread():
        return  # Python takes signals in its main thread only
    previous = signal.signal(signal.SIGTERM, _as_ctrl_c)
    ctx.call_on_close(lambda: signal.signal(
        signal.SIGTERM, signal.SIG_DFL if previous is None else previous))


def _as_ctrl_c(signum: int, frame: Any) -> None:
    raise Terminated
