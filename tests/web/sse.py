"""A server-sent-events reader for the tests: counts ``update`` events on a real socket."""

from __future__ import annotations

import http.client
import time


class Events:
    """``GET path`` on 127.0.0.1:``port`` as an event stream, read line by line."""

    def __init__(self, port: int, path: str, source: str = "127.0.0.1") -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30,
                                               source_address=(source, 0))
        self.conn.request("GET", path, headers={"Accept": "text/event-stream"})
        self.response = self.conn.getresponse()
        if self.response.status != 200:
            raise AssertionError(f"{path}: {self.response.status} {self.response.read()!r}")

    def update(self, timeout: float = 15.0) -> int:
        """The version of the next ``update`` event (keep-alive comments skipped).

        Raises:
            TimeoutError: none came within ``timeout`` seconds.
        """
        end = time.monotonic() + timeout
        event = None
        while time.monotonic() < end:
            assert self.conn.sock is not None
            self.conn.sock.settimeout(max(0.1, end - time.monotonic()))
            line = self.response.readline().decode().rstrip("\r\n")
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and event == "update":
                return int(line.split(":", 1)[1])
        raise TimeoutError("no update event")

    def close(self) -> None:
        self.conn.close()
