"""The agents' turns in the service's games: dice rolled at chance nodes, an agent's job
started when it is to move, its move stored when the job answers, and a pause with a notice
when it cannot move.

Of the server processes holding a game, one thinks for its agent: the one holding the store's
claim on the position (``Store.claim_thinking``). The others show the agent thinking, and
take over when that process gives its claims up as it stops, or when its claim runs out
unused (a killed process).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import secrets
import time
from typing import TYPE_CHECKING, Any

from ..agents.registry import parse_agent_spec
from ..agents.search_agents import SearchAgent
from ..core.protocol import CHANCE, Game
from ..errors import JobError, ParameterError, StonegardenError, StoreError, quote
from .http import ApiError
from .job_kinds import server_agent
from .live import Live, Thinking, full_notice
from .seats import HUMAN, OPEN, agent_named, may_undo

if TYPE_CHECKING:
    from .service import GameService

#: seconds a claim to think outlasts the search's own limit (the move's write, a slow store);
#: while the job waits in the queue its process renews the claim every half of this
THINK_GRACE = 10.0
#: seconds after a roll the store refused before the game is read again to roll
ROLL_AGAIN = 2.0


class AgentTurns:
    """The agents of the service's games (``GameService.turns``)."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        #: this process, in the store's claims to think for a game's agent
        self.owner = secrets.token_hex(8)

    async def advance(self, live: Live, client: str, admitted: bool = True,
                      resume: bool = False) -> None:
        """Roll dice at chance nodes, then start the agent if it is an agent's turn.
        ``admitted``: the client's room was checked (else a full queue pauses the agent);
        ``resume``: a person asked it to move, ending a pause they or another person set."""
        svc = self.service
        game = live.game
        while not game.is_terminal(live.state) and game.current_player(live.state) == CHANCE:
            if len(live.moves) >= svc.budgets.max_moves:
                return
            outcomes = game.chance_outcomes(live.state)
            action = svc.rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
            text = game.action_to_text(live.state, action)
            try:
                await svc.append_move(live, text, game.play(live.state, action),
                                      tuple(live.redo))
            except ApiError as exc:
                # the move before the roll is stored and stands; this copy would wait at the
                # roll for ever: the game is read again (and rolled) when next asked for, or
                # in a moment (its pages wait for the roll)
                svc.invalidate(live.id)
                if exc.status != 409:  # 409: another process rolled
                    svc.in_background(self._roll_later(live.id, live.client))
                return
        if (game.is_terminal(live.state) or live.paused or live.thinking is not None
                or svc.closing):
            return
        seat = game.current_player(live.state)
        spec = live.seats[seat - 1]
        if spec in (HUMAN, OPEN):  # a person moves (an open seat waits for one to join)
            return
        if len(live.moves) >= svc.budgets.max_moves:
            self.pause(live, full_notice(len(live.moves)))
            return
        thinking = Thinking(seat, spec, len(live.moves), time.time())
        live.thinking = thinking
        if not await self._claim(live, thinking, resume):
            return
        try:
            thinking.job = svc.jobs.submit("agent-move", self.job_args(live, spec),
                                           client=client or live.client, force=admitted,
                                           deadline=svc.budgets.max_think,
                                           memory=svc.budgets.job_memory, keep_place=True)
        except JobError as exc:
            self.pause(live, f"{agent_named(spec)} cannot think now ({exc}); let it move to "
                             "try again")
            return
        thinking.job.on_start.append(lambda: svc.hub.publish(live.id))  # no longer queued
        thinking.task = asyncio.get_running_loop().create_task(self._think(live, thinking))
        svc.hub.publish(live.id)

    async def _roll_later(self, game_id: str, client: str) -> None:
        """Read the game again for ``client`` (whose move led to the roll), which rolls, a
        moment after a roll could not be stored; a roll refused again is tried again the same
        way, and a game the store cannot read is left to the next request for it."""
        svc = self.service
        await asyncio.sleep(ROLL_AGAIN)
        if not svc.closing and game_id not in svc.live:
            with contextlib.suppress(ApiError):
                await svc.load(game_id, client)

    async def _claim(self, live: Live, thinking: Thinking, resume: bool) -> bool:
        """Whether this process thinks for the agent (it holds the store's claim); another's
        game shows its agent thinking, and this process takes over if that claim runs out
        unused. A position a person paused stays paused here too."""
        svc = self.service
        now = time.time()
        try:
            mine, until = await asyncio.to_thread(
                svc.store.claim_thinking, live.id, thinking.ply, self.owner, now,
                now + svc.budgets.max_think + THINK_GRACE, resume)
        except StoreError:
            mine, until = True, now  # the store cannot say: think here (at worst twice)
        if svc.closing and mine:
            await self.give_up_claims()  # the shutdown's own give-up may have come first
        if live.thinking is not thinking or svc.closing or svc.live.get(live.id) is not live:
            return False  # cancelled, undone, or forgotten (no longer served) meanwhile
        if mine:
            return True
        if math.isinf(until):
            self.pause(live, cancelled(live, thinking.spec))
            return False
        thinking.elsewhere = True
        # the holder's claim began when it started thinking (same limits on every process)
        thinking.started = until - svc.budgets.max_think - THINK_GRACE
        thinking.task = asyncio.get_running_loop().create_task(
            self._take_over(live, thinking, until))
        svc.hub.publish(live.id)
        return False

    async def _take_over(self, live: Live, thinking: Thinking, until: float) -> None:
        """Think when another process's claim runs out without its move (that process died);
        its move, or its claim given up, reaches this one as a change first."""
        await asyncio.sleep(max(0.0, until - time.time()) + 0.5)
        if live.thinking is thinking and self.service.live.get(live.id) is live:
            live.thinking = None
            # the move continues work the holder admitted: a full share of the game's last
            # client does not pause it
            await self.advance(live, live.client)

    def claim_given_up(self, live: Live) -> None:
        """Another process gave up its claim on ``live`` (it is stopping): think here now."""
        if live.thinking is not None and live.thinking.elsewhere:
            self.forget(live)  # the holder's admitted work goes on here, as in a take-over
            self.service.in_background(self.advance(live, live.client))

    def cancelled_elsewhere(self, live: Live) -> None:
        """A person cancelled the agent's thinking through another process: pause it here
        too (stopping its job, or the wait to take over)."""
        t = live.thinking
        if t is not None:
            self.stop(live)
            self.pause(live, cancelled(live, t.spec))

    async def give_up_claims(self) -> None:
        """At shutdown: another process holding one of these games thinks for it at once."""
        with contextlib.suppress(StoreError):
            await asyncio.to_thread(self.service.store.release_thinking, self.owner)

    def job_args(self, live: Live, spec: str) -> dict[str, Any]:
        """What an ``agent-move`` job of agent ``spec`` receives for ``live``'s position."""
        return {"game": live.game.id, "params": dict(live.game.non_default_params()),
                "moves": list(live.moves), "spec": spec,
                "threads": self.service.budgets.job_threads}

    async def _think(self, live: Live, thinking: Thinking) -> None:
        """Wait for the agent's move, store it and go on to the next turn. The job's client
        keeps its place in the job queue until then (``keep_place``): a game between two
        agents is one admitted job at a time, never none that another request could take."""
        job = thinking.job
        assert job is not None
        try:
            await self._move(live, thinking)
        finally:
            self.service.jobs.let_go(job)

    async def _move(self, live: Live, thinking: Thinking) -> None:
        svc = self.service
        assert thinking.job is not None
        holding = asyncio.get_running_loop().create_task(self._hold_claim(live, thinking))
        try:
            text = await thinking.job.result()
        except asyncio.CancelledError:
            svc.jobs.cancel(thinking.job)
            return
        except JobError as exc:
            # the server stopping leaves the game as stored: it thinks again after the restart
            if live.thinking is thinking and exc.reason != "closing":
                self.pause(live, f"{agent_named(thinking.spec)} did not move: {exc}; it is "
                                 "paused: undo, or let it move")
            return
        finally:
            holding.cancel()
        if live.thinking is not thinking or len(live.moves) != thinking.ply:
            return  # cancelled or overtaken (undo): discard
        try:
            after = live.game.play_text(live.state, text)
        except StonegardenError as exc:
            self.pause(live, f"{agent_named(thinking.spec)} chose {quote(text)}: {exc}")
            return
        # the agent still shows as thinking while its move is written (off the event loop);
        # the write is not cancelled half-way: once chosen, the move is stored and served
        thinking.task = None
        try:
            await svc.append_move(live, text, after, redo=())
        except ApiError as exc:
            if live.thinking is thinking:
                live.thinking = None
                if exc.status != 409:  # 409: another process moved on; read again
                    self.pause(live, f"the agent's move could not be stored: {exc.message}")
            return
        if live.thinking is not thinking:
            return  # undone or cancelled while the move was written
        live.thinking = None
        await self.advance(live, live.client)

    async def _hold_claim(self, live: Live, thinking: Thinking) -> None:
        """Renew this process's claim while its job waits in the queue: the search's limit
        counts from when a worker takes the job, and another process must not take over a
        search that has not had its time yet."""
        svc = self.service
        job = thinking.job
        assert job is not None
        while job.state in ("queued", "running") and live.thinking is thinking:
            await asyncio.sleep(THINK_GRACE / 2)
            if job.state == "queued" and live.thinking is thinking:
                now = time.time()
                with contextlib.suppress(StoreError):
                    await asyncio.to_thread(
                        svc.store.claim_thinking, live.id, thinking.ply, self.owner, now,
                        now + svc.budgets.max_think + THINK_GRACE)

    def pause(self, live: Live, notice: str) -> None:
        """Stop asking the agent to move, with ``notice`` saying why (undo, or let it move)."""
        live.thinking = None
        live.paused = True
        live.notice = notice
        self.service.hub.publish(live.id)

    def stop(self, live: Live) -> None:
        """Cancel the agent's job (its search stops in its worker) and its task. At shutdown
        the game stays as stored: an agent to move thinks again when the game is next opened."""
        t = live.thinking
        if t is not None:
            if t.job is not None:
                self.service.jobs.cancel(t.job)
                self.service.jobs.let_go(t.job)  # its task may never have begun
            if t.task is not None:
                t.task.cancel()

    def forget(self, live: Live) -> None:
        """Stop the agent, and show it thinking no more."""
        self.stop(live)
        live.thinking = None

    def describe(self, live: Live) -> dict[str, Any] | None:
        """What a page shows of the agent thinking, ``None`` when none is."""
        t = live.thinking
        if t is None:
            return None
        job = t.job
        svc = self.service
        elapsed = time.time() - t.started  # waiting for a worker, while queued
        if job is not None and job.started is not None:  # its search, which the limit bounds
            elapsed = time.monotonic() - job.started
        if t.elsewhere:  # another process's search, stopped at the limit (or the process died)
            elapsed = min(elapsed, svc.budgets.max_think)
        return {"seat": t.seat, "spec": t.spec, "elapsed": round(elapsed, 1),
                "budget": svc.budgets.max_think,
                "options": search_budget(t.spec, live.game, svc.budgets.job_threads),
                "queued": job is not None and job.state == "queued",
                "elsewhere": t.elsewhere,  # another server process thinks for it
                "waiting": svc.jobs.waiting_before(job) if job is not None else 0}


