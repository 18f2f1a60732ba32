"""Everything the results dashboard does that is not a widget: opening results, where the
path box may point, filters and the query string, drill-down rows, plate regeneration and export bytes. The
Streamlit pages in ``dashboard/`` are thin calls into this module and `plates.dashboard.pages`.

At scale nothing loads the rows: `open_results` reads the parts' footers and one DuckDB aggregate
(the cube: counts per run, model, prompt, colour set and condition; `plates.dashboard.queries.cube`); the
filters, the options and the cube-based pages work on that small table, and the other pages ask DuckDB for
exactly the columns and groups they need (`View.where`).

Filters live in the URL query string so a view can be shared: ``?model=a&model=b&run=r1&prompt=cbe-open`` (one
repeated key per chosen value; an absent key means "all").
"""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from plates.charts.common import CONDITION, SERIES, series_labels, with_condition
from plates.dashboard import queries
from plates.results.query import Results, list_parts
from plates.results.query import fingerprint as _fingerprint
from plates.results.query import open_results as _open
from plates.results.shipped import shipped_run_ids
from plates.results.versions import mixed_rules_note, rules_versions
from plates.validation import check_int

#: Filter key (as it appears in the query string) -> column of the results it selects on.
FILTER_COLUMNS: dict[str, str] = {
    "model": "model",
    "run": "run_id",
    "group": "group",
    "condition": CONDITION,
    "prompt": "prompt_name",
}
#: Filter key -> the key links shared before it was renamed carry (``?colour_set=`` filtered the grouping).
FORMER_KEYS: dict[str, str] = {"group": "colour_set"}
#: Export formats of the filtered rows -> (file extension, MIME type).
EXPORT_FORMATS: dict[str, tuple[str, str]] = {
    "csv": ("csv", "text/csv"),
    "parquet": ("parquet", "application/vnd.apache.parquet"),
}
#: Columns the drill-down table shows, in order.
DRILLDOWN_COLUMNS = (
    "model",
    "prompt_name",
    "target",
    "expected",
    "reply",
    "parsed",
    "parse_status",
    "correct",
    "failure_mode",
    "group",
    CONDITION,
    "delta_e",
    "view_family",
    "view_figure_cut",
    "item_id",
    "run_id",
)
#: Hosts a server may bind to and still let the path box read any folder (only this machine can reach it).
LOCAL_ADDRESSES = ("localhost", "127.0.0.1", "::1")

EMPTY_HELP = """\
No results found under `{path}`.

Results are Parquet parts written by `plates run`. Make some, then reload this page; for example, with the
bundled offline baseline reader:

```bash
plates run --dataset colorblindnesseval --prompt cbe-open --backend baseline --model baseline-cnn \\
    --limit 50 --out {path}
```

or with any OpenAI-compatible model:

```bash
plates run --dataset colorblindnesseval --prompt cbe-open --backend openai --model gpt-4o-mini \\
    --api-key-env OPENAI_API_KEY --limit 20 --out {path}
```

`plates run --help` lists every option; `plates prompts` lists the papers' prompts. Any folder of result
Parquet parts works: this dashboard reads every `*.parquet` under it, recursively."""

NO_UPLOADED_RESULTS = "None of the uploaded files holds result rows (each is named above with the reason)."


@dataclass(frozen=True)
class Filters:
    """Chosen values per filter key; an empty tuple means "no filter on this key" (everything).

    Parameters
    ----------
    model : tuple of str, optional
        Models (column ``model``).
    run : tuple of str, optional
        Run ids (``run_id``).
    group : tuple of str, optional
        Family groupings (``group``: a palette, an illusion kind, a scene task).
    condition : tuple of str, optional
        Condition labels (`with_condition`).
    prompt : tuple of str, optional
        Prompt names (``prompt_name``).
    """

    model: tuple[str, ...] = ()
    run: tuple[str, ...] = ()
    group: tuple[str, ...] = ()
    condition: tuple[str, ...] = ()
    prompt: tuple[str, ...] = ()

    def chosen(self) -> dict[str, tuple[str, ...]]:
        """Filter key (of `FILTER_COLUMNS`) -> its chosen values, every key present."""
        return {key: getattr(self, key) for key in FILTER_COLUMNS}


