"""The illusion family's dashboard tables and figures: pure DataFrame -> DataFrame / plotly Figure.

Input: results rows (`plates.results.schema.COLUMNS`, every column; the dashboard passes the filtered full rows)
of any family; each function keeps the rows it needs (``family == "illusion"``, with their question facts
expanded: `plates.analysis.illusions.family_rows`). Numbers come from `plates.analysis.illusions` (RCID §4.1 and
IllusionBench+ App. A2 metrics, points of subjective equality by `plates.analysis.pse`); the papers' numbers
from `plates.results.reference.load_reference` (RCID Table 1; IllusionBench+ Tables II and III).

* `rcid_long`: Human-like / No-illusion / N/A (illusion items), control and trap accuracy per model x framing
  x kind x inducer strength, each with a 95% Wilson interval; RCID Table 1's rates beside them (source
  "RCID Table 1"; the paper reports one rate per kind, no strength, no interval).
* `illusionbench_long`: IllusionBench+ true/false and multiple-choice accuracy per model and item class, and
  the true/false yes-bias FP / (FP + FN); Tables II / III beside them. Our item classes map onto the paper's
  columns as: every item -> "All", illusion -> "Classical" (our illusions are the classic kinds, procedurally
  drawn), control -> "No Illusion", trap -> "Trap" (mapping ours; approximate: the paper's images are
  collected, ours drawn). The paper prints no yes-bias per model in a table we transcribe: `MISSING` says so.
* `pse_figure`: the PSE per model x framing x kind x strength (`plates.analysis.illusions.pse_table`, ΔE2000).
  Neither paper measures a PSE (`MISSING`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from plates.analysis.illusions import (
    family_rows,
    illusionbench_mc_table,
    illusionbench_tf_table,
    rcid_table,
)
from plates.analysis.people import PEOPLE_PREFIX, PERSON_PREFIX
from plates.charts.common import add_chance_lines, model_colours
from plates.validation import check_choice

__all__ = [
    "MISSING",
    "illusionbench_figure",
    "illusionbench_long",
    "pse_figure",
    "rcid_figure",
    "rcid_long",
    "reference_rows",
]

#: What the papers' reference tables lack for the illusion page (said on the page, never invented).
MISSING = (
    "RCID Table 1 reports LLaVA-1.5 (7B) and its fine-tuned variant only, one rate per kind (no inducer strength, "
    "no N/A column, no human raters' rates); IllusionBench+'s yes-bias FP/(FP+FN) per model is not in the "
    "transcribed tables; neither paper measures a point of subjective equality, so the PSE chart has no "
    "paper numbers beside it."
)

RCID_METRICS = {"human_like": "Human-like", "no_illusion": "No-illusion", "na": "N/A",
                "control_accuracy": "control accuracy", "trap_accuracy": "trap accuracy"}
#: Our RCID kinds -> RCID Table 1's task names; our framings -> its prompt conditions.
RCID_KINDS = {"rcid-contrast": "Contrast Illusion", "rcid-stripe": "Stripe Illusion",
              "rcid-filter": "Filter Illusion"}
RCID_FRAMINGS = {"pixel": "pixel-based prompt", "human": "human-based prompt"}
_RCID_REF_METRICS = {"human_like_rate": "Human-like", "no_illusion_rate": "No-illusion"}
#: Our item classes -> IllusionBench+ Table II / III column (module docstring).
IB_CLASSES = {"illusion": "Classical", "control": "No Illusion", "trap": "Trap"}
IB_TASKS = {"illusionbench-tf": ("true/false", "True-or-false"), "illusionbench-mc": ("multiple choice",
                                                                                     "Multiple-choice")}
_GREY = "rgba(120,120,120,0.55)"
_PEOPLE_COLOURS = ("#e67e22", "#f0a04b", "#d35400", "#f5b041", "#ba4a00")


def reference_rows(reference: pd.DataFrame | None, source: str) -> pd.DataFrame:
    """The rows of one published table.

    Parameters
    ----------
    reference : pandas.DataFrame or None
        The papers' reference tables; None when hidden.
    source : str
        The table, e.g. "RCID Table 1".

    Returns
    -------
    pandas.DataFrame
        Its rows; empty when hidden or absent.
    """
    if reference is None or "source" not in reference.columns:
        return pd.DataFrame(columns=["source", "model", "task", "condition", "metric", "value"])
    return reference[reference["source"] == source]


def _wide_to_long(table: pd.DataFrame, keys: list[str], metrics: dict[str, str], n_of: dict[str, str]) -> pd.DataFrame:
    parts = []
    for col, label in metrics.items():
        part = table[keys].copy()
        part["metric"], part["value"] = label, table[col].to_numpy(float)
        part["low"], part["high"] = table[f"{col}_low"].to_numpy(float), table[f"{col}_high"].to_numpy(float)
        part["n"] = table[n_of[col]].to_numpy(np.int64)
        parts.append(part[part["n"] > 0])
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=[*keys, "metric", "value"])


def rcid_long(frame: pd.DataFrame, reference: pd.DataFrame | None = None) -> pd.DataFrame:
    """RCID metrics in long form, ours beside the paper's.

    Parameters
    ----------
    frame : pandas.DataFrame
        Result rows of any families (the illusion rows are picked).
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`); None: ours only.

    Returns
    -------
    pandas.DataFrame
        One row per (source, model, framing, kind, strength, metric): ``value`` (a share 0-1), ``low``/``high``
        (95% Wilson; NaN for the paper's rows), ``n`` (answers behind it; NaN for the paper).

    References
    ----------
    RCID (Mao et al. 2025) §4.1, Table 1.
    """
    rows = family_rows(frame, "illusion")
    keys = ["model", "framing", "kind", "strength"]
    columns = ["source", *keys, "metric", "value", "low", "high", "n"]
    if rows.empty or "framing" not in rows.columns:
        ours = pd.DataFrame(columns=columns)
    else:
        rows = rows[rows["task"].astype(object).isin(["rcid-compare", "rcid-name"]) & rows["framing"].notna()]
        table = rcid_table(rows, by=keys) if len(rows) else pd.DataFrame(columns=keys)
        n_of = {"human_like": "illusion_n", "no_illusion": "illusion_n", "na": "illusion_n",
                "control_accuracy": "control_n", "trap_accuracy": "trap_n"}
        ours = _wide_to_long(table, keys, RCID_METRICS, n_of).assign(source="ours") if len(table) else \
            pd.DataFrame(columns=columns)
    ref = reference_rows(reference, "RCID Table 1")
    kinds, framings = {v: k for k, v in RCID_KINDS.items()}, {v: k for k, v in RCID_FRAMINGS.items()}
    paper = pd.DataFrame({
        "source": "RCID Table 1", "model": ref["model"].astype(str).to_numpy(),
        "framing": ref["condition"].map(framings).to_numpy(), "kind": ref["task"].map(kinds).to_numpy(),
        "strength": np.nan, "metric": ref["metric"].map(_RCID_REF_METRICS).to_numpy(),
        "value": ref["value"].to_numpy(float), "low": np.nan, "high": np.nan, "n": np.nan,
    })
    paper = paper.dropna(subset=["framing", "kind", "metric"])
    return pd.concat([ours[columns], paper[columns]], ignore_index=True)


def _label(kind: object, strength: object) -> str:
    return f"{kind} · paper" if pd.isna(strength) else f"{kind} · s={float(strength):g}"


def _colours(names: Sequence[str]) -> dict[str, str]:
    """A colour per name: each model its own (`model_colours`, the same on every page; the palette has no
    oranges); people ("person: …") in oranges, the pooled "people (K participants)" dark orange."""
    names = sorted(set(map(str, names)))
    colours, p = model_colours(n for n in names if not n.startswith((PEOPLE_PREFIX, PERSON_PREFIX))), 0
    for name in names:
        if name.startswith(PEOPLE_PREFIX):  # people in oranges, the pooled fit darkest
            colours[name] = "#a04000"
        elif name.startswith(PERSON_PREFIX):
            colours[name], p = _PEOPLE_COLOURS[p % len(_PEOPLE_COLOURS)], p + 1
    return colours


def _bars(fig: go.Figure, part: pd.DataFrame, name: str, x: pd.Series, *, grey: bool, row: int, col: int,
          legend: bool, colour: str | None = None) -> None:
    err = None
    if not grey and part["low"].notna().any():
        err = dict(type="data", symmetric=False, array=(part["high"] - part["value"]).to_numpy(float),
                   arrayminus=(part["value"] - part["low"]).to_numpy(float))
    fig.add_trace(go.Bar(x=x, y=part["value"], name=name, legendgroup=name, showlegend=legend, error_y=err,
                         marker_color=_GREY if grey else colour, marker_pattern_shape="/" if grey else "",
                         customdata=part[["n"]].to_numpy(), hovertemplate="%{x}: %{y:.3f} (n=%{customdata[0]})"),
                  row=row, col=col)


def rcid_figure(long: pd.DataFrame, metric: str = "Human-like") -> go.Figure:
    """Bars of one RCID ``metric`` per kind · strength, one panel per framing, one bar per model (Wilson 95%
    bars), the paper's rows hatched in grey.

    Parameters
    ----------
    long : pandas.DataFrame
        `rcid_long`'s table.
    metric : str
        One of the `RCID_METRICS` labels.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    allowed = sorted(set(RCID_METRICS.values()))
    check_choice("metric", metric, allowed)
    data = long[long["metric"] == metric]
    framings = [f for f in RCID_FRAMINGS if f in set(data["framing"].dropna())] or ["pixel"]
    fig = make_subplots(rows=1, cols=len(framings), shared_yaxes=True,
                        subplot_titles=[f"“{RCID_FRAMINGS[f].split()[0]}” framing" for f in framings])
    seen: set[str] = set()
    colours = _colours(data.loc[data["source"] == "ours", "model"])
    for c, framing in enumerate(framings, start=1):
        part = data[data["framing"] == framing]
        for (source, model), g in part.groupby(["source", "model"], sort=True):
            name = str(model) if source == "ours" else f"{source}: {model}"
            x = [_label(k, s) for k, s in zip(g["kind"], g["strength"])]
            _bars(fig, g, name, x, grey=source != "ours", row=1, col=c, legend=name not in seen,
                  colour=colours.get(name))
            seen.add(name)
    fig.update_layout(barmode="group", yaxis_title=f"{metric} (share)", height=460, legend_title="model")
    fig.update_yaxes(range=[0, 1.05], tickformat=".0%")
    return fig


def illusionbench_long(frame: pd.DataFrame, reference: pd.DataFrame | None = None) -> pd.DataFrame:
    """IllusionBench+ accuracy in long form, ours beside the paper's.

    Parameters
    ----------
    frame : pandas.DataFrame
        Result rows of any families (the illusion rows are picked).
    reference : pandas.DataFrame or None
        The papers' reference tables (`plates.results.reference`); None: ours only.

    Returns
    -------
    pandas.DataFrame
        ``source, model, task, column, value, low, high, n, yes_bias``: accuracy (0-1, Wilson 95%) per
        (source, model, task, column) and, for true/false, ``yes_bias`` = FP / (FP + FN).

    References
    ----------
    IllusionBench+ (Zhang et al. 2025) App. A2, Tables II / III.
    """
    rows = family_rows(frame, "illusion")
    columns = ["source", "model", "task", "column", "value", "low", "high", "n", "yes_bias"]
    parts = []
    for task, (label, _) in IB_TASKS.items():
        part = rows[rows["task"].astype(object) == task] if len(rows) else rows
        if part.empty:
            continue
        table_of = illusionbench_tf_table if task == "illusionbench-tf" else illusionbench_mc_table
        part = part.assign(column=part["item_class"].map(IB_CLASSES))
        for column, sub in [("All", part), *part.groupby("column", sort=True)]:
            t = table_of(sub, by="model")
            parts.append(pd.DataFrame({
                "source": "ours", "model": t["model"].astype(str), "task": label, "column": column,
                "value": t["accuracy"], "low": t["accuracy_low"], "high": t["accuracy_high"], "n": t["n"],
                "yes_bias": t["fp_ratio"] if "fp_ratio" in t.columns else np.nan}))
    for source, (label, prefix) in zip(("IllusionBench+ Table II", "IllusionBench+ Table III"), IB_TASKS.values()):
        ref = reference_rows(reference, source)
        ref = ref[ref["metric"] == "accuracy"] if len(ref) else ref
        wanted = {f"{prefix}: {c}": c for c in ("All", *IB_CLASSES.values())}
        ref = ref[ref["task"].isin(list(wanted))] if len(ref) else ref
        if len(ref):
            parts.append(pd.DataFrame({"source": source, "model": ref["model"].astype(str), "task": label,
                                       "column": ref["task"].map(wanted), "value": ref["value"].astype(float),
                                       "low": np.nan, "high": np.nan, "n": np.nan, "yes_bias": np.nan}))
    return pd.concat(parts, ignore_index=True)[columns] if parts else pd.DataFrame(columns=columns)


def illusionbench_figure(long: pd.DataFrame, paper_models: Sequence[str] = ("Human", "GPT-4o")) -> go.Figure:
    """Accuracy bars per IllusionBench+ column, one panel per task (true/false, multiple choice), our models
    with Wilson 95% bars and the paper's ``paper_models`` hatched in grey.

    Parameters
    ----------
    long : pandas.DataFrame
        `illusionbench_long`'s table.
    paper_models : sequence of str
        The paper's rows drawn.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    tasks = [label for label, _ in IB_TASKS.values() if label in set(long["task"])] or ["true/false"]
    fig = make_subplots(rows=1, cols=len(tasks), shared_yaxes=True, subplot_titles=tasks)
    seen: set[str] = set()
    colours = _colours(long.loc[long["source"] == "ours", "model"])
    for c, task in enumerate(tasks, start=1):
        part = long[(long["task"] == task) & ((long["source"] == "ours") | long["model"].isin(list(paper_models)))]
        for (source, model), g in part.groupby(["source", "model"], sort=True):
            name = str(model) if source == "ours" else f"paper: {model}"
            _bars(fig, g, name, g["column"], grey=source != "ours", row=1, col=c, legend=name not in seen,
                  colour=colours.get(name))
            seen.add(name)
    for c, task in enumerate(tasks, start=1):  # true/false: 1/2; the 4-option multiple choice: 1/4
        add_chance_lines(fig, {task: 0.25 if "choice" in task else 0.5}, row=1, col=c)
    fig.update_layout(barmode="group", yaxis_title="accuracy", height=420, legend_title="model")
    fig.update_yaxes(range=[0, 1.05], tickformat=".0%")
    return fig


def pse_figure(table: pd.DataFrame) -> go.Figure:
    """PSE (ΔE2000) per kind · strength (rows), one marker per model and framing, with its profile-likelihood
    interval; open intervals are drawn to the edge of the tested range. Fits that did not locate a PSE
    ("below-range", "above-range", "too-few") are left out of the chart (they stay in the table).

    Parameters
    ----------
    table : pandas.DataFrame
        `plates.analysis.illusions.pse_table`'s table.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    fit = table[table["status"] == "fit"] if len(table) else table
    colours = _colours(fit["model"]) if len(fit) else {}
    for (model, framing), g in fit.groupby(["model", "framing"], sort=True, dropna=False):
        y = [_label(k, s) for k, s in zip(g["kind"], g["strength"])]
        pse = g["pse"].to_numpy(float)
        high = np.where(np.isfinite(g["ci_high"].to_numpy(float)), g["ci_high"].to_numpy(float), pse)
        low = np.where(np.isfinite(g["ci_low"].to_numpy(float)), g["ci_low"].to_numpy(float), pse)
        fig.add_trace(go.Scatter(
            x=pse, y=y, mode="markers", name=f"{model} ({framing} framing)", marker_color=colours[str(model)],
            marker_symbol="circle" if framing == "pixel" else "diamond", marker_size=10,
            error_x=dict(type="data", symmetric=False, array=high - pse, arrayminus=pse - low),
            hovertemplate="%{y}: PSE %{x:.2f} ΔE2000"))
    fig.add_vline(x=0.0, line_dash="dot", line_color="grey", annotation_text="no illusion")
    fig.update_layout(xaxis_title="PSE: physical difference in favour of the induced target (ΔE2000)",
                      yaxis_title="kind · inducer strength", height=max(360, 40 * len(fit) + 160),
                      legend_title="model (framing)")
    return fig
