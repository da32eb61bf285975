"""Both stores, SQLite and a real PostgreSQL server (Debian's package, started by the tests),
through the same interface: moves, stale writes, joining an open seat once, withdrawing,
flagging once, rematches, the lobby, downtime, and PostgreSQL's own parts (concurrent
migrations under an advisory lock, change notification, refusals at the start)."""

from __future__ import annotations

import json
import math
import threading
import time
from pathlib import Path

import pytest

from stonegarden.errors import StoreError
from stonegarden.store import SCHEMA_VERSION, AnalysisClaim, NewGame, StaleError, open_store


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def target(request, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "games.db")
    return request.getfixturevalue("pg_database")


@pytest.fixture
def store(target: str):
    s = open_store(target)
    yield s
    s.close()


def new(gid: str, seats=("human", "open"), listed=True, clock=None, deadline=None,
        names_given: bool = True) -> NewGame:
    return NewGame(gid, "freego", {"size": 5}, seats, (f"{gid}-k1", f"{gid}-k2"),
                   listed=listed, names=("Ann" if names_given else None, None), to_move=1,
                   clock=clock, deadline=deadline)


def test_moves_are_appended_in_order_and_a_stale_write_is_refused(store):
    store.create_game(new("g1", ("human", "human")))
    store.append_move("g1", 0, "C3", None, to_move=2)
    with pytest.raises(StaleError):
        store.append_move("g1", 0, "D4", None)
    store.append_move("g1", 1, "D4", None, to_move=1)
    row = store.get("g1")
    assert row.moves == ("C3", "D4") and row.to_move == 1 and row.names == ("Ann", None)
    store.truncate("g1", 1, 2, None, ["D4"], to_move=2)
    assert store.get("g1").moves == ("C3",) and store.get("g1").redo == ("D4",)


def test_a_copy_with_the_right_count_but_another_line_is_refused(store):
    """After an undo and new moves elsewhere the count can match again: a copy's write is
    checked against the moves it holds, not only their number."""
    store.create_game(new("g7", ("human", "human")))
    store.append_move("g7", 0, "C3", None, line=())
    store.append_move("g7", 1, "D4", None, line=("C3",))
    stale = ("C3", "D4")  # another process's copy, before the undo below
    store.truncate("g7", 0, 2, None, [], line=stale)
    store.append_move("g7", 0, "B2", None, line=())
    store.append_move("g7", 1, "D4", None, line=("B2",))
    with pytest.raises(StaleError, match="other moves"):
        store.append_move("g7", 2, "E5", None, line=stale)
    with pytest.raises(StaleError, match="other moves"):
        store.truncate("g7", 1, 2, None, [], line=stale)
    assert store.get("g7").moves == ("B2", "D4")
    store.append_move("g7", 2, "E5", None, line=("B2", "D4"))
    assert store.get("g7").moves == ("B2", "D4", "E5")


def test_an_analysis_is_stored_only_for_the_moves_it_analysed_and_an_undo_trims_it(store):
    """A store of the analysis landing after an undo (in this process or another) would keep
    points of positions no longer played: it is refused, and the undo drops the points past
    the moves it keeps with them."""
    store.create_game(new("g9", ("human", "human")))
    for ply, move in enumerate(("C3", "D4", "B2")):
        store.append_move("g9", ply, move, None)
    points = [{"ply": p, "p1_win": 0.5, "best_move": "C3"} for p in range(4)]
    store.put_analysis("g9", "mcts", points, line=("C3", "D4", "B2"))
    store.truncate("g9", 1, 3, None, ["D4", "B2"])
    assert [p["ply"] for p in store.get_analysis("g9")[1]] == [0, 1]
    with pytest.raises(StaleError):  # the moves it analysed were taken back meanwhile
        store.put_analysis("g9", "mcts", points, line=("C3", "D4", "B2"))
    store.append_move("g9", 1, "E5", None)
    with pytest.raises(StaleError):  # as many moves again, but others
        store.put_analysis("g9", "mcts", points[:3], line=("C3", "D4"))
    assert [p["ply"] for p in store.get_analysis("g9")[1]] == [0, 1]
    store.put_analysis("g9", "mcts", points[:3], line=("C3", "E5"))
    assert [p["ply"] for p in store.get_analysis("g9")[1]] == [0, 1, 2]


