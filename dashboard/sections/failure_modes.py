"""Failure modes among wrong answers (HueManity App. E)."""

import common

from plates.analysis import charts

common.chart_page(
    "Failure modes",
    "Share of each failure mode among a model's wrong answers (HueManity App. E): hallucination "
    "(unrelated or overly complex text), evasion (describes the image or declines), erratic (random or "
    "patterned strings); 'other' is a plain wrong answer.",
    charts.failure_mode_figure,
    charts.failure_mode_table,
)
