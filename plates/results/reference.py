"""The papers' published tables, transcribed: one long-format schema, declared once, and its Parquet I/O.

The human-readable transcription lives in ``plates/results/published/src/*.csv`` (``results/reference/`` in a
checkout is a link to ``plates/results/published/``) (one CSV per published table, the
source of truth, diffable); ``build_reference`` validates the CSVs and writes one Parquet file per table to
``results/reference/``; ``load_reference`` reads them back for the dashboard, which puts them beside a user's
runs (join on ``prompt_name``, ``condition``, ``size`` and ``shots``). Rebuild with
``python -m plates.results.reference build``. What each table holds, and every reading of an ambiguous cell, is written
down in ``results/reference/src/README.md``.

Tables (paper and section; the seeds are the papers' text extractions under ``../shared/seeds``):
ColorBlindnessEval Tables 1-5 (§4, App. A-B), HueManity Tables 2, 3 and 5 (§5), ColorBench Tables 1, 4 and 9
(§3.1, §3.2, App. J), IllusionBench+ Tables II and III (§III), RCID Table 1 (§4.2).

HueManity prints a ± beside each accuracy. Tables 2 and 3 print the 95% Wilson half-width (n = 1,000); Table
5's ± fit the Wald formula 1.96·√(p(1−p)/n) at n = 100 instead (49.0 ± 9.8%: Wald 9.80, Wilson 9.61), except
its 0% cells (± 1.9%, which Wald cannot give): ``ci_half_width`` keeps them as printed, and the dashboard draws
them as printed and says so (tests/results/test_reference_audit.py).

Values are fractions 0-1 (accuracies, rates, robustness; a percentage printed as ``33.6`` is stored as
``0.336``); ``delta`` rows are differences of such fractions (ColorBench Table 4 prints percentage points:
``+14.6`` is stored as ``0.146``). ``printed`` keeps the cell exactly as printed (``"33.6 ± 2.92%"``).

ColorBlindnessEval App. F swaps its two prompt labels: the prompt under "Yes/No (Y/N) Prompts" is the open
question ("What number do you see in the image? ...") and the one under "Open-Ended (Open) Prompts" is the
yes/no question ("Is the number in the image is <NUM>? ..."). We map by what the columns mean in §3.1, not by
App. F's headings: Y*/N (the correct number in the query) -> ``cbe-yn-correct``, Y/N* (an incorrect number) ->
``cbe-yn-incorrect``, Open / Open-C -> ``cbe-open``, Open-clear / OpenClear-C -> ``cbe-open-clear``.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from plates.storage import write_atomic
from plates.validation import check_choice

#: The folder holding the built Parquet files (``*.parquet``) and, under ``src/``, the CSV transcriptions.
#: Inside the package, so an installed wheel has them (`plates dashboard`'s "Published numbers" page); a checkout's
#: ``results/reference`` is a link to this folder, not a copy.
REFERENCE_DIR: Path = Path(__file__).resolve().parent / "published"
#: The folder of the CSV transcriptions (the source of truth).
SRC_DIR: Path = REFERENCE_DIR / "src"

#: Column name -> (Arrow type, description). The order here is the column order in the CSVs and on disk.
COLUMNS: dict[str, tuple[pa.DataType, str]] = {
    "source": (pa.string(), "'<paper> <table>', e.g. 'ColorBlindnessEval Table 1'"),
    "paper": (pa.string(), "paper short name: see PAPERS"),
    "table": (pa.string(), "table as the paper numbers it, e.g. 'Table 1', 'Table II'"),
    "model": (pa.string(), "model (or baseline: 'Human', 'Random choice', 'ResNet50'), one spelling per paper"),
    "row_printed": (pa.string(), "the row label exactly as printed, e.g. 'GPT-4o (CoT)', 'Qwen 2.5 VL Max'"),
    "task": (pa.string(), "the paper's task or column, e.g. 'Y*/N', 'numeric', 'Perception: Color Recognition'"),
    "condition": (pa.string(), "stimulus or prompting condition: see CONDITIONS"),
    "colour_set": (pa.string(), "colour set or pair (our palette name) where a table is per colour set, else null"),
    "font": (pa.string(), "font of the plates' text where the paper says, else null"),
    "size": (pa.int32(), "side in pixels of the image the model received, where the paper says, else null"),
    "shots": (pa.int32(), "in-context examples before the question, where the paper says, else null"),
    "metric": (pa.string(), "what value measures: see METRICS"),
    "value": (pa.float64(), "the number as a fraction 0-1 (delta: a difference of fractions)"),
    "printed": (pa.string(), "the cell exactly as printed in the paper"),
    "ci_half_width": (pa.float64(), "the printed ± as a fraction, else null (HueManity Tables 2-3: the 95% Wilson "
                                    "half-width; Table 5: fits the Wald half-width 1.96·√(p(1−p)/n), n = 100)"),
    "n": (pa.int64(), "items behind the value, where the paper says, else null"),
    "prompt_name": (pa.string(), "our registered prompt that corresponds (plates.tasks.prompts), else null"),
    "note": (pa.string(), "how the cell was read: provenance, caveats, resolved ambiguities"),
}
#: Arrow schema of the built Parquet files; the metadata lets a results loader recognise (and skip) them.
SCHEMA: pa.Schema = pa.schema(
    [pa.field(name, typ) for name, (typ, _) in COLUMNS.items()],
    metadata={b"plates.kind": b"reference"},
)
#: Columns that may never be empty.
REQUIRED: tuple[str, ...] = ("source", "paper", "table", "model", "row_printed", "task", "condition", "metric",
                             "value", "printed")
#: One value per key: a (source, row, column) cell of a published table.
KEY: tuple[str, ...] = ("source", "model", "task", "condition", "colour_set", "font", "size", "shots", "metric")

METRICS: dict[str, str] = {
    "accuracy": "proportion correct, 0-1",
    "robustness": "ColorBench Robust_M (Eq. 2): share of seed images correct under every recolouring, 0-1",
    "delta": "difference of two accuracies (or robustness), -1 to 1",
    "no_illusion_rate": "RCID: share of replies that follow the pixel values, 0-1",
    "human_like_rate": "RCID: share of replies that match human perception, 0-1",
}
CONDITIONS: dict[str, str] = {
    "standard": "the standard stimulus (CBE/HueManity: the full plate; ColorBench: RGB image + text)",
    "clear": "CBE: the foreground-only plate",
    "mask": "HueManity: the binary text mask",
    "cot": "ColorBench: chain-of-thought prompt (App. F)",
    "grayscale": "ColorBench: the image converted to grayscale",
    "text-only": "ColorBench App. J: the image replaced by a black image",
    "pixel-based prompt": "RCID: the question says 'Based on pixel values'",
    "human-based prompt": "RCID: the question says 'Based on human perception'",
}
PROMPT_NAMES: tuple[str, ...] = ("cbe-open", "cbe-open-clear", "cbe-yn-correct", "cbe-yn-incorrect",
                                 "huemanity-numeric", "huemanity-alnum", "colorbench-mc", "colorbench-mc-cot")


@dataclass(frozen=True)
class TableInfo:
    """Where one published table sits in its paper's text, and how its printed cells scale to ``value``.

    ``caption`` starts the caption line in the seed text; the table's lines are the block of non-blank lines
    right ``before`` or ``after`` it. ``scale`` divides the first number of a printed cell (100: percent).

    Attributes
    ----------
    stem : str
        The CSV / Parquet file stem.
    paper : str
        The paper, one of `plates.tasks.prompts.PAPERS`.
    table : str
        The table as the paper numbers it ('Table 1').
    seed_prefix : str
        The prefix of the paper's seed text file.
    caption : str
        The start of the caption line.
    block : str
        ``"before"`` or ``"after"``: where the table's lines are.
    scale : float
        What a printed cell's first number is divided by (100: percent).
    """

    stem: str
    paper: str
    table: str
    seed_prefix: str
    caption: str
    block: str
    scale: float

    @property
    def source(self) -> str:
        """The table's full source: paper and table (``'ColorBench Table 4'``)."""
        return f"{self.paper} {self.table}"