def test_an_open_seat_is_joined_once_and_only_an_unjoined_game_is_withdrawn(store):
    store.create_game(new("g2"))
    assert [g.id for g in store.lobby()] == ["g2"]
    assert store.join("g2", 2, "Bo") is True
    assert store.join("g2", 2, "Cy") is False
    row = store.get("g2")
    assert row.seats == ("human", "human") and row.names == ("Ann", "Bo")
    assert store.lobby() == []
    assert store.withdraw("g2") is False
    store.create_game(new("g3"))
    assert store.withdraw("g3") is True
    assert store.get("g3") is None


def test_a_seat_is_named_once_and_only_while_its_game_goes_on(store):
    """Two server processes naming one seat at once: the second write is refused, not
    written over the first, which the pages already show."""
    store.create_game(new("g8", ("human", "human")))
    assert store.set_name("g8", 2, "Bo") is True
    assert store.set_name("g8", 2, "Cy") is False
    # the same name sent again (through another server process) is the name kept
    assert store.set_name("g8", 2, "Bo") is True
    assert store.set_name("g8", 1, "Di") is False  # named when the game was made
    store.create_game(new("g9", ("human", "human"), names_given=False))
    assert store.flag("g9", 0, {"winner": 1, "reason": "resign", "scores": None}, None)
    assert store.set_name("g9", 2, "Bo") is False
    assert store.get("g8").names == ("Ann", "Bo") and store.get("g9").names == (None, None)


def test_a_private_open_game_is_not_in_the_lobby(store):
    store.create_game(new("g4", listed=False))
    assert store.lobby() == []
    assert store.join("g4", 2, "Bo") is True


def test_a_join_can_start_the_first_turn_and_the_lobby_leaves_out_old_games(store):
    clock = {"spec": {"initial": 60, "increment": 0}, "left": [60, 60], "running": None,
             "since": 0.0}
    store.create_game(new("j1", clock=clock))
    assert [g.id for g in store.lobby(since=time.time() - 60)] == ["j1"]
    assert store.lobby(since=time.time() + 60) == []  # made before: no longer listed
    started = {**clock, "since": 500.0}
    assert store.join("j1", 2, "Bo", started, 560.0) is True
    row = store.get("j1")
    assert row.clock == started and row.deadline == 560.0
    assert store.due(561.0) == ["j1"] and store.due(559.0) == []


def test_a_game_flags_once_and_no_move_is_stored_after(store):
    clock = {"spec": {"initial": 60, "increment": 0}, "left": [60, 60], "running": 1,
             "since": 100.0}
    store.create_game(new("g5", ("human", "human"), clock=clock, deadline=160.0))
    assert store.due(159.0) == []
    assert store.due(161.0) == ["g5"]
    result = {"winner": 2, "reason": "time", "scores": None}
    assert store.flag("g5", 0, result, clock) is True
    assert store.flag("g5", 0, result, clock) is False
    assert store.due(10**9) == []
    with pytest.raises(StaleError):
        store.append_move("g5", 0, "C3", None)
    assert store.get("g5").result == result


def test_a_flag_after_a_move_it_did_not_see_is_refused(store):
    store.create_game(new("g6", ("human", "human")))
    store.append_move("g6", 0, "C3", None)
    assert store.flag("g6", 0, {"winner": 1, "reason": "time"}, {}) is False
    assert store.get("g6").result is None


def test_a_clock_is_set_only_on_the_position_and_unfinished_game_seen(store):
    clock = {"spec": {"initial": 60, "increment": 0}, "left": [60, 60], "running": None,
             "since": 5.0, "present": [True, False]}
    store.create_game(new("g9", ("human", "human")))
    assert store.set_clock("g9", 0, clock, 65.0) is True
    row = store.get("g9")
    assert row.clock == clock and row.deadline == 65.0 and store.due(70.0) == ["g9"]
    store.append_move("g9", 0, "C3", None)
    assert store.set_clock("g9", 0, {**clock, "since": 9.0}, 69.0) is False  # moved on
    assert store.flag("g9", 1, {"winner": 1, "reason": "resign"}, None)
    assert store.set_clock("g9", 1, clock, 65.0) is False  # over
    assert store.get("g9").deadline is None


