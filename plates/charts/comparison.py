"""Our cells beside the papers' cells as a figure: `comparison_figure` of `plates.analysis.comparison.compare`
(which explains how a cell matches a published accuracy)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from plates.analysis.conditions import CONDITION, SERIES
from plates.charts.common import (
    REFERENCE_MARKER,
    empty_figure,
    error_bars_between,
    model_colours,
    run_hint,
)


def context_figure(context: pd.DataFrame) -> go.Figure:
    """Where no cell has a same-model published value: each of our cells (a row: series · prompt · condition;
    accuracy with its Wilson 95% interval, in the model's colour) beside every published accuracy on the same
    question by the papers' own models (`plates.analysis.comparison.context`: grey, each named in its hover
    text). Context, not a replication: the title says so.

    Parameters
    ----------
    context : pandas.DataFrame
        `plates.analysis.comparison.context`'s rows.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    title = ("Ours beside the papers' models on the same prompt and condition"
             "<br><sup>no published value for these models: the grey points are OTHER models (context, not a "
             "replication)</sup>")
    cells = context.drop_duplicates([SERIES, "prompt_name", CONDITION])
    labels = [f"{s} · {p} · {c}" for s, p, c in zip(cells[SERIES], cells["prompt_name"], cells[CONDITION])]
    colours = model_colours(cells[SERIES])
    fig = go.Figure()
    shown: set[str] = set()
    for label, cell in zip(labels, cells.to_dict("records")):
        series = str(cell[SERIES])
        fig.add_trace(go.Scatter(
            x=[cell["accuracy"]], y=[label], mode="markers", name=series, legendgroup=series,
            marker=dict(size=11, color=colours[series]), showlegend=series not in shown,
            error_x=error_bars_between(cell["accuracy"], cell["ci_low"], cell["ci_high"]),
            hovertext=f"ours {cell['accuracy']:.1%} (n={int(cell['n'])})"))
        shown.add(series)
    label_of = dict(zip(zip(cells[SERIES], cells["prompt_name"], cells[CONDITION]), labels))
    y = [label_of[(s, p, c)] for s, p, c in zip(context[SERIES], context["prompt_name"], context[CONDITION])]
    fig.add_trace(go.Scatter(
        # each point's model is in its hover text and the table below: a row holds up to 14, too many to print
        x=context["paper_value"], y=y, mode="markers", name="the papers' models (published; hover for each)",
        marker={**REFERENCE_MARKER, "size": 8},
        hovertext=[f"{m} — {src}: {v:.1%}" for m, src, v in zip(context["paper_model"], context["source"],
                                                                 context["paper_value"])]))
    fig.update_layout(title=title, xaxis=dict(title="accuracy", range=[-0.02, 1.02], tickformat=".0%"),
                      yaxis=dict(autorange="reversed"), height=max(320, 90 * len(cells) + 200),
                      meta={"context": len(context), "cells": len(cells)})
    return fig


def comparison_figure(comparison: pd.DataFrame) -> go.Figure:
    """Per matched cell (a row: series · prompt · condition · source), our accuracy with its Wilson 95%
    interval and the paper's value (grey diamond), so a reader sees at once whether the paper lies inside.

    Parameters
    ----------
    comparison : pandas.DataFrame
        `plates.analysis.comparison.compare`'s rows.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    title = "Ours vs the papers: same model, prompt and condition (Wilson 95% CI)"
    if comparison.empty:
        return empty_figure(
            title,
            "no cell of these results has a published counterpart<br>(the papers' models, "
            "prompts and conditions: see the 'Published numbers' page). Run one of the papers' models, e.g."
            + run_hint("--prompt cbe-open")
            + "<br>with MODEL one of the models a paper lists (its API name)",
        )
    labels = [
        f"{s} · {p} · {c} — {src}"
        for s, p, c, src in zip(
            comparison[SERIES], comparison["prompt_name"], comparison[CONDITION], comparison["source"]
        )
    ]
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=comparison["accuracy"],
            y=labels,
            mode="markers",
            name="ours",
            marker=dict(size=10, color="#1f77b4"),
            orientation="h",
            error_x=error_bars_between(comparison["accuracy"], comparison["ci_low"], comparison["ci_high"]),
            hovertext=[
                f"ours {a:.1%} (n={n}), paper {v:.1%}: {'inside' if i else 'OUTSIDE'} our interval"
                for a, n, v, i in zip(
                    comparison["accuracy"], comparison["n"], comparison["paper_value"], comparison["inside"]
                )
            ],
        )
    )
    fig.add_trace(
        go.Scatter(
            x=comparison["paper_value"], y=labels, mode="markers", name="paper", marker=REFERENCE_MARKER
        )
    )
    inside = int(np.sum(comparison["inside"]))
    fig.update_layout(
        title=f"{title}<br><sup>{inside} of {len(comparison)} published values inside our interval</sup>",
        xaxis=dict(title="accuracy", range=[-0.02, 1.02], tickformat=".0%"),
        yaxis=dict(autorange="reversed"),
        height=max(300, 40 * len(comparison) + 160),
        meta={"inside": inside, "matches": len(comparison)},
    )
    return fig
