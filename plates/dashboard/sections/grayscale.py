"""Grayscale deltas (ColorBench §3.2 Finding 4, Fig. 5, App. M.2)."""

from plates.dashboard import common

common.chart_page(
    "grayscale",
    "Grayscale",
    "(Acc_ori − Acc_gray) / Acc_ori per model and task over the same items, for one condition (ColorBench "
    "Fig. 5). Positive: the model relies on colour; negative: colour misleads it. Grey: ColorBench Table 9's "
    "ratio for its Color Blindness task (group means of its open models).",
    lambda view: common.condition_control(view, "grayscale_condition", page="grayscale"),
)
