"""What the dashboard pages share: the current view, cached opening, cached page results, the chart-page
layout. Thin: numbers come from `plates.analysis` via `plates.dashboard.pages`, logic from `plates.dashboard.views`."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from plates.admission import SESSION_TTL_S, Admission, client_address, hosted_space
from plates.analysis import people
from plates.charts import export as figure_export
from plates.charts.layout import legible
from plates.charts.reading import judge_lines
from plates.dashboard import family_queries, pages, queries, views
from plates.results.uploads import UploadFolders, check_uploads
from plates.storage import mirror

VIEW_KEY = "plates_view"
#: Notes the entry script found for every page (the rules note), shown in the page's one notes expander.
NOTES_KEY = "plates_notes"


# Opened results are cached with st.cache_resource (shared, never copied): DuckDB over the parts and the cube.
# ``fingerprint`` (names, sizes, mtimes of the parts) makes a run's new parts show up.
@st.cache_resource(show_spinner="Opening results…", max_entries=4)
def open_folder(path: str, fingerprint: tuple) -> views.Opened:
    """A results folder opened for the dashboard (`plates.dashboard.views.open_results`), cached per path and
    fingerprint (at most 4 kept).

    Parameters
    ----------
    path : str
        The results folder.
    fingerprint : tuple
        `plates.dashboard.views.fingerprint` of the folder: only part of the cache key, so new parts reopen it.

    Returns
    -------
    plates.dashboard.views.Opened
    """
    return views.open_results(path)


@st.cache_data(ttl=30, show_spinner=False)
def refresh_mirror(url: str, folder: str) -> int:
    """Copy an object store's new parts into the local folder the dashboard serves (`plates.storage.mirror`),
    at most every 30 s; only for the URL `plates dashboard` was started on (``PLATES_RESULTS_URL``), never one
    a visitor types.

    Parameters
    ----------
    url : str
        The object-store URL the dashboard was started on.
    folder : str
        The local folder it mirrors into.

    Returns
    -------
    int
        Files copied (within 30 s of a call, its cached answer: nothing is copied).
    """
    return mirror(url, folder)


@st.cache_resource
def upload_folders() -> UploadFolders:
    """Where this server keeps uploads: one folder per upload set, deleted after `SESSION_TTL_S`."""
    return UploadFolders(ttl_s=SESSION_TTL_S)


@st.cache_resource
def admission() -> Admission:
    """This server's limits for visitors on other machines (`plates.admission.Admission`)."""
    return Admission(behind_proxy=hosted_space())


def visitor_address() -> str:
    """The address this session's limits count under (`plates.admission.client_address`)."""
    return client_address(st.context.ip_address, dict(st.context.headers or {}),
                          behind_proxy=admission().behind_proxy)


@st.cache_resource(show_spinner="Opening uploads…", max_entries=2, ttl=SESSION_TTL_S)
def open_uploads(files: tuple[tuple[str, bytes], ...], client: str, local: bool) -> views.Opened:
    """Uploaded Parquet files, checked from their footers first (`plates.results.uploads.check_uploads`),
    then, for a visitor on another machine (not ``local``), against the memory budget and the uploaded bytes
    allowed per address (``client``) and in all; written to a folder of their own (deleted with the cache
    entry's time to live) and read with every text column cut. A skipped file is named as the user named it,
    never by its folder. Runs once per upload set (the cache): the script's reruns are not new uploads.

    Parameters
    ----------
    files : tuple of (str, bytes)
        The uploaded files' names (as the user named them) and bytes.
    client : str
        The visitor's address, for the per-address budget.
    local : bool
        Whether the visitor is on this machine (no budgets).

    Returns
    -------
    plates.dashboard.views.Opened

    Raises
    ------
    ValueError
        Files that are not results parts (`plates.results.uploads.check_uploads`), or over a budget.
    """
    check_uploads(files)
    if not local:
        admission().memory.check("more uploads")
        admission().uploads.take(client, sum(len(data) for _, data in files))
    folder, names = upload_folders().write(files)
    return views.open_results(folder, names=names, uploaded=True)


