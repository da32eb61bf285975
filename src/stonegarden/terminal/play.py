"""The interactive terminal game: any seat human or any registered agent."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from ..agents import Agent, agent_for
from ..core.protocol import CHANCE, Game, State, without_bom
from ..core.record import make_record, save_record
from ..errors import IllegalMoveError, RecordError, StonegardenError, Terminated, quote
from ..web.views import view_for
from .render import rich_diagram

HELP = "Type a move in notation (e.g. {example}), or a command:"
#: the commands and what they do, in the order ``help`` lists them
COMMANDS = (("moves", "list some legal moves"), ("undo", "take back your last move"),
            ("hint", "the search's move (2 s)"), ("save F", "save the record to file F"),
            ("resign", "resign the game"), ("quit", "leave (--save keeps the record)"),
            ("help", "this text"))
#: the words typed alone: the commands but save, and the two move words
COMMAND_WORDS = frozenset({"moves", "undo", "hint", "resign", "quit", "exit", "q", "help",
                           "pass"})
PASS_COMMAND = ("pass", "pass the turn (in this game two passes in a row end it)")
#: the agent of ``hint``: the game's search for two seconds, as the web app's hints
HINT_SPEC = "mcts:time=2"


def help_text(game: Game, state: State, width: int = 80) -> str:
    """The help, with examples that are legal moves in ``state``: the commands in two
    columns, or in one where two would not fit in ``width`` (a narrow terminal would break
    each row in the middle of the second column)."""
    texts = game.legal_moves_text(state) if not game.is_terminal(state) else []
    examples = []
    if texts:
        examples.append(texts[len(texts) // 2])
        two = [t for t in texts if "," in t]  # a turn of two stones, where the game has them
        if two:
            examples.append(two[len(two) // 2])
    example = " or ".join(examples) if examples else "a move"
    cells = [f"{name:<8} {words}" for name, words in COMMANDS]
    left = max(len(c) for c in cells[::2]) + 3
    if width >= 2 + left + max(len(c) for c in cells[1::2]):
        rows = ["  " + "".join(c.ljust(left) for c in cells[i:i + 2]).rstrip()
                for i in range(0, len(cells), 2)]
    else:
        rows = ["  " + c for c in cells]
    if "pass" in texts:
        rows.append("  " + f"{PASS_COMMAND[0]:<8} {PASS_COMMAND[1]}")
    return "\n".join([HELP.format(example=example), *rows])


def moves_text(texts: list[str], shown: int = 40) -> str:
    """Some of the legal moves; ``pass``, where legal, first (a long list would hide it)."""
    ordered = (["pass"] if "pass" in texts else []) + [t for t in texts if t != "pass"]
    more = " ..." if len(ordered) > shown else ""
    return f"{len(texts)} legal moves: {', '.join(ordered[:shown])}{more}"


@dataclass
class Session:
    """The game so far: the states, the moves that led to them, and who sits where."""

    game: Game
    seats: dict[int, Agent | None]  # None = human
    states: list[State] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    save_path: Path | None = None
    #: why the last save after a move failed (``None``: it did, or there is no ``save_path``)
    save_error: str | None = None
    #: a resumed record's people by seat ("1": "Ana"), written back for the seats people hold
    names: dict[str, str] = field(default_factory=dict)
    #: a resumed record's ``meta`` (its date, the web app's clock), written back unchanged
    meta: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if not self.states:
            self.states = [self.game.initial_state()]

    @property
    def state(self) -> State:
        return self.states[-1]

    def push(self, text: str, new: State) -> None:
        self.moves.append(text)
        self.states.append(new)
        self.keep()

    def undo(self, player: int | None = None) -> int:
        """Take back ``player``'s last move (default: the last move of any person) and
        everything after it, back to that player's turn (a roll before it stays): with two
        people at the keyboard, the one asking, not the opponent who moved last. Returns how
        many players' moves were taken back (0: no such move, and nothing changes)."""
        movers = [self.game.current_player(st) for st in self.states[:-1]]
        human = [i for i, p in enumerate(movers) if p != CHANCE and self.seats.get(p) is None
                 and (player is None or p == player)]
        if not human:
            return 0
        last = human[-1]
        removed = sum(1 for p in movers[last:] if p != CHANCE)
        del self.states[last + 1:]
        del self.moves[last:]
        self.keep()
        return removed

    def placed(self) -> int:
        """How many moves the players made on the board: no roll, no resignation."""
        return sum(1 for before, text in zip(self.states, self.moves)
                   if self.game.current_player(before) != CHANCE and text != "resign")

    def record(self):  # type: ignore[no-untyped-def]
        players = {str(p): (self.names.get(str(p), "human") if a is None else a.spec)
                   for p, a in self.seats.items()}
        return make_record(self.game, self.moves, self.state, players=players, meta=self.meta)

    def autosave(self) -> None:
        """Raises: RecordError when the record cannot be written (a missing folder, say)."""
        if self.save_path is not None:
            save_to(self.record(), self.save_path)

    def keep(self) -> None:
        """Save after a move or an undo. A record that cannot be written now (its folder
        removed, the disk full) does not end the game: the reason is kept in ``save_error``
        (``None`` again once a save succeeds), for the player to be told."""
        try:
            self.autosave()
        except RecordError as exc:
            self.save_error = str(exc)
        else:
            self.save_error = None


