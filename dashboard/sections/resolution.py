"""Resolution ablation (HueManity §5.4, Table 5)."""

import common

from plates.analysis import charts, metrics

common.chart_page(
    "Resolution",
    "Accuracy against the side in pixels of the image the model received, Wilson 95% error bars (HueManity "
    "Table 5: GPT-4.1 peaks at 300 px, the 'squinting effect'). Grey dashed lines: HueManity Table 5, "
    "shown when you ran its prompts (huemanity-numeric, huemanity-alnum).",
    charts.resolution_figure,
    lambda frame: metrics.accuracy_table(frame[frame["size"].notna()], ["model", "size"]),
)
