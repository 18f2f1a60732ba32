"""The papers' own tables as charts (plates.results.reference): their findings, drawn on first start."""

import streamlit as st

from plates.charts import published
from plates.dashboard import common


def controls(view) -> dict:
    """Which published table, and which of its tasks (columns as printed)."""
    reference = view.reference if view.reference is not None else common.reference()
    if reference is None:
        return {}
    source = st.selectbox("Published table", published.sources(reference), key="published_source")
    names = published.tasks(reference, source)
    chosen = st.multiselect("Tasks (columns as printed)", names, default=names[:3], key=f"published_tasks_{source}")
    return {"source": source, "tasks": tuple(chosen)}


common.chart_page(
    "published",
    "Published numbers",
    "The papers' own tables, transcribed cell by cell (`plates reference show`; provenance of every reading in "
    "plates/results/published/src/README.md): ColorBlindnessEval Tables 1-5, HueManity Tables 2, 3 and 5 (with "
    "their printed ±), ColorBench Tables 1, 4 and 9, IllusionBench+ Tables II-III, RCID Table 1. Not measured "
    "here; *Ours vs the papers* puts your runs beside them.",
    controls,
)
