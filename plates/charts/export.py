"""Figures as files for a paper: SVG, PDF and PNG at publication size, through plotly's static export.

plotly's export (kaleido 1, the ``export`` extra) drives a headless Chromium that is already installed: it is
found through the ``BROWSER_PATH`` environment variable (Debian's ``/usr/bin/chromium`` here) or kaleido's own
search; nothing is downloaded. Vector formats (SVG, PDF) keep every mark as drawn; PNG is rendered at
``PNG_SCALE`` times the size (300 dpi at a 7-inch, two-column width).

One Chromium serves every export of a process (kaleido's sync server, started on the first export or by
:func:`warm`): a new browser per file cost 8-10 s an export, a kept one under a second once started.
An exported figure carries no note meant for the page only (`plates.charts.common.without_page_notes`).
"""

from __future__ import annotations

import functools
import warnings

import plotly.graph_objects as go

from plates.charts.common import without_page_notes
from plates.install import extra_hint

#: Export formats -> MIME type.
FORMATS = {"svg": "image/svg+xml", "pdf": "application/pdf", "png": "image/png"}
#: Publication size in CSS px: 7 inches wide at 96 px/inch (a two-column figure), 4.2 inches high by default.
WIDTH_PX, HEIGHT_PX = 672, 403
#: PNG pixels per CSS px: 672 px x 3 = 2016 px, 288 dpi over 7 inches.
PNG_SCALE = 3


#: The smallest plot area of an exported figure (CSS px, between the margins): no squashed plot.
MIN_PLOT_PX = 300


def legend_rows(fig: go.Figure, width: int) -> int:
    """How many rows a horizontal legend of ``fig``'s named traces takes at ``width`` CSS px (font 11 px: an
    entry is its symbol, 40 px, and about 6.2 px a character), so the figure's foot can hold all of it.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure.
    width : int
        Its width, CSS px.

    Returns
    -------
    int
        Legend rows (0 without named traces).
    """
    names = list(dict.fromkeys(str(t.name) for t in fig.data if t.name and t.showlegend is not False))
    rows, used = (1, 0) if names else (0, 0)
    for name in names:
        entry = 40 + int(6.2 * len(name))
        if used and used + entry > width - 80:
            rows, used = rows + 1, 0
        used += entry
    return rows


def publication_figure(fig: go.Figure, *, width: int = WIDTH_PX, height: int | None = None) -> go.Figure:
    """A copy of ``fig`` laid out for a page: fixed width (7 inches), white background, no page-only note, the
    legend below the plot (horizontal, so a long legend wraps instead of being cut off at the right edge), a foot
    that holds every legend row and a plot area of at least `MIN_PLOT_PX` (the height grows to keep both).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        Left unchanged.
    width : int
        Width in px (`WIDTH_PX` by default).
    height : int or None
        Height in px; None: the figure's own or a default; raised where the legend and `MIN_PLOT_PX` need it.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    out = without_page_notes(go.Figure(fig))
    top = max(60, out.layout.margin.t or 0)
    foot = 100 + 18 * legend_rows(out, width)  # tick labels and axis title, then the legend's rows
    tall = max(height or max(HEIGHT_PX, int(fig.layout.height or 0) * width // 1000), top + foot + MIN_PLOT_PX)
    out.update_layout(width=width, height=tall, template="plotly_white", font=dict(size=11),
                      # the legend at the foot of the whole figure, below the axis and its tick labels
                      legend=dict(orientation="h", yref="container", yanchor="bottom", y=0.01, xanchor="left", x=0),
                      margin=dict(l=60, r=20, t=top, b=foot), paper_bgcolor="white")
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
        _server()
        with warnings.catch_warnings():  # plotly warns that kaleido's options go unused with a server
            warnings.simplefilter("ignore", UserWarning)
            return pio.to_image(page, format=fmt, scale=PNG_SCALE if fmt == "png" else 1)
    except (RuntimeError, OSError) as exc:  # kaleido found no browser, or it failed to start
        raise ValueError(f"figure export could not start a Chromium ({type(exc).__name__}: {exc}); set "
                         "BROWSER_PATH to an installed Chromium or Chrome (e.g. /usr/bin/chromium)") from None


@functools.cache
def _server() -> None:
    """Start kaleido's sync server once per process: one headless Chromium for every export after it."""
    import kaleido  # the export extra (checked by the caller)

    kaleido.start_sync_server(silence_warnings=True)


def warm() -> None:
    """Start the export's Chromium now and draw one small figure (a background thread of an app calls this),
    so a visitor's first download does not wait for the browser. ValueError as :func:`figure_bytes`."""
    figure_bytes(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])), "svg")
