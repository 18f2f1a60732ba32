"""Observers: discrimination ellipses on the CIE 1931 xy diagram beside MacAdam's (from `plates ellipses`'
ellipses.parquet tables under the results folder, and people's, fit from their directions-quiz rows), and error
consistency κ between every pair of observers
that answered the same seeded trials, per family. Numbers: `plates.analysis.ellipses`,
`plates.analysis.consistency`; figures: `plates.charts.ellipses`."""

import pandas as pd
import plotly.express as px
import streamlit as st

from plates.analysis.ellipses import MACADAM_FACTOR
from plates.charts.ellipses import ellipse_figure, sensitivity_map
from plates.dashboard import common
from plates.dashboard.observer_queries import kappa_matrix, observer_ellipses

view = common.current_view()
st.title("Observers")
section = st.radio("Section", ["Ellipses", "Error consistency"], horizontal=True, key="observers_section")

if section == "Ellipses":
    st.header("Discrimination ellipses")
    st.caption(
        "From `plates ellipses` runs in the loaded folder (their ellipses.parquet): each observer's threshold "
        "contour around a centre colour, a ≥ b in CIE 1931 xy units, with its 95% interval as a band, beside "
        f"MacAdam's (1942) ellipses × {MACADAM_FACTOR:g} (a just-noticeable difference taken as about three "
        "standard deviations of colour matching: a convention, see docs/ellipses.md). Ellipses are drawn 10× "
        "their size. On an 8-bit display one code step is already comparable to MacAdam's ellipses: a "
        "“quantisation-limited” observer's ellipse is the screen's, not its own. People's ellipses are fit from "
        "their quiz answers (the explorer's “Try it yourself”, directions mode) on their own, uncalibrated "
        "screens (sRGB assumed): they describe that screen as much as the person; the legend gives the "
        "colour-vision type each person reported, if any.")
    ellipses = observer_ellipses(view.opened.results, view.where)
    if ellipses.empty:
        st.info("No ellipses.parquet in the loaded folder and no person's directions quiz: run "
                "`plates ellipses --out DIR` into it.")
    else:
        common.chart("ellipses", ellipse_figure(ellipses))
        model = st.selectbox("Sensitivity map of", sorted(ellipses["model"].astype(str).unique()),
                             key="observers_map_model")
        common.chart("sensitivity", sensitivity_map(ellipses, model))
        st.dataframe(ellipses, hide_index=True, key="table-ellipses")
else:
    st.header("Error consistency (κ)")
    st.caption(
        "Geirhos et al. (2020), “Beyond accuracy”: κ = (c_obs − c_exp) / (1 − c_exp) on the trials both "
        "observers answered (the same stimulus spec, prompt and condition): 0 = no more shared errors than "
        "their accuracies predict, 1 = the same errors. Per family; people's rows count as observers too, named "
        "with the colour-vision type they reported (a person appears only beside an observer who answered the "
        "very same trials: adaptive procedures rarely repeat a stimulus exactly).")
    matrix = kappa_matrix(view.opened.results, view.where)
    if matrix.empty:
        st.info("No two observers answered the same trials in the loaded results.")
    else:
        family = st.selectbox("Family", sorted(matrix["family"].unique()), key="observers_family")
        part = matrix[matrix["family"] == family]
        both = part.rename(columns={"observer_a": "observer_b", "observer_b": "observer_a"})
        square = pd.concat([part, both]).pivot_table(index="observer_a", columns="observer_b", values="kappa")
        common.chart("kappa", px.imshow(square, zmin=-1, zmax=1, color_continuous_scale="RdBu", text_auto=".2f",
                                        title=f"κ per pair of observers, {family}"))
        st.dataframe(part, hide_index=True, key="table-kappa")
