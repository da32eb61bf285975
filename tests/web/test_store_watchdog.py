"""The bound of a database call (``store/watchdog.py``), on sockets of its own: one thread cuts
off the connection of every call past its deadline, never one whose call has ended, sooner
once the server stops, and a call's deadline counts from when it was asked for."""

from __future__ import annotations

import socket
import threading
import time
from concurrent.futures import wait

from stonegarden.store.watchdog import AskingExecutor, Watchdog, asked_at


def cut_off(sock: socket.socket) -> bool:
    """Whether ``sock``'s reading side was shut down (a read returns at once, empty)."""
    sock.settimeout(0.2)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False


def soon(check) -> bool:
    """Whether ``check()`` holds within 10 s (the watchdog's thread may be slow to wake on a
    loaded machine: a fixed pause raced it)."""
    deadline = time.monotonic() + 10
    while not check() and time.monotonic() < deadline:
        time.sleep(0.02)
    return check()


def test_one_thread_cuts_off_the_calls_past_their_deadline_and_no_other():
    dog = Watchdog("test-watchdog")
    pairs = [socket.socketpair() for _ in range(3)]
    try:
        # counted by name: other tests' threads in this process may end meanwhile
        assert not [t for t in threading.enumerate() if t.name == "test-watchdog"]
        # seconds, not tenths: a loaded machine may pause this thread for a tenth between the
        # ended call's start and its end, past a deadline of 0.2 s
        with dog.call(1.0) as late, dog.call(1.0) as hurried, dog.call(60) as waiting:
            dog.watch(late, pairs[0][0])
            dog.watch(hurried, pairs[1][0])
            with dog.call(0.8) as ended:
                dog.watch(ended, pairs[2][0])
            assert soon(lambda: late.cut)  # past its deadline: past the ended call's too
            # one thread, for every call
            assert [t.name for t in threading.enumerate()].count("test-watchdog") == 1
            assert cut_off(pairs[0][0]) and not late.hurried
            assert not ended.cut and not cut_off(pairs[2][0])  # its connection is another's now
            assert not waiting.cut
    finally:
        dog.close()
        for a, b in pairs:
            a.close()
            b.close()


def test_a_server_stopping_hurries_the_calls_under_way_and_to_come():
    dog = Watchdog("test-watchdog")
    a, b = socket.socketpair()
    try:
        with dog.call(60) as under_way:
            dog.watch(under_way, a)
            dog.hurry(0.2)
            with dog.call(60) as to_come:
                assert to_come.hurried and to_come.left() < 0.3
            assert soon(lambda: under_way.cut)
            assert under_way.hurried and cut_off(a)
    finally:
        dog.close()
        a.close()
        b.close()


def test_a_call_counts_its_wait_for_a_thread():
    pool = AskingExecutor(max_workers=1)
    try:
        busy = pool.submit(time.sleep, 0.5)
        asked = time.monotonic()
        first_and_later = pool.submit(lambda: (asked_at(), asked_at(), time.monotonic()))
        wait([busy, first_and_later])
        first, later, now = first_and_later.result()
        # when it was submitted, not when the thread took it (0.5 s later; a loaded machine
        # may pause this thread for a tenth of a second in between)
        assert first - asked < 0.3
        assert now - later < 0.3  # a later call of the same work: from its own start
        assert asked_at() >= now  # in a thread of no such pool: now
    finally:
        pool.shutdown()