def save_to(record, path: str | Path) -> None:  # type: ignore[no-untyped-def]
    """Write ``record`` (JSON) to ``path``.

    Raises:
        RecordError: a name ending in ``.sgf``, where the JSON would pass for SGF (``convert``
        makes the SGF), or a path that cannot be written.
    """
    if Path(path).suffix.lower() == ".sgf":
        raise RecordError(f"cannot save the record to {str(path)!r}: a record is JSON (a .json "
                          "file); `stonegarden convert` makes an SGF file of it")
    save_record(record, path)


def side_words(game: Game, player: int) -> str:
    """Which side ``player`` plays, as the web page names it ("Black", "Blue"), or where the
    page names none ("Player 1") what the player places ("red and yellow stones")."""
    view = view_for(game)
    name = view.player_names(game)[player - 1]
    return view.player_colours(game)[player - 1] if name == f"Player {player}" else name


def status_line(game: Game, state: State) -> str:
    """Whose turn, with the side they play, and the scores, in words (with the target when the
    game has one; no scores in a game that keeps none), then the game's own ``status_words``
    (Blobs' dice)."""
    p = game.current_player(state)
    scores = game.scores(state)
    target = game.params.get("target")
    goal = f" (target {target})" if target is not None else ""
    extra = "".join(f"; {words}" for words in game.status_words(state))
    turn = f"player {p} ({side_words(game, p)}) to move"
    if not game.keeps_scores(state):
        return f"{turn}{extra}"
    return f"{turn}; scores {scores[0]} : {scores[1]}{goal}{extra}"


def end_words(game: Game, state: State) -> str:
    """Who won and why, in the words the web page uses ("player 1 (Red) wins: Blue completed
    Red's winning shape, which loses"), not the record's reason code."""
    view = view_for(game)
    w = game.winner(state) or 0
    outcome = view.outcome(game, state)
    why = outcome["detail"] if outcome else str(game.result_reason(state))
    if w == 0:
        return f"draw: {why}"
    side = view.player_names(game)[w - 1]
    named = "" if side == f"Player {w}" else f" ({side})"
    return f"player {w}{named} wins: {why}"


def autos_text(game: Game, before: State, after: State) -> str:
    """``auto i8B ...``: the automatic moves a move set off (Blobs), ``""`` when none."""
    autos = game.replay_extras(before, after).get("auto_moves")
    return f"auto {' '.join(autos)}" if autos else ""


def played_line(game: Game, before: State, after: State, who: str, text: str) -> Text:
    """``who plays TEXT``, with the automatic moves the move set off."""
    line = Text(f"{who} plays ")
    line.append(text, style="bold")
    autos = autos_text(game, before, after)
    if autos:
        line.append(f"  ({autos})")
    return line


def reads_a_terminal() -> bool:
    """Whether the moves are typed at a terminal, which shows them as they are typed."""
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except ValueError:  # a closed stdin
        return False


def show_board(console: Console, game: Game, state: State) -> None:
    """Draw the board. On a terminal narrower than the board its rows are cut at the edge,
    not folded onto the next line (a folded row reads as another row), and a line says so."""
    board = rich_diagram(game, state, fields=False)
    if not console.is_terminal:  # a pipe or a file: whole lines (``soft_wrap``)
        console.print(board)
        return
    wide = max((len(line) for line in board.plain.splitlines()), default=0)
    console.print(board, no_wrap=True, overflow="crop")
    if wide > console.width:
        console.print(f"(the board is cut at {console.width} of its {wide} columns: widen the "
                      "terminal to see it whole)", markup=False)


