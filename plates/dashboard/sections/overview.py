"""Overview: series (model, or model · run) x prompt · condition, accuracy, n and Wilson 95% intervals; the
papers' values in the cells they match."""

import streamlit as st

from plates.dashboard import common, pages


def controls(view) -> dict:
    """Which stimulus family's prompts are the columns (one family at a time keeps the cells readable)."""
    present = pages.overview_families(view)
    if len(present) <= 1:
        return {}
    return {"family": st.radio("Stimuli", present, horizontal=True, key="overview_family")}


options = common.chart_page(
    "overview",
    "Overview",
    "Accuracy per model (rows; a model answered in several runs gets a row per run, never one pooled cell) "
    "and prompt · condition (columns), with n and the Wilson 95% interval in each cell. Where a paper "
    "published the same model, prompt and condition, its value is printed in the cell (details: *Ours vs the papers*).",
    controls,
)
common.reading_panel(options)
