"""Illusions: RCID's Human-like / No-illusion / N/A, IllusionBench+ accuracy and yes-bias, and the
point of subjective equality in ΔE2000, beside the papers' numbers. Numbers: `plates.analysis.illusions`, figures: `plates.charts.illusions`."""

import pandas as pd
import streamlit as st

from plates.analysis import illusions as ia
from plates.analysis import people as pa
from plates.charts import illusions as fc
from plates.dashboard import common
from plates.dashboard.family_queries import illusion_counts
from plates.stimuli.illusions.kinds import UNVALIDATED_KINDS, UNVALIDATED_NOTE


@st.cache_data(show_spinner="Counting rows…", max_entries=8)
def family_rows(key: str, filters, shown: tuple[str, ...] | None, _view) -> pd.DataFrame:
    """The filtered illusion rows collapsed by DuckDB, each with its ``weight`` (cached per results, filters
    and people shown): `plates.dashboard.family_queries.illusion_counts`."""
    return illusion_counts(_view.opened.results, _view.where, shown)


@st.cache_data(show_spinner="Fitting…", max_entries=8)
def pse_fits(key: str, filters, shown: tuple[str, ...] | None, _rows: pd.DataFrame) -> pd.DataFrame:
    """`plates.analysis.illusions.pse_table` of the page's rows (cached per results, filters and people shown,
    which are what `family_rows` made ``_rows`` from: a visitor changing the RCID metric does not refit)."""
    return ia.pse_table(_rows)


view = common.current_view()
st.title("Illusions")
st.caption(
    "RCID (§4.1): on illusion items (identical targets) the share of answers that follow the illusion "
    "(Human-like), the pixels (No-illusion) or neither (N/A); accuracy on controls and on traps (targets that "
    "differ), per model, framing, kind and inducer strength, with Wilson 95% intervals. IllusionBench+ "
    "(App. A2): accuracy and the yes-bias FP/(FP+FN). The PSE: the physical difference (ΔE2000) at which "
    "the two targets look equal to the model."
)
shown = common.people_control(view, "illusions_shown")
rows = ia.family_rows(family_rows(view.opened.key, view.filters, shown, view), "illusion")
if rows.empty:
    st.info("No illusion rows in the loaded results (family “illusion”): run an illusion preset, e.g. "
            "`plates run --dataset rcid-contrast --prompt rcid-compare-pixel ...`.")
    st.stop()
unvalidated = "kind" in rows.columns and rows["kind"].astype(object).isin(UNVALIDATED_KINDS).any()
common.page_notes([f"Not in the papers' tables: {fc.MISSING}", *([UNVALIDATED_NOTE] if unvalidated else [])])
if pa.has_people(rows):
    st.caption("Human answers (backend “human”, from the explorer's quiz) are shown as “person: participant-…” "
               "in orange, and all of them together as “people (K participants)”; more on the People page.")
rows = pa.label_people(rows)

st.header("RCID: Human-like, No-illusion, N/A")
metric = st.selectbox("Metric", list(fc.RCID_METRICS.values()), key="illusions_metric")
rcid = fc.rcid_long(rows, view.reference)
if (rcid["source"] == "ours").any():
    figure = fc.rcid_figure(rcid, metric)
    common.chart("rcid", figure)
    with st.expander("Numbers", expanded=False):
        st.dataframe(rcid, hide_index=True, key="table-rcid")
else:
    st.info("No RCID comparison rows (prompts rcid-compare-pixel / rcid-compare-human) in these results: run "
            "`plates run --dataset rcid-contrast --prompt rcid-compare-pixel --model MODEL --base-url URL --out "
            "results/runs/MODEL-rcid` (and again with `--prompt rcid-compare-human`).")

st.header("IllusionBench+: accuracy and yes-bias")
ib = fc.illusionbench_long(rows, view.reference)
if (ib["source"] == "ours").any():
    figure = fc.illusionbench_figure(ib)
    common.chart("illusionbench", figure)
    st.caption("Our item classes map onto the paper's columns as illusion → Classical, control → No Illusion, "
               "trap → Trap (our mapping; the paper's images are collected, ours drawn).")
    with st.expander("Numbers (yes_bias: FP/(FP+FN), true/false only)", expanded=False):
        st.dataframe(ib, hide_index=True, key="table-illusionbench")
else:
    st.info("No IllusionBench+ rows (prompts illusionbench-tf / illusionbench-mc) in these results: run "
            "`plates run --dataset illusions-classic --prompt illusionbench-tf --model MODEL --base-url URL --out "
            "results/runs/MODEL-illusions`.")

st.header("Point of subjective equality (ΔE2000)")
pse = pse_fits(view.opened.key, view.filters, shown, rows)
if len(pse):
    figure = fc.pse_figure(pse)
    common.chart("pse", figure)
    st.caption("x: the physical difference in favour of the target the illusion makes look lighter; a PSE "
               "below 0 means the model is fooled (magnitude = −PSE). Three-way fit (A darker / same / B "
               "darker), profile-likelihood 95% interval; fits that did not locate a PSE are in the table only.")
    st.dataframe(pse, hide_index=True, key="table-pse")
else:
    st.info("No comparison rows with a signed physical difference: run the `illusion-magnitude` preset.")
