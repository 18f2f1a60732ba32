"""Yes/No balance (ColorBlindnessEval Table 1)."""

import common

from plates.analysis import charts

common.chart_page(
    "Yes/No",
    "Y*/N: the question names the correct number (yes is right); Y/N*: it names a wrong one (no is right). "
    "A model that always says no sits top-left; balance on the diagonal indicates recognition "
    "(ColorBlindnessEval §4.1, Table 1).",
    charts.yes_no_figure,
    charts.yes_no_table,
)
