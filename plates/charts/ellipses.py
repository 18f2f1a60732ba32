"""Discrimination ellipses on the CIE 1931 xy chromaticity diagram: an observer's (`plates ellipses`'s
ellipses.parquet rows: models, simulated observers, people), its 95% interval as a band between the ellipse of
the lower and the upper semi-axes, and MacAdam's (1942) beside it scaled by the stated factor.

Ellipses are drawn magnified about their centres (``magnify``, default 10, as MacAdam's figure and colour-science's
plot draw them): at true size most are under a pixel of the diagram. The title says the magnification.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from plates.analysis.ellipses import MACADAM_FACTOR, macadam_ellipses
from plates.charts.common import model_colour
from plates.colour.spaces import colour_science

__all__ = ["ellipse_figure", "ellipse_xy", "observer_label", "sensitivity_map"]

_STEPS = 73
SRGB_PRIMARIES = ((0.64, 0.33), (0.30, 0.60), (0.15, 0.06))


def ellipse_xy(x: float, y: float, a: float, b: float, theta_deg: float, magnify: float = 1.0) -> np.ndarray:
    """Points (steps, 2) around the ellipse with centre (x, y), semi-axes a, b (xy units) and orientation
    ``theta_deg``, scaled ``magnify`` times about its centre.

    Parameters
    ----------
    x, y : float
        The centre, CIE 1931 xy.
    a, b : float
        The semi-axes, xy units.
    theta_deg : float
        The orientation, degrees.
    magnify : float, optional
        Scale about the centre.

    Returns
    -------
    numpy.ndarray, shape (steps, 2)
        xy points, closed.
    """
    t = np.linspace(0, 2 * np.pi, _STEPS)
    th = np.radians(theta_deg)
    px, py = magnify * a * np.cos(t), magnify * b * np.sin(t)
    return np.stack([x + px * np.cos(th) - py * np.sin(th), y + px * np.sin(th) + py * np.cos(th)], axis=1)


def observer_label(row: dict) -> str:
    """The legend's name for an ellipse row's observer: its ``model``; for a person (backend "human"), also
    the colour-vision type they reported (``colour_vision``: `plates.runs.quiz.COLOUR_VISION`'s keys) or that
    they gave none.

    Parameters
    ----------
    row : dict
        An ellipse row: its ``model``, ``backend`` and, for a person, ``colour_vision`` (str, or None / empty:
        not given).

    Returns
    -------
    str
        The legend name.
    """
    model = str(row.get("model"))
    if row.get("backend") != "human":
        return model
    reported = row.get("colour_vision")
    reported = reported if isinstance(reported, str) and reported else "not given"
    return f"{model} (person; colour vision, self-reported: {reported})"


def _locus() -> np.ndarray:
    cs = colour_science()
    xy = cs.XYZ_to_xy(cs.MSDS_CMFS["CIE 1931 2 Degree Standard Observer"].values)
    return np.vstack([xy, xy[:1]])


def ellipse_figure(ellipses: pd.DataFrame, *, macadam: bool = True, factor: float = MACADAM_FACTOR,
                   magnify: float = 10.0) -> go.Figure:
    """The figure (module docstring). ``ellipses``: rows with ``model`` (named by `observer_label`), ``centre``, ``centre_x``, ``centre_y``,
    ``a``, ``b``, ``theta_deg`` and optionally ``a_low``/``a_high``/``b_low``/``b_high`` (xy units); rows
    without an ellipse (NaN a) are left out and listed in the subtitle. ``macadam``: draw MacAdam's 25
    ellipses times ``factor``.

    Parameters
    ----------
    ellipses : pandas.DataFrame
        Ellipse rows (`plates.runs.ellipses`).
    macadam : bool, optional
        Draw MacAdam's ellipses too.
    factor : float, optional
        MacAdam's ellipses are scaled by it (beside ours).
    magnify : float, optional
        Every ellipse drawn this many times its size.

    Returns
    -------
    plotly.graph_objects.Figure
        On the CIE 1931 xy diagram.

    References
    ----------
    MacAdam (1942), "Visual sensitivities to color differences in daylight", JOSA 32(5):247-274.
    """
    fig = go.Figure()
    locus = _locus()
    fig.add_trace(go.Scatter(x=locus[:, 0], y=locus[:, 1], mode="lines", line=dict(color="#888", width=1),
                             name="spectral locus", hoverinfo="skip"))
    tri = np.array([*SRGB_PRIMARIES, SRGB_PRIMARIES[0]])
    fig.add_trace(go.Scatter(x=tri[:, 0], y=tri[:, 1], mode="lines", line=dict(color="#bbb", width=1, dash="dot"),
                             name="sRGB gamut", hoverinfo="skip"))
    if macadam:
        t = macadam_ellipses()
        for i in range(len(t["x"])):
            pts = ellipse_xy(t["x"][i], t["y"][i], factor * t["a"][i], factor * t["b"][i], t["theta_deg"][i],
                             magnify)
            fig.add_trace(go.Scatter(x=pts[:, 0], y=pts[:, 1], mode="lines", line=dict(color="#444", dash="dash"),
                                     name=f"MacAdam 1942 × {factor:g}", legendgroup="macadam", showlegend=i == 0,
                                     hovertext=str(t["name"][i]), hoverinfo="text"))
    missing = []
    shown_models: set[str] = set()
    for row in ellipses.to_dict("records"):
        model = observer_label(row)
        if not np.isfinite(row.get("a", np.nan)):
            missing.append(f"{model} at {row.get('centre')} ({row.get('status', 'no fit')})")
            continue
        colour = model_colour(model)
        x, y = row["centre_x"], row["centre_y"]
        if all(np.isfinite(row.get(k, np.nan)) for k in ("a_low", "a_high", "b_low", "b_high")):
            outer = ellipse_xy(x, y, row["a_high"], row["b_high"], row["theta_deg"], magnify)
            inner = ellipse_xy(x, y, row["a_low"], row["b_low"], row["theta_deg"], magnify)[::-1]
            band = np.vstack([outer, inner])
            fig.add_trace(go.Scatter(x=band[:, 0], y=band[:, 1], mode="lines", fill="toself", line=dict(width=0),
                                     fillcolor=colour, opacity=0.25, legendgroup=model, showlegend=False,
                                     hoverinfo="skip"))
        pts = ellipse_xy(x, y, row["a"], row["b"], row["theta_deg"], magnify)
        fig.add_trace(go.Scatter(x=pts[:, 0], y=pts[:, 1], mode="lines", line=dict(color=colour, width=2),
                                 name=model, legendgroup=model, showlegend=model not in shown_models,
                                 hovertext=f"{model} at {row.get('centre')}: a {row['a']:.5f}, b {row['b']:.5f}, "
                                           f"θ {row['theta_deg']:.0f}°", hoverinfo="text"))
        shown_models.add(model)
    title = f"Discrimination ellipses, CIE 1931 xy (drawn {magnify:g}× their size)"
    if missing:
        title += "<br><sub>no ellipse: " + "; ".join(missing[:6]) + (" …" if len(missing) > 6 else "") + "</sub>"
    fig.update_layout(title=title, xaxis=dict(title="x", range=[0, 0.8], constrain="domain"),
                      yaxis=dict(title="y", range=[0, 0.9], scaleanchor="x"), template="plotly_white")
    return fig


def sensitivity_map(ellipses: pd.DataFrame, model: str) -> go.Figure:
    """One observer's sensitivity across centres: each centre on the xy diagram, coloured by log₂ of its
    ``area_ratio`` (its ellipse's area / MacAdam's scaled one: 0 = MacAdam × factor, +1 = twice the area, a
    less sensitive observer). Centres without a ratio (not MacAdam's, or no ellipse) are grey and say why.

    Parameters
    ----------
    ellipses : pandas.DataFrame
        Ellipse rows with ``area_ratio``.
    model : str
        The observer shown.

    Returns
    -------
    plotly.graph_objects.Figure
        On the CIE 1931 xy diagram.
    """
    rows = ellipses[ellipses["model"].astype(str) == model] if len(ellipses) else ellipses
    fig = go.Figure()
    locus = _locus()
    fig.add_trace(go.Scatter(x=locus[:, 0], y=locus[:, 1], mode="lines", line=dict(color="#888", width=1),
                             name="spectral locus", hoverinfo="skip"))
    if len(rows):
        ratio = pd.to_numeric(rows.get("area_ratio", pd.Series(np.nan, index=rows.index)), errors="coerce")
        known = ratio.notna() & (ratio > 0)
        log2 = np.log2(ratio[known])
        fig.add_trace(go.Scatter(
            x=rows.loc[known, "centre_x"], y=rows.loc[known, "centre_y"], mode="markers", name="log₂ area ratio",
            marker=dict(size=16, color=log2, colorscale="RdBu_r", cmin=-3, cmax=3, showscale=True,
                        colorbar=dict(title="log₂ area / MacAdam")),
            hovertext=[f"{c}: area ratio {r:.2f}" for c, r in zip(rows.loc[known, "centre"], ratio[known],
                                                                    strict=True)], hoverinfo="text"))
        other = rows[~known]
        fig.add_trace(go.Scatter(x=other["centre_x"], y=other["centre_y"], mode="markers", name="no ratio",
                                 marker=dict(size=10, color="#bbb"),
                                 hovertext=[f"{c}: {s}" for c, s in zip(other["centre"], other.get(
                                     "status", pd.Series("", index=other.index)), strict=True)],
                                 hoverinfo="text"))
    fig.update_layout(title=f"Sensitivity map: {model}", xaxis=dict(title="x", range=[0, 0.8], constrain="domain"),
                      yaxis=dict(title="y", range=[0, 0.9], scaleanchor="x"), template="plotly_white")
    return fig
