"""Our cells beside the papers' cells: same model, prompt and condition."""

from plates.dashboard import common

common.chart_page(
    "compare",
    "Ours vs the papers",
    "Each row pairs one of our cells (accuracy, n, Wilson 95% interval) with a published accuracy for the "
    "same model, prompt and condition: the difference (ours − paper) and whether the paper's value lies "
    "inside our interval. Models match by name (case, punctuation, provider prefix and date suffix ignored). Sources: "
    "ColorBlindnessEval Table 1 (§4.1), HueManity Tables 2, 3 and 5 (§5; Table 5's ± fit the Wald formula, "
    "not Wilson), ColorBench Tables 1 and 9 (Color Blindness task; CoT rows for the -cot prompt).",
)
