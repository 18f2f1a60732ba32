"""Accuracy against ΔE2000 with psychometric fits: ONE fit per model (or model · run) x prompt x condition x
colour set, through ONE function, `fit_psychometric_counts`.

The fit's input is the answered and correct counts per ΔE2000 level (CIEDE2000 between foreground and
background, CIELAB; levels rounded to 0.01), from the rows (`levels_from_rows`) or from DuckDB
(`plates.dashboard.queries.levels`): a group's binomial likelihood over its levels is the per-answer
likelihood, so counts lose nothing. The chance rate of each prompt (`chance_rate`: yes/no 1/2, k options
1/k, open answers 1/|label space|) is passed to the fit.

`fit_psychometric_counts` calls the chance-aware fit of `plates.analysis.psychometric_fits` (a lapse rate, the
threshold halfway between guess and ceiling) on the answers the counts stand for, every group at once.

People (the quiz's participants, "person: participant-…"): past `PEOPLE_SHOWN` of them, one series here,
"people (K participants)", their answers pooled, as the People page pools them beside each participant's own
fit (a public quiz gathers hundreds of people, and hundreds of curves read as none).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from plates.analysis import metrics
from plates.analysis.people import PEOPLE_SHOWN, PERSON_PREFIX, pooled_label
from plates.analysis.psychometric import PsychometricFit, prompt_guess_rate
from plates.analysis.psychometric_fits import fit_psychometric_counts as fit_chance_aware_counts
from plates.charts.common import (
    CONDITION,
    COUNT_KEYS,
    SERIES,
    add_chance_lines,
    choose,
    empty_figure,
    error_bars_between,
    model_colours,
    titled,
    with_condition,
    with_series,
)
from plates.validation import check_int

#: What one fit is per: the chart never fits across these.
FIT_GROUP = (SERIES, "prompt_name", CONDITION, "colour_set")
LEVEL_DECIMALS = 2
_X_TITLES = {
    "delta_e": "ΔE2000 foreground vs background (nominal: palette colours before jitter, CIELAB)",
    "delta_e_drawn_median": "ΔE2000 foreground vs background (median over the dot pairs drawn, CIELAB)",
}


def chance_rate(prompt_name: str | None) -> float:
    """The probability of a correct answer by guessing for a registered prompt
    (`plates.analysis.psychometric.prompt_guess_rate`): yes/no 1/2, multiple choice 1/(options shown), open answers
    1/|label space| (0 for an unrestricted space or an unknown prompt).

    Parameters
    ----------
    prompt_name : str or None
        A registered prompt's name.

    Returns
    -------
    float
        0-1.

    Examples
    --------
    >>> chance_rate("cbe-yn-correct"), chance_rate(None)
    (0.5, 0.0)
    """
    # the prompt registry (plates.tasks: every family's tasks and stimuli, ~0.4 s of CPU) loads here, where a
    # chance rate is asked for: the dashboard's first page never asks one
    from plates.tasks.prompts import PROMPTS

    template = PROMPTS.get(str(prompt_name)) if prompt_name is not None else None
    return 0.0 if template is None else prompt_guess_rate(template)


def fit_psychometric_counts(groups: Sequence[tuple[Any, Any, Any, float]]) -> list[PsychometricFit]:
    """THE psychometric fit of the ΔE chart, for each group (levels, answered ``n``, ``correct``, chance rate
    ``guess``): per ΔE2000 level (arrays of one length) the answers and the right ones; the chance-aware fit
    (`plates.analysis.psychometric_fits.fit_psychometric_counts`: ψ = γ + (1 − γ − λ)F, threshold halfway between
    guess and ceiling, lapse fitted in 0-0.06) on the answers the counts stand for, every group at once; the
    page draws no interval, so none is computed here (the fit's interval is in
    `plates.analysis.psychometric_fits.fit_groups`).

    Parameters
    ----------
    groups : sequence of (array_like, array_like, array_like, float)
        Per group: ΔE2000 levels, answered ``n`` and ``correct`` at each, and the chance rate γ.

    Returns
    -------
    list of PsychometricFit
        One per group, in order.

    References
    ----------
    Wichmann and Hill (2001), *Percept. Psychophys.* 63(8): 1293-1313.
    """
    counts = []
    for levels, n, correct, guess in groups:
        levels = np.asarray(levels, dtype=float)
        n, correct = np.asarray(n, dtype=np.int64), np.asarray(correct, dtype=np.int64)
        counts.append((levels, correct, n, guess))  # checked there: one length, 0 <= correct <= n
    return fit_chance_aware_counts(counts, interval=False)


def levels_from_rows(frame: pd.DataFrame, x: str = "delta_e") -> pd.DataFrame:
    """Answered ``n`` and ``correct`` per `COUNT_KEYS` group (those present) and ΔE2000 level (``x`` rounded
    to 0.01; rows without one, and failed requests, left out): what `plates.dashboard.queries.levels` gives.

    Parameters
    ----------
    frame : pandas.DataFrame
        Result rows.
    x : str
        The level column: "delta_e" (nominal) or "delta_e_drawn_median" (as drawn).

    Returns
    -------
    pandas.DataFrame
    """
    if x not in frame.columns:
        raise ValueError(f"the results have no {x!r} column; columns: {list(frame.columns)}")
    rows = frame[frame[x].notna() & frame["correct"].notna()]
    keys = [c for c in COUNT_KEYS if c in rows.columns]
    scale = 10**LEVEL_DECIMALS  # floor(x * 100 + 0.5) / 100, as DuckDB's levels compute it
    rows = rows.assign(level=np.floor(rows[x].to_numpy(float) * scale + 0.5) / scale)
    table = metrics.accuracy_table(rows, [*keys, "level"])
    return table[[*keys, "level", "n", "correct"]]


def _groups(levels: pd.DataFrame) -> pd.DataFrame:
    """The levels with their series (model, or model · run) and condition; past `PEOPLE_SHOWN` participants,
    the quiz's people pooled into one series, "people (K participants)" (`plates.analysis.people.pooled_label`)."""
    table = with_series(with_condition(levels))
    series = table[SERIES].astype(object).astype(str)
    person = series.str.startswith(PERSON_PREFIX).to_numpy()
    people = int(series[person].nunique())
    if people > PEOPLE_SHOWN:  # a curve per person is hundreds of curves: each one's own fit is on the People page
        table[SERIES] = np.where(person, pooled_label(people), series)
    for column in ("prompt_name", "colour_set"):
        if column not in table.columns:
            table[column] = ""
    return table.assign(
        prompt_name=table["prompt_name"].astype(object).fillna(""),
        colour_set=table["colour_set"].astype(object).fillna(""),
    )