def cancelled(live: Live, spec: str) -> str:
    """The notice of an agent whose thinking a person cancelled; undo is offered where a
    person playing an agent has a move to take back (not before their first move, nor to the
    link of a computer's seat)."""
    undo = any(may_undo(live, seat) and seat in live.history.movers for seat in (1, 2))
    return f"cancelled: {agent_named(spec)} stopped thinking; {'undo, or ' if undo else ''}let it move"


def search_budget(spec: str, game: Game, threads: int) -> dict[str, str]:
    """What the agent of ``spec`` searches for a move in ``game``, as options (``sims``,
    ``time``): a level's own budget in that game (``level:5`` is not a budget of 5), an
    ``mcts`` spec's with its defaults; nothing for an agent that does not search."""
    try:
        agent = server_agent(spec, threads)
    except ParameterError:
        return {}
    if not isinstance(agent, SearchAgent):
        return {}
    budget = agent.budget_for(game)
    out = {} if budget.sims is None else {"sims": str(budget.sims)}
    return out if budget.seconds is None else {**out, "time": f"{budget.seconds:g}"}


def budget_options(spec: str) -> dict[str, str]:
    """The options of an agent spec (its time or playout budget, as the agent defines it)."""
    try:
        _, options = parse_agent_spec(spec)
    except ParameterError:
        return {}
    return options