# ----------------------------------------------------------------------------------------------- opening
@dataclass
class Opened:
    """One opened results path: DuckDB over its parts (``results``), the cube with condition labels, the
    files skipped (named, with the reason), each filter's options, a ``key`` that changes with the
    parts and the ``shipped`` runs among them (the checkout's first-start runs, `plates.results.shipped`).

    Parameters
    ----------
    results : plates.results.query.Results
        DuckDB over the parts.
    cube : pandas.DataFrame
        `plates.dashboard.queries.cube` with a ``condition`` label column.
    skipped : list of (str, str), optional
        Files left out: (name, reason).
    options : dict of str to list of str, optional
        Each filter key's values (`filter_options`).
    key : str, optional
        A 16-hex-digit key that changes with the parts.
    shipped : frozenset of str, optional
        The shipped runs' ids.
    """

    results: Results
    cube: pd.DataFrame
    skipped: list[tuple[str, str]] = field(default_factory=list)
    options: dict[str, list[str]] = field(default_factory=dict)
    key: str = ""
    shipped: frozenset[str] = frozenset()

    @property
    def empty(self) -> bool:
        """Whether the results hold no row (the cube is empty)."""
        return self.cube.empty

    @property
    def own_runs(self) -> list[str]:
        """The runs that are not shipped ones (the user's), sorted."""
        return [r for r in self.options.get("run", []) if r not in self.shipped]

    def options_for(self, show_shipped: bool) -> dict[str, list[str]]:
        """Each filter's options, the shipped runs (and the values only they hold) left out unless
        ``show_shipped`` or there are no runs of the user's.

        Parameters
        ----------
        show_shipped : bool
            Keep the shipped runs.

        Returns
        -------
        dict of str to list of str
        """
        if show_shipped or not self.shipped or not self.own_runs:
            return self.options
        return filter_options(self.cube[~self.cube["run_id"].astype(str).isin(self.shipped)])

    def filters_for(self, filters: Filters, show_shipped: bool) -> Filters:
        """``filters`` with the shipped runs left out unless ``show_shipped`` (or there are no runs of the
        user's): the runs chosen, less the shipped ones, or every run of the user's when none is chosen.

        Parameters
        ----------
        filters : Filters
            The filters chosen.
        show_shipped : bool
            Keep the shipped runs.

        Returns
        -------
        Filters
        """
        own = self.own_runs
        if show_shipped or not self.shipped or not own:
            return filters
        chosen = [r for r in filters.run if r in own]
        return replace(filters, run=tuple(chosen or own))


def open_results(path: str | Path, *, names: Mapping[str, str] | None = None, uploaded: bool = False) -> Opened:
    """Open every results part under ``path`` (see `plates.results.query`): footers, then the cube. The
    papers' reference tables are left out; corrupt and foreign files are listed in ``skipped`` under their
    ``names`` (uploads: the names the user gave) or paths. A missing path is a ValueError naming it.
    ``uploaded``: a visitor's files, read with every text column cut (`plates.results.query.UPLOAD_TEXT_CAPS`).

    Parameters
    ----------
    path : str or pathlib.Path
        A results folder or Parquet file.
    names : mapping of str to str or None, optional
        File path -> the name to show for it.
    uploaded : bool, optional
        The files are a visitor's upload.

    Returns
    -------
    Opened

    Raises
    ------
    ValueError
        A missing path.
    """
    results = _open(path, names=dict(names or {}), short_text=uploaded)
    cube = with_condition(queries.cube(results))
    key = hashlib.sha256(repr((str(path), results.parts.fingerprint)).encode()).hexdigest()[:16]
    shipped = frozenset() if uploaded or not Path(path).is_dir() else shipped_run_ids(path)
    shipped &= set(cube["run_id"].dropna().astype(str))
    return Opened(results, cube, list(results.parts.skipped), filter_options(cube), key, frozenset(shipped))


def filter_options(cube: pd.DataFrame) -> dict[str, list[str]]:
    """The values each filter can take (sorted; nulls left out).

    Parameters
    ----------
    cube : pandas.DataFrame
        A cube with a ``condition`` column.

    Returns
    -------
    dict of str to list of str
        Filter key -> its values as strings (empty for a column the cube lacks).
    """
    return {
        key: sorted({str(v) for v in cube[column].dropna()}) if column in cube.columns else []
        for key, column in FILTER_COLUMNS.items()
    }


