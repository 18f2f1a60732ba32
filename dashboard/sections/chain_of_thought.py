"""Chain-of-thought effects (ColorBench §4.3, Table 4)."""

import common

from plates.analysis import charts

common.chart_page(
    "Chain of thought",
    "Δ accuracy = Acc_CoT − Acc_plain per model and task, for every prompt run with its `-cot` variant "
    "(ColorBench Table 4: +4.35 points on average over GPT-4o and Gemini-2).",
    charts.cot_figure,
    charts.cot_table,
)
