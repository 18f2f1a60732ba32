"""The explorer's session history (plates/explorer/history.py) as Parquet in the results schema."""

from __future__ import annotations

import io

import pyarrow.parquet as pq

from plates.explorer import models as em
from plates.explorer.history import HISTORY_COLUMNS, history_display, history_parquet
from plates.explorer.specs import spec_from_text
from plates.results import SCHEMA
from tests.support.explorer_asks import Scripted, spec


def test_history_downloads_as_parquet_in_the_results_schema():
    rows = [em.ask_plate(spec(seed=s), em.Ask("cbe-open"), Scripted(), colour_set="c", run_id="r") for s in (1, 2)]
    table = pq.read_table(io.BytesIO(history_parquet(rows)))
    assert table.schema.equals(SCHEMA) and table.num_rows == 2
    shown = history_display(rows)
    assert len(shown) == 2 and len(shown[0]) == len(HISTORY_COLUMNS)
    assert spec_from_text(table.column("spec_json")[0].as_py()).seed == 1
