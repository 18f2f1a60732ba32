"""Yes/No balance (ColorBlindnessEval §4.1, Table 1)."""

from plates.dashboard import common

common.chart_page(
    "yes_no",
    "Yes/No",
    "Y*/N: the question names the correct number (yes is right); Y/N*: it names a wrong one (no is right). "
    "A model that always says no sits top-left; balance on the diagonal indicates recognition "
    "(ColorBlindnessEval §4.1, Table 1).",
    lambda view: common.condition_control(view, "yes_no_condition", page="yes_no"),
)