def empty_help(path: str | Path) -> str:
    """Markdown telling the user how to make results when ``path`` holds none.

    Parameters
    ----------
    path : str or pathlib.Path
        The folder shown in the text.

    Returns
    -------
    str
    """
    return EMPTY_HELP.format(path=path)


def fingerprint(path: str | Path) -> tuple[tuple[str, int, int], ...]:
    """(relative name, size, mtime in ns) of every Parquet part under ``path``: a cache key that changes when
    a run adds or rewrites a part. A missing path, or one the walk refuses (``/``), gives an empty tuple
    (opening it says what is wrong).

    Parameters
    ----------
    path : str or pathlib.Path
        A results folder or file.

    Returns
    -------
    tuple of (str, int, int)
    """
    try:
        return _fingerprint(list_parts(path), path)
    except ValueError:
        return ()


def is_local(address: str | None) -> bool:
    """Does a server bound to ``address`` serve this machine only? (None or "" binds every interface.)

    Parameters
    ----------
    address : str or None
        The server's bind address (brackets around an IPv6 address allowed).

    Returns
    -------
    bool
        True for `LOCAL_ADDRESSES` only.

    Examples
    --------
    >>> is_local("127.0.0.1"), is_local("[::1]"), is_local("0.0.0.0"), is_local(None)
    (True, True, False, False)
    """
    return bool(address) and str(address).strip("[]") in LOCAL_ADDRESSES


