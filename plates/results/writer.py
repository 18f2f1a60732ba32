"""Writing results: append-only Parquet parts, each published whole or not at all (`plates.storage.Store.commit`:
a temporary file and a rename on a local folder; a unique name and a commit record on an object store)."""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from plates.faults import environment_failure
from plates.results.schema import (
    COLUMNS,
    COVERS_KEY,
    SAFE_RUN_ID,
    SUPERSEDES_KEY,
    rows_to_table,
)
from plates.storage import Store, open_store


def write_part(table: pa.Table, path: str | Path, store: Store | None = None) -> Path | str:
    """Write a table as one Parquet part that a reader (or a crash) sees whole or not at all.

    Temporary files start with '.' so ``load_results`` never reads them (`plates.storage.Store.commit`).

    Parameters
    ----------
    table : pyarrow.Table
        Rows in the results schema (`plates.results.schema.rows_to_table`).
    path : str or pathlib.Path
        The part's path: a local file, or a path relative to ``store``.
    store : plates.storage.Store, optional
        The store ``path`` is relative to (a local folder or ``s3://``); default: ``path`` is a local file.

    Returns
    -------
    pathlib.Path or str
        The part's path (a local Path, or the path in the object store).

    Raises
    ------
    plates.faults.EnvironmentFailure
        A full, read-only or failing disk (the machine's fault, not the input's).

    Examples
    --------
    >>> import tempfile
    >>> from plates.results import load_results, rows_to_table
    >>> folder = Path(tempfile.mkdtemp())
    >>> part = write_part(rows_to_table([{"row_key": "k1", "model": "m", "correct": True}]), folder / "a.parquet")
    >>> load_results(folder).frame[["row_key", "correct"]]
      row_key  correct
    0      k1     True
    """
    buffer = pa.BufferOutputStream()
    pq.write_table(table, buffer, compression="snappy")
    if store is None:
        path = Path(path)
        store, path = open_store(path.parent), path.name
    written = store.commit(str(path), buffer.getvalue().to_pybytes())
    return Path(written) if store.local is not None else written


