"""Everything the results dashboard does that is not a widget (issue 5): loading, filters, the query
string, drill-down rows, plate regeneration and export bytes. The Streamlit pages in ``dashboard/`` are thin
calls into this module, so all of it is tested here without a UI.

Filters live in the URL query string so a view can be shared: ``?model=a&model=b&prompt=cbe-open`` (one
repeated key per chosen value; a key that is absent means "all").
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from plates.analysis import metrics
from plates.analysis.charts import CONDITION, with_condition

#: Filter key (as it appears in the query string) -> column of the results frame it selects on.
FILTER_COLUMNS: dict[str, str] = {
    "model": "model",
    "colour_set": "colour_set",
    "condition": CONDITION,
    "prompt": "prompt_name",
}

#: The columns the charts read (item keys for the paired metrics, verdicts, conditions): pages filter this
#: narrow frame, so a click on a million rows never copies the heavy text columns (spec_json, reply, prompt).
CHART_COLUMNS = (
    *metrics.ITEM_KEYS, "run_id", "task", "colour_set", "delta_e", "correct", "failure_mode", "parse_status",
    CONDITION,
)

#: Export formats of the filtered rows -> (file extension, MIME type).
EXPORT_FORMATS: dict[str, tuple[str, str]] = {
    "csv": ("csv", "text/csv"),
    "parquet": ("parquet", "application/vnd.apache.parquet"),
}

#: Columns the drill-down table shows, in order (the rest stay in the export).
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
    "colour_set",
    CONDITION,
    "delta_e",
    "item_id",
    "run_id",
)

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


@dataclass(frozen=True)
class Filters:
    """Chosen values per filter key; an empty tuple means "no filter on this key" (everything)."""

    model: tuple[str, ...] = ()
    colour_set: tuple[str, ...] = ()
    condition: tuple[str, ...] = ()
    prompt: tuple[str, ...] = ()

    def chosen(self) -> dict[str, tuple[str, ...]]:
        return {key: getattr(self, key) for key in FILTER_COLUMNS}


@dataclass(frozen=True)
class Loaded:
    """A results frame ready for the dashboard: the ``condition`` column added, the files skipped, the
    values each filter offers (computed once here, not on every click), and ``narrow``: the same rows with
    only `CHART_COLUMNS`, which the pages filter and chart."""

    frame: pd.DataFrame
    skipped: list[tuple[str, str]] = field(default_factory=list)
    options: dict[str, list[str]] = field(default_factory=dict)

    @property
    def narrow(self) -> pd.DataFrame:
        return narrow(self.frame)


def load(path: str | Path | Iterable[str | Path]) -> Loaded:
    """Every results part under ``path`` (a folder, recursively; a file; or several) via
    `plates.results.load_results`, with the derived ``condition`` column. The papers' reference tables
    (Parquet files marked ``plates.kind = reference``, e.g. ``results/reference/``) are not runs and are left
    out (by `load_results` itself); the dashboard shows them through `plates.results.reference`. The folder is listed
    by `load_results`, which lists it again when a run compacts its parts meanwhile. The string columns come
    as pandas Categorical (``categorical=True``: a million rows load several times faster in half the memory,
    bench/bench_dashboard.py); values and sort order are those of the strings. A missing path is a ValueError
    naming it."""
    from plates.results import load_results

    loaded = load_results(path, categorical=True)
    frame = with_condition(loaded.frame)
    return Loaded(frame, list(loaded.skipped), filter_options(frame))


def narrow(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with only the `CHART_COLUMNS` it has (same index, so full rows can be fetched back)."""
    return frame[[c for c in CHART_COLUMNS if c in frame.columns]]


