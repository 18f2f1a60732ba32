"""What every chart shares: condition labels, series (model or model · run), the condition shown, count
tables from rows, error bars and the papers' markers (`plates.charts.ishihara` explains the rules)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from plates.analysis import metrics
from plates.analysis.conditions import CONDITION, SERIES, with_condition
from plates.analysis.people import PERSON_PREFIX
from plates.results.schema import PARTICIPANT_PREFIX

#: The columns a count table is grouped by (`counts_from_rows`; the same as DuckDB's cube).
COUNT_KEYS = (
    "run_id",
    "model",
    "dataset",
    "prompt_name",
    "task",
    "family",
    "group",
    "colour_set",
    "variant",
    "size",
    "grayscale",
    "hue_shift",
    "cvd",
    "cvd_severity",
    "text_only",
    "shots",
)
REFERENCE_MARKER = dict(symbol="diamond-open", size=11, color="#444444", line=dict(width=2))
REFERENCE_SYMBOLS = (
    "diamond-open",
    "square-open",
    "triangle-up-open",
    "circle-open",
    "star-open",
    "x-open",
    "pentagon-open",
    "hexagon-open",
    "triangle-down-open",
    "cross-open",
)
REFERENCE_COLUMNS = ["source", "model", "task", "condition", "metric", "value", "prompt_name"]
FAILURE_MODES = ("hallucination", "evasion", "erratic", "other")
#: ColorBlindnessEval §3.1: the yes/no prompt naming the correct number (Y*/N) and an incorrect one (Y/N*).
YES_NO_PROMPTS = {"Y*/N": "cbe-yn-correct", "Y/N*": "cbe-yn-incorrect"}
#: The published task our plates are an instance of, per prompt (ColorBench asks its Color Blindness task).
PLATE_TASKS = {
    "colorbench-mc": "Reasoning: Color Blindness",
    "colorbench-mc-cot": "Reasoning: Color Blindness",
}


def with_series(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with a ``series`` column: two runs of one model are two series, never one pooled cell.

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows with ``model`` and ``run_id``; a ``series`` column already there is kept (the dashboard sets it
        from the whole view, so every page labels a run alike).

    Returns
    -------
    pandas.DataFrame
        ``series``: the model, or "model · run" for a model that appears in more than one run (`run_names`);
        a person's rows read "person: participant-…".
    """
    if SERIES in frame.columns:
        return frame
    out = frame.copy(deep=False)
    model = (
        _plain(frame["model"])
        if "model" in frame.columns
        else pd.Series(["?"] * len(frame), index=frame.index)
    )
    if "run_id" not in frame.columns or frame.empty:
        out[SERIES] = model.astype(object)
        return out
    run = _plain(frame["run_id"]).astype(object).where(frame["run_id"].notna(), "(no run)")
    runs = pd.DataFrame({"m": model, "r": run}).drop_duplicates().groupby("m", dropna=False)["r"].nunique()
    named = _plain(frame["run_name"]) if "run_name" in frame.columns else None
    return out.assign(**{SERIES: series_labels(model, run, set(runs[runs > 1].index), named)})


