"""`plates.results.compaction.compact_run`: a run's parts merged into one, surviving a crash between writing the
merged part and deleting the parts (real files on disk)."""

from __future__ import annotations

import shutil

from plates.results import ResultsWriter, compact_run, load_results
from tests.support.result_rows import result_row as _row


def test_compact_run_merges_parts_and_survives_a_crash_before_deleting(tmp_path):
    with ResultsWriter(tmp_path, "r", flush_rows=2, autoflush=False) as w:
        for i in range(5):
            w.add(_row(i))
    with ResultsWriter(tmp_path, "other", autoflush=False) as w2:
        w2.add(_row(9, run_id="other"))
    backup = tmp_path.parent / "backup"
    backup.mkdir()
    for p in w.parts:
        shutil.copy(p, backup / p.name)
    merged = compact_run(tmp_path, "r")
    assert merged is not None and sorted(p.name for p in tmp_path.iterdir()) == sorted([merged.name, w2.parts[0].name])
    for p in backup.iterdir():  # as if the process died after writing the merged part, before deleting
        shutil.copy(p, tmp_path / p.name)
    frame = load_results(tmp_path).frame
    assert len(frame) == 6 and frame["row_key"].is_unique
    assert compact_run(tmp_path, "r") is None or len(load_results(tmp_path).frame) == 6