def test_the_first_rematch_offered_is_the_one_kept(store):
    store.create_game(new("g7", ("human", "human")))
    first = store.offer_rematch("g7", new("r1", ("human", "human")))
    second = store.offer_rematch("g7", new("r2", ("human", "human")))
    assert first == second == "r1"
    assert store.get("g7").rematch == "r1" and store.get("r2") is None


def test_an_aborted_rematch_is_replaced_once(store):
    store.create_game(new("g8", ("human", "human")))
    assert store.offer_rematch("g8", new("r1", ("human", "human"))) == "r1"
    # r1 was aborted: two requests replace it, and the first one's is kept
    assert store.offer_rematch("g8", new("r2", ("human", "human")), replacing="r1") == "r2"
    assert store.offer_rematch("g8", new("r3", ("human", "human")), replacing="r1") == "r2"
    assert store.get("g8").rematch == "r2" and store.get("r3") is None


def test_downtime_moves_running_clocks_on_once(store):
    clock = {"spec": {"initial": 60, "increment": 0}, "left": [60, 60], "running": 1,
             "since": 1000.0}
    store.create_game(new("g8", ("human", "human"), clock=clock, deadline=1060.0))
    assert store.heartbeat(1000.0, grace=5) == 0.0
    assert store.heartbeat(1002.0, grace=5) == 0.0  # up all along
    assert store.heartbeat(1302.0, grace=5) == 300.0  # no server for 300 s
    row = store.get("g8")
    assert row.clock["since"] == 1300.0 and row.deadline == 1360.0
    assert store.heartbeat(1303.0, grace=5) == 0.0


def test_summaries_carry_names_turn_and_clock(store):
    clock = {"spec": {"days_per_move": 2}, "left": [1, 1], "running": None, "since": 0.0}
    store.create_game(new("g9", clock=clock))
    (summary,) = store.list_games(ids=["g9"])
    shown = summary.to_json()
    assert shown["names"] == {"1": "Ann", "2": None} and shown["to_move"] == 1
    assert shown["clock"] == {"days_per_move": 2} and shown["seats"] == ["human", "open"]


def test_one_process_at_a_time_thinks_for_a_position(store):
    """A claim holds its position until it runs out; the holder may renew it, a new position
    (a move, an undo) voids it, and a game that moved on or is over is claimed by no one."""
    store.create_game(new("t1", ("human", "mcts")))
    store.append_move("t1", 0, "C3", None, to_move=2)
    assert store.claim_thinking("t1", 1, "A", 100.0, 140.0) == (True, 140.0)
    assert store.claim_thinking("t1", 1, "B", 120.0, 160.0) == (False, 140.0)
    assert store.claim_thinking("t1", 1, "A", 120.0, 160.0) == (True, 160.0)
    assert store.claim_thinking("t1", 1, "B", 161.0, 201.0) == (True, 201.0)  # ran out
    assert store.claim_thinking("t1", 0, "A", 170.0, 210.0)[0] is False  # moved on
    store.append_move("t1", 1, "D4", None, to_move=1)
    store.append_move("t1", 2, "E5", None, to_move=2)
    assert store.claim_thinking("t1", 3, "A", 170.0, 210.0) == (True, 210.0)
    store.append_move("t1", 3, "B2", {"winner": 2}, to_move=None)
    assert store.claim_thinking("t1", 4, "A", 170.0, 210.0)[0] is False  # over


def test_a_claim_to_think_goes_with_its_move_and_its_game(tmp_path: Path):
    """A claim (or a pause) is for one position: once its move is played, or the game is
    over on time, no row of it stays, else the table kept one for every game an agent ever
    played, for as long as the server ran."""
    import sqlite3

    db = tmp_path / "games.db"
    store = open_store(str(db))

    def claims() -> int:
        con = sqlite3.connect(db)
        try:
            return int(con.execute("SELECT count(*) FROM thinking").fetchone()[0])
        finally:
            con.close()

    try:
        for n in range(5):
            gid = f"c{n}"
            store.create_game(new(gid, ("human", "mcts")))
            store.append_move(gid, 0, "C3", None, to_move=2)
            assert store.claim_thinking(gid, 1, "A", 100.0, 140.0)[0]
            assert claims() == 1
            if n % 2:
                store.cancel_thinking(gid, 1)  # paused, then resigned
                store.append_move(gid, 1, "resign", {"winner": 2}, to_move=None)
            elif n == 2:
                assert store.flag(gid, 1, {"winner": 1, "reason": "time"}, None)
            else:
                store.append_move(gid, 1, "D4", None, to_move=1)
            assert claims() == 0
    finally:
        store.close()


