"""`plates.results.shipped`: the manifest of the shipped first-start runs, written from real Parquet parts and read
back from a results folder or its ``runs/``; a broken manifest is named, never ignored."""

from __future__ import annotations

import json

import pytest

from plates.results.shipped import MANIFEST, shipped_run_ids, write_manifest
from tests.support.dashboard_rows import rows, write_part


def test_the_manifest_lists_every_run_under_the_folder_once_sorted(tmp_path):
    runs = tmp_path / "runs"
    write_part(runs / "b" / "part-000.parquet", rows(3, run_id="run-b"))
    write_part(runs / "a" / "part-000.parquet", rows(2, run_id=["run-a", "run-c"]))
    path = write_manifest(runs)
    assert path == runs / MANIFEST
    assert json.loads(path.read_text(encoding="utf-8")) == {"runs": ["run-a", "run-b", "run-c"]}
    assert shipped_run_ids(runs) == {"run-a", "run-b", "run-c"}
    assert shipped_run_ids(tmp_path) == {"run-a", "run-b", "run-c"}  # the results folder above finds runs/


def test_a_folder_without_a_manifest_ships_nothing(tmp_path):
    write_part(tmp_path / "mine" / "part-000.parquet", rows(1, run_id="mine"))
    assert shipped_run_ids(tmp_path) == frozenset()
    assert shipped_run_ids(tmp_path / "missing") == frozenset()


@pytest.mark.parametrize(("text", "match"), [
    ("not json", "not a shipped-runs manifest"),
    ('{"run": []}', "not a shipped-runs manifest"),
    ('["a"]', "not a shipped-runs manifest"),
    ('{"runs": "a"}', "'runs' must be a list of run ids"),
    ('{"runs": ["a", 3]}', "'runs' must be a list of run ids"),
])
def test_a_broken_manifest_is_named_with_what_is_expected(tmp_path, text, match):
    (tmp_path / MANIFEST).write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=match) as info:
        shipped_run_ids(tmp_path)
    assert str(tmp_path / MANIFEST) in str(info.value)
