"""Top-level functions a `plates.workers.WorkerPool` test runs in its spawned workers (a spawned process
imports them by module name), and a script that starts a pool and waits to be killed."""

from __future__ import annotations

import os
import sys
import time


def square(x: int) -> int:
    return x * x


def pid() -> int:
    return os.getpid()


def refuse(text: str) -> None:
    raise ValueError(f"refused in the worker: {text}")


def die() -> None:
    os._exit(3)  # as a worker killed by the kernel: no exception, no clean exit


def sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


if __name__ == "__main__":  # python -m tests.support.pool_tasks: start 2 workers, print their ids, wait
    from plates.workers import WorkerPool

    pool = WorkerPool(2)
    print(" ".join(str(pool.call(pid)) for _ in range(4)), " ".join(map(str, pool.pids())), flush=True)
    sys.stdin.read()  # until killed
