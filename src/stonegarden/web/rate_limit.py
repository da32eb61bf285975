"""How many new games one client may make: a token bucket per client, holding ``per_hour``
at most and filling again at ``per_hour`` an hour, so that a person never meets it and a
script cannot fill the database and the lists of games (thousands of games in seconds)."""

from __future__ import annotations

import collections
import time

#: clients remembered at once; past that the one seen longest ago is forgotten (it comes
#: back with a full bucket), so that addresses without end cannot grow the server's memory
MOST_CLIENTS = 100_000


class RateLimit:
    """``take(client)`` spends one of the client's games: 0 while it may, else the seconds
    until it may make the next one."""

    def __init__(self, per_hour: int, most_clients: int = MOST_CLIENTS) -> None:
        self.per_hour = per_hour
        self.most_clients = most_clients
        #: client -> (games it may still make, when that was counted), oldest seen first
        self._buckets: collections.OrderedDict[str, tuple[float, float]] = \
            collections.OrderedDict()

    def take(self, client: str, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        rate = self.per_hour / 3600.0  # games a second
        left, at = self._buckets.pop(client, (float(self.per_hour), now))
        left = min(float(self.per_hour), left + (now - at) * rate)
        wait = 0.0 if left >= 1 else (1 - left) / rate
        self._buckets[client] = (left - 1 if not wait else left, now)
        while len(self._buckets) > self.most_clients:
            self._buckets.popitem(last=False)
        return wait

    def give_back(self, client: str) -> None:
        """Return the game ``take`` just spent, for one refused for another reason (a full job
        queue) before anything was made."""
        if client in self._buckets:
            left, at = self._buckets[client]
            self._buckets[client] = (min(float(self.per_hour), left + 1), at)

    def __len__(self) -> int:
        return len(self._buckets)
