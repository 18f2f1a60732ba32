"""Admitting a visitor's work on a public server: per-client rate limits (of events, or of bytes: uploads),
session slots with a time to live, and a memory budget.

A public Space assumes a hostile visitor, and a visitor can open as many browser sessions as they like, so a
limit counted per session is no limit: every limit here is counted per **client address** (`client_address`),
and a rate may also have a total over every address (uploads: bytes per address and in all, per window; the
apps delete uploads after the same window, so the window's bytes bound what is held). Each check runs **before** the work is taken and refuses politely with a
`Refused` (a ``ValueError``, so the apps show its words) that says what was refused, the limit, and when to try
again. Widget-free: the explorer (Gradio) and the dashboard (Streamlit) call the same objects.

Memory of the limiters themselves is bounded: each remembers at most ``max_clients`` addresses (the least
recently seen are forgotten first) and only the events inside its window.

Examples
--------
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
from dataclasses import dataclass, field

import psutil

from plates.validation import check_int, check_number

__all__ = ["MEMORY_BUDGET_BYTES", "MEMORY_BUDGET_ENV", "QUIZ_STORE_SHARE_BYTES",
           "QUIZ_STORE_WINDOW_S", "SESSION_TTL_S", "Admission", "MemoryBudget", "RateLimit", "Refused", "Slots", "UploadGate", "UploadLimits", "client_address", "hosted_space", "memory_budget", "process_rss"]


def hosted_space(environ: Mapping[str, str] | None = None) -> bool:
    """True where the environment says this is a hosted Hugging Face Space (``SPACE_ID`` set, or
    ``SYSTEM=spaces``: both set by the Spaces runtime): public mode whatever the operator set, and client
    addresses from the Space's proxy.

    Parameters
    ----------
    environ : mapping of str to str, optional
        The environment to read; None (the default) reads ``os.environ``.

    Returns
    -------
    bool
        Whether ``SPACE_ID`` is set (not blank) or ``SYSTEM`` is ``spaces``.

    Examples
    --------
    >>> hosted_space({"SPACE_ID": "someone/plates"}), hosted_space({})
    (True, False)
    """
    env = os.environ if environ is None else environ
    return bool(env.get("SPACE_ID", "").strip()) or env.get("SYSTEM", "").strip().lower() == "spaces"


class Refused(ValueError):
    """Work refused by a limit (rate, quota, capacity or memory); the message says which and when to retry."""


def _minutes(seconds: float) -> str:
    """A wait or a window in words: whole minutes, or whole hours from two hours up."""
    if seconds >= 7200:
        return f"{math.ceil(seconds / 3600)} h"
    return f"{max(1, math.ceil(seconds / 60))} min"


def client_address(host: str | None, headers: Mapping[str, str] | None = None, *, behind_proxy: bool = False) -> str:
    """The address a visitor's limits are counted under: the connection's ``host``, or, ``behind_proxy`` (a
    hosted Space, whose proxy appends the address it saw), the LAST entry of ``X-Forwarded-For``: the one the
    trusted proxy wrote (earlier entries are whatever the visitor sent, so they never count). Without either,
    "unknown" (all such visitors share one allowance: refusing them together is the safe side).

    Parameters
    ----------
    host : str or None
        The connection's peer address.
    headers : mapping of str to str, optional
        The request's headers (any case); read only ``behind_proxy``.
    behind_proxy : bool, optional
        Whether a trusted proxy (a hosted Space's) appends the address it saw to ``X-Forwarded-For``.

    Returns
    -------
    str
        The address, cut to 64 characters.

    Examples
    --------
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
    """At most ``per_client`` of ``what`` per client address in any ``window_s`` seconds (a sliding window),
    and at most ``total`` for every address together (None: no total). Each `take` counts ``amount`` (1: an
    event; or bytes, for uploads) or raises `Refused`; nothing is counted for a refused take.

    Parameters
    ----------
    what : str
        What is counted, in the plural, as a refusal names it (``"quiz starts"``).
    per_client : int
        The most per address in any window (>= 1).
    window_s : float
        The sliding window, seconds (> 0).
    total : int or None, optional
        The most for every address together in any window (>= ``per_client``); None: no total.
    unit : str, optional
        ``"bytes"`` to show amounts as MB in refusals; ``""`` (the default) shows counts.
    max_clients : int, optional
        The most addresses remembered; the least recently seen are forgotten beyond it.
    clock : callable, optional
        Seconds now (default ``time.monotonic``); tests pass their own.

    Raises
    ------
    ValueError
        When ``per_client`` is not an integer >= 1, ``total`` not None or an integer >= ``per_client``, or
        ``window_s`` not a finite number of seconds > 0.
    """

    def __init__(self, what: str, per_client: int, window_s: float, *, total: int | None = None,
                 unit: str = "", max_clients: int = 10_000, clock: Callable[[], float] = time.monotonic) -> None:
        check_int("per_client", per_client, 1)
        check_int("total", total, per_client, none_ok=True)
        check_number("window_s", window_s, 0, open=True, note=" (seconds)")
        self.what, self.per_client, self.total, self.unit = what, per_client, total, unit
        self.window_s, self.max_clients, self._clock = float(window_s), int(max_clients), clock
        self._events: OrderedDict[str, deque[tuple[float, int]]] = OrderedDict()
        self._sum: dict[str, int] = {}
        self._lock = threading.Lock()

    def _amount(self, n: int) -> str:
        return f"{n / 1e6:.1f} MB" if self.unit == "bytes" else f"{n}"

    def _expire_locked(self, client: str, now: float) -> deque[tuple[float, int]]:
        events = self._events.pop(client, None) or deque()
        while events and now - events[0][0] >= self.window_s:
            self._sum[client] = self._sum.get(client, 0) - events.popleft()[1]
        if not events:
            self._sum.pop(client, None)
        return events

    def take(self, client: str, amount: int = 1) -> None:
        """Count ``amount`` for ``client``, or raise `Refused` when it would pass ``per_client`` (or ``total``).

        Parameters
        ----------
        client : str
            The sender's address (`client_address`).
        amount : int, optional
            What this take counts: 1 (an event, the default) or a number of bytes.

        Raises
        ------
        Refused
            When the address's window, or every address's, would pass its limit; the message says when to
            try again. Nothing is counted.
        ValueError
            When ``amount`` is not an integer >= 0.
        """
        check_int("amount", amount, 0)
        now, span = self._clock(), _minutes(self.window_s)
        with self._lock:
            for other in list(self._events):  # the total needs every address's window up to date
                if other != client:
                    self._events[other] = self._expire_locked(other, now)
            events = self._expire_locked(client, now)
            self._events[client] = events  # most recently seen last
            mine = self._sum.get(client, 0)
            if mine + amount > self.per_client:
                wait = self.window_s - (now - events[0][0]) if events else self.window_s
                raise Refused(f"too many {self.what} from your address: {self._amount(mine)} in the last {span}; "
                              f"allowed: {self._amount(self.per_client)} per {span}. Please try again in "
                              f"{_minutes(wait)}.")
            everyone = sum(self._sum.values())
            if self.total is not None and everyone + amount > self.total:
                raise Refused(f"too many {self.what} on this server: {self._amount(everyone)} in the last {span} "
                              f"from every visitor; allowed: {self._amount(self.total)}. Please try again in a few "
                              "minutes.")
            events.append((now, amount))
            self._sum[client] = mine + amount
            while len(self._events) > self.max_clients:
                gone, _ = self._events.popitem(last=False)
                self._sum.pop(gone, None)


def process_rss(pid: int | None = None) -> int:
    """Resident memory now (bytes; psutil) of process ``pid`` (default: this one) and all its children: a
    server's worker processes (`plates.workers`) count against its budget.

    Parameters
    ----------
    pid : int or None, optional
        The process; None (the default) is this one.

    Returns
    -------
    int
        Resident set size, bytes, of the process and all its descendants.
    """
    root = psutil.Process(os.getpid() if pid is None else pid)
    total = root.memory_info().rss
    for child in root.children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.NoSuchProcess:  # ended between the listing and the reading: it holds nothing now
            pass
    return int(total)


class MemoryBudget:
    """The server's memory budget: `check` refuses new work while this process's resident memory (its worker
    processes' included: `process_rss`) is over
    ``limit_bytes`` (work already taken goes on; sessions expiring bring it back under).

    Parameters
    ----------
    limit_bytes : int
        The budget, bytes (>= 1).
    rss : callable, optional
        Resident memory now, bytes (default `process_rss`).

    Raises
    ------
    ValueError
        When ``limit_bytes`` is not an integer >= 1.
    """

    def __init__(self, limit_bytes: int, *, rss: Callable[[], int] = process_rss) -> None:
        check_int("limit_bytes", limit_bytes, 1, note=" (bytes)")
        self.limit_bytes, self._rss = limit_bytes, rss

    def check(self, what: str) -> None:
        """Refuse new work while resident memory is over the budget.

        Parameters
        ----------
        what : str
            The work asked for, as the refusal names it (``"a new quiz"``).

        Raises
        ------
        Refused
            When resident memory is over ``limit_bytes``.
        """
        used = self._rss()
        if used > self.limit_bytes:
            raise Refused(f"this server is busy ({used / 1e6:.0f} MB of its {self.limit_bytes / 1e6:.0f} MB memory "
                          f"budget in use), so it cannot take {what} now. Please try again in a few minutes.")


class Slots:
    """At most ``capacity`` live sessions of ``what`` at once; a session not touched for ``ttl_s`` seconds
    is expired (its ``on_expire`` callback runs, outside the lock). `admit` takes a slot (or raises `Refused`),
    `touch` keeps one alive, `release` frees one (a closed tab). ``len()`` is the number of live sessions.

    Parameters
    ----------
    what : str
        What a session is, in the plural, as a refusal names it (``"quizzes"``).
    capacity : int
        The most live sessions at once (>= 1).
    ttl_s : float
        Seconds a session lives untouched (> 0).
    on_expire : callable, optional
        Called with each expired session's id.
    clock : callable, optional
        Seconds now (default ``time.monotonic``).

    Raises
    ------
    ValueError
        When ``capacity`` is not an integer >= 1 or ``ttl_s`` not a finite number of seconds > 0.
    """

    def __init__(self, what: str, capacity: int, ttl_s: float, *, on_expire: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        check_int("capacity", capacity, 1)
        check_number("ttl_s", ttl_s, 0, open=True, note=" (seconds)")
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
        """Take a slot for ``session`` (an admitted one is touched again).

        Parameters
        ----------
        session : str
            The session's id.

        Raises
        ------
        Refused
            When every slot is held by a live session; the message says when one frees up.
        """
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
        """Keep ``session`` alive.

        Parameters
        ----------
        session : str
            The session's id.

        Returns
        -------
        bool
            True when it is live; False when it has expired (or was never admitted).
        """
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
        """Free ``session``'s slot (a closed tab); an unknown session is no error. No ``on_expire`` runs.

        Parameters
        ----------
        session : str
            The session's id.
        """
        with self._lock:
            self._seen.pop(session, None)

    def __len__(self) -> int:
        now = self._clock()
        with self._lock:
            gone = self._expire_locked(now)
            n = len(self._seen)
        self._expired(gone)
        return n


class UploadGate:
    """ASGI middleware in front of an app's upload route (Gradio's ``POST .../upload``): every upload takes
    its declared ``Content-Length`` from ``rate`` (a `RateLimit` in bytes) under the sender's `client_address`
    before a byte is read; a refusal is answered ``429`` with the refusal's words, and an upload without a
    length (chunked) ``411``. Other requests pass untouched. Gradio's own cap is per file
    (``max_file_size``); this one is per address and in total, over the window in which the app keeps files.

    Parameters
    ----------
    app : callable
        The ASGI app behind the gate.
    rate : RateLimit
        The byte allowance uploads take from.
    behind_proxy : bool, optional
        Whether addresses come from a trusted proxy's ``X-Forwarded-For`` (`client_address`).
    path_suffix : str, optional
        The upload route: a ``POST`` whose path ends with it (default ``"/upload"``).
    """

    def __init__(self, app: Callable, *, rate: RateLimit, behind_proxy: bool = False,
                 path_suffix: str = "/upload") -> None:
        self.app, self.rate, self.behind_proxy, self.path_suffix = app, rate, behind_proxy, path_suffix

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST" or \
                not str(scope.get("path", "")).rstrip("/").endswith(self.path_suffix):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = (scope.get("client") or (None,))[0]
        client = client_address(host, headers, behind_proxy=self.behind_proxy)
        length = headers.get("content-length", "")
        if not length.isdigit():
            await _answer(send, 411, "an upload must declare its length (Content-Length)")
            return
        try:
            self.rate.take(client, int(length))
        except Refused as exc:
            await _answer(send, 429, str(exc))
            return
        await self.app(scope, receive, send)


async def _answer(send: Callable, status: int, text: str) -> None:
    body = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


@dataclass(frozen=True)
class UploadLimits:
    """Caps on one visitor's upload set: files, bytes in all, rows in all (from the footers) and row groups
    per file. The defaults fit what a visitor brings to a shared dashboard (an explorer history or a quiz
    download: hundreds of rows; a run of a few thousand). Rows bound memory: 20,000 rows of text cut to
    `plates.results.query.UPLOAD_TEXT_CAPS` cost a page at most ~230 MB (measured: 20,000 rows of 1,000-character
    texts in every column); a larger run is opened with
    `plates dashboard PATH` on one's own machine. `plates.results.uploads.check_uploads` applies them; `plates
    dashboard` gives Streamlit the byte cap (here, so its command line is built without pandas or pyarrow).

    Attributes
    ----------
    max_files : int
        Files per upload set.
    max_bytes : int
        Bytes in all.
    max_rows : int
        Rows in all, from the footers.
    max_row_groups : int
        Row groups per file.
    """

    max_files: int = 20
    max_bytes: int = 50_000_000
    max_rows: int = 20_000
    max_row_groups: int = 1_000


#: The public explorer's memory budget (process RSS): new work is refused above it. A Space's smallest CPU
#: machine has 16 GB; the budget leaves room for a loaded Hugging Face model beside the app. An operator
#: changes it with ``PLATES_MEMORY_BUDGET_MB`` (`memory_budget`).
MEMORY_BUDGET_BYTES = 1_500_000_000
MEMORY_BUDGET_ENV = "PLATES_MEMORY_BUDGET_MB"


def memory_budget(environ: Mapping[str, str] | None = None) -> MemoryBudget:
    """The server's `MemoryBudget`: ``PLATES_MEMORY_BUDGET_MB`` when set, else `MEMORY_BUDGET_BYTES`.

    Parameters
    ----------
    environ : mapping of str to str, optional
        The environment to read; None (the default) reads ``os.environ``.

    Returns
    -------
    MemoryBudget
        The budget, in bytes (1 MB = 10**6 bytes).

    Raises
    ------
    ValueError
        When ``PLATES_MEMORY_BUDGET_MB`` is set to anything but a whole number of MB >= 1.
    """
    env = os.environ if environ is None else environ
    text = env.get(MEMORY_BUDGET_ENV, "").strip()
    if not text:
        return MemoryBudget(MEMORY_BUDGET_BYTES)
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{MEMORY_BUDGET_ENV}={text!r} is not allowed; allowed: a whole number of MB >= 1")
    return MemoryBudget(int(text) * 1_000_000)
#: Seconds a quiz session, a visitor's upload allowance and session state live without use.
SESSION_TTL_S = 1800.0
#: Model answers (one question to one model; a sweep of n points to k models is n x k) per address and from
#: every address together per 10 minutes: 20 full comparisons of 3 models x 12-point sweeps per visitor.
MODEL_ANSWERS_PER_CLIENT, MODEL_ANSWERS_TOTAL = 720, 20_000
#: One address's share of the quiz's answer store per `QUIZ_STORE_WINDOW_S` (a day): 10 MB, about fifteen
#: full 40-image quizzes (one answer is one Parquet part of 16-18 KB), a twentieth of the store's 200 MB cap.
QUIZ_STORE_SHARE_BYTES = 10_000_000
QUIZ_STORE_WINDOW_S = 86_400.0


@dataclass
class Admission:
    """One public app's limits (built per app, never module-wide): the memory budget, quiz starts per address
    (5 per 10 min, 200 in all), live quizzes at once (100, expired after `SESSION_TTL_S` idle), uploaded
    bytes per address (20 MB) and in all (500 MB) per `SESSION_TTL_S` (the app deletes uploads after it), and
    each address's share of the quiz's answer store (`QUIZ_STORE_SHARE_BYTES` per `QUIZ_STORE_WINDOW_S`, counted
    as the stored parts' bytes on disk: one visitor cannot fill `plates.runs.quiz.QuizLimits.max_folder_bytes`),
    and model answers per address (`MODEL_ANSWERS_PER_CLIENT`) and in all per 10 minutes (the explorer's asks,
    sweeps and side-by-side comparisons count one per model per plate).
    ``behind_proxy``: addresses come from the hosted Space's proxy (`client_address`).

    Parameters
    ----------
    behind_proxy : bool, optional
        Whether addresses come from the hosted Space's proxy (`client_address`).
    memory : MemoryBudget, optional
        The memory budget (default `memory_budget`).
    quiz_starts, uploads, quiz_store, model_answers : RateLimit, optional
        Quiz starts, uploaded bytes, stored quiz-answer bytes and model answers, with the defaults above.
    quizzes : Slots, optional
        Live quizzes at once.
    """

    behind_proxy: bool = False
    memory: MemoryBudget = field(default_factory=memory_budget)
    quiz_starts: RateLimit = field(default_factory=lambda: RateLimit("quiz starts", 5, 600.0, total=200))
    quizzes: Slots = field(default_factory=lambda: Slots("quizzes", 100, SESSION_TTL_S))
    uploads: RateLimit = field(default_factory=lambda: RateLimit(
        "uploads", 20_000_000, SESSION_TTL_S, total=500_000_000, unit="bytes"))
    quiz_store: RateLimit = field(default_factory=lambda: RateLimit(
        "stored quiz answers", QUIZ_STORE_SHARE_BYTES, QUIZ_STORE_WINDOW_S, unit="bytes"))
    model_answers: RateLimit = field(default_factory=lambda: RateLimit(
        "model answers", MODEL_ANSWERS_PER_CLIENT, 600.0, total=MODEL_ANSWERS_TOTAL))

    def client(self, request: object) -> str:
        """The address of a Gradio (or Starlette) request's sender.

        Parameters
        ----------
        request : object
            A request with ``client.host`` and ``headers`` (either may be missing).

        Returns
        -------
        str
            `client_address` of them under this app's ``behind_proxy``.
        """
        host = getattr(getattr(request, "client", None), "host", None)
        return client_address(host, dict(getattr(request, "headers", None) or {}), behind_proxy=self.behind_proxy)
