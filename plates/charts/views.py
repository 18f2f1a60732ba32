"""Charts of the image as the model saw it (`plates.models.views`): accuracy against the pixels a model's image
processor handed its encoder, beside the size sent."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from plates.analysis.metrics import wilson_intervals
from plates.charts.common import accuracy_error_bars, accuracy_hover, empty_figure, model_colours

__all__ = ["seen_resolution_figure", "seen_resolution_table"]


def seen_resolution_table(counts: pd.DataFrame) -> pd.DataFrame:
    """Accuracy with Wilson 95% bounds per model, view family, size sent and pixels seen.

    Parameters
    ----------
    counts : pandas.DataFrame
        Columns model, view_family, size (px sent), seen_pixels (width x height seen), n (answered), correct.

    Returns
    -------
    pandas.DataFrame
        The same rows with accuracy, ci_low and ci_high (0-1), sorted by model, family and pixels seen.
    """
    table = counts[counts["n"] > 0].copy()
    table["accuracy"] = table["correct"] / table["n"]
    lo, hi = wilson_intervals(table["correct"].to_numpy(int), table["n"].to_numpy(int))
    table["ci_low"], table["ci_high"] = lo, hi
    return table.sort_values(["model", "view_family", "seen_pixels"], kind="stable").reset_index(drop=True)


def seen_resolution_figure(counts: pd.DataFrame) -> go.Figure:
    """Accuracy against the pixels each model saw (width x height at the finest scale, log axis), one line per
    model and view family, Wilson 95% error bars; the hover names the size sent.

    Parameters
    ----------
    counts : pandas.DataFrame
        Count rows with the ``view_*`` columns.

    Returns
    -------
    plotly.graph_objects.Figure
        The chart.
    """
    title = "Resolution as the model saw it: accuracy vs pixels seen (Wilson 95% CI)"
    table = seen_resolution_table(counts)
    if table.empty:
        return empty_figure(title, "no scored rows record a view: run with --view FAMILY (or a local model "
                                   "whose family is known); see docs/model-views.md")
    colours = model_colours(table["model"].astype(str))
    fig = go.Figure()
    for (model, family), rows in table.groupby(["model", "view_family"], sort=True):
        hover = [f"{h}<br>sent {int(s)} px, seen {int(p):,} px ({family})"
                 for h, s, p in zip(accuracy_hover(rows), rows["size"], rows["seen_pixels"])]
        fig.add_trace(go.Scatter(x=rows["seen_pixels"], y=rows["accuracy"], mode="lines+markers",
                                 name=f"{model} · {family}", line=dict(color=colours[str(model)]),
                                 error_y=accuracy_error_bars(rows), hovertext=hover, hoverinfo="text"))
    fig.update_layout(title=title, xaxis=dict(title="pixels seen (width × height, log)", type="log"),
                      yaxis=dict(title="accuracy", range=[0, 1.05], tickformat=".0%"))
    return fig
