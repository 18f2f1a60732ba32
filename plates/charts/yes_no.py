"""The yes/no balance (ColorBlindnessEval §4.1, Table 1): accuracy when the asked number is the plate's (Y*/N,
prompt ``cbe-yn-correct``) against accuracy when it is not (Y/N*, ``cbe-yn-incorrect``), with Wilson 95% bounds on
both axes; a model that leans to "yes" sits below the diagonal. The paper's models are drawn as grey labelled
points on the same plane. One condition at a time (the rules every chart keeps: `plates.charts.ishihara`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from plates.analysis import metrics
from plates.analysis.comparison import PAPER_FONTS
from plates.charts.common import (
    CONDITION,
    REFERENCE_MARKER,
    SERIES,
    YES_NO_PROMPTS,
    choose,
    count_table,
    empty_figure,
    error_bars_between,
    labelled_counts,
    model_colours,
    reference_of,
    run_hint,
    titled,
)


def yes_no_table(frame: pd.DataFrame | None = None, *, counts: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per series and condition: `metrics.yes_no_from_counts` (Y*/N = ``y_star_n``, Y/N* = ``y_n_star``;
    ColorBlindnessEval Table 1) plus Wilson 95% bounds of both accuracies (``y_star_n_low`` ...).

    Parameters
    ----------
    frame : pandas.DataFrame or None
        Result rows.
    counts : pandas.DataFrame or None
        A count table, used instead of ``frame`` when given.

    Returns
    -------
    pandas.DataFrame

    References
    ----------
    ColorBlindnessEval §4.1, Table 1.
    """
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
    axes; the dotted diagonal is balance (ColorBlindnessEval §4.1, Table 1). Published points: grey.

    Parameters
    ----------
    frame : pandas.DataFrame or None
        Result rows.
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`).
    counts : pandas.DataFrame or None
        A count table, used instead of ``frame`` when given.
    condition : str or None
        The condition shown (`plates.analysis.conditions.condition_label`); None: the one with the most rows.

    Returns
    -------
    plotly.graph_objects.Figure
    """
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
