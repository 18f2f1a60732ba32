"""Chart layout that stays legible in a browser window (the dashboard at 1400×900) and on paper: long category
labels wrapped and shortened on the axis with the whole label kept for the hover (`shorten_categories`), and a
figure's height, margins and legend placed from its labels and rows (`fit_height`), so no plot area is squashed
under its tick labels or its legend. `legible` does both; every dashboard chart passes through it.

Sizes are CSS px. Text widths are estimates for plotly's default 12 px sans-serif (about 6.6 px a character):
enough to size margins, not to typeset.
"""

from __future__ import annotations

import textwrap

import plotly.graph_objects as go

#: The most characters one line of a category label shows on an axis.
LABEL_CHARS = 28
#: The most lines a category label is wrapped onto; what is left is cut in the middle ("…"), keeping its end.
LABEL_LINES = 2
#: The smallest plot area (between the margins) a figure is sized for, in CSS px, both ways.
MIN_PLOT_PX = 300
#: The width a dashboard figure gets at a 1400 px window (the page's main column, sidebar open).
PAGE_WIDTH_PX = 800
#: About how wide a character of plotly's 12 px default font is, and how tall a line of text.
CHAR_PX, LINE_PX = 6.6, 16
#: A legend at the right wider than this (its longest name) goes below the plot instead.
RIGHT_LEGEND_PX = 220


