"""Reading results: every part under a folder, the union of their columns, the latest row per key."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from plates.results.schema import (
    ABSENT_DEFAULTS,
    CATEGORICAL_COLUMNS,
    COLUMNS,
    COVERS_KEY,
    DICTIONARY,
    KIND_KEY,
    NOT_ROWS_KINDS,
    PLATE_FAMILIES,
    REPLACES_KEY,
    SCHEMA,
    SUPERSEDES_KEY,
    run_folder_name,
)
from plates.storage import Store, is_url, open_store


@dataclass(frozen=True)
class LoadedResults:
    """What ``load_results`` read: ``frame`` (pandas, the results columns first, then any extra columns),
    ``skipped`` ((path, reason) for every corrupt or foreign Parquet file) and ``files`` (the parts read).

    Attributes
    ----------
    frame : pandas.DataFrame
        The rows, the results columns first, then any extra columns.
    skipped : list of (str, str)
        (path, reason) for every corrupt or foreign Parquet file.
    files : list of str
        The parts read.
    """

    frame: pd.DataFrame
    skipped: list[tuple[str, str]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def find_parts(paths: str | Path | Iterable[str | Path]) -> list[Path]:
    """Every ``*.parquet`` file under the given folders (recursively, sorted) and the given files.

    Hidden files and folders (names starting with '.' or '_', e.g. the writer's temporaries) are ignored. An
    object-store URL is read with `store_parts`.

    Parameters
    ----------
    paths : str, pathlib.Path or iterable of them
        Folders and files.

    Returns
    -------
    list of pathlib.Path

    Raises
    ------
    ValueError
        A path that does not exist, named.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    urls = [p for p in paths if is_url(p)]
    if urls:
        raise ValueError(f"{urls[0]!r} is an object-store URL; allowed here: local paths (load_results takes "
                         "one URL on its own)")
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for part in sorted(path.rglob("*.parquet")):
                rel = part.relative_to(path).parts
                if not any(name.startswith((".", "_")) for name in rel):
                    found.append(part)
        elif path.is_file():
            found.append(path)
        else:
            raise ValueError(f"results path {str(path)!r} does not exist; give a results folder or Parquet file")
    return found


@dataclass(frozen=True)
class _Part:
    table: pa.Table | None  # cast to the results types; None when skipped
    reason: str | None = None  # why it was skipped
    replaces: tuple[str, ...] = ()  # names of parts (same folder) this compacted part replaces
    supersedes: bool = False
    covers: tuple[str, int, int, int] | None = None  # (writer prefix, first, last, level) of a writer's part
    reference: bool = False  # one of the papers' reference tables: left out, not skipped


_VANISHED = "vanished while reading"


def store_parts(store: Store, *, prefix: str = "") -> list[PurePosixPath]:
    """The committed ``*.parquet`` parts under an object store's folder (recursively; `plates.storage`), as
    paths in its file system (read them with ``read_parts(..., store=store)``).

    Parameters
    ----------
    store : Store
        An object store (or local folder) holding results.
    prefix : str, optional
        Keep the parts whose base name starts with it.

    Returns
    -------
    list of pathlib.PurePosixPath
        The parts' paths in the store's file system, sorted.
    """
    return [PurePosixPath(store.path(name)) for name in store.list(prefix=prefix, suffix=".parquet", recursive=True)]


def _read_part(path: Path, use_threads: bool = False, columns: Sequence[str] | None = None,
               categorical: frozenset[str] = frozenset(), store: Store | None = None) -> _Part:
    """One part, its results columns cast to ``SCHEMA``'s types; the ``categorical`` ones read
    dictionary-encoded straight from Parquet's own dictionary pages (``DICTIONARY``: no hashing of values).
    ``store``: an object store ``path`` is in (else a local file)."""
    try:
        source = path if store is None else store.fs.open_input_file(str(path))
        pf = pq.ParquetFile(source, pre_buffer=True)  # pre_buffer: one read per column chunk range (~25% less CPU)
        schema = pf.schema_arrow
        meta = schema.metadata or {}
        if meta.get(KIND_KEY) in NOT_ROWS_KINDS:
            return _Part(None, reference=True)
        as_dict = [c for c in schema.names if c in categorical and (columns is None or c in columns)]
        if as_dict:  # the footer already read is reused
            pf = pq.ParquetFile(source, read_dictionary=as_dict, metadata=pf.metadata, pre_buffer=True)
    except FileNotFoundError:
        return _Part(None, _VANISHED)
    except Exception as exc:  # noqa: BLE001 - any unreadable footer means a corrupt file
        return _Part(None, f"corrupt Parquet file: {exc}")
    known = [name for name in schema.names if name in COLUMNS]
    if not known:
        shown = ", ".join(schema.names[:8]) + (", ..." if len(schema.names) > 8 else "")
        return _Part(None, f"not a results file: none of the results columns (it has: {shown or 'no columns'})")
    try:
        wanted = None if columns is None else [c for c in columns if c in schema.names]
        table = pf.read(columns=wanted, use_threads=use_threads)
    except Exception as exc:  # noqa: BLE001
        return _Part(None, f"corrupt Parquet file: {exc}")
    for name in (n for n in known if n in table.column_names):
        want = COLUMNS[name][0]
        col = table.column(name)
        if col.type != (DICTIONARY if name in categorical else want):
            try:
                col = col.cast(want)
                if name in categorical:
                    col = col.dictionary_encode()
                table = table.set_column(table.schema.get_field_index(name), name, col)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as exc:
                return _Part(None, f"column {name!r} has type {col.type}, the results schema says {want}: {exc}")
    table = legacy_group(table, categorical)
    replaces = tuple(json.loads(meta[REPLACES_KEY])) if REPLACES_KEY in meta else ()
    covers = None
    if COVERS_KEY in meta:
        c = json.loads(meta[COVERS_KEY])
        covers = (str(c["prefix"]), int(c["first"]), int(c["last"]), int(c["level"]))
    return _Part(table.replace_schema_metadata(None), None, replaces, SUPERSEDES_KEY in meta, covers)


def legacy_group(table: pa.Table, categorical: frozenset[str] = frozenset()) -> pa.Table:
    """Rows written before ``group`` read as today's (`plates.results.schema.colour_set_of`): a null ``group``
    reads the row's ``colour_set`` (a part without the column gets it), and ``colour_set`` is null where the
    row's ``family`` is not a plate (`PLATE_FAMILIES`). Rows written with ``group`` are unchanged.

    Parameters
    ----------
    table : pyarrow.Table
        One part's rows, results columns in ``SCHEMA`` types (the ``categorical`` ones ``DICTIONARY``); a
        column left unread is left alone (``family`` is read whenever ``colour_set`` is: `load_results`).
    categorical : frozenset of str
        The columns held as ``DICTIONARY``.

    Returns
    -------
    pyarrow.Table
    """
    if "colour_set" not in table.column_names:
        return table
    sets = table.column("colour_set").cast(pa.string())
    if "group" not in table.column_names:
        typ = DICTIONARY if "group" in categorical else pa.string()
        table = table.append_column(pa.field("group", typ), sets.dictionary_encode() if "group" in categorical
                                    else sets)
    elif table.column("group").null_count:
        index = table.schema.get_field_index("group")
        filled = pc.coalesce(table.column("group").cast(pa.string()), sets)
        table = table.set_column(index, "group", filled.dictionary_encode() if "group" in categorical else filled)
    if "family" in table.column_names:
        family = table.column("family").cast(pa.string())
        plate = pc.or_kleene(pc.is_null(family), pc.is_in(family, pa.array(PLATE_FAMILIES, pa.string())))
        if not pc.all(plate).as_py() and pc.any(pc.and_(pc.invert(plate), pc.is_valid(sets))).as_py():
            kept = pc.if_else(plate, sets, pa.scalar(None, pa.string()))
            index = table.schema.get_field_index("colour_set")
            table = table.set_column(index, "colour_set",
                                     kept.dictionary_encode() if "colour_set" in categorical else kept)
    return table


def read_parts(files: list[Path], columns: Sequence[str] | None = None,
                categorical: frozenset[str] = frozenset(), store: Store | None = None) -> list[_Part]:
    """Read Parquet parts' rows (in parallel threads beyond three files), each with its metadata.

    Parameters
    ----------
    files : list of pathlib.Path
        Parts to read.
    columns : sequence of str, optional
        Read only these columns (default: all).
    categorical : frozenset of str, optional
        Columns read as dictionary-encoded.
    store : Store, optional
        The object store the paths are in (default: local files).

    Returns
    -------
    list
        One read part per file, in order (a corrupt or foreign file is recorded with its reason, not raised).
    """
    if len(files) < 4:  # few big files: let Arrow read each file's columns in parallel
        return [_read_part(f, True, columns, categorical, store) for f in files]
    workers = min(8, os.cpu_count() or 2) if store is None else 16  # object-store reads wait on the network
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda f: _read_part(f, False, columns, categorical, store), files))


