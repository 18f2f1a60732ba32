"""The family writer (`plates.datasets.write.write_items` through `plates generate`): worker processes write the
same set as one process, and a family preset's ``--size`` is honoured or refused naming the allowed sizes."""

from __future__ import annotations

import multiprocessing as mp
import threading

import pyarrow.parquet as pq
import pytest

from plates.datasets import generate
from plates.datasets.family_presets import FAMILY_PRESETS


def _files(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.png"))}


def test_a_family_preset_on_two_workers_is_the_serial_set_byte_for_byte(tmp_path, monkeypatch):
    methods = []
    real = mp.get_context
    monkeypatch.setattr(mp, "get_context", lambda method=None: methods.append(method) or real(method))
    # robustness jobs make 10 entries each: a limit of 13 stops inside the second job
    one = generate("colorbench-robustness", tmp_path / "one", limit=13, size=96, workers=1, progress=False)
    two = generate("colorbench-robustness", tmp_path / "two", limit=13, size=96, workers=2, progress=False)
    assert one["rows"] == two["rows"] == 13
    # alone (a plain `plates generate`), workers fork with what this process imported; a whole-suite run may
    # have left other tests' server threads running, and then they are spawned
    assert methods == ["fork" if threading.active_count() == 1 else "spawn"]
    serial, parallel = _files(tmp_path / "one"), _files(tmp_path / "two")
    assert len(serial) == 13 and serial == parallel
    a = pq.read_table(tmp_path / "one" / "manifest.parquet")
    b = pq.read_table(tmp_path / "two" / "manifest.parquet")
    assert a.equals(b)
    assert set(a.column("size").to_pylist()) == {96}
    assert len(set(a.column("item_id").to_pylist())) == 13


def test_family_size_default_honoured_and_refused(tmp_path):
    generate("illusions-classic", tmp_path / "d", limit=1, workers=1, progress=False)
    default = FAMILY_PRESETS["illusions-classic"].default_size
    assert pq.read_table(tmp_path / "d" / "manifest.parquet").column("size").to_pylist() == [default]
    generate("illusions-classic", tmp_path / "s", limit=2, size=900, workers=1, progress=False)
    assert pq.read_table(tmp_path / "s" / "manifest.parquet").column("size").to_pylist() == [900, 900]
    with pytest.raises(ValueError, match=r"size=3000 is not valid for preset 'illusions-classic'; allowed: an "
                                         r"integer 64-2048"):
        generate("illusions-classic", tmp_path / "x", limit=1, size=3000, workers=1, progress=False)
    with pytest.raises(ValueError, match=r"workers=0 is not valid"):
        generate("illusions-classic", tmp_path / "x", limit=1, workers=0, progress=False)


def test_a_threaded_caller_gets_spawned_workers_and_the_same_set(tmp_path, monkeypatch):
    methods = []
    real = mp.get_context
    monkeypatch.setattr(mp, "get_context", lambda method=None: methods.append(method) or real(method))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)  # a caller's thread: forking would copy its locks
    other.start()
    try:
        generate("illusions-classic", tmp_path / "two", limit=3, size=96, workers=2, progress=False)
    finally:
        stop.set()
        other.join()
    generate("illusions-classic", tmp_path / "one", limit=3, size=96, workers=1, progress=False)
    assert methods == ["spawn"]
    assert len(_files(tmp_path / "one")) == 3 and _files(tmp_path / "one") == _files(tmp_path / "two")
