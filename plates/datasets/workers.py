"""Dataset writers' worker processes: what each runs first (`init_worker`: `plates.datasets.generate`,
`plates.datasets.grid`, `plates.datasets.write`, `plates.datasets.parquet_set`) and every writer's pool
(`family_pool`).

Rendering a 900 px plate allocates and frees arrays of a few MB each (pixels, rims, rasters). glibc's malloc
serves those from fresh ``mmap`` pages and hands them back at once, so every plate faulted its pages in again:
~6 ms of system CPU a HueManity plate, about a tenth of its cost. A worker keeps them instead: blocks up to
32 MB come from the heap and freed memory stays with the process (its peak memory, not its growth: a worker
renders one plate at a time). Only the worker processes and the `plates generate` command's own process (a writer
too with ``--workers 1``) change; elsewhere (a server, a library caller) glibc's defaults stand, and on a C library
other than glibc nothing changes (`keep_freed_memory` returns False).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import multiprocessing as mp
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from multiprocessing.pool import Pool

from plates.colour.spaces import colour_science

__all__ = ["family_pool", "init_worker", "keep_freed_memory", "pool_or_none", "results_of", "shared_or_new_pool"]

_M_TRIM_THRESHOLD = -1  # glibc mallopt parameters (malloc.h)
_M_MMAP_THRESHOLD = -3


def keep_freed_memory(mmap_below: int = 32 * 2**20, trim_above: int = 256 * 2**20) -> bool:
    """Have glibc serve allocations under ``mmap_below`` bytes from the heap and return freed heap memory to
    the system only past ``trim_above`` bytes (``mallopt``); returns whether it applied (False off glibc).

    Parameters
    ----------
    mmap_below : int, optional
        ``M_MMAP_THRESHOLD``, bytes.
    trim_above : int, optional
        ``M_TRIM_THRESHOLD``, bytes.

    Returns
    -------
    bool
    """
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, TypeError, AttributeError):  # no C library found by name, or one without mallopt
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, mmap_below)) and bool(mallopt(_M_TRIM_THRESHOLD, trim_above))


def init_worker() -> None:
    """A dataset writer's pool initializer."""
    keep_freed_memory()


def family_pool(workers: int) -> Pool:
    """The pool of every dataset writer (`plates.datasets.generate`'s plate presets, `plates.datasets.write`,
    `plates.datasets.parquet_set`): forked when this process runs no other thread (a plain `plates generate`),
    so workers start at once with what is imported here; spawned otherwise, since forking a threaded process can
    deadlock (a spawned worker re-imports the families, about 1 s of CPU each). Before forking, colour-science is
    imported here: every family's manifest values need it (ΔE2000) and it loaded lazily in each worker, about
    1 s of CPU per worker (figures: docs/benchmarks.md, "Figures moved from docstrings").

    Forked workers share the parent's pages (modules, colour-science, pandas and scipy under it) until they
    write to them. The garbage collector writes to every object it visits, so the objects that exist at the
    fork are frozen first (``gc.freeze``: the workers' collections never visit them) and unfrozen in this
    process once the workers exist (Python's ``gc.freeze`` documentation recommends exactly this before a
    fork); the memory it saves is measured in docs/benchmarks.md ("Figures moved from docstrings").

    Parameters
    ----------
    workers : int
        Worker processes.

    Returns
    -------
    multiprocessing.pool.Pool
        Its workers run ``init_worker``; the caller terminates it.
    """
    method = "fork" if "fork" in mp.get_all_start_methods() and threading.active_count() == 1 else "spawn"
    if method == "spawn":
        return mp.get_context(method).Pool(workers, initializer=init_worker)
    colour_science()
    gc.freeze()
    try:
        return mp.get_context(method).Pool(workers, initializer=init_worker)  # forks its workers before returning
    finally:
        gc.unfreeze()


@contextmanager
def pool_or_none(workers: int) -> Iterator[Pool | None]:
    """A `family_pool` of ``workers`` made on entry when ``workers`` > 1 (None: work in this process), terminated
    and joined on exit (every result is in, or the run failed: nothing left to wait for).

    Parameters
    ----------
    workers : int
        Worker processes.

    Yields
    ------
    multiprocessing.pool.Pool or None
    """
    pool = family_pool(workers) if workers > 1 else None
    try:
        yield pool
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()


@contextmanager
def results_of(fn: Callable, tasks: Iterable, workers: int, chunksize: int = 1) -> Iterator[Iterator]:
    """``fn`` over ``tasks``: in this process when ``workers`` <= 1, else unordered in a `family_pool` of
    ``workers`` (`pool_or_none`), made on entry (so before a progress bar the caller opens next: tqdm starts a
    thread, and the pool forks only while this process runs none) and stopped on exit.

    Parameters
    ----------
    fn : callable
        A picklable function of one task.
    tasks : iterable
        Its arguments.
    workers : int
        Worker processes.
    chunksize : int, optional
        Tasks per ``imap_unordered`` chunk.

    Yields
    ------
    iterator
        ``fn``'s results (in task order in this process, unordered from a pool).
    """
    with pool_or_none(workers) as pool:
        yield map(fn, tasks) if pool is None else pool.imap_unordered(fn, tasks, chunksize=chunksize)


@contextmanager
def shared_or_new_pool(workers: int, shared: Pool | None = None) -> Iterator[Pool]:
    """``shared`` when given (left running: whoever made it stops it; `plates.datasets.generate.generate_family`
    shares one across a family's presets, so each preset's workers do not start and warm their caches again),
    else a new `family_pool` of ``workers``, stopped on exit.

    Parameters
    ----------
    workers : int
        Worker processes of a new pool.
    shared : multiprocessing.pool.Pool or None, optional
        A running pool to use instead.

    Yields
    ------
    multiprocessing.pool.Pool
    """
    if shared is not None:
        yield shared
        return
    with family_pool(workers) as pool:
        yield pool