def psychometric_fits(
    frame: pd.DataFrame | None = None, *, levels: pd.DataFrame | None = None, x: str = "delta_e"
) -> pd.DataFrame:
    """One `fit_psychometric_counts` per `FIT_GROUP` (series x prompt x condition x colour set): columns
    ``FIT_GROUP..., n, guess, threshold, slope, status, low, high, fit`` (low/high: the ΔE2000 range tested;
    ``fit``: the fit object, whose ``predict`` draws the curve).

    Parameters
    ----------
    frame : pandas.DataFrame or None
        Result rows.
    levels : pandas.DataFrame or None
        `levels_from_rows`' table (or DuckDB's), used instead of ``frame`` when given.
    x : str
        The level column.

    Returns
    -------
    pandas.DataFrame
    """
    levels = levels_from_rows(frame, x) if levels is None else levels
    table = _groups(levels)
    # answers per group and level in one grouping (sorted by group, then level), then cut at each group's start
    summed = table.groupby([*FIT_GROUP, "level"], sort=True, dropna=False)[["n", "correct"]].sum()
    group_of = summed.index.droplevel("level")
    codes = summed.groupby(level=list(range(len(FIT_GROUP))), sort=False, dropna=False).ngroup().to_numpy()
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]]) if len(summed) else np.zeros(0, dtype=int)
    ends = np.r_[starts[1:], len(summed)]
    level, n, correct = (summed.index.get_level_values("level").to_numpy(float), summed["n"].to_numpy(),
                         summed["correct"].to_numpy())
    keys, counts = [], []
    for start, end in zip(starts, ends):
        key = group_of[start]
        keys.append((key, chance_rate(key[1] or None), start, end))
        counts.append((level[start:end], n[start:end], correct[start:end], keys[-1][1]))
    fits = fit_psychometric_counts(counts)  # every group at once
    out = [(*key, int(n[start:end].sum()), guess, fit.threshold, fit.slope, fit.status, float(level[start]),
            float(level[end - 1]), fit) for (key, guess, start, end), fit in zip(keys, fits)]
    return pd.DataFrame(
        out, columns=[*FIT_GROUP, "n", "guess", "threshold", "slope", "status", "low", "high", "fit"]
    )


