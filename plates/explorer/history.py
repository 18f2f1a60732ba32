"""The live plate explorer's session history: rows of the results schema (plates.results.SCHEMA), bounded per
visitor, shown on the page newest first and downloaded as Parquet (the dashboard opens it).
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from plates.results import SCHEMA

#: Most rows a session's history keeps (oldest dropped first): bounds server memory per visitor.
MAX_HISTORY = 500
#: Columns of the history table shown on the page (all SCHEMA columns go into the Parquet download).
HISTORY_COLUMNS = ("model", "prompt_name", "target", "delta_e", "variant", "cvd", "grayscale", "parsed",
                   "correct", "failure_mode", "latency_s", "error")
#: The page's header for each of :data:`HISTORY_COLUMNS` (the Parquet download keeps the schema's names).
HISTORY_HEADERS = {
    "model": "Model", "prompt_name": "Prompt", "target": "Text", "delta_e": "ΔE2000 drawn",
    "variant": "Variant", "cvd": "CVD view", "grayscale": "Grayscale", "parsed": "Answer read",
    "correct": "Correct",
    "failure_mode": "Failure mode", "latency_s": "Latency (s)", "error": "Error",
}


def history_table(rows: Sequence[dict]) -> pa.Table:
    """Rows as an Arrow table in the results schema (`plates.results.SCHEMA`).

    Parameters
    ----------
    rows : sequence of dict
        Results rows; a column a row lacks is null.

    Returns
    -------
    pyarrow.Table
        The table, columns in the schema's order.
    """
    return pa.Table.from_pylist([{k: r.get(k) for k in SCHEMA.names} for r in rows], schema=SCHEMA)


def history_parquet(rows: Sequence[dict]) -> bytes:
    """The session history as Parquet bytes in the results schema (the dashboard opens it).

    Parameters
    ----------
    rows : sequence of dict
        The session's results rows.

    Returns
    -------
    bytes
        A Parquet file.
    """
    sink = io.BytesIO()
    pq.write_table(history_table(rows), sink)
    return sink.getvalue()


def history_headers() -> list[str]:
    """The history table's headers on the page, in :data:`HISTORY_COLUMNS` order."""
    return [HISTORY_HEADERS[c] for c in HISTORY_COLUMNS]


def history_frame(rows: Sequence[dict]):
    """The history table shown on the page, newest first.

    Parameters
    ----------
    rows : sequence of dict
        The session's results rows, oldest first.

    Returns
    -------
    pandas.DataFrame
        :data:`HISTORY_COLUMNS` under :func:`history_headers`.
    """
    return pd.DataFrame(history_display(rows), columns=history_headers())


def history_display(rows: Sequence[dict]) -> list[list]:
    """The history table shown on the page: :data:`HISTORY_COLUMNS` of each row, newest first.

    Parameters
    ----------
    rows : sequence of dict
        The session's results rows, oldest first.

    Returns
    -------
    list of list
        One list per row; floats rounded to 3 places.
    """
    out = []
    for r in reversed(rows):
        out.append([round(r[c], 3) if isinstance(r.get(c), float) else r.get(c) for c in HISTORY_COLUMNS])
    return out