@st.cache_data(show_spinner=False)
def reference() -> pd.DataFrame | None:
    """The papers' published tables (package data: plates/results/published/), or None with a warning when
    they cannot be read."""
    try:
        # lazy: inside the try, so a reference table that cannot load warns instead of stopping the page
        from plates.results.reference import load_reference

        return load_reference()
    except (ImportError, ValueError, OSError) as exc:
        st.warning(f"The papers' reference tables could not be loaded: {exc}")
        return None


@st.cache_data(show_spinner="Computing…", max_entries=64)
def page_result(
    name: str, key: str, filters: views.Filters, with_reference: bool, options: tuple, _view: views.View
) -> pages.Page:
    """One page's figure and numbers, cached per page, results, filters and controls (``_view`` is not part
    of the key: ``key``, ``filters`` and ``with_reference`` say what it holds).

    Parameters
    ----------
    name : str
        A key of `plates.dashboard.pages.PAGES`.
    key : str
        The opened results' key (`plates.dashboard.views.Opened.key`).
    filters : plates.dashboard.views.Filters
        The sidebar's filters.
    with_reference : bool
        Whether the papers' reference rows are shown beside.
    options : tuple of (str, object)
        The page's widget values, sorted, passed as keyword arguments.
    _view : plates.dashboard.views.View
        The view the page reads (not hashed).

    Returns
    -------
    plates.dashboard.pages.Page

    Raises
    ------
    ValueError
        What the page function refuses (shown by the caller).
    """
    return pages.PAGES[name](_view, **dict(options))


@st.cache_data(show_spinner=False, max_entries=64)
def rules_note(key: str, filters: views.Filters, _view: views.View) -> str | None:
    """`views.View.rules_note`, cached per opened results (``key``) and filters.

    Parameters
    ----------
    key : str
        The opened results' key.
    filters : plates.dashboard.views.Filters
        The sidebar's filters.
    _view : plates.dashboard.views.View
        The view (not hashed).

    Returns
    -------
    str or None
        The note, or None.
    """
    return _view.rules_note


def export(view: views.View, fmt: str) -> bytes:
    """The view's filtered rows, every column, as a file (`plates.dashboard.views.export_bytes`).

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.
    fmt : str
        "csv" or "parquet" (`plates.dashboard.views.EXPORT_FORMATS`).

    Returns
    -------
    bytes

    Raises
    ------
    ValueError
        An unknown ``fmt``.
    """
    return views.export_bytes(queries.export(view.opened.results, view.where), fmt)


@st.cache_data(show_spinner="Regenerating plate…", max_entries=256)
def plate_image(row: dict):
    """The image the model saw for one result row (`plates.dashboard.views.regenerate_plate`).

    Parameters
    ----------
    row : dict
        A drill-down row (`plates.dashboard.queries.ROW_COLUMNS`).

    Returns
    -------
    PIL.Image.Image
        RGB, sRGB 0-255 (cached, at most 256 kept).
    """
    return views.regenerate_plate(row)


def export_buttons(name: str, figure) -> None:
    """SVG, PDF and PNG downloads of ``figure`` at publication size (`plates.charts.export`), made only when
    clicked (each export starts a headless Chromium: seconds, not worth paying on every rerun).

    Parameters
    ----------
    name : str
        The chart's name, in the buttons' keys and the file names (``plates-<name>.<fmt>``).
    figure : plotly.graph_objects.Figure
        The figure as built.
    """
    columns = st.columns(len(figure_export.FORMATS) + 3)
    for column, (fmt, mime) in zip(columns, figure_export.FORMATS.items()):
        column.download_button(f"Figure as {fmt.upper()}", data=lambda fmt=fmt: figure_export.figure_bytes(figure, fmt),
                               file_name=f"plates-{name}.{fmt}", mime=mime, key=f"figure-{name}-{fmt}",
                               on_click="ignore")


