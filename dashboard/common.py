"""What the dashboard pages share: the current view (filtered rows + reference), cached loading, and the
chart-page layout. Kept thin: numbers come from `plates.analysis.metrics` via `plates.analysis.charts`, logic from
`plates.ui.dashboard`."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

from plates.ui import dashboard as views

VIEW_KEY = "plates_view"


@dataclass(frozen=True)
class View:
    """What every page draws from: the filtered rows (the chart columns only), the papers' numbers (None
    when hidden), the filters, and every loaded row with all columns (``full``; `views.full_rows` fetches
    the complete rows behind ``frame``'s, e.g. for the drill-down)."""

    frame: pd.DataFrame
    reference: pd.DataFrame | None
    filters: views.Filters
    full: pd.DataFrame


# Loaded results are cached with st.cache_resource, not st.cache_data: cache_data pickles the frame into the
# cache and unpickles a copy on every rerun (measured for 1,000,000 rows: 790 MB more memory and over a second
# per click). The frame is shared read-only: plates.ui.dashboard and plates.analysis.charts never modify their input.
@st.cache_resource(show_spinner="Loading results…", max_entries=2)
def load_folder(path: str, fingerprint: tuple) -> views.Loaded:
    """Every Parquet part under ``path``; ``fingerprint`` (names, sizes, mtimes) makes new parts show up."""
    return views.load(path)


@st.cache_resource(show_spinner="Loading uploads…", max_entries=2)
def load_uploads(files: tuple[tuple[str, bytes], ...]) -> views.Loaded:
    """Uploaded Parquet files, written to a temporary folder and read like any results folder."""
    with tempfile.TemporaryDirectory(prefix="plates-upload-") as folder:
        for index, (name, data) in enumerate(files):
            (Path(folder) / f"{index:03d}-{Path(name).name}").write_bytes(data)
        return views.load(folder)


@st.cache_data(show_spinner=False)
def reference() -> pd.DataFrame | None:
    """The papers' published tables (results/reference/), or None with a warning when they cannot be read."""
    try:
        from plates.results.reference import load_reference

        return load_reference()
    except (ImportError, ValueError, OSError) as exc:
        st.warning(f"The papers' reference tables could not be loaded: {exc}")
        return None


@st.cache_data(show_spinner="Regenerating plate…", max_entries=256)
def plate_image(row: dict):
    """The image the model saw for one result row (`plates.ui.dashboard.regenerate_plate`)."""
    return views.regenerate_plate(row)


def current_view() -> View:
    view = st.session_state.get(VIEW_KEY)
    if view is None:  # a page opened without the entry script (should not happen under st.navigation)
        st.error("Open the dashboard through dashboard/app.py (`plates dashboard`).")
        st.stop()
    return view


def chart_page(
    title: str,
    caption: str,
    figure: Callable,
    table: Callable | None = None,
    controls: Callable[[], dict] | None = None,
) -> None:
    """A page: title, what the chart shows (with the paper it comes from), the page's own widgets
    (``controls`` returns keyword arguments for ``figure`` and ``table``), the figure, then its numbers.
    A ValueError from the metrics is shown with st.error and the page returns."""
    view = current_view()
    st.title(title)
    st.caption(caption)
    options = controls() if controls is not None else {}
    if view.frame.empty:
        st.info("No rows match the filters.")
        return
    try:
        fig = figure(view.frame, view.reference, **options)
        numbers = table(view.frame, **options) if table is not None else None
    except ValueError as exc:
        st.error(str(exc))
        return
    st.plotly_chart(fig, key=f"chart-{title}")
    if numbers is not None:
        with st.expander("Numbers", expanded=False):
            st.dataframe(numbers, hide_index=True)
