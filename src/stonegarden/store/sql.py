"""What the SQLite and PostgreSQL stores share: every read and write of games, written once in
the SQL both read (``?`` placeholders; the PostgreSQL store's connections translate them).

A store provides ``_connect()`` (a connection for reads) and ``_transaction()`` (one
transaction, committed when the block ends, rolled back if it raises), both yielding an object
with ``execute(sql, args)`` and ``executemany(sql, rows)``; ``_lock_game`` (serialise the
writers of one game) and ``_notify`` (tell other server processes, sent at commit).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Literal

from ..errors import StoreError
from .base import (
    CANCELLED_RUN,
    AnalysisClaim,
    ChangeListener,
    GameRow,
    GameSummary,
    NewGame,
    StaleError,
    analysis_from,
    row_from,
    summary_from,
)

#: the most ids one ``list_games(ids=...)`` call looks up
MAX_IDS = 100
#: the stored text of a seat waiting for someone to join
OPEN = "open"
#: the owner of a claim to think that a person paused (``cancel_thinking``): no process's
PAUSED = ""


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value)


class SQLStore:
    """The games, in SQL shared by both stores."""

    location: str
    #: added to a SELECT that locks the rows it reads until the transaction ends
    _for_update = ""

    # -- what each store provides ------------------------------------------------------------
    def _connect(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _transaction(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _lock_game(self, con: Any, game_id: str) -> None:
        """Hold the game's row until the transaction ends (SQLite's ``BEGIN IMMEDIATE``
        already locks the whole file)."""
        if self._for_update:
            con.execute("SELECT id FROM games WHERE id = ?" + self._for_update, (game_id,))

    def _notify(self, con: Any, what: str, game_id: str) -> None:
        """Tell other server processes that ``game_id`` changed (at commit)."""

    def listen(self, on_change: ChangeListener) -> None:
        """One process per store: nothing to hear."""

    def stopping(self) -> None:
        """The server begins to stop: nothing to hurry."""

    def close(self) -> None:
        """Nothing stays open between operations."""

    # -- writing ------------------------------------------------------------------------------
    def create_game(self, new: NewGame) -> None:
        now = time.time()
        with self._transaction() as con:
            con.execute(
                "INSERT INTO games (id, game, params, seat1, seat2, secret1, secret2, result,"
                " created, updated, listed, hints, name1, name2, to_move, clock, deadline,"
                " time_control)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (new.id, new.game, json.dumps(new.params), new.seats[0], new.seats[1],
                 new.secrets[0], new.secrets[1], _dumps(new.result),
                 now if new.created is None else new.created, now,
                 new.listed, new.hints, new.names[0], new.names[1], new.to_move,
                 _dumps(new.clock), new.deadline, _dumps(new.time_control)),
            )
            con.executemany(
                "INSERT INTO moves (game_id, ply, text, created) VALUES (?, ?, ?, ?)",
                [(new.id, i, m, now) for i, m in enumerate(new.moves)],
            )
            # "lobby": a game that waits in the lobby, which every process's lobby pages show
            self._notify(con, "lobby" if new.listed and OPEN in new.seats else "create",
                         new.id)

    def append_move(self, game_id: str, ply: int, text: str, result: dict[str, Any] | None,
                    redo: Sequence[str] = (), *, to_move: int | None = None,
                    clock: dict[str, Any] | None = None,
                    deadline: float | None = None,
                    line: Sequence[str] | None = None) -> None:
        now = time.time()
        with self._transaction() as con:
            self._lock_game(con, game_id)
            self._check_count(con, game_id, ply, unfinished=True, line=line)
            con.execute("INSERT INTO moves (game_id, ply, text, created) VALUES (?, ?, ?, ?)",
                        (game_id, ply, text, now))
            # a claim to think (or a pause) is for move ``ply``, played now: a row kept would
            # stay for as long as the game, one for every game an agent ever played
            con.execute("DELETE FROM thinking WHERE game_id = ?", (game_id,))
            self._finish(con, game_id, result, redo, now, to_move, clock, deadline)
            self._notify(con, "move", game_id)

    def truncate(self, game_id: str, keep: int, count: int, result: dict[str, Any] | None,
                 redo: Sequence[str], *, to_move: int | None = None,
                 line: Sequence[str] | None = None) -> None:
        now = time.time()
        with self._transaction() as con:
            self._lock_game(con, game_id)
            self._check_count(con, game_id, count, line=line)
            con.execute("DELETE FROM moves WHERE game_id = ? AND ply >= ?", (game_id, keep))
            self._trim_analysis(con, game_id, keep)
            # a claim to think is for a line of moves: after an undo the count can match again
            con.execute("DELETE FROM thinking WHERE game_id = ?", (game_id,))
            self._finish(con, game_id, result, redo, now, to_move, None, None)
            self._notify(con, "move", game_id)

    @staticmethod
    def _check_count(con: Any, game_id: str, expected: int, unfinished: bool = False,
                     line: Sequence[str] | None = None) -> None:
        """Raises: StaleError unless the game has ``expected`` moves (and they are ``line``,
        when given), and with ``unfinished`` is not over."""
        (count,) = con.execute("SELECT count(*) FROM moves WHERE game_id = ?",
                               (game_id,)).fetchone()
        if count != expected:
            raise StaleError(f"game {game_id!r} has {count} moves, not {expected}")
        if line is not None:
            stored = [r[0] for r in con.execute(
                "SELECT text FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)).fetchall()]
            if stored != list(line):
                raise StaleError(f"game {game_id!r} has other moves than this copy: it "
                                 "changed elsewhere")
        if unfinished:
            row = con.execute("SELECT result FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None or row[0] is not None:
                raise StaleError(f"game {game_id!r} is over")

    @staticmethod
    def _trim_analysis(con: Any, game_id: str, keep: int) -> None:
        """Drop the analysis' points of the positions after move ``keep``, in the undo's own
        transaction: they are of moves no longer played (a damaged analysis goes whole)."""
        row = con.execute("SELECT engine, points FROM analyses WHERE game_id = ?",
                          (game_id,)).fetchone()
        if row is None:
            return
        try:
            _, points = analysis_from(game_id, row[0], row[1])
        except StoreError:
            con.execute("DELETE FROM analyses WHERE game_id = ?", (game_id,))
            return
        kept = [p for p in points if isinstance(p.get("ply"), int) and p["ply"] <= keep]
        if len(kept) < len(points):
            con.execute("UPDATE analyses SET points = ?, updated = ? WHERE game_id = ?",
                        (json.dumps(kept), time.time(), game_id))

    @staticmethod
    def _finish(con: Any, game_id: str, result: dict[str, Any] | None, redo: Sequence[str],
                now: float, to_move: int | None, clock: dict[str, Any] | None,
                deadline: float | None) -> None:
        con.execute(
            "UPDATE games SET result = ?, redo = ?, updated = ?, to_move = ?, clock = ?,"
            " deadline = ? WHERE id = ?",
            (_dumps(result), json.dumps(list(redo)), now, to_move, _dumps(clock), deadline,
             game_id),
        )

    def join(self, game_id: str, seat: int, name: str, clock: dict[str, Any] | None = None,
             deadline: float | None = None) -> bool:
        column = _seat_column(seat)
        started = ", clock = ?, deadline = ?" if clock is not None else ""
        with self._transaction() as con:
            done = con.execute(
                f"UPDATE games SET seat{column} = 'human', name{column} = ?, updated = ?"
                f"{started} WHERE id = ? AND seat{column} = ? AND result IS NULL",
                (name, time.time(), *((_dumps(clock), deadline) if clock is not None else ()),
                 game_id, OPEN)).rowcount == 1
            if done:
                self._notify(con, "join", game_id)
        return done

    def withdraw(self, game_id: str) -> bool:
        with self._transaction() as con:
            self._lock_game(con, game_id)
            row = con.execute("SELECT seat1, seat2 FROM games WHERE id = ?",
                              (game_id,)).fetchone()
            if row is None or OPEN not in (row[0], row[1]):
                return False
            con.execute("DELETE FROM moves WHERE game_id = ?", (game_id,))
            con.execute("DELETE FROM analyses WHERE game_id = ?", (game_id,))
            con.execute("DELETE FROM thinking WHERE game_id = ?", (game_id,))
            con.execute("DELETE FROM analysing WHERE game_id = ?", (game_id,))
            con.execute("DELETE FROM games WHERE id = ?", (game_id,))
            self._notify(con, "withdraw", game_id)
        return True

    def set_name(self, game_id: str, seat: int, name: str) -> bool:
        column = _seat_column(seat)
        with self._transaction() as con:
            done = con.execute(
                f"UPDATE games SET name{column} = ?, updated = ? WHERE id = ?"
                f" AND (name{column} IS NULL OR name{column} = ?) AND result IS NULL",
                (name, time.time(), game_id, name)).rowcount == 1
            if done:
                self._notify(con, "name", game_id)
        return done

    def flag(self, game_id: str, ply: int, result: dict[str, Any],
             clock: dict[str, Any] | None) -> bool:
        with self._transaction() as con:
            self._lock_game(con, game_id)
            done = con.execute(
                "UPDATE games SET result = ?, clock = ?, deadline = NULL, to_move = NULL,"
                " updated = ? WHERE id = ? AND result IS NULL"
                " AND (SELECT count(*) FROM moves WHERE game_id = ?) = ?",
                (json.dumps(result), None if clock is None else json.dumps(clock),
                 time.time(), game_id, game_id, ply)).rowcount == 1
            if done:  # over: no agent of it thinks again
                con.execute("DELETE FROM thinking WHERE game_id = ?", (game_id,))
                self._notify(con, "flag", game_id)
        return done

    def set_clock(self, game_id: str, ply: int, clock: dict[str, Any],
                  deadline: float | None) -> bool:
        with self._transaction() as con:
            self._lock_game(con, game_id)
            done = con.execute(
                "UPDATE games SET clock = ?, deadline = ? WHERE id = ? AND result IS NULL"
                " AND (SELECT count(*) FROM moves WHERE game_id = ?) = ?",
                (json.dumps(clock), deadline, game_id, game_id, ply)).rowcount == 1
            if done:
                self._notify(con, "clock", game_id)
        return done

    def offer_rematch(self, game_id: str, new: NewGame, replacing: str | None = None) -> str:
        with self._transaction() as con:
            self._lock_game(con, game_id)
            row = con.execute("SELECT rematch FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise StoreError(f"game {game_id!r} is gone")
            if row[0] is not None and row[0] != replacing:
                return str(row[0])
        self.create_game(new)
        with self._transaction() as con:
            self._lock_game(con, game_id)
            won = con.execute("UPDATE games SET rematch = ? WHERE id = ?"
                              " AND COALESCE(rematch, '') = ?",
                              (new.id, game_id, replacing or "")).rowcount == 1
            if won:
                self._notify(con, "rematch", game_id)
                return new.id
            (other,) = con.execute("SELECT rematch FROM games WHERE id = ?",
                                   (game_id,)).fetchone()
            con.execute("DELETE FROM moves WHERE game_id = ?", (new.id,))
            con.execute("DELETE FROM games WHERE id = ?", (new.id,))  # another came first
            return str(other)

    def heartbeat(self, now: float, grace: float) -> float:
        with self._transaction() as con:
            con.execute("INSERT INTO heartbeat (id, alive) VALUES (1, ?)"
                        " ON CONFLICT (id) DO NOTHING", (now,))
            (alive,) = con.execute("SELECT alive FROM heartbeat WHERE id = 1"
                                   + self._for_update).fetchone()
            down = now - float(alive)
            con.execute("UPDATE heartbeat SET alive = ? WHERE id = 1", (max(now, alive),))
            if down <= grace:
                return 0.0
            running = con.execute("SELECT id, clock, deadline FROM games WHERE result IS NULL"
                                  " AND deadline IS NOT NULL").fetchall()
            for gid, text, deadline in running:
                try:
                    clock = json.loads(text)
                    clock["since"] = float(clock["since"]) + down
                except (TypeError, ValueError, KeyError):
                    continue  # a damaged clock: that game is unavailable anyway
                con.execute("UPDATE games SET clock = ?, deadline = ? WHERE id = ?",
                            (json.dumps(clock), float(deadline) + down, gid))
            return down

    def claim_thinking(self, game_id: str, ply: int, owner: str, now: float,
                       until: float, resume: bool = False) -> tuple[bool, float]:
        with self._transaction() as con:
            self._lock_game(con, game_id)
            try:
                self._check_count(con, game_id, ply, unfinished=True)
            except StaleError:
                return False, until  # moved on: the change's notice reaches the caller
            held = con.execute("SELECT ply, owner, expires FROM thinking WHERE game_id = ?",
                               (game_id,)).fetchone()
            if held is not None and int(held[0]) == ply:
                if held[1] == PAUSED and not resume:
                    return False, math.inf
                if held[1] not in (owner, PAUSED) and float(held[2]) > now:
                    return False, float(held[2])
            con.execute("INSERT INTO thinking (game_id, ply, owner, expires) VALUES (?, ?, ?, ?)"
                        " ON CONFLICT (game_id) DO UPDATE SET ply = excluded.ply,"
                        " owner = excluded.owner, expires = excluded.expires",
                        (game_id, ply, owner, until))
            return True, until

    def cancel_thinking(self, game_id: str, ply: int) -> None:
        with self._transaction() as con:
            self._lock_game(con, game_id)
            try:
                self._check_count(con, game_id, ply, unfinished=True)
            except StaleError:
                return  # moved on meanwhile: nothing to pause
            con.execute("INSERT INTO thinking (game_id, ply, owner, expires) VALUES (?, ?, ?, 0)"
                        " ON CONFLICT (game_id) DO UPDATE SET ply = excluded.ply,"
                        " owner = excluded.owner, expires = excluded.expires",
                        (game_id, ply, PAUSED))
            self._notify(con, "cancel", game_id)

    def release_thinking(self, owner: str) -> None:
        with self._transaction() as con:
            games = [r[0] for r in con.execute("SELECT game_id FROM thinking WHERE owner = ?",
                                               (owner,)).fetchall()]
            con.execute("DELETE FROM thinking WHERE owner = ?", (owner,))
            for gid in games:
                self._notify(con, "think", gid)

    def put_analysis(self, game_id: str, engine: str, points: Sequence[dict[str, Any]],
                     line: Sequence[str] | None = None) -> None:
        with self._transaction() as con:
            if line is not None:
                self._lock_game(con, game_id)
                stored = [r[0] for r in con.execute(
                    "SELECT text FROM moves WHERE game_id = ? AND ply < ? ORDER BY ply",
                    (game_id, len(line))).fetchall()]
                if stored != list(line):
                    raise StaleError(f"game {game_id!r} has other moves than the analysed "
                                     "ones: they were taken back meanwhile")
            con.execute("DELETE FROM analyses WHERE game_id = ?", (game_id,))
            con.execute("INSERT INTO analyses (game_id, engine, points, updated)"
                        " VALUES (?, ?, ?, ?)",
                        (game_id, engine, json.dumps(list(points)), time.time()))
            self._notify(con, "analysis", game_id)

    def claim_analysis(self, game_id: str, owner: str, client: str, now: float,
                       until: float) -> AnalysisClaim:
        with self._transaction() as con:
            self._lock_game(con, game_id)
            held = self._analysis_claim(con, game_id)
            if held is not None and held.owner != owner and held.expires > now:
                return held
            con.execute("INSERT INTO analysing (game_id, owner, client, expires, cancelled)"
                        " VALUES (?, ?, ?, ?, FALSE) ON CONFLICT (game_id) DO UPDATE SET"
                        " owner = excluded.owner, client = excluded.client,"
                        " expires = excluded.expires, cancelled = FALSE",
                        (game_id, owner, client, until))
            self._notify(con, "analysis", game_id)
            return AnalysisClaim(owner, client, until)

    def renew_analysis(self, game_id: str, owner: str, until: float) -> AnalysisClaim | None:
        with self._transaction() as con:
            con.execute("UPDATE analysing SET expires = ? WHERE game_id = ? AND owner = ?"
                        " AND NOT cancelled", (until, game_id, owner))
            held = self._analysis_claim(con, game_id)
        return held if held is not None and held.owner == owner else None

    def analysis_claim(self, game_id: str) -> AnalysisClaim | None:
        with self._connect() as con:
            return self._analysis_claim(con, game_id)

    @staticmethod
    def _analysis_claim(con: Any, game_id: str) -> AnalysisClaim | None:
        row = con.execute("SELECT owner, client, expires, cancelled FROM analysing"
                          " WHERE game_id = ?", (game_id,)).fetchone()
        return None if row is None else AnalysisClaim(str(row[0]), str(row[1]),
                                                      float(row[2]), bool(row[3]))

    def cancel_analysis(self, game_id: str, now: float) -> bool:
        with self._transaction() as con:
            done = con.execute("UPDATE analysing SET cancelled = TRUE WHERE game_id = ?"
                               " AND expires > ?", (game_id, now)).rowcount == 1
            if done:
                self._notify(con, "analysis-cancel", game_id)
        return done

    def release_analysis(self, game_id: str, owner: str, cancelled: bool = False) -> None:
        with self._transaction() as con:
            if game_id and cancelled:  # kept, run out and no process's, to say it was
                games = [game_id] if con.execute(
                    "UPDATE analysing SET owner = ?, expires = 0, cancelled = TRUE"
                    " WHERE game_id = ? AND owner = ?",
                    (CANCELLED_RUN, game_id, owner)).rowcount else []
            elif game_id:
                games = [game_id] if con.execute(
                    "DELETE FROM analysing WHERE game_id = ? AND owner = ?",
                    (game_id, owner)).rowcount else []
            else:
                games = [r[0] for r in con.execute("SELECT game_id FROM analysing"
                                                   " WHERE owner = ?", (owner,)).fetchall()]
                con.execute("DELETE FROM analysing WHERE owner = ?", (owner,))
            for gid in games:
                self._notify(con, "analysis", gid)

    def get_analysis(self, game_id: str) -> tuple[str, list[dict[str, Any]]] | None:
        with self._connect() as con:
            row = con.execute("SELECT engine, points FROM analyses WHERE game_id = ?",
                              (game_id,)).fetchone()
        return None if row is None else analysis_from(game_id, row[0], row[1])

    # -- reading ------------------------------------------------------------------------------
    def get(self, game_id: str) -> GameRow | None:
        with self._connect() as con:
            row = con.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                return None
            moves = [m for (m,) in con.execute(
                "SELECT text FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)).fetchall()]
        return row_from(row, moves)

    def list_games(self, limit: int = 200, listed_only: bool = True,
                   ids: Sequence[str] | None = None) -> list[GameSummary]:
        where, args = "", []
        if ids is not None:
            chosen = list(ids)[:MAX_IDS]
            where = f" WHERE g.id IN ({', '.join('?' * len(chosen))})" if chosen else " WHERE FALSE"
            args += chosen
        elif listed_only:
            where = " WHERE g.listed = TRUE"
        return self._summaries(where, args, limit)

    def lobby(self, limit: int = 200, since: float = 0.0) -> list[GameSummary]:
        return self._summaries(" WHERE g.listed = TRUE AND g.result IS NULL"
                               " AND (g.seat1 = ? OR g.seat2 = ?) AND g.created >= ?",
                               [OPEN, OPEN, since], limit, order="created")

    def _summaries(self, where: str, args: list[Any], limit: int,
                   order: Literal["updated", "created"] = "updated") -> list[GameSummary]:
        """``order``: the column, newest first (the lobby by ``created``, so that renaming a
        waiting game does not lift it above newer ones)."""
        # the ply a person paused the agent at: paused still if no move came since
        query = ("SELECT g.*, (SELECT count(*) FROM moves m WHERE m.game_id = g.id) AS n,"
                 " (SELECT t.ply FROM thinking t WHERE t.game_id = g.id AND t.owner = ?)"
                 f" AS paused_at FROM games g{where} ORDER BY g.{order} DESC LIMIT ?")
        with self._connect() as con:
            rows = con.execute(query, (PAUSED, *args, limit)).fetchall()
        out = []
        for row in rows:
            try:
                out.append(summary_from(row, row["n"], row["paused_at"] == row["n"]))
            except StoreError:
                continue  # a damaged row: that game is unavailable, the listing goes on
        return out

    def due(self, now: float, limit: int = 100) -> list[str]:
        with self._connect() as con:
            return [r[0] for r in con.execute(
                "SELECT id FROM games WHERE deadline <= ? AND result IS NULL"
                " ORDER BY deadline LIMIT ?", (now, limit)).fetchall()]


def _seat_column(seat: int) -> int:
    if seat not in (1, 2):
        raise ValueError(f"seat {seat!r}")
    return seat

