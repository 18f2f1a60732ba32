"""The results dashboard: `plates dashboard [PATH]` or `streamlit run dashboard/app.py`.

This entry script runs on every rerun: it registers the pages, draws the sidebar (source, filters, export),
opens the results (cached: DuckDB over the parts, never the rows in memory) and hands the view to the chosen
page. All logic lives in `plates.dashboard.views`, `plates.dashboard.pages` and `plates.analysis`; each widget group
here is a function that returns its values.
"""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

from plates.dashboard import common, views
from plates.models.reference import MODEL as REFERENCE_OBSERVER
from plates.secrets import clean_message

HERE = Path(__file__).resolve().parent  # the pages' scripts are in sections/ beside this module

# The pages live in sections/, not pages/: Streamlit auto-discovers a pages/ folder beside the entry script
# and mixes it with st.navigation (AppTest then loses the sidebar on reruns).
PAGES = [
    ("sections/overview.py", "Overview", ":material/grid_view:", True),
    ("sections/published.py", "Published numbers", ":material/menu_book:", False),
    ("sections/compare.py", "Ours vs the papers", ":material/compare_arrows:", False),
    ("sections/colour_sets.py", "Colour sets", ":material/palette:", False),
    ("sections/resolution.py", "Resolution", ":material/photo_size_select_large:", False),
    ("sections/grayscale.py", "Grayscale", ":material/filter_b_and_w:", False),
    ("sections/chain_of_thought.py", "Chain of thought", ":material/psychology:", False),
    ("sections/yes_no.py", "Yes/No", ":material/rule:", False),
    ("sections/delta_e.py", "ΔE2000 (psychometric)", ":material/show_chart:", False),
    ("sections/failure_modes.py", "Failure modes", ":material/report:", False),
    ("sections/drilldown.py", "Drill-down", ":material/search:", False),
    ("sections/illusions.py", "Illusions", ":material/contrast:", False),
    ("sections/scenes.py", "Scenes (ColorBench)", ":material/category:", False),
    ("sections/people.py", "People", ":material/groups:", False),
    ("sections/observers.py", "Observers (ellipses, κ)", ":material/visibility:", False),
]
LABELS = {
    "model": "Model",
    "run": "Run",
    "group": "Group (colour set · illusion kind · scene task)",
    "condition": "Condition",
    "prompt": "Prompt",
}


def source_widgets() -> tuple[str, list, bool]:
    """The results folder (text box, default from `plates dashboard PATH`), any uploaded Parquet files, and
    whether the server is reachable from this machine only (else the box reads only the starting folder)."""
    st.sidebar.header("Results")
    local = views.is_local(st.get_option("server.address"))
    path = st.sidebar.text_input(
        "Folder or Parquet file",
        # served to other machines the box starts at "." (the folder it was started on, `views.results_path`):
        # a visitor never sees the server's absolute path
        value=views.default_root() if local else ".",
        key="path",
        help="every *.parquet under it is read, recursively"
        + ("" if local else " (served to other machines: only the folder it was started on, `.`, and below)"),
    )
    uploads = st.sidebar.file_uploader(
        "…or upload Parquet parts", type=["parquet"], accept_multiple_files=True, key="uploads"
    )
    return path, list(uploads or []), local


def shipped_toggle(opened: views.Opened) -> bool:
    """Whether the checkout's shipped first-start runs are shown: a toggle, off by default when the results
    hold runs of the user's own (on, and fixed, when they hold only shipped ones); True without shipped runs.

    Parameters
    ----------
    opened : plates.dashboard.views.Opened
        The opened results.

    Returns
    -------
    bool
        The sidebar toggle's value.
    """
    if not opened.shipped:
        return True
    own = opened.own_runs
    return st.sidebar.toggle(
        f"Show the {len(opened.shipped)} shipped example runs", value=not own, key="shipped", disabled=not own,
        help="the bundled reader's and the reference observer's runs that come with the checkout "
        "(results/runs/shipped-runs.json)" + ("" if own else "; no runs of your own yet: `plates run ... --out "
                                               "results/runs/NAME` adds one"),
    )


