"""The web server's warm-up (``stonegarden.warmup``): every worker loads the games' kernels
before it takes a job, so no job's deadline is spent loading them, and the server process,
once a worker is ready (so the kernels are in the cache), loads what its pages draw in a
thread of its own; the home page shows the progress.

From an empty cache (a first start without ``scripts/serve.sh``'s install step) this compiles,
which takes minutes; the workers start at different games (``warmup.rotated``), so each
compiles some and loads the others from the cache the other fills. Until a worker is ready,
agents' and hints' jobs wait in the queue, and the game page says the engine is being prepared.
"""

from __future__ import annotations

import threading
import traceback
from typing import Any

from .. import warmup
from ..core.protocol import CHANCE, Game
from ..core.registry import available_games
from ..jobs import JobContext, JobPool, job_kind
from .views import Marks, view_for
from .views.base import safe_move_cells

#: the job kind each worker runs before it takes jobs (``JobPool(warm_up=...)``)
WARM_UP_KIND = "warm-up"


def view_step(game: Game) -> None:
    """What a game page draws, at a few positions of a random game: legal targets, the move
    builder, the last move and its captures, the board, the scores and the end in words."""
    moves, states = warmup.random_game(game)
    view = view_for(game)
    view.player_names(game)
    view.legend(game)
    for ply in sorted({0, 1, len(moves) // 2, len(moves)} & set(range(len(states)))):
        state = states[ply]
        last: list[str] = []
        captured: list[str] = []
        if ply:
            last = safe_move_cells(view, game, states[ply - 1], moves[ply - 1])
            captured = view.captured_cells(game, states[ply - 1], state)
        targets: list[str] = []
        if not game.is_terminal(state) and game.current_player(state) != CHANCE:
            targets = view.legal_targets(game, state)
            view.builder(game, state)
        view.svg(game, state, Marks(tuple(last), tuple(captured), tuple(targets)))
        view.score_track(game, state)
        view.outcome(game, state)


@job_kind(WARM_UP_KIND)
def warm_worker(args: dict[str, Any], ctx: JobContext) -> int:
    """A worker's warm-up: every game's rules, search and views, starting at the game of its
    ``slot`` of ``slots``; progress ``{"done", "of", "game"}`` before each game."""
    games = warmup.rotated(available_games(), int(args.get("slot", 0)),
                           int(args.get("slots", 1)))

    def progress(done: int, total: int, game_id: str) -> None:
        ctx.progress({"done": done, "of": total, "game": game_id}, force=True)

    return warmup.warm_up(games, (*warmup.STEPS, view_step), progress=progress,
                          stop=ctx.stopped)


class EngineWarmUp:
    """The server process's warm-up (every game's rules and views, in a daemon thread, off
    the event loop, after a worker has filled the cache) and the engine's readiness: that
    done, and a worker ready. Not
    ``enabled``, nothing is warmed and the engine is ready with its first worker."""

    def __init__(self, pool: JobPool, enabled: bool = True) -> None:
        self.pool = pool
        self.enabled = enabled
        self.games = available_games() if enabled else []
        self.done = 0
        self.current = ""
        self.finished = not enabled
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="warm-up")

    def start(self) -> None:
        if self.enabled:
            self._thread.start()

    def close(self) -> None:
        """Stop between two games (the thread is a daemon: a shutdown never waits for it)."""
        self._stop.set()

    def _run(self) -> None:
        def progress(done: int, total: int, game_id: str) -> None:
            self.done, self.current = done, game_id

        # a compile in this process would hold the interpreter lock for minutes and starve the
        # event loop: a worker compiles (into the cache) first, and this thread only loads
        while self.pool.ready_workers() == 0 and not self._stop.wait(0.2):
            pass
        try:
            warmup.warm_up(self.games, (warmup.rules_step, view_step), progress=progress,
                           stop=self._stop.is_set)
        except Exception:  # a bug: the pages then compile what they need when they need it
            traceback.print_exc()
        self.finished = True

    @property
    def ready(self) -> bool:
        """The pages' kernels are loaded and a worker can take jobs."""
        return self.finished and self.pool.ready_workers() > 0

    def status(self) -> dict[str, Any]:
        """``{"ready", "done", "of", "server", "workers"}``: ``done`` of ``of`` steps (the
        server's games and each worker's), ``workers`` as each reports its progress."""
        states = self.pool.warm_up_states()
        per = len(available_games())
        total = per * (1 + len(states))
        done = per if self.finished else self.done
        for state in states:
            done += per if state is None else int(state.get("done", 0))
        ready = self.ready
        return {"ready": ready, "done": total if ready else min(done, total), "of": total,
                "server": {"done": per if self.finished else self.done,
                           "game": self.current},
                "workers": [{"ready": s is None, **(s or {})} for s in states]}
