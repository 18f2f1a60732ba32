"""What the Observers page reads, apart from any widget: per pair of observers, counts over the trials both
answered (for error consistency, `plates.analysis.consistency`), from DuckDB, and the ellipse summary tables
(`plates ellipses`' ellipses.parquet, marked ``plates.kind = summary``) found under the results folder."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from plates.analysis.consistency import TRIAL_KEY
from plates.dashboard.queries import Where
from plates.results.query import Results
from plates.results.schema import KIND_KEY, SUMMARY_KIND

__all__ = ["ellipse_tables", "pair_counts"]

#: Most summary files read from one results folder (a page never walks an unbounded tree).
MAX_TABLES = 200


def pair_counts(results: Results, where: Where) -> pd.DataFrame:
    """Per family and pair of observers (``model``), counted in DuckDB over the trials both answered (`TRIAL_KEY`,
    hashed; a trial answered more than once counts once, right only if every answer was): ``n``, ``agree``,
    ``right_a``, ``right_b`` (`plates.analysis.consistency.matrix_from_counts`). Only counts leave DuckDB."""
    clause, params = where.sql("correct IS NOT NULL")
    key = ", ".join(f'coalesce(CAST("{c}" AS VARCHAR), \'<null>\')' for c in TRIAL_KEY)
    sql = f"""
        WITH t AS (
            SELECT CAST(family AS VARCHAR) AS family, CAST(model AS VARCHAR) AS model,
                   md5(concat_ws(chr(31), {key})) AS k, min(CAST(correct AS INTEGER)) AS c
            FROM results {clause} GROUP BY 1, 2, 3)
        SELECT a.family, a.model AS observer_a, b.model AS observer_b, count(*) AS n,
               sum(CASE WHEN a.c = b.c THEN 1 ELSE 0 END) AS agree, sum(a.c) AS right_a, sum(b.c) AS right_b
        FROM t a JOIN t b ON a.family = b.family AND a.k = b.k AND a.model < b.model
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"""
    return results.query(sql, params)


def ellipse_tables(root: str | Path) -> pd.DataFrame:
    """Every ellipses.parquet summary table under ``root`` (at most `MAX_TABLES`), concatenated; a file not
    marked as a summary is left out."""
    root = Path(root)
    frames = []
    paths = sorted(root.rglob("ellipses.parquet"))[:MAX_TABLES] if root.is_dir() else []
    for path in paths:
        try:
            table = pq.read_table(path)
        except Exception:  # noqa: BLE001 - a corrupt file is left out like any foreign file
            continue
        if (table.schema.metadata or {}).get(KIND_KEY) == SUMMARY_KIND:
            frames.append(table.to_pandas())
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
