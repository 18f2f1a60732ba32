"""Grayscale deltas (ColorBench §4.3, Fig. 5)."""

import common

from plates.analysis import charts

common.chart_page(
    "Grayscale",
    "(Acc_ori − Acc_gray) / Acc_ori per model and task (ColorBench Fig. 5). Positive: the model relies on "
    "colour; negative: colour misleads it (ColorBench finds this for illusion and mimicry).",
    charts.grayscale_figure,
    charts.grayscale_table,
)