def short_label(text: str, chars: int = LABEL_CHARS, lines: int = LABEL_LINES) -> str:
    """``text`` wrapped at spaces and hyphens onto at most ``lines`` lines of at most ``chars`` characters
    (joined by ``<br>``, plotly's line break); what does not fit is cut from the middle of the last line with
    "…", so the label's end (a run's number, a condition) stays. A label holding other HTML is left whole.

    Parameters
    ----------
    text : str
        The whole label.
    chars : int
        Characters per line.
    lines : int
        Lines at most.

    Returns
    -------
    str
        The label as an axis shows it.

    Examples
    --------
    >>> short_label("reader-sizes · cbe-open · original @900px")
    'reader-sizes · cbe-open ·<br>original @900px'
    >>> short_label("my-own-model-under-test-with-a-long-descriptive-run-name · baseline-cnn (2)", 20)
    'my-own-model-under-<br>test-with-…e-cnn (2)'
    """
    text = str(text)
    if len(text) <= chars or ("<" in text.replace("<br>", "")):
        return text
    wrapped = textwrap.wrap(text.replace("<br>", " "), chars, break_on_hyphens=True)
    if len(wrapped) <= lines:
        return "<br>".join(wrapped)
    head = wrapped[:lines - 1]
    rest = text.replace("<br>", " ")[len(" ".join(head)):].strip() if head else text
    keep = chars - 1
    last = rest[: keep - keep // 2].rstrip() + "…" + rest[len(rest) - keep // 2:].lstrip()
    return "<br>".join([*head, last])


def _axis_key(trace, letter: str) -> str:
    """The layout key of a trace's ``letter`` ("x" or "y") axis: "xaxis", "xaxis2", ..."""
    ref = getattr(trace, f"{letter}axis", None) or letter
    return f"{letter}axis{ref[1:]}"


def _categories(fig: go.Figure) -> dict[str, list[str]]:
    """Each cartesian axis key -> the distinct string values its traces place on it, in order of first use."""
    out: dict[str, dict[str, None]] = {}
    for trace in fig.data:
        for letter in "xy":
            values = getattr(trace, letter, None)
            if values is None or not hasattr(trace, f"{letter}axis"):
                continue
            strings = [v for v in values if isinstance(v, str)]
            if strings:
                out.setdefault(_axis_key(trace, letter), {}).update(dict.fromkeys(strings))
    return {k: list(v) for k, v in out.items()}


def shorten_categories(fig: go.Figure, chars: int = LABEL_CHARS, lines: int = LABEL_LINES) -> go.Figure:
    """``fig`` (changed in place and returned) with every long category label on a cartesian axis shown by
    `short_label` (plotly ``tickvals`` / ``ticktext``): the data keep the whole label, so the hover shows it; a
    trace whose hover would not name its category gets it added (``%{x}`` / ``%{y}`` first in its template).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    chars, lines : int
        As `short_label`.

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig``.
    """
    shortened = set()
    for key, values in _categories(fig).items():
        shown = [short_label(v, chars, lines) for v in values]
        if shown == values:
            continue
        fig.layout[key].update(tickmode="array", tickvals=values, ticktext=shown)
        shortened.add(key)
    for trace in fig.data:
        for letter in "xy":
            if not hasattr(trace, f"{letter}axis") or _axis_key(trace, letter) not in shortened:
                continue
            template = trace.hovertemplate
            if template and f"%{{{letter}}}" not in template:
                trace.hovertemplate = f"%{{{letter}}}<br>{template}"
            elif not template and trace.hoverinfo not in (None, "all", "skip", "none") \
                    and letter not in trace.hoverinfo.split("+"):
                trace.hoverinfo = f"{trace.hoverinfo}+{letter}"
    return fig


def legend_rows(fig: go.Figure, width: int) -> int:
    """How many rows a horizontal legend of ``fig``'s named traces takes at ``width`` CSS px (font 11 px: an
    entry is its symbol, 40 px, and about 6.2 px a character), so the figure's foot can hold all of it.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure; each distinct name of its traces shown in the legend is one entry.
    width : int
        The figure's width, CSS px (80 px of it are kept for margins).

    Returns
    -------
    int
        The legend's rows; 0 when no trace is named.
    """
    names = _legend_names(fig)
    rows, used = (1, 0) if names else (0, 0)
    for name in names:
        entry = 40 + int(6.2 * len(name))
        if used and used + entry > width - 80:
            rows, used = rows + 1, 0
        used += entry
    return rows


def _legend_names(fig: go.Figure) -> list[str]:
    return list(dict.fromkeys(str(t.name) for t in fig.data if t.name and t.showlegend is not False))


def _label_lines(labels) -> tuple[int, int]:
    """(longest line in characters, most lines) of labels as shown."""
    split = [str(t).split("<br>") for t in labels] or [[""]]
    return max(len(line) for parts in split for line in parts), max(len(parts) for parts in split)


def _domain(axis) -> float:
    domain = axis.domain or (0, 1)
    return float(domain[1]) - float(domain[0])


def fit_height(fig: go.Figure, width: int = PAGE_WIDTH_PX, min_plot: int = MIN_PLOT_PX, *,
               legend_below: bool | None = None) -> go.Figure:
    """``fig`` (changed in place and returned) sized so its plot area is at least ``min_plot`` px high and each
    category row or tick label has room: a legend whose names would take more than `RIGHT_LEGEND_PX` at the
    right goes below the plot (horizontal, every row counted by `legend_rows`); crowded category tick labels
    on an x axis are turned 30° (90° where even turned they would touch), one line each of at most
    ``LABEL_CHARS * LABEL_LINES`` characters, and the foot is sized for them; a category y axis gets a row height from its
    labels' lines; the height is the largest of the figure's own and what these need (never smaller).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    width : int
        The width the figure is drawn at (CSS px): `PAGE_WIDTH_PX` in the dashboard.
    min_plot : int
        The smallest plot area, CSS px.
    legend_below : bool or None
        True: the legend goes below the plot whatever its names (a file for a paper); None: where its names are
        long.

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig``.
    """
    layout = fig.layout
    names = _legend_names(fig)
    legend_px = 40 + CHAR_PX * max((len(n) for n in names), default=0) if names else 0
    below = bool(names) and layout.showlegend is not False and (legend_below or legend_px > RIGHT_LEGEND_PX)
    plot_width = width - 90 - (0 if below or not names else legend_px)
    categories = _categories(fig)
    foot, rows_px = 0.0, 0.0
    for key, values in categories.items():
        axis = layout[key]
        shown = list(axis.ticktext) if axis.ticktext else values
        longest, lines = _label_lines(shown)
        if key.startswith("x"):
            room = plot_width * _domain(axis) / max(len(values), 1)
            if longest * CHAR_PX + 8 > room:  # plotly would turn them: turn them 30°, one line each (turned
                # lines of a wrapped label run into the next label), and make room below
                if axis.ticktext:  # the same budget of characters as the wrapped label, on one turned line
                    axis.ticktext = [short_label(v, LABEL_CHARS * LABEL_LINES, 1) for v in axis.tickvals]
                longest, lines = _label_lines(axis.ticktext or values)
                upright = room < 2 * LINE_PX  # 30° apart vertically by room / 2: under a line, they would touch
                axis.update(tickangle=-90 if upright else -30)
                block = longest * CHAR_PX * (1.0 if upright else 0.5) + LINE_PX * lines
            else:
                block = LINE_PX * lines
            foot = max(foot, block + (30 if axis.title.text else 10) + 10)
        else:
            bars = max(1, sum(1 for t in fig.data if getattr(t, "orientation", None) == "h"))
            per_row = max(LINE_PX * lines + 8, (14 if bars > 1 else 0) * min(bars, 4))
            rows_px = max(rows_px, per_row * len(values) / max(_domain(axis), 0.1))
    bottom = max(foot, 60.0)
    if below:
        bottom += 24 * legend_rows(fig, width) + 10  # a row of the page's legend: about 24 px
        layout.legend.update(orientation="h", yref="container", yanchor="bottom", y=0.0, xanchor="left", x=0)
    top = float(layout.margin.t) if layout.margin.t is not None else 100.0
    need = int(top + max(min_plot, rows_px) + bottom + 10)
    layout.update(height=max(int(layout.height or 450), need), margin=dict(t=top, b=bottom))
    return fig


def legible(fig: go.Figure, width: int = PAGE_WIDTH_PX) -> go.Figure:
    """`shorten_categories`, then `fit_height`: a copy of ``fig`` ready for a page ``width`` px wide.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        Left unchanged.
    width : int
        CSS px.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    return fit_height(shorten_categories(go.Figure(fig)), width)
