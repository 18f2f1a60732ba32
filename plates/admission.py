"""Admitting a visitor's work on a public server: per-client rate limits, byte quotas, and a memory budget.

A public Space assumes a hostile visitor, and a visitor can open as many browser sessions as they like, so a
limit counted per session is no limit: every limit here is counted per **client address** (`client_address`),
and the byte quotas also in total. Each check runs **before** the work is taken and refuses politely with a
`Refused` (a ``ValueError``, so the apps show its words) that says what was refused, the limit, and when to try
again. Widget-free: the explorer (Gradio) and the dashboard (Streamlit) call the same objects.

Memory of the limiters themselves is bounded: each remembers at most ``max_clients`` addresses (the least
recently seen are forgotten first) and only the events inside its window.

>>> starts = RateLimit("quiz starts", 2, 60.0, clock=lambda: 0.0)
>>> starts.take("203.0.113.7"); starts.take("203.0.113.7")
>>> starts.take("203.0.113.7")
Traceback (most recent call last):
...
plates.admission.Refused: too many quiz starts from your address: 2 in the last 1 min; allowed: 2 per 1 min. Please try again in 1 min.
>>> starts.take("198.51.100.2")  # another address has its own allowance
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping

import psutil

__all__ = ["ByteQuota", "MemoryBudget", "RateLimit", "Refused", "Slots", "client_address", "process_rss"]


class Refused(ValueError):
    """Work refused by a limit (rate, quota, capacity or memory); the message says which and when to retry."""


def _minutes(seconds: float) -> str:
    return f"{max(1, math.ceil(seconds / 60))} min"


def client_address(host: str | None, headers: Mapping[str, str] | None = None, *, behind_proxy: bool = False) -> str:
    """The address a visitor's limits are counted under: the connection's ``host``, or, ``behind_proxy`` (a
    hosted Space, whose proxy appends the address it saw), the LAST entry of ``X-Forwarded-For``: the one the
    trusted proxy wrote (earlier entries are whatever the visitor sent, so they never count). Without either,
    "unknown" (all such visitors share one allowance: refusing them together is the safe side).

    >>> client_address("10.0.0.5", {"x-forwarded-for": "1.2.3.4, 203.0.113.9"}, behind_proxy=True)
    '203.0.113.9'
    >>> client_address("10.0.0.5", {"x-forwarded-for": "1.2.3.4"})  # not behind a proxy: the header is ignored
    '10.0.0.5'
    """
    if behind_proxy and headers is not None:
        lowered = {str(k).lower(): v for k, v in headers.items()}
        forwarded = [part.strip() for part in str(lowered.get("x-forwarded-for", "")).split(",") if part.strip()]
        if forwarded:
            return forwarded[-1][:64]
    return (host or "unknown")[:64]


class RateLimit:
    """At most ``per_client`` events of ``what`` per client address in any ``window_s`` seconds (a sliding
    window). `take` records one event or raises `Refused`; nothing is recorded for a refused event."""

    def __init__(self, what: str, per_client: int, window_s: float, *, max_clients: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if isinstance(per_client, bool) or not isinstance(per_client, int) or per_client < 1:
            raise ValueError(f"per_client={per_client!r} is not allowed; allowed: an integer >= 1")
        if not (isinstance(window_s, (int, float)) and math.isfinite(window_s) and window_s > 0):
            raise ValueError(f"window_s={window_s!r} is not allowed; allowed: seconds > 0")
        self.what, self.per_client, self.window_s = what, per_client, float(window_s)
        self.max_clients, self._clock = int(max_clients), clock
        self._events: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, client: str) -> None:
        """Record one event for ``client``, or raise `Refused` when it already had ``per_client`` in the window."""
        now = self._clock()
        with self._lock:
            events = self._events.pop(client, None) or deque()
            while events and now - events[0] >= self.window_s:
                events.popleft()
            self._events[client] = events  # most recently seen last
            if len(events) >= self.per_client:
                wait = self.window_s - (now - events[0])
                raise Refused(f"too many {self.what} from your address: {len(events)} in the last "
                              f"{_minutes(self.window_s)}; allowed: {self.per_client} per {_minutes(self.window_s)}. "
                              f"Please try again in {_minutes(wait)}.")
            events.append(now)
            while len(self._events) > self.max_clients:
                self._events.popitem(last=False)


class ByteQuota:
    """Bytes of ``what`` held at once: at most ``per_client`` per client address and ``total`` for everyone.
    `take` reserves or raises `Refused`; `release` gives bytes back when what they held is deleted."""

    def __init__(self, what: str, per_client: int, total: int) -> None:
        for name, value in (("per_client", per_client), ("total", total)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name}={value!r} is not allowed; allowed: bytes >= 1")
        self.what, self.per_client, self.total = what, per_client, total
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, client: str, nbytes: int) -> None:
        if nbytes < 0:
            raise ValueError(f"nbytes={nbytes!r} is not allowed; allowed: >= 0")
        with self._lock:
            mine, everyone = self._held.get(client, 0), sum(self._held.values())
            if mine + nbytes > self.per_client:
                raise Refused(f"{self.what}: your address holds {mine / 1e6:.1f} MB and this is "
                              f"{nbytes / 1e6:.1f} MB more; allowed: {self.per_client / 1e6:.0f} MB per address at "
                              "a time. Close a tab or wait for older ones to expire, then try again.")
            if everyone + nbytes > self.total:
                raise Refused(f"{self.what}: this server holds {everyone / 1e6:.0f} MB for all visitors; allowed: "
                              f"{self.total / 1e6:.0f} MB. Please try again in a few minutes.")
            self._held[client] = mine + nbytes

    def release(self, client: str, nbytes: int) -> None:
        with self._lock:
            left = self._held.get(client, 0) - nbytes
            if left > 0:
                self._held[client] = left
            else:
                self._held.pop(client, None)

    def held(self, client: str | None = None) -> int:
        """Bytes held by ``client`` (or by everyone)."""
        with self._lock:
            return self._held.get(client, 0) if client is not None else sum(self._held.values())


def process_rss() -> int:
    """This process's resident memory now (bytes; psutil)."""
    return int(psutil.Process(os.getpid()).memory_info().rss)