#: File stem -> the published table it transcribes (read-only).
TABLES: Mapping[str, TableInfo] = MappingProxyType({t.stem: t for t in (
    TableInfo("colorblindnesseval_table1", "ColorBlindnessEval", "Table 1", "000", "Table 1: Evaluation results",
              "before", 1),
    TableInfo("colorblindnesseval_table2", "ColorBlindnessEval", "Table 2", "000", "Table 2: The performance",
              "before", 1),
    TableInfo("colorblindnesseval_table3", "ColorBlindnessEval", "Table 3", "000", "Table 3: Yes/No Performance",
              "before", 1),
    TableInfo("colorblindnesseval_table4", "ColorBlindnessEval", "Table 4", "000", "Table 4: Few-Shot", "before", 1),
    TableInfo("colorblindnesseval_table5", "ColorBlindnessEval", "Table 5", "000", "Table 5: Evaluating Model",
              "before", 1),
    TableInfo("huemanity_table2", "HueManity", "Table 2", "002", "Table 2: Accuracy on the number", "after", 100),
    TableInfo("huemanity_table3", "HueManity", "Table 3", "002", "Table 3: Few-shot performance", "after", 100),
    TableInfo("huemanity_table5", "HueManity", "Table 5", "002", "Table 5: Image resolution ablation", "after", 100),
    TableInfo("colorbench_table1", "ColorBench", "Table 1", "001", "Table 1: Performance of", "after", 100),
    TableInfo("colorbench_table4", "ColorBench", "Table 4", "001", "Table 4: Adding reasoning steps", "after", 100),
    TableInfo("colorbench_table9", "ColorBench", "Table 9", "001", "Table 9: Average Accuracy", "after", 100),
    TableInfo("illusionbench_table2", "IllusionBench+", "Table II", "004", "TABLE II: Performance of VLMs",
              "after", 1),
    TableInfo("illusionbench_table3", "IllusionBench+", "Table III", "004", "TABLE III: Performance of VLMs",
              "after", 1),
    TableInfo("rcid_table1", "RCID", "Table 1", "003", "Table 1. The table demonstrates", "before", 100),
)})