def echoed(line: str, shown: int = 200) -> str:
    """A line read from a pipe or a file, as written after the prompt: a line of a megabyte (a
    binary file given as the moves) is cut, with its length."""
    return line if len(line) <= shown else f"{line[:shown]}... ({len(line)} characters)"


def unreadable_words(cmd: str) -> str | None:
    """Why ``cmd``, which the game's notation refused, is no command either, where it is words
    and not a move mistyped (``None``): the notation's reason would mislead ("'H' is not a
    colour" for ``hnit``, "not a stone" for ``undo 2``)."""
    words = cmd.split()
    first = words[0].lower()
    if first in COMMAND_WORDS and len(words) > 1:  # "undo 2", "resign now"
        return f"{first!r} takes nothing after it: type {first!r} alone"
    # a word (no move is one but pass and resign): a command mistyped; pass and resign are move
    # words, the game says why it refuses them ("there is no pass in Bridge Go")
    if all(w.isalpha() for w in words) and len(cmd) > 1 and cmd.lower() not in ("pass", "resign"):
        return f"{quote(cmd)} is neither a move nor a command (type 'help' for them)"
    return None


def is_human(spec: str) -> bool:
    return spec.strip().lower() == "human"


def seat_agent(game: Game, spec: str) -> Agent | None:
    """The agent of ``spec`` (``None``: a person), checked against ``game``.

    Raises:
        ParameterError: a bad spec, or settings the game's search cannot use.
    """
    if is_human(spec):
        return None
    return agent_for(game, spec)


