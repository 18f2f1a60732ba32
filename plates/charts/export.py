"""Figures as files for a paper: SVG, PDF and PNG at publication size, through plotly's static export.

plotly's export (kaleido 1, the ``export`` extra) drives a headless Chromium that is already installed: it is
found through the ``BROWSER_PATH`` environment variable (Debian's ``/usr/bin/chromium`` here) or kaleido's own
search; nothing is downloaded. Vector formats (SVG, PDF) keep every mark as drawn; PNG is rendered at
``PNG_SCALE`` times the size (300 dpi at a 7-inch, two-column width).
"""

from __future__ import annotations

import plotly.graph_objects as go

from plates.install import extra_hint

#: Export formats -> MIME type.
FORMATS = {"svg": "image/svg+xml", "pdf": "application/pdf", "png": "image/png"}
#: Publication size in CSS px: 7 inches wide at 96 px/inch (a two-column figure), 4.2 inches high by default.
WIDTH_PX, HEIGHT_PX = 672, 403
#: PNG pixels per CSS px: 672 px x 3 = 2016 px, 288 dpi over 7 inches.
PNG_SCALE = 3


def publication_figure(fig: go.Figure, *, width: int = WIDTH_PX, height: int | None = None) -> go.Figure:
    """A copy of ``fig`` laid out for a page: fixed size, white background, the legend below the plot
    (horizontal, so a long legend wraps instead of being cut off at the right edge), margins that hold it.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        Left unchanged.
    width : int
        Width in px (`WIDTH_PX` by default).
    height : int or None
        Height in px; None: the figure's own or a default.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    out = go.Figure(fig)
    tall = height or max(HEIGHT_PX, int(fig.layout.height or 0) * width // 1000)
    out.update_layout(width=width, height=tall, template="plotly_white", font=dict(size=11),
                      # the legend at the foot of the whole figure, below the axis and its tick labels
                      legend=dict(orientation="h", yref="container", yanchor="bottom", y=0.01, xanchor="left", x=0),
                      margin=dict(l=60, r=20, t=max(60, fig.layout.margin.t or 0), b=120), paper_bgcolor="white")
    return out


def figure_bytes(fig: go.Figure, fmt: str, *, width: int = WIDTH_PX, height: int | None = None) -> bytes:
    """``fig`` as an SVG, PDF or PNG file's bytes at publication size (:func:`publication_figure`).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    fmt : str
        "svg", "pdf" or "png".
    width : int
        Width in px.
    height : int or None
        Height in px.

    Returns
    -------
    bytes

    Raises
    ------
    ValueError
        Another format, or the export cannot run (kaleido missing: the message names the extra to install;
        no Chromium found: set ``BROWSER_PATH``).
    """
    if fmt not in FORMATS:
        raise ValueError(f"figure format {fmt!r} is not known; allowed: {', '.join(FORMATS)}")
    try:
        import kaleido  # noqa: F401 - plotly imports it itself; imported here to name the extra when missing
    except ImportError:
        raise ValueError(f"figure export needs kaleido: {extra_hint('export')}") from None
    import plotly.io as pio

    page = publication_figure(fig, width=width, height=height)
    try:
        return pio.to_image(page, format=fmt, scale=PNG_SCALE if fmt == "png" else 1)
    except (RuntimeError, OSError) as exc:  # kaleido found no browser, or it failed to start
        raise ValueError(f"figure export could not start a Chromium ({type(exc).__name__}: {exc}); set "
                         "BROWSER_PATH to an installed Chromium or Chrome (e.g. /usr/bin/chromium)") from None
