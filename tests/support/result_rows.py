"""One results row as a dict for `plates.results.rows_to_table` / `ResultsWriter.add`: run "r", model "m", key
``k<i>``, correct on even ``i``; ``extra`` overrides or adds columns."""

from __future__ import annotations

from datetime import UTC, datetime


def result_row(i: int, **extra) -> dict:
    return {"run_id": "r", "item_id": f"item-{i}", "model": "m", "row_key": f"k{i}", "correct": i % 2 == 0,
            "timestamp": datetime(2026, 1, 1, tzinfo=UTC), **extra}
