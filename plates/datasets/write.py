"""Writing any family's items to a folder `plates run` reads: one PNG per item and ``manifest.parquet``.

The preset writer (`plates.datasets.generate`) is tuned for the large plate sets (worker processes, resume);
this one takes any stimulus specs (`plates.stimuli.STIMULI`): illusion and scene presets, grid files, a family a
user adds, rendered and encoded by worker processes when asked (`write_items`'s ``workers``). Each PNG is
written atomically and durably (`plates.images.write_png_file`: fsync before the rename) and losslessly (`plates.images.encode_png`); an image already on disk is kept when it is a whole PNG of the
stimulus's size (`plates.images.png_intact`) and drawn again otherwise (rerun to finish an interrupted write or
repair a damaged one); the manifest is rewritten atomically at the end from what is on disk. The manifest speaks
each family's language: the common columns (`plates.datasets.items.COMMON_COLUMNS`), then the columns each
family present declares (`plates.stimuli.base.Family.manifest_columns`: a plate's colour set and drawn ΔE2000,
an illusion's kind, item class, strength, signed ΔE2000, predicted percept and human key, a scene's task,
answer and options).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from plates.datasets.items import COMMON_COLUMNS, MANIFEST, publish_manifest
from plates.images import encode_png, png_intact, write_png_file
from plates.stimuli import family_of, render
from plates.stimuli.base import Family

__all__ = ["Entry", "manifest_schema", "write_items"]

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Entry:
    """One image to write: its id (unique in the dataset), spec (any family), variant, answer label (text,
    or "" where the answer depends on the question), group (few-shot examples come from the same group) and,
    for an item made for one question, that question (a JSON-able dict with its ``task``)."""

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
    the order the families come (a column two families both declare appears once, with the first's type)."""
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
    renders its scene to fix its question, so that work belongs in the worker too)."""
    return [_prepare(e, compress_level) for e in ([job] if isinstance(job, Entry) else job())]


def write_items(dataset: str, entries: Iterable[Entry | Callable[[], Iterable[Entry]]], out: str | os.PathLike,
                *, workers: int = 1, limit: int | None = None, compress_level: int = 2) -> int:
    """Write ``entries`` of ``dataset`` under ``out`` (``out/<dataset>/<group>/<n>_<id>.png`` and
    ``out/manifest.parquet``); returns the number of manifest rows. Item ids must be unique (ValueError).

    ``entries`` may also hold jobs: picklable callables (e.g. a ``functools.partial`` of a module-level
    function) that each make a few entries. With ``workers`` > 1, entries and jobs are rendered and encoded by
    that many processes (forked from a process running no other thread, else spawned: a script needs the
    ``if __name__ == "__main__":`` guard) in the given order; this process alone writes the files and the
    manifest, so the set is byte-identical to ``workers=1``. ``limit``: stop after that many entries. PNGs:
    `plates.images.encode_png` at zlib ``compress_level``."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers={workers!r} is not valid; allowed: an integer >= 1 (processes)")
    if isinstance(compress_level, bool) or not isinstance(compress_level, int) or not 0 <= compress_level <= 9:
        raise ValueError(f"compress_level={compress_level!r} is not valid; allowed: an integer 0-9")
    prepare = partial(prepare_job, compress_level=compress_level)
    out = Path(out)
    values: list[dict[str, Any]] = []
    families: dict[str, Family] = {}
    seen: set[str] = set()

    def store(prepared: Iterable[list[tuple[Entry, bytes, dict[str, Any]]]]) -> None:
        n = 0
        for batch in prepared:
            for e, png, row in batch:
                if limit is not None and n >= limit:
                    return
                if e.item_id in seen:
                    raise ValueError(f"item id {e.item_id!r} appears twice in dataset {dataset!r}; allowed: "
                                     "unique ids")
                seen.add(e.item_id)
                family = family_of(e.spec)
                families.setdefault(family.name, family)
                rel = (f"{_SAFE.sub('-', dataset)}/{_SAFE.sub('-', e.group) or 'all'}/"
                       f"{n:06d}_{_SAFE.sub('-', e.item_id)}.png")
                path = out / rel
                side = int(e.spec.size)  # every family's image is size x size px
                if not png_intact(path, (side, side)):  # missing, or a damaged file with the final name: written
                    path.parent.mkdir(parents=True, exist_ok=True)
                    write_png_file(png, path)
                values.append({**row, "dataset": dataset, "path": rel})
                n += 1

    if workers == 1:
        store(map(prepare, entries))
    else:
        # forked when this process runs no other thread (a plain `plates generate`): workers start at once with
        # what is imported here (spawned ones re-import the families, about 1 s of CPU each, most of a small
        # preset's time); spawned otherwise, as plates.datasets.generate's pool, since forking a threaded
        # process can deadlock. Ordered results keep each item's index (its file name) as a serial run's.
        method = "fork" if "fork" in mp.get_all_start_methods() and threading.active_count() == 1 else "spawn"
        with mp.get_context(method).Pool(workers) as pool:
            store(pool.imap(prepare, entries, chunksize=2))
    schema = manifest_schema(families.values())
    # a column that is not the row's family's stays null: no family's field lands in another's column
    table = pa.table({c: [v.get(c) for v in values] for c in schema.names}, schema=schema)
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / f".tmp-{os.getpid()}-{MANIFEST}"
    pq.write_table(table, tmp, compression="zstd")
    publish_manifest(tmp, out)
    return table.num_rows
