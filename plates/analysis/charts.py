"""Every chart the papers drew, as pure functions: a results DataFrame (the schema of `plates.results`) in, a
plotly Figure out. Numbers come from `plates.analysis.metrics`; a chart only lays them out. Each takes an optional
``reference`` frame (the papers' published numbers, `plates.results.reference.load_reference`) and draws it beside the
user's runs with open grey markers (one symbol per published row), labelled with the source (paper, table).

Accuracies are fractions 0-1 on every axis; intervals are Wilson 95% (HueManity Table 5 reports the same).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from plates.analysis import metrics

#: Name of the derived column that labels a row's viewing condition (see `condition_label`).
CONDITION = "condition"
#: The results columns that make up a condition, in label order.
CONDITION_COLUMNS = ("variant", "grayscale", "hue_shift", "cvd", "cvd_severity", "size")

#: How the papers' numbers are drawn: grey open symbols (never a run's filled colour), one per source row.
REFERENCE_MARKER = dict(symbol="diamond-open", size=11, color="#444444", line=dict(width=2))
REFERENCE_SYMBOLS = ("diamond-open", "square-open", "triangle-up-open", "circle-open", "star-open", "x-open",
                     "pentagon-open", "hexagon-open", "triangle-down-open", "cross-open")


def _ref_marker(i: int) -> dict:
    return {**REFERENCE_MARKER, "symbol": REFERENCE_SYMBOLS[i % len(REFERENCE_SYMBOLS)]}
REFERENCE_COLUMNS = ["source", "model", "task", "condition", "metric", "value", "prompt_name"]
FAILURE_MODES = ("hallucination", "evasion", "erratic", "other")
#: ColorBlindnessEval §3.1: the yes/no prompt naming the correct number (Y*/N) and an incorrect one (Y/N*).
YES_NO_PROMPTS = {"Y*/N": "cbe-yn-correct", "Y/N*": "cbe-yn-incorrect"}


# --------------------------------------------------------------------------------------------- conditions
def condition_label(
    variant=None, grayscale=None, hue_shift=None, cvd=None, cvd_severity=None, size=None
) -> str:
    """A short, stable label for one viewing condition, e.g. ``"original @900px"``,
    ``"clear · gray @300px"``, ``"deutan 0.6 @900px"``. Stable across filters: it can live in a shared
    URL."""
    parts = []
    if isinstance(variant, str) and variant not in ("", "standard"):
        parts.append(variant)
    if _present(grayscale) and bool(grayscale):
        parts.append("gray")
    if _present(hue_shift) and float(hue_shift) != 0.0:
        parts.append(f"hue {float(hue_shift):+g}°")
    if isinstance(cvd, str) and cvd not in ("", "none"):
        severity = float(cvd_severity) if _present(cvd_severity) else 1.0
        parts.append(cvd if severity == 1.0 else f"{cvd} {severity:g}")
    label = " · ".join(parts) or "original"
    return f"{label} @{int(size)}px" if _present(size) else label


def with_condition(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with a ``condition`` column (`condition_label` of each row). Vectorised: one label per
    distinct combination, then mapped, so a million rows take a fraction of a second."""
    out = frame.copy(deep=False)
    columns = [c for c in CONDITION_COLUMNS if c in frame.columns]
    if frame.empty or not columns:
        out[CONDITION] = pd.Series(["original"] * len(frame), index=frame.index, dtype="string")
        return out
    keys = frame[columns]
    per_column = [pd.factorize(keys[c], use_na_sentinel=False) for c in columns]  # (codes, uniques) each
    combined = np.ravel_multi_index([codes for codes, _ in per_column], [len(u) for _, u in per_column])
    _, first, codes = np.unique(combined, return_index=True, return_inverse=True)
    labels = [condition_label(**row) for row in keys.iloc[first].to_dict("records")]
    out[CONDITION] = pd.Series(np.asarray(labels, dtype=object)[codes], index=frame.index, dtype="string")
    return out


def _present(value) -> bool:
    return value is not None and not (isinstance(value, float) and np.isnan(value)) and value is not pd.NA


def _ensure_condition(frame: pd.DataFrame) -> pd.DataFrame:
    return frame if CONDITION in frame.columns else with_condition(frame)


