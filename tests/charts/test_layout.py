"""Chart layout for legibility (plates/charts/layout.py): labels shortened with the whole text kept for the hover,
heights and legends sized from labels and rows. The sizes in a real browser: tests/dashboard/test_legible_browser.py."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from plates.charts.layout import (
    LABEL_CHARS,
    LABEL_LINES,
    MIN_PLOT_PX,
    fit_height,
    legible,
    short_label,
    shorten_categories,
)

LONG = "my-own-model-under-test-with-a-long-descriptive-run-name · huemanity-numeric · original @512px"


def test_a_short_label_is_left_alone_and_a_long_one_fits_its_lines_keeping_its_end():
    assert short_label("baseline-cbe") == "baseline-cbe"
    shown = short_label(LONG)
    lines = shown.split("<br>")
    assert len(lines) <= LABEL_LINES and all(len(line) <= LABEL_CHARS for line in lines)
    assert lines[0] == LONG[: len(lines[0])] and shown.endswith("@512px") and "…" in lines[-1]
    assert short_label("a <b>bold</b> label that is long enough to shorten, but it holds HTML") == (
        "a <b>bold</b> label that is long enough to shorten, but it holds HTML")  # never cut inside a tag


def test_long_categories_are_shortened_on_the_axis_and_whole_in_the_data_and_hover():
    fig = go.Figure([go.Bar(x=[LONG, "short"], y=[0.5, 0.7], hovertemplate="%{y:.0%}"),
                     go.Bar(x=[LONG, "short"], y=[0.2, 0.1], hoverinfo="text", hovertext=["a", "b"])])
    shorten_categories(fig)
    assert list(fig.layout.xaxis.tickvals) == [LONG, "short"]
    assert list(fig.layout.xaxis.ticktext) == [short_label(LONG), "short"]
    assert list(fig.data[0].x) == [LONG, "short"]  # the data keep the whole label
    assert fig.data[0].hovertemplate == "%{x}<br>%{y:.0%}"  # the hover names it
    assert fig.data[1].hoverinfo == "text+x"
    untouched = shorten_categories(go.Figure(go.Bar(x=["a", "b"], y=[1, 2])))
    assert untouched.layout.xaxis.tickvals is None


def test_each_subplot_axis_is_shortened_apart():
    fig = make_subplots(rows=1, cols=2)
    fig.add_trace(go.Bar(x=["short"], y=[1]), row=1, col=1)
    fig.add_trace(go.Bar(y=[LONG], x=[1], orientation="h"), row=1, col=2)
    shorten_categories(fig)
    assert fig.layout.xaxis.tickvals is None and fig.layout.yaxis2.ticktext == (short_label(LONG),)


def test_fit_height_gives_the_plot_room_under_turned_labels_and_a_long_legend():
    names = [f"{LONG} ({i})" for i in range(12)]
    fig = go.Figure([go.Bar(x=names, y=[0.5] * 12, name=n) for n in names])
    fig.update_layout(margin=dict(t=120))
    fit_height(shorten_categories(fig))
    margin = fig.layout.margin
    assert fig.layout.xaxis.tickangle == -30  # twelve two-line labels do not fit side by side
    assert fig.layout.height - margin.t - margin.b >= MIN_PLOT_PX
    assert fig.layout.legend.orientation == "h" and margin.b > 200  # the legend's rows below, counted
    small = fit_height(go.Figure(go.Bar(x=["a", "b"], y=[1, 2])))
    assert small.layout.xaxis.tickangle is None and small.layout.legend.orientation is None  # nothing to turn
    assert small.layout.height - small.layout.margin.t - small.layout.margin.b >= MIN_PLOT_PX
    assert fit_height(go.Figure(layout=dict(height=900))).layout.height == 900  # never smaller than its own


def test_many_category_rows_make_a_tall_figure_and_legible_copies():
    rows = [f"row {i}" for i in range(40)]
    fig = go.Figure(go.Bar(y=rows, x=list(range(40)), orientation="h"))
    out = legible(fig)
    assert out.layout.height >= 40 * 20 and fig.layout.height is None  # a copy; the figure given is unchanged