_NUMBER = re.compile(r"[+\-–−]?[0-9]+(?:\.[0-9]+)?")


def printed_number(printed: str) -> float:
    """The first number of a printed cell, signs '+', '-', '–' (en dash) and '−' understood: '–3.9' -> -3.9.

    Parameters
    ----------
    printed : str
        A printed cell.

    Returns
    -------
    float
        Its first number.

    Raises
    ------
    ValueError
        When the cell holds no number.

    Examples
    --------
    >>> printed_number("–3.9"), printed_number("61.2 ± 1.0")
    (-3.9, 61.2)
    """
    match = _NUMBER.search(printed)
    if match is None:
        raise ValueError(f"printed cell {printed!r} holds no number; expected e.g. '0.936', '33.6 ± 2.92%', '–3.9'")
    return float(match.group(0).replace("–", "-").replace("−", "-"))


def _null(x: object) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x)) or x is pd.NA


def read_table_csv(path: str | Path) -> pd.DataFrame:
    """Read and validate one transcription CSV (``<stem>.csv`` with stem in TABLES); ValueError names the cell.

    Parameters
    ----------
    path : str or pathlib.Path
        ``<stem>.csv``.

    Returns
    -------
    pandas.DataFrame
        The rows in the reference schema.

    Raises
    ------
    ValueError
        For a stem not in `TABLES`, columns other than the schema's, or a cell `validate` refuses.
    """
    path = Path(path)
    if path.stem not in TABLES:
        raise ValueError(f"unknown reference table file {path.name!r}; allowed: "
                         f"{', '.join(s + '.csv' for s in TABLES)}")
    raw = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
    if list(raw.columns) != list(COLUMNS):
        raise ValueError(f"{path.name}: columns {list(raw.columns)} differ from the reference schema {list(COLUMNS)}")
    frame = raw.replace({"": None})
    for name in ("size", "shots", "n"):
        frame[name] = pd.array([None if v is None else int(v) for v in frame[name]], dtype="Int64")
    for name in ("value", "ci_half_width"):
        frame[name] = pd.array([None if v is None else float(v) for v in frame[name]], dtype="Float64")
    validate(frame, TABLES[path.stem], where=path.name)
    return frame


