"""The dashboard's numbers as DuckDB aggregations over the results parts (`plates.results.query.Results`).

Each function returns a small count table that `plates.analysis.metrics`' ``*_from_counts`` /
``*_from_pairs`` functions turn into the same table the row-level metric gives (tests/dashboard/test_queries.py
compares them on the same rows). Nothing here loads rows into pandas but the drill-down's one page.

* `cube`: answered / correct / failed counts per `CUBE_COLUMNS` combination: the overview, colour sets,
  resolution, yes/no, the comparison with the papers and every filter's options come from it.
* `pairs`: the paired counts behind the grayscale and chain-of-thought deltas (items answered on both sides).
* `levels`: answered / correct per ΔE2000 level (rounded to `LEVEL_DECIMALS`) for the psychometric fits.
* `failure_counts`, `reading_counts` (how replies were read, and the judge's part), `drilldown`,
  `drilldown_count`, `repeated_items`, `export`.

Filters are a `Where`: allowed values per column and allowed condition combinations, always passed to DuckDB
as parameters (never pasted into SQL).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from plates.analysis.metrics import ITEM_KEYS
from plates.results.query import Results

#: One cube row per combination of these (a run, a model, a prompt, a group, a condition); ``colour_set`` (a
#: plate's group; null for other families) adds no cell: the Colour sets page reads it; nor does ``family`` (the
#: rows' stimulus family, one per task): the pages choose families by it without the task registry.
CONDITION_KEYS = ("variant", "size", "grayscale", "hue_shift", "cvd", "cvd_severity", "text_only")
CUBE_COLUMNS = ("run_id", "model", "dataset", "prompt_name", "task", "family", "group", "colour_set",
                *CONDITION_KEYS, "shots")
#: The cube, kept as a DuckDB table beside the view (made once per opened results).
CUBE_TABLE = "cube"
#: ΔE2000 levels are rounded to this many decimals before the fits (0.01 ΔE2000).
LEVEL_DECIMALS = 2
#: Columns the drill-down fetches (the plate is regenerated from spec_json with the condition re-applied).
ROW_COLUMNS = (
    "run_id",
    "item_id",
    "model",
    "prompt_name",
    "target",
    "expected",
    "reply",
    "parsed",
    "parse_status",
    "correct",
    "failure_mode",
    "error",
    "group",
    "colour_set",
    "delta_e",
    "delta_e_drawn_median",
    "view_family",
    "view_figure_cut",
    "view_cropped_fraction",
    "spec_json",
    *CONDITION_KEYS,
    "shots",
)
_COUNTS = (
    "count(correct) AS n, count(*) FILTER (WHERE correct) AS correct, "
    "count(*) FILTER (WHERE correct IS NULL) AS errors"
)


def quote(name: str) -> str:
    """``name`` as a DuckDB identifier (double-quoted).

    Parameters
    ----------
    name : str
        A column name.

    Returns
    -------
    str
        ``name`` in double quotes, inner double quotes doubled.

    Examples
    --------
    >>> quote('a"b')
    '"a""b"'
    """
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class Where:
    """Row filters: ``values`` column -> allowed values (compared as strings; empty: no filter), and
    ``conditions``: allowed combinations of `CONDITION_KEYS` values (empty: every condition).

    Parameters
    ----------
    values : mapping of str to sequence of str, optional
        Column -> allowed values.
    conditions : sequence of mapping, optional
        Allowed conditions, each `CONDITION_KEYS` -> value (None or NaN: the column is null).
    """

    values: Mapping[str, Sequence[str]] = field(default_factory=dict)
    conditions: Sequence[Mapping[str, Any]] = ()

    def sql(self, extra: str = "") -> tuple[str, dict[str, Any]]:
        """(``WHERE ...`` clause or "", named parameters), with ``extra`` (SQL) ANDed in. Values become
        ``column IN ($p, ...)`` so DuckDB can push them into the Parquet scan (and skip parts by their
        statistics: a run's parts for a run filter).

        Parameters
        ----------
        extra : str, optional
            An SQL condition ANDed in ("" for none).

        Returns
        -------
        tuple of (str, dict)
            The clause (empty when nothing filters) and the named parameters it uses.
        """
        parts, params = [], {}
        for i, (column, allowed) in enumerate(sorted(self.values.items())):
            if allowed:
                parts.append(in_list(column, allowed, f"v{i}", params))
        if self.conditions:
            ors = []
            for j, cond in enumerate(self.conditions):
                ands = []
                for key in CONDITION_KEYS:
                    value = cond.get(key)
                    if value is None or (not isinstance(value, str) and bool(pd.isna(value))):
                        ands.append(f"{quote(key)} IS NULL")
                    else:
                        params[f"c{j}_{key}"] = value.item() if hasattr(value, "item") else value
                        ands.append(f"{quote(key)} = $c{j}_{key}")
                ors.append("(" + " AND ".join(ands) + ")")
            parts.append("(" + " OR ".join(ors) + ")")
        if extra:
            parts.append(f"({extra})")
        return ("WHERE " + " AND ".join(parts) if parts else ""), params


def in_list(column: str, values: Sequence[Any], prefix: str, params: dict[str, Any]) -> str:
    """``column IN ($prefix_0, ...)`` with the values (as strings) added to ``params``.

    Parameters
    ----------
    column : str
        The column (quoted by `quote`).
    values : sequence
        The allowed values, compared as strings.
    prefix : str
        The parameters' name prefix.
    params : dict
        Named parameters, updated in place.

    Returns
    -------
    str
        The SQL condition.
    """
    names = []
    for k, value in enumerate(values):
        params[f"{prefix}_{k}"] = str(value)
        names.append(f"${prefix}_{k}")
    return f"{quote(column)} IN ({', '.join(names)})"


def cube(results: Results) -> pd.DataFrame:
    """Counts per `CUBE_COLUMNS` combination over every row: those columns, ``n`` (answered), ``correct``,
    ``errors`` (failed requests) and the run's ``run_name``, sorted by the keys. Computed once (one scan) and kept as a DuckDB table:
    `pairs` maps its cells back through it.

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results.

    Returns
    -------
    pandas.DataFrame
        `CUBE_COLUMNS`, ``n``, ``correct``, ``errors`` and ``run_name``.
    """
    keys = ", ".join(quote(c) for c in CUBE_COLUMNS)
    # run_name: the run's name for legends, one per run (the first in sort order where a run's parts sit in
    # folders of several names), found in the same scan
    results.execute(f"CREATE TABLE IF NOT EXISTS {CUBE_TABLE} AS SELECT * EXCLUDE (cell_name), "
                    f"min(cell_name) OVER (PARTITION BY run_id) AS run_name FROM (SELECT {keys}, {_COUNTS}, "
                    f"min(run_name) AS cell_name FROM results GROUP BY {keys})")
    return results.query(f"SELECT * FROM {CUBE_TABLE} ORDER BY {keys}")


def pairs(
    results: Results,
    where: Where,
    *,
    by: Sequence[str],
    split: str,
    exclude: Sequence[str],
    prompts: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Paired counts per ``by`` group (`plates.analysis.metrics.PAIR_COLUMNS`): rows are split by the SQL
    condition ``split`` (side A where it holds; it may read only cube columns), an item is `ITEM_KEYS` but
    ``exclude`` and ``by``, and only items answered on both sides count (`metrics._paired_delta`'s semantics).
    ``prompts`` restricts the scan to those prompts (the only rows that can pair); ``by`` must be
    `CUBE_COLUMNS`.

    One pass over the rows, grouped on two 64-bit integers: the group (a DuckDB ``hash`` of the ``by``
    columns that vary) and the item within it (a hash of ``item_id`` and the item columns the cube cannot
    rule out: `_item_columns`), four counts per item; only per-group sums reach pandas, the groups mapped
    back to their ``by`` values through the cube table. The failed requests per group are the cube's. A hash
    collision (two items of one group merged: about n² / 2^65 for n items, 3e-7 at three million) is the only
    way this differs from the row-level metric; tests/dashboard/test_queries.py compares the two.

    Without ``run_id`` in ``by``, the same model's items pair across runs (a prompt in one run, its
    chain-of-thought variant in another); ``runs_a`` / ``runs_b`` list the runs whose rows made pairs on each
    side, so a page can say which runs were paired. Where the cube shows at most one run per group and side
    (the usual case: one run asked both sides, or one run per side), that run is the answer whenever the group
    has pairs; otherwise each item ORs one bit per run (at most 64 runs scanned) or lists them.

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results (a DuckDB view ``results`` over the Parquet parts).
    where : Where
        The page's row filters.
    by : sequence of str
        Group columns, all of `CUBE_COLUMNS`.
    split : str
        The SQL condition of side A.
    exclude : sequence of str
        Item keys that differ between the sides (not part of an item).
    prompts : sequence of str or None, optional
        The prompts scanned (None: all).

    Returns
    -------
    pandas.DataFrame
        The ``by`` columns, `plates.analysis.metrics.PAIR_COLUMNS` counts, ``runs_a`` and ``runs_b``.

    Raises
    ------
    ValueError
        A ``by`` column not in `CUBE_COLUMNS`.
    """
    by = list(by)
    unknown = [c for c in by if c not in CUBE_COLUMNS]
    if unknown:
        raise ValueError(f"pairs by {unknown}: allowed: columns of the cube ({', '.join(CUBE_COLUMNS)})")
    cube(results)  # the cube table exists
    keys = [k for k in ITEM_KEYS if k not in exclude and k not in by]
    params: dict[str, Any] = {}
    restrict = in_list("prompt_name", prompts, "p", params) if prompts else ""
    clause, more = where.sql(restrict)
    params.update(more)
    varying = _varying(results, [c for c in dict.fromkeys([*by, *keys]) if c in CUBE_COLUMNS], clause, params)
    group_cols = [c for c in by if c in varying]
    item_cols = _item_columns(results, group_cols, [c for c in keys if c not in CUBE_COLUMNS or c in varying],
                              clause, params)
    group_sql = ", ".join(quote(c) for c in group_cols)
    group = f"hash({group_sql})" if group_cols else "0"
    item = "hash(" + ", ".join(quote(c) for c in item_cols) + ")" if item_cols else "0"
    # the runs behind each side: one per group and side where the cube says so (no per-item work), else per
    # item: with at most 64 runs scanned one bit per run (its place among them, sorted) OR-ed, since a list of
    # run names per item made the query 13x slower (1.5M items at 10M rows: 15.9 s against 1.2 s)
    side = f"CASE WHEN ({split}) THEN 1 ELSE 0 END"
    per_side = ", ".join([*(quote(c) for c in group_cols), side])
    per_item = (_most_values(results, "run_id", per_side, clause, params) or 0) > 1
    runs = [str(r) for r in results.query(f"SELECT DISTINCT run_id FROM {CUBE_TABLE} {clause} ORDER BY run_id",
                                          params)["run_id"].dropna()] if per_item else []
    masks = per_item and len(runs) <= 64
    if masks:
        names = ", ".join("'" + r.replace("'", "''") + "'" for r in runs)
        run_set = f"bit_or(CAST(1 AS UBIGINT) << (list_position([{names}]::VARCHAR[], run_id) - 1)) FILTER (WHERE {{side}})"
        runs_of = "bit_or({side})"
    else:
        run_set = "list(DISTINCT run_id) FILTER (WHERE {side})"
        runs_of = "list_sort(list_distinct(flatten(list({side}))))"
    item_runs = (f", {run_set.replace('{side}', f'({split})')} AS ra, "
                 f"{run_set.replace('{side}', f'NOT ({split})')} AS rb") if per_item else ""
    totals_runs = (f", {runs_of.replace('{side}', 'ra')} AS runs_a, {runs_of.replace('{side}', 'rb')} AS runs_b"
                   if per_item else "")
    cell_runs = ("" if per_item else f", any_value(run_id) FILTER (WHERE {split}) AS run_a, "
                 f"any_value(run_id) FILTER (WHERE NOT ({split})) AS run_b")
    cells = ", ".join(f"any_value({quote(c)}) AS {quote(c)}" for c in by)
    sql = f"""
        WITH per AS (
            SELECT {group} AS g, {item} AS h,
                count(*) FILTER (WHERE ({split}) AND correct IS NOT NULL) AS na,
                count(*) FILTER (WHERE ({split}) AND correct) AS ka,
                count(*) FILTER (WHERE NOT ({split}) AND correct IS NOT NULL) AS nb,
                count(*) FILTER (WHERE NOT ({split}) AND correct) AS kb{item_runs}
            FROM results {clause} GROUP BY g, h),
        totals AS (
            SELECT g, sum(na) AS n_a, sum(ka) AS k_a, sum(nb) AS n_b, sum(kb) AS k_b, count(*) AS pairs{totals_runs}
            FROM per WHERE na > 0 AND nb > 0 GROUP BY g),
        cells AS (
            SELECT {group} AS g{', ' + cells if by else ''}, sum(errors) AS errors{cell_runs}
            FROM {CUBE_TABLE} {clause} GROUP BY g)
        SELECT {''.join(f'cells.{quote(c)}, ' for c in by)}coalesce(n_a, 0) AS n_a, coalesce(k_a, 0) AS k_a,
            coalesce(n_b, 0) AS n_b, coalesce(k_b, 0) AS k_b, coalesce(pairs, 0) AS pairs, errors,
            {'runs_a, runs_b' if per_item else 'run_a, run_b'}
        FROM cells LEFT JOIN totals USING (g)
        {'ORDER BY ' + ', '.join(quote(c) for c in by) if by else ''}"""
    table = results.query(sql, params)
    if masks:  # the runs' bits -> their names (sorted, as `runs` is)
        for name in ("runs_a", "runs_b"):
            table[name] = [[r for i, r in enumerate(runs) if int(m) >> i & 1] if pd.notna(m) else []
                           for m in table[name]]
    elif per_item:
        for name in ("runs_a", "runs_b"):
            table[name] = [list(v) if isinstance(v, (list, np.ndarray)) else [] for v in table[name]]
    else:  # one run per group and side: it made the pairs when there are any
        for name, run in (("runs_a", "run_a"), ("runs_b", "run_b")):
            table[name] = [[str(r)] if p > 0 and pd.notna(r) else [] for r, p in zip(table[run], table["pairs"])]
        table = table.drop(columns=["run_a", "run_b"])
    return table.astype({c: "int64" for c in ("n_a", "k_a", "n_b", "k_b", "pairs", "errors")})


def _item_columns(results: Results, group: Sequence[str], keys: Sequence[str], clause: str,
                  params: dict[str, Any]) -> list[str]:
    """``keys`` (the item columns but the group's) without those the others fix: a cube column that takes one
    value (null counts as one) in every cube cell of the same group and other item columns tells no two items
    of a group apart that the rest does not (rows that agree on the rest agree on it), so it is left out of
    the item's hash (fewer columns read and hashed per row). Columns not in the cube (``item_id``) stay."""
    kept = list(keys)
    for column in [c for c in keys if c in CUBE_COLUMNS]:
        rest = [c for c in (*group, *kept) if c != column and c in CUBE_COLUMNS]
        most = _most_values(results, column, ", ".join(quote(c) for c in rest), clause, params)
        if most is None or most <= 1:
            kept.remove(column)
    return kept


def _values(column: str) -> str:
    """SQL: the number of distinct values of ``column`` (a name) in a group, null counting as one."""
    return f"count(DISTINCT {quote(column)}) + max(CASE WHEN {quote(column)} IS NULL THEN 1 ELSE 0 END)"


def _most_values(results: Results, column: str, group_sql: str, clause: str, params: dict[str, Any]) -> int | None:
    """The most distinct values (`_values`) ``column`` takes in any group of the cube's rows under ``clause``,
    grouped by ``group_sql`` (SQL expressions; "" for one group); None when no row is left."""
    grouped = f" GROUP BY {group_sql}" if group_sql else ""
    most = results.query(f"SELECT max(k) AS k FROM (SELECT {_values(column)} AS k FROM {CUBE_TABLE} {clause}"
                         f"{grouped})", params)["k"]
    return int(most.iloc[0]) if len(most) and pd.notna(most.iloc[0]) else None


def _varying(results: Results, columns: Sequence[str], clause: str, params: dict[str, Any]) -> set[str]:
    """The ``columns`` (of the cube) that take more than one value (null counts as one) under ``clause``."""
    if not columns:
        return set()
    counts = ", ".join(f"{_values(c)} AS {quote(c)}" for c in columns)
    row = results.query(f"SELECT {counts} FROM {CUBE_TABLE} {clause}", params)
    if row.empty:
        return set()
    return {c for c in columns if (row[c].iloc[0] or 0) > 1}


def grayscale_pairs(
    results: Results, where: Where, by: Sequence[str], prompts: Sequence[str] | None = None
) -> pd.DataFrame:
    """`pairs` for `metrics.grayscale_from_pairs`: side A colour (grayscale not true), side B grayscale.

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results (a DuckDB view ``results`` over the Parquet parts).
    where : Where
        The page's row filters.
    by : sequence of str
        Group columns (`CUBE_COLUMNS`).
    prompts : sequence of str or None, optional
        The prompts scanned (None: all).

    Returns
    -------
    pandas.DataFrame
        As `pairs`.
    """
    return pairs(
        results, where, by=by, split="grayscale IS NOT TRUE", exclude=("grayscale",), prompts=prompts
    )


def cot_pairs(
    results: Results, where: Where, by: Sequence[str], prompt: str, cot_prompt: str
) -> pd.DataFrame:
    """`pairs` for `metrics.cot_from_pairs`: side A ``cot_prompt``, side B ``prompt`` (items paired across the
    two prompts).

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results (a DuckDB view ``results`` over the Parquet parts).
    where : Where
        The page's row filters.
    by : sequence of str
        Group columns (`CUBE_COLUMNS`).
    prompt : str
        The direct prompt's name.
    cot_prompt : str
        Its chain-of-thought prompt's name.

    Returns
    -------
    pandas.DataFrame
        As `pairs`.
    """
    quoted = "'" + cot_prompt.replace("'", "''") + "'"
    return pairs(
        results,
        where,
        by=by,
        split=f"prompt_name = {quoted}",
        exclude=("prompt_name",),
        prompts=[prompt, cot_prompt],
    )


def _level_column(x: str) -> str:
    """``x`` rounded to `LEVEL_DECIMALS` as SQL: floor(x * 100 + 0.5) / 100, the same float operations as
    `plates.charts.delta_e.levels_from_rows`."""
    if x not in ("delta_e", "delta_e_drawn_median", "delta_e_target", "delta_e_drawn_min", "view_delta_e_median"):
        raise ValueError(
            f"ΔE2000 column {x!r} is not valid; allowed: delta_e, delta_e_drawn_median, "
            "delta_e_target, delta_e_drawn_min, view_delta_e_median"
        )
    scale = 10**LEVEL_DECIMALS
    return f"floor({quote(x)} * {scale} + 0.5) / {scale}"


def _level_where(where: Where, x: str, not_tasks: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """The WHERE of the level queries: rows with a level and a verdict, none of the tasks ``not_tasks``."""
    params: dict[str, Any] = {}
    extra = f"{quote(x)} IS NOT NULL AND correct IS NOT NULL"
    if not_tasks:
        extra += f" AND NOT coalesce({in_list('task', list(not_tasks), 'not_task', params)}, false)"
    clause, more = where.sql(extra)
    return clause, {**params, **more}


def levels(results: Results, where: Where, by: Sequence[str], x: str = "delta_e",
           not_tasks: Sequence[str] = ()) -> pd.DataFrame:
    """Answered ``n`` and ``correct`` per ``by`` group and ΔE2000 level (``x`` rounded to `LEVEL_DECIMALS`;
    rows without one, and rows of the tasks ``not_tasks``, left out), sorted: the input of one psychometric fit
    per group.

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results (a DuckDB view ``results`` over the Parquet parts).
    where : Where
        The page's row filters.
    by : sequence of str
        Group columns.
    x : str, optional
        The level column (CIEDE2000, e.g. ``delta_e``).
    not_tasks : sequence of str, optional
        Tasks left out.

    Returns
    -------
    pandas.DataFrame
        The ``by`` columns, ``level``, ``n`` and ``correct``.
    """
    level = _level_column(x)
    group = ", ".join(quote(c) for c in by)
    clause, params = _level_where(where, x, not_tasks)
    lead = f"{group}, " if by else ""
    return results.query(
        f"""SELECT {lead}{level} AS level, count(*) AS n,
                                    count(*) FILTER (WHERE correct) AS correct
                             FROM results {clause} GROUP BY ALL ORDER BY ALL""",
        params,
    )


def seen_counts(results: Results, where: Where, not_tasks: Sequence[str] = ()) -> pd.DataFrame:
    """Answered ``n`` and ``correct`` per model, view family, size sent and pixels seen (``view_seen_width`` x
    ``view_seen_height``) of the rows that record a view (`plates.models.views`), the tasks ``not_tasks`` left
    out.

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results (a DuckDB view ``results`` over the Parquet parts).
    where : Where
        The page's row filters.
    not_tasks : sequence of str, optional
        Tasks left out.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``view_family``, ``size`` (px sent), ``seen_pixels``, ``n`` and ``correct``.
    """
    params: dict[str, Any] = {}
    extra = "view_family IS NOT NULL AND view_seen_width IS NOT NULL AND correct IS NOT NULL"
    if not_tasks:
        extra += f" AND NOT coalesce({in_list('task', list(not_tasks), 'not_task', params)}, false)"
    clause, more = where.sql(extra)
    return results.query(
        f"""SELECT model, view_family, size, CAST(view_seen_width AS BIGINT) * view_seen_height AS seen_pixels,
                   count(*) AS n, count(*) FILTER (WHERE correct) AS correct
            FROM results {clause} GROUP BY ALL ORDER BY ALL""",
        {**params, **more},
    )


def failure_counts(results: Results, where: Where, by: Sequence[str]) -> pd.DataFrame:
    """Wrong answers (``correct`` false) per ``by`` group and ``failure_mode`` (null: a plain wrong
    answer).

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results (a DuckDB view ``results`` over the Parquet parts).
    where : Where
        The page's row filters.
    by : sequence of str
        Group columns.

    Returns
    -------
    pandas.DataFrame
        The ``by`` columns, ``failure_mode`` and ``wrong``.
    """
    group = ", ".join(quote(c) for c in [*by, "failure_mode"])
    clause, params = where.sql("correct = false")
    return results.query(
        f"SELECT {group}, count(*) AS wrong FROM results {clause} GROUP BY {group} ORDER BY {group}", params
    )


#: How `reading_counts` counts each reading of the replies with text (`plates.charts.reading.READINGS`) and the
#: judge model's part in them (`plates.runs.judge`): a count per SQL condition.
READING_COUNTS = {
    "replies": "true",
    "correct": "correct",
    "read": "parse_status = 'ok'",
    "ambiguous": "parse_status = 'ambiguous'",
    "unread": "parse_status = 'unparsed'",
    "refused": "parse_status = 'refusal'",
    "judge_asked": "judge_model IS NOT NULL",
    "judge_decided": "decided_by = 'judge'",
    "both_read": "rules_parse_status = 'ok' AND judge_status = 'read'",
    "agree": "rules_parse_status = 'ok' AND judge_status = 'read' AND rules_parsed = judge_parsed",
}


#: The reading counts per `CUBE_COLUMNS` combination, kept as a DuckDB table beside the cube (made once per opened
#: results, on first use): every later page, family or condition choice sums it, never the rows again.
READING_TABLE = "reading_cube"


def reading_counts(results: Results, where: Where, by: Sequence[str]) -> pd.DataFrame:
    """How the replies with text were read, per group.

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results. The first call scans them once into `READING_TABLE`; later calls sum that table.
    where : Where
        The view's filters (on `CUBE_COLUMNS`, as every filter is).
    by : sequence of str
        The columns to group by: some of `CUBE_COLUMNS`.

    Returns
    -------
    pandas.DataFrame
        ``by`` and one count per `READING_COUNTS` entry, over the replies with text (``parse_status`` neither
        "error" nor "unsupported"): read, ambiguous, unread, refused and correct (the deciding reading); the
        replies the judge was asked about and decided; the replies both the rules and the judge read, and those
        where they read the same answer.

    Raises
    ------
    ValueError
        A ``by`` column that is not one of `CUBE_COLUMNS` (the message lists them).
    """
    unknown = [c for c in by if c not in CUBE_COLUMNS]
    if unknown:
        raise ValueError(f"reading_counts groups by {unknown}, which the reading table does not hold; allowed: "
                         f"{', '.join(CUBE_COLUMNS)}")
    keys = ", ".join(quote(c) for c in CUBE_COLUMNS)
    counts = ", ".join(f"count(*) FILTER (WHERE {sql}) AS {quote(name)}" for name, sql in READING_COUNTS.items())
    results.execute(f"CREATE TABLE IF NOT EXISTS {READING_TABLE} AS SELECT {keys}, {counts} FROM results "
                    f"WHERE parse_status NOT IN ('error', 'unsupported') GROUP BY {keys}")
    group = ", ".join(quote(c) for c in by)
    sums = ", ".join(f"CAST(sum({quote(name)}) AS BIGINT) AS {quote(name)}" for name in READING_COUNTS)
    clause, params = where.sql()
    return results.query(
        f"SELECT {group}, {sums} FROM {READING_TABLE} {clause} GROUP BY {group} ORDER BY {group}", params
    )


_ONLY = {"all": "", "correct": "correct", "incorrect": "correct = false", "failed": "correct IS NULL"}


def drilldown_count(results: Results, where: Where, only: str = "all") -> int:
    """How many rows the drill-down's choice ``only`` (all / correct / incorrect / failed) selects.

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results (a DuckDB view ``results`` over the Parquet parts).
    where : Where
        The page's row filters.
    only : str, optional
        "all", "correct", "incorrect" or "failed".

    Returns
    -------
    int

    Raises
    ------
    ValueError
        An unknown ``only``.
    """
    clause, params = where.sql(_only(only))
    return int(results.query(f"SELECT count(*) AS n FROM results {clause}", params)["n"].iloc[0])


def drilldown(
    results: Results, where: Where, *, only: str = "all", limit: int = 24, offset: int = 0
) -> pd.DataFrame:
    """One page of rows (`ROW_COLUMNS`) in a stable order (run, item, model, prompt, condition).

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results (a DuckDB view ``results`` over the Parquet parts).
    where : Where
        The page's row filters.
    only : str, optional
        "all", "correct", "incorrect" or "failed".
    limit : int, optional
        Rows per page, >= 1.
    offset : int, optional
        Rows skipped, >= 0.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ValueError
        A bad ``limit``, ``offset`` or ``only``.
    """
    if limit < 1 or offset < 0:
        raise ValueError(f"drill-down page limit={limit}, offset={offset}: need limit >= 1 and offset >= 0")
    clause, params = where.sql(_only(only))
    order = ", ".join(quote(c) for c in ("run_id", "item_id", "model", "prompt_name", *CONDITION_KEYS, "shots"))
    columns = ", ".join(quote(c) for c in ROW_COLUMNS)
    return results.query(
        f"SELECT {columns} FROM results {clause} ORDER BY {order} NULLS FIRST "
        f"LIMIT {int(limit)} OFFSET {int(offset)}",
        params,
    )


def _only(only: str) -> str:
    if only not in _ONLY:
        raise ValueError(f"drill-down filter {only!r} is unknown; allowed: {sorted(_ONLY)}")
    return _ONLY[only]


def repeated_items(
    results: Results, where: Where, *, models: Sequence[str] = (), runs: Sequence[str] = ()
) -> pd.DataFrame:
    """Items asked more than once of one model under one prompt and condition (in several runs, or twice in
    one run, as the explorer's history can): per model, prompt and condition, ``items`` (how many), ``asked``
    (answers to them), one row per set of ``runs`` involved. Only rows of ``models`` (those the cube shows in
    several runs) or ``runs`` (those that may repeat an item) are looked at; neither given: an empty table.

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results (a DuckDB view ``results`` over the Parquet parts).
    where : Where
        The page's row filters.
    models : sequence of str, optional
        Models looked at.
    runs : sequence of str, optional
        Run ids looked at.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``prompt_name``, `CONDITION_KEYS`, ``shots``, ``runs``, ``items`` and ``asked``.
    """
    cols = ["model", "prompt_name", *CONDITION_KEYS, "shots"]
    if not models and not runs:
        return pd.DataFrame(columns=[*cols, "items", "asked", "runs"])
    keys = ", ".join(quote(c) for c in ["dataset", "item_id", *cols])
    outer = ", ".join(quote(c) for c in cols)
    params: dict[str, Any] = {}
    restrict = " OR ".join(x for x in (in_list("model", models, "m", params) if models else "",
                                       in_list("run_id", runs, "r", params) if runs else "") if x)
    clause, more = where.sql(restrict)
    params.update(more)
    return results.query(
        f"""
        WITH per AS (SELECT {keys}, count(*) AS asked, list(DISTINCT run_id ORDER BY run_id) AS run_list
                     FROM results {clause} GROUP BY {keys} HAVING count(*) > 1)
        SELECT {outer}, run_list AS runs, count(*) AS items, sum(asked) AS asked
        FROM per GROUP BY {outer}, run_list ORDER BY {outer}, run_list""",
        params,
    )


def export(results: Results, where: Where):
    """Every column of the filtered rows, as an Arrow table (the dashboard writes it as CSV or Parquet).

    Parameters
    ----------
    results : plates.results.query.Results
        The opened results (a DuckDB view ``results`` over the Parquet parts).
    where : Where
        The page's row filters.

    Returns
    -------
    pyarrow.Table
    """
    clause, params = where.sql()
    return results.arrow(f"SELECT * FROM results {clause}", params)
