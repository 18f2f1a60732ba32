"""Scenes / ColorBench: per-task accuracy, accuracy against difficulty, robustness, the overall
micro-averaged score, grayscale and chain-of-thought effects, beside ColorBench's Tables 1, 4 and 9.
Numbers: `plates.charts.scenes`."""

import pandas as pd
import streamlit as st

from plates.charts import scenes as sc
from plates.dashboard import common
from plates.dashboard import family_queries as fq


@st.cache_data(show_spinner="Counting rows…", max_entries=8)
def family_rows(key: str, filters, _view) -> fq.ScenePage:
    """The filtered scene rows collapsed by DuckDB, the items asked both ways (grayscale, chain of thought)
    paired by DuckDB, the question parameters and the first one's counts, from one scan (cached per results
    and filters): `plates.dashboard.family_queries.scene_page`."""
    return fq.scene_page(_view.opened.results, _view.where)


@st.cache_data(show_spinner="Counting rows…", max_entries=16)
def param_rows(key: str, filters, param: str, _view) -> pd.DataFrame:
    """The colour rows collapsed per value of one question parameter (`family_queries.scene_param_counts`)."""
    return fq.scene_param_counts(_view.opened.results, _view.where, param)


view = common.current_view()
st.title("Scenes (ColorBench)")
st.caption(
    "ColorBench's tasks on procedural scenes with exact truth: accuracy per task (Wilson 95%), against each "
    "difficulty parameter of the question, robustness (§2.3: a seed counts only if it and all nine recoloured "
    "variants are answered right), the overall score as the paper's micro-average over instances, and the "
    "grayscale effect (Acc_colour − Acc_gray) / Acc_colour. The paper's numbers (hatched grey) come from its "
    "own collected images, not ours."
)
common.page_notes()
page = family_rows(view.opened.key, view.filters, view)
full, effects, params = page.counts, page.effects, page.params
rows = sc.scene_rows(full)
if rows.empty:
    st.info("No scene rows in the loaded results (family “scene” or “scene-recolour”): run a ColorBench "
            "preset, e.g. `plates run --dataset colorbench-synthetic ...`.")
    st.stop()

st.header("Accuracy per task")
reference_models = []
if view.reference is not None:
    paper = sorted(set(view.reference.loc[view.reference["source"] == "ColorBench Table 1", "model"]))
    reference_models = st.multiselect("Paper rows beside ours (ColorBench Table 1)", paper,
                                      default=[m for m in ("Human", "GPT-4o") if m in paper], key="scenes_ref")
tasks = sc.task_long(rows, view.reference)
figure = sc.task_figure(tasks, reference_models, chance=sc.task_chance(full))
common.chart("scene-tasks", figure)
overall = sc.overall_long(rows, view.reference)
st.subheader("Overall (P & R, micro-average over instances)")
st.dataframe(overall[(overall["source"] == "ours") | overall["model"].isin(reference_models)],
             hide_index=True, key="table-scene-overall")

st.header("Accuracy against difficulty")
if params:
    param = st.selectbox("Question parameter", params, key="scenes_param")
    counted = page.first if param == params[0] else param_rows(view.opened.key, view.filters, param, view)
    curve = sc.difficulty_long(counted, param)
    figure = sc.difficulty_figure(curve, param)
    common.chart("scene-difficulty", figure)
    with st.expander("Numbers", expanded=False):
        st.dataframe(curve, hide_index=True)
else:
    st.info("These scene rows carry no question parameters.")

st.header("Robustness")
robust = sc.robustness_long(rows, view.reference)
if (robust["source"] == "ours").any():
    st.dataframe(robust[(robust["source"] == "ours") | robust["model"].isin(reference_models)],
                 hide_index=True, key="table-scene-robustness")
else:
    st.info("No recoloured variants: run the `colorbench-robustness` preset.")

st.header("Grayscale and chain of thought")
gray = sc.grayscale_long(effects, view.reference)
if not (gray["source"] == "ours").any():
    st.info("No grayscale rows: rerun the same quick run with `--grayscale both` (or add `grayscale = [false, "
            "true]` to the experiment's [conditions]).")
st.dataframe(gray, hide_index=True, key="table-scene-grayscale")
cot = sc.cot_long(effects, view.reference)
if not (cot["source"] == "ours").any():
    st.info("No chain-of-thought pairs: ask a colorbench-…-cot prompt beside its plain twin, e.g. `plates run "
            "--dataset colorbench-colour-recognition --prompt colorbench-colour-recognition-cot --model MODEL "
            "--base-url URL --out results/runs/MODEL-cot` after the same run with the plain prompt.")
st.dataframe(cot, hide_index=True, key="table-scene-cot")
