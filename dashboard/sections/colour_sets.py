"""Accuracy per colour set (ColorBlindnessEval §4.2, Fig. 2)."""

import common

from plates.analysis import charts, metrics

common.chart_page(
    "Colour sets",
    "Accuracy per colour set, one bar per model, Wilson 95% error bars (ColorBlindnessEval Fig. 2: models do "
    "best on ColorSet1 and worst on ColorSet3). The papers print per-colour-set accuracy only as that figure, "
    "not a table, so no published numbers appear here; a reference row with a colour_set would show as a grey "
    "open symbol.",
    charts.colour_set_figure,
    lambda frame: metrics.accuracy_table(frame, ["model", "colour_set"]),
)
