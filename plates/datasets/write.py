"""Writing any family's items to a folder `plates run` reads: one PNG per item and ``manifest.parquet``.

The preset writer (`plates.datasets.generate`) is tuned for the large plate sets (worker processes, resume);
this one takes any stimulus specs (`plates.stimuli.STIMULI`): illusion and scene presets, grid files, a family a
user adds, rendered and encoded by worker processes when asked (`write_items`'s ``workers``). Each PNG is written
atomically and durably (`plates.images.write_png_file`: fsync before the rename) and losslessly
(`plates.images.encode_png`); an image already on disk is kept when it is a whole PNG of the stimulus's size
(`plates.images.png_intact`) and drawn again otherwise (rerun to finish an interrupted write or repair a damaged
one); the manifest is rewritten atomically at the end from what is on disk.
"""

from __future__ import annotations

import json
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

from plates.datasets.items import HUMAN_KEY_COLUMN, MANIFEST, MANIFEST_COLUMNS, QUESTION_COLUMN
from plates.images import encode_png, png_intact, write_png_file
from plates.stimuli import family_of, render

__all__ = ["Entry", "write_items"]

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


def _schema() -> pa.Schema:
    """The manifest's columns: text, except sizes, seeds and the ΔE2000 figures (plate-only ones stay null)."""
    def kind(c: str) -> pa.DataType:
        if c in ("size",):
            return pa.int32()
        if c == "seed":
            return pa.uint64()
        if c.startswith("delta_e") and c != "delta_e_target_kind":
            return pa.float64()
        return pa.string()

    return pa.schema([(c, kind(c)) for c in (*MANIFEST_COLUMNS, QUESTION_COLUMN, HUMAN_KEY_COLUMN)])


def _drawn(drawn: Any, target: Any) -> dict[str, Any]:
    """The manifest's ΔE2000-as-drawn columns from an Ishihara plate's `DrawnDeltaE` (null for other families)."""
    if drawn is None:
        return {"delta_e_target": target, "delta_e_target_kind": None, "delta_e_drawn_min": None,
                "delta_e_drawn_p05": None, "delta_e_drawn_median": None, "delta_e_drawn_p95": None}
    return {"delta_e_target": drawn.target, "delta_e_target_kind": drawn.target_kind, "delta_e_drawn_min": drawn.min,
            "delta_e_drawn_p05": drawn.p05, "delta_e_drawn_median": drawn.median, "delta_e_drawn_p95": drawn.p95}


def _prepare(e: Entry, compress_level: int = 2) -> tuple[Entry, bytes, dict[str, Any]]:
    """One entry made ready to store, where the CPU goes (a worker process when `write_items` has several): its
    stimulus rendered (unless the entry carries it), its image PNG-encoded (`plates.images.encode_png`) and its
    manifest values except the path; the entry comes back without its stimulus (nothing large is pickled)."""
    family_of(e.spec)  # a spec of a registered family, or a ValueError naming the families
    stimulus = e.stimulus if e.stimulus is not None else render(e.spec)
    stats = dict(stimulus.stats)
    values = {
        "item_id": e.item_id, "dataset": None, "label": e.label, "colour_set": e.group,
        "delta_e": stats.get("delta_e"), "variant": e.variant, "font": getattr(e.spec, "font", None),
        "size": int(e.spec.size), "seed": int(e.spec.seed), "spec_json": e.spec.to_json(),
        "question_json": None if e.question is None else json.dumps(e.question, sort_keys=True),
        HUMAN_KEY_COLUMN: stimulus.truth.get("human_key"),
        **_drawn(stats.get("delta_e_drawn"), stats.get("delta_e_target")),
    }  # the drawn-ΔE2000 columns describe plates only: null for other families
    return replace(e, stimulus=None), encode_png(stimulus.variant(e.variant), compress_level), values


def _prepare_job(job: Entry | Callable[[], Iterable[Entry]], compress_level: int = 2,
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
    ``if __name__ == "__main__":`` guard) in the given order;
    this process alone writes the files and the manifest, so the set is byte-identical to ``workers=1``.
    ``limit``: stop after that many entries. PNGs: `plates.images.encode_png` at zlib ``compress_level``."""
    import multiprocessing as mp

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers={workers!r} is not valid; allowed: an integer >= 1 (processes)")
    if isinstance(compress_level, bool) or not isinstance(compress_level, int) or not 0 <= compress_level <= 9:
        raise ValueError(f"compress_level={compress_level!r} is not valid; allowed: an integer 0-9")
    prepare = partial(_prepare_job, compress_level=compress_level)
    out = Path(out)
    rows: dict[str, list] = {c: [] for c in (*MANIFEST_COLUMNS, QUESTION_COLUMN, HUMAN_KEY_COLUMN)}
    seen: set[str] = set()

    def store(prepared: Iterable[list[tuple[Entry, bytes, dict[str, Any]]]]) -> None:
        n = 0
        for batch in prepared:
            for e, png, values in batch:
                if limit is not None and n >= limit:
                    return
                if e.item_id in seen:
                    raise ValueError(f"item id {e.item_id!r} appears twice in dataset {dataset!r}; allowed: "
                                     "unique ids")
                seen.add(e.item_id)
                rel = (f"{_SAFE.sub('-', dataset)}/{_SAFE.sub('-', e.group) or 'all'}/"
                       f"{n:06d}_{_SAFE.sub('-', e.item_id)}.png")
                path = out / rel
                side = int(e.spec.size)  # every family's image is size x size px
                if not png_intact(path, (side, side)):  # missing, or a damaged file with the final name: written
                    path.parent.mkdir(parents=True, exist_ok=True)
                    write_png_file(png, path)
                values = {**values, "dataset": dataset, "path": rel}
                for c in rows:
                    rows[c].append(values.get(c))
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
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / f".tmp-{os.getpid()}-{MANIFEST}"
    pq.write_table(pa.table(rows, schema=_schema()), tmp, compression="zstd")
    os.replace(tmp, out / MANIFEST)
    return len(rows["item_id"])
