"""Harness results back in: an inspect_ai log or lmms-eval's per-sample logs -> results rows of our schema.

Each harness sample names the exported row it asked (inspect: the sample's metadata, written by
`plates.integrations.inspect_tasks`; lmms-eval: ``doc_id``, the row's index in the exported Parquet its task
read, or the ``sample_id`` its ``process_results`` returned). The row's question is rebuilt from its
``question_json`` and the reply is judged again by `plates.runs.rows.build_row`, the one row builder, so the
imported rows carry our verdict (``correct``, ``parsed``, ``parse_status``, ``failure_mode``) with the
harness's own beside it (``harness_correct``). They are written as a new run through the one results writer
(`plates.results.ResultsWriter`); nothing already stored is changed, and importing the same log again writes
nothing (the rows' keys are there).

Reading the logs needs neither harness installed: inspect's ``.json`` log is JSON and its ``.eval`` log (its
default) a Zstandard-compressed zip of JSON files, read by `plates.integrations.inspect_log` (inspect_ai's own
reader when it is importable, else `zipfile` and `zstandard`); lmms-eval writes ``*_samples_<task>.jsonl``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plates.integrations.exported import read_export
from plates.integrations.inspect_log import read_inspect_log
from plates.models.base import Reply
from plates.results import ResultsWriter
from plates.results.schema import MEASURED_COLUMNS
from plates.runs.plan import existing_keys
from plates.runs.rows import Asked, build_row
from plates.stimuli import family_of, spec_from_json
from plates.tasks import question_from_json

__all__ = ["ImportSummary", "HarnessSample", "import_samples", "inspect_samples", "lmms_eval_samples"]

#: Longest reply text kept from a log (untrusted text is bounded before it is parsed).
MAX_REPLY = 20_000


@dataclass(frozen=True)
class HarnessSample:
    """One harness sample: the exported row it asked (``row``: that row's columns, image left out), the
    model's reply text (None: the harness recorded an error), its own verdict (None: none given), the model's
    name, and the error message if any.

    Attributes
    ----------
    row : mapping
        The exported row it asked (its columns, image left out).
    reply : str or None
        The model's reply text (None: the harness recorded an error).
    harness_correct : bool or None
        The harness's own verdict (None: none given).
    model : str
        The model's name.
    error : str or None
        The error message, if any.
    """

    row: Mapping[str, Any]
    reply: str | None
    harness_correct: bool | None
    model: str
    error: str | None = None


@dataclass
class ImportSummary:
    """What an import did: rows written, rows already there, samples skipped (with why), the run id.

    Attributes
    ----------
    run_id : str
        The new run.
    out : str
        Where its rows are.
    written, existing : int
        Rows written, and rows already there.
    correct : int
        Rows our rules judged correct.
    skipped : dict of str to int
        Samples skipped, by reason.
    agree : int
        Rows where the harness's verdict and ours agree.
    """

    run_id: str
    out: str
    written: int = 0
    existing: int = 0
    correct: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    agree: int = 0


# ---- inspect_ai ------------------------------------------------------------------------------------------------
def _completion(sample: Mapping[str, Any]) -> str | None:
    """The model's reply text of an inspect sample (its output's first choice), or None."""
    choices = ((sample.get("output") or {}).get("choices")) or []
    if not choices:
        return None
    content = choices[0].get("message", {}).get("content")
    if isinstance(content, list):  # content parts: keep the text ones
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return content[:MAX_REPLY] if isinstance(content, str) else None


def _verdict(value: Any) -> bool | None:
    if value in ("C", True, 1, 1.0):
        return True
    if value in ("I", False, 0, 0.0):
        return False
    return None


def inspect_samples(paths: Sequence[str | Path]) -> Iterator[HarnessSample | str]:
    """Each inspect sample of the logs as a `HarnessSample`, or a string saying why it was skipped. A log
    whose samples carry no plates row (another task) raises ValueError naming it.

    Parameters
    ----------
    paths : sequence of str or pathlib.Path
        inspect_ai logs (.eval or .json).

    Yields
    ------
    HarnessSample or str
        A sample, or why one was skipped.

    Raises
    ------
    ValueError
        For a log whose samples carry no plates row.
    """
    for path in map(Path, paths):
        log, samples = read_inspect_log(path)
        header = log.get("eval") or {}
        model = str(header.get("model") or "unknown")
        if samples and not any("question_json" in (s.get("metadata") or {}) for s in samples):
            raise ValueError(f"{str(path)!r} is a log of task {header.get('task')!r}, not of a plates task "
                             "(its samples carry no question_json); allowed: logs of "
                             "plates/integrations/inspect_tasks.py")
        for s in samples:
            meta = s.get("metadata") or {}
            if "question_json" not in meta:
                yield "not a plates sample"
                continue
            scores = s.get("scores") or {}
            harness = _verdict(next(iter(scores.values()), {}).get("value")) if scores else None
            error = s.get("error")  # inspect writes {"message", "traceback", ...}; bounded either way
            message = str(error.get("message", error) if isinstance(error, dict) else error)[:500] if error else None
            yield HarnessSample(meta, None if error else _completion(s), harness, model, message)


# ---- lmms-eval -------------------------------------------------------------------------------------------------
def lmms_eval_samples(output_dir: str | Path, export: str | Path) -> Iterator[HarnessSample | str]:
    """Each sample of lmms-eval's ``*_samples_*.jsonl`` logs under ``output_dir`` (``--log_samples``) as a
    `HarnessSample`, mapped to the exported row through its ``plates`` metric's ``sample_id`` (written by the
    exported task's ``process_results``) or, failing that, its task's config and ``doc_id``. A log of another
    task raises ValueError naming it.

    Parameters
    ----------
    output_dir : str or pathlib.Path
        lmms-eval's ``--output_path``.
    export : str or pathlib.Path
        The exported set it asked.

    Yields
    ------
    HarnessSample or str
        A sample, or why one was skipped.

    Raises
    ------
    ValueError
        For a log of another task.
    """
    rows = read_export(export)
    by_id = {r["sample_id"]: r for config in rows.values() for r in config}
    files = sorted(Path(output_dir).rglob("*_samples_*.jsonl"))
    if not files:
        raise ValueError(f"{str(output_dir)!r} holds no *_samples_*.jsonl; allowed: an lmms-eval --output_path "
                         "of a run with --log_samples")
    results = sorted(Path(output_dir).rglob("*_results.json"))
    model = "unknown"
    if results:
        cfg = json.loads(results[-1].read_text(encoding="utf-8")).get("config", {})
        model = str(cfg.get("model_args") or cfg.get("model") or model)
        model = _model_name(model)
    for f in files:
        task = f.stem.split("_samples_", 1)[1]
        for line in f.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            s = json.loads(line)
            detail = s.get("plates") if isinstance(s.get("plates"), dict) else None
            if detail is None:
                raise ValueError(f"{str(f)!r} is a log of task {task!r} without the plates metric; allowed: logs "
                                 "of a task folder written by `plates export lmms-eval`")
            row = by_id.get(detail.get("sample_id"))
            if row is None:
                yield "item not in the exported set"
                continue
            resps = s.get("filtered_resps") or s.get("resps") or []
            while isinstance(resps, list) and resps:
                resps = resps[0]
            reply = resps[:MAX_REPLY] if isinstance(resps, str) else None
            yield HarnessSample(row, reply, _verdict(detail.get("correct")), model)


def _model_name(model_args: str) -> str:
    """``model_version=x,...`` or ``model=x`` -> x; else the string itself."""
    for part in model_args.split(","):
        key, _, value = part.partition("=")
        if key.strip() in ("model_version", "model", "pretrained") and value:
            return value.strip()
    return model_args


# ---- writing ---------------------------------------------------------------------------------------------------
def import_samples(samples: Iterable[HarnessSample | str], out: str | Path, *, harness: str, source: str,
                   export: str | Path | None = None) -> ImportSummary:
    """Write ``samples`` as one new run under ``out``; returns what was written and skipped.

    ``export``: the exported folder the harness asked; a sample whose row is not in it is skipped (counted). The
    run id is ``<harness>-<12 hex of source and model>``: importing the same log again writes nothing.

    Parameters
    ----------
    samples : iterable of HarnessSample or str
        The samples (strings are skips).
    out : str or pathlib.Path
        The results folder.
    harness : str
        The harness's name.
    source : str
        The log it came from (hashed into the run id).
    export : str or pathlib.Path, optional
        The exported folder the harness asked.

    Returns
    -------
    ImportSummary
        What was written and skipped.
    """
    allowed = None
    if export is not None:
        allowed = {r["sample_id"]: r for config in read_export(export).values() for r in config}
    samples = list(samples)
    good = [s for s in samples if isinstance(s, HarnessSample)]
    skipped: dict[str, int] = {}
    for s in samples:
        if isinstance(s, str):
            skipped[s] = skipped.get(s, 0) + 1
    models = sorted({s.model for s in good})
    digest = hashlib.sha256(json.dumps([harness.split()[0], source, models]).encode()).hexdigest()[:12]
    run_id = f"{harness.split()[0].replace('_', '-')}-{digest}"
    summary = ImportSummary(run_id=run_id, out=str(out))
    done = existing_keys(out, run_id)
    writer = ResultsWriter(out, run_id, flush_rows=256)
    try:
        for s in good:
            row = s.row
            if allowed is not None:
                mine = allowed.get(row.get("sample_id"))
                if mine is None or mine["question_json"] != row["question_json"]:
                    skipped["item not in the exported set"] = skipped.get("item not in the exported set", 0) + 1
                    continue
            key = hashlib.sha256(f"{run_id}\x00{s.model}\x00{row['sample_id']}".encode()).hexdigest()[:20]
            if key in done:
                summary.existing += 1
                continue
            done.add(key)
            written = build_row(_asked(row, run_id, key, s.model, harness),
                                Reply(text=s.reply, error=s.error or (None if s.reply is not None else "no reply")))
            written.update(harness=harness, harness_correct=s.harness_correct)
            writer.add(written)
            summary.written += 1
            summary.correct += bool(written["correct"])
            summary.agree += s.harness_correct is not None and bool(written["correct"]) == s.harness_correct
    finally:
        writer.close()
    summary.skipped = skipped
    return summary


def _asked(row: Mapping[str, Any], run_id: str, key: str, model: str, harness: str) -> Asked:
    question = question_from_json(row["question_json"])
    spec = spec_from_json(row["spec_json"])
    return Asked(
        run_id=run_id, row_key=key, item_id=row["item_id"], dataset=row["dataset"], model=model,
        backend=harness.split()[0], question=question, spec_json=row["spec_json"], family=family_of(spec).name,
        variant=row.get("asked_variant") or question.variant, group=row.get("group") or row.get("colour_set"),
        delta_e=row.get("delta_e"), font=row.get("font") or None, size=row.get("image_size"),
        grayscale=bool(row.get("grayscale")), hue_shift=float(row.get("hue_shift") or 0.0),
        cvd=row.get("cvd") or "none", cvd_severity=float(row.get("cvd_severity") or 0.0),
        text_only=bool(row.get("text_only")),
        measured={c: row.get(c) for c in MEASURED_COLUMNS},
    )