def chart(name: str, figure) -> None:
    """A chart on a page: ``figure`` laid out for the page (`plates.charts.layout.legible`: long labels shortened
    with the whole label in the hover, a plot area of at least 300 px), then its export buttons (the figure as
    built: the export lays it out for paper, `plates.charts.export.publication_figure`).

    Parameters
    ----------
    name : str
        The chart's name, in its Streamlit keys (``chart-<name>``) and export file names (``plates-<name>.svg``).
    figure : plotly.graph_objects.Figure
        The figure, as built (not laid out for the page).
    """
    st.plotly_chart(legible(figure), key=f"chart-{name}")
    export_buttons(name, figure)


def page_notes(notes: tuple[str, ...] | list[str] = ()) -> None:
    """The page's notes (``notes``, then the entry script's for every page) in one collapsed expander whose
    label says how many there are, instead of a stack of warnings pushing the chart down; nothing when none.

    Parameters
    ----------
    notes : sequence of str, optional
        The page's own notes (Markdown), shown first; repeats are shown once.
    """
    every = list(dict.fromkeys([*notes, *st.session_state.get(NOTES_KEY, ())]))
    if not every:
        return
    with st.expander(f"Notes ({len(every)}): what this page pools, leaves out or cannot show", expanded=False,
                     icon=":material/info:"):
        for note in every:
            st.markdown(f"- {note}")


#: Seconds the export's Chromium waits after the first page was sent (`warm_export`): its start (several CPU
#: seconds) would otherwise compete with the visitor's browser drawing that page on a small machine (at load
#: 17 on 2 cores, 3 s was not enough: the page was still being drawn when it started).
EXPORT_WARM_DELAY_S = 10.0


@st.cache_resource(show_spinner=False)
def warm_export() -> None:
    """Start the figure export's Chromium in a background thread once per server (`plates.charts.export.warm`),
    `EXPORT_WARM_DELAY_S` after the first page was sent (the entry script calls this after the page ran), so
    neither the first page nor the first download waits for it; an export that cannot run says why when
    clicked."""
    import threading
    import time

    def start() -> None:
        time.sleep(EXPORT_WARM_DELAY_S)
        try:
            figure_export.warm()
        except ValueError:  # no kaleido or no Chromium: the button's own click names the cause
            pass

    threading.Thread(target=start, name="plates-export-warm", daemon=True).start()


def current_view() -> views.View:
    """The view the entry script built for this rerun (from the session state); a page opened without it shows
    an error and stops.

    Returns
    -------
    plates.dashboard.views.View
    """
    view = st.session_state.get(VIEW_KEY)
    if view is None:  # a page opened without the entry script (should not happen under st.navigation)
        st.error("Open the dashboard through dashboard/app.py (`plates dashboard`).")
        st.stop()
    return view


def condition_control(view: views.View, key: str, *, without: tuple[str, ...] = (), plates: bool = False,
                      prompts: tuple[str, ...] | None = None, page: str | None = None) -> dict:
    """A selectbox of the conditions present (most rows first; ``plates``: of plate rows only; ``prompts``: of
    those prompts' rows; ``page``: the conditions that page's own table holds, its default first: a paired page
    offers only conditions with pairs): the chart shows the one chosen and names the others; with one
    condition, no widget.

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.
    key : str
        The widget's Streamlit key.
    without : tuple of str, optional
        Condition columns left out of the choice (`plates.dashboard.pages.conditions`).
    plates : bool, optional
        Only the conditions of plate rows.
    prompts : tuple of str or None, optional
        Only the conditions of these prompts' rows.
    page : str or None, optional
        Offer the conditions that page's table holds instead.

    Returns
    -------
    dict
        ``{"condition": the one chosen}``, or ``{}`` when at most one condition is present.
    """
    if page is not None:
        default = page_result(page, view.opened.key, view.filters, view.reference is not None, (), view)
        meta = default.figure.layout.meta or {}
        present = [meta["condition"], *meta.get("others", [])] if meta.get("condition") else []
    else:
        present = pages.conditions(view, without=without, plates=plates, prompts=prompts)
    if len(present) <= 1:
        return {}
    return {"condition": st.selectbox("Condition shown (never pooled)", present, key=key)}


#: People drawn and fitted one by one on the Illusions and People pages unless the visitor chooses others (the
#: pooled "people (K participants)" takes every one: `plates.dashboard.family_queries.with_people`).
PEOPLE_SHOWN = people.PEOPLE_SHOWN