def test_an_undo_voids_the_claim_so_the_same_count_is_claimed_afresh(store):
    """After an undo and a new move the count matches the old claim's again, on another
    line of moves: the process that claimed the old line must not hold the new one back."""
    store.create_game(new("t5", ("human", "mcts")))
    store.append_move("t5", 0, "C3", None, to_move=2)
    assert store.claim_thinking("t5", 1, "A", 100.0, 140.0)[0]
    store.truncate("t5", 0, 1, None, ["C3"], to_move=1)
    store.append_move("t5", 0, "D4", None, to_move=2)
    assert store.claim_thinking("t5", 1, "B", 101.0, 141.0) == (True, 141.0)


def test_a_cancelled_claim_pauses_the_position_until_a_person_resumes(store):
    """No process thinks there, however long after, until one is asked to let the agent
    move; an undo ends the pause with the position."""
    store.create_game(new("t6", ("human", "mcts")))
    store.append_move("t6", 0, "C3", None, to_move=2)
    assert store.claim_thinking("t6", 1, "A", 100.0, 140.0)[0]
    store.cancel_thinking("t6", 1)
    assert store.claim_thinking("t6", 1, "A", 101.0, 141.0) == (False, math.inf)
    assert store.claim_thinking("t6", 1, "B", 1e9, 1e9 + 40) == (False, math.inf)
    assert store.claim_thinking("t6", 1, "B", 101.0, 141.0, resume=True) == (True, 141.0)
    assert store.claim_thinking("t6", 1, "A", 102.0, 142.0) == (False, 141.0)
    store.cancel_thinking("t6", 1)
    store.truncate("t6", 0, 1, None, ["C3"], to_move=1)
    store.append_move("t6", 0, "C3", None, to_move=2)
    assert store.claim_thinking("t6", 1, "A", 103.0, 143.0) == (True, 143.0)


def test_a_listing_says_which_games_a_person_paused(store):
    """"My games" said "Their turn" of a computer a person had paused, which waits for them."""
    store.create_game(new("p1", ("human", "mcts")))
    store.append_move("p1", 0, "C3", None, to_move=2)
    assert store.claim_thinking("p1", 1, "A", 100.0, 140.0)[0]
    assert [g.paused for g in store.list_games(ids=["p1"])] == [False]  # thinking
    store.cancel_thinking("p1", 1)
    assert [g.to_json()["paused"] for g in store.list_games(ids=["p1"])] == [True]
    assert store.claim_thinking("p1", 1, "B", 101.0, 141.0, resume=True)[0]
    assert [g.paused for g in store.list_games(ids=["p1"])] == [False]  # let move again
    store.cancel_thinking("p1", 1)
    store.truncate("p1", 0, 1, None, ["C3"], to_move=1)  # an undo ends the pause
    assert [g.paused for g in store.list_games(ids=["p1"])] == [False]


def test_a_cancel_after_the_agent_moved_pauses_nothing(store):
    store.create_game(new("t7", ("human", "mcts")))
    store.append_move("t7", 0, "C3", None, to_move=2)
    store.append_move("t7", 1, "D4", None, to_move=1)
    store.cancel_thinking("t7", 1)  # the move was written first
    store.append_move("t7", 2, "E5", None, to_move=2)
    assert store.claim_thinking("t7", 3, "A", 100.0, 140.0) == (True, 140.0)


def test_a_released_claim_lets_another_process_think_at_once(store):
    store.create_game(new("t2", ("human", "mcts")))
    store.create_game(new("t3", ("human", "mcts")))
    store.append_move("t2", 0, "C3", None, to_move=2)
    assert store.claim_thinking("t2", 1, "A", 100.0, 140.0)[0]
    assert store.claim_thinking("t3", 0, "B", 100.0, 140.0)[0]
    store.release_thinking("A")
    assert store.claim_thinking("t2", 1, "B", 101.0, 141.0) == (True, 141.0)
    assert store.claim_thinking("t3", 0, "A", 101.0, 141.0) == (False, 140.0)  # B's stays


