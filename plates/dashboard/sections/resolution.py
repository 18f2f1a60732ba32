"""Resolution ablation (HueManity §5.4, Table 5)."""

from plates.dashboard import common

common.chart_page(
    "resolution",
    "Resolution",
    "Accuracy against the side in pixels of the image the model received, for one condition, Wilson 95% "
    "error bars (HueManity Table 5: GPT-4.1 peaks at 300 px). Grey dashed lines: HueManity Table 5 with its "
    "printed ± — those fit the Wald formula 1.96·√(p(1−p)/n) at n = 100, not the Wilson interval our runs show.",
    lambda view: common.condition_control(view, "resolution_condition", without=("size",), plates=True),
)
