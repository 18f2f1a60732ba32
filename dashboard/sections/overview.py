"""Overview: models x conditions with accuracy, n and Wilson 95% intervals."""

import common
import streamlit as st

from plates.analysis import charts

view = common.current_view()
st.title("Overview")
st.caption(
    "Accuracy per model (rows) and prompt · condition (columns), with n and the Wilson 95% interval in "
    "each cell; the papers' published accuracies for the same prompts below, in grey."
)
if view.frame.empty:
    st.info("No rows match the filters.")
    st.stop()
table = charts.overview_table(view.frame)
st.plotly_chart(charts.overview_figure(view.frame, view.reference, table=table), key="chart-overview")
st.dataframe(table, hide_index=True)
