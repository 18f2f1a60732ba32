"""Accuracy against ΔE2000: one psychometric fit per model x prompt x condition x colour set."""

import streamlit as st

from plates.dashboard import common, pages


def controls(view) -> dict:
    """Condition and prompt shown (one each: never pooled), the ΔE2000 axis, the bins of the points."""
    present = pages.delta_e_conditions(view)  # the conditions with a ΔE2000 spread to fit first
    options = {"condition": st.selectbox("Condition shown (never pooled)", present, key="delta_e_condition")} \
        if len(present) > 1 else {}
    chosen = options.get("condition") or (present or [None])[0]
    prompts = list(pages.plate_prompts(view, chosen).index) if chosen is not None else []
    if len(prompts) > 1:
        options["prompt"] = st.selectbox("Prompt shown", prompts, key="delta_e_prompt")
    left, right = st.columns(2)
    options["x"] = left.radio(
        "ΔE2000",
        ["delta_e", "delta_e_drawn_median", "view_delta_e_median"],
        key="delta_e_x",
        horizontal=True,
        format_func={
            "delta_e": "nominal (palette, before jitter)",
            "delta_e_drawn_median": "as drawn (median over dot pairs)",
            "view_delta_e_median": "after the model's view (median over pixel pairs)",
        }.get,
    )
    options["bins"] = right.slider("ΔE2000 bins", min_value=2, max_value=20, value=8, key="delta_e_bins")
    return options


common.chart_page(
    "delta_e",
    "ΔE2000 (psychometric)",
    "Accuracy against the CIEDE2000 difference between foreground and background dots (binned, Wilson 95% "
    "bars) for one condition and prompt, with one fitted curve per model and colour set (maximum likelihood "
    "over the answers) and its threshold (dotted; *extrapolated* outside the ΔE2000 tested: a guess of the "
    "fit, not a measurement). The chance rate of the prompt is the dashed line (and in the title). The papers publish no "
    "ΔE sweep.",
    controls,
)
