"""The papers' own tables as charts (`plates.results.reference`): one published table at a time, so the
dashboard shows the papers' findings on first start, before anyone has run a model.

Each table is drawn as its paper printed it: one bar per printed row (model, or a baseline such as 'Human'
or 'Random choice') and task · condition, the value as a percentage (accuracies and rates 0-100%; ColorBench
Table 4's deltas in signed percentage points), with the printed ± where the paper gives one (HueManity Tables
2, 3 and 5) and no interval where it does not. Nothing here is measured by us.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

#: Columns besides task and condition that split a table's cells (shown in the series name when they vary).
_SPLIT = ("colour_set", "font", "size", "shots", "metric")


def sources(reference: pd.DataFrame) -> list[str]:
    """The published tables present, in the order of `plates.results.reference.TABLES` (as loaded).

    Parameters
    ----------
    reference : pandas.DataFrame
        The reference tables.

    Returns
    -------
    list of str
    """
    return list(dict.fromkeys(reference["source"].astype(str)))


def tasks(reference: pd.DataFrame, source: str) -> list[str]:
    """The tasks (columns as printed) of one table, in its order.

    Parameters
    ----------
    reference : pandas.DataFrame
        The reference tables.
    source : str
        One table, e.g. "ColorBlindnessEval Table 1".

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        ``source`` is not a published table; the message names the tables.
    """
    table = reference[reference["source"] == source]
    if table.empty:
        raise ValueError(f"published table {source!r} is not known; allowed: {', '.join(sources(reference))}")
    return list(dict.fromkeys(table["task"].astype(str)))


def published_table(reference: pd.DataFrame, source: str, chosen_tasks: tuple[str, ...] = ()) -> pd.DataFrame:
    """One table's cells (of ``chosen_tasks``, default all) with a ``series`` column naming each bar's
    task · condition (and colour set, font, size, shots or metric where they vary within the table) and a
    ``row`` column naming each printed row (with its model where one printed label serves several).

    Parameters
    ----------
    reference : pandas.DataFrame
        The reference tables.
    source : str
        One table.
    chosen_tasks : tuple of str
        Its tasks shown (default: all).

    Returns
    -------
    pandas.DataFrame
    """
    table = reference[reference["source"] == source].copy()
    allowed = tasks(reference, source)
    bad = [t for t in chosen_tasks if t not in allowed]
    if bad:
        raise ValueError(f"task(s) {', '.join(map(repr, bad))} are not in {source}; allowed: {', '.join(allowed)}")
    if chosen_tasks:
        table = table[table["task"].isin(chosen_tasks)]
    varying = [c for c in ("condition", *_SPLIT) if table[c].astype(str).nunique() > 1]
    # a row as printed, with its model where one printed label stands for several (ColorBench Table 9's
    # 'Text-only' row of each size group)
    shared = table.groupby("row_printed")["model"].nunique()
    table["row"] = [f"{m} · {r}" if shared[r] > 1 else str(r) for m, r in zip(table["model"], table["row_printed"])]
    table["series"] = [
        " · ".join([str(r["task"]), *(f"{r[c]}" + (" px" if c == "size" else "") for c in varying if pd.notna(r[c]))])
        for r in table.to_dict("records")
    ]
    return table


def published_figure(reference: pd.DataFrame, source: str, chosen_tasks: tuple[str, ...] = ()) -> go.Figure:
    """Horizontal grouped bars of one published table: rows as printed (y), value in % (x), one colour per
    task · condition, the printed ± as error bars where given. Deltas get a zero line; accuracies run 0-100%.

    Parameters
    ----------
    reference : pandas.DataFrame
        The reference tables.
    source : str
        One table.
    chosen_tasks : tuple of str
        Its tasks shown (default: all).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    table = published_table(reference, source, chosen_tasks)
    fig = go.Figure()
    rows = list(dict.fromkeys(table["row"]))
    delta = set(table["metric"]) == {"delta"}
    for series, part in table.groupby("series", sort=False):
        part = part.set_index("row").reindex(rows)
        half = part["ci_half_width"].astype(float)
        fig.add_trace(go.Bar(
            name=str(series), y=rows, x=100 * part["value"].astype(float), orientation="h",
            error_x=dict(type="data", array=100 * half.fillna(0.0), visible=bool(half.notna().any())),
            customdata=part["printed"].fillna(""), hovertemplate="%{y}: printed %{customdata}<extra>%{fullData.name}</extra>",
        ))
    unit = "Δ percentage points (as printed)" if delta else "% (as printed)"
    fig.update_layout(
        barmode="group", title=f"{source} (published; not measured here)",
        xaxis=dict(title=unit, range=None if delta else [0, 100], ticksuffix="" if delta else "%",
                   zeroline=True, zerolinewidth=2),
        yaxis=dict(autorange="reversed", title=None), legend=dict(title="task · condition"),
        height=max(360, 28 * len(rows) * max(1, min(table["series"].nunique(), 4)) // 2 + 160),
        meta={"source": source, "series": int(table["series"].nunique()), "rows": len(rows)},
    )
    return fig
