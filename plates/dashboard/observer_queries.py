"""What the Observers page reads, apart from any widget: per pair of observers, counts over the trials both
answered (for error consistency, `plates.analysis.consistency`), from DuckDB; the ellipse summary tables
(`plates ellipses`' ellipses.parquet, marked ``plates.kind = summary``) found under the results folder; and
people's ellipses, fit from their directions-quiz rows (`plates.runs.quiz_directions.ellipses_from_rows`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from plates.analysis.consistency import TRIAL_KEY, matrix_from_counts
from plates.charts.ellipses import observer_label
from plates.dashboard.queries import Where
from plates.results.query import Results
from plates.results.schema import KIND_KEY, SUMMARY_KIND
from plates.runs.ellipse_plan import UNITS
from plates.runs.quiz_directions import ellipses_from_rows

__all__ = ["ellipse_tables", "kappa_matrix", "observer_ellipses", "pair_counts", "people_ellipses", "people_labels"]

#: Most summary files read from one results folder (a page never walks an unbounded tree).
MAX_TABLES = 200
#: Most people's sessions fit on one page load (the first by run id: a random participant id).
MAX_PEOPLE = 200
#: The columns a person's ellipse is fit from.
_PEOPLE_COLUMNS = ("run_id", "model", "backend", "item_id", "direction", "spec_json", "level_shown", "correct",
                   "parse_status", "level_unit", "colour_vision")


def pair_counts(results: Results, where: Where) -> pd.DataFrame:
    """Per family and pair of observers (``model``), counted in DuckDB over the trials both answered (`TRIAL_KEY`,
    hashed; a trial answered more than once counts once, right only if every answer was): ``n``, ``agree``,
    ``right_a``, ``right_b`` (`plates.analysis.consistency.matrix_from_counts`). Only counts leave DuckDB.

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results (a DuckDB view ``results`` over the Parquet parts).
    where : Where
        The page's row filters.

    Returns
    -------
    pandas.DataFrame
        Columns ``family``, ``observer_a``, ``observer_b`` (``observer_a`` < ``observer_b``), ``n``, ``agree``,
        ``right_a``, ``right_b``, sorted.
    """
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
    marked as a summary is left out.

    Parameters
    ----------
    root : str or pathlib.Path
        The results folder searched (recursively); not a folder: nothing found.

    Returns
    -------
    pandas.DataFrame
        The summaries' rows, or an empty frame when none is found (unreadable files are left out too).
    """
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


def people_ellipses(results: Results, where: Where) -> pd.DataFrame:
    """People's ellipses (rows of backend "human" with u'v' levels: the quiz's directions mode) fit from their
    rows under ``where`` (`plates.runs.quiz_directions.ellipses_from_rows`), at most `MAX_PEOPLE` sessions;
    empty when there are none.

    Parameters
    ----------
    results : Results
        The results folder's rows, queried in DuckDB.
    where : Where
        The page's filters (`plates.dashboard.queries.Where`).

    Returns
    -------
    pandas.DataFrame
        One row per session, the columns of `plates.runs.quiz_directions.ellipses_from_rows` (axes in CIE 1931
        xy).
    """
    clause, params = where.sql("backend = 'human' AND level_unit = $people_unit")
    params = {**params, "people_unit": UNITS["uv"]}
    cols = ", ".join(f'"{c}"' for c in _PEOPLE_COLUMNS)
    sql = f"""
        WITH p AS (SELECT {cols} FROM results {clause}),
             s AS (SELECT DISTINCT run_id FROM p ORDER BY run_id LIMIT {MAX_PEOPLE})
        SELECT p.* FROM p JOIN s USING (run_id) ORDER BY p.run_id, p.item_id"""
    return ellipses_from_rows(results.query(sql, params))


def observer_ellipses(results: Results, where: Where) -> pd.DataFrame:
    """What the Observers page draws: every `ellipse_tables` row under the results folder, then
    `people_ellipses`' rows (empty when there are neither).

    Parameters
    ----------
    results : Results
        The results folder's rows, queried in DuckDB.
    where : Where
        The page's filters (`plates.dashboard.queries.Where`); they select people's rows only, the
        summary tables are read whole.

    Returns
    -------
    pandas.DataFrame
        The models' ellipse rows, then the people's.
    """
    frames = [t for t in (ellipse_tables(results.parts.root), people_ellipses(results, where)) if not t.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def people_labels(results: Results, where: Where) -> dict[str, str]:
    """Each person's (backend "human") ``model`` -> the name charts give them (`plates.charts.ellipses.
    observer_label`: with the colour-vision type they reported, or "not given").

    Parameters
    ----------
    results : Results
        The results folder's rows, queried in DuckDB.
    where : Where
        The page's filters (`plates.dashboard.queries.Where`).

    Returns
    -------
    dict of str to str
        ``model`` -> label, for each person under ``where``.
    """
    clause, params = where.sql("backend = 'human'")
    sql = f"""SELECT CAST(model AS VARCHAR) AS model, max(CAST(colour_vision AS VARCHAR)) AS colour_vision
              FROM results {clause} GROUP BY 1"""
    return {str(r.model): observer_label({"model": r.model, "backend": "human", "colour_vision": r.colour_vision})
            for r in results.query(sql, params).itertuples()}


def kappa_matrix(results: Results, where: Where) -> pd.DataFrame:
    """κ per family and pair of observers (`plates.analysis.consistency.matrix_from_counts` over `pair_counts`),
    people included and named by `people_labels`.

    Parameters
    ----------
    results : Results
        The results folder's rows, queried in DuckDB.
    where : Where
        The page's filters (`plates.dashboard.queries.Where`).

    Returns
    -------
    pandas.DataFrame
        `plates.analysis.consistency.matrix_from_counts`' table with ``observer_a`` and ``observer_b`` as
        labelled; empty when `matrix_from_counts` gives an empty table.
    """
    matrix = matrix_from_counts(pair_counts(results, where))
    if matrix.empty:
        return matrix
    labels = people_labels(results, where)
    for column in ("observer_a", "observer_b"):
        matrix[column] = matrix[column].astype(str).map(lambda m: labels.get(m, m))
    return matrix
