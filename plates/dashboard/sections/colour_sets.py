"""Accuracy per colour set (ColorBlindnessEval §4.4, Fig. 2)."""

from plates.dashboard import common

common.chart_page(
    "colour_sets",
    "Colour sets",
    "Accuracy per colour set for one condition, one bar per model (and prompt), Wilson 95% error bars "
    "(ColorBlindnessEval Fig. 2: models do best on ColorSet1 and worst on ColorSet3). The papers print "
    "per-colour-set accuracy only as that figure, not a table.",
    lambda view: common.condition_control(view, "colour_sets_condition", plates=True),
)