class ResultsWriter:
    """Append-only writer of results parts under ``out_dir``.

    Rows are buffered and written as a new Parquet part (atomically, see ``write_part``) every ``flush_rows``
    rows or every ``flush_seconds`` seconds, whichever comes first; a background timer flushes a buffer that
    waits for the next row longer than ``flush_seconds``, so a ``kill -9`` loses at most about a second of
    finished rows. A write that fails (a full disk) keeps its rows buffered; when the timer's write fails, the
    timer stops and the error is raised once in the caller's thread by the next ``add``, ``flush`` or ``close``
    (no traceback from the background thread); later flushes retry the buffered rows. A full or failing disk is raised as
    `plates.faults.EnvironmentFailure` naming ``out_dir``. Part names are unique per writer and sort by run, writer start time and counter:
    ``<run_id>-<UTC start>-<pid>-<random>-<counter>.parquet``; ``compact_run`` later merges a run's parts into
    one file. A writer's rows may carry ``row_key`` values already on disk (a retry
    of failed rows) only when created with ``supersedes=True``; that flag, stored in each part's metadata, tells
    ``load_results`` to keep the newest row per key.

    Parameters
    ----------
    out_dir : str or pathlib.Path
        A local folder (made if missing) or an object-store URL (`plates.storage`).
    run_id : str
        1-128 letters, digits, '.', '_' or '-'.
    flush_rows : int, optional
        Rows per part (>= 1).
    flush_seconds : float, optional
        The longest a finished row waits in the buffer (> 0).
    autoflush : bool, optional
        Run the background timer (default True).
    supersedes : bool, optional
        This writer's rows may rewrite rows already on disk (a retry).
    fanout : int, optional
        Parts merged at each level of the writer's own compaction (>= 2).

    Raises
    ------
    ValueError
        For a ``run_id``, ``flush_rows``, ``flush_seconds`` or ``fanout`` outside those ranges, or an
        ``out_dir`` `plates.storage.open_store` refuses.
    """

    def __init__(self, out_dir: str | Path, run_id: str, *, flush_rows: int = 64, flush_seconds: float = 1.0,
                 autoflush: bool = True, supersedes: bool = False, fanout: int = 16) -> None:
        if not isinstance(run_id, str) or not SAFE_RUN_ID.match(run_id):
            raise ValueError(f"run_id {run_id!r} must be 1-128 characters of letters, digits, '.', '_' or '-'")
        if int(flush_rows) < 1:
            raise ValueError(f"flush_rows must be >= 1, got {flush_rows!r}")
        if not float(flush_seconds) > 0:
            raise ValueError(f"flush_seconds must be > 0, got {flush_seconds!r}")
        self.store = open_store(out_dir)
        self.out_dir = self.store.local or self.store.url  # a Path, or the URL of an object-store folder
        if self.store.local is not None:
            self.store.local.mkdir(parents=True, exist_ok=True)
        self.run_id = run_id
        self.flush_rows = int(flush_rows)
        self.flush_seconds = float(flush_seconds)
        self.supersedes = bool(supersedes)
        if int(fanout) < 2:
            raise ValueError(f"fanout must be >= 2, got {fanout!r}")
        self.fanout = int(fanout)
        self._levels: list[list[tuple[int, int, Path | str]]] = [[]]
        start = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
        self._prefix = f"{run_id}-{start}-{os.getpid()}-{secrets.token_hex(3)}"
        self._counter = 0
        self._buffer: list[Mapping[str, Any]] = []
        self._lock = threading.Lock()
        self._last_flush = time.monotonic()
        self.parts: list[Path | str] = []
        self.rows_written = 0
        self._closed = threading.Event()
        self._error: BaseException | None = None  # the timer's failed write, raised in the caller's thread
        self._timer: threading.Thread | None = None
        if autoflush:
            self._timer = threading.Thread(target=self._autoflush, name="results-autoflush", daemon=True)
            self._timer.start()

    def add(self, row: Mapping[str, Any]) -> None:
        """Buffer one row (validated now: an unknown column raises ``ValueError``); flush when due.

        Parameters
        ----------
        row : mapping of str to object
            Results columns (`plates.results.schema.COLUMNS`) to values.

        Raises
        ------
        ValueError
            For an unknown column, or a closed writer.
        plates.faults.EnvironmentFailure
            When a due flush fails on a full or failing disk.
        """
        unknown = sorted(set(row) - COLUMNS.keys())
        if unknown:
            raise ValueError(f"unknown results columns {unknown}; the results columns are: {', '.join(COLUMNS)}")
        if self._closed.is_set():
            raise ValueError("this ResultsWriter is closed")
        with self._lock:
            self._raise_timer_error()
            self._buffer.append(row)
            if len(self._buffer) >= self.flush_rows:
                self._flush_locked()

    def flush(self) -> Path | str | None:
        """Write the buffered rows as one new part now; returns its path (None when nothing was buffered)."""
        with self._lock:
            self._raise_timer_error()
            return self._flush_locked()

    def _raise_timer_error(self) -> None:
        """Raise the timer's failed write once (its rows stay buffered: a later flush retries them)."""
        error, self._error = self._error, None
        if error is not None:
            raise error

    def _flush_locked(self) -> Path | str | None:
        self._last_flush = time.monotonic()
        if not self._buffer:
            return None
        table = rows_to_table(self._buffer)
        try:
            path = self._write(table, self._counter, self._counter, 0)  # on failure the rows stay buffered
            self._levels[0].append((self._counter, self._counter, path))
            self._counter += 1
            self.parts.append(path)
            self.rows_written += table.num_rows
            self._buffer = []
            self._merge_full_levels()  # on failure the small parts stay (each covers its own rows)
        except OSError as exc:  # a full disk is named as such
            raise (environment_failure(exc, self.out_dir) or exc) from exc
        return path

    def _write(self, table: pa.Table, first: int, last: int, level: int) -> Path | str:
        meta = {COVERS_KEY: json.dumps({"prefix": self._prefix, "first": first, "last": last, "level": level}).encode()}
        if self.supersedes:
            meta[SUPERSEDES_KEY] = b"1"
        name = f"{self._prefix}-{first:06d}.parquet" if level == 0 else \
            f"{self._prefix}-{first:06d}-{last:06d}-L{level}.parquet"
        return write_part(table.replace_schema_metadata(meta), name, self.store)

    def _merge_full_levels(self) -> None:
        """Merge ``fanout`` parts of one level into one part of the next (an LSM-style cascade): a long run
        killed before its end leaves O(fanout x log(parts)) files, not one per flush. Each merged part records
        the counters it covers, so a crash before the small parts are deleted never doubles a row."""
        level = 0
        while level < len(self._levels) and len(self._levels[level]) >= self.fanout:
            group = self._levels[level]
            table = pa.concat_tables(pq.read_table(self._open(p)) for _, _, p in group).replace_schema_metadata(None)
            first, last = group[0][0], group[-1][1]
            merged = self._write(table, first, last, level + 1)
            self.store.delete([self._name(p) for _, _, p in group])
            gone = {p for _, _, p in group}
            self.parts = [p for p in self.parts if p not in gone] + [merged]
            self._levels[level] = []
            if level + 1 == len(self._levels):
                self._levels.append([])
            self._levels[level + 1].append((first, last, merged))
            level += 1

    def _name(self, part: Path | str) -> str:
        return Path(part).name if self.store.local is not None else str(part).rsplit("/", 1)[-1]

    def _open(self, part: Path | str) -> Any:
        return part if self.store.local is not None else self.store.open(self._name(part))

    def _autoflush(self) -> None:
        while not self._closed.wait(self.flush_seconds / 4):
            if self._buffer and time.monotonic() - self._last_flush >= self.flush_seconds:
                with self._lock:
                    try:
                        self._flush_locked()
                    except Exception as exc:  # noqa: BLE001 - carried to the caller's thread, raised there
                        self._error = exc
                        return

    def close(self) -> None:
        """Flush what is buffered and stop the timer (idempotent). Raises the error of a failed write (the
        timer's or this last flush's); the writer is closed either way."""
        if self._closed.is_set():
            return
        try:
            self.flush()
        finally:
            self._closed.set()
            if self._timer is not None:
                self._timer.join()

    def __enter__(self) -> ResultsWriter:  # noqa: PYI034 - final in practice
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