def play_terminal(game: Game, p1: str, p2: str, save: Path | None, console: Console,
                  seed: int | None = None,
                  history: tuple[list[str], list[State]] | None = None,
                  names: dict[str, str] | None = None,
                  meta: Mapping[str, Any] | None = None) -> int:
    """Run a game in the terminal, from the start or, with ``history``, after its moves and
    the states they led to (the initial one first); returns the winner (0 draw, -1
    unfinished)."""
    seats: dict[int, Agent | None] = {1: seat_agent(game, p1), 2: seat_agent(game, p2)}
    moves, states = history if history is not None else ([], [])
    s = Session(game, seats, states=list(states), moves=list(moves), save_path=save,
                names=dict(names or {}), meta=meta)
    s.autosave()  # a path that cannot be written is refused now, not after the first move
    import numpy as np

    # each roll is drawn from the seed and its ply, so that an undo cannot roll again
    base = seed if seed is not None else int(np.random.SeedSequence().generate_state(1)[0])
    console.print(f"[bold]{game.title}[/]  {game!r}   (type 'help' for commands)")
    if s.moves:
        console.print(f"going on after move {len(s.moves)} of {save}", markup=False)
    hinter: Agent | None = None  # made at the first hint (a search compiles once)
    echo = not reads_a_terminal()
    told: str | None = None  # the save error the player was last told of
    # the files this game wrote, which it may write again: its --save record, its `save`s
    written: list[Path] = [save.resolve()] if save is not None else []

    def kept() -> str:
        if save is None:
            return ""
        if s.save_error is not None:
            return f"; its last moves could not be saved to {save}"
        return f"; the record so far is in {save}"

    try:
        while True:
            if s.save_error != told:
                console.print(f"could not save: {s.save_error}; the game goes on (`save FILE` "
                              "writes the record elsewhere)" if s.save_error is not None
                              else f"saved to {save} again", markup=False)
                told = s.save_error
            state = s.state
            if game.is_terminal(state):
                show_board(console, game, state)
                w = game.winner(state)
                scores = (f"; scores {game.scores(state)[0]} : {game.scores(state)[1]}"
                          if game.keeps_scores(state) else "")
                console.print(Text.assemble(("Game over: ", "bold"), end_words(game, state),
                                            scores))
                s.keep()
                if s.save_error is not None:
                    console.print(f"could not save: {s.save_error}", markup=False)
                elif save is not None:
                    console.print(f"the record is in {save}", markup=False)
                    # what to do next: watch it again, or see where it was lost; a command a
                    # line, never broken (a line break in it would be pasted into the shell)
                    shown = shlex.quote(str(save))
                    commands = [("replay it:", f"stonegarden replay {shown}")]
                    if s.placed():  # a review of no move (a resignation alone) has nothing to say
                        commands.append(("judge every move:",
                                         f"stonegarden analyse {shown} --review"))
                    for words, command in commands:
                        console.print(f"  {words:<17} {command}", markup=False, soft_wrap=True)
                return int(w or 0)
            p = game.current_player(state)
            if p == CHANCE:
                outcomes = game.chance_outcomes(state)
                probs = np.array([q for _, q in outcomes])
                rng = np.random.default_rng([base, len(s.moves)])
                a = outcomes[int(rng.choice(len(outcomes), p=probs / probs.sum()))][0]
                text = game.action_to_text(state, a)
                console.print(f"chance: {text}")
                s.push(text, game.play_unchecked(state, a))
                continue
            agent = seats[p]
            if agent is not None:
                with console.status(f"player {p} ({agent.spec}) is thinking..."):
                    a = agent.choose(game, state)
                text = game.action_to_text(state, a)
                after = game.play_unchecked(state, a)
                console.print(played_line(game, state, after, f"player {p} ({agent.spec})", text))
                s.push(text, after)
                continue
            show_board(console, game, state)
            console.print(status_line(game, state), style="bold")
            try:
                line = console.input(f"player {p} > ")
            except (EOFError, RuntimeError):  # RuntimeError: no stdin at all (``0<&-``, a daemon)
                console.print(f"\nend of input: leaving the game unfinished{kept()}", markup=False)
                return -1
            if echo:  # moves from a pipe or a file: no terminal shows what was read
                console.print(echoed(line), markup=False)
            # a moves file saved with a byte order mark (Notepad) begins its first line with it
            cmd = without_bom(line.strip()).strip()
            low = cmd.lower()
            if not cmd:
                continue
            if low in ("quit", "exit", "q"):
                console.print(f"leaving the game unfinished{kept()}", markup=False)
                return -1
            if low in ("help", "?"):
                console.print(help_text(game, state, console.width), markup=False)
                continue
            if low == "undo":
                n = s.undo(p)
                console.print("nothing to undo" if n == 0 else f"took back {n} move(s)")
                continue
            if low == "moves":
                console.print(moves_text(game.legal_moves_text(state)), markup=False)
                continue
            if low == "hint":
                hinter = hinter or agent_for(game, HINT_SPEC)
                try:
                    with console.status("searching for a hint... (Ctrl-C stops it)"):
                        a = hinter.choose(game, state)
                except Terminated:  # a SIGTERM ends the game, as at the prompt
                    raise
                except KeyboardInterrupt:  # the player stops the hint, not the game
                    hinter = None  # a search cut short is not asked again
                    console.print("hint stopped; the game goes on", markup=False)
                    continue
                console.print(Text.assemble("hint: ", (game.action_to_text(state, a), "bold"),
                                            " (2 s of search)"))
                continue
            if low == "save" or low.split(maxsplit=1)[0] == "save":  # "savegame" is no save
                target = cmd[4:].strip()
                if not target:
                    console.print("usage: save FILE")
                    continue
                if len(target) > 2 and target[0] == target[-1] and target[0] in "'\"":
                    target = target[1:-1]  # quoted as a shell would need it: "my game.json"
                target = os.path.expanduser(target)  # no shell here to expand ~ (and "x/" stays)
                # as --save: a file this game did not write (a game saved before) is kept
                if Path(target).is_file() and Path(target).resolve() not in written:
                    console.print(f"could not save: {target} already exists, and this game did "
                                  "not write it (a game saved before is not written over); "
                                  "choose another name", markup=False)
                    continue
                try:
                    save_to(s.record(), target)
                except RecordError as exc:
                    console.print(f"could not save: {exc}", markup=False)
                    continue
                written.append(Path(target).resolve())
                console.print(f"saved to {target}", markup=False)
                continue
            try:
                new = game.play_text(state, cmd)
            except IllegalMoveError as exc:  # the board is on screen: the reason is enough
                console.print(Text(f"illegal move {exc.move!r}: {exc.reason}", style="red"))
                continue
            except StonegardenError as exc:
                console.print(Text(unreadable_words(cmd) or str(exc), style="red"))
                continue
            text = "resign" if new.resigned else game.action_to_text(state, game.parse_action(state, cmd))
            autos = autos_text(game, state, new)
            if autos:
                console.print(f"({autos})", markup=False)
            s.push(text, new)
    except KeyboardInterrupt:  # at the prompt or while an agent thinks
        console.print(f"\ninterrupted: the game is left unfinished{kept()}", markup=False)
        raise SystemExit(130) from None
