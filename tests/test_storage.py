"""plates.storage and the results on it: a local folder and a real S3-compatible server on 127.0.0.1 (moto's server
mode, tests/support/s3_server.py). Committed files only are listed; a writer that died mid-object leaves
nothing visible; credentials never reach a written object; `plates run --out s3://...` resumes by row key."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from plates import storage
from plates.cli import main
from plates.results import ResultsWriter, compact_run, load_results
from plates.runs.plan import existing_keys
from plates.storage import COMMITS, TEMPORARIES, is_url, open_store, sync_filesystem, write_atomic
from tests.support.s3_server import ACCESS_KEY, SECRET, S3Server

pytest.importorskip("moto")


@pytest.fixture(scope="module")
def s3():
    with S3Server() as server:
        yield server


def _row(key: str) -> dict:
    return {"run_id": "r1", "row_key": key, "item_id": key, "model": "m", "backend": "baseline", "correct": True}


def test_local_store_lists_committed_files_only(tmp_path):
    store = open_store(tmp_path / "a")
    assert store.list() == [] and not is_url(str(tmp_path))
    store.commit("x.parquet", b"1")
    store.commit("sub/y.parquet", b"2")
    (tmp_path / "a" / ".x.parquet.123.tmp").write_bytes(b"half")  # a writer's temporary
    (tmp_path / "a" / "_hidden.parquet").write_bytes(b"3")
    assert store.list(suffix=".parquet") == ["x.parquet"]
    assert store.list(suffix=".parquet", recursive=True) == ["sub/y.parquet", "x.parquet"]
    assert store.read_bytes("sub/y.parquet") == b"2"
    store.delete(["x.parquet"])
    assert store.list() == [] and not store.exists("x.parquet")


def test_object_store_commit_record_makes_an_object_visible(s3):
    store = open_store(s3.url("commit"))
    path = store.commit("part-1.parquet", b"whole")
    assert path == "plates-test/commit/part-1.parquet"
    assert s3.keys("commit/") == ["commit/_commits/part-1.parquet", "commit/part-1.parquet"]
    # a writer that died after its object but before its record: the object is there, nobody reads it
    s3.client().put_object(Bucket="plates-test", Key="commit/part-2.parquet", Body=b"half")
    assert store.list(suffix=".parquet") == ["part-1.parquet"]
    assert store.exists("part-1.parquet") and not store.exists("part-2.parquet")
    assert store.read_bytes("part-1.parquet") == b"whole"
    store.delete(["part-1.parquet"])
    assert s3.keys("commit/") == ["commit/part-2.parquet"] and store.list() == []


@pytest.mark.parametrize("url", [f"s3://{ACCESS_KEY}:{SECRET}@bucket/x", "s3://bucket/x?access_key=abc",
                                 "s3://bucket/../x"])
def test_urls_with_credentials_or_options_are_refused_without_echoing_them(url):
    with pytest.raises(ValueError, match="s3://BUCKET") as info:
        open_store(url)
    assert SECRET not in str(info.value) and "abc" not in str(info.value)


def test_other_schemes_are_refused():
    with pytest.raises(ValueError, match="scheme 'gs' is not supported; allowed: a local folder or s3://"):
        open_store("gs://bucket/x")


def test_results_writer_reader_and_compaction_on_s3(s3):
    url = s3.url("results")
    with ResultsWriter(url, "r1", flush_rows=2, fanout=2) as writer:  # 2 parts merge into one (the cascade)
        for k in "abcde":
            writer.add(_row(k))
    loaded = load_results(url)
    assert sorted(loaded.frame["row_key"]) == list("abcde") and loaded.skipped == []
    assert existing_keys(url, "r1") == set("abcde") and existing_keys(url, "r2") == set()
    merged = compact_run(url, "r1")
    assert merged is not None and merged.endswith("-merged.parquet")
    visible = [k for k in s3.keys("results/") if f"/{COMMITS}/" not in k]
    assert visible == [merged.removeprefix("plates-test/")]  # the merged part alone; the small parts deleted
    assert sorted(load_results(url).frame["row_key"]) == list("abcde")


def test_a_stray_uncommitted_part_is_not_read(s3):
    url = s3.url("stray")
    with ResultsWriter(url, "r1") as writer:
        writer.add(_row("a"))
    buffer = pa.BufferOutputStream()
    pq.write_table(pa.table({"run_id": ["r1"], "row_key": ["zz"]}), buffer)
    s3.client().put_object(Bucket="plates-test", Key="stray/r1-crashed.parquet", Body=buffer.getvalue().to_pybytes())
    assert list(load_results(url).frame["row_key"]) == ["a"]


def test_plates_run_to_s3_resumes_and_stores_no_secret(s3, capsys):
    url = s3.url("runs/cbe")
    argv = ["run", "--dataset", "colorblindnesseval", "--prompt", "cbe-open", "--backend", "baseline",
            "--limit", "8", "--size", "64", "--out", url, "--no-progress"]
    assert main(argv) == 0
    assert "4 rows written" in capsys.readouterr().out  # 4 standard plates of the first 8 items
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "0 rows written" in out and "4 already there" in out
    frame = load_results(url).frame
    assert len(frame) == 4 and frame["row_key"].is_unique
    for key in s3.keys():
        body = s3.read(key)
        assert SECRET.encode() not in body and ACCESS_KEY.encode() not in body, key


def test_mirror_copies_committed_parts_and_drops_merged_ones(s3, tmp_path):
    from plates.storage import mirror

    url = s3.url("mirror")
    with ResultsWriter(url, "r1", flush_rows=1) as writer:
        for k in "abc":
            writer.add(_row(k))
    s3.client().put_object(Bucket="plates-test", Key="mirror/r1-uncommitted.parquet", Body=b"half")
    assert mirror(url, tmp_path) == 3 and mirror(url, tmp_path) == 0  # the second pass finds nothing new
    assert sorted(load_results(tmp_path).frame["row_key"]) == list("abc")
    compact_run(url, "r1")
    assert mirror(url, tmp_path) == 1
    assert len(list(tmp_path.glob("*.parquet"))) == 1 and sorted(load_results(tmp_path).frame["row_key"]) == list("abc")


def test_plates_dashboard_on_a_url_serves_a_kept_copy(s3, tmp_path, monkeypatch):
    import os

    url = s3.url("dash")
    with ResultsWriter(url, "r1") as writer:
        writer.add(_row("a"))
    seen = {}
    monkeypatch.setattr(os, "execve", lambda exe, argv, env: seen.update(env=env, argv=argv))
    assert main(["dashboard", url, "--cache", str(tmp_path / "copy"), "--port", "8599"]) == 0
    assert seen["env"]["PLATES_RESULTS"] == str((tmp_path / "copy").resolve())
    assert seen["env"]["PLATES_RESULTS_URL"] == url
    assert len(load_results(tmp_path / "copy").frame) == 1
    assert main(["dashboard", str(tmp_path), "--cache", str(tmp_path)]) == 2  # --cache needs a URL


def test_subcommands_that_write_local_folders_refuse_an_object_store_out(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["rescore", str(tmp_path), "--out", f"s3://{ACCESS_KEY}:{SECRET}@bucket/x"]) == 2
    err = capsys.readouterr().err
    assert "only plates run and plates generate --format parquet write" in err and SECRET not in err
    assert list(tmp_path.iterdir()) == []  # no folder named after the URL


@pytest.mark.parametrize("defer_sync", [False, True])
def test_write_atomic_leaves_the_whole_file_and_no_temporary(tmp_path, defer_sync):
    path = tmp_path / "a.png"
    path.write_bytes(b"old")
    assert write_atomic(b"new bytes", path, defer_sync=defer_sync) == 9
    assert path.read_bytes() == b"new bytes" and not list(tmp_path.glob(TEMPORARIES))


def test_sync_filesystem_flushes_a_folder_and_names_a_missing_one(tmp_path):
    write_atomic(b"x", tmp_path / "a.png", defer_sync=True)
    sync_filesystem(tmp_path)  # returns once the filesystem's writes are on disk
    with pytest.raises(FileNotFoundError):
        sync_filesystem(tmp_path / "missing")


@pytest.mark.parametrize("flush", [True, False])
def test_a_deferred_write_is_fsynced_at_once_where_no_filesystem_flush_exists(tmp_path, monkeypatch, flush):
    """Where sync_filesystem can flush later (Linux, macOS) a deferred write skips its fsync; where it cannot
    (Windows), the write is fsynced as usual and sync_filesystem does nothing: every image stays durable."""
    synced = []
    monkeypatch.setattr(storage, "filesystem_flush", lambda: (lambda folder: synced.append(folder)) if flush else None)
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append("fsync") or real_fsync(fd))
    write_atomic(b"x", tmp_path / "a.png", defer_sync=True)
    sync_filesystem(tmp_path)
    assert synced == ([tmp_path] if flush else ["fsync"])
