"""Failure modes among the wrong answers (HueManity App. E): the share of each mode
(`plates.charts.common.FAILURE_MODES`; "other" = wrong with no mode) per series, prompt and condition. HueManity
describes the modes qualitatively and publishes no shares, so no paper's numbers are drawn. One condition at a time
(the rules every chart keeps: `plates.charts.ishihara`).
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from plates.charts.common import (
    CONDITION,
    COUNT_KEYS,
    FAILURE_MODES,
    SERIES,
    choose,
    empty_figure,
    labelled_counts,
    series_name,
    titled,
)


def failure_mode_table(
    frame: pd.DataFrame | None = None, *, counts: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Per series, prompt and condition: wrong answers and the share of each failure mode among them
    (HueManity App. E; "other" = wrong with no mode).

    Parameters
    ----------
    frame : pandas.DataFrame or None
        Result rows.
    counts : pandas.DataFrame or None
        `plates.dashboard.queries.failure_counts`, used instead of ``frame`` when given.

    Returns
    -------
    pandas.DataFrame

    References
    ----------
    HueManity App. E.
    """
    if counts is None:
        if frame is None:
            raise ValueError("give the result rows (frame) or their failure counts (counts=)")
        wrong = frame[(frame["correct"] == False).fillna(False).astype(bool)]
        keys = [c for c in COUNT_KEYS if c in wrong.columns]
        counts = (
            wrong.assign(failure_mode=wrong["failure_mode"].astype(object), wrong=1)
            .groupby([*keys, "failure_mode"], dropna=False, observed=True)["wrong"]
            .sum()
            .reset_index()
        )
    table = labelled_counts(counts)
    table = table.assign(
        failure_mode=table["failure_mode"].astype(object).where(table["failure_mode"].notna(), "other")
    )
    wide = table.pivot_table(
        index=[SERIES, "prompt_name", CONDITION],
        columns="failure_mode",
        values="wrong",
        aggfunc="sum",
        fill_value=0,
        observed=True,
    )
    wide = wide.reindex(columns=list(FAILURE_MODES), fill_value=0)
    wide.columns.name = None
    total = wide.sum(axis=1)
    shares = wide.div(total.where(total > 0), axis=0).fillna(0.0)
    return shares.assign(wrong=total).reset_index()


def failure_mode_figure(
    frame: pd.DataFrame | None = None,
    reference: pd.DataFrame | None = None,
    *,
    counts: pd.DataFrame | None = None,
    condition: str | None = None,
) -> go.Figure:
    """Stacked shares of failure modes among the wrong answers of each series and prompt, for one condition
    (HueManity App. E describes the modes qualitatively and publishes no shares: ``reference`` adds
    nothing).

    Parameters
    ----------
    frame : pandas.DataFrame or None
        Result rows.
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`).
    counts : pandas.DataFrame or None
        `plates.dashboard.queries.failure_counts`, used instead of ``frame`` when given.
    condition : str or None
        The condition shown (`plates.analysis.conditions.condition_label`); None: the one with the most rows.

    Returns
    -------
    plotly.graph_objects.Figure

    Raises
    ------
    ValueError
        ``condition`` is not among the rows' conditions; the message lists them.
    """
    title = "Failure modes among wrong answers (HueManity App. E)"
    table = failure_mode_table(frame, counts=counts)
    if table.empty:
        return empty_figure(title, "no wrong answers")
    shown, others, table = choose(table, condition, "wrong")
    x = [series_name(s, p, table["prompt_name"].nunique() > 1) for s, p in zip(table[SERIES], table["prompt_name"])]
    fig = go.Figure()
    for mode in FAILURE_MODES:
        fig.add_trace(
            go.Bar(
                x=x,
                y=table[mode],
                name=mode,
                hovertext=[f"{mode}: {s:.1%} of {int(n)} wrong" for s, n in zip(table[mode], table["wrong"])],
            )
        )
    fig.update_layout(barmode="stack", yaxis=dict(title="share of wrong answers", tickformat=".0%"))
    return titled(fig, title, shown, others)
