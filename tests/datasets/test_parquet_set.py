"""Sets as Parquet shards holding the PNG bytes (`plates generate --format parquet`), on disk and on a real
S3-compatible server on 127.0.0.1: the same pixels as the loose-PNG set, resumable, shardable, readable by
`plates run`, the Hub exporter's rows and Hugging Face datasets."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

from plates.cli import main
from plates.datasets import generate, load_dataset
from plates.datasets.parquet_set import ShardImage, committed_ids
from plates.results import load_results
from plates.shards import Shard
from tests.support.s3_server import ACCESS_KEY, SECRET, S3Server

pytest.importorskip("moto")


def _pixels(item) -> np.ndarray:
    return np.asarray(item.image().convert("RGB"))


def test_same_pixels_and_manifest_as_loose_pngs(tmp_path):
    generate("colorblindnesseval", tmp_path / "png", limit=3, size=64, workers=1, progress=False)
    summary = generate("colorblindnesseval", tmp_path / "pq", limit=3, size=64, workers=1, progress=False,
                       fmt="parquet")
    assert summary["written"] == summary["rows"] == 6 and summary["format"] == "parquet"
    loose, sharded = load_dataset(tmp_path / "png"), load_dataset(tmp_path / "pq")
    assert [i.item_id for i in sharded] == [i.item_id for i in loose]
    for a, b in zip(loose, sharded):
        assert isinstance(b.path, ShardImage)
        assert (a.spec, a.variant, a.label, a.group, a.delta_e, a.drawn) == \
            (b.spec, b.variant, b.label, b.group, b.delta_e, b.drawn)
        assert np.array_equal(_pixels(a), _pixels(b))
    assert sorted(p.name for p in (tmp_path / "pq").iterdir()) == ["data", "manifest.parquet"]


def test_a_manifest_written_before_the_group_column_loads_its_colour_set_as_the_group(tmp_path):
    generate("colorblindnesseval", tmp_path, limit=2, size=64, workers=1, progress=False, fmt="parquet")
    manifest = tmp_path / "manifest.parquet"
    table = pq.read_table(manifest)
    now = [item.group for item in load_dataset(tmp_path)]
    assert table.column("group").to_pylist() == table.column("colour_set").to_pylist() == now
    pq.write_table(table.drop_columns(["group"]), manifest)  # as sets were written with colour_set alone
    assert [item.group for item in load_dataset(tmp_path)] == now
    assert all(group.startswith("colorblindnesseval-") for group in now)  # a palette: the plate's colour set


def test_rerun_resumes_and_other_parameters_are_refused(tmp_path):
    generate("colorblindnesseval", tmp_path, limit=2, size=64, workers=1, progress=False, fmt="parquet")
    again = generate("colorblindnesseval", tmp_path, limit=3, size=64, workers=2, progress=False, fmt="parquet")
    assert (again["written"], again["skipped"], again["rows"]) == (2, 4, 6)
    assert len(committed_ids(tmp_path)) == 6
    with pytest.raises(ValueError, match="allowed: the same preset, --size, --seed and --sample"):
        generate("colorblindnesseval", tmp_path, limit=3, size=96, workers=1, progress=False, fmt="parquet")


def test_shards_together_equal_the_unsharded_manifest(tmp_path):
    generate("colorblindnesseval", tmp_path / "one", limit=5, size=64, workers=1, progress=False, fmt="parquet")
    first = generate("colorblindnesseval", tmp_path / "two", limit=5, size=64, workers=1, progress=False,
                     fmt="parquet", shard=Shard(1, 2))
    assert first["rows"] is None  # the manifest waits for the other shard
    last = generate("colorblindnesseval", tmp_path / "two", limit=5, size=64, workers=1, progress=False,
                    fmt="parquet", shard=Shard(2, 2))
    assert last["rows"] == 10
    one, two = (pq.read_table(tmp_path / d / "manifest.parquet") for d in ("one", "two"))
    drop = ["path", "shard_row"]
    assert one.drop_columns(drop).equals(two.drop_columns(drop))


def test_hugging_face_datasets_decodes_the_shards(tmp_path):
    datasets = pytest.importorskip("datasets")
    generate("colorblindnesseval", tmp_path, limit=2, size=64, workers=1, progress=False, fmt="parquet")
    ds = datasets.load_dataset("parquet", data_files=str(tmp_path / "data" / "*.parquet"), split="train",
                               cache_dir=str(tmp_path / "cache"))
    ours = {i.item_id: _pixels(i) for i in load_dataset(tmp_path)}
    assert len(ds) == 4
    for row in ds:
        assert np.array_equal(np.asarray(row["image"].convert("RGB")), ours[row["item_id"]])


def test_generate_and_run_on_object_storage(tmp_path, capsys):
    with S3Server() as s3:
        with pytest.raises(ValueError, match="allowed: --format parquet with a URL"):
            generate("colorblindnesseval", s3.url("sets/png"), limit=1, size=64, progress=False)
        assert main(["generate", "--preset", "colorblindnesseval", "--limit", "4", "--size", "64", "--workers",
                     "1", "--format", "parquet", "--out", s3.url("sets/cbe"), "--no-progress"]) == 0
        items = load_dataset(s3.url("sets/cbe"))
        local = load_dataset("colorblindnesseval", limit=8)
        assert [i.item_id for i in items] == [i.item_id for i in local]
        assert main(["run", "--dataset", s3.url("sets/cbe"), "--prompt", "cbe-open", "--backend", "baseline",
                     "--out", s3.url("runs/cbe"), "--no-progress"]) == 0
        assert "4 rows written" in capsys.readouterr().out
        frame = load_results(s3.url("runs/cbe")).frame
        assert len(frame) == 4 and frame["parse_status"].isin(["ok", "unparsed", "ambiguous"]).all()
        for key in s3.keys():
            body = s3.read(key)
            assert SECRET.encode() not in body and ACCESS_KEY.encode() not in body, key


def test_the_hub_exporter_sends_the_stored_bytes_of_a_parquet_set(tmp_path):
    from plates.cli import build_parser
    from plates.cli.run import build_experiment
    from plates.integrations.rows import export_rows

    generate("colorblindnesseval", tmp_path / "set", limit=2, size=64, workers=1, progress=False, fmt="parquet")
    exp = build_experiment(build_parser().parse_args(["run", "--dataset", str(tmp_path / "set"), "--prompt",
                                                      "cbe-open", "--backend", "baseline", "--out", "unused"]))
    items = {i.item_id: i for i in load_dataset(tmp_path / "set")}
    rows = list(export_rows(exp))
    assert len(rows) == 2
    for row in rows:
        values = row.values
        item = items[values["item_id"]]
        assert values["image"]["bytes"] == item.path.read()  # the shard's PNG as written, not re-encoded
        assert values["path"] is None