def delta_e_table(
    frame: pd.DataFrame | None = None,
    bins: int = 8,
    *,
    levels: pd.DataFrame | None = None,
    x: str = "delta_e",
) -> pd.DataFrame:
    """Accuracy with Wilson 95% bounds per `FIT_GROUP` and ΔE2000 bin: equal-width bins over the group's
    levels, or one per level when a group has at most ``bins`` of them; ``delta_e`` is the bin's mean level
    (weighted by answers).

    Parameters
    ----------
    frame : pandas.DataFrame or None
        Result rows.
    bins : int
        Bins per group, at most.
    levels : pandas.DataFrame or None
        `levels_from_rows`' table, used instead of ``frame`` when given.
    x : str
        The level column.

    Returns
    -------
    pandas.DataFrame
    """
    check_int("bins", bins, 1)
    levels = levels_from_rows(frame, x) if levels is None else levels
    table = _groups(levels)
    parts = []
    for _, rows in table.groupby(list(FIT_GROUP), sort=True, dropna=False):
        values = rows["level"].astype(float)
        if values.nunique() <= bins:
            bin_id = values.rank(method="dense").astype(int)
        else:
            bin_id = pd.cut(values, bins=bins, labels=False, include_lowest=True)
        parts.append(rows.assign(bin=bin_id.to_numpy(), weighted=values * rows["n"], errors=0))
    if not parts:
        return pd.DataFrame(
            columns=[*FIT_GROUP, "bin", "n", "correct", "accuracy", "ci_low", "ci_high", "errors", "delta_e"]
        )
    rows = pd.concat(parts, ignore_index=True)
    acc = metrics.accuracy_from_counts(rows, [*FIT_GROUP, "bin"])
    centre = rows.groupby([*FIT_GROUP, "bin"], sort=True, dropna=False)[["weighted", "n"]].sum()
    acc["delta_e"] = (centre["weighted"] / centre["n"].where(centre["n"] > 0)).to_numpy()
    return acc.sort_values([*FIT_GROUP, "delta_e"]).reset_index(drop=True)


