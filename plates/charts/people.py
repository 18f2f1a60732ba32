"""People beside models, as figures: each participant's and each model's ΔE2000 threshold on the plates
(`threshold_figure` of `plates.analysis.people.threshold_table`) and point of subjective equality on the
illusions (`pse_people_figure` of `plates.analysis.people.pse_people_table`); `plates.analysis.people` explains
the fits, the pooled people fit and the papers' human numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from plates.analysis.conditions import SERIES
from plates.analysis.people import PERSON_PREFIX, pooled_label
from plates.charts.common import series_name

__all__ = ["people_band", "pse_people_figure", "threshold_figure"]

_PERSON, _POOLED, _MODEL = "#e67e22", "#a04000", "#1f77b4"
_MODEL_COLOURS = (_MODEL, "#08306b", "#6baed6", "#2ca02c", "#9467bd", "#17becf")  # blues first, never orange


_STATUS_TEXT = {"below-range": "below tested range", "above-range": "above tested range",
                "too-few": "too few levels", "non-monotonic": "non-monotonic: no threshold",
                "at-chance": "at chance: no threshold"}


def threshold_figure(table: pd.DataFrame) -> go.Figure:
    """Each participant's and model's threshold (ΔE2000) with its interval, one row per fit, people in
    orange (the pooled "people (K participants)" fit as a diamond), models in blue, labelled by prompt,
    condition and colour set; fits without a located threshold ("below-range", "above-range",
    "non-monotonic", "at-chance", "too-few") are drawn as an open marker at the edge of the tested range
    (the lower edge for "below-range") with their status beside it. "too-few" fits (fewer than the levels a
    fit needs: a preset with one ΔE2000 per colour set) have no range to draw and are counted in the title,
    listed in the table only.

    Parameters
    ----------
    table : pandas.DataFrame
        `plates.analysis.people.threshold_table`'s table.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    few = int(table["status"].eq("too-few").sum()) if len(table) else 0
    table = table[~table["status"].eq("too-few")] if few else table
    pooled_col = table["pooled"] if "pooled" in table.columns else pd.Series(False, index=table.index)
    for who, colour in (("person", _PERSON), ("model", _MODEL)):
        part = table[table["who"] == who]
        if part.empty:
            continue
        pooled = pooled_col[part.index].astype(bool).to_numpy()
        y = [" · ".join(str(v) for v in key if v) for key in zip(
            part["model"], part["prompt_name"], part.get("condition", pd.Series("", index=part.index)),
            part.get("colour_set", pd.Series("", index=part.index)))]
        thr = part["threshold"].to_numpy(float)
        located = part["status"].eq("fit").to_numpy()
        edge = np.where(part["status"].eq("below-range"), part["x_min"], part["x_max"]).astype(float)
        x = np.where(located, thr, edge)
        hi = np.where(np.isfinite(part["ci_high"].to_numpy(float)), part["ci_high"].to_numpy(float), x)
        lo = np.where(np.isfinite(part["ci_low"].to_numpy(float)), part["ci_low"].to_numpy(float), x)
        hi, lo = np.where(located, hi, x), np.where(located, lo, x)
        symbol = np.where(pooled, "diamond", "circle")
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="markers+text", name="people" if who == "person" else "models",
            marker_color=np.where(pooled, _POOLED, colour).tolist(),
            text=np.where(located, "", part["status"].map(_STATUS_TEXT).fillna(part["status"]).to_numpy(str)),
            textposition="middle left",
            marker_size=np.where(pooled, 14, 11).tolist(),
            marker_symbol=np.where(located, symbol, np.char.add(symbol, "-open")).tolist(),
            error_x=dict(type="data", symmetric=False, array=np.nan_to_num(hi - x), arrayminus=np.nan_to_num(x - lo)),
            customdata=part[["status", "n", "guess_from"]].to_numpy(),
            hovertemplate="%{y}: %{x:.2f} ΔE2000 (%{customdata[0]}, n=%{customdata[1]}, guess %{customdata[2]})"))
    fig.update_layout(xaxis_title="threshold (ΔE2000, halfway between guess rate and ceiling)",
                      height=max(320, 36 * len(table) + 160), legend_title="who", meta={"too_few": few})
    if few:
        fig.update_layout(title=f"<sup>{few} fit(s) with too few ΔE2000 levels to locate a threshold: in the table "
                                "only</sup>")
    return fig


def _kind_label(kind: object, strength: object) -> str:
    return f"{kind} · s={float(strength):g}" if pd.notna(strength) else str(kind)


