"""plates.datasets.items: how every dataset writer ends its manifest (atomic, with the ImageFolder metadata,
sharded parts merged in plan order) and `DatasetItem`, one image of a set of any family."""

import json
import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from plates.datasets.items import (
    FILE_NAME_COLUMN,
    IMAGEFOLDER_METADATA,
    MANIFEST,
    MANIFEST_COLUMNS,
    MANIFEST_SCHEMA,
    PLAN_POSITION,
    SHARD_MANIFESTS,
    DatasetItem,
    finish_manifest,
    link_metadata,
    merge_shard_manifests,
    publish_manifest,
    shard_manifest_path,
    with_file_name,
    write_parquet_atomic,
)
from plates.images import StoredPng, encode_png
from plates.shards import Shard
from plates.stimuli import render
from plates.stimuli.illusions import KINDS, IllusionSpec
from plates.stimuli.ishihara.plate import PlateSpec
from plates.storage import TEMPORARIES

SCHEMA = pa.schema([("item_id", pa.string()), ("path", pa.string())])


def _rows(*ids: str) -> pa.Table:
    return pa.table({"item_id": list(ids), "path": [f"img/{i}.png" for i in ids]}, schema=SCHEMA)


def test_the_plate_manifest_schema_types_its_columns():
    assert MANIFEST_SCHEMA.names == list(MANIFEST_COLUMNS)
    types = {f.name: f.type for f in MANIFEST_SCHEMA}
    assert (types["size"], types["seed"], types["delta_e"], types["delta_e_drawn_p95"]) == (
        pa.int32(), pa.uint64(), pa.float64(), pa.float64())
    assert types["delta_e_target_kind"] == types["label"] == pa.string()


def test_write_parquet_atomic_writes_a_table_or_batches_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "m.parquet"
    assert write_parquet_atomic(_rows("a", "b", "c"), path, row_group_size=2) == path
    assert pq.read_table(path).column("item_id").to_pylist() == ["a", "b", "c"]
    assert pq.ParquetFile(path).metadata.num_row_groups == 2
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).compression == "ZSTD"
    write_parquet_atomic(iter([_rows("x"), _rows("y", "z")]), path, schema=SCHEMA)  # replaces the file
    assert pq.read_table(path).column("item_id").to_pylist() == ["x", "y", "z"]
    assert pq.ParquetFile(path).metadata.num_row_groups == 2  # one row group per batch
    assert not list(tmp_path.glob(TEMPORARIES))
    with pytest.raises(ValueError, match="need their schema; allowed: a pyarrow.Schema"):
        write_parquet_atomic(iter([_rows("q")]), tmp_path / "n.parquet")
    assert not (tmp_path / "n.parquet").exists()


def test_with_file_name_appends_the_path_once():
    named = with_file_name(_rows("a"))
    assert named.column_names == ["item_id", "path", FILE_NAME_COLUMN]
    assert named.column(FILE_NAME_COLUMN).to_pylist() == ["img/a.png"]
    assert with_file_name(named) is named


def test_publish_manifest_links_the_same_file_as_imagefolder_metadata(tmp_path):
    publish_manifest(_rows("a", "b"), tmp_path)
    manifest, metadata = tmp_path / MANIFEST, tmp_path / IMAGEFOLDER_METADATA
    assert pq.read_table(manifest).to_pylist() == [
        {"item_id": "a", "path": "img/a.png", "file_name": "img/a.png"},
        {"item_id": "b", "path": "img/b.png", "file_name": "img/b.png"}]
    assert metadata.read_bytes() == manifest.read_bytes()
    assert os.path.samefile(manifest, metadata)  # a hard link here
    publish_manifest(_rows("c"), tmp_path)  # republished: the metadata follows
    assert pq.read_table(metadata).column("item_id").to_pylist() == ["c"]
    assert not list(tmp_path.glob(TEMPORARIES))


def test_link_metadata_replaces_a_stale_metadata_file(tmp_path):
    write_parquet_atomic(with_file_name(_rows("a")), tmp_path / MANIFEST)
    (tmp_path / IMAGEFOLDER_METADATA).write_bytes(b"stale")
    link_metadata(tmp_path)
    assert (tmp_path / IMAGEFOLDER_METADATA).read_bytes() == (tmp_path / MANIFEST).read_bytes()


def test_finish_manifest_unsharded_publishes_the_rows_or_an_empty_manifest_with_its_columns(tmp_path):
    for name in ("one", "two", "none"):  # the set's folder, as the writers make it before their images
        (tmp_path / name).mkdir()
    assert finish_manifest(_rows("a", "b"), tmp_path / "one") == 2
    assert pq.read_table(tmp_path / "one" / MANIFEST).column_names == ["item_id", "path", FILE_NAME_COLUMN]
    assert finish_manifest(iter([_rows("a"), _rows("b", "c")]), tmp_path / "two", schema=SCHEMA) == 3
    assert pq.read_table(tmp_path / "two" / MANIFEST).column(FILE_NAME_COLUMN).to_pylist() == [
        "img/a.png", "img/b.png", "img/c.png"]
    assert (tmp_path / "two" / IMAGEFOLDER_METADATA).is_file()
    assert finish_manifest(iter([]), tmp_path / "none", schema=SCHEMA) == 0  # no image on disk
    empty = pq.read_table(tmp_path / "none" / MANIFEST)
    assert empty.num_rows == 0 and empty.column_names == ["item_id", "path", FILE_NAME_COLUMN]
    with pytest.raises(ValueError, match="need their schema; allowed: a pyarrow.Schema"):
        finish_manifest(iter([_rows("a")]), tmp_path / "three")