def test_one_process_at_a_time_runs_a_games_analysis(store):
    """A claim on the analysis holds until it runs out unless its owner renews it; a cancel
    marks it (its owner's renewal then fails), and a release lets another process claim it."""
    store.create_game(new("a1", ("human", "human")))
    store.create_game(new("a2", ("human", "human")))
    assert store.claim_analysis("a1", "A", "10.0.0.1", 100.0, 120.0) == AnalysisClaim(
        "A", "10.0.0.1", 120.0)
    held = store.claim_analysis("a1", "B", "10.0.0.2", 110.0, 130.0)
    assert held == AnalysisClaim("A", "10.0.0.1", 120.0)  # A's: B shows it running
    assert store.renew_analysis("a1", "A", 140.0) == AnalysisClaim("A", "10.0.0.1", 140.0)
    assert store.renew_analysis("a1", "B", 150.0) is None  # not B's to renew
    assert store.analysis_claim("a1") == AnalysisClaim("A", "10.0.0.1", 140.0)
    assert store.claim_analysis("a1", "B", "10.0.0.2", 141.0, 161.0).owner == "B"  # ran out
    assert store.cancel_analysis("a1", 150.0)
    assert store.renew_analysis("a1", "B", 170.0) == AnalysisClaim("B", "10.0.0.2", 161.0,
                                                                    cancelled=True)
    assert not store.cancel_analysis("a2", 150.0)  # none runs: nothing to cancel
    assert not store.cancel_analysis("a1", 200.0)  # run out: nothing to cancel
    store.release_analysis("a1", "A")  # not A's: stays
    assert store.analysis_claim("a1") is not None
    store.release_analysis("a1", "B")
    assert store.analysis_claim("a1") is None
    # asked for again: a fresh claim, not cancelled
    assert store.claim_analysis("a1", "A", "x", 300.0, 320.0) == AnalysisClaim("A", "x", 320.0)
    assert store.claim_analysis("a2", "A", "x", 300.0, 320.0).owner == "A"
    store.release_analysis("", "A")  # a server stopping gives up all its claims
    assert store.analysis_claim("a1") is None and store.analysis_claim("a2") is None


def test_a_sqlite_file_drops_the_analysis_claims_of_the_process_that_served_it(tmp_path):
    path = tmp_path / "g.db"
    first = open_store(str(path))
    first.create_game(new("a3", ("human", "human")))
    first.claim_analysis("a3", "A", "x", 100.0, 1e12)
    first.close()
    again = open_store(str(path))  # one process a file: A was killed before it gave it up
    assert again.analysis_claim("a3") is None


def test_postgresql_migrates_once_when_servers_start_together(pg_database):
    errors: list[BaseException] = []
    stores = []

    def start() -> None:
        try:
            stores.append(open_store(pg_database))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == [] and len(stores) == 4
    import psycopg

    with psycopg.connect(pg_database) as con:
        versions = [v for (v,) in con.execute("SELECT version FROM schema_migrations")]
    assert sorted(versions) == list(range(1, SCHEMA_VERSION + 1))
    for s in stores:
        s.close()


def listening(dsn: str) -> bool:
    """Whether a session of this database has run its ``LISTEN`` and waits for changes."""
    import psycopg

    with psycopg.connect(dsn) as con:
        row = con.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                          "current_database() AND state = 'idle' AND query LIKE 'LISTEN %'"
                          ).fetchone()
    return row is not None and row[0] > 0


def test_postgresql_tells_the_other_processes_of_a_change(pg_database):
    a, b = open_store(pg_database), open_store(pg_database)
    heard: list[tuple[str, str]] = []
    got = threading.Event()

    def on_change(what: str, gid: str) -> None:
        heard.append((what, gid))
        got.set()

    b.listen(on_change)
    # the listener's thread has run its LISTEN: a change made before is not heard (a fixed
    # pause raced a slow connection)
    for _ in range(200):
        if listening(pg_database):
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the listener never ran its LISTEN")
    a.create_game(new("n1"))
    assert got.wait(10)
    got.clear()
    a.join("n1", 2, "Bo")
    assert got.wait(10)
    got.clear()
    a.create_game(new("n3", listed=False))  # a private game: no lobby shows it
    assert got.wait(10)
    got.clear()
    b.create_game(new("n2"))  # its own change is not reported back to it
    # notifications come in the order of their commits: once a later change of the other
    # process is heard, n2's would have been (a fixed pause could end before it came)
    a.create_game(new("n4", listed=False))
    assert got.wait(10)
    assert heard == [("lobby", "n1"), ("join", "n1"), ("create", "n3"), ("create", "n4")]
    a.close()
    b.close()


