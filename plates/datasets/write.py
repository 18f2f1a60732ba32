"""Writing any family's items to a folder `plates run` reads: one PNG per item and ``manifest.parquet``.

The preset writer (`plates.datasets.generate`) is tuned for the large plate sets (worker processes, resume);
this one takes any stimulus specs (`plates.stimuli.STIMULI`): illusion and scene presets, grid files, a family a
user adds. Each PNG is written atomically and durably (`plates.images.write_png_file`: fsync before the rename)
and losslessly (`plates.images.encode_png`); an image already on disk is kept when it is a whole PNG of the
stimulus's size (`plates.images.png_intact`) and drawn again otherwise (rerun to finish an interrupted write or
repair a damaged one); the manifest is rewritten atomically
at the end from what is on disk.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
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


def write_items(dataset: str, entries: Iterable[Entry], out: str | os.PathLike) -> int:
    """Write ``entries`` of ``dataset`` under ``out`` (``out/<dataset>/<group>/<n>_<id>.png`` and
    ``out/manifest.parquet``); returns the number of manifest rows. Item ids must be unique (ValueError)."""
    out = Path(out)
    rows: dict[str, list] = {c: [] for c in (*MANIFEST_COLUMNS, QUESTION_COLUMN, HUMAN_KEY_COLUMN)}
    seen: set[str] = set()
    for n, e in enumerate(entries):
        if e.item_id in seen:
            raise ValueError(f"item id {e.item_id!r} appears twice in dataset {dataset!r}; allowed: unique ids")
        seen.add(e.item_id)
        family_of(e.spec)  # a spec of a registered family, or a ValueError naming the families
        rel = f"{_SAFE.sub('-', dataset)}/{_SAFE.sub('-', e.group) or 'all'}/{n:06d}_{_SAFE.sub('-', e.item_id)}.png"
        path = out / rel
        stimulus = e.stimulus if e.stimulus is not None else render(e.spec)
        if not png_intact(path, stimulus.image.size):  # missing, or a damaged file with the final name: drawn
            path.parent.mkdir(parents=True, exist_ok=True)
            write_png_file(encode_png(stimulus.variant(e.variant)), path)
        stats = dict(stimulus.stats)
        values = {
            "item_id": e.item_id, "dataset": dataset, "label": e.label, "colour_set": e.group,
            "delta_e": stats.get("delta_e"), "variant": e.variant, "font": getattr(e.spec, "font", None),
            "size": int(e.spec.size), "seed": int(e.spec.seed), "path": rel, "spec_json": e.spec.to_json(),
            "question_json": None if e.question is None else json.dumps(e.question, sort_keys=True),
            HUMAN_KEY_COLUMN: stimulus.truth.get("human_key"),
            **_drawn(stats.get("delta_e_drawn"), stats.get("delta_e_target")),
        }
        for c in rows:
            rows[c].append(values.get(c))  # the drawn-ΔE2000 columns describe plates only: null here
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / f".tmp-{os.getpid()}-{MANIFEST}"
    pq.write_table(pa.table(rows, schema=_schema()), tmp, compression="zstd")
    os.replace(tmp, out / MANIFEST)
    return len(rows["item_id"])