def test_shard_parts_merge_in_plan_order_once_every_part_is_there(tmp_path):
    assert shard_manifest_path(tmp_path, Shard(2, 3)) == tmp_path / SHARD_MANIFESTS / "2-of-3.parquet"
    assert (tmp_path / SHARD_MANIFESTS).is_dir()
    # the unsharded plan is a, b, c, d, e; each shard holds some of its rows with their positions
    assert finish_manifest(_rows("b", "e"), tmp_path, Shard(2, 3), [1, 4]) == 2
    assert finish_manifest(_rows("c"), tmp_path, Shard(3, 3), [2]) == 1
    assert not (tmp_path / MANIFEST).exists() and not merge_shard_manifests(tmp_path, 3)
    part = pq.read_table(tmp_path / SHARD_MANIFESTS / "2-of-3.parquet")
    assert part.column(PLAN_POSITION).to_pylist() == [1, 4] and FILE_NAME_COLUMN not in part.column_names
    batches = iter([_rows("a", "d").append_column(PLAN_POSITION, pa.array([0, 3], pa.int64()))])
    schema = SCHEMA.append(pa.field(PLAN_POSITION, pa.int64()))
    assert finish_manifest(batches, tmp_path, Shard(1, 3), schema=schema) == 2  # the last part: merged
    merged = pq.read_table(tmp_path / MANIFEST)
    assert merged.column("item_id").to_pylist() == ["a", "b", "c", "d", "e"]
    assert merged.column_names == ["item_id", "path", FILE_NAME_COLUMN]  # the position column dropped
    assert (tmp_path / IMAGEFOLDER_METADATA).read_bytes() == (tmp_path / MANIFEST).read_bytes()
    assert merge_shard_manifests(tmp_path, 3)  # again: the same file
    assert pq.read_table(tmp_path / MANIFEST).equals(merged)


def test_a_shard_with_no_rows_still_writes_its_part(tmp_path):
    schema = SCHEMA.append(pa.field(PLAN_POSITION, pa.int64()))
    assert finish_manifest(iter([]), tmp_path, Shard(1, 2), schema=schema) == 0
    assert pq.read_table(tmp_path / SHARD_MANIFESTS / "1-of-2.parquet").num_rows == 0
    assert finish_manifest(_rows("a"), tmp_path, Shard(2, 2), [0]) == 1
    assert pq.read_table(tmp_path / MANIFEST).column("item_id").to_pylist() == ["a"]


def test_a_shards_batches_without_their_positions_are_refused(tmp_path):
    with pytest.raises(ValueError, match="needs a 'plan_position' column; allowed: the rows with their positions"):
        finish_manifest(iter([_rows("a")]), tmp_path, Shard(1, 2), schema=SCHEMA)
    assert not (tmp_path / SHARD_MANIFESTS / "1-of-2.parquet").exists()


def test_a_plate_item_answers_with_its_label_without_rendering_and_renders_its_variant():
    spec = PlateSpec(text="12", size=64, seed=1)
    item = DatasetItem("p", "set", spec, "clear", "12", "colorblindnesseval-1")
    assert (item.family, item.question_task, item.truth()) == ("ishihara", None, {"label": "12"})
    image = item.image()
    assert image.mode == "RGB" and image.size == (64, 64)
    assert np.array_equal(np.asarray(image), np.asarray(render(spec).variant("clear")))
    assert not np.array_equal(np.asarray(image), np.asarray(render(spec).variant("standard")))


def test_an_illusion_item_has_its_stimulus_truth_seed_and_fixed_question():
    spec = IllusionSpec(KINDS[0], size=64, seed=5)
    question = {"task": "same-different", "targets": ["A", "B"]}
    item = DatasetItem("i", "set", spec, "standard", "", KINDS[0], question_json=json.dumps(question))
    assert (item.family, item.question_task) == ("illusion", "same-different")
    truth = item.truth()
    stimulus = render(spec)
    assert truth["kind"] == KINDS[0] and truth["spec_seed"] == 5 and truth["question"] == question
    assert {k: v for k, v in truth.items() if k not in ("stimulus", "spec_seed", "question")} == dict(stimulus.truth)
    assert truth["stimulus"].spec == spec
    assert DatasetItem("j", "set", spec, "standard", "", KINDS[0]).truth()["question"] is None


class _Stored:
    """A Parquet set's row, as `plates.datasets.parquet_set.ShardImage` is: something whose ``read`` gives PNG
    bytes."""

    def __init__(self, data: bytes):
        self.data, self.reads = data, 0

    def read(self) -> bytes:
        self.reads += 1
        return self.data


def test_an_item_reads_its_image_from_a_file_or_a_stored_row_as_it_was_stored(tmp_path):
    spec = PlateSpec(text="7", size=64, seed=2)
    pixels = np.asarray(render(spec).image)
    other = np.zeros_like(pixels)  # what is stored wins over what the spec would render
    data = encode_png(other)
    (tmp_path / "x.png").write_bytes(data)
    from_file = DatasetItem("f", "set", spec, "standard", "7", "g", path=tmp_path / "x.png").image()
    row = _Stored(data)
    from_row = DatasetItem("r", "set", spec, "standard", "7", "g", path=row).image()
    for image in (from_file, from_row):
        assert isinstance(image, StoredPng) and image.mode == "RGB"
        assert image.stored == data  # the bytes kept, to be sent as they are
        assert np.array_equal(np.asarray(image), other)
    assert row.reads == 1
    assert not np.array_equal(pixels, other)


def test_an_item_is_frozen():
    item = DatasetItem("p", "set", PlateSpec(text="1", size=64), "standard", "1", "g")
    with pytest.raises(AttributeError):
        item.label = "2"