def validate(frame: pd.DataFrame, info: TableInfo, *, where: str = "") -> None:
    """Check one table's rows against the schema and the paper's conventions; ValueError names the bad cell.

    Parameters
    ----------
    frame : pandas.DataFrame
        One table's rows.
    info : TableInfo
        The table.
    where : str, optional
        Names the table in messages.

    Raises
    ------
    ValueError
        For an empty required cell, a wrong source / paper / table, an unknown metric, condition or prompt name,
        a value out of range or not matching its printed cell, a bad interval or count, or a duplicate key.
    """
    where = where or info.stem
    for i, row in enumerate(frame.to_dict("records"), start=2):  # line 1 of a CSV is its header
        at = f"{where} line {i}"
        for name in REQUIRED:
            if _null(row[name]):
                raise ValueError(f"{at}: column {name!r} is empty; required columns: {', '.join(REQUIRED)}")
        if (row["source"], row["paper"], row["table"]) != (info.source, info.paper, info.table):
            raise ValueError(f"{at}: source/paper/table {row['source']!r}/{row['paper']!r}/{row['table']!r}; "
                             f"this file holds {info.source!r} only")
        if row["metric"] not in METRICS:
            raise ValueError(f"{at}: metric {row['metric']!r}; allowed: {', '.join(METRICS)}")
        if row["condition"] not in CONDITIONS:
            raise ValueError(f"{at}: condition {row['condition']!r}; allowed: {', '.join(CONDITIONS)}")
        if not _null(row["prompt_name"]) and row["prompt_name"] not in PROMPT_NAMES:
            raise ValueError(f"{at}: prompt_name {row['prompt_name']!r}; allowed: {', '.join(PROMPT_NAMES)} or empty")
        value = float(row["value"])
        low = -1.0 if row["metric"] == "delta" else 0.0
        if not low <= value <= 1.0:
            raise ValueError(f"{at}: value {value} outside [{low}, 1] for metric {row['metric']!r}")
        expected = printed_number(row["printed"]) / info.scale
        if abs(value - expected) > 1e-9:
            raise ValueError(f"{at}: value {value} but printed {row['printed']!r} / {info.scale:g} = {expected}")
        if not _null(row["ci_half_width"]) and not 0.0 <= float(row["ci_half_width"]) <= 1.0:
            raise ValueError(f"{at}: ci_half_width {row['ci_half_width']} outside [0, 1]")
        for name in ("n", "size", "shots"):
            if not _null(row[name]) and int(row[name]) < (0 if name == "shots" else 1):
                raise ValueError(f"{at}: {name} {row[name]} is not a valid count")
    dup = frame.duplicated(subset=list(KEY), keep=False)
    if dup.any():
        first = frame[dup].iloc[0]
        raise ValueError(f"{where}: duplicate key {tuple(first[k] for k in KEY)} (key columns: {', '.join(KEY)})")


def to_arrow(frame: pd.DataFrame) -> pa.Table:
    """A validated frame as an Arrow table in SCHEMA (nulls kept as nulls).

    Parameters
    ----------
    frame : pandas.DataFrame
        A validated table.

    Returns
    -------
    pyarrow.Table
        In `SCHEMA`.
    """
    arrays = []
    for name, (typ, _) in COLUMNS.items():
        values = [None if _null(v) else v for v in frame[name].tolist()]
        arrays.append(pa.array(values, type=typ))
    return pa.Table.from_arrays(arrays, schema=SCHEMA)


def build_reference(src_dir: str | Path = SRC_DIR, out_dir: str | Path = REFERENCE_DIR) -> list[Path]:
    """Validate every ``<stem>.csv`` under ``src_dir`` and write ``out_dir/<stem>.parquet`` (atomically).

    Every table of TABLES must be present and no other CSV may be: a missing or foreign file is a ValueError.
    Returns the written paths, in TABLES order.

    Parameters
    ----------
    src_dir : str or pathlib.Path, optional
        The CSV folder.
    out_dir : str or pathlib.Path, optional
        The Parquet folder.

    Returns
    -------
    list of pathlib.Path
        The written files.

    Raises
    ------
    ValueError
        For a missing or foreign CSV, or a cell `validate` refuses.
    """
    src_dir, out_dir = Path(src_dir), Path(out_dir)
    found = {p.stem: p for p in sorted(src_dir.glob("*.csv"))}
    unknown = sorted(set(found) - set(TABLES))
    if unknown:
        raise ValueError(f"unknown CSV(s) in {src_dir}: {', '.join(unknown)}; allowed: {', '.join(TABLES)}")
    missing = [s for s in TABLES if s not in found]
    if missing:
        raise ValueError(f"missing CSV(s) in {src_dir}: {', '.join(s + '.csv' for s in missing)}")
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for stem in TABLES:
        table = to_arrow(read_table_csv(found[stem]))
        target = out_dir / f"{stem}.parquet"
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        write_atomic(sink.getvalue().to_pybytes(), target)  # whole or not at all, fsynced
        written.append(target)
    return written


