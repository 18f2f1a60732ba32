"""`plates.results.writer`: parts flushed by rows and by time, unique names, merged levels, and a real SIGKILLed
writer process that leaves only whole parts (real files on disk)."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from plates.results import ResultsWriter, compact_run, load_results
from tests.support.result_rows import result_row as _row


def test_writer_flushes_by_rows_with_unique_sorted_names(tmp_path):
    with ResultsWriter(tmp_path, "run-a", flush_rows=3, autoflush=False) as w:
        for i in range(7):
            w.add(_row(i))
        assert len(w.parts) == 2  # 3 + 3; the last row is still buffered
    assert len(w.parts) == 3 and w.rows_written == 7
    names = [p.name for p in w.parts]
    assert names == sorted(names) and len(set(names)) == 3
    assert all(n.startswith("run-a-") and n.endswith(".parquet") for n in names)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporaries left
    assert sorted(load_results(tmp_path).frame["item_id"]) == sorted(f"item-{i}" for i in range(7))


def test_writer_flushes_by_time_while_waiting_for_the_next_row(tmp_path):
    w = ResultsWriter(tmp_path, "run-t", flush_rows=1000, flush_seconds=0.2)
    w.add(_row(0))
    deadline = time.monotonic() + 5
    while not w.parts and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(w.parts) == 1  # written by the timer, no further add() needed
    w.close()
    assert len(load_results(tmp_path).frame) == 1


def test_two_writers_of_the_same_run_never_collide(tmp_path):
    a, b = ResultsWriter(tmp_path, "same", autoflush=False), ResultsWriter(tmp_path, "same", autoflush=False)
    a.add(_row(0))
    b.add(_row(1))
    a.close()
    b.close()
    assert a.parts[0] != b.parts[0]
    assert len(load_results(tmp_path).frame) == 2


def test_writer_rejects_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="run_id"):
        ResultsWriter(tmp_path, "a/b")
    with ResultsWriter(tmp_path, "ok", autoflush=False) as w, pytest.raises(ValueError, match="unknown results"):
        w.add({"nope": 1})


def test_writer_merges_full_levels_so_a_long_run_leaves_few_files(tmp_path):
    backup = tmp_path.parent / "level0"
    backup.mkdir()
    with ResultsWriter(tmp_path, "long", flush_rows=1, autoflush=False, fanout=2) as w:
        for i in range(9):
            w.add(_row(i))
            for p in tmp_path.glob("long-*.parquet"):  # keep a copy of every part ever written
                shutil.copy(p, backup / p.name)
    assert sorted(p.name.rsplit("-", 1)[-1] for p in tmp_path.glob("*.parquet")) == ["000008.parquet", "L3.parquet"]
    assert w.parts == sorted(tmp_path.glob("*.parquet"), key=lambda p: "L" not in p.name)
    frame = load_results(tmp_path).frame
    assert sorted(frame["row_key"]) == sorted(f"k{i}" for i in range(9))
    for p in backup.iterdir():  # as if every merge had crashed before deleting what it merged
        if not (tmp_path / p.name).exists():
            shutil.copy(p, tmp_path / p.name)
    assert len(list(tmp_path.glob("*.parquet"))) == 9  # 4 levels of parts, each holding some of the rows
    again = load_results(tmp_path)
    assert again.skipped == [] and sorted(again.frame["row_key"]) == sorted(f"k{i}" for i in range(9))
    merged = compact_run(tmp_path, "long")
    assert [p.name for p in tmp_path.glob("*.parquet")] == [merged.name]
    assert sorted(load_results(tmp_path).frame["row_key"]) == sorted(f"k{i}" for i in range(9))


_KILLED_WRITER = textwrap.dedent("""
    import sys
    from plates.results import ResultsWriter
    w = ResultsWriter(sys.argv[1], "killed", flush_rows=500, autoflush=False, fanout=2)  # merges often
    i = 0
    while True:
        w.add({"run_id": "killed", "item_id": str(i), "reply": "x" * 200, "row_key": str(i)})
        i += 1
""")


def test_sigkill_mid_write_leaves_only_whole_parts(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(tmp_path)])
    try:
        deadline = time.monotonic() + 30
        while len(list(tmp_path.glob("killed-*.parquet"))) < 4 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    loaded = load_results(tmp_path)
    assert loaded.skipped == []
    assert len(loaded.frame) >= 2000 and len(loaded.frame) % 500 == 0  # whole parts only
    assert loaded.frame["row_key"].is_unique
