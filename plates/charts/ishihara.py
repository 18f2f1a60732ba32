"""Every chart the papers drew, as pure functions, never pooling what must not be pooled.

This module draws accuracy per colour set (ColorBlindnessEval §4.4, Fig. 2) and per image size (HueManity §5.4,
Table 5), and gathers with them (``__all__``) the ΔE2000 and paired charts and the helpers the dashboard's plate
pages call. The overview (`plates.charts.overview`), the yes/no balance (`plates.charts.yes_no`) and the failure
modes (`plates.charts.failure_modes`) have modules of their own.

Each chart takes the result rows (a DataFrame in the schema of `plates.results`) or, at scale, the counts
DuckDB computed (`plates.dashboard.queries`): ``counts`` (answered ``n``, ``correct``, ``errors`` per run,
model, prompt, colour set and condition), ``pairs`` or ``levels``. Numbers come from
`plates.analysis.metrics`; a chart only lays them out. Rules every chart keeps:

* **Conditions are never pooled.** A chart shows one viewing condition (``condition=``; default: the one with
  the most rows), names the others in its title, and lists them in ``layout.meta["others"]``; the overview
  has one column per prompt x condition.
* **Runs are never merged.** A model answered in several runs is drawn once per run ("model · run"): the
  ``series`` column (`with_series`); the explorer's history is a run of its own.
* **Prompts are never pooled** (a bar or line per prompt where a chart holds several).

The papers' numbers (``reference``: `plates.results.reference.load_reference`) are drawn beside the runs as
grey open symbols at the same x, labelled with their source; `plates.charts.comparison` puts each of our
cells beside the paper's cell. Accuracies are fractions 0-1; intervals are Wilson 95% (HueManity Tables 2-3
print the same; Table 5's ± fit the Wald formula and are drawn as printed).
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from plates.analysis import metrics
from plates.analysis.conditions import CONDITION_COLUMNS, condition_label
from plates.analysis.people import PEOPLE_SHOWN, PERSON_PREFIX
from plates.charts.common import (
    CONDITION,
    COUNT_KEYS,
    PLATE_TASKS,
    SERIES,
    accuracy_error_bars,
    accuracy_hover,
    add_chance_lines,
    by_source_row,
    choose,
    count_table,
    counts_from_rows,
    empty_figure,
    labelled_counts,
    model_colours,
    reference_marker,
    reference_of,
    series_name,
    titled,
    with_condition,
    with_series,
)
from plates.charts.delta_e import (
    chance_rate,
    delta_e_figure,
    delta_e_table,
    fit_psychometric_counts,
    levels_from_rows,
    psychometric_fits,
)
from plates.charts.paired import (
    cot_figure,
    cot_table,
    grayscale_figure,
    grayscale_table,
    reference_grayscale,
)
from plates.charts.people import people_band

__all__ = [
    "CONDITION",
    "CONDITION_COLUMNS",
    "COUNT_KEYS",
    "PLATE_TASKS",
    "SERIES",
    "chance_rate",
    "choose",
    "colour_set_figure",
    "colour_set_table",
    "condition_label",
    "cot_figure",
    "cot_table",
    "counts_from_rows",
    "delta_e_figure",
    "delta_e_table",
    "fit_psychometric_counts",
    "grayscale_figure",
    "grayscale_table",
    "levels_from_rows",
    "psychometric_fits",
    "reference_grayscale",
    "resolution_figure",
    "resolution_table",
    "with_condition",
    "with_series",
]


# ---------------------------------------------------------------------------------- colour sets, resolution
#: One series' prompts apart: its colour is the model's (`model_colours`), the prompt changes the bar's pattern
#: or the line's dash.
_PROMPT_PATTERNS = ("", "/", ".", "x")
_PROMPT_DASHES = ("solid", "dash", "dot", "dashdot")


def colour_set_table(
    frame: pd.DataFrame | None = None, *, counts: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Accuracy per series, prompt, condition and colour set.

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
        Accuracy (0-1), n, errors and the Wilson 95% interval per cell.

    References
    ----------
    ColorBlindnessEval §4.4, Fig. 2.
    """
    return metrics.accuracy_from_counts(
        labelled_counts(count_table(frame, counts)), [SERIES, "prompt_name", CONDITION, "colour_set"]
    )


