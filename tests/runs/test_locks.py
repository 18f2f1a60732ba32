"""The run's lock files (plates/runs/locks.py): held while a run writes, refused to a second process, and gone
once the run (or its last shard) finishes, so a finished run's folder holds parts only."""

from __future__ import annotations

import pytest

from plates.runs.locks import run_lock
from plates.shards import Shard


def locks(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".lock"))


def test_a_finished_run_leaves_no_lock_file(tmp_path):
    with run_lock(tmp_path, "run-a"):
        assert locks(tmp_path) == [".run-a.lock"]
        (tmp_path / "run-a-part-0.parquet").write_bytes(b"x")  # what a run writes
        with pytest.raises(ValueError, match="already running in another process"):
            with run_lock(tmp_path, "run-a"):
                pass
    assert locks(tmp_path) == []
    with run_lock(tmp_path, "run-a"):  # the next run of the same id takes a new lock
        pass
    assert locks(tmp_path) == []


def test_a_failed_run_with_parts_keeps_its_lock_file(tmp_path):
    with pytest.raises(RuntimeError), run_lock(tmp_path, "run-b"):
        (tmp_path / "run-b-part-0.parquet").write_bytes(b"x")
        raise RuntimeError("the server went away")
    assert locks(tmp_path) == [".run-b.lock"]


def test_the_last_shard_to_finish_removes_the_runs_lock(tmp_path):
    first, second = Shard(1, 2), Shard(2, 2)
    with run_lock(tmp_path, "run-c", first):
        with run_lock(tmp_path, "run-c", second):
            assert locks(tmp_path) == [".run-c.lock", f".run-c.shard-{first.tag}.lock",
                                       f".run-c.shard-{second.tag}.lock"]
        assert locks(tmp_path) == [".run-c.lock", f".run-c.shard-{first.tag}.lock"]  # the first still runs
    assert locks(tmp_path) == []