def visible_parts(files: list[Path], parts: list[_Part]) -> list[int]:
    """Indices of the readable parts that no merged part (in the same folder) replaces or covers.

    Parameters
    ----------
    files : list of pathlib.Path
        The parts' paths.
    parts : list
        `read_parts` of them, in the same order.

    Returns
    -------
    list of int
        Indices into ``files``.
    """
    replaced = {(f.parent, name) for f, part in zip(files, parts) for name in part.replaces}
    by_writer: dict[tuple[Path, str], list[tuple[int, int, int]]] = {}
    for f, part in zip(files, parts):
        if part.table is not None and part.covers is not None:
            prefix, first, last, level = part.covers
            by_writer.setdefault((f.parent, prefix), []).append((first, last, level))

    def covered(f: Path, part: _Part) -> bool:
        if part.covers is None:
            return False
        prefix, first, last, level = part.covers
        return any(a <= first and last <= b and lv > level for a, b, lv in by_writer[(f.parent, prefix)])

    return [i for i, (f, p) in enumerate(zip(files, parts))
            if p.table is not None and (f.parent, f.name) not in replaced and not covered(f, p)]


def _conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` with exactly ``schema``'s columns in its order (missing ones null)."""
    if table.schema == schema:
        return table
    n, names = table.num_rows, set(table.column_names)
    cols = [table.column(f.name) if f.name in names else _absent(f, n) for f in schema]
    return pa.Table.from_arrays(cols, schema=schema)


def _absent(field: pa.Field, n: int) -> pa.Array:
    """The values of a column a file lacks: its `ABSENT_DEFAULTS` value (``rules_version`` reads as
    ``UNVERSIONED``), else null."""
    if field.name in ABSENT_DEFAULTS:
        return pa.array(np.full(n, ABSENT_DEFAULTS[field.name]), type=COLUMNS[field.name][0]).cast(field.type)
    return pa.nulls(n, field.type)


def union_tables(tables: list[pa.Table], columns: Sequence[str] | None = None,
           categorical: frozenset[str] = frozenset()) -> pa.Table:
    """One table with the union of the columns: ``SCHEMA`` first, then extra columns in the order first seen
    (or exactly ``columns``, in their order). The ``categorical`` columns are ``DICTIONARY`` (each part keeps
    its own dictionary: concatenating copies no strings).

    Parameters
    ----------
    tables : list of pyarrow.Table
        Parts' tables.
    columns : sequence of str, optional
        Exactly these columns, in this order (missing ones null).
    categorical : frozenset of str, optional
        Columns kept as ``DICTIONARY``.

    Returns
    -------
    pyarrow.Table
        One table.

    Raises
    ------
    ValueError
        When ``columns`` names a column the results schema does not know.
    """
    fields = [f.with_type(DICTIONARY) if f.name in categorical else f for f in SCHEMA]
    seen = set(SCHEMA.names)
    for table in tables:
        for f in table.schema:
            if f.name not in seen:
                seen.add(f.name)
                fields.append(f)
    if columns is not None:
        by_name = {f.name: f for f in fields}
        unknown = [c for c in columns if c not in by_name]
        if unknown:
            raise ValueError(f"unknown results columns {unknown}; the results columns are: {', '.join(COLUMNS)}"
                             " (plus any extra column the files hold)")
        fields = [by_name[c] for c in columns]
    schema = pa.schema(fields)
    return pa.concat_tables([_conform(t, schema) for t in tables]) if tables else schema.empty_table()


def load_results(paths: str | Path | Iterable[str | Path], *, latest: bool = True,
                 columns: Sequence[str] | None = None, exclude: Callable[[Path], bool] | None = None,
                 categorical: bool = False) -> LoadedResults:
    """Every results part under ``paths`` (folders are searched recursively) as one pandas DataFrame.

    The columns are the UNION over all files: the ``SCHEMA`` columns first (null where a file lacks one), then
    extra columns in the order first seen. Corrupt files and foreign Parquet files (none of the results
    columns, or a results column of an incompatible type) are skipped and listed in ``skipped`` with the
    reason; a compacted part hides the small parts it replaced. With ``latest`` (the default), where rows were
    retried (``plates run --retry-errors``) only the newest row per ``row_key`` (by ``timestamp``) is kept.
    ``columns`` reads only those columns (faster; an unknown name raises ``ValueError``); ``exclude(path)`` True
    leaves a file out silently. ``paths`` may be one object-store URL (``s3://bucket/prefix``, `plates.storage`):
    its committed parts are read. The papers' reference tables (schema metadata ``plates.kind = reference``,
    `plates.results.reference`) are not runs: always left out, and not listed as skipped.

    ``categorical`` returns the `CATEGORICAL_COLUMNS` (every string column but ``row_key``) as pandas
    Categorical with sorted categories, read dictionary-encoded from Parquet: for a dashboard, several times
    less CPU and about half the memory of Python strings (bench/bench_dashboard.py). Values, nulls and sort
    order are those of the plain strings.

    Parameters
    ----------
    paths : str, pathlib.Path or iterable of them
        Folders (searched recursively) and files; or one object-store URL.
    latest : bool, default True
        Keep only the newest row per ``row_key``.
    columns : sequence of str, optional
        Read only these columns.
    exclude : callable, optional
        ``exclude(path)`` True leaves a file out silently.
    categorical : bool, default False
        String columns as pandas Categorical.

    Returns
    -------
    LoadedResults
        ``frame``, ``skipped`` and ``files``.

    Raises
    ------
    ValueError
        A path that does not exist, or an unknown column name.

    Examples
    --------
    See `plates.results.writer.write_part`, which writes a part and loads it back.
    """
    if not isinstance(categorical, bool):
        raise ValueError(f"categorical must be True or False, got {categorical!r}")  # noqa: TRY004 (house rule)
    as_dict = frozenset(CATEGORICAL_COLUMNS if categorical else ())
    if columns is not None:
        if isinstance(columns, str) or not all(isinstance(c, str) for c in columns):
            raise ValueError(f"columns must be a list of column names, got {columns!r:.80}")
        columns = list(dict.fromkeys(columns))
    read = None if columns is None else list(dict.fromkeys([*columns, *(["row_key", "timestamp"] if latest else []),
                                                            *_legacy_needs(columns)]))
    store = open_store(paths) if is_url(paths) else None
    for _attempt in range(3):  # a part deleted under us (compact_run merged it): list the folder again
        found = find_parts(paths) if store is None else store_parts(store)
        files = [f for f in found if exclude is None or not exclude(f)]
        parts = read_parts(files, read, as_dict, store)
        if not any(p.reason == _VANISHED for p in parts):
            break
    skipped = [(str(f), p.reason or "unreadable") for f, p in zip(files, parts)
               if p.table is None and not p.reference]
    keep = visible_parts(files, parts)
    supersedes = any(parts[i].supersedes for i in keep)
    named = read is None or "run_name" in read
    combined = union_tables([_with_run_name(parts[i].table, files[i], "run_name" in as_dict) if named
                             else parts[i].table for i in keep], read, as_dict)
    del parts  # the combined table holds the only references: to_pandas can free each column once converted
    if latest and supersedes:
        combined = _keep_latest(combined)
    if columns is not None:
        combined = combined.select(columns)
    frame = combined.to_pandas(split_blocks=True, self_destruct=True)
    del combined
    for name in frame.columns.intersection(list(as_dict)):
        cats = frame[name].cat.categories
        if not cats.is_monotonic_increasing:  # appearance order -> sorted, as the plain strings sort
            frame[name] = frame[name].cat.reorder_categories(cats.sort_values())
    return LoadedResults(frame=frame, skipped=skipped, files=[str(files[i]) for i in keep])


def _legacy_needs(columns: Sequence[str]) -> list[str]:
    """The columns `legacy_group` reads to give ``columns``: ``colour_set`` for ``group``, ``family`` for
    ``colour_set``."""
    needs = ["colour_set"] if "group" in columns else []
    return [*needs, "family"] if needs or "colour_set" in columns else needs


def _with_run_name(table: pa.Table, path: Path, categorical: bool) -> pa.Table:
    """``table`` (one part's rows) with ``run_name`` filled where a row records none: its part's folder name
    (`plates.results.schema.run_folder_name`)."""
    fallback = run_folder_name(path)
    if "run_name" not in table.column_names:
        column = pa.array([fallback] * table.num_rows, pa.string())
        return table.append_column(pa.field("run_name", DICTIONARY if categorical else pa.string()),
                                   column.dictionary_encode() if categorical else column)
    column = table.column("run_name")
    if column.null_count == 0:
        return table
    filled = pc.fill_null(column.cast(pa.string()), fallback)
    index = table.schema.get_field_index("run_name")
    return table.set_column(index, "run_name", filled.dictionary_encode() if categorical else filled)


def _keep_latest(table: pa.Table) -> pa.Table:
    """Drop rows superseded by a newer row with the same non-null ``row_key``; row order is kept."""
    keys = table.column("row_key")
    order = pc.sort_indices(table, sort_keys=[("row_key", "ascending"), ("timestamp", "ascending")])
    sorted_keys = pc.take(keys, order).to_numpy(zero_copy_only=False)
    last = np.ones(len(sorted_keys), dtype=bool)  # keep the last of each run of equal keys; null keys all kept
    last[:-1] = ~((sorted_keys[:-1] == sorted_keys[1:]) & pd.notna(sorted_keys[:-1]))
    return table.take(pa.array(np.sort(order.to_numpy()[last])))
