"""Writing any family's items to a folder `plates run` reads: one PNG per item and ``manifest.parquet``.

The preset writer (`plates.datasets.generate`) is tuned for the large plate sets (worker processes, resume);
this one takes any stimulus specs (`plates.stimuli.STIMULI`): illusion and scene presets, grid files, a family a
user adds, rendered and encoded by worker processes when asked (`write_items`'s ``workers``). Each PNG is
written atomically (`plates.storage.write_atomic`: a temporary file, then a rename) and losslessly
(`plates.images.encode_png`), and made durable all at once before the manifest that lists it is written
(`plates.datasets.items.write_parquet_atomic`); an image already on disk is kept when it is a whole PNG of the
stimulus's size (`plates.images.png_intact`) and drawn again otherwise (rerun to finish an interrupted write or
repair a damaged one); the manifest is rewritten atomically at the end from what is on disk. The manifest speaks
each family's language: the common columns (`plates.datasets.items.COMMON_COLUMNS`), then the columns each
family present declares (`plates.stimuli.base.Family.manifest_columns`: a plate's colour set and drawn ΔE2000,
an illusion's kind, item class, strength, signed ΔE2000, predicted percept and human key, a scene's task,
answer and options).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from itertools import islice
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from plates.datasets.items import COMMON_COLUMNS, MANIFEST, PLAN_POSITION, finish_manifest
from plates.datasets.workers import shared_or_new_pool
from plates.images import encode_png, png_intact
from plates.shards import Shard
from plates.stimuli import family_of, render
from plates.stimuli.base import Family
from plates.stimuli.ishihara.measure import target_kind
from plates.stimuli.ishihara.plate import PlateSpec
from plates.stimuli.ishihara.plate import render as render_plate
from plates.storage import write_atomic
from plates.validation import check_int

__all__ = ["Entry", "PlateTask", "check_same_set", "manifest_schema", "measured_values", "store_png", "write_items",
           "write_plate"]

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Entry:
    """One image to write: its id (unique in the dataset), spec (any family), variant, answer label (text,
    or "" where the answer depends on the question), group (few-shot examples come from the same group) and,
    for an item made for one question, that question (a JSON-able dict with its ``task``).

    Parameters
    ----------
    item_id : str
        Unique in the dataset.
    spec : object
        Any family's spec.
    variant : str, optional
        The image variant.
    label : str, optional
        The answer as text, or "".
    group : str, optional
        The few-shot group (a plate's colour set, an illusion's kind, a scene's task or seed).
    question : mapping or None, optional
        The item's fixed question, or None.
    stimulus : object, optional
        The rendered stimulus when already made (not stored; saves a render).
    """

    item_id: str
    spec: Any
    variant: str = "standard"
    label: str = ""
    group: str = ""
    question: Mapping[str, Any] | None = None
    stimulus: Any = None  # the rendered stimulus when the caller has it already (not stored; saves a render)


#: Parquet types of the manifest's value types (`plates.stimuli.base.MANIFEST_TYPES`).
_ARROW = {"string": pa.string(), "float64": pa.float64(), "int32": pa.int32()}
_COMMON_TYPES = {"size": pa.int32(), "seed": pa.uint64()}  # the other common columns are text


def manifest_schema(families: Iterable[Family]) -> pa.Schema:
    """The manifest's columns for items of ``families``: `COMMON_COLUMNS`, then each family's own columns in
    the order the families come (a column two families both declare appears once, with the first's type).

    Parameters
    ----------
    families : iterable of Family
        The families of the set's items.

    Returns
    -------
    pyarrow.Schema
    """
    columns: dict[str, pa.DataType] = {c: _COMMON_TYPES.get(c, pa.string()) for c in COMMON_COLUMNS}
    for family in families:
        for column in family.manifest_columns:
            columns.setdefault(column.name, _ARROW[column.type])
    return pa.schema(list(columns.items()))


def _prepare(e: Entry, compress_level: int = 2) -> tuple[Entry, bytes, dict[str, Any]]:
    """One entry made ready to store, where the CPU goes (a worker process when `write_items` has several): its
    stimulus rendered (unless the entry carries it), its image PNG-encoded (`plates.images.encode_png`) and its
    manifest values except the dataset and path; the entry comes back without its stimulus (nothing large is
    pickled)."""
    family = family_of(e.spec)  # a spec of a registered family, or a ValueError naming the families
    stimulus = e.stimulus if e.stimulus is not None else render(e.spec)
    own = family.manifest_row(stimulus, label=e.label, group=e.group, question=e.question)
    values = {
        **own, "item_id": e.item_id, "family": family.name, "group": e.group, "variant": e.variant,
        "size": int(e.spec.size), "seed": int(e.spec.seed), "spec_json": e.spec.to_json(),
        "question_json": None if e.question is None else json.dumps(e.question, sort_keys=True),
    }
    return replace(e, stimulus=None), encode_png(stimulus.variant(e.variant), compress_level), values


def prepare_job(job: Entry | Callable[[], Iterable[Entry]], compress_level: int = 2,
                ) -> list[tuple[Entry, bytes, dict[str, Any]]]:
    """`_prepare` for every entry of one job: an `Entry`, or a picklable callable making entries (a scene item
    renders its scene to fix its question, so that work belongs in the worker too).

    Parameters
    ----------
    job : Entry or callable
        One entry, or a callable returning entries.
    compress_level : int, optional
        PNG deflate level, 0-9.

    Returns
    -------
    list of tuple of (Entry, bytes, dict)
        Per entry: the entry, its PNG bytes and its manifest values.
    """
    return [_prepare(e, compress_level) for e in ([job] if isinstance(job, Entry) else job())]


def item_path(dataset: str, index: int, e: Entry) -> str:
    """Where entry ``e`` of job ``index`` is stored, relative to the output folder:
    ``<dataset>/<group or 'all'>/<index:06d>_<id>.png`` (unsafe characters become '-').

    Parameters
    ----------
    dataset : str
        The dataset's name.
    index : int
        The job's number.
    e : Entry
        The entry.

    Returns
    -------
    str
    """
    return f"{_SAFE.sub('-', dataset)}/{_SAFE.sub('-', e.group) or 'all'}/{index:06d}_{_SAFE.sub('-', e.item_id)}.png"


def store_png(out: str | os.PathLike, rel: str, side: int, png: bytes | Callable[[], bytes]) -> int:
    """Store one image of a set: ``png`` (the bytes, or a function encoding them, called only when needed) at
    ``out/rel``, unless a whole PNG of ``side`` x ``side`` px is there already (`plates.images.png_intact`: a
    missing, 0-byte, truncated or damaged file with the final name is written again). Written atomically
    (`plates.storage.write_atomic`), made durable with the manifest that lists it
    (`plates.datasets.items.write_parquet_atomic`). Returns the bytes written, 0 for an image kept.

    Parameters
    ----------
    out : str or os.PathLike
        The output folder.
    rel : str
        The image's path relative to it.
    side : int
        The image's width = height, px.
    png : bytes or callable
        The PNG bytes, or a function returning them.

    Returns
    -------
    int
    """
    path = Path(out) / rel
    if png_intact(path, (side, side)):
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomic(png if isinstance(png, bytes) else png(), path, defer_sync=True)


def measured_values(plate) -> tuple:
    """A plate's `DrawnDeltaE` as the values of the manifest's measured columns
    (`plates.datasets.generate.MEASURED_COLUMNS`), in order (the drawn ones null for a plate with no dot of one
    class).

    Parameters
    ----------
    plate : plates.stimuli.ishihara.plate.Plate
        A rendered plate.

    Returns
    -------
    tuple
        ``(delta_e_target, delta_e_target_kind, delta_e_drawn_min, _p05, _median, _p95)``, CIEDE2000.
    """
    drawn = plate.delta_e_drawn  # not plate.stats: the text coverage's painting is not a manifest column
    if drawn is None:
        return (plate.spec.delta_e, target_kind(plate.spec), None, None, None, None)
    return (drawn.target, drawn.target_kind, drawn.min, drawn.p05, drawn.median, drawn.p95)


#: One plate for `write_plate`: (its key in the caller's plan, the output folder, its spec, (variant, path
#: relative to the folder) for each image, zlib compress level 0-9).
PlateTask = tuple[Any, str, PlateSpec, tuple[tuple[str, str], ...], int]


def write_plate(task: PlateTask) -> tuple[int, int, int, Any, tuple]:
    """The one plate writer of the plate sets (presets, grids, specs): render one plate, store each of its
    images that is not on disk whole (`store_png`) and measure the ΔE2000 it draws. A plate whose images are all
    on disk is still rendered (not encoded), so the manifest reports what it draws.

    Parameters
    ----------
    task : PlateTask
        ``(key, out, spec, paths, compress_level)``.

    Returns
    -------
    tuple
        ``(written, skipped, bytes written, key, measured_values(plate))``.
    """
    key, out, spec, paths, compress_level = task
    plate = render_plate(spec)
    side = plate.spec.size
    sizes = [store_png(out, rel, side, partial(_encode_variant, plate, v, compress_level)) for v, rel in paths]
    written = sum(1 for b in sizes if b)
    return written, len(paths) - written, sum(sizes), key, measured_values(plate)


def _encode_variant(plate, variant: str, compress_level: int) -> bytes:
    return encode_png(plate.variant_pixels(variant), compress_level)


def check_same_set(out: Path, name: str, what: str, record_path: Path, record: dict[str, Any], *,
                   mismatch: Callable[[dict[str, Any]], str], held: dict[str, Any] | None = None) -> None:
    """Refuse to resume a set into a folder made otherwise, else record how this one is made.

    Parameters
    ----------
    out : Path
        The output folder.
    name : str
        The set's dataset name.
    what : str
        What the set is, as the errors name it ("preset", "grid").
    record_path : Path
        The JSON file recording how the set in ``out`` was made (``generate.json``, ``grid.json``).
    record : dict
        How this set is made; written to ``record_path`` when there is none.
    mismatch : callable
        The error message for a folder whose record (given) differs from ``record``.
    held : dict, optional
        The record to assume when ``record_path`` is absent (a folder made before records existed).

    Raises
    ------
    ValueError
        When ``out/manifest.parquet`` lists another dataset (it would be overwritten), or the folder's record
        differs from ``record`` (compared as canonical JSON: its images would be skipped and the manifest would
        describe pixels that are not there).
    """
    manifest = out / MANIFEST
    if manifest.is_file():
        others = set(pq.read_table(manifest, columns=["dataset"]).column("dataset").to_pylist()) - {name}
        if others:
            raise ValueError(f"--out {str(out)!r} already holds dataset {min(others)!r} (its {MANIFEST}); "
                             f"allowed: a separate --out for {what} {name!r}")
    if record_path.is_file():
        held = json.loads(record_path.read_text(encoding="utf-8"))
    mine = json.dumps(record, sort_keys=True)
    if held is not None and json.dumps(held, sort_keys=True) != mine:
        raise ValueError(mismatch(held))
    if not record_path.is_file():
        record_path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(mine.encode("utf-8"), record_path)


def _write_job(numbered: tuple[int, Entry | Callable[[], Iterable[Entry]]], out: str, dataset: str,
               compress_level: int = 2) -> tuple[int, list[tuple[Entry, str, bool, dict[str, Any]]]]:
    """`prepare_job` of job ``numbered`` (its number in the plan, the job), then each image stored where the CPU
    went (a worker process when `write_items` has several; the parent only gathers rows): written
    (`plates.storage.write_atomic`) unless a whole PNG of its size is there already (`plates.images.png_intact`).
    Returns the number with (entry, relative path, whether this call wrote the file, manifest values) each."""
    index, job = numbered
    done = []
    for e, png, row in prepare_job(job, compress_level):
        rel = item_path(dataset, index, e)
        fresh = store_png(out, rel, int(e.spec.size), png) > 0  # every family's image is size x size px
        done.append((e, rel, fresh, row))
    return index, done


def write_items(dataset: str, entries: Iterable[Entry | Callable[[], Iterable[Entry]]], out: str | os.PathLike,
                *, workers: int = 1, limit: int | None = None, compress_level: int = 2,
                shard: Shard | None = None, pool: Pool | None = None) -> int:
    """Write ``entries`` of ``dataset`` under ``out`` (``out/<dataset>/<group>/<n>_<id>.png``, n the number of
    the entry's job in ``entries``, and ``out/manifest.parquet``); returns the number of manifest rows (with a
    shard: of its part). Item ids must be unique (ValueError).

    ``shard`` (`plates.shards.Shard`): only the jobs it owns (job n's key is ``"<dataset>:<n>"``), their rows
    written as a manifest part that the last shard to finish merges (`plates.datasets.items.merge_shard_manifests`):
    N shards into one ``out`` equal the unsharded set. With a shard, ``limit`` keeps the first ``limit`` jobs.

    ``entries`` may also hold jobs: picklable callables (e.g. a ``functools.partial`` of a module-level
    function) that each make a few entries. With ``workers`` > 1, entries and jobs are rendered and encoded by
    that many processes (`plates.datasets.workers.family_pool`: forked from a process running no other thread,
    else spawned: a script needs the ``if __name__ == "__main__":`` guard), which also write the images (each its
    own file); this process gathers the rows in plan order and alone writes the manifest, so the set is
    byte-identical to ``workers=1``. ``pool``: a running `family_pool` of ``workers`` to use (and leave
    running) instead of making one. ``limit``: stop after that many entries. PNGs:
    `plates.images.encode_png` at zlib ``compress_level``.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    entries : iterable of Entry or callable
        Entries and jobs, in plan order.
    out : str or os.PathLike
        The output folder.
    workers : int, optional
        Processes, >= 1.
    limit : int or None, optional
        As above.
    compress_level : int, optional
        0-9.
    shard : plates.shards.Shard or None, optional
        As above.
    pool : multiprocessing.pool.Pool or None, optional
        As above.

    Returns
    -------
    int
        Manifest rows.

    Raises
    ------
    ValueError
        A bad ``workers``, ``compress_level`` or ``shard``, or an item id given twice.
    """
    check_int("workers (processes)", workers, 1)
    check_int("compress_level", compress_level, 0, 9)
    if shard is not None and not isinstance(shard, Shard):
        raise ValueError(f"shard={shard!r} is not valid; allowed: None or a plates.shards.Shard")
    out = Path(out)
    work = partial(_write_job, out=str(out), dataset=dataset, compress_level=compress_level)
    values: list[dict[str, Any]] = []
    families: dict[str, Family] = {}
    seen: set[str] = set()
    # every job makes at least one entry: the first `limit` jobs hold the first `limit` entries (no worker draws
    # or writes past them)
    jobs: Iterable[tuple[int, Any]] = enumerate(islice(entries, limit))
    if shard is not None:
        jobs = ((i, job) for i, job in jobs if shard.owns(f"{dataset}:{i}"))
        limit = None

    def store(done: Iterable[tuple[int, list[tuple[Entry, str, bool, dict[str, Any]]]]]) -> None:
        extra: list[str] = []  # files the workers wrote past the limit (a job of several entries cut short)
        for index, batch in done:
            for k, (e, rel, fresh, row) in enumerate(batch):
                if limit is not None and len(values) >= limit:
                    if fresh:
                        extra.append(rel)
                    continue
                if e.item_id in seen:
                    if fresh:
                        (out / rel).unlink(missing_ok=True)
                    raise ValueError(f"item id {e.item_id!r} appears twice in dataset {dataset!r}; allowed: "
                                     "unique ids")
                seen.add(e.item_id)
                family = family_of(e.spec)
                families.setdefault(family.name, family)
                values.append({**row, "dataset": dataset, "path": rel, PLAN_POSITION: (index << 20) + k})
        for rel in extra:
            (out / rel).unlink(missing_ok=True)

    if workers == 1:
        store(map(work, jobs))
    else:
        # ordered results keep each item's index (its file name) as a serial run's
        with shared_or_new_pool(workers, pool) as running:
            store(running.imap(work, jobs, chunksize=2))
    schema = manifest_schema(families.values())
    # a column that is not the row's family's stays null: no family's field lands in another's column
    table = pa.table({c: [v.get(c) for v in values] for c in schema.names}, schema=schema)
    out.mkdir(parents=True, exist_ok=True)
    return finish_manifest(table, out, shard, [v[PLAN_POSITION] for v in values])