def _observed(column: pd.Series) -> pd.Series:
    """A categorical (dictionary-encoded) column as plain values, so that a cross-table or group-by never
    adds rows for categories no row has; other columns unchanged."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.astype(column.cat.categories.dtype)
    return column


# ------------------------------------------------------------------------------------------------ helpers
def _error_bars(table: pd.DataFrame) -> dict:
    """Asymmetric Wilson error bars (plotly wants distances from the point, not the interval's ends)."""
    return _bars(table["accuracy"], table["ci_low"], table["ci_high"])


def _hover(table: pd.DataFrame) -> list[str]:
    return [
        f"accuracy {a:.1%} (n={int(n)}, 95% CI {lo:.1%}–{hi:.1%})"
        for a, n, lo, hi in zip(table["accuracy"], table["n"], table["ci_low"], table["ci_high"])
    ]


def _answered(table: pd.DataFrame) -> pd.DataFrame:
    """Groups with at least one answer (``n`` > 0); groups of failed requests only have no accuracy."""
    return table[table["n"] > 0]


def _empty(title: str, message: str) -> go.Figure:
    fig = go.Figure()
    fig.add_annotation(text=message, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    fig.update_layout(title=title, xaxis_visible=False, yaxis_visible=False, meta={"empty": message})
    return fig


def relevant_reference(reference: pd.DataFrame | None, frame: pd.DataFrame) -> pd.DataFrame:
    """The reference rows that compare with ``frame``: those whose ``prompt_name`` (our registered prompt the
    paper's column corresponds to) is one ``frame`` ran. Empty when there is no reference."""
    if reference is None or reference.empty or "prompt_name" not in frame.columns:
        return pd.DataFrame(columns=REFERENCE_COLUMNS)
    return reference[reference["prompt_name"].isin(set(frame["prompt_name"].dropna().unique()))]


def _reference(reference: pd.DataFrame | None, metric: str | tuple[str, ...], **equal) -> pd.DataFrame:
    """Reference rows of ``metric`` (one name or several) whose columns equal ``equal``; non-null values."""
    if reference is None or reference.empty:
        return pd.DataFrame(columns=REFERENCE_COLUMNS)
    metrics_wanted = (metric,) if isinstance(metric, str) else metric
    rows = reference[reference["metric"].isin(metrics_wanted) & reference["value"].notna()]
    for column, value in equal.items():
        if column not in rows.columns:
            return rows.iloc[0:0]
        rows = rows[rows[column].isin(value if isinstance(value, (list, tuple)) else [value])]
    return rows


def _ref_name(row) -> str:
    return f"{row['model']} — {row['source']}"


def _by_source_row(ref: pd.DataFrame):
    """(index, "model — source", rows) per published row label, in name order: one trace each."""
    named = ref.assign(name=[_ref_name(r) for _, r in ref.iterrows()])
    return enumerate(named.groupby("name", sort=True))


def _bars(value, low, high) -> dict:
    """Asymmetric error bars from an interval [low, high] around ``value`` (scalars or arrays)."""
    value, low, high = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (value, low, high))
    return dict(type="data", symmetric=False, array=high - value, arrayminus=value - low)


# ------------------------------------------------------------------------------------------------- charts
def _slim(frame: pd.DataFrame, *extra: str) -> pd.DataFrame:
    """The columns the paired metrics read (item keys, task, prompt, verdict) plus ``extra``: the heavy text
    columns (spec_json, reply, prompt_text) are never copied by a group-by."""
    wanted = dict.fromkeys([*metrics.ITEM_KEYS, "task", "prompt_name", "correct", "failure_mode", *extra])
    return frame[[c for c in wanted if c in frame.columns]]


def overview_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Models x (prompt, condition): accuracy, n, errors, Wilson 95% interval (`metrics.accuracy_table`)."""
    return metrics.accuracy_table(_ensure_condition(frame), ["model", "prompt_name", CONDITION])


def overview_figure(frame: pd.DataFrame, reference: pd.DataFrame | None = None, *,
                    table: pd.DataFrame | None = None) -> go.Figure:
    """Heatmap of accuracy, models (rows) x prompt · condition (columns); each cell prints accuracy, n and
    the Wilson 95% interval. The papers' accuracies, when given, sit in a second grey heatmap below, one row
    per model and source (ColorBlindnessEval Table 1, HueManity Table 2, ...). ``table``:
    `overview_table(frame)` when the caller has it already (the dashboard shows both)."""
    title = "Accuracy by model and condition (Wilson 95% CI)"
    table = overview_table(frame) if table is None else table
    if _answered(table).empty:
        return _empty(title, f"no answered rows ({int(table['errors'].sum())} failed requests)")
    table = table.assign(column=table["prompt_name"].astype(str) + " · " + table[CONDITION].astype(str))
    z = table.pivot(index="model", columns="column", values="accuracy")
    text = table.assign(
        text=[f"{a:.0%}<br>n={int(n)}<br>[{lo:.0%}, {hi:.0%}]" if n else f"no answers<br>{int(e)} failed"
              for a, n, lo, hi, e in zip(table["accuracy"], table["n"], table["ci_low"], table["ci_high"],
                                         table["errors"])]
    ).pivot(index="model", columns="column", values="text").reindex_like(z).fillna("")
    ref = _reference(relevant_reference(reference, frame), "accuracy")
    rz = None
    if not ref.empty:
        ref = ref.assign(y=[_ref_name(r) for _, r in ref.iterrows()],
                         x=ref["prompt_name"].astype(str) + " · " + ref["task"].astype(str) + " · "
                         + ref["condition"].astype(str))
        rz = ref.pivot_table(index="y", columns="x", values="value", aggfunc="first")
    from plotly.subplots import make_subplots

    heights = [max(160, 64 * len(z))] + ([22 * len(rz) + 20] if rz is not None else [])  # plot area, px
    gap = 190  # px under the runs' heatmap for its slanted column labels and the second title
    total = sum(heights) + gap * (len(heights) - 1)
    fig = make_subplots(rows=len(heights), cols=1, vertical_spacing=gap / total if len(heights) > 1 else 0.0,
                        row_heights=[h / sum(heights) for h in heights],
                        subplot_titles=["your runs", "published (papers), same prompts"][: len(heights)])
    fig.add_trace(go.Heatmap(
        z=z.to_numpy(float), x=list(z.columns), y=list(z.index), text=text.to_numpy(object),
        texttemplate="%{text}", zmin=0, zmax=1, colorscale="Viridis", name="runs",
        textfont=dict(size=_cell_font_size(z.shape[1])),
        colorbar=dict(title="accuracy", len=heights[0] / total, y=1, yanchor="top"),
        hovertemplate="%{y} · %{x}<br>%{text}<extra></extra>",
    ), row=1, col=1)
    if rz is not None:
        fig.add_trace(go.Heatmap(
            z=rz.to_numpy(float), x=list(rz.columns), y=list(rz.index), zmin=0, zmax=1, colorscale="Greys",
            texttemplate="%{z:.0%}", name="published", showscale=False,
            hovertemplate="%{y}<br>%{x}: %{z:.1%}<extra>published</extra>",
        ), row=2, col=1)
    fig.update_yaxes(autorange="reversed")  # first model on top, in reading order
    fig.update_layout(title=title, height=total + 260, margin=dict(b=200))
    return fig


def _cell_font_size(columns: int) -> int:
    """Font size (px) of the overview's cell text ("[99%, 100%]" is ~70 px wide at 12 px): smaller as the
    columns get narrower, so neighbouring cells' intervals do not run into each other."""
    return 12 if columns <= 5 else 10 if columns <= 8 else 8


def colour_set_figure(frame: pd.DataFrame, reference: pd.DataFrame | None = None) -> go.Figure:
    """Accuracy per colour set, one bar group per model, Wilson 95% error bars (ColorBlindnessEval §4.2,
    Fig. 2).
    Published per-colour-set accuracies are drawn as grey open symbols over the same colour sets."""
    title = "Accuracy per colour set (Wilson 95% CI)"
    table = _answered(metrics.accuracy_table(frame, ["model", "colour_set"]))
    if table.empty:
        return _empty(title, "no scored rows")
    fig = go.Figure()
    for model, rows in table.groupby("model", sort=True):
        rows = rows.sort_values("colour_set")
        fig.add_trace(go.Bar(x=rows["colour_set"], y=rows["accuracy"], name=str(model),
                             error_y=_error_bars(rows),
                             hovertext=_hover(rows), customdata=rows["n"]))
    sets = list(table["colour_set"].unique())
    ref = _reference(relevant_reference(reference, frame), "accuracy", colour_set=sets)
    for i, (name, rows) in _by_source_row(ref):
        fig.add_trace(go.Scatter(x=rows["colour_set"], y=rows["value"], mode="markers", name=name,
                                 marker=_ref_marker(i), legendgroup="published"))
    fig.update_layout(title=title, barmode="group", xaxis_title="colour set", showlegend=True,
                      yaxis=dict(title="accuracy", range=[0, 1.05], tickformat=".0%"))
    return fig


def resolution_figure(frame: pd.DataFrame, reference: pd.DataFrame | None = None) -> go.Figure:
    """Accuracy against the side in pixels of the image the model received, one line per model, Wilson 95%
    error bars (HueManity §5.4, Table 5). Published points (grey dashed, open symbols) carry
    the printed ± (HueManity's Wilson half-width), or a Wilson interval from n when only n is given."""
    title = "Resolution ablation: accuracy vs plate size (Wilson 95% CI)"
    table = _answered(metrics.accuracy_table(frame[frame["size"].notna()], ["model", "size"]))
    if table.empty:
        return _empty(title, "no scored rows with a size")
    fig = go.Figure()
    for model, rows in table.groupby("model", sort=True):
        rows = rows.sort_values("size")
        fig.add_trace(go.Scatter(x=rows["size"], y=rows["accuracy"], mode="lines+markers", name=str(model),
                                 error_y=_error_bars(rows), hovertext=_hover(rows)))
    ref = _reference(relevant_reference(reference, frame), "accuracy")
    if "size" in ref.columns:  # only an ablation over sizes, not a table's one size
        ref = ref[ref["size"].notna()]
        sweeps = ref.groupby("source")["size"].nunique()
        ref = ref[ref["source"].isin(sweeps[sweeps >= 2].index)]
    else:
        ref = ref.iloc[0:0]
    for i, (name, rows) in _by_source_row(ref):
        rows = rows.sort_values("size")
        error = None
        if "ci_half_width" in rows.columns and rows["ci_half_width"].notna().all():  # the printed ± (Wilson)
            error = dict(type="data", symmetric=True, array=rows["ci_half_width"].to_numpy(float))
        elif rows["n"].notna().all():
            n = rows["n"].to_numpy(float)
            k = np.round(rows["value"].to_numpy(float) * n)
            error = _bars(rows["value"], *metrics.wilson_intervals(k, n))
        fig.add_trace(go.Scatter(x=rows["size"], y=rows["value"], mode="lines+markers", name=name,
                                 marker=_ref_marker(i), line=dict(dash="dash", color="#444444"),
                                 error_y=error, legendgroup="published"))
    fig.update_layout(title=title, xaxis_title="image side (px)", showlegend=True,
                      yaxis=dict(title="accuracy", range=[0, 1.05], tickformat=".0%"))
    return fig


def failure_mode_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model: how many answered rows were wrong, and the share of each failure mode among them
    (HueManity App. E: hallucination, evasion, erratic; "other" = wrong with no mode). Failed requests
    (correct null) are left out."""
    frame = frame[["model", "correct", "failure_mode"]]
    wrong = frame[(frame["correct"] == False).fillna(False).astype(bool)]  # noqa: E712 (null stays out)
    modes = wrong["failure_mode"].astype("string").fillna("other")
    counts = pd.crosstab(_observed(wrong["model"]), modes).reindex(columns=list(FAILURE_MODES), fill_value=0)
    counts.columns.name = None
    wrong_n = counts.sum(axis=1)
    shares = counts.div(wrong_n.where(wrong_n > 0), axis=0).fillna(0.0)
    return shares.assign(wrong=wrong_n).reset_index()


def failure_mode_figure(frame: pd.DataFrame, reference: pd.DataFrame | None = None) -> go.Figure:
    """Stacked shares of failure modes among each model's wrong answers (HueManity App. E). HueManity
    describes the modes qualitatively and publishes no shares, so ``reference`` adds nothing here; it is
    accepted so every chart has the same call."""
    title = "Failure modes among wrong answers (HueManity App. E)"
    table = failure_mode_table(frame)
    if table.empty:
        return _empty(title, "no wrong answers")
    fig = go.Figure()
    for mode in FAILURE_MODES:
        fig.add_trace(go.Bar(x=table["model"], y=table[mode], name=mode,
                             hovertext=[f"{mode}: {s:.1%} of {int(n)} wrong"
                                        for s, n in zip(table[mode], table["wrong"])]))
    fig.update_layout(title=title, barmode="stack",
                      yaxis=dict(title="share of wrong answers", tickformat=".0%"))
    return fig


def grayscale_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model and task: `metrics.grayscale_delta` — accuracy on original and grayscale images (paired by
    item and condition) and delta = (Acc_ori − Acc_gray) / Acc_ori (ColorBench §3, Fig. 5). Positive: the
    model needs colour; negative: colour misleads it; NaN when Acc_ori is 0."""
    return metrics.grayscale_delta(_slim(frame), ["model", "task"])


def reference_grayscale(reference: pd.DataFrame) -> pd.DataFrame:
    """(Acc_ori − Acc_gray) / Acc_ori from published accuracies: rows of the same source, model and task
    with condition "standard" and "grayscale" (ColorBench Table 9); columns source, model, task, value."""
    acc = _reference(reference, "accuracy", condition=["standard", "grayscale"])
    if acc.empty:
        return pd.DataFrame(columns=["source", "model", "task", "value"])
    wide = acc.pivot_table(index=["source", "model", "task"], columns="condition", values="value",
                           aggfunc="first")
    if not {"standard", "grayscale"} <= set(wide.columns):
        return pd.DataFrame(columns=["source", "model", "task", "value"])
    wide = wide.dropna(subset=["standard", "grayscale"])
    value = (wide["standard"] - wide["grayscale"]) / wide["standard"].where(wide["standard"] > 0)
    return value.rename("value").reset_index()


def grayscale_figure(frame: pd.DataFrame, reference: pd.DataFrame | None = None) -> go.Figure:
    """Grouped bars of (Acc_ori − Acc_gray) / Acc_ori per task, one bar per model (ColorBench Fig. 5 draws
    the same ratio as a violin over models). Published ratios, computed from ColorBench Table 9's RGB and
    grayscale accuracies, as grey open symbols over the paper's tasks."""
    title = "Grayscale: (Acc_ori − Acc_gray) / Acc_ori"
    table = grayscale_table(frame)
    table = table[table["pairs"] > 0]
    if table.empty:
        return _empty(title, "needs the same items answered both in colour and in grayscale")
    ref = reference_grayscale(relevant_reference(reference, frame))
    return _delta_bars(title, table, "task", ref, hover=[
        f"ori {o:.1%} → gray {g:.1%} ({int(p)} paired items)"
        for o, g, p in zip(table["acc_ori"], table["acc_gray"], table["pairs"])],
        xaxis_title="task", yaxis=dict(title="accuracy changing ratio (+: needs colour)", tickformat=".0%"))


def cot_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model and prompt pair: `metrics.cot_delta` — accuracy without and with chain-of-thought (paired
    by item and condition) and delta = Acc_CoT − Acc_plain (ColorBench §4.3, Table 4)."""
    return metrics.cot_delta(_slim(frame), ["model"])


def cot_figure(frame: pd.DataFrame, reference: pd.DataFrame | None = None) -> go.Figure:
    """Δ accuracy from chain-of-thought prompting per model and task (prompt) (ColorBench Table 4: +4.35
    points on average). Published deltas (ColorBench Table 4, fractions) as grey open symbols over the
    paper's tasks."""
    title = "Chain of thought: Δ accuracy (CoT − plain)"
    table = cot_table(frame)
    table = table[table["pairs"] > 0]
    if table.empty:
        return _empty(title, "needs the same items answered with a prompt and its chain-of-thought variant "
                             "(colorbench-mc and colorbench-mc-cot) by a vision-language model<br>"
                             "(the offline baseline reader declines multiple-choice prompts)")
    ref = _reference(reference, "delta", condition="cot", prompt_name=list(table["cot_prompt"].unique()))
    return _delta_bars(title, table, "prompt", ref, hover=[
        f"plain {p:.1%} → CoT {c:.1%} ({int(n)} paired items)"
        for p, c, n in zip(table["acc_plain"], table["acc_cot"], table["pairs"])],
        xaxis_title="task (prompt)", yaxis=dict(title="Δ accuracy", tickformat="+.0%"))


def _delta_bars(title: str, table: pd.DataFrame, x: str, ref: pd.DataFrame, *, hover: list[str],
                xaxis_title: str, yaxis: dict) -> go.Figure:
    """The shape the grayscale and chain-of-thought charts share: grouped bars of ``table["delta"]`` over
    column ``x``, one trace per model, each bar printing its value (a delta of 0 is otherwise an invisible
    bar; "n/a" where the delta is undefined), with ``hover`` (one line per row of ``table``); then the
    published values ``ref`` (columns model, source, task, value) as grey open symbols over the paper's
    tasks."""
    table = table.assign(_hover=hover)
    fig = go.Figure()
    for model, rows in table.groupby("model", sort=True):
        fig.add_trace(go.Bar(x=rows[x], y=rows["delta"], name=str(model), hovertext=list(rows["_hover"]),
                             text=[f"{d:+.1%}" if np.isfinite(d) else "n/a"
                                   for d in rows["delta"].astype(float)],
                             textposition="outside", cliponaxis=False))
    for i, (name, rows) in _by_source_row(ref):
        fig.add_trace(go.Scatter(x=rows["task"], y=rows["value"], mode="markers", name=name,
                                 marker=_ref_marker(i), legendgroup="published"))
    fig.update_layout(title=title, barmode="group", xaxis_title=xaxis_title, yaxis=yaxis, showlegend=True)
    return fig


def yes_no_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model: `metrics.yes_no_balance` (Y*/N = ``y_star_n``: the question names the correct number, "yes"
    is right; Y/N* = ``y_n_star``: a wrong number, "no" is right; ColorBlindnessEval Table 1) plus Wilson 95%
    bounds of both accuracies (``y_star_n_low`` ... ``y_n_star_high``)."""
    table = metrics.yes_no_balance(_slim(frame), "model")
    for acc, n in (("y_star_n", "n_y_star"), ("y_n_star", "n_n_star")):
        trials = table[n].to_numpy(float)
        k = np.round(np.nan_to_num(table[acc].to_numpy(float)) * trials)  # no answers: n = 0, NaN bounds
        table[f"{acc}_low"], table[f"{acc}_high"] = metrics.wilson_intervals(k, trials)
    return table


def yes_no_figure(frame: pd.DataFrame, reference: pd.DataFrame | None = None) -> go.Figure:
    """Each model as a point at (Y*/N accuracy, Y/N* accuracy) with Wilson 95% bars on both axes; the dotted
    diagonal is balance (ColorBlindnessEval §4.1, Table 1: models that say "no" to everything sit top-left).
    Published points (Tables 1 and 3) as grey open symbols."""
    title = "Yes/No balance: Y*/N vs Y/N* (ColorBlindnessEval Table 1)"
    table = yes_no_table(frame)
    table = table[(table["n_y_star"] > 0) & (table["n_n_star"] > 0)]
    if table.empty:
        return _empty(title, "needs answered rows of both prompts cbe-yn-correct and cbe-yn-incorrect from a "
                             "vision-language model<br>(the offline baseline reader declines yes/no questions)")
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", line=dict(dash="dot", color="#999999"),
                             name="balance", hoverinfo="skip"))
    for _, row in table.iterrows():
        x, y = row["y_star_n"], row["y_n_star"]
        fig.add_trace(go.Scatter(
            x=[x], y=[y], mode="markers+text", text=[row["model"]], textposition="top center",
            name=str(row["model"]), marker=dict(size=12),
            error_x=_bars(x, row["y_star_n_low"], row["y_star_n_high"]),
            error_y=_bars(y, row["y_n_star_low"], row["y_n_star_high"]),
            hovertext=f"Y*/N {x:.1%} (n={int(row['n_y_star'])}), Y/N* {y:.1%} (n={int(row['n_n_star'])}), "
                      f"lean: {row['lean']}",
        ))
    ref = _reference(reference, "accuracy", prompt_name=list(YES_NO_PROMPTS.values()))
    if not ref.empty:
        pivot = ref.pivot_table(index=["model", "source", "condition"], columns="prompt_name", values="value",
                                aggfunc="first")
        if set(YES_NO_PROMPTS.values()) <= set(pivot.columns):
            pivot = pivot.dropna(subset=list(YES_NO_PROMPTS.values()))
            fig.add_trace(go.Scatter(
                x=pivot[YES_NO_PROMPTS["Y*/N"]], y=pivot[YES_NO_PROMPTS["Y/N*"]], mode="markers",
                marker=REFERENCE_MARKER, name="published (ColorBlindnessEval)", legendgroup="published",
                hovertext=[f"{m} — {s} ({c})" for m, s, c in pivot.index],
            ))
    fig.update_layout(title=title, xaxis=dict(title="Y*/N accuracy (says yes to the right number)",
                                              range=[-0.02, 1.02], tickformat=".0%"),
                      yaxis=dict(title="Y/N* accuracy (says no to a wrong number)", range=[-0.02, 1.02],
                                 tickformat=".0%"))
    return fig


def delta_e_table(frame: pd.DataFrame, bins: int = 8) -> pd.DataFrame:
    """Accuracy with Wilson 95% bounds per model and ΔE2000 bin (CIEDE2000 between foreground and background,
    CIELAB). Bins are equal-width over the observed range, or one per value when there are at most ``bins``
    distinct values; ``delta_e`` is the mean ΔE2000 of the bin's rows."""
    if bins < 1:
        raise ValueError(f"bins={bins}: need at least 1 bin")
    rows = _slim(frame, "delta_e")
    rows = rows[rows["delta_e"].notna() & rows["correct"].notna()]
    values = rows["delta_e"].astype(float)
    if values.nunique() <= bins:
        bin_id = values.rank(method="dense").astype(int)
    else:
        bin_id = pd.cut(values, bins=bins, labels=False, include_lowest=True)
    rows = rows.assign(bin=bin_id)
    table = metrics.accuracy_table(rows, ["model", "bin"])
    centres = rows.groupby(["model", "bin"], observed=True)["delta_e"].mean().rename("delta_e").reset_index()
    return table.merge(centres, on=["model", "bin"]).sort_values(["model", "delta_e"]).reset_index(drop=True)


def psychometric_fits(frame: pd.DataFrame) -> dict[str, metrics.PsychometricFit]:
    """Model -> `metrics.fit_psychometric` of correctness against ΔE2000 (answered rows with a ΔE only)."""
    rows = frame[["model", "delta_e", "correct"]]
    rows = rows[rows["delta_e"].notna() & rows["correct"].notna()]
    return {
        str(model): metrics.fit_psychometric(part["delta_e"].to_numpy(float), part["correct"].to_numpy(bool))
        for model, part in rows.groupby("model", sort=True, observed=True)
    }


def delta_e_figure(frame: pd.DataFrame, reference: pd.DataFrame | None = None, bins: int = 8) -> go.Figure:
    """Accuracy against ΔE2000 (binned, Wilson 95% bars) with each model's fitted logistic psychometric curve
    and a dotted line at its 50% threshold (the ΔE2000 at which the fit crosses 0.5). The papers publish no
    ΔE sweep (their colour sets are fixed pairs), so ``reference`` adds nothing here; it is accepted so every
    chart has the same call."""
    title = "Accuracy vs ΔE2000 with psychometric fits (50% threshold)"
    table = _answered(delta_e_table(frame, bins))
    if table.empty:
        return _empty(title, "no answered rows with a ΔE2000")
    fig = go.Figure()
    colours = iter(_palette())
    fits = psychometric_fits(frame)
    for model, rows in table.groupby("model", sort=True):
        colour = next(colours)
        fig.add_trace(go.Scatter(x=rows["delta_e"], y=rows["accuracy"], mode="markers", name=f"{model}",
                                 marker=dict(color=colour, size=9), error_y=_error_bars(rows),
                                 hovertext=_hover(rows), legendgroup=str(model)))
        fit = fits.get(str(model))
        if fit is None:
            continue
        xs = np.linspace(0.0, max(float(frame["delta_e"].max()), 1.0) * 1.05, 200)
        fig.add_trace(go.Scatter(x=xs, y=fit.predict(xs), mode="lines", line=dict(color=colour),
                                 name=f"{model} fit", legendgroup=str(model), showlegend=False))
        threshold = fit.threshold
        if threshold is not None and np.isfinite(threshold):
            seen = frame.loc[frame["model"] == model, "delta_e"].astype(float)
            outside = not seen.min() <= threshold <= seen.max()  # the fit's guess, not a measurement
            fig.add_trace(go.Scatter(x=[threshold, threshold], y=[0, 1], mode="lines", legendgroup=str(model),
                                     line=dict(color=colour, dash="dot"),
                                     name=f"{model} 50% at ΔE {threshold:.1f}"
                                          + (" (extrapolated)" if outside else "")))
    fig.update_layout(title=title, xaxis_title="ΔE2000 foreground vs background (CIELAB)",
                      yaxis=dict(title="accuracy", range=[-0.02, 1.05], tickformat=".0%"))
    return fig


def _palette() -> list[str]:
    import plotly.colors

    return list(plotly.colors.qualitative.Plotly) * 10
