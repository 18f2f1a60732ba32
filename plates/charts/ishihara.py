"""Every chart the papers drew, as pure functions, never pooling what must not be pooled.

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

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from plates.analysis import metrics
from plates.analysis.comparison import PAPER_FONTS, compare
from plates.analysis.conditions import CONDITION_COLUMNS, condition_label
from plates.analysis.people import PEOPLE_SHOWN, PERSON_PREFIX
from plates.charts.common import (
    CONDITION,
    COUNT_KEYS,
    FAILURE_MODES,
    PLATE_TASKS,
    REFERENCE_MARKER,
    SERIES,
    YES_NO_PROMPTS,
    accuracy_error_bars,
    accuracy_hover,
    add_chance_lines,
    by_source_row,
    choose,
    count_table,
    counts_from_rows,
    empty_figure,
    error_bars_between,
    labelled_counts,
    model_colours,
    reference_marker,
    reference_of,
    run_hint,
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
    "failure_mode_figure",
    "failure_mode_table",
    "fit_psychometric_counts",
    "grayscale_figure",
    "grayscale_table",
    "levels_from_rows",
    "overview_figure",
    "overview_table",
    "psychometric_fits",
    "reference_grayscale",
    "resolution_figure",
    "resolution_table",
    "with_condition",
    "with_series",
    "yes_no_figure",
    "yes_no_table",
]


# ------------------------------------------------------------------------------------------------ overview
def overview_table(frame: pd.DataFrame | None = None, *, counts: pd.DataFrame | None = None) -> pd.DataFrame:
    """Series (model, or model · run) x prompt x condition: accuracy, n, errors, Wilson 95% interval."""
    table = labelled_counts(count_table(frame, counts))
    return metrics.accuracy_from_counts(table, [SERIES, "prompt_name", CONDITION])


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
    published (``comparison``: `plates.analysis.comparison.compare`; computed from ``reference`` when not
    given)."""
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
    fig = go.Figure(
        go.Heatmap(
            z=z.to_numpy(float),
            x=list(z.columns),
            y=list(z.index),
            text=text.to_numpy(object),
            texttemplate="%{text}",
            zmin=0,
            zmax=1,
            colorscale="Viridis",
            name="runs",
            textfont=dict(size=_cell_font_size(z.shape[1])),
            colorbar=dict(title="accuracy"),
            hovertemplate="%{y} · %{x}<br>%{text}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed")  # first series on top, in reading order
    fig.update_layout(
        title=title, height=max(320, 90 * len(z) + 220), margin=dict(b=160), meta={"papers": len(paper)}
    )
    return fig


def _cell_font_size(columns: int) -> int:
    """Cell text shrinks as columns narrow, so neighbouring cells' intervals do not run into each other."""
    return 12 if columns <= 5 else 10 if columns <= 8 else 8


# ---------------------------------------------------------------------------------- colour sets, resolution
#: One series' prompts apart: its colour is the model's (`model_colours`), the prompt changes the bar's pattern
#: or the line's dash.
_PROMPT_PATTERNS = ("", "/", ".", "x")
_PROMPT_DASHES = ("solid", "dash", "dot", "dashdot")


def colour_set_table(
    frame: pd.DataFrame | None = None, *, counts: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Accuracy per series, prompt, condition and colour set (ColorBlindnessEval §4.4, Fig. 2)."""
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
    """Accuracy per colour set for one condition, one bar per series (and prompt), Wilson 95% error bars
    (ColorBlindnessEval §4.4, Fig. 2). Published per-colour-set accuracies: grey open symbols."""
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
    """Accuracy per series, prompt, condition without size, and size (HueManity §5.4, Table 5), and each size's
    effect against the smallest (``vs``, ``delta`` with Newcombe's 95% ``delta_low`` / ``delta_high``)."""
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
    a Wilson interval: drawn as printed."""
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


# -------------------------------------------------------------------------------------------------- yes/no
def yes_no_table(frame: pd.DataFrame | None = None, *, counts: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per series and condition: `metrics.yes_no_from_counts` (Y*/N = ``y_star_n``, Y/N* = ``y_n_star``;
    ColorBlindnessEval Table 1) plus Wilson 95% bounds of both accuracies (``y_star_n_low`` ...)."""
    table = metrics.yes_no_from_counts(labelled_counts(count_table(frame, counts)), [SERIES, CONDITION])
    for acc, n in (("y_star_n", "n_y_star"), ("y_n_star", "n_n_star")):
        trials = table[n].to_numpy(float)
        k = np.round(np.nan_to_num(table[acc].to_numpy(float)) * trials)
        table[f"{acc}_low"], table[f"{acc}_high"] = metrics.wilson_intervals(k, trials)
    return table


def yes_no_figure(
    frame: pd.DataFrame | None = None,
    reference: pd.DataFrame | None = None,
    *,
    counts: pd.DataFrame | None = None,
    condition: str | None = None,
) -> go.Figure:
    """Each series as a point at (Y*/N accuracy, Y/N* accuracy) for one condition, Wilson 95% bars on both
    axes; the dotted diagonal is balance (ColorBlindnessEval §4.1, Table 1). Published points: grey."""
    title = "Yes/No balance: Y*/N vs Y/N* (ColorBlindnessEval Table 1)"
    table = yes_no_table(frame, counts=counts)
    table = table[(table["n_y_star"] > 0) & (table["n_n_star"] > 0)]
    hint = ("needs answered rows of both prompts cbe-yn-correct and cbe-yn-incorrect from a "
            "vision-language model<br>(the offline baseline reader declines yes/no questions). Run:"
            + run_hint("--prompt cbe-yn-correct", "--prompt cbe-yn-incorrect"))
    if table.empty:
        published = _published_yes_no(reference, "standard")
        if len(published.data) > 1:  # the paper's own points (beside the balance line), labelled
            published.update_layout(meta={"ours": 0, "hint": hint})
            return titled(published, title + "<br><sup>the paper's models only: none of these results answered "
                          "both cbe-yn-correct and cbe-yn-incorrect</sup>", None, [])
        return empty_figure(title, hint)
    shown, others, table = choose(
        table.assign(answered=table["n_y_star"] + table["n_n_star"]), condition, "answered"
    )
    paper_condition = {"original": "standard", "clear": "clear"}.get(shown.split(" @")[0], "-")
    fig = _published_yes_no(reference, paper_condition)
    colours = model_colours(table[SERIES])
    for _, row in table.iterrows():
        x, y = row["y_star_n"], row["y_n_star"]
        fig.add_trace(
            go.Scatter(
                x=[x],
                y=[y],
                mode="markers+text",
                text=[row[SERIES]],
                textposition="top center",
                name=str(row[SERIES]),
                marker=dict(size=12, color=colours[str(row[SERIES])]),
                error_x=error_bars_between(x, row["y_star_n_low"], row["y_star_n_high"]),
                error_y=error_bars_between(y, row["y_n_star_low"], row["y_n_star_high"]),
                hovertext=f"Y*/N {x:.1%} (n={int(row['n_y_star'])}), "
                f"Y/N* {y:.1%} (n={int(row['n_n_star'])}), "
                f"lean: {row['lean']} (Y*/N − Y/N* {row['yes_bias']:+.1%}, 95% CI "
                f"{row['yes_bias_low']:+.1%} to {row['yes_bias_high']:+.1%})",
            )
        )
    return titled(fig, title, shown, others)


def _published_yes_no(reference: pd.DataFrame | None, paper_condition: str) -> go.Figure:
    """The yes/no plane (balance diagonal, axes in %) with ColorBlindnessEval Table 1's models for
    ``paper_condition`` as grey open diamonds, each labelled with its model."""
    fig = go.Figure(
        go.Scatter(
            x=[0, 1],
            y=[0, 1],
            mode="lines",
            line=dict(dash="dot", color="#999999"),
            name="balance",
            hoverinfo="skip",
        )
    )
    ref = reference_of(
        reference, "accuracy", prompt_name=list(YES_NO_PROMPTS.values()), condition=paper_condition
    )
    if not ref.empty:  # zero-shot, in the paper's own font (Table 4 is 2-shot, Table 5 a font study)
        ref = ref[ref["shots"].fillna(0).eq(0)]
        ref = ref[[not isinstance(f, str) or f in PAPER_FONTS.get(p, ()) for f, p in zip(ref["font"], ref["paper"])]]
    if not ref.empty:
        pivot = ref.pivot_table(
            index=["model", "source"], columns="prompt_name", values="value", aggfunc="first"
        )
        if set(YES_NO_PROMPTS.values()) <= set(pivot.columns):
            pivot = pivot.dropna(subset=list(YES_NO_PROMPTS.values()))
            fig.add_trace(
                go.Scatter(
                    x=pivot[YES_NO_PROMPTS["Y*/N"]],
                    y=pivot[YES_NO_PROMPTS["Y/N*"]],
                    mode="markers+text",
                    marker=REFERENCE_MARKER,
                    # each published point names its model (grey, small: ours are the coloured ones)
                    text=_cluster_labels(pivot[YES_NO_PROMPTS["Y*/N"]], pivot[YES_NO_PROMPTS["Y/N*"]],
                                         [f"{m} ({src.split(' ', 1)[-1]})" if twice else str(m)
                                          for (m, src), twice in zip(pivot.index,
                                                                     pivot.index.get_level_values(0).duplicated(
                                                                         keep=False))]),
                    textposition=_label_sides(pivot[YES_NO_PROMPTS["Y*/N"]], pivot[YES_NO_PROMPTS["Y/N*"]]),
                    textfont=dict(size=10, color="#555555"),
                    cliponaxis=False,
                    name="published (ColorBlindnessEval Table 1)",
                    legendgroup="published",
                    hovertext=[f"{m} — {s}" for m, s in pivot.index],
                )
            )
    fig.update_layout(
        xaxis=dict(
            title="Y*/N accuracy (says yes to the right number)", range=[-0.02, 1.02], tickformat=".0%"
        ),
        yaxis=dict(title="Y/N* accuracy (says no to a wrong number)", range=[-0.02, 1.02], tickformat=".0%"),
    )
    return fig


def _cluster_labels(x: pd.Series, y: pd.Series, names: list[str], near: float = 0.04) -> list[str]:
    """One label per group of points closer than ``near`` (in axis units) to the group's first point: its
    names stacked on that point, the others' labels empty (several models at one spot stay readable)."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    labels, owner = [""] * len(names), [-1] * len(names)
    for i in range(len(names)):
        if owner[i] >= 0:
            continue
        group = [j for j in range(i, len(names)) if owner[j] < 0 and abs(xs[j] - xs[i]) < near
                 and abs(ys[j] - ys[i]) < near]
        for j in group:
            owner[j] = i
        labels[i] = "<br>".join(names[j] for j in group)
    return labels


def _label_sides(x: pd.Series, y: pd.Series) -> list[str]:
    """Where each published point's label goes: towards the middle of the plane (right of points on the left
    half, left of those on the right), above or below by turns among points in order of x, so close
    neighbours' names do not sit on each other."""
    order = np.argsort(np.asarray(x, dtype=float), kind="stable")
    sides = [""] * len(order)
    for rank, i in enumerate(order):
        sides[i] = ("top " if rank % 2 == 0 else "bottom ") + ("right" if float(x.iloc[i]) < 0.5 else "left")
    return sides


# ----------------------------------------------------------------------------------------- failure modes
def failure_mode_table(
    frame: pd.DataFrame | None = None, *, counts: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Per series, prompt and condition: wrong answers and the share of each failure mode among them
    (HueManity App. E; "other" = wrong with no mode). ``counts``: `plates.dashboard.queries.failure_counts`."""
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
    nothing)."""
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