def load_reference(paper: str | None = None, table: str | None = None, *,
                   reference_dir: str | Path | None = None) -> pd.DataFrame:
    """The published tables as one DataFrame in the reference schema, optionally one paper and/or one table.

    ``paper`` is one of PAPERS; ``table`` is a table as its paper numbers it ('Table 1', 'Table II') or a full
    source ('ColorBench Table 4'). Reads ``reference_dir`` (default REFERENCE_DIR) built by ``build_reference``.

    Parameters
    ----------
    paper : str, optional
        One of `plates.tasks.prompts.PAPERS`.
    table : str, optional
        A table as its paper numbers it, or a full source.
    reference_dir : str or pathlib.Path, optional
        The Parquet folder (default `REFERENCE_DIR`).

    Returns
    -------
    pandas.DataFrame
        Integer columns nullable (``<NA>`` for empty cells).

    Raises
    ------
    ValueError
        For an unknown paper or table.
    FileNotFoundError
        When a table's Parquet file is not built.
    """
    if paper is not None:
        # one list of the papers: the one the prompts name (plates.tasks: every family's tasks, ~0.4 s of CPU,
        # loaded where a paper is named: the dashboard's first page reads every table)
        from plates.tasks.prompts import PAPERS

        check_choice("paper", paper, PAPERS)
    infos = [t for t in TABLES.values() if paper is None or t.paper == paper]
    if table is not None:
        chosen = [t for t in infos if table in (t.table, t.source)]
        if not chosen:
            allowed = sorted({t.source for t in infos} | {t.table for t in infos})
            raise ValueError(f"unknown table {table!r}{' in ' + paper if paper else ''}; allowed: "
                             f"{', '.join(allowed)}")
        infos = chosen
    folder = Path(reference_dir) if reference_dir is not None else REFERENCE_DIR
    missing = [t.stem for t in infos if not (folder / f"{t.stem}.parquet").is_file()]
    if missing:
        raise FileNotFoundError(f"reference table(s) {', '.join(missing)} not built under {folder}; "
                                f"run `python -m plates.results.reference build`")
    tables = [pq.read_table(folder / f"{t.stem}.parquet", schema=SCHEMA) for t in infos]
    # integer columns stay integers with <NA> for empty cells; strings are Python str or None
    mapper = {pa.int32(): pd.Int32Dtype(), pa.int64(): pd.Int64Dtype()}.get
    return pa.concat_tables(tables).to_pandas(types_mapper=mapper).reset_index(drop=True)


def main(argv: list[str] | None = None) -> int:
    """``python -m plates.results.reference build [--src DIR] [--out DIR]``: rebuild the Parquet files from the CSVs.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: the command line).

    Returns
    -------
    int
        0 on success, 2 when a CSV is refused (the message on stderr).
    """
    parser = argparse.ArgumentParser(prog="python -m plates.results.reference",
                                     description="Build the papers' reference tables (CSV -> Parquet).")
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="validate results/reference/src/*.csv and write results/reference/*.parquet")
    build.add_argument("--src", type=Path, default=SRC_DIR, help=f"CSV folder (default {SRC_DIR})")
    build.add_argument("--out", type=Path, default=REFERENCE_DIR, help=f"output folder (default {REFERENCE_DIR})")
    args = parser.parse_args(argv)
    try:
        paths = build_reference(args.src, args.out)
    except ValueError as exc:
        print(f"plates.results.reference build: error: {exc}", file=sys.stderr)
        return 2
    for path in paths:
        print(f"{path}  {pq.read_metadata(path).num_rows} rows")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
