"""Results schema (`plates.results.schema`): rows to an Arrow table in the one schema, unknown columns and bad
values named, every column described."""

from __future__ import annotations

import pytest

from plates.results import COLUMNS, SCHEMA, rows_to_table
from tests.support.result_rows import result_row as _row


def test_rows_to_table_fills_missing_columns_with_null():
    table = rows_to_table([_row(0), _row(1)])
    assert table.schema == SCHEMA
    assert table.column("reply").null_count == 2
    assert table.column("item_id").to_pylist() == ["item-0", "item-1"]


def test_rows_to_table_names_unknown_columns():
    with pytest.raises(ValueError, match=r"unknown results columns \['modle'\].*item_id"):
        rows_to_table([{"modle": "x"}])


def test_rows_to_table_names_the_column_of_a_bad_value():
    with pytest.raises(ValueError, match="'size'"):
        rows_to_table([{"size": "big"}])


def test_every_column_is_described():
    assert all(desc.strip() for _, desc in COLUMNS.values())
    assert SCHEMA.names == list(COLUMNS)