@pytest.mark.parametrize("dsn, words", [
    ("mysql://u:secret@h/db", "unknown scheme 'mysql'"),
    ("postgresql://u:secret@127.0.0.1:1/db", "127.0.0.1"),
])
def test_a_db_that_cannot_be_served_is_refused_in_one_line(dsn, words):
    with pytest.raises(StoreError) as err:
        open_store(dsn)
    message = str(err.value)
    assert words in message and "\n" not in message
    assert "secret" not in message  # the password is never shown


def test_a_postgresql_database_of_another_program_is_not_touched(pg_database):
    import psycopg

    with psycopg.connect(pg_database, autocommit=True) as con:
        con.execute("CREATE TABLE games (id TEXT)")
    with pytest.raises(StoreError, match="not a stonegarden database"):
        open_store(pg_database)


def test_a_damaged_row_is_left_out_of_postgresql_listings(pg_database):
    store = open_store(pg_database)
    store.create_game(new("ok"))
    store.create_game(new("bad"))
    import psycopg

    with psycopg.connect(pg_database, autocommit=True) as con:
        con.execute("UPDATE games SET params = %s WHERE id = 'bad'", (json.dumps([1]),))
    assert [g.id for g in store.lobby()] == ["ok"]
    with pytest.raises(StoreError, match="'bad' is unavailable"):
        store.get("bad")
    store.close()


def test_a_sqlite_file_opened_again_forgets_a_killed_servers_claims(tmp_path):
    """One server a file: its claims outlive it only when it was killed, and would hold its
    agents back for the claim's length after the restart."""
    path = tmp_path / "games.db"
    store = open_store(str(path))
    store.create_game(new("t4", ("mcts", "human")))
    assert store.claim_thinking("t4", 0, "killed", 100.0, 1e12)[0]
    store.close()
    again = open_store(str(path))
    assert again.claim_thinking("t4", 0, "restarted", 101.0, 141.0) == (True, 141.0)
    again.close()


def test_a_sqlite_file_opened_again_keeps_a_persons_pause(tmp_path):
    path = tmp_path / "games.db"
    store = open_store(str(path))
    store.create_game(new("t8", ("mcts", "human")))
    store.cancel_thinking("t8", 0)
    store.close()
    again = open_store(str(path))
    assert again.claim_thinking("t8", 0, "restarted", 101.0, 141.0) == (False, math.inf)
    again.close()


def test_an_uploaded_records_time_control_is_stored_apart_from_the_clock(store):
    """Schema version 7: the time control a record was played under, which no clock runs."""
    spec = {"initial": 600, "increment": 5}
    store.create_game(NewGame("u1", "freego", {"size": 5}, ("human", "human"), ("k1", "k2"),
                              moves=("C3",), time_control=spec))
    store.create_game(new("u2", ("human", "human")))
    assert store.get("u1").time_control == spec and store.get("u1").clock is None
    assert store.get("u2").time_control is None


def test_a_cancelled_run_given_up_says_so_until_the_analysis_is_claimed_again(store):
    """The claim a cancelled run gives up stays, no process's and run out, so every process
    reads that it was cancelled; it cancels nothing more, and asking again claims it afresh."""
    store.create_game(new("c1", ("human", "human")))
    store.claim_analysis("c1", "A", "x", 100.0, 120.0)
    store.release_analysis("c1", "B", cancelled=True)  # not B's: nothing changes
    assert store.analysis_claim("c1") == AnalysisClaim("A", "x", 120.0)
    store.release_analysis("c1", "A", cancelled=True)
    gone = store.analysis_claim("c1")
    assert gone is not None and gone.ended_cancelled and gone.cancelled and gone.expires <= 100
    assert not store.cancel_analysis("c1", 101.0)
    assert store.renew_analysis("c1", "A", 140.0) is None
    store.release_analysis("", "A")  # a server stopping leaves it
    assert store.analysis_claim("c1") == gone
    again = store.claim_analysis("c1", "B", "y", 101.0, 121.0)
    assert again == AnalysisClaim("B", "y", 121.0) and not again.ended_cancelled
