"""Resolution ablation (HueManity §5.4, Table 5), against the size sent or the pixels the model saw."""

import streamlit as st

from plates.dashboard import common


def controls(view) -> dict:
    """The x axis (the size sent, per condition; or the pixels seen, rows with a view), and the condition."""
    x = st.radio("x axis", ["size", "seen"], horizontal=True, key="resolution_x",
                 format_func={"size": "size sent (px)", "seen": "pixels the model saw (its view)"}.get)
    if x == "seen":
        return {"x": x}
    return {"x": x, **common.condition_control(view, "resolution_condition", without=("size",), plates=True)}


common.chart_page(
    "resolution",
    "Resolution",
    "Accuracy against the side in pixels of the image the model received, for one condition, Wilson 95% "
    "error bars (HueManity Table 5: GPT-4.1 peaks at 300 px). Grey dashed lines: HueManity Table 5 with its "
    "printed ± — those fit the Wald formula 1.96·√(p(1−p)/n) at n = 100, not the Wilson interval our runs show. "
    "\"Pixels the model saw\": the rows that record a view (`plates run --view FAMILY`), against width × height "
    "of what the family's image processor handed the encoder (docs/model-views.md).",
    controls,
)
