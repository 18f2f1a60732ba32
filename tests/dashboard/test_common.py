"""What the dashboard's pages share (`plates.dashboard.common`), each run by Streamlit's AppTest in a script of its
own: one notes expander per page (deduplicated, counted, none when empty), a page opened without the entry
script, the chart-page layout on the shipped runs and on filters that match nothing, and the people control."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.support import ROOT

RUNS = str(ROOT / "results" / "runs" / "baseline-cbe")


def _run(script, **kwargs) -> AppTest:
    at = AppTest.from_function(script, kwargs=kwargs, default_timeout=60)
    return at.run()


def _notes_script(own: list, entry: list) -> None:
    import streamlit as st

    from plates.dashboard import common

    st.session_state[common.NOTES_KEY] = tuple(entry)
    common.page_notes(own)


def test_a_pages_notes_share_one_collapsed_expander_counted_and_deduplicated():
    at = _run(
        _notes_script, own=["a rows note", "a pairing note", "a rows note"], entry=["a pairing note", "rules"]
    )
    assert not at.exception
    [expander] = at.expander
    assert expander.label.startswith("Notes (3): ")
    assert [m.value for m in expander.markdown] == ["- a rows note", "- a pairing note", "- rules"]
    assert not at.warning


def test_no_notes_draw_nothing():
    at = _run(_notes_script, own=[], entry=[])
    assert not at.exception and not at.expander


def _no_view_script() -> None:
    from plates.dashboard import common

    common.current_view()
    import streamlit as st

    st.write("not reached")


def test_a_page_opened_without_the_entry_script_says_how_to_open_it():
    at = _run(_no_view_script)
    assert "dashboard/app.py" in at.error[0].value and not at.markdown


def _page_script(path: str, model: tuple) -> None:
    import streamlit as st

    from plates.dashboard import common, views

    st.session_state[common.VIEW_KEY] = views.View(views.open_results(path), views.Filters(model=model))
    options = common.chart_page("overview", "Overview", "What the chart shows.")
    st.session_state["options"] = options
    st.session_state["people"] = common.people_control(common.current_view(), "people")


def test_a_chart_page_draws_its_title_chart_and_numbers_on_real_runs():
    at = _run(_page_script, path=RUNS, model=())
    assert not at.exception and not at.error
    assert at.title[0].value == "Overview" and at.caption[0].value == "What the chart shows."
    assert len(at.get("plotly_chart")) == 1
    assert any(e.label == "Numbers" for e in at.expander)
    assert at.session_state["options"] == {} and at.session_state["people"] is None  # no people in these runs


def test_a_chart_page_on_filters_matching_nothing_says_so_and_draws_nothing():
    at = _run(_page_script, path=RUNS, model=("no-such-model",))
    assert not at.exception and at.info[0].value == "No rows match the filters."
    assert not at.get("plotly_chart") and at.session_state["options"] is None