def delta_e_figure(
    frame: pd.DataFrame | None = None,
    reference: pd.DataFrame | None = None,
    bins: int = 8,
    *,
    levels: pd.DataFrame | None = None,
    condition: str | None = None,
    prompt: str | None = None,
    x: str = "delta_e",
    fits: pd.DataFrame | None = None,
) -> go.Figure:
    """Accuracy against ΔE2000 (binned, Wilson 95% bars) for one condition and one prompt, with one fitted
    curve per series and colour set and a dotted line at each threshold, marked *extrapolated* outside the
    ΔE2000 tested. ``x``: "delta_e" (nominal) or "delta_e_drawn_median" (as drawn). The papers publish no
    ΔE sweep (their colour sets are fixed pairs): ``reference`` adds nothing. ``fits``: `psychometric_fits`
    already made of these levels (the figure keeps those of its condition and prompt), else fitted here.

    Parameters
    ----------
    frame : pandas.DataFrame or None
        Result rows.
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`).
    bins : int
        Bins per group, at most.
    levels : pandas.DataFrame or None
        `levels_from_rows`' table, used instead of ``frame`` when given.
    condition : str or None
        The condition shown (`plates.analysis.conditions.condition_label`); None: the one with the most rows.
    prompt : str or None
        The prompt shown; None: the one with the most answers.
    x : str
        The level column.
    fits : pandas.DataFrame or None
        `psychometric_fits` of these levels.

    Returns
    -------
    plotly.graph_objects.Figure

    Raises
    ------
    ValueError
        ``condition`` or ``prompt`` has no answers with a ΔE2000 here; the message lists those that do.
    """
    title = "Accuracy vs ΔE2000 with psychometric fits"
    levels = levels_from_rows(frame, x) if levels is None else levels
    table = delta_e_table(levels=levels, bins=bins)
    table = table[table["n"] > 0]
    if table.empty:
        return empty_figure(title, "no answered rows with a ΔE2000")
    shown, others, table = choose(table, condition)
    prompts = sorted(table["prompt_name"].unique())
    if prompt is None:
        prompt = str(table.groupby("prompt_name")["n"].sum().idxmax())
    elif prompt not in prompts:
        raise ValueError(
            f"prompt {prompt!r} has no answers with a ΔE2000 here; allowed: {', '.join(prompts)}"
        )
    table = table[table["prompt_name"] == prompt]
    if fits is None:
        groups = _groups(levels)
        fits = psychometric_fits(
            levels=groups[(groups[CONDITION] == shown) & (groups["prompt_name"] == prompt)]
        )
    fits = fits[(fits[CONDITION] == shown) & (fits["prompt_name"] == prompt)]
    sets = sorted(table["colour_set"].unique())
    several_sets = len(sets) > 1
    columns = min(len(sets), 3)
    rows_n = -(-len(sets) // columns)
    # a panel per colour set (a fit per model x colour set; panels keep them readable), a colour per model
    fig = make_subplots(
        rows=rows_n,
        cols=columns,
        shared_yaxes=True,
        horizontal_spacing=0.04,
        vertical_spacing=0.12 if rows_n > 1 else 0.0,
        subplot_titles=sets if several_sets else None,
    )
    colour_of = model_colours(table[SERIES])
    in_legend: set[str] = set()
    traces, cells = [], []  # added together: plotly checks the grid once, not once per trace
    for (series, colour_set), rows in table.groupby([SERIES, "colour_set"], sort=True):
        colour = colour_of[series]
        name = f"{series} · {colour_set}" if several_sets else str(series)
        at = divmod(sets.index(colour_set), columns)
        cell = (at[0] + 1, at[1] + 1)
        traces.append(
            go.Scatter(
                x=rows["delta_e"].to_numpy(),
                y=rows["accuracy"].to_numpy(),
                mode="markers",
                name=str(series),
                marker=dict(color=colour, size=8),
                legendgroup=str(series),
                showlegend=series not in in_legend,
                error_y=error_bars_between(rows["accuracy"], rows["ci_low"], rows["ci_high"]),
                hovertext=[
                    f"{name}: accuracy {a:.1%} (n={int(n)})" for a, n in zip(rows["accuracy"], rows["n"])
                ],
            )
        )
        cells.append(cell)
        in_legend.add(series)
        match = fits[(fits[SERIES] == series) & (fits["colour_set"] == colour_set)]
        if match.empty:
            continue
        fit, low, high = match["fit"].iloc[0], match["low"].iloc[0], match["high"].iloc[0]
        xs = np.linspace(0.0, max(high, 1.0) * 1.05, 200)
        traces.append(
            go.Scatter(
                x=xs,
                y=fit.predict(xs),
                mode="lines",
                line=dict(color=colour),
                name=f"{name} fit",
                legendgroup=str(series),
                showlegend=False,
            )
        )
        cells.append(cell)
        if np.isfinite(fit.threshold):
            outside = not low <= fit.threshold <= high  # the fit's guess, not a measurement
            label = f"{name} threshold at ΔE {fit.threshold:.1f}" + (" (extrapolated)" if outside else "")
            traces.append(
                go.Scatter(
                    x=[fit.threshold, fit.threshold],
                    y=[0, 1],
                    mode="lines",
                    legendgroup=str(series),
                    line=dict(color=colour, dash="dot"),
                    name=label,
                    showlegend=False,
                    hovertext=label,
                )
            )
            cells.append(cell)
    fig.add_traces(traces, rows=[r for r, _ in cells], cols=[c for _, c in cells])
    fig.update_xaxes(title_text=_X_TITLES.get(x, x) if not several_sets else "ΔE2000", row=rows_n)
    guess = chance_rate(prompt)
    for i in range(len(sets)):
        r, c = divmod(i, columns)
        # every panel holds traces: plotly need not scan them all to check (slow with many traces)
        add_chance_lines(fig, {str(prompt): guess}, row=r + 1, col=c + 1, exclude_empty_subplots=False)
    fig.update_yaxes(range=[-0.02, 1.05], tickformat=".0%")
    fig.update_yaxes(title_text="accuracy", col=1)
    fig.update_layout(height=320 * rows_n + 140)
    others_prompts = [p for p in prompts if p != prompt]
    fig.update_layout(
        meta={
            "prompt": prompt,
            "other_prompts": others_prompts,
            "fits": len(fits),
            "chance": chance_rate(prompt),
            "x": _X_TITLES.get(x, x),
        },
    )
    return titled(fig, f"{title} · {prompt} (chance {chance_rate(prompt):.0%})", shown, others)



