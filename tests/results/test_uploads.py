"""Uploaded results and the results walk on a shared dashboard: caps checked from the Parquet footer before
anything loads (a 1 MB crafted file of a million rows took the People page from 400 MB to 1.9 GB), text read
cut to a length, upload folders deleted after their time to live, and no file link leaving the root read."""

from __future__ import annotations

import io
import os
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from plates.admission import UploadLimits
from plates.results.query import TEXT_CAP, UPLOAD_TEXT_CAPS, list_parts, open_results
from plates.results.uploads import UploadFolders, check_uploads
from tests.support.dashboard_rows import outcomes, write_part


def _crafted(rows: int, text_len: int = 1000, *, row_group_size: int | None = None) -> bytes:
    """The attack: every row the same long text, dictionary-encoded (a million rows fit in ~1 MB)."""
    long = "x" * text_len
    table = pa.table({name: pa.DictionaryArray.from_arrays(pa.array([0] * rows, pa.int32()), pa.array([value]))
                      for name, value in (("reply", long), ("parsed", long), ("model", "m"),
                                          ("family", "ishihara"))})
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd", row_group_size=row_group_size)
    return buf.getvalue()


def test_the_crafted_million_row_file_is_refused_from_its_footer_naming_it():
    data = _crafted(1_000_000)
    assert len(data) < 1_500_000
    with pytest.raises(ValueError, match=r"more than 20,000 rows \('attack.parquet' brings them to 1,000,000\)"):
        check_uploads([("../../attack.parquet", data)])  # the name as uploaded, without its folders


def test_upload_caps_on_files_bytes_row_groups_and_footers():
    small = _crafted(10)
    check_uploads([("a.parquet", small), ("corrupt.parquet", b"PAR1 broken")])  # corrupt: left to the opener
    with pytest.raises(ValueError, match="3 files were uploaded; allowed: at most 2"):
        check_uploads([("a.parquet", small)] * 3, UploadLimits(max_files=2))
    with pytest.raises(ValueError, match="allowed: at most 0 MB"):
        check_uploads([("a.parquet", small)], UploadLimits(max_bytes=100))
    with pytest.raises(ValueError, match="'g.parquet' has 50 row groups; allowed: at most 10 per file"):
        check_uploads([("g.parquet", _crafted(50, 5, row_group_size=1))], UploadLimits(max_row_groups=10))
    huge_footer = b"PAR1" + b"\0" * 16 + (5_000_000).to_bytes(4, "little") + b"PAR1"
    with pytest.raises(ValueError, match="'f.parquet' declares a 5,000,000-byte Parquet footer"):
        check_uploads([("f.parquet", huge_footer)])


def test_uploads_are_read_with_every_text_column_cut(tmp_path):
    (tmp_path / "up").mkdir()
    (tmp_path / "up" / "000-a.parquet").write_bytes(_crafted(20, 20_000))
    frame = open_results(tmp_path / "up", short_text=True).query("SELECT reply, parsed, model FROM results")
    assert set(frame["reply"].str.len()) == {UPLOAD_TEXT_CAPS["reply"]}
    assert set(frame["parsed"].str.len()) == {TEXT_CAP} and set(frame["model"]) == {"m"}
    folder = open_results(tmp_path / "up").query("SELECT reply, parsed FROM results")  # a results folder
    assert set(folder["parsed"].str.len()) == {20_000}  # filter columns stay whole there
    assert set(folder["reply"].str.len()) == {16_384}


def test_upload_folders_are_deleted_after_their_time_to_live(tmp_path):
    store = UploadFolders(tmp_path / "uploads", ttl_s=60)
    folder, names = store.write([("../evil/../../x.parquet", b"one"), ("y.parquet", b"two")])
    assert folder.parent == store.root and sorted(names.values()) == ["x.parquet", "y.parquet"]
    assert all(os.path.dirname(p) == str(folder) for p in names) and store.bytes_held() == 6
    old = time.time() - 120
    os.utime(folder, (old, old))
    newer, _ = store.write([("z.parquet", b"three")])  # every write sweeps what has expired
    assert not folder.exists() and newer.exists() and store.bytes_held() == 5
    assert store.sweep(now=time.time() + 61) == 1 and not newer.exists()


def test_the_root_walk_reads_no_file_link_leaving_the_root(tmp_path):
    root, outside = tmp_path / "results", tmp_path / "private"
    mine = write_part(root / "run" / "part.parquet", outcomes("m", 1, 2))
    secret = write_part(outside / "secret.parquet", outcomes("secret-model", 1, 2))
    (root / "run" / "link-out.parquet").symlink_to(secret)
    (root / "run" / "link-in.parquet").symlink_to(mine)
    (root / "dirlink").symlink_to(outside, target_is_directory=True)
    found = list_parts(root)
    assert found == [root / "run" / "link-in.parquet", mine]
    assert "secret-model" not in set(open_results(root).query("SELECT model FROM results")["model"])
