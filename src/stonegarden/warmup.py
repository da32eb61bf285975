"""Compile, or load from numba's cache, the kernels every game needs before a player waits on
them.

A numba kernel is compiled the first time it is called (tens of seconds for a game's search,
minutes for all games on a busy machine) and, with ``cache=True``, loaded from the cache in
later processes (a second or two for all games). Either way it happens on the first call, so
a first AI reply or hint would pay it inside its own time budget. A warm-up makes those first
calls on purpose: for each game, a seeded random game through the checked rules (to its end,
or ``MOVES`` moves), a few random playouts, and its search profile's ``warm_up`` (the kernels
of the search that levels, hints and the analysis use). It knows only the game protocol and
the search profiles, never a particular game.

``stonegarden warm-up`` runs it once at install time (``scripts/serve.sh``), so that the
compiled kernels are in the cache; the web server runs it in each worker process before the
worker takes jobs (with what pages draw), and for the rules and pages in the server process
itself.
"""

from __future__ import annotations

import multiprocessing
import random
import signal
from collections.abc import Callable, Generator, Iterable, Sequence

from .core.protocol import CHANCE, Game, State
from .core.registry import available_games, make
from .search.profile import profile_for

#: moves of the random game played through the rules (fewer when it ends sooner)
MOVES = 300
#: random playouts from the first position
PLAYOUTS = 4


def random_game(game: Game, seed: int = 0) -> tuple[list[str], list[State]]:
    """A seeded random game through the checked entry points (text in and out, as the web
    app and records play), to its end or ``MOVES`` moves: its move texts and positions."""
    rng = random.Random(seed)
    state = game.initial_state()
    moves: list[str] = []
    states = [state]
    for _ in range(MOVES):
        if game.is_terminal(state):
            break
        if game.current_player(state) == CHANCE:
            action = game.chance_outcomes(state)[0][0]
        else:
            actions = game.legal_actions(state)
            action = int(actions[rng.randrange(len(actions))])
        moves.append(game.action_to_text(state, action))
        state = game.play_text(state, moves[-1])
        game.scores(state)
        game.winner(state)
        states.append(state)
    game.position_text(state)
    return moves, states


def rules_step(game: Game) -> None:
    random_game(game)


def search_step(game: Game) -> None:
    """A few random playouts from the first position, and the kernels of the game's default
    search (its search profile's ``warm_up``: levels, hints and the analysis all search with
    it)."""
    state = game.first_decision()
    if not game.is_terminal(state):
        game.random_playouts(state, PLAYOUTS, 0)
    profile_for(game).warm_up()


#: what one game's warm-up does, in order; the web server adds its own steps (its views)
Step = Callable[[Game], object]
STEPS: tuple[Step, ...] = (rules_step, search_step)


def warm_up(games: Iterable[str] | None = None, steps: Sequence[Step] = STEPS,
            progress: Callable[[int, int, str], None] | None = None,
            stop: Callable[[], bool] | None = None) -> int:
    """Run ``steps`` for each game (default: every registered game, with default parameters);
    ``progress(done, total, game_id)`` before each game and once at the end; ``stop()`` ends it
    between games. Returns the number of games warmed.

    Raises:
        StonegardenError: a game that cannot be made (a bug: the registry made it before).
    """
    ids = list(available_games() if games is None else games)
    for done, game_id in enumerate(ids):
        if stop is not None and stop():
            return done
        if progress is not None:
            progress(done, len(ids), game_id)
        game = make(game_id)
        for step in steps:
            step(game)
    if progress is not None:
        progress(len(ids), len(ids), "")
    return len(ids)


def warm_up_in_processes(games: Sequence[str], jobs: int,
                         steps: Sequence[Step] = STEPS) -> Generator[str, None, None]:
    """Run ``steps`` for each of ``games`` in ``jobs`` processes at once (numba compiles in
    one thread: a process a core is what shortens a first warm-up); yields each game as it
    is done. ``steps`` are module-level functions (they are sent to the processes by name).
    The processes ignore Ctrl-C, which stops the caller; leaving the generator (done,
    interrupted or failed) ends them, so none outlives the command.

    Raises:
        StonegardenError: as ``warm_up``, from the process that met it.
    """
    context = multiprocessing.get_context("spawn")  # no numba state forked half-made
    with context.Pool(max(1, min(jobs, len(games))), initializer=_ignore_ctrl_c) as pool:
        # the with-block terminates the processes on the way out, however it is left
        yield from pool.imap_unordered(_warm_one, [(game_id, tuple(steps)) for game_id in games])


def _warm_one(task: tuple[str, tuple[Step, ...]]) -> str:
    game_id, steps = task
    warm_up([game_id], steps)
    return game_id


def _ignore_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def rotated(games: Sequence[str], slot: int, slots: int) -> list[str]:
    """``games`` starting ``slot / slots`` of the way along: processes warming up together
    from an empty cache each compile different games first, and load the rest from the cache
    the others fill."""
    if not games or slots <= 1:
        return list(games)
    start = (slot % slots) * len(games) // slots
    return [*games[start:], *games[:start]]