def pse_people_figure(table: pd.DataFrame) -> go.Figure:
    """PSE (signed ΔE2000) per kind · strength (rows), one trace per participant, pooled people and model
    (x framing), with its profile-likelihood interval (open ends drawn to the fitted value). People: orange
    stars named "person: …"; the pooled fit: a dark-orange diamond "people (K participants)"; models: blue
    circles (pixel framing) or squares (human framing); side by side within each kind · strength row. Fits
    that located no PSE stay in the table only.

    Parameters
    ----------
    table : pandas.DataFrame
        `plates.analysis.people.pse_people_table`'s table.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    fit = table[table["status"] == "fit"] if len(table) else table
    models = sorted(set(fit.loc[fit["who"] == "model", "model"].astype(str))) if len(fit) else []
    for (who, pooled, model, framing), g in fit.groupby(["who", "pooled", "model", "framing"], sort=True,
                                                        dropna=False):
        if who == "person":
            name = f"{model} ({framing} framing)" if pooled else f"{PERSON_PREFIX}{model} ({framing} framing)"
            style = dict(color=_POOLED, symbol="diamond", size=14) if pooled else \
                dict(color=_PERSON, symbol="star", size=12)
        else:
            name = f"{model} ({framing} framing)"
            colour = _MODEL_COLOURS[models.index(str(model)) % len(_MODEL_COLOURS)]
            style = dict(color=colour, symbol="circle" if framing == "pixel" else "square", size=10)
        pse = g["pse"].to_numpy(float)
        high = np.where(np.isfinite(g["ci_high"].to_numpy(float)), g["ci_high"].to_numpy(float), pse)
        low = np.where(np.isfinite(g["ci_low"].to_numpy(float)), g["ci_low"].to_numpy(float), pse)
        fig.add_trace(go.Scatter(
            x=pse, y=[_kind_label(k, s) for k, s in zip(g["kind"], g["strength"])], mode="markers", name=name,
            offsetgroup=name, orientation="h",
            legendgroup=who, legendgrouptitle_text="people" if who == "person" else "models", marker=style,
            error_x=dict(type="data", symmetric=False, array=high - pse, arrayminus=pse - low),
            customdata=g[["n", "magnitude"]].to_numpy(),
            hovertemplate=f"{name}<br>%{{y}}: PSE %{{x:.2f}} ΔE2000 (magnitude %{{customdata[1]:.2f}}, "
                          "n=%{customdata[0]})<extra></extra>"))
    fig.add_vline(x=0.0, line_dash="dot", line_color="grey", annotation_text="no illusion")
    fig.update_layout(xaxis_title="PSE: physical difference in favour of the induced target (ΔE2000)",
                      yaxis_title="kind · inducer strength", height=max(360, 40 * len(fit) + 160),
                      legend_title="who (framing)", scattermode="group", scattergap=0.4)
    return fig


def people_band(fig: go.Figure, people: pd.DataFrame, prompts: list[str], several: bool,
                dashes: tuple[str, ...]) -> None:
    """The quiz's participants on the resolution chart past `plates.analysis.people.PEOPLE_SHOWN` of them (our
    choice of summary): per prompt, the median of
    their accuracies at each size (a line) inside the band from the 25th to the 75th percentile, named
    "people (K participants)": hundreds of lines, one per person, read as none (and cost seconds to draw).
    ``people``: `plates.charts.ishihara.resolution_table` rows of the participants ("person: …" series);
    ``dashes``: the prompts' line styles, in ``prompts`` order.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The resolution chart, changed in place.
    people : pandas.DataFrame
        The participants' resolution rows.
    prompts : list of str
        The prompts shown.
    several : bool
        Whether the chart shows several prompts.
    dashes : tuple of str
        The prompts' line dashes, in order.
    """
    for prompt, rows in people.groupby("prompt_name", sort=True):
        by_size = rows.groupby("size", sort=True)["accuracy"]
        med = by_size.median()
        size, median = med.index.to_numpy(float), med.to_numpy(float)
        low, high = by_size.quantile(0.25).to_numpy(float), by_size.quantile(0.75).to_numpy(float)
        people_at = by_size.size().to_numpy(int)
        name = series_name(pooled_label(int(rows[SERIES].nunique())), prompt, several) + ": median, 25-75%"
        group = f"people-{prompt}"
        fig.add_trace(go.Scatter(x=size, y=high, mode="lines", line=dict(width=0, color=_PEOPLE_ORANGE),
                                 legendgroup=group, showlegend=False, hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=size, y=low, mode="lines", line=dict(width=0, color=_PEOPLE_ORANGE),
                                 fill="tonexty", fillcolor="rgba(230, 126, 34, 0.25)", legendgroup=group,
                                 showlegend=False, hoverinfo="skip"))
        fig.add_trace(go.Scatter(
            x=size, y=median, mode="lines+markers", name=name, legendgroup=group,
            line=dict(color=_PEOPLE_ORANGE, dash=dashes[prompts.index(prompt) % len(dashes)]),
            hovertext=[f"{k} people: median {m:.1%}, 25-75% {lo:.1%}-{hi:.1%}"
                       for k, m, lo, hi in zip(people_at, median, low, high)]))


_PEOPLE_ORANGE = "#d35400"
