"""Dataset items: one image of a benchmark set each (its spec, variant, label and group), of any family."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from PIL import Image

from plates.images import StoredPng
from plates.stimuli import family_of, render
from plates.storage import temporary_name, written_in_place
from plates.tasks.base import subject_of

MANIFEST = "manifest.parquet"
#: The columns every family's manifest written by `plates.datasets.write` starts with; the family's own
#: columns follow (`plates.stimuli.base.Family.manifest_columns`). ``group``: the items few-shot examples are
#: drawn from together (a plate's colour set, an illusion's kind, a scene's task or seed scene).
COMMON_COLUMNS = ("item_id", "dataset", "family", "group", "variant", "size", "seed", "path", "spec_json",
                  "question_json")
#: The manifest of a plate set (`plates.datasets.generate`, `plates.datasets.grid`): the common columns but
#: ``family``, ``group`` (a plate's group is its ``colour_set``) and ``question_json``, with the plate family's
#: own (`plates.stimuli.ishihara.MANIFEST_COLUMNS`). Manifests of any family written before families declared
#: their columns have these columns too, the family's fields squeezed into them.
MANIFEST_COLUMNS = (
    "item_id", "dataset", "label", "colour_set", "delta_e", "variant", "font", "size", "seed", "path", "spec_json",
    # ΔE2000 as drawn (plates.stimuli.ishihara.measure; written by plates.datasets.generate)
    "delta_e_target", "delta_e_target_kind", "delta_e_drawn_min", "delta_e_drawn_p05", "delta_e_drawn_median",
    "delta_e_drawn_p95",
)
#: The Arrow types of `MANIFEST_COLUMNS`, in order: what every plate set's manifest is written with.
MANIFEST_SCHEMA = pa.schema([
    (c, pa.int32() if c == "size" else pa.uint64() if c == "seed"
     else pa.float64() if c.startswith("delta_e") and c != "delta_e_target_kind" else pa.string())
    for c in MANIFEST_COLUMNS])
#: The manifest columns of the ΔE2000 a plate draws that results rows repeat (`DatasetItem.drawn`).
DRAWN_COLUMNS = ("delta_e_target", "delta_e_drawn_min", "delta_e_drawn_p05", "delta_e_drawn_median",
                 "delta_e_drawn_p95")
#: An optional manifest column (`plates.datasets.write`): the item's fixed question as JSON.
QUESTION_COLUMN = "question_json"
#: The name and column the `datasets` ImageFolder convention reads metadata from: ``metadata.parquet`` beside
#: the images, whose ``file_name`` names each image relative to it (`publish_manifest` adds both).
IMAGEFOLDER_METADATA = "metadata.parquet"
FILE_NAME_COLUMN = "file_name"


#: Under a dataset folder: one manifest part per shard, ``<I>-of-<N>.parquet`` (`plates.shards`).
SHARD_MANIFESTS = "manifest.shards"
#: A shard part's extra column: each row's position in the unsharded manifest (dropped when parts merge).
PLAN_POSITION = "plan_position"


def write_parquet_atomic(table: pa.Table | Iterable[pa.Table], path: Path, *, row_group_size: int | None = None,
                         schema: pa.Schema | None = None) -> Path:
    """Write ``table`` as the Parquet file ``path`` (zstd) atomically and durably (`plates.storage.written_in_place`),
    so no reader ever opens half a manifest, a killed writer's leftover matches `plates.storage.TEMPORARIES`, and
    the manifest's name appears only once its bytes and every image written before it are on disk (the set
    writers write images without an fsync each: `plates.storage.write_atomic`). ``table`` may also be batches
    of ``schema``, one row group each (a large set's manifest: memory stays flat). Returns ``path``.

    Parameters
    ----------
    table : pyarrow.Table or iterable of pyarrow.Table
        The rows, or batches of ``schema`` (one row group each).
    path : pathlib.Path
        The file.
    row_group_size : int, optional
        Rows per row group.
    schema : pyarrow.Schema, optional
        The batches' schema (with batches).

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    with written_in_place(path) as tmp:
        if isinstance(table, pa.Table):
            pq.write_table(table, tmp, compression="zstd", row_group_size=row_group_size)
        else:
            if schema is None:
                raise ValueError("batches of a manifest need their schema; allowed: a pyarrow.Schema")
            with pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
                for part in table:
                    writer.write_table(part, row_group_size=row_group_size)
    return path


def shard_manifest_path(out: Path, shard) -> Path:
    """Where shard ``shard`` (`plates.shards.Shard`) keeps its manifest part under ``out`` (folder created).

    Parameters
    ----------
    out : pathlib.Path
        The set's folder.
    shard : Shard
        The shard.

    Returns
    -------
    pathlib.Path
        The part's path.
    """
    folder = Path(out) / SHARD_MANIFESTS
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{shard.tag}.parquet"


def merge_shard_manifests(out: Path, count: int, *, row_group_size: int | None = None) -> bool:
    """When every one of ``count`` shards has written its part (`finish_manifest`), write
    ``manifest.parquet`` from them in `PLAN_POSITION` order without that column, i.e. the unsharded manifest;
    returns whether it did. Each shard calls this after writing its part, so the last to finish always finds
    them all (two finishing together both write the same file, atomically).

    Parameters
    ----------
    out : pathlib.Path
        The set's folder.
    count : int
        Shards in all.
    row_group_size : int, optional
        Rows per row group.

    Returns
    -------
    bool
        Whether the manifest was written.
    """
    out = Path(out)
    parts = [out / SHARD_MANIFESTS / f"{i}-of-{count}.parquet" for i in range(1, count + 1)]
    if not all(part.is_file() for part in parts):
        return False
    table = pa.concat_tables([pq.read_table(part) for part in parts], promote_options="default")
    table = table.take(pc.sort_indices(table, [(PLAN_POSITION, "ascending")])).drop_columns([PLAN_POSITION])
    publish_manifest(table, out, row_group_size=row_group_size)
    return True


def finish_manifest(table: pa.Table | Iterable[pa.Table], out: Path, shard: Any = None,
                    positions: list[int] | None = None, *, schema: pa.Schema | None = None) -> int:
    """How every dataset writer ends: ``table`` published as ``out/manifest.parquet`` (`publish_manifest`), or
    with a ``shard`` (`plates.shards.Shard`) written as that shard's part with each row's place in the unsharded
    plan (``positions``) and merged once every shard's part is there (`merge_shard_manifests`). ``table`` may
    also be batches of ``schema`` (a large set, written as it is made: memory stays flat), which carry their
    `PLAN_POSITION` column themselves when sharded. Returns the rows written.

    Parameters
    ----------
    table : pyarrow.Table or iterable of pyarrow.Table
        The manifest's rows, or batches of ``schema``.
    out : pathlib.Path
        The set's folder.
    shard : Shard, optional
        This writer's shard.
    positions : list of int, optional
        Each row's place in the unsharded plan (with ``shard`` and a whole table).
    schema : pyarrow.Schema, optional
        The batches' schema (with batches).

    Returns
    -------
    int
        Rows written.
    """
    out = Path(out)
    if isinstance(table, pa.Table):
        if shard is not None:
            table = table.append_column(PLAN_POSITION, pa.array(positions, pa.int64()))
        parts: Iterable[pa.Table] = (table,)
        schema = table.schema
    elif schema is None:
        raise ValueError("batches of a manifest need their schema; allowed: a pyarrow.Schema")
    else:
        parts = table
    rows = [0]

    def counted(tables: Iterable[pa.Table]) -> Iterator[pa.Table]:
        empty = True
        for part in tables:
            rows[0] += part.num_rows
            empty = False
            yield part
        if empty:  # no image on disk: a manifest of no rows, with its columns
            yield schema.empty_table() if shard is not None else with_file_name(schema.empty_table())

    if shard is not None:
        if PLAN_POSITION not in schema.names:
            raise ValueError(f"a shard's manifest part needs a {PLAN_POSITION!r} column; allowed: the rows with "
                             "their positions in the unsharded manifest")
        write_parquet_atomic(counted(parts), shard_manifest_path(out, shard), schema=schema)
        merge_shard_manifests(out, shard.count)
    else:
        named = schema if FILE_NAME_COLUMN in schema.names else schema.append(
            pa.field(FILE_NAME_COLUMN, schema.field("path").type))
        write_parquet_atomic(counted(with_file_name(part) for part in parts), out / MANIFEST, schema=named)
        link_metadata(out)
    return rows[0]


def with_file_name(table: pa.Table) -> pa.Table:
    """``table`` with the ImageFolder convention's ``file_name`` column last (its ``path``: relative to the
    folder), unless it has one already.

    Parameters
    ----------
    table : pyarrow.Table
        Manifest rows with ``path``.

    Returns
    -------
    pyarrow.Table
        With ``file_name``.
    """
    if FILE_NAME_COLUMN in table.column_names:
        return table
    return table.append_column(FILE_NAME_COLUMN, table.column("path"))


def publish_manifest(table: pa.Table, out: Path, *, row_group_size: int | None = None) -> None:
    """Write ``table`` as ``out/manifest.parquet``, the one step every dataset writer that holds its manifest
    ends with (`write_parquet_atomic`). The manifest gets a ``file_name`` column (`with_file_name`) and the same
    file is linked as ``metadata.parquet`` (`link_metadata`), so ``datasets.load_dataset("imagefolder",
    data_dir=out)`` loads the images with every manifest column. `load_dataset` reads ``manifest.parquet`` and
    ignores the extra column: folders written before keep loading.

    Parameters
    ----------
    table : pyarrow.Table
        The manifest's rows.
    out : pathlib.Path
        The set's folder.
    row_group_size : int, optional
        Rows per row group.
    """
    out = Path(out)
    write_parquet_atomic(with_file_name(table), out / MANIFEST, row_group_size=row_group_size)
    link_metadata(out)


def link_metadata(out: Path) -> None:
    """Link ``out/manifest.parquet`` (which ends with its ``file_name`` column) as ``out/metadata.parquet``,
    the name the ImageFolder convention reads; a filesystem without hard links gets a copy. Atomic, as the
    manifest is.

    Parameters
    ----------
    out : pathlib.Path
        A generated set's folder holding ``manifest.parquet``.
    """
    out = Path(out)
    link = temporary_name(out / IMAGEFOLDER_METADATA)
    link.unlink(missing_ok=True)
    try:
        os.link(out / MANIFEST, link)
    except OSError:
        shutil.copyfile(out / MANIFEST, link)
    os.replace(link, out / IMAGEFOLDER_METADATA)


@dataclass(frozen=True)
class DatasetItem:
    """One image of a benchmark set. ``spec``: any family's spec (`plates.stimuli.STIMULI`); ``label``: the
    item's answer as text where it has one (a plate's number; "" where the answer depends on the question);
    ``group``: the group few-shot examples are drawn from (a plate's colour set; an illusion's kind; a
    scene's task or seed scene: the manifest's ``group`` column, or ``colour_set`` in a plate manifest, whose
    group is its colour set);
    ``path``: set when loaded from a generated folder (a file's Path; a Parquet set's
    `plates.datasets.parquet_set.ShardImage`); ``question_json``: for an item made for one question
    (a ColorBench scene question, fixed when the set was generated so its robustness variants ask the same
    one), that question as JSON with its ``task``: only prompts of that task are asked on the item; ``drawn``:
    see below.

    Parameters
    ----------
    item_id : str
        The item's id, unique in its set.
    dataset : str
        The set's (preset's) name.
    spec : object
        Any family's spec.
    variant : str
        The image variant (a plate's "standard", ...; `plates.conditions`).
    label : str
        The answer as text, or "".
    colour_set : str
        The few-shot group, as above.
    path : pathlib.Path or ShardImage or None, optional
        Where the image is, or None for an item rendered in memory.
    question_json : str or None, optional
        The item's fixed question as JSON, or None.
    drawn : mapping of str to float or None, optional
        The recorded ``delta_e_target`` and ``delta_e_drawn_*`` values (CIEDE2000), or None.
    delta_e : float or None, optional
        The recorded nominal CIEDE2000, or None.
    """

    item_id: str
    dataset: str
    spec: Any
    variant: str
    label: str
    group: str
    path: Any = None  # a Path, a Parquet set's ShardImage, or None
    question_json: str | None = None
    #: The ΔE2000 its plate draws as the manifest recorded it (`plates.stimuli.ishihara.measure` columns
    #: ``delta_e_target``, ``delta_e_drawn_*``), so a run need not render the plate again to report it; None
    #: when not recorded (presets rendered in memory, other families).
    drawn: Mapping[str, float | None] | None = None
    #: The plate's nominal ΔE2000 as the manifest recorded it (column ``delta_e``: mean CIEDE2000 over the
    #: colour set's foreground x background pairs, `plates.stimuli.ishihara.plate.PlateStats.delta_e`), so a
    #: run need not compute it again; None when not recorded.
    delta_e: float | None = None

    @property
    def family(self) -> str:
        """The name of the spec's stimulus family (e.g. "ishihara")."""
        return family_of(self.spec).name

    @property
    def question_task(self) -> str | None:
        """The task of the item's fixed question, or None (any prompt of its family may ask about it)."""
        return None if self.question_json is None else json.loads(self.question_json)["task"]

    def truth(self) -> Mapping[str, Any]:
        """What a task builds its question from (`plates.tasks.base.Task.question`): a plate's
        ``{"label": ...}`` without rendering it; for any other family the rendered stimulus's truth, plus the
        stimulus itself under ``"stimulus"``, the spec's seed under ``"spec_seed"`` and the item's fixed
        question (a dict, or None) under ``"question"``."""
        if self.family == "ishihara":
            return {"label": self.label}
        fixed = None if self.question_json is None else json.loads(self.question_json)
        return subject_of(render(self.spec), fixed)

    def image(self) -> Image.Image:
        """The PIL RGB image (sRGB 0-255): read from ``path`` when set (a `plates.images.StoredPng`, decoded
        lazily, for a plain 8-bit RGB PNG), else rendered from ``spec``."""
        if isinstance(self.path, Path):
            return StoredPng.read(self.path)  # its bytes kept, sent as they are when nothing changes them
        if self.path is not None:  # a row of a Parquet set's shard (plates.datasets.parquet_set.ShardImage)
            return StoredPng.from_bytes(self.path.read())
        return render(self.spec).variant(self.variant)
