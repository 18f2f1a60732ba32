"""A small pool of warm worker processes for a server's CPU-bound requests (the explorer's renders and answers).

Threads of one Python process share its GIL: two Gradio threads rendering plates ran at 1.36x the rate of one.
A `WorkerPool` runs each call in one of ``workers`` *spawned* processes (a fresh interpreter: no copy of the
server's threads, locks or sockets), started together and warmed once (``warm``: imports, fonts, caches), so
calls run at once up to the cores. The pool is bounded: at most ``max_pending`` calls wait or run at once; one
more is refused (`plates.admission.Refused`, whose words say so). A worker that dies (killed, out of memory)
breaks the executor: the call that saw it fails with a ``RuntimeError`` saying so, and the pool starts fresh
workers for the next call. `close` (also run at interpreter exit) stops every worker; a worker whose parent
died without closing it (SIGKILL) notices within a second and exits, so no process outlives the server.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
import os
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool

import psutil

from plates.admission import Refused
from plates.validation import check_int, check_number

__all__ = ["WorkerPool"]

#: Seconds between a worker's checks that the process which started it is still its parent.
PARENT_POLL_S = 0.5


def _watch_parent(parent: int) -> None:
    """Exit this worker at once when ``parent`` is no longer its parent (it died: the worker was re-parented)."""
    while True:
        time.sleep(PARENT_POLL_S)
        if os.getppid() != parent:
            os._exit(0)


def _init_worker(parent: int, warm: Callable[[], object] | None) -> None:
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="parent-watch").start()
    if warm is not None:
        warm()


def _shutdown(box: list) -> None:
    """Stop the executor in ``box`` (the pool's current one), cancelling calls not started."""
    executor = box[0]
    if executor is not None:
        box[0] = None
        executor.shutdown(wait=True, cancel_futures=True)


class WorkerPool:
    """``workers`` warm spawned processes (module docstring); `call` runs a picklable top-level function in one
    and returns its (picklable) result. ``warm``: a picklable function each worker runs once when it starts.
    ``max_pending`` (default ``4 * workers``): calls waiting or running at once; ``what``: the calls' name in
    refusals and errors.

    Parameters
    ----------
    workers : int
        Processes (>= 1).
    warm : callable, optional
        Run once by each worker when it starts.
    max_pending : int, optional
        Calls waiting or running at once (>= 1).
    what : str, optional
        The calls' name in messages.

    Raises
    ------
    ValueError
        For ``workers`` or ``max_pending`` under 1.
    """

    def __init__(self, workers: int, *, warm: Callable[[], object] | None = None, max_pending: int | None = None,
                 what: str = "tasks") -> None:
        check_int("workers", workers, 1)
        max_pending = check_int("max_pending", 4 * workers if max_pending is None else max_pending, 1)
        self.workers, self.max_pending, self.what, self._warm = workers, max_pending, what, warm
        self.restarts = 0  # times dead workers were replaced
        self.calls = 0  # calls handed to a worker so far (refused ones not counted)
        self._pending = threading.BoundedSemaphore(max_pending)
        self._lock = threading.Lock()
        self._box: list = [self._start()]
        self._finalizer = weakref.finalize(self, _shutdown, self._box)  # also at interpreter exit

    def _start(self) -> cf.ProcessPoolExecutor:
        executor = cf.ProcessPoolExecutor(self.workers, mp_context=mp.get_context("spawn"),
                                          initializer=_init_worker, initargs=(os.getpid(), self._warm))
        # a spawned executor starts a process per waiting call: start them all now; each answers once warm
        self._started = [executor.submit(os.getpid) for _ in range(self.workers)]
        return executor

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until every worker has started and warmed (True), or ``timeout`` seconds have passed (False).

        Parameters
        ----------
        timeout : float or None, optional
            Seconds; None waits as long as it takes.

        Returns
        -------
        bool
            Whether every worker is ready.
        """
        done, _ = cf.wait(self._started, timeout=timeout)
        return len(done) == len(self._started)

    def call(self, fn: Callable, *args, timeout: float | None = None):
        """``fn(*args)`` in a worker; its result, or its exception raised here. `Refused` when ``max_pending``
        calls are already waiting or running; ``RuntimeError`` when the pool is closed or the worker died.

        Parameters
        ----------
        fn : callable
            A picklable top-level function.
        *args
            Its picklable arguments.
        timeout : float or None, optional
            Seconds to wait for the result (> 0); None: no limit.

        Returns
        -------
        object
            ``fn``'s result.

        Raises
        ------
        plates.admission.Refused
            When ``max_pending`` calls are already waiting or running.
        RuntimeError
            When the pool is closed or the worker died.
        ValueError
            For a ``timeout`` that is not None or > 0.
        """
        check_number("timeout", timeout, 0, open=True, none_ok=True, note=" (seconds)")
        if not self._pending.acquire(blocking=False):
            raise Refused(f"this server is busy: {self.max_pending} {self.what} are waiting or running, its most "
                          "at once. Please try again in a few seconds.")
        try:
            with self._lock:
                executor = self._box[0]
                self.calls += executor is not None
            if executor is None:
                raise RuntimeError(f"the {self.what} pool is closed")
            try:
                return executor.submit(fn, *args).result(timeout)
            except BrokenProcessPool as exc:
                self._replace(executor)
                raise RuntimeError(f"a worker process died during one of the {self.what} (killed, or out of "
                                   "memory); fresh workers have started: please try again") from exc
        finally:
            self._pending.release()

    def _replace(self, broken: cf.ProcessPoolExecutor) -> None:
        """Start fresh workers in place of ``broken`` (once, however many calls saw it break)."""
        with self._lock:
            if self._box[0] is not broken:
                return
            self._box[0] = self._start()
            self.restarts += 1
        broken.shutdown(wait=False, cancel_futures=True)

    def pids(self) -> list[int]:
        """The worker processes' ids now (those started so far)."""
        with self._lock:
            executor = self._box[0]
        return sorted(getattr(executor, "_processes", None) or {}) if executor is not None else []

    def rss(self) -> int:
        """The workers' resident memory together (bytes; psutil), those still alive."""
        total = 0
        for pid in self.pids():
            try:
                total += psutil.Process(pid).memory_info().rss
            except psutil.Error:
                pass
        return total

    def close(self) -> None:
        """Stop every worker (waiting for calls running; calls not started are cancelled)."""
        self._finalizer()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