class MemoryBudget:
    """The server's memory budget: `check` refuses new work while this process's resident memory is over
    ``limit_bytes`` (work already taken goes on; sessions expiring bring it back under)."""

    def __init__(self, limit_bytes: int, *, rss: Callable[[], int] = process_rss) -> None:
        if isinstance(limit_bytes, bool) or not isinstance(limit_bytes, int) or limit_bytes < 1:
            raise ValueError(f"limit_bytes={limit_bytes!r} is not allowed; allowed: bytes >= 1")
        self.limit_bytes, self._rss = limit_bytes, rss

    def check(self, what: str) -> None:
        used = self._rss()
        if used > self.limit_bytes:
            raise Refused(f"this server is busy ({used / 1e6:.0f} MB of its {self.limit_bytes / 1e6:.0f} MB memory "
                          f"budget in use), so it cannot take {what} now. Please try again in a few minutes.")


class Slots:
    """At most ``capacity`` live sessions of ``what`` at once; a session not touched for ``ttl_s`` seconds
    is expired (its ``on_expire`` callback runs, outside the lock). `admit` takes a slot (or raises `Refused`),
    `touch` keeps one alive, `release` frees one (a closed tab)."""

    def __init__(self, what: str, capacity: int, ttl_s: float, *, on_expire: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"capacity={capacity!r} is not allowed; allowed: an integer >= 1")
        if not (isinstance(ttl_s, (int, float)) and math.isfinite(ttl_s) and ttl_s > 0):
            raise ValueError(f"ttl_s={ttl_s!r} is not allowed; allowed: seconds > 0")
        self.what, self.capacity, self.ttl_s = what, capacity, float(ttl_s)
        self._on_expire, self._clock = on_expire, clock
        self._seen: OrderedDict[str, float] = OrderedDict()  # session -> last touched, oldest first
        self._lock = threading.Lock()

    def _expire_locked(self, now: float) -> list[str]:
        gone = []
        while self._seen and now - next(iter(self._seen.values())) >= self.ttl_s:
            gone.append(self._seen.popitem(last=False)[0])
        return gone

    def _expired(self, gone: list[str]) -> None:
        for session in gone:
            if self._on_expire is not None:
                self._on_expire(session)

    def admit(self, session: str) -> None:
        now = self._clock()
        with self._lock:
            gone = self._expire_locked(now)
            if session not in self._seen and len(self._seen) >= self.capacity:
                oldest = next(iter(self._seen.values()))
                wait = self.ttl_s - (now - oldest)
                refused = Refused(f"this server is running {len(self._seen)} {self.what} now, its most at once; "
                                  f"please try again in {_minutes(wait)}.")
            else:
                refused = None
                self._seen.pop(session, None)
                self._seen[session] = now
        self._expired(gone)
        if refused is not None:
            raise refused

    def touch(self, session: str) -> bool:
        """Keep ``session`` alive; False when it has expired (or was never admitted)."""
        now = self._clock()
        with self._lock:
            gone = self._expire_locked(now)
            alive = session in self._seen
            if alive:
                self._seen.move_to_end(session)
                self._seen[session] = now
        self._expired(gone)
        return alive

    def release(self, session: str) -> None:
        with self._lock:
            self._seen.pop(session, None)

    def __len__(self) -> int:
        now = self._clock()
        with self._lock:
            gone = self._expire_locked(now)
            n = len(self._seen)
        self._expired(gone)
        return n
