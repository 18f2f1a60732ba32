"""A benchmark set as Parquet shards holding the PNG bytes (`plates generate --format parquet`), on a local folder
or an object store (`plates.storage`): a few large files instead of one file per image (84,100 loose PNGs hit
file-count limits and cost one request each on object storage).

Layout under OUT::

    data/<dataset>-<writer>-<n>.parquet   rows: the manifest's columns, then ``image`` (struct<bytes: binary,
                                          path: string>: the PNG bytes as encoded, lossless), `ROWS_PER_GROUP`
                                          rows per row group, so one image is one ranged read
    manifest.parquet                      every item's manifest columns (no bytes), ``path`` naming its shard and
                                          ``shard_row`` its row; published last

Each shard and the manifest are published by `plates.storage.Store.commit` (whole or invisible). A rerun skips
the items already in committed shards; shards of a plan (``--shard I/N``) write shards side by side, and
whichever process finds every planned item committed writes the manifest (in plan order), so the manifest
equals an unsharded run's (its shards' file names differ). The shards' schema carries the Hugging Face
``datasets`` features (``image`` as ``Image``), so ``datasets.load_dataset("parquet", data_files=".../data/*")``
decodes the images as the PNGs written.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache, partial
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from plates.datasets.items import DRAWN_COLUMNS, MANIFEST, QUESTION_COLUMN, DatasetItem
from plates.datasets.workers import shared_or_new_pool
from plates.datasets.write import Entry, manifest_schema, prepare_job
from plates.stimuli import family_of, spec_from_json
from plates.storage import Store, open_store

__all__ = ["FORMAT_KEY", "ShardImage", "committed_ids", "is_parquet_set", "load_parquet_set", "write_parquet_set"]

DATA = "data"
#: Schema metadata key marking a parquet set's manifest (value: "parquet").
FORMAT_KEY = b"plates.format"
SHARD_ROW = "shard_row"
#: Schema metadata key of a shard: the generation's parameters as JSON (preset, size, seed, sample).
PARAMS_KEY = b"plates.generate"
#: Images per shard file and per row group (a 512 px plate is ~0.2 MB: ~100 MB a shard, ~3 MB a group).
ROWS_PER_SHARD = 512
ROWS_PER_GROUP = 16
_IMAGE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
_HF_TYPES = {pa.string(): "string", pa.float64(): "float64", pa.int32(): "int32", pa.uint64(): "uint64",
             pa.int64(): "int64"}


@dataclass(frozen=True)
class ShardImage:
    """Where one image of a parquet set is: the set's location (folder or URL), its shard and row.

    Parameters
    ----------
    location : str
        The set's folder or object-store URL.
    shard : str
        The shard's path relative to the set.
    row : int
        The image's row in the shard.
    """

    location: str
    shard: str
    row: int

    def read(self) -> bytes:
        """The PNG bytes (one row group read; the last few groups are kept per process)."""
        endpoint = (os.environ.get("AWS_ENDPOINT_URL_S3"), os.environ.get("AWS_ENDPOINT_URL"))
        group = _row_group(self.location, endpoint, self.shard, self.row // ROWS_PER_GROUP)
        return group[self.row % ROWS_PER_GROUP]


@lru_cache(maxsize=8)
def _store(location: str, endpoint: tuple) -> Store:
    """One store (one S3 client, credentials resolved once) per set location, endpoint and process."""
    return open_store(location)


@lru_cache(maxsize=4)
def _row_group(location: str, endpoint: tuple, shard: str, group: int) -> list[bytes]:
    with _store(location, endpoint).open(shard) as fh:
        table = pq.ParquetFile(fh).read_row_group(group, columns=["image"])
    return [v["bytes"] for v in table.column("image").to_pylist()]


def _features(schema: pa.Schema) -> bytes:
    """The Hugging Face ``datasets`` features of a shard's columns (``image`` an ``Image``), as its metadata."""
    features: dict[str, Any] = {"image": {"_type": "Image"}}
    for field in schema:
        if field.name != "image":
            features[field.name] = {"dtype": _HF_TYPES.get(field.type, "string"), "_type": "Value"}
    return json.dumps({"info": {"features": features}}).encode()


def is_parquet_set(location: str | os.PathLike) -> bool:
    """Whether ``location`` holds a committed Parquet set's manifest (False for an unreadable one).

    Parameters
    ----------
    location : str or os.PathLike
        A folder or object-store URL.

    Returns
    -------
    bool
        True when ``manifest.parquet`` exists there and its metadata marks the Parquet format.
    """
    store = open_store(location)
    if not store.exists(MANIFEST):
        return False
    try:
        with store.open(MANIFEST) as fh:
            return (pq.read_schema(fh).metadata or {}).get(FORMAT_KEY) == b"parquet"
    except (OSError, pa.ArrowInvalid):  # not Parquet: the loose-PNG loader names what is wrong with it
        return False


