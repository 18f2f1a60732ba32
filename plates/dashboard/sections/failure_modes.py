"""Failure modes among wrong answers (HueManity App. E)."""

from plates.dashboard import common

options = common.chart_page(
    "failure_modes",
    "Failure modes",
    "Share of each failure mode among the wrong answers of each model and prompt, for one condition "
    "(HueManity App. E): hallucination (unrelated or overly complex text), evasion (describes the image or "
    "declines), erratic (random or patterned strings); 'other' is a plain wrong answer.",
    lambda view: common.condition_control(view, "failure_condition", page="failure_modes"),
)
common.reading_panel(options)
