"""Accuracy against ΔE2000 with a fitted psychometric curve per model."""

import common
import streamlit as st

from plates.analysis import charts

common.chart_page(
    "ΔE2000 (psychometric)",
    "Accuracy against the CIEDE2000 difference between foreground and background dots (binned, Wilson 95% "
    "bars), a logistic fit per model (maximum likelihood over the unbinned answers) and its 50% threshold "
    "(dotted; marked *extrapolated* when it lies outside the ΔE the run tested: a guess of the fit, not a "
    "measurement). The papers publish no ΔE sweep: their colour sets are fixed pairs.",
    charts.delta_e_figure,
    charts.delta_e_table,
    controls=lambda: {
        "bins": st.slider("ΔE2000 bins", min_value=2, max_value=20, value=8, key="delta_e_bins")
    },
)
