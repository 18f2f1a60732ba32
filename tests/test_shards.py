"""Shards (plates.shards): `plates run --shard I/N` and `plates generate --shard I/N` as real processes writing to
one folder at once together equal the unsharded run: the same row keys, verdicts and manifest, no duplicates.
The unsharded runs to compare with, and shards run one after another, go through `plates.cli.main` in this
process: only shards running at once need processes of their own."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from plates.cli import main
from plates.datasets import generate
from plates.datasets.grid import generate_grid, parse_grid
from plates.datasets.scenes import robustness_jobs
from plates.datasets.write import write_items
from plates.results import load_results
from plates.runs.locks import run_lock
from plates.shards import Shard
from tests.support import ROOT
from tests.support.chat_server import ChatServer, image_urls
from tests.support.grids import GRID


def _answer(body) -> str:
    """A reply fixed by the image (so every process gets the same one for the same plate): a number, right or
    wrong, or now and then no answer at all."""
    h = int(hashlib.sha256("".join(image_urls(body)).encode()).hexdigest(), 16)
    return "I cannot tell" if h % 7 == 0 else f"Answer: {10 + h % 90}"


def _start(*args) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-m", "plates.cli", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)


def _finish(process: subprocess.Popen) -> str:
    out, err = process.communicate(timeout=240)
    assert process.returncode == 0, err
    return out


def _here(capsys, *args) -> str:
    """`plates ...` in this process (the `main` that `python -m plates.cli` exits with); its stdout."""
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _rows(folder: Path):
    frame = load_results(folder).frame
    assert frame["row_key"].is_unique
    return frame.set_index("row_key")[["item_id", "reply", "parsed", "parse_status", "correct"]].sort_index()


def test_a_shard_is_a_deterministic_partition():
    keys = [f"key-{i}" for i in range(3000)]
    owners = [[k for k in keys if Shard(i, 3).owns(k)] for i in (1, 2, 3)]
    assert sorted(sum(owners, [])) == sorted(keys)  # every key in exactly one shard
    assert all(900 < len(o) < 1100 for o in owners)
    assert Shard.parse(" 2 / 3 ") == Shard(2, 3) and Shard.parse("1/1").owns("anything")
    for bad in ("0/3", "4/3", "3", "a/b", "1/0", "-1/2"):
        with pytest.raises(ValueError, match="I/N"):
            Shard.parse(bad)


@pytest.mark.slow
def test_three_shards_at_once_into_one_folder_equal_the_unsharded_run(tmp_path, capsys):
    common = ["run", "--dataset", "huemanity-numeric", "--prompt", "huemanity-numeric", "--model", "test-model",
              "--no-api-key", "--size", "64", "--limit", "24", "--no-progress"]
    with ChatServer(answer=_answer) as server:
        alone = _here(capsys, *common, "--base-url", server.url, "--out", tmp_path / "alone")
        assert "24 rows written" in alone
        shards = [_start(*common, "--base-url", server.url, "--out", tmp_path / "sharded", "--shard", f"{i}/3")
                  for i in (1, 2, 3)]
        outs = [_finish(p) for p in shards]
        assert server.count == 24 + 24  # each row asked once by exactly one shard
    written = [int(o.split(" rows written")[0].rsplit(" ", 1)[1]) for o in outs]
    assert sum(written) == 24 and all(w > 0 for w in written)
    assert _rows(tmp_path / "sharded").equals(_rows(tmp_path / "alone"))
    # the unsharded command afterwards asks nothing and merges the shards' parts into one
    with ChatServer(answer=_answer) as server:
        merge = _here(capsys, *common, "--base-url", server.url, "--out", tmp_path / "sharded")
        assert "0 rows written" in merge and "24 already there" in merge and server.count == 0
    assert len(list((tmp_path / "sharded").glob("*.parquet"))) == 1
    assert _rows(tmp_path / "sharded").equals(_rows(tmp_path / "alone"))


def test_the_same_shard_twice_or_an_unsharded_run_beside_shards_is_refused(tmp_path):
    with run_lock(tmp_path, "run-x", Shard(1, 2)):
        with run_lock(tmp_path, "run-x", Shard(2, 2)):  # another shard: fine
            pass
        with pytest.raises(ValueError, match="shard 1/2 of run run-x is already running"):
            with run_lock(tmp_path, "run-x", Shard(1, 2)):
                pass
        with pytest.raises(ValueError, match="run run-x is running unsharded|already running"):
            with run_lock(tmp_path, "run-x"):
                pass
    with run_lock(tmp_path, "run-x"):
        with pytest.raises(ValueError, match="is running unsharded"):
            with run_lock(tmp_path, "run-x", Shard(1, 2)):
                pass


@pytest.mark.slow
def test_three_generate_shards_at_once_equal_the_unsharded_set(tmp_path, capsys):
    common = ["generate", "--preset", "colorblindnesseval", "--limit", "12", "--size", "96", "--workers", "1",
              "--no-progress"]
    _here(capsys, *common, "--out", tmp_path / "alone")
    for p in [_start(*common, "--out", tmp_path / "sharded", "--shard", f"{i}/3") for i in (1, 2, 3)]:
        _finish(p)
    alone, sharded = (pq.read_table(tmp_path / d / "manifest.parquet") for d in ("alone", "sharded"))
    assert alone.num_rows == 24 and sharded.equals(alone)  # 12 plates x (standard, clear), same order
    assert sharded.schema.metadata == alone.schema.metadata
    for rel in alone.column("path").to_pylist():
        assert (tmp_path / "sharded" / rel).read_bytes() == (tmp_path / "alone" / rel).read_bytes()
    assert sorted(p.name for p in (tmp_path / "sharded" / "manifest.shards").iterdir()) == [
        "1-of-3.parquet", "2-of-3.parquet", "3-of-3.parquet"]


def _same_set(a: Path, b: Path) -> None:
    """Two generated folders hold the same manifest (rows, order, schema and its metadata) and the same PNGs."""
    ta, tb = (pq.read_table(d / "manifest.parquet") for d in (a, b))
    assert tb.equals(ta) and tb.schema.metadata == ta.schema.metadata
    assert ta.column("item_id").to_pylist() == list(dict.fromkeys(ta.column("item_id").to_pylist()))  # no repeats
    files = {p.relative_to(a).as_posix() for p in a.rglob("*.png")}
    assert files == {p.relative_to(b).as_posix() for p in b.rglob("*.png")} == set(ta.column("path").to_pylist())
    for rel in files:
        assert (b / rel).read_bytes() == (a / rel).read_bytes()


def _shards_then_whole(make, tmp_path: Path, count: int = 3) -> None:
    """``make(out, shard)`` unsharded, then as ``count`` shards into one folder: the same set; the manifest
    appears only once the last shard has written its part."""
    make(tmp_path / "alone", None)
    for i in range(1, count + 1):
        assert not (tmp_path / "sharded" / "manifest.parquet").exists()
        make(tmp_path / "sharded", Shard(i, count))
    _same_set(tmp_path / "alone", tmp_path / "sharded")


def test_family_preset_shards_equal_the_unsharded_set(tmp_path):
    """An illusion preset (one image per item, a limit allowed with shards) and ColorBench's robustness (ten
    images per seed: a shard owns whole seeds) sharded into one folder: the unsharded set, file for file."""
    _shards_then_whole(lambda out, shard: generate("rcid-contrast", out, limit=20, size=64, workers=1,
                                                   progress=False, shard=shard), tmp_path / "ill")
    _shards_then_whole(lambda out, shard: write_items("colorbench-robustness",
                                                      robustness_jobs(n=3, size=64), out, shard=shard),
                       tmp_path / "rob")
    names = [p.name for p in sorted((tmp_path / "rob" / "alone").rglob("*.png"))]
    assert len(names) == 30 and names[0].startswith("000000_") and names[-1].startswith("000002_")
    with pytest.raises(ValueError, match="limit=5 cannot be combined with a shard for preset 'colorbench-robustness'"):
        generate("colorbench-robustness", tmp_path / "x", limit=5, size=64, workers=1, progress=False,
                 shard=Shard(1, 2))


def test_grid_shards_equal_the_unsharded_set(tmp_path):
    grid = parse_grid(tomllib.loads(GRID))
    _shards_then_whole(lambda out, shard: generate_grid(grid, out, workers=1, progress=False, shard=shard),
                       tmp_path)
    assert pq.read_table(tmp_path / "alone" / "manifest.parquet").num_rows == 32  # 16 plates x 2 variants


def test_run_shards_of_a_family_preset_ask_each_row_once(tmp_path, capsys):
    """`plates run --shard` on an illusion preset: the shards' rows are the unsharded run's (keys, verdicts)."""
    common = ["run", "--dataset", "rcid-contrast", "--prompt", "rcid-compare-pixel", "--backend", "baseline",
              "--limit", "12", "--size", "64", "--no-progress"]
    _here(capsys, *common, "--out", tmp_path / "alone")
    outs = [_here(capsys, *common, "--out", tmp_path / "sharded", "--shard", f"{i}/2") for i in (1, 2)]
    written = [int(o.split(" rows written")[0].rsplit(" ", 1)[1]) for o in outs]
    assert sum(written) == 12 and all(w > 0 for w in written)
    assert _rows(tmp_path / "sharded").equals(_rows(tmp_path / "alone"))
