"""The results schema, declared once: one row per item x model x condition x prompt.

Every other module reads and writes results through it: the runner, the explorer's history, the dashboard and
the reference tables' loaders. A row stores the stimulus's full spec as tagged JSON (``spec_json``), so any
image can be regenerated exactly from its row: no image is ever stored in results.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

COLUMNS: dict[str, tuple[pa.DataType, str]] = {
    "run_id": (pa.string(), "identifier of the run (experiment) that wrote the row"),
    "run_name": (pa.string(), "the run's name as charts show it (`plates run --name`, else the --out folder's "
                              "name); rows written before it read their part's folder name (run_folder_name)"),
    "item_id": (pa.string(), "identifier of the item within its dataset (stable across runs)"),
    "model": (pa.string(), "model name as given to the backend (e.g. 'gpt-4o-mini', 'baseline-cnn')"),
    "backend": (pa.string(), "backend kind: 'openai', 'hf' or 'baseline'"),
    "dataset": (pa.string(), "dataset or preset name (e.g. 'colorblindnesseval')"),
    "task": (pa.string(), "the task the prompt asks (plates.tasks.TASKS, e.g. 'cbe-open', 'huemanity-numeric')"),
    "target": (pa.string(), "the plate's text label (ground truth)"),
    "expected": (pa.string(), "the answer this prompt expects: the label, 'yes'/'no', or an option letter"),
    "prompt_name": (pa.string(), "registered prompt name (see `plates prompts`)"),
    "prompt_text": (pa.string(), "the exact prompt text sent (last user turn)"),
    "options_json": (pa.string(), "multiple-choice options as JSON {letter: text}, else null"),
    "variant": (pa.string(), "'standard', 'clear' or 'mask'"),
    "group": (pa.string(), "the family's grouping of the item: a plate's colour set, an illusion's kind, a scene's "
                           "task or seed scene (the manifest's group; few-shot examples come from it); rows "
                           "written before it read their colour_set (legacy_group)"),
    "colour_set": (pa.string(), "a plate's colour set or pair name (e.g. 'colorblindnesseval-1', 'huemanity-07'); "
                                "null for every other family (PLATE_FAMILIES)"),
    "delta_e": (pa.float64(), "achieved CIEDE2000 between foreground and background (mean over pairs)"),
    "font": (pa.string(), "font name or path"),
    "size": (pa.int32(), "side in pixels of the image the model received"),
    "grayscale": (pa.bool_(), "condition: the image was converted to grayscale"),
    "hue_shift": (pa.float64(), "condition: hue rotation in degrees (0 = none)"),
    "cvd": (pa.string(), "condition: colour-vision-deficiency view: 'none', 'protan', 'deutan' or 'tritan'"),
    "cvd_severity": (pa.float64(), "condition: CVD severity 0-1 (0 when cvd is 'none')"),
    "shots": (pa.int32(), "number of few-shot examples before the question"),
    "spec_json": (pa.string(), "the plate's full PlateSpec as JSON: regenerates the plate exactly"),
    "reply": (pa.string(), "the model's raw reply text; null when the request failed"),
    "parsed": (pa.string(), "the answer parsed from the reply; null when unparsed or failed"),
    "parse_status": (pa.string(), "'ok', 'ambiguous', 'unparsed', 'refusal' (plates.tasks.answers.PARSE_STATUSES), "
                                 "'unsupported' or 'error'"),
    "correct": (pa.bool_(), "verdict; null when the request failed"),
    "failure_mode": (pa.string(), "HueManity App. E: 'hallucination', 'evasion', 'erratic'; null if correct"),
    "latency_s": (pa.float64(), "seconds from request to reply (last attempt)"),
    "prompt_tokens": (pa.int64(), "prompt tokens reported by the backend, if any"),
    "completion_tokens": (pa.int64(), "completion tokens reported by the backend, if any"),
    "attempts": (pa.int32(), "requests made for this row (1 = no retry)"),
    "error": (pa.string(), "error message when the request finally failed; never contains secrets"),
    "timestamp": (pa.timestamp("us", tz="UTC"), "when the reply arrived"),
    "plates_version": (pa.string(), "version of this package that wrote the row"),
    "family": (pa.string(), "stimulus family of spec_json (plates.stimuli.STIMULI: 'ishihara', ...)"),
    "engine_version": (pa.int32(), "plates.stimuli.ENGINE_VERSION that drew the image: pixels change only with it"),
    "truth_json": (pa.string(), "the question's facts beyond `expected`, as JSON (an illusion's pixel and human "
                                "answers, item class and signed ΔE2000; a scene's robustness variant); else null"),
    "row_key": (
        pa.string(),
        (
            "hash of run id x item x model x condition x prompt x shots: unique per row; a rerun with "
            "--retry-errors writes a newer row under the same key and load_results keeps the latest"
        ),
    ),
    # ΔE2000 as drawn (plates.stimuli.ishihara.measure), the text-only control, the paper protocol
    "delta_e_target": (pa.float64(), "the ΔE2000 the plate's spec requested; null when none (see delta_e_drawn_*)"),
    "delta_e_drawn_min": (pa.float64(), "smallest CIEDE2000 over the (foreground dot, background dot) pairs drawn"),
    "delta_e_drawn_p05": (pa.float64(), "5th percentile of CIEDE2000 over the dot pairs drawn (jitter included)"),
    "delta_e_drawn_median": (pa.float64(), "median CIEDE2000 over the (foreground dot, background dot) pairs drawn"),
    "delta_e_drawn_p95": (pa.float64(), "95th percentile of CIEDE2000 over the dot pairs drawn (jitter included)"),
    "text_only": (pa.bool_(), "condition: the image was replaced by a black image of its size (ColorBench App. J)"),
    "protocol": (pa.string(), "paper protocol the sampling settings came from (plates.runs.protocols); null: ours"),
    # whatever decided the answer, as sent (plates.models.base.Reply.settings / .revision)
    "generation_json": (pa.string(), "every generation setting sent or applied, as JSON (sampling, temperature, "
                                     "top-k/p, penalties, token budget, stop tokens, prompt format, what was left "
                                     "to the server); null: no model generated the reply (a person)"),
    "model_revision": (pa.string(), "what identifies the weights that answered: a local model's commit hash, an "
                                    "API's served model name and '@' its system_fingerprint; null: unknown"),
    # verdicts that can be recomputed (plates.tasks.answers, `plates rescore`)
    "rules_version": (pa.int32(), "plates.tasks.answers.RULES_VERSION of the rules that judged the reply; 0 "
                                  "(UNVERSIONED) for rows written before rows recorded it"),
    "reply_truncated": (pa.bool_(), "the reply was longer than the readers' cap: only its first and last "
                                    "characters were read (plates.tasks.answers.text.MAX_REPLY_CHARS)"),
    "label_space": (pa.string(), "the answer space the reply was read in (plates.stimuli.ishihara.labels: 'cbe', "
                                 "'huemanity-numeric', 'huemanity-alnum', 'any'); null for rows written before it"),
    "rescored_from": (pa.string(), "run id of the run whose stored replies this row re-judged (`plates rescore`); "
                                   "null for a row judged when the reply arrived"),
    # rows imported from an evaluation harness's log (plates.integrations.importing)
    "harness": (pa.string(), "the harness whose log the row was imported from (e.g. 'inspect_ai 0.3.285', "
                             "'lmms-eval'); null for rows plates asked itself"),
    "harness_correct": (pa.bool_(), "the harness's own verdict on the reply, beside ours (`correct`); null when "
                                    "the harness gave none or the row was not imported"),
    # the image as the model saw it (plates.models.views): null when the run named no view
    "view_family": (pa.string(), "the view family whose image processing the row records (plates.models.views, "
                                 "e.g. 'qwen2-vl', 'openai-high'); null: no view named or known"),
    "view_seen_width": (pa.int32(), "width in px of the image content the model saw at its finest scale"),
    "view_seen_height": (pa.int32(), "height in px of the image content the model saw at its finest scale"),
    "view_tiles": (pa.int32(), "images the vision encoder received (tiles, a global image included)"),
    "view_cropped_fraction": (pa.float64(), "share 0-1 of the sent image's area that no view shows (a crop)"),
    "view_figure_cut": (pa.bool_(), "some of the figure (a plate's text) fell outside every view; null: no figure"),
    "view_delta_e_p05": (pa.float64(), "5th percentile CIEDE2000 between figure and ground pixels of the view"),
    "view_delta_e_median": (pa.float64(), "median CIEDE2000 between figure and ground pixels of the view"),
    # the rules' own reading and the optional judge model's (plates.runs.judge): parsed / parse_status / correct /
    # failure_mode above hold the reading that decided (decided_by)
    "rules_parsed": (pa.string(), "what the rules read in the reply (plates.tasks.answers), whoever decided; null "
                                  "when they read nothing or the row predates the column"),
    "rules_parse_status": (pa.string(), "the rules' parse status of the reply ('ok', 'ambiguous', 'unparsed', "
                                        "'refusal', or 'unsupported'/'error' with no reply); null before the column"),
    "rules_correct": (pa.bool_(), "the rules' verdict on the reply; null when the request failed or before the "
                                  "column"),
    "decided_by": (pa.string(), "whose reading the verdict columns hold: 'rules' or 'judge' (the judge model "
                                "read an answer: plates.runs.judge); rows before the column read 'rules'"),
    "judge_model": (pa.string(), "the judge model asked about this reply (as its server names it); null: none"),
    "judge_prompt_version": (pa.int32(), "plates.runs.judge.JUDGE_PROMPT_VERSION of the prompt the judge got"),
    "judge_status": (pa.string(), "how the judge answered (plates.runs.judge.JUDGE_STATUSES): 'read' (an answer "
                                  "the rules read in its reply: it decided), 'none' (it said the reply commits to "
                                  "no answer), 'off-format' (the rules read nothing in its reply), 'error', "
                                  "'timeout'; null: the judge was not asked"),
    "judge_parsed": (pa.string(), "the answer the rules read in the judge's reply (judge_status 'read')"),
    "judge_reply": (pa.string(), "the judge's raw reply, its first plates.runs.judge.JUDGE_REPLY_CHARS characters "
                                 "(secrets redacted); null when it gave none"),
    "judge_error": (pa.string(), "why the judge's request failed (judge_status 'error'/'timeout'); never "
                                 "contains secrets"),
    "judge_generation_json": (pa.string(), "every setting sent to the judge, as JSON (temperature 0, token "
                                           "budget, what was left to the server)"),
    # direction-resolved thresholds (`plates ellipses`, plates.runs.ellipses); null on every other row
    "centre_x": (pa.float64(), "ellipse trial: CIE 1931 x of the centre colour (the ground's 8-bit sRGB as drawn)"),
    "centre_y": (pa.float64(), "ellipse trial: CIE 1931 y of the centre colour (the ground's 8-bit sRGB as drawn)"),
    "direction": (pa.string(), "ellipse trial: the direction from the centre ('uv-045.0': 45° in CIE 1976 u'v' "
                               "from +u'; 'L*+', 'C*-', 'h+': CIELAB lightness, chroma, hue)"),
    "direction_deg": (pa.float64(), "ellipse trial: the direction's angle in the u'v' plane, degrees from +u' "
                                    "(null for CIELAB directions)"),
    "level": (pa.float64(), "ellipse trial: the level the procedure asked for, in level_unit (capped at the "
                            "sRGB gamut along the direction)"),
    "level_shown": (pa.float64(), "ellipse trial: the level the figure dots show (their area-weighted mean in "
                                  "linear light against the ground), in level_unit"),
    "level_unit": (pa.string(), "ellipse trial: unit of level and level_shown: \"1e-3 u'v'\" (distance in CIE 1976 "
                                "u'v' x 1000) or 'CIELAB' (ΔL*, ΔC*ab or ΔH*ab)"),
    "code_steps": (pa.float64(), "ellipse trial: largest channel difference, in 8-bit sRGB codes, between the "
                                 "figure colour asked for (before rounding) and the centre"),
    # people (plates.runs.quiz): null on every model's row
    "colour_vision": (pa.string(), "a person's self-reported colour-vision type, optional (plates.runs.quiz."
                                   "COLOUR_VISION: 'normal', 'protan', 'deutan', 'tritan', 'unknown' = don't know); "
                                   "null: not given, or not a person's row (files written before it read null)"),
}

#: What ``rules_version`` reads as for rows written before rows recorded it (a file without the column).
UNVERSIONED = 0
#: Columns a file written before they existed reads with this value instead of null.
ABSENT_DEFAULTS: dict[str, Any] = {"rules_version": UNVERSIONED, "decided_by": "rules"}

#: The stimulus families whose rows' ``group`` is a plate's colour set, so they fill ``colour_set`` too; a row
#: with no ``family`` (written before the column, when plates were the only family) is a plate.
PLATE_FAMILIES: tuple[str, ...] = ("ishihara",)
#: How a person's rows name their ``model`` (backend "human"): "participant-<anonymous id>" (`plates.runs.quiz`).
PARTICIPANT_PREFIX = "participant-"

#: The ΔE2000 columns a stimulus's measurement fills (`plates.stimuli.ishihara.measure.DrawnDeltaE.columns`).
MEASURED_COLUMNS: tuple[str, ...] = ("delta_e_target", "delta_e_drawn_min", "delta_e_drawn_p05",
                                     "delta_e_drawn_median", "delta_e_drawn_p95")
#: The columns a view fills (`plates.models.views.measure.measure_view`); null in files written before them.
VIEW_COLUMNS: tuple[str, ...] = tuple(name for name in COLUMNS if name.startswith("view_"))

SCHEMA: pa.Schema = pa.schema([pa.field(name, typ) for name, (typ, _) in COLUMNS.items()])

#: The string columns ``load_results(categorical=True)`` returns as pandas Categorical: every string column but
#: ``row_key`` (unique per row, so a dictionary would only add an index to every value).
CATEGORICAL_COLUMNS: tuple[str, ...] = tuple(
    name for name, (typ, _) in COLUMNS.items() if typ == pa.string() and name != "row_key"
)
DICTIONARY = pa.dictionary(pa.int32(), pa.string())  # how a categorical column is held until pandas


# --------------------------------------------------------------------------------------------------------------
# Building tables


def rows_to_table(rows: Iterable[Mapping[str, Any]]) -> pa.Table:
    """Rows (mappings column -> value) as a pyarrow Table in ``SCHEMA``.

    Parameters
    ----------
    rows : iterable of mapping
        Column name -> value; a column a row leaves out is null.

    Returns
    -------
    pyarrow.Table
        Every ``SCHEMA`` column, in its order and types.

    Raises
    ------
    ValueError
        A key that is not a results column (a typo would otherwise be dropped silently), or a value of the
        wrong type; the message names the column.

    Examples
    --------
    >>> table = rows_to_table([{"row_key": "k1", "model": "m", "correct": True}])
    >>> table.num_rows, table.column("correct").to_pylist(), table.column("reply").to_pylist()
    (1, [True], [None])
    """
    rows = list(rows)
    unknown = sorted({key for row in rows for key in row} - COLUMNS.keys())
    if unknown:
        raise ValueError(f"unknown results columns {unknown}; the results columns are: {', '.join(COLUMNS)}")
    arrays = []
    for name, (typ, _) in COLUMNS.items():
        values = [row.get(name) for row in rows]
        try:
            arrays.append(pa.array(values, type=typ))
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError) as exc:
            raise ValueError(f"results column {name!r} expects {typ}: {exc}") from None
    return pa.Table.from_arrays(arrays, schema=SCHEMA)


def run_folder_name(part: str | os.PathLike[str]) -> str:
    """The run name of rows that do not record one: the name of the folder holding their part (the run's
    ``--out`` folder), or for a part named without a folder (an uploaded file) its name without
    ``.parquet``: the one rule both loaders (`plates.results.load_results`, `plates.results.query`) apply.
    ``part``: a local path or an object-store key (``/``-separated).

    Parameters
    ----------
    part : str or os.PathLike
        A part's local path or object-store key.

    Returns
    -------
    str
        The run's name.

    Examples
    --------
    >>> run_folder_name("results/runs/baseline-cbe/baseline-cbe-7a7f6006c43e-1.parquet")
    'baseline-cbe'
    >>> run_folder_name("my-run.parquet")
    'my-run'
    """
    path = Path(os.fspath(part))
    return path.parent.name or path.name.removesuffix(".parquet")


def colour_set_of(family: str | None, group: str | None) -> str | None:
    """The ``colour_set`` a row records: its ``group`` where the row is a plate (a family in `PLATE_FAMILIES`, or
    no family: a row written before the column), else None (an illusion's kind or a scene's task is no colour
    set). The loaders (`plates.results.load_results`, `plates.results.query`) read rows written before ``group``
    by the same rule: ``group`` from their ``colour_set``, ``colour_set`` null where the row is not a plate.

    Parameters
    ----------
    family : str or None
        The row's stimulus family (`plates.stimuli.STIMULI` name).
    group : str or None
        The row's grouping (palette, illusion kind, scene task).

    Returns
    -------
    str or None

    Examples
    --------
    >>> colour_set_of("ishihara", "colorblindnesseval-1"), colour_set_of("illusion", "chevreul")
    ('colorblindnesseval-1', None)
    """
    return group if family is None or family in PLATE_FAMILIES else None


# Part metadata keys (Parquet schema metadata), shared by the writer, the reader and compaction
SAFE_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
REPLACES_KEY = b"plates.replaces"  # schema metadata of a compacted part: JSON list of the part names it replaces
SUPERSEDES_KEY = b"plates.supersedes"  # schema metadata: rows here may supersede older rows with the same row_key
# schema metadata of a writer's part: JSON {"prefix", "first", "last", "level"}: the flush counters it holds.
# A part of a higher level whose range contains another part's range of the same writer hides it.
COVERS_KEY = b"plates.covers"
# schema metadata of the papers' reference tables (`plates.results.reference.SCHEMA`): they are not runs, so
# load_results leaves them out without calling them skipped (the dashboard reads them through plates.results.reference)
KIND_KEY, REFERENCE_KIND = b"plates.kind", b"reference"
#: schema metadata of a run's summary tables (`plates ellipses`: thresholds.parquet, ellipses.parquet): computed
#: from rows, not rows, so load_results and the dashboard leave them out as they leave out the reference tables
SUMMARY_KIND = b"summary"
NOT_ROWS_KINDS = (REFERENCE_KIND, SUMMARY_KIND)


