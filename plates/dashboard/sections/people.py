"""People beside models: each participant's and each model's ΔE2000 threshold on the plates and point
of subjective equality on the illusions (each with a pooled "people (K participants)" fit), their accuracy per
prompt, and the papers' human numbers, one section at a time (each is its own scan and its own fits: a page of
10 million rows reads only what it shows). Numbers: `plates.analysis.people`, figures: `plates.charts.people`."""

import pandas as pd
import streamlit as st

from plates.analysis import people as pa
from plates.charts import people as pc
from plates.dashboard import common
from plates.dashboard.family_queries import PEOPLE_FAMILIES, has_rows, people_counts

#: The page's sections -> the `people_counts` part each reads.
SECTIONS = {"Thresholds (ΔE2000)": "plates", "Illusions (PSE)": "illusions", "Accuracy beside the papers": "accuracy"}


@st.cache_data(show_spinner="Counting rows…", max_entries=8)
def family_rows(key: str, filters, shown: tuple[str, ...] | None, part: str, _view, everyone: bool = False
                ) -> pd.DataFrame:
    """The people's and the models' rows of one section collapsed by DuckDB (cached per results, filters,
    participants shown and section; ``everyone``: every model's rows, for results with no person yet):
    `plates.dashboard.family_queries.people_counts`."""
    return people_counts(_view.opened.results, _view.where, shown, everyone=everyone, parts=(part,))[part]


view = common.current_view()
st.title("People")
st.caption(
    "Human answers (backend “human”, from the explorer's “Try it yourself” quiz; one anonymous participant "
    "per row label) beside the models. Threshold: the ΔE2000 where a chance-aware psychometric fit is halfway "
    "between the guess rate (from the prompt: yes/no ½, k options 1/k, open answers 1/label-space size) and "
    "the ceiling, with its 95% interval (a posterior under the staircase's priors, never narrower than the "
    "profile likelihood); one fit per participant or model, prompt, viewing "
    "condition and colour set (never pooled across them). A fit whose accuracy falls as ΔE2000 rises "
    "(“non-monotonic”) or that cannot be told from guessing (“at chance”) has no threshold. The papers report "
    "human accuracies, not thresholds."
)
common.page_notes()
# asked of DuckDB first: results without a human row read nothing more
everyone = not has_rows(view.opened.results, view.where, "backend", "human", PEOPLE_FAMILIES)
if everyone:
    st.info("No human rows in the loaded results (backend “human”): answers from the explorer's quiz are "
            "written to the folder in PLATES_HUMAN_RESULTS; load that folder (or upload its parts). Below: the "
            "models' own fits and the papers' human numbers, for when people are added.")
shown = None if everyone else common.people_control(view, "people_shown")
section = st.radio("Section", list(SECTIONS), horizontal=True, key="people_section")
counts = family_rows(view.opened.key, view.filters, shown, SECTIONS[section], view, everyone=everyone)

if section == "Thresholds (ΔE2000)":
    st.header("Thresholds (ΔE2000)")
    table = pa.threshold_table(counts, pooled=True)
    if len(table):
        figure = pc.threshold_figure(table)
        common.chart("people-thresholds", figure)
        st.caption("Orange: people (the diamond: one fit over every participant's answers together, “people (K "
                   "participants)”); blue: models.")
        st.dataframe(table, hide_index=True, key="table-people")
    else:
        st.info("No plate rows with a ΔE2000 level to fit.")
elif section == "Illusions (PSE)":
    st.header("Illusions: point of subjective equality (ΔE2000)")
    pse = pa.pse_people_table(counts)
    if len(pse):
        figure = pc.pse_people_figure(pse)
        common.chart("people-pse", figure)
        st.caption("x: the physical difference (signed ΔE2000) in favour of the target the illusion makes look "
                   "lighter at which the two targets look equal; below 0 the observer is fooled (magnitude = "
                   "−PSE). Three-way fit (A darker / same / B darker), profile-likelihood 95% interval; fits that "
                   "located no PSE are in the table only. Neither paper measures a PSE: no paper numbers beside "
                   "it.")
        st.dataframe(pse, hide_index=True, key="table-people-pse")
    if not (pse["who"] == "person").any():
        st.info("No human illusion rows: the quiz's illusion trials (prompt rcid-compare-human) give each "
                "participant's point of subjective equality here"
                + (", beside the models' above." if len(pse) else "."))
else:
    st.header("Accuracy beside the papers' people")
    st.dataframe(pa.people_accuracy(counts, view.reference, pooled=True), hide_index=True,
                 key="table-people-accuracy")
    st.subheader("The papers' human numbers")
    human = pa.human_reference(view.reference)
    if human.empty:
        st.info("The papers' tables are hidden (sidebar) or hold no human rows.")
    else:
        st.dataframe(human, hide_index=True, key="table-people-reference")