def series_labels(model: pd.Series, run: pd.Series, several: set, names: pd.Series | None = None) -> np.ndarray:
    """Each row's series label. A row with a run name (``names``: the ``run_name`` column, `plates run
    --name` or the run folder's name) reads that name; where one name covers several series (two runs in one
    folder, or a run of several models) it reads "name · model", and where even that repeats, "name · model
    (2)", numbered in run-id order: a legend never shows a hash. A row without a run name reads "model · run"
    for the models in ``several`` (answered in several runs), else the model. A person's rows (model
    "participant-…", `plates.results.schema.PARTICIPANT_PREFIX`) read "person: participant-…" whatever their run's
    name ("person: participant-… · run" when they answered in several runs), so no chart passes a person off
    as a model.

    Parameters
    ----------
    model : pandas.Series
        Model names, one per row.
    run : pandas.Series
        Run ids, one per row (null: "(no run)").
    several : set
        The models answered in several runs.
    names : pandas.Series, optional
        Run names, one per row (the ``run_name`` column); None or null: the rows have none.

    Returns
    -------
    numpy.ndarray
        The series labels, object dtype.

    Examples
    --------
    >>> m = pd.Series(["a", "a", "b"]); r = pd.Series(["x-1", "y-2", "z-3"])
    >>> list(series_labels(m, r, {"a"}, pd.Series(["quick", "quick", "other"])))
    ['quick · a (1)', 'quick · a (2)', 'other']
    """
    model, run = model.astype(object), run.astype(object).where(run.notna(), "(no run)")
    split = model.isin(several).to_numpy(bool)
    shown_model = model.astype(str)
    shown_model = shown_model.where(~shown_model.str.startswith(PARTICIPANT_PREFIX), PERSON_PREFIX + shown_model)
    shown = run_names(pd.DataFrame({"m": model.astype(str).to_numpy(), "r": run.astype(str).to_numpy()}))
    labels = np.where(split, shown_model.to_numpy(object) + " · " + shown, shown_model.to_numpy(object)).astype(object)
    if names is None:
        return labels
    # a person's rows keep "person: participant-…" (people are not runs; the quiz's folder names no one)
    person = model.astype(str).str.startswith(PARTICIPANT_PREFIX).to_numpy(bool)
    has_name = (pd.Series(names).notna().to_numpy(bool)
                & (pd.Series(names).astype(object).astype(str) != "").to_numpy(bool) & ~person)
    if not has_name.any():
        return labels
    pairs = pd.DataFrame({"n": pd.Series(names).astype(object).to_numpy(), "m": shown_model.to_numpy(object),
                          "r": run.astype(str).to_numpy()})[has_name]
    distinct = pairs.drop_duplicates().sort_values(["n", "m", "r"])
    shared = distinct.groupby("n")["r"].transform("size") > 1
    distinct["label"] = np.where(shared, distinct["n"] + " · " + distinct["m"], distinct["n"])
    repeated = distinct.groupby("label")["r"].transform("size") > 1
    number = distinct.groupby("label").cumcount() + 1
    distinct["label"] = np.where(repeated, distinct["label"] + " (" + number.astype(str) + ")", distinct["label"])
    named = pairs.merge(distinct, on=["n", "m", "r"], how="left")["label"].to_numpy(object)
    labels[has_name] = named
    return labels


#: A run id's tail: the experiment's hash (`plates.runs.experiment.Experiment.run_id`: name-<12 hex digits>).
_RUN_HASH = r"-[0-9a-f]{12}$"


def run_names(pairs: pd.DataFrame) -> np.ndarray:
    """Per row of ``pairs`` (columns ``m`` model, ``r`` run id), the run as a legend shows it: the experiment's
    name without its hash ("baseline-cbe-71ba3e1d4bc7" -> "baseline-cbe"), or the whole id where two runs of one
    model share that name (a legend never merges two runs, and never shows a hash it does not need).

    Parameters
    ----------
    pairs : pandas.DataFrame
        Columns ``m`` (model) and ``r`` (run id).

    Returns
    -------
    numpy.ndarray
        One run name per row, object dtype.

    Examples
    --------
    >>> import pandas as pd
    >>> run_names(pd.DataFrame({"m": ["a"], "r": ["baseline-cbe-71ba3e1d4bc7"]})).tolist()
    ['baseline-cbe']
    """
    short = pairs["r"].str.replace(_RUN_HASH, "", regex=True)
    distinct = pd.DataFrame({"m": pairs["m"], "r": pairs["r"], "s": short}).drop_duplicates()
    clash = distinct.groupby(["m", "s"])["r"].transform("nunique") > 1
    clashing = set(zip(distinct.loc[clash, "m"], distinct.loc[clash, "s"]))
    keep = [(m, s) in clashing for m, s in zip(pairs["m"], short)]
    return np.where(keep, pairs["r"], short).astype(object)


def _plain(column: pd.Series) -> pd.Series:
    """A categorical column as plain values (so group-bys add no rows for categories no row has)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.astype(column.cat.categories.dtype)
    return column


def counts_from_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Result rows as a count table: `COUNT_KEYS` present, answered ``n``, ``correct``, ``errors`` (what
    `plates.dashboard.queries.cube` gives from DuckDB).

    Parameters
    ----------
    frame : pandas.DataFrame
        Results rows.

    Returns
    -------
    pandas.DataFrame
        One row per combination of the `COUNT_KEYS` present.
    """
    keys = [c for c in COUNT_KEYS if c in frame.columns]
    table = metrics.accuracy_table(frame, keys)[[*keys, "n", "correct", "errors"]]
    return with_run_names(table, frame)


