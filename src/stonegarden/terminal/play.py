"""The interactive terminal game: any seat human or any registered agent."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.text import Text

from ..agents import Agent, make_agent
from ..core.protocol import CHANCE, Game, State
from ..core.record import make_record, save_record
from ..errors import IllegalMoveError, RecordError, StonegardenError
from .render import rich_diagram

HELP = """Type a move in notation (e.g. {example}), or a command:
  moves    list some legal moves     undo     take back your last move
  resign   resign the game           save F   save the record to file F
  help     this text                 quit     leave (--save keeps the record)"""


def help_text(game: Game, state: State) -> str:
    """The help, with examples that are legal moves in ``state``."""
    texts = game.legal_moves_text(state) if not game.is_terminal(state) else []
    examples = []
    if texts:
        examples.append(texts[len(texts) // 2])
        two = [t for t in texts if "," in t]  # a turn of two stones, where the game has them
        if two:
            examples.append(two[len(two) // 2])
    example = " or ".join(examples) if examples else "a move"
    return HELP.format(example=example)


@dataclass
class Session:
    """The game so far: the states, the moves that led to them, and who sits where."""

    game: Game
    seats: dict[int, Agent | None]  # None = human
    states: list[State] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    save_path: Path | None = None

    def __post_init__(self) -> None:
        if not self.states:
            self.states = [self.game.initial_state()]

    @property
    def state(self) -> State:
        return self.states[-1]

    def push(self, text: str, new: State) -> None:
        self.moves.append(text)
        self.states.append(new)
        self.autosave()

    def undo(self) -> int:
        """Take back moves until a human is to move again with one human move undone.
        Returns how many entries were removed (0 when there is nothing to undo)."""
        removed = 0
        while len(self.states) > 1:
            self.states.pop()
            self.moves.pop()
            removed += 1
            p = self.game.current_player(self.state)
            if p != CHANCE and self.seats.get(p) is None:
                break
        self.autosave()
        return removed

    def record(self):  # type: ignore[no-untyped-def]
        players = {str(p): ("human" if a is None else a.spec) for p, a in self.seats.items()}
        return make_record(self.game, self.moves, self.state, players=players)

    def autosave(self) -> None:
        """Raises: RecordError when the record cannot be written (a missing folder, say)."""
        if self.save_path is not None:
            try:
                save_record(self.record(), self.save_path)
            except OSError as exc:
                raise RecordError(f"cannot save the record to {str(self.save_path)!r}: "
                                  f"{exc.strerror}") from None


def status_line(game: Game, state: State) -> str:
    """Whose turn and the scores, in words (with the target when the game has one; no scores in
    a game that keeps none)."""
    p = game.current_player(state)
    scores = game.scores(state)
    target = game.params.get("target")
    goal = f" (target {target})" if target is not None else ""
    left = getattr(state, "dice_left", None)
    extra = f"; dice left {left}" if left is not None else ""
    if target is None and not any(scores) and not getattr(game, "territory", False):
        return f"player {p} to move{extra}"
    return f"player {p} to move; scores {scores[0]} : {scores[1]}{goal}{extra}"


def play_terminal(game: Game, p1: str, p2: str, save: Path | None, console: Console,
                  seed: int | None = None) -> int:
    """Run a game in the terminal; returns the winner (0 draw, -1 unfinished)."""
    seats: dict[int, Agent | None] = {
        1: None if p1 == "human" else make_agent(p1),
        2: None if p2 == "human" else make_agent(p2),
    }
    s = Session(game, seats, save_path=save)
    s.autosave()  # a path that cannot be written is refused now, not after the first move
    import numpy as np

    rng = np.random.default_rng(seed)
    console.print(f"[bold]{game.title}[/]  {game!r}   (type 'help' for commands)")
    while True:
        state = s.state
        if game.is_terminal(state):
            console.print(rich_diagram(game, state, fields=False))
            w = game.winner(state)
            reason = game.result_reason(state)
            console.print(f"[bold]Game over:[/] {'draw' if w == 0 else f'player {w} wins'} ({reason}); "
                          f"scores {list(game.scores(state))}")
            s.autosave()
            return int(w or 0)
        p = game.current_player(state)
        if p == CHANCE:
            outcomes = game.chance_outcomes(state)
            probs = np.array([q for _, q in outcomes])
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
            console.print(f"player {p} ({agent.spec}) plays [bold]{text}[/]")
            s.push(text, game.play_unchecked(state, a))
            continue
        console.print(rich_diagram(game, state, fields=False))
        console.print(status_line(game, state), style="bold")
        try:
            line = console.input(f"player {p} > ")
        except EOFError:
            console.print("\nend of input: leaving the game unfinished")
            return -1
        cmd = line.strip()
        low = cmd.lower()
        if not cmd:
            continue
        if low in ("quit", "exit", "q"):
            console.print("leaving the game unfinished")
            return -1
        if low in ("help", "?"):
            console.print(help_text(game, state), markup=False)
            continue
        if low == "undo":
            n = s.undo()
            console.print("nothing to undo" if n == 0 else f"took back {n} move(s)")
            continue
        if low == "moves":
            texts = game.legal_moves_text(state)
            shown = ", ".join(texts[:40])
            console.print(f"{len(texts)} legal moves: {shown}{' ...' if len(texts) > 40 else ''}",
                          markup=False)
            continue
        if low.startswith("save"):
            target = cmd[4:].strip()
            if not target:
                console.print("usage: save FILE")
                continue
            try:
                save_record(s.record(), Path(target))
            except OSError as exc:
                console.print(f"could not save to {target!r}: {exc.strerror}", markup=False)
                continue
            console.print(f"saved to {target}", markup=False)
            continue
        try:
            new = game.play_text(state, cmd)
        except IllegalMoveError as exc:  # the board is on screen: the reason is enough
            console.print(Text(f"illegal move {exc.move!r}: {exc.reason}", style="red"))
            continue
        except StonegardenError as exc:
            console.print(Text(str(exc), style="red"))
            continue
        text = "resign" if new.resigned else game.action_to_text(state, game.parse_action(state, cmd))
        s.push(text, new)
