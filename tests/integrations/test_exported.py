"""`plates.integrations.exported.read_export`: an exported folder's rows per config in shard order, PNG bytes only
when asked; a folder that is not an export, or lacks the config, is named with what is allowed. Real Parquet
shards laid out as ``plates export hf`` writes them (``data/<config>/*.parquet``)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from plates.integrations.exported import read_export


def _shard(path, ids):
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"id": ids, "image": [b"\x89PNG-" + i.encode() for i in ids]}), path)


@pytest.fixture
def export(tmp_path):
    _shard(tmp_path / "data" / "cbe-open" / "train-00001-of-00002.parquet", ["c", "d"])
    _shard(tmp_path / "data" / "cbe-open" / "train-00000-of-00002.parquet", ["a", "b"])
    _shard(tmp_path / "data" / "cbe-yn" / "train-00000-of-00001.parquet", ["y"])
    return tmp_path


def test_every_config_in_shard_order_without_images(export):
    rows = read_export(export)
    assert list(rows) == ["cbe-open", "cbe-yn"]
    assert rows["cbe-open"] == [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "d"}]
    assert rows["cbe-yn"] == [{"id": "y"}]


def test_one_config_with_its_images(export):
    rows = read_export(str(export), "cbe-yn", images=True)
    assert rows == {"cbe-yn": [{"id": "y", "image": b"\x89PNG-y"}]}


def test_a_folder_that_is_not_an_export_is_named(tmp_path):
    with pytest.raises(ValueError, match="holds no data/<config>/ shards; allowed: a folder written by"):
        read_export(tmp_path)
    (tmp_path / "data").mkdir()
    with pytest.raises(ValueError, match="holds no data/<config>/ shards"):
        read_export(tmp_path)


def test_a_missing_config_names_the_configs_there(export):
    with pytest.raises(ValueError, match="config 'cbe-mc' is not in .*; allowed: cbe-open, cbe-yn"):
        read_export(export, "cbe-mc")
