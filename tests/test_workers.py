"""plates.workers.WorkerPool with real spawned processes: results and errors come back, the bound refuses,
a dead worker is replaced, close stops every worker, and workers exit when their parent is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import psutil
import pytest

from plates.admission import Refused
from plates.workers import WorkerPool
from tests.support import ROOT
from tests.support import pool_tasks as tasks


def _gone(pids, timeout=10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE for p in pids):
            return True
        time.sleep(0.1)
    return False


@pytest.fixture(scope="module")
def pool():
    with WorkerPool(2, max_pending=2, what="squares") as p:
        yield p


def test_calls_run_in_other_processes_and_their_errors_come_back(pool):
    before = pool.calls
    assert [pool.call(tasks.square, n) for n in range(5)] == [0, 1, 4, 9, 16]
    workers = {pool.call(tasks.pid) for _ in range(6)}
    assert os.getpid() not in workers and workers <= set(pool.pids()) and len(pool.pids()) == 2
    with pytest.raises(ValueError, match="refused in the worker: no"):
        pool.call(tasks.refuse, "no")
    assert pool.calls == before + 12  # every call counted, the one that failed in its worker too
    assert pool.rss() > 10_000_000  # two Python processes, counted


def test_more_than_max_pending_calls_at_once_are_refused(pool):
    started = [threading.Thread(target=pool.call, args=(tasks.sleep, 1.5)) for _ in range(2)]
    for t in started:
        t.start()
    time.sleep(0.3)
    calls = pool.calls
    with pytest.raises(Refused, match="2 squares are waiting or running, its most at once"):
        pool.call(tasks.square, 3)
    assert pool.calls == calls  # a refused call never reached a worker
    for t in started:
        t.join()
    assert pool.call(tasks.square, 3) == 9  # room again


def test_a_dead_worker_fails_its_call_and_fresh_workers_take_the_next():
    with WorkerPool(2) as p:
        before = p.pids()
        with pytest.raises(RuntimeError, match="a worker process died during one of the tasks"):
            p.call(tasks.die)
        assert p.call(tasks.square, 7) == 49
        assert p.restarts == 1 and not set(p.pids()) & set(before)
        assert _gone(before)


def test_close_stops_every_worker_and_later_calls_are_refused():
    p = WorkerPool(2)
    pids = p.pids()
    assert len(pids) == 2 and p.call(tasks.square, 2) == 4
    p.close()
    assert _gone(pids)
    with pytest.raises(RuntimeError, match="the tasks pool is closed"):
        p.call(tasks.square, 2)


def test_workers_exit_when_their_parent_is_killed():
    proc = subprocess.Popen([sys.executable, "-m", "tests.support.pool_tasks"], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        line = proc.stdout.readline().split()
        answered, pids = {int(v) for v in line[:4]}, [int(v) for v in line[4:]]
        assert len(pids) == 2 and answered <= set(pids) and all(psutil.pid_exists(p) for p in pids)
    finally:
        proc.send_signal(signal.SIGKILL)  # no atexit, no finaliser: only the workers' own watch ends them
        proc.wait(timeout=10)
    assert _gone(pids)


@pytest.mark.parametrize("kw, message", [
    (dict(workers=0), "workers=0 is not valid; allowed: an integer >= 1"),
    (dict(workers=True), "workers=True is not valid"),
    (dict(workers=2, max_pending=0), "max_pending=0 is not valid; allowed: an integer >= 1"),
])
def test_bad_sizes_are_refused(kw, message):
    with pytest.raises(ValueError, match=message):
        WorkerPool(**kw)


def test_a_bad_timeout_is_refused(pool):
    with pytest.raises(ValueError, match=r"timeout=-1 is not valid; allowed: a number > 0 or None \(seconds\)"):
        pool.call(tasks.square, 2, timeout=-1)