def with_run_names(table: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """``table`` (grouped by run_id) with each run's ``run_name`` from ``rows`` (the first in sort order where a
    run's parts sit in folders of several names, as the dashboard's cube takes it); ``table`` unchanged where
    either lacks the columns.

    Parameters
    ----------
    table : pandas.DataFrame
        A table with ``run_id``.
    rows : pandas.DataFrame
        Results rows with ``run_id`` and ``run_name``.

    Returns
    -------
    pandas.DataFrame
        ``table`` with ``run_name``.
    """
    if "run_name" not in rows.columns or "run_id" not in rows.columns or "run_id" not in table.columns:
        return table
    names = (pd.DataFrame({"run_id": _plain(rows["run_id"]).astype(object), "run_name": _plain(rows["run_name"])})
             .dropna(subset=["run_name"]).groupby("run_id", dropna=False)["run_name"].min())
    return table.assign(run_name=_plain(table["run_id"]).astype(object).map(names).to_numpy(object))


def labelled_counts(counts: pd.DataFrame, without: tuple[str, ...] = ()) -> pd.DataFrame:
    """A count table with its ``condition`` and ``series`` labels.

    Parameters
    ----------
    counts : pandas.DataFrame
        A count table (`counts_from_rows`).
    without : tuple of str, optional
        Condition parts left out of the condition label.

    Returns
    -------
    pandas.DataFrame
        ``counts`` with ``condition`` and ``series`` columns.
    """
    return with_series(with_condition(counts, without=without))


def choose(
    table: pd.DataFrame, condition: str | None, weight: str | None = None
) -> tuple[str | None, list[str], pd.DataFrame]:
    """The one condition a chart shows (none is pooled), and the others present.

    Parameters
    ----------
    table : pandas.DataFrame
        Rows with a ``condition`` column.
    condition : str or None
        The condition to show; None: the one with the most rows.
    weight : str or None
        The column that counts rows; None: answered ``n`` + failed ``errors``.

    Returns
    -------
    tuple
        (the condition shown, the others present, ``table``'s rows of it).

    Raises
    ------
    ValueError
        ``condition`` is not among the rows' conditions; the message lists them.
    """
    if table.empty:
        return None, [], table
    if weight is not None:
        size = table[weight]
    else:
        size = table["n"] + (table["errors"] if "errors" in table.columns else 0)
    sizes = size.groupby(table[CONDITION]).sum().sort_index()
    present = [str(c) for c in sizes.index]
    if condition is None:
        condition = str(sizes.idxmax())
    elif condition not in present:
        raise ValueError(f"condition {condition!r} is not in these rows; allowed: {', '.join(present)}")
    return condition, [c for c in present if c != condition], table[table[CONDITION] == condition]


def titled(fig: go.Figure, title: str, shown: str | None, others: list[str]) -> go.Figure:
    """The title names the condition shown and the others present (none is pooled).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure, changed in place.
    title : str
        The chart's title.
    shown : str or None
        The condition shown.
    others : list of str
        The other conditions present.

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig``.
    """
    if shown is not None:
        title += f" — {shown}"
        if others:
            wrapped = _wrapped(PAGE_NOTE_PREFIX + ", ".join(others))
            title += f"<br><sup>{wrapped}</sup>"
            fig.update_layout(margin=dict(t=80 + 14 * wrapped.count("<br>")))  # room above subplot titles
    fig.update_layout(title=title, meta={**(fig.layout.meta or {}), "condition": shown, "others": others})
    return fig


#: How a note meant for the page only starts in a title (the conditions a page's selectbox offers): exports drop it.
PAGE_NOTE_PREFIX = "also in these results (choose above): "


def without_page_notes(fig: go.Figure) -> go.Figure:
    """``fig`` (changed in place and returned) without a title's page-only note (`PAGE_NOTE_PREFIX`, in a
    ``<br><sup>`` line under the title) and the top margin it took: a file for a paper has no "choose above".

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure, changed in place.

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig``.
    """
    title = fig.layout.title.text or ""
    cut = title.find("<br><sup>" + PAGE_NOTE_PREFIX)
    if cut >= 0:
        fig.update_layout(title_text=title[:cut], margin_t=80)
    return fig


# ------------------------------------------------------------------------------------------------ colours
#: 24 series colours (sRGB hex), chosen greedily for the largest smallest CIEDE2000 difference between any two
#: (16.1 ΔE2000) from an sRGB grid of step 17, keeping CIELAB L* 30-72 (readable on white, not black), chroma
#: ≥ 28 (greys are the papers' markers) and no oranges (hue 45-75°: people's colour on the illusion pages).
MODEL_PALETTE = (
    "#2277bb", "#99bb00", "#ff3300", "#005522", "#ff00ff", "#773355", "#886611", "#00aa99",
    "#2200ee", "#ee8899", "#aaaaee", "#990000", "#00bbee", "#ccaa77", "#8866aa", "#dd1155",
    "#009933", "#007777", "#aa6655", "#444477", "#cc0099", "#667722", "#88bb88", "#cc88cc",
)


def _slot(name: str) -> int:
    """A stable palette index from the name (sha256, not Python's per-process salted ``hash``)."""
    return int.from_bytes(hashlib.sha256(str(name).encode("utf-8")).digest()[:8], "big") % len(MODEL_PALETTE)


def model_colour(name: str) -> str:
    """The colour (sRGB hex) of a model or series ``name``: the same in every page, both apps and every
    process, since it depends on the name alone.

    Parameters
    ----------
    name : str
        A model or series name.

    Returns
    -------
    str
        ``"#rrggbb"``, sRGB.

    Examples
    --------
    >>> model_colour("baseline") == model_colour("baseline")
    True
    """
    return MODEL_PALETTE[_slot(name)]


def model_colours(names: Iterable[str]) -> dict[str, str]:
    """A colour per distinct name, no two alike while there are at most ``len(MODEL_PALETTE)`` (24) names.

    Each name takes `model_colour` (its own slot) unless an earlier name in sorted order holds it; then the next
    free slot. So a model keeps its colour across pages except when its slot is shared in that figure.

    Parameters
    ----------
    names : iterable of str

    Returns
    -------
    dict of str to str
        Name -> hex sRGB colour (``#rrggbb``, 0-255 per channel).
    """
    out: dict[str, str] = {}
    taken: set[int] = set()
    for name in sorted({str(n) for n in names}):
        slot = _slot(name)
        if len(taken) < len(MODEL_PALETTE):
            while slot in taken:
                slot = (slot + 1) % len(MODEL_PALETTE)
        taken.add(slot)
        out[name] = MODEL_PALETTE[slot]
    return out


# ------------------------------------------------------------------------------------------------ axes
def percent_format(values, *, signed: bool = False) -> str:
    """A d3 tick format for shares in ``values`` (0-1 units) with as many decimals as their spread needs, so
    ticks never read "0%, 0%, 0%, -1%": plotly steps ticks by about a fifth of the spread (0 and the values),
    so 0 decimals for a spread of at least 5 points, 1 for 0.5, 2 for 0.05, else 3. ``signed``: a "+" on
    positive ticks (deltas).

    Parameters
    ----------
    values : iterable of float
        Shares, 0-1.
    signed : bool, optional
        Put "+" on positive ticks.

    Returns
    -------
    str
        A d3 format (``".1%"``, ``"+.0%"``).

    Examples
    --------
    >>> percent_format([0.0, -0.012]), percent_format([0.2, 0.9]), percent_format([-0.3, 0.1], signed=True)
    ('.1%', '.0%', '+.0%')
    """
    v = np.asarray(pd.to_numeric(pd.Series(np.ravel(values)), errors="coerce"), dtype=float)
    v = v[np.isfinite(v)]
    spread = float(max(v.max(), 0.0) - min(v.min(), 0.0)) if v.size else 1.0
    decimals = 0 if spread >= 0.05 else 1 if spread >= 0.005 else 2 if spread >= 0.0005 else 3
    return ("+" if signed else "") + f".{decimals}%"


#: Chance lines closer than this (accuracy, 0-1) share one label: their labels would overlap.
CHANCE_LABEL_GAP = 0.06


def _chance_percent(rate: float, digits: int) -> str:
    return f"{rate:.{digits}%}" if rate >= 0.01 or digits else f"{rate:.1%}"


def chance_labels(chances: dict[str, float]) -> dict[float, str | None]:
    """Each distinct chance rate (0-1, rounded to 4 places) -> its line's label, or None where the line is
    labelled with a neighbour: rates closer than `CHANCE_LABEL_GAP` share one label on the highest of them,
    each rate with its prompts (`add_chance_lines`), so labels never print over each other; rates that read the
    same at whole percents get one decimal (1/100 and 1/90: "1.0%" and "1.1%").

    Parameters
    ----------
    chances : dict of str to float
        Prompt name to its chance rate, 0-1.

    Returns
    -------
    dict of float to (str or None)
        Rounded rate to its label.

    Examples
    --------
    >>> chance_labels({"cbe-open": 0.01, "huemanity-numeric": 1 / 90, "cbe-yn": 0.5})
    {0.01: None, 0.0111: 'chance 1.0% (cbe-open) · 1.1% (huemanity-numeric)', 0.5: 'chance 50% (cbe-yn)'}
    >>> chance_labels({"a": 0.5, "b": 0.5})
    {0.5: 'chance 50%'}
    """
    by_rate: dict[float, list[str]] = {}
    for prompt, rate in chances.items():
        by_rate.setdefault(round(float(rate), 4), []).append(str(prompt))
    several = len(by_rate) > 1
    groups: list[list[float]] = []
    for rate in sorted(by_rate):
        if groups and rate - groups[-1][-1] < CHANCE_LABEL_GAP:
            groups[-1].append(rate)
        else:
            groups.append([rate])
    out: dict[float, str | None] = {}
    for group in groups:
        digits = 1 if len({_chance_percent(r, 0) for r in group}) < len(group) else 0
        parts = [_chance_percent(r, digits) + (f" ({', '.join(by_rate[r])})" if several else "") for r in group]
        out |= {r: None for r in group[:-1]}
        out[group[-1]] = "chance " + " · ".join(parts)
    return out


def add_chance_lines(fig: go.Figure, chances: dict[str, float], **where) -> go.Figure:
    """A dashed grey line at each distinct chance rate (guessing's accuracy, 0-1) with the prompts it is for:
    yes/no ½, k options 1/k, an open answer 1/|label space| (≈0 for an open space). Lines close together
    share one label (`chance_labels`).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        Changed in place.
    chances : dict of str to float
        Prompt -> chance rate, 0-1.
    **where
        ``add_hline``'s row / col for a subplot (and its other keywords).

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig``.
    """
    for rate, label in chance_labels(chances).items():
        # on a light box: a line's markers or error bars behind the words do not strike them through
        text = dict(annotation_text=label, annotation_position="top left", annotation_font_color="#555555",
                    annotation_bgcolor="rgba(255,255,255,0.8)") if label else {}
        fig.add_hline(y=rate, line_dash="dash", line_color="#777777", line_width=1, **text, **where)
    return fig


# ------------------------------------------------------------------------------------------------ helpers
def _wrapped(text: str, width: int = 110) -> str:
    """``text`` broken with ``<br>`` at the last ", " before each ``width`` characters (a subtitle listing many
    conditions stays inside an exported figure)."""
    lines, line = [], ""
    for part in text.split(", "):
        if line and len(line) + len(part) + 2 > width:
            lines.append(line + ",")
            line = part
        else:
            line = f"{line}, {part}" if line else part
    return "<br>".join([*lines, line])


def error_bars_between(value, low, high) -> dict:
    """Asymmetric error bars from an interval [low, high] around ``value``.

    Parameters
    ----------
    value : float or array_like
    low : float or array_like
    high : float or array_like

    Returns
    -------
    dict
        Plotly ``error_y`` / ``error_x`` settings (``array`` above, ``arrayminus`` below).

    Examples
    --------
    >>> bars = error_bars_between(0.5, 0.4, 0.7)
    >>> bars["array"].round(2).tolist(), bars["arrayminus"].round(2).tolist()
    ([0.2], [0.1])
    """
    value, low, high = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (value, low, high))
    return dict(type="data", symmetric=False, array=high - value, arrayminus=value - low)


