"""Results queried in place: DuckDB over the Parquet parts, so a dashboard never loads ten million rows.

`open_results(path)` lists the parts (a robust walk: vanished entries and unreadable folders are skipped, the
walk stops with a ValueError past `MAX_PARTS` files or `MAX_ENTRIES` folder entries), reads only their footers
and keeps `plates.results.load_results`' semantics:

* corrupt Parquet files and foreign ones (none of the results columns, or a results column of a type that
  cannot hold the schema's values) are named in ``skipped`` with the reason; the papers' reference tables
  (schema metadata ``plates.kind = reference``) are left out silently;
* a compacted part hides the parts it replaces (``plates.replaces``) or covers (``plates.covers``);
* when a part may supersede older rows (``plates.supersedes``: a ``--retry-errors`` rerun), only the latest
  row per ``row_key`` counts (by ``timestamp``; ties: the later file, then the later row). The rows a
  superseding part rewrites are found once, when the results are opened, and dropped from every query.

Every query selects only the columns and groups it needs; DuckDB reads those columns of those parts
(projection and filter pushdown). Columns a part lacks read as null (rows written before ``group`` read it from ``colour_set``:
`plates.results.reader.legacy_group`); every results column is cast to the
schema's type (``TRY_CAST``: a value that does not fit reads as null), and text is read cut to `TEXT_CAPS`
characters. DuckDB runs with ``MEMORY_LIMIT``
(it spills to a temporary folder beyond it) and
``THREADS`` threads. `Results` is safe to share between threads: each query runs on its own cursor.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from plates.results.schema import (
    ABSENT_DEFAULTS,
    COLUMNS,
    COVERS_KEY,
    KIND_KEY,
    NOT_ROWS_KINDS,
    PLATE_FAMILIES,
    REPLACES_KEY,
    SUPERSEDES_KEY,
    run_folder_name,
)

__all__ = ["MAX_ENTRIES", "MAX_PARTS", "Parts", "Results", "list_parts", "open_results", "scan_parts"]

#: The walk stops (ValueError) past this many Parquet files ...
MAX_PARTS = 20_000
#: ... or this many folder entries looked at (``/`` is not a results folder).
MAX_ENTRIES = 200_000
#: DuckDB's memory budget (it spills to a temporary folder beyond it) and threads.
MEMORY_LIMIT = "320MB"
THREADS = max(1, min(4, os.cpu_count() or 1))
#: Characters of a text column the view reads (the rest stays on disk). Over a results folder, the long
#: free-text columns keep 16 K (a model's reply, a prompt, a spec or an error is shown whole up to there) and
#: the others are read whole, so filters still reach the Parquet scan (a filter on a cut value could not skip
#: row groups by their statistics).
TEXT_CAPS = {"reply": 16_384, "prompt_text": 16_384, "spec_json": 16_384, "options_json": 16_384,
             "truth_json": 16_384, "error": 16_384}
#: Over uploads (``short_text``) every text column is cut: the pages' JSON and error columns to 512, ids,
#: names, labels and parsed answers to `TEXT_CAP`, so no crafted file of many short rows makes a page hold
#: gigabytes of text (only the drill-down, a page of rows at a time, reads the 16 K columns).
UPLOAD_TEXT_CAPS = {"reply": 16_384, "prompt_text": 16_384, "spec_json": 16_384, "options_json": 512,
                    "truth_json": 512, "error": 512}
TEXT_CAP = 128
#: Pseudo file systems never walked when the walk starts at the file system root.
_PSEUDO = frozenset({"proc", "sys", "dev", "run"})

_DUCK_TYPES = {
    pa.string(): "VARCHAR",
    pa.float64(): "DOUBLE",
    pa.int32(): "INTEGER",
    pa.int64(): "BIGINT",
    pa.bool_(): "BOOLEAN",
    pa.timestamp("us", tz="UTC"): "TIMESTAMPTZ",
}


# --------------------------------------------------------------------------------------------- discovery
def list_parts(path: str | Path) -> list[Path]:
    """Every ``*.parquet`` under ``path`` (a folder, walked without following links; or a file), sorted.

    Names starting with '.' or '_' are skipped (the writer's temporaries), as are entries that vanish or
    cannot be read during the walk, and links to files outside ``path`` (a link inside the root to
    ``/etc/...`` or another user's results is never read). A missing path is a ValueError naming it; so is a walk that passes
    `MAX_PARTS` files or `MAX_ENTRIES` entries (naming the path: choose a results folder).

    Parameters
    ----------
    path : str or pathlib.Path
        A results folder or one Parquet file.

    Returns
    -------
    list of pathlib.Path
        The parts, sorted.

    Raises
    ------
    ValueError
        When ``path`` does not exist, or the walk passes `MAX_PARTS` files or `MAX_ENTRIES` entries.
    """
    root = Path(path)
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise ValueError(f"results path {str(root)!r} does not exist; give a results folder or Parquet file")
    found: list[Path] = []
    seen = 0
    real_root = root.resolve()
    at_fs_root = real_root == Path(real_root.anchor)

    def inside(folder: str, name: str) -> bool:  # a file link must point under the root
        entry = Path(folder) / name
        return not entry.is_symlink() or real_root in entry.resolve().parents
    for folder, dirs, files in os.walk(root, onerror=lambda _exc: None, followlinks=False):
        seen += len(dirs) + len(files)
        if seen > MAX_ENTRIES or len(found) > MAX_PARTS:
            raise ValueError(
                f"results path {str(root)!r} holds too much to be a results folder (stopped after "
                f"{seen:,} entries, {len(found):,} Parquet files); allowed: a folder of result "
                f"parts (at most {MAX_PARTS:,} files), e.g. results/"
            )
        skip_pseudo = at_fs_root and Path(folder) == root
        dirs[:] = sorted(
            d for d in dirs if not d.startswith((".", "_")) and not (skip_pseudo and d in _PSEUDO)
        )
        found += [Path(folder) / f for f in files
                  if f.endswith(".parquet") and not f.startswith((".", "_")) and inside(folder, f)]
    return sorted(found)


def fingerprint(files: Iterable[Path], root: str | Path) -> tuple[tuple[str, int, int], ...]:
    """(name relative to ``root``, size, mtime in ns) per file; a file that vanished is left out.

    Parameters
    ----------
    files : iterable of pathlib.Path
        Parts under ``root``.
    root : str or pathlib.Path
        The folder the names are relative to.

    Returns
    -------
    tuple of (str, int, int)
        (name, size in bytes, mtime in ns) per file, in the order given.
    """
    out = []
    for f in files:
        try:
            st = f.stat()
        except OSError:
            continue
        out.append((os.path.relpath(f, root) if Path(root).is_dir() else f.name, st.st_size, st.st_mtime_ns))
    return tuple(out)


@dataclass(frozen=True)
class _Footer:
    path: Path
    reason: str | None = None  # why it is skipped; None: a results part
    reference: bool = False
    names: tuple[str, ...] = ()  # its columns
    replaces: tuple[str, ...] = ()
    covers: tuple[str, int, int, int] | None = None
    supersedes: bool = False


def _compatible(name: str, typ: pa.DataType) -> bool:
    """Can a column of Arrow type ``typ`` hold results column ``name``'s values (cast by DuckDB)?"""
    want = COLUMNS[name][0]
    if pa.types.is_dictionary(typ):
        typ = typ.value_type
    if typ == want or pa.types.is_null(typ):
        return True
    if pa.types.is_string(want):
        return pa.types.is_string(typ) or pa.types.is_large_string(typ)
    if pa.types.is_floating(want):
        return pa.types.is_floating(typ) or pa.types.is_integer(typ)
    if pa.types.is_integer(want):  # floats too: pandas writes a column of nulls and integers as float64
        return pa.types.is_integer(typ) or pa.types.is_floating(typ)
    if pa.types.is_timestamp(want):
        return pa.types.is_timestamp(typ)
    return False


def _footer(path: Path) -> _Footer:
    try:
        schema = pq.read_schema(path)
    except FileNotFoundError:
        return _Footer(path, "vanished while reading")
    except Exception as exc:  # noqa: BLE001 - any unreadable footer means a corrupt file
        return _Footer(path, f"corrupt Parquet file: {exc}")
    meta = schema.metadata or {}
    if meta.get(KIND_KEY) in NOT_ROWS_KINDS:
        return _Footer(path, reference=True)
    known = [n for n in schema.names if n in COLUMNS]
    if not known:
        shown = ", ".join(schema.names[:8]) + (", ..." if len(schema.names) > 8 else "")
        return _Footer(
            path, f"not a results file: none of the results columns (it has: {shown or 'no columns'})"
        )
    for name in known:
        typ = schema.field(name).type
        if not _compatible(name, typ):
            return _Footer(
                path, f"column {name!r} has type {typ}, the results schema says {COLUMNS[name][0]}"
            )
    covers = None
    if COVERS_KEY in meta:
        c = json.loads(meta[COVERS_KEY])
        covers = (str(c["prefix"]), int(c["first"]), int(c["last"]), int(c["level"]))
    replaces = tuple(json.loads(meta[REPLACES_KEY])) if REPLACES_KEY in meta else ()
    return _Footer(path, None, False, tuple(schema.names), replaces, covers, SUPERSEDES_KEY in meta)


def _visible(footers: list[_Footer]) -> list[_Footer]:
    """The readable parts that no merged part in the same folder replaces or covers (as load_results)."""
    ok = [f for f in footers if f.reason is None and not f.reference]
    replaced = {(f.path.parent, name) for f in ok for name in f.replaces}
    by_writer: dict[tuple[Path, str], list[tuple[int, int, int]]] = {}
    for f in ok:
        if f.covers is not None:
            by_writer.setdefault((f.path.parent, f.covers[0]), []).append(f.covers[1:])

    def covered(f: _Footer) -> bool:
        if f.covers is None:
            return False
        prefix, first, last, level = f.covers
        return any(a <= first and last <= b and lv > level for a, b, lv in by_writer[(f.path.parent, prefix)])

    return [f for f in ok if (f.path.parent, f.path.name) not in replaced and not covered(f)]


@dataclass(frozen=True)
class Parts:
    """What a results path holds: ``files`` (visible result parts, sorted), ``skipped`` ((name, reason) of
    corrupt or foreign files), ``superseding`` (the visible parts that may rewrite older rows), ``columns``
    (the union of their column names) and ``fingerprint`` (names, sizes, mtimes: changes when a run adds or
    rewrites a part).

    Attributes
    ----------
    root : str
        The results path scanned.
    files : tuple of str
        The visible result parts, sorted.
    skipped : tuple of (str, str)
        (name, reason) of corrupt or foreign files.
    superseding : tuple of str
        The visible parts that may rewrite older rows.
    columns : tuple of str
        The union of their column names.
    fingerprint : tuple of (str, int, int)
        Names, sizes and mtimes: changes when a run adds or rewrites a part.
    names : dict of str to str
        A file's path to the name shown for it in ``skipped``.
    """

    root: str
    files: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...] = ()
    superseding: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()
    fingerprint: tuple[tuple[str, int, int], ...] = ()
    #: file path -> the name the user gave it (uploads); a part not listed is known by its path
    names: dict[str, str] = field(default_factory=dict, compare=False)


def scan_parts(path: str | Path, *, names: dict[str, str] | None = None) -> Parts:
    """List ``path``'s parts and read their footers (in parallel); ``names`` maps a file's path to the name
    shown for it in ``skipped`` (uploads: the name the user gave, not a temporary path).

    Parameters
    ----------
    path : str or pathlib.Path
        A results folder or one Parquet file.
    names : dict of str to str, optional
        A file's path to the name shown for it.

    Returns
    -------
    Parts
        What the path holds.

    Raises
    ------
    ValueError
        When ``path`` does not exist or holds too many entries (`list_parts`).
    """
    files = list_parts(path)
    for _attempt in range(3):  # a part deleted under us (a run compacting): list again
        with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 2)) as pool:
            footers = list(pool.map(_footer, files))
        if not any(f.reason == "vanished while reading" for f in footers):
            break
        files = list_parts(path)
    shown = names or {}
    skipped = tuple(
        (shown.get(str(f.path), str(f.path)), f.reason)
        for f in footers
        if f.reason is not None and f.reason != "vanished while reading"
    )
    visible = _visible(footers)
    columns = tuple(dict.fromkeys(n for f in visible for n in f.names))
    return Parts(
        str(path),
        tuple(str(f.path) for f in visible),
        skipped,
        tuple(str(f.path) for f in visible if f.supersedes),
        columns,
        fingerprint([f.path for f in visible], path),
        dict(shown),
    )