def colour_set_figure(
    frame: pd.DataFrame | None = None,
    reference: pd.DataFrame | None = None,
    *,
    counts: pd.DataFrame | None = None,
    condition: str | None = None,
) -> go.Figure:
    """Accuracy per colour set for one condition, one bar per series (and prompt), Wilson 95% error bars.
    Published per-colour-set accuracies: grey open symbols.

    Parameters
    ----------
    frame : pandas.DataFrame or None
        Result rows (`plates.results.load_results`).
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`); None: none drawn.
    counts : pandas.DataFrame or None
        The same as a count table (`counts_from_rows`, or the dashboard's DuckDB cube): used instead of
        ``frame`` when given.
    condition : str or None
        The condition shown (`plates.analysis.conditions.condition_label`); None: the one with the most rows.

    Returns
    -------
    plotly.graph_objects.Figure

    Raises
    ------
    ValueError
        ``condition`` is not among the rows' conditions; the message lists them.

    References
    ----------
    ColorBlindnessEval §4.4, Fig. 2.
    """
    title = "Accuracy per colour set (Wilson 95% CI)"
    table = colour_set_table(frame, counts=counts)
    table = table[table["n"] > 0]
    if table.empty:
        return empty_figure(title, "no scored rows")
    shown, others, table = choose(table, condition)
    several = table["prompt_name"].nunique() > 1
    fig = go.Figure()
    colours = model_colours(table[SERIES])
    for (series, prompt), rows in table.groupby([SERIES, "prompt_name"], sort=True):
        rows = rows.sort_values("colour_set")
        fig.add_trace(
            go.Bar(
                x=rows["colour_set"],
                y=rows["accuracy"],
                name=series_name(series, prompt, several),
                marker_color=colours[str(series)],
                marker_pattern_shape=_PROMPT_PATTERNS[sorted(table["prompt_name"].unique()).index(prompt) % 4],
                error_y=accuracy_error_bars(rows),
                hovertext=accuracy_hover(rows),
                customdata=rows["n"],
            )
        )
    add_chance_lines(fig, {p: chance_rate(p) for p in table["prompt_name"].unique()})
    ref = reference_of(
        reference,
        "accuracy",
        colour_set=list(table["colour_set"].unique()),
        prompt_name=list(table["prompt_name"].unique()),
    )
    for i, (name, rows) in by_source_row(ref):
        fig.add_trace(
            go.Scatter(
                x=rows["colour_set"],
                y=rows["value"],
                mode="markers",
                name=name,
                marker=reference_marker(i),
                legendgroup="published",
            )
        )
    fig.update_layout(
        barmode="group",
        xaxis_title="colour set",
        showlegend=True,
        yaxis=dict(title="accuracy", range=[0, 1.05], tickformat=".0%"),
    )
    return titled(fig, title, shown, others)


