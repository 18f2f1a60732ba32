"""The overview: accuracy of every series (model, or model · run) under every prompt x condition, one heatmap
cell each with its n and Wilson 95% interval, and the papers' value in the cell it matches
(`plates.analysis.comparison.compare`). One column per prompt x condition: conditions are never pooled (the rules
every chart keeps: `plates.charts.ishihara`). Accuracies are fractions 0-1.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from plates.analysis import metrics
from plates.analysis.comparison import compare
from plates.charts.common import CONDITION, SERIES, count_table, empty_figure, labelled_counts


def overview_table(frame: pd.DataFrame | None = None, *, counts: pd.DataFrame | None = None) -> pd.DataFrame:
    """Series (a run by its name, `plates.charts.common.series_labels`) x prompt x condition: accuracy, n,
    errors, Wilson 95% interval; with the series' ``model`` (one per series) and the ``datasets`` each cell
    was asked on (a tuple), which the papers' values are matched on (`plates.analysis.comparison.compare`).

    Parameters
    ----------
    frame : pandas.DataFrame or None
        Result rows (`plates.results.load_results`).
    counts : pandas.DataFrame or None
        The same as a count table (`counts_from_rows`, or the dashboard's DuckDB cube): used instead of
        ``frame`` when given.

    Returns
    -------
    pandas.DataFrame
        One row per cell (`plates.analysis.metrics.accuracy_from_counts` columns, accuracy 0-1), with the
        series' ``model`` and the ``datasets`` each cell was asked on (a tuple).
    """
    table = labelled_counts(count_table(frame, counts))
    model = ["model"] if "model" in table.columns else []
    cells = metrics.accuracy_from_counts(table, [SERIES, *model, "prompt_name", CONDITION])
    if "dataset" not in table.columns:
        return cells
    # the sets each cell was asked on: the papers' values pair only with a cell of the paper's set
    sets = (table.dropna(subset=["dataset"]).groupby([SERIES, "prompt_name", CONDITION], observed=True)["dataset"]
            .agg(lambda s: tuple(sorted(set(map(str, s))))))
    keys = zip(cells[SERIES], cells["prompt_name"], cells[CONDITION])
    return cells.assign(datasets=[sets.get(k, ()) for k in keys])


def overview_figure(
    frame: pd.DataFrame | None = None,
    reference: pd.DataFrame | None = None,
    *,
    table: pd.DataFrame | None = None,
    counts: pd.DataFrame | None = None,
    comparison: pd.DataFrame | None = None,
) -> go.Figure:
    """Heatmap of accuracy, series (rows) x prompt · condition (columns); each cell prints accuracy, n and the
    Wilson 95% interval, and the paper's value for the same model, prompt and condition where one is
    published.

    Parameters
    ----------
    frame : pandas.DataFrame or None
        Result rows (`plates.results.load_results`).
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`); None: none drawn.
    table : pandas.DataFrame or None
        `overview_table`'s result, when already computed.
    counts : pandas.DataFrame or None
        The same as a count table (`counts_from_rows`, or the dashboard's DuckDB cube): used instead of
        ``frame`` when given.
    comparison : pandas.DataFrame or None
        `plates.analysis.comparison.compare`'s rows; computed from ``reference`` when not given.

    Returns
    -------
    plotly.graph_objects.Figure

    References
    ----------
    Wilson (1927), *J. Am. Stat. Assoc.* 22(158): 209-212.
    """
    title = "Accuracy by model and condition (Wilson 95% CI)"
    table = overview_table(frame, counts=counts) if table is None else table
    if table.empty or not (table["n"] > 0).any():
        return empty_figure(
            title, f"no answered rows ({int(table['errors'].sum()) if len(table) else 0} failed requests)"
        )
    if comparison is None and reference is not None:
        comparison = compare(table, reference)
    paper: dict[tuple[str, str, str], str] = {}
    if comparison is not None and not comparison.empty:
        for (s, p, c), rows in comparison.groupby([SERIES, "prompt_name", CONDITION], sort=False):
            paper[(s, p, c)] = "<br>" + "<br>".join(
                f"paper {v:.0%} ({src.split(' ', 1)[-1]})"
                for v, src in zip(rows["paper_value"], rows["source"])
            )
    table = table.assign(column=table["prompt_name"].astype(str) + " · " + table[CONDITION].astype(str))
    z = table.pivot(index=SERIES, columns="column", values="accuracy")
    text = (
        table.assign(
            text=[
                (f"{a:.0%}<br>n={int(n)}<br>[{lo:.0%}, {hi:.0%}]" if n else f"no answers<br>{int(e)} failed")
                + paper.get((s, p, c), "")
                for a, n, lo, hi, e, s, p, c in zip(
                    table["accuracy"],
                    table["n"],
                    table["ci_low"],
                    table["ci_high"],
                    table["errors"],
                    table[SERIES],
                    table["prompt_name"],
                    table[CONDITION],
                )
            ]
        )
        .pivot(index=SERIES, columns="column", values="text")
        .reindex_like(z)
        .fillna("")
    )
    full = text.to_numpy(object)
    # narrow columns print the accuracy and n only, at a legible size; the interval and the papers' values stay
    # in the hover (every cell's whole text)
    shown = full if z.shape[1] <= COMPACT_AFTER_COLUMNS else np.vectorize(_compact, otypes=[object])(full)
    fig = go.Figure(
        go.Heatmap(
            z=z.to_numpy(float),
            x=list(z.columns),
            y=list(z.index),
            text=shown,
            customdata=full,
            texttemplate="%{text}",
            zmin=0,
            zmax=1,
            colorscale="Viridis",
            name="runs",
            textfont=dict(size=_cell_font_size(z.shape[1])),
            colorbar=dict(title="accuracy"),
            hovertemplate="%{y} · %{x}<br>%{customdata}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed")  # first series on top, in reading order
    fig.update_layout(
        title=title, height=max(320, 90 * len(z) + 220), margin=dict(b=160), meta={"papers": len(paper)}
    )
    return fig


#: Columns up to which a cell prints its whole text (accuracy, n, interval, papers); beyond, accuracy and n.
COMPACT_AFTER_COLUMNS = 5


def _compact(text: str) -> str:
    """A cell's text cut to its first two lines (accuracy and n, or "no answers" and the failures)."""
    return "<br>".join(str(text).split("<br>")[:2])


def _cell_font_size(columns: int) -> int:
    """Cell text in CSS px: 12 while cells print their whole text, then 11 (never smaller: narrow columns print
    less instead, `_compact`)."""
    return 12 if columns <= COMPACT_AFTER_COLUMNS else 11
