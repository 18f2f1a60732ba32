"""What the explorer's tabs share (`plates.explorer.context`): the scratch folder's names and pruning, the public
mode's admission of model answers, and the session history written as results Parquet."""

from __future__ import annotations

import io
import os
import time
from types import SimpleNamespace

import pyarrow.parquet as pq
import pytest

from plates.admission import Admission, MemoryBudget, RateLimit, Refused
from plates.explorer.context import AppContext, Scratch
from plates.models.base import Reply
from plates.results.schema import SCHEMA
from plates.runs.rows import build_row
from tests.support.result_rows import plate_asked


def _context(scratch: Scratch, admission: Admission | None) -> AppContext:
    """An AppContext with only what these tests read (the other fields belong to the tabs)."""
    return AppContext(
        policy=None,
        admission=admission,
        guard=None,
        slots={},
        cache=None,
        plates_seen=None,
        scratch=scratch,
        ttl=None,
        work=None,
    )


def _request(host: str) -> SimpleNamespace:
    return SimpleNamespace(client=SimpleNamespace(host=host), headers={})


def test_scratch_names_its_own_files(tmp_path):
    scratch = Scratch(tmp_path / "s")
    first, second = scratch.write("plate", "png", b"one"), scratch.write("plate", "png", b"two")
    assert first != second and os.path.dirname(first) == str(tmp_path / "s")
    assert os.path.basename(first).startswith("plate-") and first.endswith(".png")
    assert open(first, "rb").read() == b"one"


@pytest.mark.parametrize(
    ("stem", "suffix"),
    [("../etc", "png"), ("Plate", "png"), ("x" * 41, "png"), ("plate", "html"), ("", "json")],
)
def test_scratch_refuses_names_outside_its_own(tmp_path, stem, suffix):
    with pytest.raises(ValueError, match="allowed"):
        Scratch(tmp_path).write(stem, suffix, b"x")
    assert list(tmp_path.iterdir()) == []


def test_scratch_prunes_files_older_than_its_age_as_it_writes(tmp_path):
    scratch = Scratch(tmp_path, max_age_s=100)
    old, fresh = tmp_path / "old-1.png", tmp_path / "fresh-1.png"
    old.write_bytes(b"o")
    fresh.write_bytes(b"f")
    past = time.time() - 500
    os.utime(old, (past, past))
    kept = scratch.write("new", "json", b"{}")
    assert not old.exists() and fresh.exists() and os.path.exists(kept)


def test_private_mode_admits_every_answer(tmp_path):
    _context(Scratch(tmp_path), None).admit_answers(_request("10.0.0.1"), 10_000, "a sweep")


def test_public_mode_counts_each_visitors_answers_apart(tmp_path):
    admission = Admission(
        memory=MemoryBudget(10**12, rss=lambda: 1),
        model_answers=RateLimit("model answers", 5, 600.0, total=8),
    )
    ctx = _context(Scratch(tmp_path), admission)
    ctx.admit_answers(_request("10.0.0.1"), 4, "a sweep")
    with pytest.raises(Refused, match="model answers"):
        ctx.admit_answers(_request("10.0.0.1"), 2, "a sweep")
    ctx.admit_answers(_request("10.0.0.2"), 4, "a sweep")
    with pytest.raises(Refused):  # the app's total (8) is spent
        ctx.admit_answers(_request("10.0.0.3"), 1, "an ask")


def test_public_mode_refuses_when_over_its_memory_budget(tmp_path):
    admission = Admission(memory=MemoryBudget(1000, rss=lambda: 10**9))
    with pytest.raises(Refused):
        _context(Scratch(tmp_path), admission).admit_answers(_request("10.0.0.1"), 1, "an ask")


def test_the_history_is_written_as_results_parquet(tmp_path):
    rows = [
        build_row(plate_asked(i, run_id="explorer-0000", dataset="explorer", backend="baseline"), Reply(text))
        for i, text in enumerate(["12", "7"])
    ]
    path = _context(Scratch(tmp_path), None).parquet(rows)
    table = pq.read_table(io.BytesIO(open(path, "rb").read()))
    assert path.endswith(".parquet") and table.num_rows == 2
    assert set(table.column_names) <= set(SCHEMA.names)
    assert sorted(table.column("correct").to_pylist()) == [False, True]
