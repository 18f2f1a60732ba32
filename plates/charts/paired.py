"""The paired charts: grayscale (ColorBench §3.2 Finding 4, Fig. 5, App. M.2) and chain of thought (ColorBench
§3.2 Finding 3, Table 4). Both compare the same items under two settings, per series (model, or model · run),
task and condition (never pooled across conditions: `plates.charts.ishihara`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from plates.analysis import metrics
from plates.charts.common import (
    CONDITION,
    PLATE_TASKS,
    SERIES,
    by_source_row,
    choose,
    empty_figure,
    error_bars_between,
    model_colours,
    percent_format,
    reference_marker,
    reference_of,
    run_hint,
    titled,
    with_condition,
    with_series,
)

_SLIM = (
    *metrics.ITEM_KEYS,
    "run_id",
    "task",
    "prompt_name",
    "correct",
    "variant",
    "size",
    "hue_shift",
    "cvd",
    "cvd_severity",
    "text_only",
)


def _slim(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[[c for c in dict.fromkeys(_SLIM) if c in frame.columns]]


def _summed(pairs: pd.DataFrame, by: list[str], without: tuple[str, ...]) -> pd.DataFrame:
    """Paired counts (finer groups, e.g. DuckDB's per run and condition column) summed per series, ``by`` and
    condition label (without the ``without`` columns): pairs are disjoint sets of items, so sums are exact."""
    table = with_series(with_condition(pairs, without=without))
    keys = [SERIES, *by, CONDITION]
    return table.groupby(keys, dropna=False, sort=True)[list(metrics.PAIR_COLUMNS)].sum().reset_index()


def grayscale_table(frame: pd.DataFrame | None = None, *, pairs: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per series, task and condition (without grayscale): `metrics.grayscale_delta` — accuracy on original
    and grayscale images of the same items and delta = (Acc_ori − Acc_gray) / Acc_ori.

    Parameters
    ----------
    frame : pandas.DataFrame or None
        Result rows.
    pairs : pandas.DataFrame or None
        DuckDB's paired counts (`plates.dashboard.queries.grayscale_pairs`), used instead of ``frame``.

    Returns
    -------
    pandas.DataFrame

    References
    ----------
    ColorBench (Liang et al.) §3.2, App. M.2.
    """
    if pairs is not None:
        return metrics.grayscale_from_pairs(
            _summed(pairs, ["task"], ("grayscale",)), [SERIES, "task", CONDITION]
        )
    if frame is None:
        raise ValueError("give the result rows (frame) or their paired counts (pairs=)")
    rows = with_series(with_condition(_slim(frame), without=("grayscale",)))
    return metrics.grayscale_delta(rows, [SERIES, "task", CONDITION])


def reference_grayscale(reference: pd.DataFrame | None) -> pd.DataFrame:
    """(Acc_ori − Acc_gray) / Acc_ori from published accuracies: rows of the same source, model and task with
    condition "standard" and "grayscale" (ColorBench Table 9).

    Parameters
    ----------
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`).

    Returns
    -------
    pandas.DataFrame
        ``source, model, task, value``.

    References
    ----------
    ColorBench (Liang et al.) Table 9.
    """
    acc = reference_of(reference, "accuracy", condition=["standard", "grayscale"])
    empty = pd.DataFrame(columns=["source", "model", "task", "value"])
    if acc.empty:
        return empty
    wide = acc.pivot_table(
        index=["source", "model", "task"], columns="condition", values="value", aggfunc="first"
    )
    if not {"standard", "grayscale"} <= set(wide.columns):
        return empty
    wide = wide.dropna(subset=["standard", "grayscale"])
    value = (wide["standard"] - wide["grayscale"]) / wide["standard"].where(wide["standard"] > 0)
    return value.rename("value").reset_index()


def _at_our_tasks(ref: pd.DataFrame, tasks: Sequence[str]) -> pd.DataFrame:
    """The published rows of the task our plates are an instance of (`PLATE_TASKS`), moved to our task's x."""
    rows = []
    for task in tasks:
        paper_task = PLATE_TASKS.get(str(task))
        if paper_task is not None:
            rows.append(ref[ref["task"] == paper_task].assign(paper_task=paper_task, task=str(task)))
    return pd.concat(rows, ignore_index=True) if rows else ref.iloc[0:0]


def grayscale_figure(
    frame: pd.DataFrame | None = None,
    reference: pd.DataFrame | None = None,
    *,
    table: pd.DataFrame | None = None,
    pairs: pd.DataFrame | None = None,
    condition: str | None = None,
) -> go.Figure:
    """Grouped bars of (Acc_ori − Acc_gray) / Acc_ori per task, one bar per series, for one condition
    (ColorBench Fig. 5 draws the ratio as a violin over models). ColorBench Table 9's ratio for its Color
    Blindness task (group means of its open models) sits at the x of our prompts that ask that task.

    Parameters
    ----------
    frame : pandas.DataFrame or None
        Result rows.
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`).
    table : pandas.DataFrame or None
        `grayscale_table`'s result, when already computed.
    pairs : pandas.DataFrame or None
        DuckDB's paired counts.
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
    title = "Grayscale: (Acc_ori − Acc_gray) / Acc_ori"
    table = grayscale_table(frame, pairs=pairs) if table is None else table
    table = table[table["pairs"] > 0]
    if table.empty:
        return empty_figure(title, "needs the same items answered both in colour and in grayscale, in one run or two. "
                      "Run:" + run_hint("--prompt cbe-open --grayscale both")
                      + "<br>(or with --backend baseline instead of --backend openai --model ... --base-url ...)")
    shown, others, table = choose(table, condition, "pairs")
    ref = _at_our_tasks(reference_grayscale(reference), table["task"].unique())
    fig = _delta_bars(
        table,
        "task",
        ref,
        hover=[
            f"ori {o:.1%} → gray {g:.1%} ({int(p)} paired items)"
            for o, g, p in zip(table["acc_ori"], table["acc_gray"], table["pairs"])
        ],
        xaxis_title="task",
        yaxis=dict(title="accuracy changing ratio (+: needs colour)", tickformat=".0%"),
    )
    return titled(fig, title, shown, others)


def cot_table(
    frame: pd.DataFrame | None = None, *, pairs: Sequence[pd.DataFrame] | None = None
) -> pd.DataFrame:
    """Per series, condition and prompt pair: `metrics.cot_delta` — accuracy without and with chain of thought
    on the same items and delta = Acc_CoT − Acc_plain.

    Parameters
    ----------
    frame : pandas.DataFrame or None
        Result rows.
    pairs : sequence of pandas.DataFrame or None
        DuckDB's paired counts, one table per prompt pair with ``prompt`` and ``cot_prompt`` columns
        (`plates.dashboard.queries.cot_pairs`), used instead of ``frame``.

    Returns
    -------
    pandas.DataFrame

    References
    ----------
    ColorBench (Liang et al.) Table 4.
    """
    columns = [SERIES, CONDITION, "prompt", "cot_prompt", "pairs", "acc_plain", "acc_cot", "delta", "delta_low",
               "delta_high", "errors"]
    if pairs is not None:
        tables = [
            metrics.cot_from_pairs(
                _summed(p, [], ()),
                [SERIES, CONDITION],
                prompt=p["prompt"].iloc[0],
                cot_prompt=p["cot_prompt"].iloc[0],
            )
            for p in pairs
            if len(p)
        ]
        return pd.concat(tables, ignore_index=True)[columns] if tables else pd.DataFrame(columns=columns)
    if frame is None:
        raise ValueError("give the result rows (frame) or their paired counts (pairs=)")
    rows = with_series(with_condition(_slim(frame)))
    return metrics.cot_delta(rows, [SERIES, CONDITION])[columns]


def cot_figure(
    frame: pd.DataFrame | None = None,
    reference: pd.DataFrame | None = None,
    *,
    table: pd.DataFrame | None = None,
    pairs: Sequence[pd.DataFrame] | None = None,
    condition: str | None = None,
) -> go.Figure:
    """Δ accuracy from chain-of-thought prompting per prompt, one bar per series, for one condition
    (ColorBench Table 4: +4.35 points on average). ColorBench Table 4's delta for its Color Blindness task
    (GPT-4o +8.2, Gemini-2-flash +10.4 points) sits at the x of our prompts that ask that task.

    Parameters
    ----------
    frame : pandas.DataFrame or None
        Result rows.
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`).
    table : pandas.DataFrame or None
        `cot_table`'s result, when already computed.
    pairs : sequence of pandas.DataFrame or None
        DuckDB's paired counts.
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
    title = "Chain of thought: Δ accuracy (CoT − plain)"
    table = cot_table(frame, pairs=pairs) if table is None else table
    table = table[table["pairs"] > 0]
    if table.empty:
        return empty_figure(
            title,
            "needs the same items answered with a prompt and its chain-of-thought variant "
            "(colorbench-mc and colorbench-mc-cot) by a vision-language model, in one run or two<br>"
            "(the offline baseline reader declines multiple-choice prompts). Run:"
            + run_hint("--prompt colorbench-mc", "--prompt colorbench-mc-cot"),
        )
    shown, others, table = choose(table, condition, "pairs")
    ref = _at_our_tasks(reference_of(reference, "delta", condition="cot"), table["prompt"].unique())
    fig = _delta_bars(
        table,
        "prompt",
        ref,
        hover=[
            f"plain {p:.1%} → CoT {c:.1%} ({int(n)} paired items)"
            for p, c, n in zip(table["acc_plain"], table["acc_cot"], table["pairs"])
        ],
        xaxis_title="task (prompt)",
        yaxis=dict(title="Δ accuracy", tickformat="+.0%"),
    )
    return titled(fig, title, shown, others)


def delta_range(values) -> list[float]:
    """A delta axis's range (accuracy differences, -1 to 1 scale) that holds every value given (bars, both
    ends of their 95% intervals, the papers' points) and 0, with a margin of an eighth of the span (at least
    0.02) for the bars' printed values: plotly's own range left a zero bar's interval running off the axis.

    Parameters
    ----------
    values : iterable of float
        Every value the axis must hold (NaN ignored).

    Returns
    -------
    list of float
        [low, high].

    Examples
    --------
    >>> delta_range([0.0, -0.3, 0.3])
    [-0.375, 0.375]
    """
    finite = [float(v) for v in values if v is not None and np.isfinite(float(v))]
    low, high = min([0.0, *finite]), max([0.0, *finite])
    pad = max((high - low) / 8, 0.02)
    return [low - pad, high + pad]


def _delta_bars(
    table: pd.DataFrame, x: str, ref: pd.DataFrame, *, hover: list[str], xaxis_title: str, yaxis: dict
) -> go.Figure:
    """Grouped bars of ``table["delta"]`` over column ``x``, one trace per series in its model's colour, with the
    delta's 95% interval (``delta_low`` / ``delta_high``, `plates.analysis.metrics`; an unbounded lower end is
    drawn to −100%), each bar printing its value (a delta of 0 is otherwise an invisible bar; "n/a" where
    undefined); then the published values ``ref`` (columns model, source, task = our x, value) as grey open
    symbols. Ticks have the decimals the values need (`percent_format`)."""
    table = table.assign(accuracy_hover=[
        f"{h}; Δ 95% CI {lo:+.1%} to {hi:+.1%}" if np.isfinite(lo) and np.isfinite(hi) else h
        for h, lo, hi in zip(hover, table["delta_low"].astype(float), table["delta_high"].astype(float))])
    fig = go.Figure()
    colours = model_colours(table[SERIES])
    for series, rows in table.groupby(SERIES, sort=True):
        low = rows["delta_low"].astype(float).clip(lower=-1.0)  # the ratio's interval may be unbounded below
        fig.add_trace(
            go.Bar(
                x=rows[x],
                y=rows["delta"],
                name=str(series),
                marker_color=colours[str(series)],
                error_y=error_bars_between(rows["delta"], low, rows["delta_high"]),
                hovertext=list(rows["accuracy_hover"]),
                text=[f"{d:+.1%}" if np.isfinite(d) else "n/a" for d in rows["delta"].astype(float)],
                textposition="outside",
                cliponaxis=False,
            )
        )
    for i, (name, rows) in by_source_row(ref):
        fig.add_trace(
            go.Scatter(
                x=rows["task"],
                y=rows["value"],
                mode="markers",
                name=name,
                marker=reference_marker(i),
                legendgroup="published",
                hovertext=[f"{name}: {t}" for t in rows.get("paper_task", rows["task"])],
            )
        )
    shown = [*table["delta"], *table["delta_low"], *table["delta_high"], *ref["value"]]
    yaxis = {**yaxis, "tickformat": percent_format(shown, signed=yaxis.get("tickformat", "").startswith("+"))}
    if "range" not in yaxis:
        yaxis["range"] = delta_range([*table["delta"], *table["delta_low"].astype(float).clip(lower=-1.0),
                                      *table["delta_high"], *ref["value"]])
    fig.add_hline(y=0.0, line_color="#444444", line_width=1)
    fig.update_layout(barmode="group", xaxis_title=xaxis_title, yaxis=yaxis, showlegend=True)
    return fig