def accuracy_error_bars(table: pd.DataFrame) -> dict:
    """Asymmetric error bars from each row's accuracy to its 95% interval's ends.

    Parameters
    ----------
    table : pandas.DataFrame
        Rows with ``accuracy``, ``ci_low`` and ``ci_high`` (0-1).

    Returns
    -------
    dict
        Plotly ``error_y`` settings.
    """
    return error_bars_between(table["accuracy"], table["ci_low"], table["ci_high"])


def accuracy_hover(table: pd.DataFrame) -> list[str]:
    """Each row's hover text: accuracy, n and the 95% interval, as percentages.

    Parameters
    ----------
    table : pandas.DataFrame
        Rows with ``accuracy``, ``n``, ``ci_low`` and ``ci_high``.

    Returns
    -------
    list of str
        One hover text per row.
    """
    return [
        f"accuracy {a:.1%} (n={int(n)}, 95% CI {lo:.1%}–{hi:.1%})"
        for a, n, lo, hi in zip(table["accuracy"], table["n"], table["ci_low"], table["ci_high"])
    ]


#: The quick-run command an empty page names: a model on an OpenAI-compatible server (a vLLM endpoint, ...).
RUN_COMMAND = ("plates run --dataset colorblindnesseval --backend openai --model MODEL --base-url URL "
               "--limit 100 --out results/runs/MODEL")