def results_path(text: str, root: str | Path, *, local: bool) -> Path:
    """The folder or file the path box names. Served on this machine only (``local``), any path; served on
    another address, only ``root`` (the folder the dashboard was started on) and what lies under it, after
    resolving ``..`` and links: anything else is a ValueError that names ``root``.

    Parameters
    ----------
    text : str
        The path box's text (``~`` expanded; relative to ``root`` for a visitor).
    root : str or pathlib.Path
        The folder the dashboard was started on.
    local : bool
        Whether the dashboard serves this machine only.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ValueError
        An empty path, or (not ``local``) one outside ``root``.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("the results path is empty; give a results folder or Parquet file")
    path = Path(text.strip()).expanduser()
    if local:
        return path
    base = Path(root).resolve()
    resolved = (base / path).resolve() if not path.is_absolute() else path.resolve()
    if resolved != base and base not in resolved.parents:
        raise ValueError(
            f"this dashboard is served to other machines: it reads only the results folder it was started on "
            f"and the folders under it, not {text.strip()!r}"
        )
    return resolved


def shown_name(name: str, root: str | Path, *, local: bool) -> str:
    """A file's name as a page may show it: as is on this machine (``local``); for a visitor on another
    machine, relative to ``root`` (the served folder) when under it, else only its last component, so no
    absolute server path reaches them.

    Parameters
    ----------
    name : str
        A file's path.
    root : str or pathlib.Path
        The served folder.
    local : bool
        Whether the dashboard serves this machine only.

    Returns
    -------
    str
    """
    if local:
        return name
    base = Path(root).resolve()
    path = Path(name)
    try:
        return str(path.resolve().relative_to(base)) if path.is_absolute() else name
    except ValueError:
        return path.name


# ---------------------------------------------------------------------------------------- filters, views
def filters_from_query(params: Mapping[str, object]) -> Filters:
    """Filters from a query-string mapping (``st.query_params.to_dict()`` gives str, AppTest may give lists).
    Unknown keys are ignored (the URL may carry other state), a `FORMER_KEYS` key reads as its filter's; values
    keep their order, duplicates dropped.

    Parameters
    ----------
    params : mapping of str to object
        The query string: a key to a str or a list of str.

    Returns
    -------
    Filters
    """
    chosen = {}
    for key in FILTER_COLUMNS:
        raw = params.get(key)
        if not raw and key in FORMER_KEYS:  # (Streamlit gives [] for a key the URL lacks)
            raw = params.get(FORMER_KEYS[key])
        if raw is None:
            continue
        values = [raw] if isinstance(raw, str) else list(raw)
        chosen[key] = tuple(dict.fromkeys(str(v) for v in values if str(v) != ""))
    return Filters(**chosen)


def filters_to_query(filters: Filters) -> dict[str, list[str]]:
    """The query-string form of ``filters``: one list per key that filters anything.

    Parameters
    ----------
    filters : Filters
        The filters.

    Returns
    -------
    dict of str to list of str
    """
    return {key: list(values) for key, values in filters.chosen().items() if values}


def valid_filters(filters: Filters, options: Mapping[str, list[str]]) -> tuple[Filters, list[str]]:
    """Drop values ``options`` does not offer (a shared URL on other data); the kept filters and a message per
    dropped value, so the page can say what it ignored rather than fail.

    Parameters
    ----------
    filters : Filters
        The filters asked for (e.g. from a shared URL).
    options : mapping of str to list of str
        Each filter key's values in these results (`filter_options`).

    Returns
    -------
    tuple of (Filters, list of str)
        The filters kept, and one message per value dropped.
    """
    kept, dropped = {}, []
    for key, values in filters.chosen().items():
        allowed = set(options.get(key, []))
        kept[key] = tuple(v for v in values if v in allowed)
        dropped += [f"{key}={v!r} is not in these results" for v in values if v not in allowed]
    return Filters(**kept), dropped


def apply_filters(frame: pd.DataFrame, filters: Filters) -> pd.DataFrame:
    """Rows of ``frame`` (a cube or result rows with a ``condition`` column) matching every non-empty filter,
    values compared as strings. No filter: the frame itself (no copy).

    Parameters
    ----------
    frame : pandas.DataFrame
        A cube or result rows with a ``condition`` column.
    filters : Filters
        The filters.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ValueError
        A filtered key whose column ``frame`` lacks.
    """
    if not any(filters.chosen().values()):
        return frame
    mask = np.ones(len(frame), dtype=bool)
    for key, values in filters.chosen().items():
        if not values:
            continue
        column = FILTER_COLUMNS[key]
        if column not in frame.columns:
            raise ValueError(
                f"cannot filter on {key!r}: the results have no {column!r} column; "
                f"columns: {list(frame.columns)}"
            )
        mask &= frame[column].astype("string").isin(list(values)).fillna(False).to_numpy(bool)
    return frame[mask]


@dataclass(frozen=True)
class View:
    """What every page draws from: the opened results, the filters, the papers' numbers (None: hidden).

    Parameters
    ----------
    opened : Opened
        The opened results.
    filters : Filters, optional
        The filters chosen.
    reference : pandas.DataFrame or None, optional
        The papers' reference rows, or None when hidden.
    memo : dict, optional
        Tables derived from this view by name, filled by the pages.
    """

    opened: Opened
    filters: Filters = Filters()
    reference: pd.DataFrame | None = None
    #: tables derived from this view by name (`plates.dashboard.pages.plate_levels`): a page's controls and
    #: its figure, computed in the same script run, scan the results once; dropped with the view (one per run)
    memo: dict = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def cube(self) -> pd.DataFrame:
        """The filtered cube, with a ``series`` column: each run by its name (`series_labels`), never a hash."""
        cube = apply_filters(self.opened.cube, self.filters)
        several = self.several_runs
        names = cube["run_name"] if "run_name" in cube.columns else None
        return cube.assign(**{SERIES: series_labels(cube["model"], cube["run_id"], several, names)})

    @cached_property
    def series_of(self) -> dict[tuple[str, str], str]:
        """(model, run id) -> its series label in `cube`: every page labels a run alike."""
        cube = self.cube
        return dict(zip(zip(cube["model"].astype(str), cube["run_id"].astype(str)), cube[SERIES]))

    @cached_property
    def several_runs(self) -> set[str]:
        """Models that appear in more than one run among the filtered rows."""
        cube = apply_filters(self.opened.cube, self.filters)
        runs = cube.groupby("model", dropna=False)["run_id"].nunique()
        return set(runs[runs > 1].index)

    @cached_property
    def where(self) -> queries.Where:
        """The filters as DuckDB's WHERE (condition labels -> their condition columns' values)."""
        values = {FILTER_COLUMNS[k]: v for k, v in self.filters.chosen().items() if v and k != "condition"}
        conditions: list[dict] = []
        if self.filters.condition:
            chosen = self.opened.cube[self.opened.cube[CONDITION].isin(self.filters.condition)]
            conditions = chosen[list(queries.CONDITION_KEYS)].drop_duplicates().to_dict("records")
        return queries.Where(values, conditions)

    @cached_property
    def rules_note(self) -> str | None:
        """The warning for filtered rows judged under several scoring-rules versions (`plates.results.versions`);
        None when one version judged them all."""
        return mixed_rules_note(rules_versions(self.opened.results, *self.where.sql()))

    def label(self, table: pd.DataFrame) -> pd.DataFrame:
        """A DuckDB table (with model, and run_id unless it pools runs) with the view's ``series`` labels: the
        model alone for a table without run_id (pairs found across runs).

        Parameters
        ----------
        table : pandas.DataFrame
            A DuckDB answer with ``model`` (and ``run_id``).

        Returns
        -------
        pandas.DataFrame
            ``table`` with a ``series`` column.
        """
        if table.empty:
            return table.assign(**{SERIES: pd.Series(dtype=object)})
        if "run_id" not in table.columns:
            return table.assign(**{SERIES: table["model"].astype(str)})
        fallback = series_labels(table["model"], table["run_id"], self.several_runs)
        keys = zip(table["model"].astype(str), table["run_id"].astype(str))
        return table.assign(**{SERIES: [self.series_of.get(k, f) for k, f in zip(keys, fallback)]})

    @property
    def rows(self) -> int:
        """Result rows the filters keep: answered plus failed requests."""
        return int((self.cube["n"] + self.cube["errors"]).sum())


# ------------------------------------------------------------------------------------------- drill-down
def drilldown(
    view: View, *, only: str = "all", limit: int = 24, page: int = 1
) -> tuple[pd.DataFrame, int, int]:
    """(one page of rows with their ``condition`` label, rows the choice ``only`` selects, pages): the page
    count counts what ``only`` keeps, not every filtered row.

    Parameters
    ----------
    view : View
        The current view.
    only : str, optional
        "all", "correct", "incorrect" or "failed".
    limit : int, optional
        Rows per page, >= 1.
    page : int, optional
        The page wanted, 1 to the page count.

    Returns
    -------
    tuple of (pandas.DataFrame, int, int)
        The page's rows, the rows selected and the page count.

    Raises
    ------
    ValueError
        A page out of range or an unknown ``only``.
    """
    total = queries.drilldown_count(view.opened.results, view.where, only)
    pages = max(1, -(-total // limit))
    check_int("page", page, 1, pages)
    rows = queries.drilldown(
        view.opened.results, view.where, only=only, limit=limit, offset=(page - 1) * limit
    )
    return with_condition(rows), total, pages


def drilldown_text(row: Mapping[str, object]) -> tuple[str, str, str]:
    """What the drill-down prints beside one row's plate, as Streamlit markdown: the headline (model, prompt,
    target, expected answer, verdict: correct / wrong / failed with the request's error), the parsed answer
    with its parse status and failure mode (HueManity App. E), and the raw reply as plain text.

    Parameters
    ----------
    row : mapping of str to object
        A drill-down row (`plates.dashboard.queries.ROW_COLUMNS`).

    Returns
    -------
    tuple of (str, str, str)
        Headline, parsed answer, raw reply.

    References
    ----------
    HueManity, App. E (failure modes).
    """

    def text(key):
        value = row.get(key)
        return value if isinstance(value, str) and value else None

    correct = row.get("correct")
    if correct is True or correct is False or isinstance(correct, np.bool_):
        verdict = ":green[**correct**]" if bool(correct) else ":red[**wrong**]"
    else:  # null: the request failed, there is no answer to judge
        verdict = f":orange[**failed**: {text('error') or 'no reply'}]"
    headline = (
        f"**{row.get('model')}** · `{row.get('prompt_name')}` · target **{row.get('target')}** "
        f"(expected `{row.get('expected')}`) — {verdict}"
    )
    cut = row.get("view_figure_cut")
    if (cut is True or isinstance(cut, np.bool_)) and bool(cut):  # the plate's figure fell outside the view
        fraction = row.get("view_cropped_fraction")
        share = f"{float(fraction):.0%} of the image" if isinstance(fraction, int | float) else "part of it"
        headline += (f" — :orange[**figure cut by the crop**: {text('view_family') or 'the view'} cut away "
                     f"{share}]")
    details = ", ".join(v for v in (text("parse_status"), text("failure_mode")) if v)
    parsed = f"parsed: `{text('parsed')}`" if text("parsed") else "parsed: —"
    if details:
        parsed += f" ({details})"
    return headline, parsed, text("reply") or "(no reply)"


def regenerate_plate(row: Mapping[str, object]):
    """The image the model saw for one result row: the plate re-rendered from ``spec_json``, its ``variant``
    taken, and the row's condition (size, grayscale, hue shift, CVD view, text-only) re-applied. PIL RGB,
    sRGB 0-255. DESIGN.md: a plate is fully determined by its spec, so no image is stored in results.

    Parameters
    ----------
    row : mapping of str to object
        A result row with ``spec_json``, ``variant`` and the condition columns.

    Returns
    -------
    PIL.Image.Image
        RGB, sRGB 0-255.

    Raises
    ------
    ValueError
        A row without ``spec_json``.
    """
    spec_json = row.get("spec_json")
    if not isinstance(spec_json, str) or not spec_json:
        raise ValueError(f"row {row.get('item_id')!r} has no spec_json; cannot regenerate its plate")

    def given(key):
        value = row.get(key)
        return None if value is None or (not isinstance(value, str) and bool(pd.isna(value))) else value

    # the plate renderer and the viewing conditions (plates.stimuli, plates.conditions: PIL, fonts, packing,
    # colour maths) load here, on the drill-down, not on the first page
    from plates.conditions import Condition, apply_condition
    from plates.stimuli.ishihara.plate import PlateSpec, render

    plate = render(PlateSpec.from_json(spec_json))
    image = plate.variant(str(given("variant") or "standard"))
    cvd = str(given("cvd") or "none")
    size = given("size")
    condition = Condition(
        size=None if size is None else int(size),
        grayscale=bool(given("grayscale") or False),
        hue_shift=float(given("hue_shift") or 0.0),
        cvd=cvd,
        cvd_severity=float(given("cvd_severity") or 0.0) if cvd != "none" else 1.0,
        text_only=bool(given("text_only") or False),
    )
    return apply_condition(image, condition)


# -------------------------------------------------------------------------------------------------- export
def export_bytes(table: pa.Table | pd.DataFrame, fmt: str) -> bytes:
    """The filtered rows (`plates.dashboard.queries.export`) as a CSV or Parquet file; the Parquet reads back
    with `plates.results.load_results`.

    Parameters
    ----------
    table : pyarrow.Table or pandas.DataFrame
        The rows (a frame's ``condition`` and ``series`` columns are dropped).
    fmt : str
        A key of `EXPORT_FORMATS`.

    Returns
    -------
    bytes

    Raises
    ------
    ValueError
        An unknown ``fmt``.
    """
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"export format {fmt!r} is unknown; allowed: {sorted(EXPORT_FORMATS)}")
    if isinstance(table, pd.DataFrame):
        table = pa.Table.from_pandas(
            table.drop(columns=[CONDITION, SERIES], errors="ignore"), preserve_index=False
        )
    buffer = io.BytesIO()
    if fmt == "csv":
        pacsv.write_csv(table, buffer)
    else:
        pq.write_table(table, buffer)
    return buffer.getvalue()


def export_name(fmt: str, filters: Filters) -> str:
    """A file name for the export that says what was filtered, e.g. ``plates-results-model=gpt-4o.csv``.

    Parameters
    ----------
    fmt : str
        A key of `EXPORT_FORMATS`.
    filters : Filters
        The filters; characters other than letters, digits and ``-_=+.`` become ``_``, the stem cut at 120.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        An unknown ``fmt``.
    """
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"export format {fmt!r} is unknown; allowed: {sorted(EXPORT_FORMATS)}")
    parts = [f"{k}={'+'.join(v)}" for k, v in filters.chosen().items() if v]
    stem = "".join(c if c.isalnum() or c in "-_=+." else "_" for c in "-".join(["plates-results", *parts]))[
        :120
    ]
    return f"{stem}.{EXPORT_FORMATS[fmt][0]}"


def default_root() -> str:
    """The folder the dashboard was started on (``PLATES_RESULTS``, set by `plates dashboard`), else
    ``results``."""
    return os.environ.get("PLATES_RESULTS", "results")