def filter_widgets(options: dict[str, list[str]]) -> views.Filters:
    """One multiselect per filter, kept in the URL query string (`?model=a&run=r1`) so a view can be shared:
    the URL sets the widgets on a session's first run, and every run writes the widgets back to the URL.

    Parameters
    ----------
    options : dict of str to list of str
        Each filter key's values (`plates.dashboard.views.Opened.options_for`).

    Returns
    -------
    plates.dashboard.views.Filters
        The values chosen; a shared URL's values these results lack are dropped with a sidebar warning.
    """
    st.sidebar.header("Filters")
    from_url = views.filters_from_query({key: st.query_params.get_all(key)
                                         for key in [*views.FILTER_COLUMNS, *views.FORMER_KEYS.values()]})
    from_url, ignored = views.valid_filters(from_url, options)
    for message in ignored:
        st.sidebar.warning(f"Shared link: {message}; ignored.")
    chosen = {}
    for key, label in LABELS.items():
        if key not in st.session_state:  # first run of this session: the URL decides
            st.session_state[key] = list(getattr(from_url, key))
        else:  # other results may have been loaded since: keep only values they offer
            st.session_state[key] = [v for v in st.session_state[key] if v in options[key]]
        chosen[key] = tuple(st.sidebar.multiselect(label, options[key], key=key, placeholder="all"))
    filters = views.Filters(**chosen)
    st.query_params.from_dict(views.filters_to_query(filters))
    return filters


def export_widgets(view: views.View) -> None:
    """Download buttons for the filtered rows, every column (CSV and Parquet), made only when clicked.

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view (its row count heads the sidebar section).
    """
    st.sidebar.header(f"Export {view.rows:,} rows")
    for fmt, (_, mime) in views.EXPORT_FORMATS.items():
        st.sidebar.download_button(
            f"Download {fmt.upper()}",
            data=lambda fmt=fmt: common.export(view, fmt),
            file_name=views.export_name(fmt, view.filters),
            mime=mime,
            key=f"export-{fmt}",
            on_click="ignore",
        )


def main() -> None:
    """The dashboard's entry script: page setup, the navigation, the results source, filters and export in the
    sidebar, then the page chosen (`streamlit run dashboard/app.py`, `plates dashboard`)."""
    # No stack traces on the page, also under plain `streamlit run`: a visitor sees the exception's type and
    # a generic message; the details go to the server's console.
    st.set_option("client.showErrorDetails", "type")
    st.set_page_config(page_title="plates — results", page_icon=":material/palette:", layout="wide")
    # expanded: every page in the navigation (Streamlit folds more than ten under "View N more")
    page = st.navigation([st.Page(HERE / p, title=t, icon=i, default=d) for p, t, i, d in PAGES], expanded=True)
    path, uploads, local = source_widgets()
    if os.environ.get("PLATES_RESULTS_URL"):  # `plates dashboard s3://...`: keep the local copy in step
        try:
            common.refresh_mirror(os.environ["PLATES_RESULTS_URL"], views.default_root())
        except OSError:  # the store is unreachable: the parts copied before are still served
            st.sidebar.warning("The object store could not be reached: showing the parts copied before.")
    try:
        if uploads:
            opened = common.open_uploads(tuple((u.name, u.getvalue()) for u in uploads),
                                         common.visitor_address(), local)
        else:
            where = views.results_path(path, views.default_root(), local=local)
            opened = common.open_folder(str(where), views.fingerprint(where))
    except ValueError as exc:  # no absolute server path for a visitor on another machine
        st.error(clean_message(str(exc), (), hide_paths=not local))
        st.stop()
    for name, why in opened.skipped:
        shown = views.shown_name(name, views.default_root(), local=local)
        st.warning(f"Skipped `{shown}`: {clean_message(why, (), hide_paths=not local)}")
    if opened.empty:
        st.info(views.NO_UPLOADED_RESULTS if uploads else views.empty_help(path))
        st.stop()
    show_shipped = shipped_toggle(opened)
    filters = opened.filters_for(filter_widgets(opened.options_for(show_shipped)), show_shipped)
    if REFERENCE_OBSERVER in opened.options.get("model", ()):
        st.sidebar.info(f"“{REFERENCE_OBSERVER}” answers from the stimuli's own pixels (illusion targets' "
                        "measured colours, scenes' drawn answers): a ceiling to read models against, not a model.")
    show_reference = st.sidebar.toggle("Show the papers' numbers", value=True, key="reference")
    view = views.View(opened, filters, common.reference() if show_reference else None)
    note = common.rules_note(opened.key, filters, view)
    # every page pools the rows it shows: never rows of several rules versions without saying so (in the
    # page's one notes expander, `common.page_notes`)
    st.session_state[common.NOTES_KEY] = (note,) if note else ()
    export_widgets(view)
    st.session_state[common.VIEW_KEY] = view
    page.run()
    common.warm_export()  # after the page: the export's Chromium does not compete with drawing it


if __name__ == "__main__":  # Streamlit runs this script as __main__; a process spawned meanwhile imports it as
    main()  # __mp_main__ and must not start a dashboard (multiprocessing's spawn re-imports the main module)