def resolution_table(
    frame: pd.DataFrame | None = None, *, counts: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Accuracy per series, prompt, condition without size, and size, and each size's effect against the
    smallest.

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
        Accuracy (0-1) with its Wilson 95% interval per cell, ``size`` in px, and ``vs``, ``delta`` with
        Newcombe's 95% ``delta_low`` / ``delta_high`` (`plates.analysis.metrics.effect_vs_first`).

    References
    ----------
    HueManity §5.4, Table 5.
    """
    table = labelled_counts(count_table(frame, counts), without=("size",))
    table = table[table["size"].notna()] if "size" in table.columns else table.iloc[0:0]
    table = metrics.accuracy_from_counts(table, [SERIES, "prompt_name", CONDITION, "size"])
    return metrics.effect_vs_first(table, [SERIES, "prompt_name", CONDITION], "size")


def resolution_figure(
    frame: pd.DataFrame | None = None,
    reference: pd.DataFrame | None = None,
    *,
    counts: pd.DataFrame | None = None,
    condition: str | None = None,
) -> go.Figure:
    """Accuracy against the side in pixels of the image the model received, for one condition (without its
    size), one line per series and prompt, Wilson 95% error bars (HueManity §5.4, Table 5). HueManity Table
    5's points (grey dashed) carry its printed ±, which fit the Wald formula 1.96·√(p(1−p)/n) at n = 100, not
    a Wilson interval: drawn as printed.

    Parameters
    ----------
    frame : pandas.DataFrame or None
        Result rows (`plates.results.load_results`).
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`); None: none drawn.
    counts : pandas.DataFrame or None
        The same as a count table (`counts_from_rows`, or the dashboard's DuckDB cube): used instead of
        ``frame`` when given.
    condition : str or None
        The condition shown, without its size; None: the one with the most rows.

    Returns
    -------
    plotly.graph_objects.Figure

    Raises
    ------
    ValueError
        ``condition`` is not among the rows' conditions; the message lists them.

    References
    ----------
    HueManity §5.4, Table 5.
    """
    title = "Resolution: accuracy vs image size (Wilson 95% CI)"
    table = resolution_table(frame, counts=counts)
    table = table[table["n"] > 0]
    if table.empty:
        return empty_figure(title, "no scored rows with a size")
    shown, others, table = choose(table, condition)
    several = table["prompt_name"].nunique() > 1
    fig = go.Figure()
    colours = model_colours(table[SERIES])
    prompts = sorted(table["prompt_name"].unique())
    person = table[SERIES].astype(str).str.startswith(PERSON_PREFIX)
    if table.loc[person, SERIES].nunique() <= PEOPLE_SHOWN:  # a few people: a line each, as the models
        person = person & False
    for (series, prompt), rows in table[~person].groupby([SERIES, "prompt_name"], sort=True):
        rows = rows.sort_values("size")
        fig.add_trace(
            go.Scatter(
                x=rows["size"],
                y=rows["accuracy"],
                mode="lines+markers",
                name=series_name(series, prompt, several),
                line=dict(color=colours[str(series)], dash=_PROMPT_DASHES[prompts.index(prompt) % 4]),
                error_y=accuracy_error_bars(rows),
                hovertext=accuracy_hover(rows),
            )
        )
    people_band(fig, table[person], prompts, several, _PROMPT_DASHES)
    add_chance_lines(fig, {p: chance_rate(p) for p in prompts})
    paper_condition = {"original": "standard", "clear": "clear", "mask": "mask"}.get(shown)
    ref = reference_of(
        reference,
        "accuracy",
        prompt_name=list(table["prompt_name"].unique()),
        condition=paper_condition or "-",
    )
    if "size" in ref.columns and not ref.empty:  # an ablation over sizes only, not a table's one size
        ref = ref[ref["size"].notna()]
        sweeps = ref.groupby("source")["size"].nunique()
        ref = ref[ref["source"].isin(sweeps[sweeps >= 2].index)]
    for i, (name, rows) in by_source_row(ref):
        rows = rows.sort_values("size")
        error = None
        if rows["ci_half_width"].notna().all():  # the printed ± (Wald in HueManity Table 5)
            error = dict(type="data", symmetric=True, array=rows["ci_half_width"].to_numpy(float))
        fig.add_trace(
            go.Scatter(
                x=rows["size"],
                y=rows["value"],
                mode="lines+markers",
                name=name + " (± as printed: Wald)",
                marker=reference_marker(i),
                line=dict(dash="dash", color="#444444"),
                error_y=error,
                legendgroup="published",
            )
        )
    fig.update_layout(
        xaxis_title="image side (px)",
        showlegend=True,
        yaxis=dict(title="accuracy", range=[0, 1.05], tickformat=".0%"),
    )
    return titled(fig, title, shown, others)