# ---------------------------------------------------------------------------------------------- queries
def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(value: Any) -> str:
    """A constant as a DuckDB literal: a string quoted, a number as written (an `ABSENT_DEFAULTS` value)."""
    return "'" + value.replace("'", "''") + "'" if isinstance(value, str) else str(value)


def _sql_list(values: Sequence[str]) -> str:
    """A DuckDB list literal of strings, each quoted (a view cannot take parameters)."""
    return "[" + ", ".join("'" + v.replace("'", "''") + "'" for v in values) + "]"


@dataclass
class Results:
    """DuckDB over one `Parts`: the view ``results`` holds every visible row once (latest per row_key), every
    results column cast to the schema's type (null where no part has it). Build with `open_results`.

    Attributes
    ----------
    parts : Parts
        The parts the view reads.
    short_text : bool
        Whether every text column is cut (uploads), not only `TEXT_CAPS`.
    """

    parts: Parts
    short_text: bool = False  # cut every text column (uploads), not only the free-text ones (TEXT_CAPS)
    _con: Any = field(repr=False, default=None)
    _lock: Any = field(repr=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        con = duckdb.connect(
            config={
                "threads": THREADS,
                "memory_limit": MEMORY_LIMIT,
                "temp_directory": os.path.join(tempfile.gettempdir(), "plates-duckdb"),
            }
        )
        self._con = con
        present = set(self.parts.columns)
        if not self.parts.files:
            select = ", ".join(
                f"CAST(NULL AS {_DUCK_TYPES[t]}) AS {_quote(n)}" for n, (t, _) in COLUMNS.items()
            )
            con.execute(f"CREATE VIEW results AS SELECT {select} WHERE false")
            return
        def cap(n: str) -> int | None:
            return UPLOAD_TEXT_CAPS.get(n, TEXT_CAP) if self.short_text else TEXT_CAPS.get(n)

        cols = [
            (f"left(TRY_CAST({_quote(n)} AS VARCHAR), {cap(n)}) AS {_quote(n)}"
             if t == pa.string() and cap(n) is not None else f"TRY_CAST({_quote(n)} AS {_DUCK_TYPES[t]}) AS {_quote(n)}")
            if n in present
            else f"CAST(NULL AS {_DUCK_TYPES[t]}) AS {_quote(n)}"
            for n, (t, _) in COLUMNS.items()
        ]
        # a column older parts lack reads as its ABSENT_DEFAULTS value (rules_version: UNVERSIONED), as in
        # load_results
        cols = [f"coalesce({c.removesuffix(f' AS {_quote(n)}')}, {_literal(ABSENT_DEFAULTS[n])}) AS {_quote(n)}"
                if n in ABSENT_DEFAULTS else c for c, n in zip(cols, COLUMNS, strict=True)]
        # a row written before group reads its colour_set as group, and colour_set only where it is a plate
        # (plates.results.schema.colour_set_of), as in load_results
        bare = {n: c.removesuffix(f" AS {_quote(n)}") for c, n in zip(cols, COLUMNS, strict=True)}
        plate = f"({bare['family']} IS NULL OR {bare['family']} IN ({', '.join(map(_literal, PLATE_FAMILIES))}))"
        legacy = {"group": f"coalesce({bare['group']}, {bare['colour_set']}) AS {_quote('group')}",
                  "colour_set": f"CASE WHEN {plate} THEN {bare['colour_set']} END AS {_quote('colour_set')}"}
        cols = [legacy.get(n, c) for c, n in zip(cols, COLUMNS, strict=True)]
        # a row that records no run name reads its part's folder name (run_folder_name), joined per file
        named = f" AS {_quote('run_name')}"
        cols = [f"coalesce({c.removesuffix(named)}, part_run_name){named}" if n == "run_name" else c
                for c, n in zip(cols, COLUMNS, strict=True)]
        files = list(self.parts.files)
        source = (
            f"read_parquet({_sql_list(files)}, union_by_name = true, filename = true, file_row_number = true)"
        )
        con.execute("CREATE TABLE part_files (filename VARCHAR, part INTEGER, part_run_name VARCHAR)")
        shown = self.parts.names
        con.executemany("INSERT INTO part_files VALUES (?, ?, ?)",
                        [(f, i, run_folder_name(shown.get(f, f))) for i, f in enumerate(files)])
        anti = ""
        if self.parts.superseding and "row_key" in present:
            # the rows a --retry-errors rerun rewrote: every row of a rewritten key but its latest
            stamp = 'CAST(r."timestamp" AS TIMESTAMPTZ)' if "timestamp" in present else "NULL"
            con.execute(f"""
                CREATE TABLE superseded AS
                WITH rewritten AS (SELECT DISTINCT row_key
                                   FROM read_parquet({_sql_list(self.parts.superseding)},
                                   union_by_name = true) WHERE row_key IS NOT NULL),
                     candidates AS (SELECT r.filename, r.file_row_number, r.row_key, {stamp} AS ts, p.part
                                    FROM {source} r JOIN part_files p USING (filename)
                                    WHERE r.row_key IN (SELECT row_key FROM rewritten))
                SELECT filename, file_row_number FROM (
                    SELECT *, row_number() OVER (PARTITION BY row_key
                        ORDER BY ts DESC NULLS FIRST, part DESC, file_row_number DESC) AS rank
                    FROM candidates) WHERE rank > 1""")
            if con.execute("SELECT count(*) FROM superseded").fetchone()[0]:
                anti = " ANTI JOIN superseded USING (filename, file_row_number)"
        con.execute(f"CREATE VIEW results AS SELECT {', '.join(cols)} FROM {source}{anti} "
                    "JOIN part_files USING (filename)")

    def query(self, sql: str, params: dict[str, Any] | Sequence[Any] | None = None) -> pd.DataFrame:
        """``sql`` over the view ``results`` as a pandas DataFrame (its own cursor: thread-safe).

        Parameters
        ----------
        sql : str
            A DuckDB query over ``results``.
        params : dict or sequence, optional
            Its named (``$name``) or positional (``?``) parameters.

        Returns
        -------
        pandas.DataFrame
            The rows.
        """
        with self._lock:
            cursor = self._con.cursor()
        try:
            return cursor.execute(sql, params).df() if params else cursor.execute(sql).df()
        finally:
            cursor.close()

    def execute(self, sql: str) -> None:
        """A statement (e.g. ``CREATE TABLE IF NOT EXISTS ...``) on the shared connection, one at a time.

        Parameters
        ----------
        sql : str
            A DuckDB statement.
        """
        with self._lock:
            self._con.execute(sql)

    def arrow(self, sql: str, params: dict[str, Any] | Sequence[Any] | None = None) -> pa.Table:
        """Like `query`, as an Arrow table (no pandas conversion: exports).

        Parameters
        ----------
        sql : str
            A DuckDB query over ``results``.
        params : dict or sequence, optional
            Its parameters.

        Returns
        -------
        pyarrow.Table
            The rows.
        """
        with self._lock:
            cursor = self._con.cursor()
        try:
            relation = cursor.sql(sql, params=params) if params else cursor.sql(sql)
            return relation.to_arrow_table()
        finally:
            cursor.close()

    def row_count(self) -> int:
        """The number of visible rows."""
        return int(self.query("SELECT count(*) AS n FROM results")["n"].iloc[0])

    def close(self) -> None:
        """Close the DuckDB connection."""
        self._con.close()


def open_results(path: str | Path, *, names: dict[str, str] | None = None, short_text: bool = False) -> Results:
    """`Results` over every part under ``path`` (see the module doc); ``names``: see `scan_parts`;
    ``short_text`` (uploads): every text column cut (`UPLOAD_TEXT_CAPS`, `TEXT_CAP`), not only `TEXT_CAPS`.

    Parameters
    ----------
    path : str or pathlib.Path
        A results folder or one Parquet file.
    names : dict of str to str, optional
        A file's path to the name shown for it (`scan_parts`).
    short_text : bool, optional
        Cut every text column (uploads).

    Returns
    -------
    Results
        The view; close it when done.

    Raises
    ------
    ValueError
        When ``path`` does not exist or holds too many entries (`list_parts`).
    """
    return Results(scan_parts(path, names=names), short_text=short_text)