def committed_ids(out: str | os.PathLike | Store) -> set[str]:
    """The item ids already in committed shards under ``out`` (a rerun skips them).

    Parameters
    ----------
    out : str or os.PathLike or Store
        The set's folder, URL or open store.

    Returns
    -------
    set of str
    """
    store = open_store(out)
    names = store.child(DATA).list(suffix=".parquet")
    ids: set[str] = set()
    for name in names:
        with store.child(DATA).open(name) as fh:
            ids.update(pq.ParquetFile(fh).read(columns=["item_id"]).column("item_id").to_pylist())
    return ids


def write_parquet_set(dataset: str, jobs: Iterable[Entry | Callable[[], Iterable[Entry]]], ids: list[str] | None,
                      out: str | os.PathLike, *, workers: int = 1, compress_level: int = 2, progress: Any = None,
                      tag: str = "all", limit: int | None = None, params: dict | None = None,
                      pool: Pool | None = None) -> dict:
    """Write the items of ``jobs`` (entries, or picklable callables making entries: `plates.datasets.write`)
    not yet committed under ``out`` as Parquet shards (at most ``limit`` items), then the manifest once every
    id of ``ids`` (the whole plan, in order) is committed; ``ids`` None: the plan is what this writer made
    (no shards), the manifest follows at its end in the shards' order. ``tag`` names this writer's shards (a
    shard's `plates.shards.Shard.tag`); ``params`` (the generation's size, seed, sample) are recorded in each
    shard, and a rerun with other ones is refused. Rendering and PNG encoding run in ``workers`` processes
    (``pool``: a running `family_pool` of that many to use and leave running); returns a summary dict.

    Parameters
    ----------
    dataset : str
        The dataset column and the shards' name prefix.
    jobs : iterable of Entry or callable
        The work, in plan order.
    ids : list of str or None
        Every id of the whole plan, or None.
    out : str or os.PathLike
        The set's folder or object-store URL.
    workers : int, optional
        Processes rendering and encoding.
    compress_level : int, optional
        PNG deflate level, 0-9.
    progress : object, optional
        A progress bar with ``update(n)`` (tqdm), or None.
    tag : str, optional
        This writer's shard tag.
    limit : int or None, optional
        Write at most this many items.
    params : dict or None, optional
        The generation's parameters, recorded in each shard.
    pool : multiprocessing.pool.Pool or None, optional
        A running pool to use.

    Returns
    -------
    dict
        ``preset``, ``plates`` (None), ``written``, ``skipped`` (ids already committed), ``bytes``, ``rows`` (the
        manifest's, or None when another writer will publish it), ``out`` and ``format`` ("parquet").

    Raises
    ------
    ValueError
        Committed shards under ``out`` made with other ``params``.
    """
    store = open_store(out)
    _check_params(store, params or {})
    done = committed_ids(store)
    prepare = partial(prepare_job, compress_level=compress_level)
    written = nbytes = 0
    prefix = f"{dataset}-{tag}-{secrets.token_hex(4)}"
    batch: list[dict[str, Any]] = []
    shards: list[int] = []  # rows of each shard this writer committed
    families: dict[str, Any] = {}

    def flush() -> None:
        nonlocal batch
        if batch:
            table = _shard_table(batch, families, params or {})
            buffer = pa.BufferOutputStream()
            pq.write_table(table, buffer, compression="zstd", row_group_size=ROWS_PER_GROUP)
            store.child(DATA).commit(f"{prefix}-{len(shards):05d}.parquet", buffer.getvalue().to_pybytes())
            shards.append(len(batch))
            batch = []

    def store_all(prepared: Iterator[list[tuple[Entry, bytes, dict[str, Any]]]]) -> None:
        nonlocal written, nbytes
        for group in prepared:
            for e, png, values in group:
                if e.item_id in done or (limit is not None and written >= limit):
                    continue
                family = family_of(e.spec)
                families.setdefault(family.name, family)
                batch.append({**values, "dataset": dataset, "image": {"bytes": png, "path": f"{e.item_id}.png"}})
                written, nbytes = written + 1, nbytes + len(png)
                if progress is not None:
                    progress.update(1)
                if len(batch) >= ROWS_PER_SHARD:
                    flush()

    todo = (j for j in jobs if not (isinstance(j, Entry) and j.item_id in done))
    if workers == 1:
        store_all(map(prepare, todo))
    else:
        with shared_or_new_pool(workers, pool) as running:
            store_all(running.imap(prepare, todo, chunksize=2))
    flush()
    rows = _publish_manifest(store, ids)
    return {"preset": dataset, "plates": None, "written": written, "skipped": len(done), "bytes": nbytes,
            "rows": rows, "out": store.url, "format": "parquet"}