def full_rows(frame: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """The complete rows of ``frame`` (every column) behind ``rows``, a subset of it (e.g. of its narrow
    form), in ``rows``' order."""
    return frame.loc[rows.index]


def fingerprint(path: str | Path) -> tuple[tuple[str, int, int], ...]:
    """(relative name, size, mtime in ns) of every Parquet file under ``path``: a cache key that changes when
    a run adds or rewrites a part. A missing path gives an empty tuple (loading it says what is wrong)."""
    root = Path(path)
    if root.is_file():
        stat = root.stat()
        return ((root.name, stat.st_size, stat.st_mtime_ns),)
    if not root.is_dir():
        return ()
    found = []
    for file in sorted(root.rglob("*.parquet")):
        stat = file.stat()
        found.append((str(file.relative_to(root)), stat.st_size, stat.st_mtime_ns))
    return tuple(found)


def empty_help(path: str | Path) -> str:
    """Markdown telling the user how to make results when ``path`` holds none."""
    return EMPTY_HELP.format(path=path)


def filter_options(frame: pd.DataFrame) -> dict[str, list[str]]:
    """The values each filter can take in ``frame`` (sorted; nulls left out)."""
    options = {}
    for key, column in FILTER_COLUMNS.items():
        if column in frame.columns:
            options[key] = sorted(str(v) for v in frame[column].dropna().unique())
        else:
            options[key] = []
    return options


def filters_from_query(params: Mapping[str, object]) -> Filters:
    """Filters from a query-string mapping (``st.query_params.to_dict()`` gives str, AppTest may give lists).

    Unknown keys are ignored (the URL may carry other state); values keep their order, duplicates dropped."""
    chosen = {}
    for key in FILTER_COLUMNS:
        raw = params.get(key)
        if raw is None:
            continue
        values = [raw] if isinstance(raw, str) else list(raw)
        chosen[key] = tuple(dict.fromkeys(str(v) for v in values if str(v) != ""))
    return Filters(**chosen)


def filters_to_query(filters: Filters) -> dict[str, list[str]]:
    """The query-string form of ``filters``: one list per key that filters anything
    (for ``st.query_params.from_dict``)."""
    return {key: list(values) for key, values in filters.chosen().items() if values}


def valid_filters(filters: Filters, options: Mapping[str, list[str]]) -> tuple[Filters, list[str]]:
    """Drop values that ``options`` does not offer (a shared URL on other data); returns the kept filters and
    a message per dropped value, so the page can say what it ignored rather than fail."""
    kept, dropped = {}, []
    for key, values in filters.chosen().items():
        allowed = set(options.get(key, []))
        kept[key] = tuple(v for v in values if v in allowed)
        dropped += [f"{key}={v!r} is not in these results" for v in values if v not in allowed]
    return Filters(**kept), dropped


def apply_filters(frame: pd.DataFrame, filters: Filters) -> pd.DataFrame:
    """Rows of ``frame`` matching every non-empty filter (values compared as strings). With no filter the
    frame itself comes back (no copy of a million rows on every click); callers never modify it."""
    if not any(filters.chosen().values()):
        return frame
    mask = pd.Series(True, index=frame.index)
    for key, values in filters.chosen().items():
        if not values:
            continue
        column = FILTER_COLUMNS[key]
        if column not in frame.columns:
            raise ValueError(
                f"cannot filter on {key!r}: the results have no {column!r} column; "
                f"columns: {list(frame.columns)}"
            )
        mask &= _isin_as_strings(frame[column], values)
    return frame[mask]


def _isin_as_strings(column: pd.Series, values: Iterable[str]) -> pd.Series:
    """Boolean mask: the value, as a string, is one of ``values`` (null never is). A categorical column is
    matched on its categories and codes, without turning a million rows into strings on every click."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        chosen = column.cat.categories.astype(str).isin(list(values))
        codes = column.cat.codes.to_numpy()
        return pd.Series(np.append(chosen, False)[codes], index=column.index)  # code -1 (null): False
    return column.astype("string").isin(list(values)).fillna(False).astype(bool)


def drilldown_rows(
    frame: pd.DataFrame, *, only: str = "all", limit: int = 24, offset: int = 0
) -> pd.DataFrame:
    """The rows the drill-down shows: ``only`` in "all" | "correct" | "incorrect" | "failed", then a page of
    ``limit`` rows from ``offset``, in a stable order (run, item, model, prompt)."""
    choices = {
        "all": lambda f: pd.Series(True, index=f.index),
        "correct": lambda f: f["correct"].fillna(False).astype(bool),
        "incorrect": lambda f: (f["correct"] == False).fillna(False).astype(bool),  # noqa: E712 (null stays out)
        "failed": lambda f: f["correct"].isna(),
    }
    if only not in choices:
        raise ValueError(f"drill-down filter {only!r} is unknown; allowed: {sorted(choices)}")
    if limit < 1 or offset < 0:
        raise ValueError(f"drill-down page limit={limit}, offset={offset}: need limit >= 1 and offset >= 0")
    rows = frame[choices[only](frame)]
    order = [c for c in ("run_id", "item_id", "model", "prompt_name") if c in rows.columns]
    if order:
        rows = rows.sort_values(order, kind="stable")
    return rows.iloc[offset : offset + limit]


def drilldown_text(row: Mapping[str, object]) -> tuple[str, str, str]:
    """What the drill-down prints beside one row's plate, as Streamlit markdown: the headline (model, prompt,
    target, expected answer, verdict: correct / wrong / failed with the request's error), the parsed answer
    with its parse status and failure mode (HueManity App. E), and the raw reply as plain text."""

    def text(key):
        value = row.get(key)
        return value if isinstance(value, str) and value else None

    correct = row.get("correct")
    if correct is True or correct is False or isinstance(correct, np.bool_):
        verdict = ":green[**correct**]" if bool(correct) else ":red[**wrong**]"
    else:  # null: the request failed, there is no answer to judge
        verdict = f":orange[**failed**: {text('error') or 'no reply'}]"
    headline = (f"**{row.get('model')}** · `{row.get('prompt_name')}` · target **{row.get('target')}** "
                f"(expected `{row.get('expected')}`) — {verdict}")
    details = ", ".join(v for v in (text("parse_status"), text("failure_mode")) if v)
    parsed = f"parsed: `{text('parsed')}`" if text("parsed") else "parsed: —"
    if details:
        parsed += f" ({details})"
    return headline, parsed, text("reply") or "(no reply)"


def regenerate_plate(row: Mapping[str, object]):
    """The image the model saw for one result row: the plate re-rendered from ``spec_json``, its ``variant``
    taken, and the row's condition (size, grayscale, hue shift, CVD view) re-applied. PIL RGB, sRGB 0-255.

    DESIGN.md: a plate is fully determined by its spec, so no image is stored in results."""
    from plates.stimuli.ishihara.plate import PlateSpec, render
    from plates.conditions import Condition, apply_condition

    spec_json = row.get("spec_json")
    if not isinstance(spec_json, str) or not spec_json:
        raise ValueError(f"row {row.get('item_id')!r} has no spec_json; cannot regenerate its plate")
    plate = render(PlateSpec.from_json(spec_json))
    image = plate.variant(str(row.get("variant") or "standard"))
    cvd = str(row.get("cvd") or "none")
    size = row.get("size")
    condition = Condition(
        size=None if size is None or pd.isna(size) else int(size),
        grayscale=bool(row.get("grayscale") or False),
        hue_shift=float(row.get("hue_shift") or 0.0),
        cvd=cvd,
        cvd_severity=float(row.get("cvd_severity") or 0.0) if cvd != "none" else 1.0,
    )
    return apply_condition(image, condition)


def export_bytes(frame: pd.DataFrame, fmt: str) -> bytes:
    """The filtered rows as a CSV or Parquet file (derived dashboard columns left out, so the Parquet reads
    back with `plates.results.load_results`)."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"export format {fmt!r} is unknown; allowed: {sorted(EXPORT_FORMATS)}")
    out = frame.drop(columns=[CONDITION], errors="ignore")
    if fmt == "csv":
        return out.to_csv(index=False).encode("utf-8")
    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(out, preserve_index=False), buffer)
    return buffer.getvalue()


def export_name(fmt: str, filters: Filters) -> str:
    """A file name for the export that says what was filtered, e.g. ``plates-results-model=gpt-4o.csv``."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"export format {fmt!r} is unknown; allowed: {sorted(EXPORT_FORMATS)}")
    parts = [f"{k}={'+'.join(v)}" for k, v in filters.chosen().items() if v]
    stem = "-".join(["plates-results", *parts])
    stem = "".join(c if c.isalnum() or c in "-_=+." else "_" for c in stem)[:120]
    return f"{stem}.{EXPORT_FORMATS[fmt][0]}"
