"""The lock of a run writing to a local folder (`plates.runs.runner.run_experiment`): flocks beside its parts.

An object store has no flock: a run writing there holds a lease object instead (`plates.leases`).
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from plates.shards import Shard

__all__ = ["run_lock"]


@contextmanager
def run_lock(out: Path, run_id: str, shard: Shard | None = None) -> Iterator[None]:
    """One process per run and out folder, or per shard of it (flocks, released by the OS even on ``kill -9``):
    two processes continuing the same rows at once would ask them twice. An unsharded run holds the run's lock
    exclusively; a shard holds it shared and its own shard's lock exclusively. A finished run (or its last shard)
    leaves no lock file behind; one that fails keeps it once it has written parts.

    Parameters
    ----------
    out : pathlib.Path
        The run's folder (made if missing).
    run_id : str
        The run.
    shard : Shard, optional
        This process's shard of the run.

    Yields
    ------
    None
        While the lock is held.

    Raises
    ------
    ValueError
        When another process holds a conflicting lock.
    """
    out.mkdir(parents=True, exist_ok=True)
    with open(out / f".{run_id}.lock", "a+") as fh:
        try:
            fcntl.flock(fh.fileno(), (fcntl.LOCK_EX if shard is None else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except BlockingIOError:
            what = "is already running" if shard is None else "is running unsharded"
            raise ValueError(f"run {run_id} {what} in another process writing to {out}; wait for it or stop "
                             "it, then rerun to continue") from None
        try:
            if shard is None:
                yield
            else:
                own_path = out / f".{run_id}.shard-{shard.tag}.lock"
                with open(own_path, "a+") as own:
                    try:
                        fcntl.flock(own.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        raise ValueError(f"shard {shard.index}/{shard.count} of run {run_id} is already running "
                                         f"in another process writing to {out}; wait for it or stop it") from None
                    yield
                    own_path.unlink(missing_ok=True)  # finished: removed while still held
            _forget_lock_when_alone(fh, out / f".{run_id}.lock")
        except BaseException:
            if shard is None:  # other shards may hold the run's lock file shared: only an unsharded run forgets it
                _forget_lock_if_nothing_written(out, run_id)
            raise
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _forget_lock_when_alone(fh, path: Path) -> None:
    """After a finished run (or shard), delete the run's ``.lock`` while it is still held, when no other process
    holds it (a shard still running holds it shared: then it stays, and the last shard to finish removes it), so
    a finished run leaves no lock file behind. A process that opens the file later locks a new one."""
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return
    path.unlink(missing_ok=True)


def _forget_lock_if_nothing_written(out: Path, run_id: str) -> None:
    """After a run that failed before writing any part (a missing key, a server that never answered, Ctrl-C
    during a model's load), delete its ``.lock`` (still held), so a failed start leaves no stale lock file;
    `run_experiment` then removes the folders it made when they are empty. A run with parts keeps its lock."""
    if not any(p.name.startswith(f"{run_id}-") for p in out.iterdir()):
        (out / f".{run_id}.lock").unlink(missing_ok=True)