def _shard_table(batch: list[dict[str, Any]], families: dict[str, Any], params: dict) -> pa.Table:
    schema = manifest_schema(families.values()).append(pa.field("image", _IMAGE))
    schema = schema.with_metadata({b"huggingface": _features(schema), PARAMS_KEY: json.dumps(params, sort_keys=True)})
    return pa.table({c: [v.get(c) for v in batch] for c in schema.names}, schema=schema)


def _check_params(store: Store, params: dict) -> None:
    """Refuse to add to a set whose committed shards were made with other generation parameters."""
    names = store.child(DATA).list(suffix=".parquet")
    if not names:
        return
    with store.child(DATA).open(names[0]) as fh:
        held = json.loads((pq.read_schema(fh).metadata or {}).get(PARAMS_KEY, b"{}"))
    if held != json.loads(json.dumps(params, sort_keys=True)):
        raise ValueError(f"--out {store.url!r} holds a set made with {held}, not {params}; allowed: the same preset, "
                         "--size, --seed and --sample to resume it, or another --out")


def _publish_manifest(store: Store, ids: list[str] | None) -> int | None:
    """Write the manifest when every planned id is committed (None otherwise: another shard will).

    Not `plates.datasets.items.publish_manifest` / `finish_manifest`, and for three reasons, not a copy of
    them: the set may live on an object store, where `plates.storage.Store.commit` is the one atomic publish
    (those write a local ``Path`` with `plates.storage.written_in_place`); its rows are read back from the
    committed shards, which are what a sharded plan shares (theirs come from the writer's own rows, or from
    ``manifest.shards/`` parts on a local disk); and it carries ``shard_row`` and the `FORMAT_KEY` mark in
    place of the ImageFolder ``file_name`` column and ``metadata.parquet`` link, which describe loose PNGs.
    Its columns are the shards', i.e. `plates.datasets.write.manifest_schema` (the one schema of family
    manifests), not the loose plate set's `plates.datasets.items.MANIFEST_SCHEMA`.

    Parameters
    ----------
    store : Store
        The set's location.
    ids : list of str or None
        Every planned item id in plan order, or None: the manifest lists the committed shards' rows as they are.

    Returns
    -------
    int or None
        Rows written, or None when a planned id is not committed yet.
    """
    data = store.child(DATA)
    tables = []
    for name in data.list(suffix=".parquet"):
        with data.open(name) as fh:
            pf = pq.ParquetFile(fh)
            columns = [c for c in pf.schema_arrow.names if c != "image"]
            t = pf.read(columns=columns)
        tables.append(t.set_column(t.schema.get_field_index("path"), "path", pa.array([f"{DATA}/{name}"] * len(t)))
                      .append_column(SHARD_ROW, pa.array(range(len(t)), pa.int32())))
    table = pa.concat_tables(tables, promote_options="default") if tables else None
    if table is None or (ids is not None and not set(ids) <= set(table.column("item_id").to_pylist())):
        return None
    position = {item_id: i for i, item_id in enumerate(ids if ids is not None else table.column("item_id").to_pylist())}
    keep = sorted((position[v], r) for r, v in enumerate(table.column("item_id").to_pylist()) if v in position)
    table = table.take([r for _, r in keep]).replace_schema_metadata({FORMAT_KEY: b"parquet"})
    buffer = pa.BufferOutputStream()
    pq.write_table(table, buffer, compression="zstd")
    store.commit(MANIFEST, buffer.getvalue().to_pybytes())
    return table.num_rows


def load_parquet_set(location: str | os.PathLike, limit: int | None = None) -> list[DatasetItem]:
    """The items of a parquet set (images read lazily from their shards: `ShardImage`).

    Parameters
    ----------
    location : str or os.PathLike
        The set's folder or object-store URL.
    limit : int or None, optional
        The first ``limit`` items only.

    Returns
    -------
    list of DatasetItem
        In manifest order, each ``path`` a `ShardImage`.
    """
    store = open_store(location)
    with store.open(MANIFEST) as fh:
        table = pq.read_table(fh)
    if limit is not None:
        table = table.slice(0, limit)
    cols = table.to_pydict()
    n = table.num_rows
    none = [None] * n
    groups = cols.get("group") or cols.get("colour_set") or none
    labels = [lab if lab is not None else (text or "") for lab, text in
              zip(cols.get("label") or none, cols.get("answer_text") or none)]
    recorded = all(c in cols for c in DRAWN_COLUMNS)
    where = store.url if store.object_store else str(Path(store.root))
    return [
        DatasetItem(cols["item_id"][i], cols["dataset"][i], spec_from_json(cols["spec_json"][i]), cols["variant"][i],
                    labels[i], groups[i] or "", ShardImage(where, cols["path"][i], cols[SHARD_ROW][i]),
                    (cols.get(QUESTION_COLUMN) or none)[i],
                    {c: cols[c][i] for c in DRAWN_COLUMNS} if recorded and cols["delta_e_drawn_median"][i] is not None
                    else None, delta_e=(cols.get("delta_e") or none)[i])
        for i in range(n)
    ]