def people_control(view: views.View, key: str) -> tuple[str, ...] | None:
    """None (every person one by one) when at most `PEOPLE_SHOWN` people answered; else a choice of whom to draw
    one by one, the `PEOPLE_SHOWN` with most answers first.

    Parameters
    ----------
    view : plates.dashboard.views.View
        The current view.
    key : str
        The multiselect's Streamlit key.

    Returns
    -------
    tuple of str or None
        The people chosen, or None (no widget drawn).
    """
    people = family_queries.participants(view.opened.results, view.where)
    if len(people) <= PEOPLE_SHOWN:
        return None
    names = [str(m) for m in people["model"]]
    chosen = st.multiselect("People shown one by one (most answers first)", names, default=names[:PEOPLE_SHOWN],
                            key=key)
    st.caption(f"{len(names):,} people answered: {len(chosen)} are shown one by one; “people (K participants)” "
               "pools every one of them.")
    return tuple(chosen)


#: What the panel of how replies were read (`reading_panel`) says under its chart's title.
READING_CAPTION = (
    "Each model's replies as they were read, for one condition: a correct answer, a wrong one, or none read "
    "(ambiguous: several answers and nothing to choose; unread: no answer found; refused: declined or described "
    "the image). Accuracy counts an unread reply as not correct: a model that is not read is not wrong. The "
    "numbers add the judge model's part where one was asked (docs/judge.md): the verdicts it decided, and how "
    "often it and the rules read the same answer where both read one."
)


def reading_panel(options: dict | None) -> None:
    """Under a chart page (Overview, Failure modes): how each series' replies were read beside accuracy, for the
    condition and stimulus family the page chose (``options``, what `chart_page` returned; None: the page drew
    nothing).

    Parameters
    ----------
    options : dict or None
        `chart_page`'s answer; its ``condition`` and ``family`` are used.
    """
    if options is None:
        return
    view = current_view()
    st.header("How the replies were read")
    st.caption(READING_CAPTION)
    chosen = {k: v for k, v in options.items() if k in ("condition", "family")}
    # the same rows as the page's chart above: its notes are already in the page's one Notes expander
    result = _figure_and_numbers("reading", view, chosen, notes=False)
    for line in judge_lines(result.table) if result is not None else ():
        st.markdown(f"- {line}")


def chart_page(
    name: str, title: str, caption: str, controls: Callable[[views.View], dict] | None = None
) -> dict | None:
    """A page: title, what the chart shows (with the paper it comes from), the page's own widgets
    (``controls`` returns keyword arguments for the page function), the figure, then its numbers. A
    ValueError is shown with st.error and the page returns. Returns the widgets' values (None when nothing
    was drawn).

    Parameters
    ----------
    name : str
        A key of `plates.dashboard.pages.PAGES`.
    title : str
        The page's title.
    caption : str
        What the chart shows, under the title.
    controls : callable or None, optional
        ``controls(view) -> dict`` drawing the page's widgets.

    Returns
    -------
    dict or None
        The widgets' values, or None when no rows match or the page failed.
    """
    view = current_view()
    st.title(title)
    st.caption(caption)
    if view.cube.empty:
        st.info("No rows match the filters.")
        return None
    options = controls(view) if controls is not None else {}
    return options if _figure_and_numbers(name, view, options) is not None else None


def _figure_and_numbers(name: str, view: views.View, options: dict, *, notes: bool = True) -> pages.Page | None:
    """Page ``name``'s figure, its export buttons and its numbers, after its notes (``notes``: False for a second
    chart on a page, whose notes the page's one expander already holds); None (after st.error) on a
    ValueError."""
    try:
        result = page_result(
            name,
            view.opened.key,
            view.filters,
            view.reference is not None,
            tuple(sorted(options.items())),
            view,
        )
    except ValueError as exc:
        st.error(str(exc))
        return None
    if notes:
        page_notes(result.notes)
    chart(name, result.figure)
    if not result.table.empty:
        with st.expander("Numbers", expanded=False):
            st.dataframe(result.table, hide_index=True)
    return result