def run_hint(*flag_sets: str) -> str:
    """``<br>`` lines naming what to run to fill an empty page, in code style.

    Parameters
    ----------
    *flag_sets : str
        Flags added to `RUN_COMMAND`, one line each (e.g. ``"--prompt colorbench-mc"``).

    Returns
    -------
    str
        HTML.
    """
    return "".join(f"<br><span style='font-family:monospace'>{RUN_COMMAND} {flags}</span>" for flags in flag_sets)


def empty_figure(title: str, message: str) -> go.Figure:
    """A figure holding only a message, for a page with nothing to chart.

    Parameters
    ----------
    title : str
        The figure's title.
    message : str
        What the page says instead of a chart (kept in ``layout.meta["empty"]``).

    Returns
    -------
    plotly.graph_objects.Figure
        Axes hidden.
    """
    fig = go.Figure()
    fig.add_annotation(text=message, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    fig.update_layout(title=title, xaxis_visible=False, yaxis_visible=False, meta={"empty": message})
    return fig


def reference_marker(i: int) -> dict:
    """The marker of published row ``i``: the reference style with the i-th symbol (cycled).

    Parameters
    ----------
    i : int
        The published row's index.

    Returns
    -------
    dict
        Plotly marker settings.
    """
    return {**REFERENCE_MARKER, "symbol": REFERENCE_SYMBOLS[i % len(REFERENCE_SYMBOLS)]}


def reference_of(reference: pd.DataFrame | None, metric: str | tuple[str, ...], **equal) -> pd.DataFrame:
    """Reference rows of ``metric`` whose columns equal ``equal`` (a value or a list); non-null values.

    Parameters
    ----------
    reference : pandas.DataFrame or None
        The papers' reference rows (`plates.results.load_reference`).
    metric : str or tuple of str
        The metric(s) kept.
    **equal
        Column to the value (or list of values) it must equal.

    Returns
    -------
    pandas.DataFrame
        The rows (none when a named column is missing).
    """
    if reference is None or reference.empty:
        return pd.DataFrame(columns=REFERENCE_COLUMNS)
    wanted = (metric,) if isinstance(metric, str) else metric
    rows = reference[reference["metric"].isin(wanted) & reference["value"].notna()]
    for column, value in equal.items():
        if column not in rows.columns:
            return rows.iloc[0:0]
        rows = rows[rows[column].isin(value if isinstance(value, (list, tuple)) else [value])]
    return rows


def by_source_row(ref: pd.DataFrame):
    """(index, "model — source", rows) per published row label, in name order: one trace each.

    Parameters
    ----------
    ref : pandas.DataFrame
        Reference rows with ``model`` and ``source``.

    Returns
    -------
    iterator of (int, (str, pandas.DataFrame))
        Index, name and rows per published row label.
    """
    named = ref.assign(name=[f"{m} — {s}" for m, s in zip(ref["model"], ref["source"])])
    return enumerate(named.groupby("name", sort=True))


def series_name(series: str, prompt, several_prompts: bool) -> str:
    """A trace's name: the series, with its prompt when the chart shows several.

    Parameters
    ----------
    series : str
        The series.
    prompt : str
        Its prompt.
    several_prompts : bool
        Whether the chart shows several prompts.

    Returns
    -------
    str
        ``"series · prompt"``, or ``series``.
    """
    return f"{series} · {prompt}" if several_prompts else str(series)


def count_table(frame: pd.DataFrame | None, counts: pd.DataFrame | None) -> pd.DataFrame:
    """The count table a chart reads: ``counts`` as given, else made from ``frame``.

    Parameters
    ----------
    frame : pandas.DataFrame or None
        Results rows.
    counts : pandas.DataFrame or None
        Their count table, when already made.

    Returns
    -------
    pandas.DataFrame
        ``counts``, else `counts_from_rows` of ``frame``.

    Raises
    ------
    ValueError
        When both are None.
    """
    if counts is not None:
        return counts
    if frame is None:
        raise ValueError("give the result rows (frame) or their counts (counts=)")
    return counts_from_rows(frame)
