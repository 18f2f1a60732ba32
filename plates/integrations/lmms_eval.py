"""lmms-eval task folders over an exported set (`plates export hf`), and the functions their YAML names.

    plates export hf --dataset colorblindnesseval --prompt cbe-open --prompt ... --out /data/cbe
    plates export lmms-eval --from /data/cbe --out tasks/plates_cbe [--dataset-path me/plates-cbe]
    python -m lmms_eval --model openai --model_args model_version=M,base_url=URL --tasks plates_cbe \\
        --include_path tasks/plates_cbe --log_samples --output_path out/

The folder holds a group YAML (``<name>.yaml``), one task YAML per config of the export (prompt x condition)
and ``_default_template_yaml`` with what they share: ``dataset_path`` (the local export folder, or the Hub
repository it was pushed to) with ``dataset_name`` the config (the dataset card's ``configs``), the ``test``
split, ``generate_until`` with the export's generation settings (greedy: temperature 0, ``do_sample: false``,
the protocol's token limit), and ``utils.py``, a two-line file naming the functions below. Images reach the
model as PNG: lmms-eval's OpenAI adapter encodes each PIL image as PNG (pixels unchanged); the question is the
row's text as `plates run` sends it.

`process_results` judges a reply with the task's own `plates.tasks.base.Task.score` (the row's
``question_json``) and reports, through lmms-eval's aggregation: ``accuracy`` (mean) with its Wilson 95%
interval (``accuracy_ci_low``/``accuracy_ci_high``; as `plates.analysis.metrics.wilson_interval`), the share of
"yes" among parsed yes/no replies (``yes_rate``: ColorBlindnessEval §4's yes/no balance), the share of each
HueManity App. E failure mode (``hallucination_rate``, ``evasion_rate``, ``erratic_rate``), and a ``plates``
record per sample (sample id, verdict, parse status, rule) that `plates import lmms-eval` maps back.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from plates.analysis.metrics import wilson_interval
from plates.integrations.exported import read_export
from plates.storage import temporary_name
from plates.tasks import get_task, question_from_json

__all__ = ["FAILURE_MODES", "doc_to_text", "doc_to_visual", "export_lmms_eval", "process_results"]

FAILURE_MODES = ("hallucination", "evasion", "erratic")
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


# ---- what the task YAML calls (via utils.py) -----------------------------------------------------------------
def doc_to_visual(doc: dict[str, Any]) -> list[Any]:
    """The row's image, as lmms-eval's ``doc_to_visual`` wants it.

    Parameters
    ----------
    doc : dict
        One exported row, as `datasets` loads it.

    Returns
    -------
    list of PIL.Image.Image
        One RGB image (sRGB 0-255), decoded by `datasets` from the exported PNG bytes.
    """
    return [doc["image"].convert("RGB")]


def doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict[str, Any] | None = None) -> str:
    """The question exactly as ``plates run`` sends it (no pre- or post-prompt is added).

    Parameters
    ----------
    doc : dict
        One exported row.
    lmms_eval_specific_kwargs : dict or None
        lmms-eval's prompt options; ignored.

    Returns
    -------
    str
    """
    return doc["question"]


def process_results(doc: dict[str, Any], results: Sequence[str]) -> dict[str, Any]:
    """Judge ``results[0]`` with the row's task scorer; one value per metric of the YAML.

    Parameters
    ----------
    doc : dict
        One exported row (its ``question_json`` is read).
    results : sequence of str
        The model's replies (the first is judged; none: an empty reply).

    Returns
    -------
    dict
        ``accuracy`` (0/1) and its interval's per-doc values, ``yes_rate`` (yes/no questions parsed, else
        None), one ``<mode>_rate`` per `FAILURE_MODES`, and ``plates``: the record ``plates import
        lmms-eval`` reads.
    """
    question = question_from_json(doc["question_json"])
    reply = results[0] if results else ""
    verdict = get_task(question.task).score(question, reply if isinstance(reply, str) else str(reply))
    correct = 1.0 if verdict.correct else 0.0
    yes = None
    if question.kind == "yesno" and verdict.parse_status == "ok":
        yes = 1.0 if verdict.parsed == "yes" else 0.0
    out: dict[str, Any] = {
        "accuracy": correct, "accuracy_ci_low": correct, "accuracy_ci_high": correct, "yes_rate": yes,
        "plates": {"sample_id": doc["sample_id"], "item_id": doc["item_id"], "correct": bool(verdict.correct),
                   "parsed": verdict.parsed, "parse_status": verdict.parse_status,
                   "failure_mode": verdict.failure_mode, "rule": verdict.rule},
    }
    for mode in FAILURE_MODES:
        out[f"{mode}_rate"] = 1.0 if verdict.failure_mode == mode else 0.0
    return out


def mean(values: Sequence[float | None]) -> float:
    """The mean of the values that are not None (NaN when none): an lmms-eval aggregation.

    Parameters
    ----------
    values : sequence of float or None

    Returns
    -------
    float

    Examples
    --------
    >>> mean([1.0, None, 0.0])
    0.5
    """
    kept = [float(v) for v in values if v is not None]
    return sum(kept) / len(kept) if kept else float("nan")


def ci_low(values: Sequence[float]) -> float:
    """Wilson 95% lower bound of the accuracy: an lmms-eval aggregation.

    Parameters
    ----------
    values : sequence of float
        Per-doc 0/1 values.

    Returns
    -------
    float

    References
    ----------
    Wilson (1927), *J. Am. Stat. Assoc.* 22(158): 209-212.
    """
    return wilson_interval(int(sum(values)), len(values))[0]


def ci_high(values: Sequence[float]) -> float:
    """Wilson 95% upper bound of the accuracy: an lmms-eval aggregation.

    Parameters
    ----------
    values : sequence of float
        Per-doc 0/1 values.

    Returns
    -------
    float

    References
    ----------
    Wilson (1927), *J. Am. Stat. Assoc.* 22(158): 209-212.
    """
    return wilson_interval(int(sum(values)), len(values))[1]


def count(values: Sequence[Any]) -> float:
    """The number of samples judged (the ``plates`` records are for `plates import lmms-eval`).

    Parameters
    ----------
    values : sequence
        The ``plates`` records.

    Returns
    -------
    float
        Their number.
    """
    return float(len(values))


# ---- writing the task folder ---------------------------------------------------------------------------------
UTILS = '''"""lmms-eval's `!function utils.*` names for the plates tasks: the logic lives in plates.integrations.lmms_eval."""
from plates.integrations.lmms_eval import (  # noqa: F401
    ci_high, ci_low, count, doc_to_text, doc_to_visual, mean, process_results,
)
'''


class _Function(str):
    """A YAML ``!function`` tag (lmms-eval's way of naming a Python function)."""


def _dump(data: dict[str, Any]) -> str:
    dumper = type("Dumper", (yaml.SafeDumper,), {})
    dumper.add_representer(_Function, lambda d, v: d.represent_scalar("!function", str(v)))
    return yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True, width=1000)


def _metrics(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    f = _Function
    out = [{"metric": "accuracy", "aggregation": f("utils.mean"), "higher_is_better": True},
           {"metric": "accuracy_ci_low", "aggregation": f("utils.ci_low"), "higher_is_better": True},
           {"metric": "accuracy_ci_high", "aggregation": f("utils.ci_high"), "higher_is_better": True}]
    if any(r["kind"] == "yesno" for r in rows):
        out.append({"metric": "yes_rate", "aggregation": f("utils.mean"), "higher_is_better": False})
    if any(r["task"].startswith("huemanity") for r in rows):
        out += [{"metric": f"{m}_rate", "aggregation": f("utils.mean"), "higher_is_better": False}
                for m in FAILURE_MODES]
    return [*out, {"metric": "plates", "aggregation": f("utils.count"), "higher_is_better": True}]


def export_lmms_eval(source: str | os.PathLike, out: str | os.PathLike, *, name: str = "plates",
                     dataset_path: str | None = None) -> list[str]:
    """Write the lmms-eval task folder for the export at ``source``.

    Parameters
    ----------
    source : str or os.PathLike
        A folder written by ``plates export hf``.
    out : str or os.PathLike
        A new or empty folder.
    name : str
        The task group's name.
    dataset_path : str or None
        Where lmms-eval loads the data from (default: ``source``'s absolute path; a Hub repository id where
        the folder was pushed).

    Returns
    -------
    list of str
        The task names.

    Raises
    ------
    ValueError
        ``source`` is not an export.
    """
    if not _NAME.match(name):
        raise ValueError(f"--name {name!r} is not allowed; allowed: lower-case letters, digits and '_', starting "
                         "with a letter (an lmms-eval task name)")
    configs = read_export(source)
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"--out {str(out)!r} exists and is not an empty folder; allowed: a new or empty folder")
    first = next(iter(configs.values()))[0]
    template = {
        "dataset_path": dataset_path or str(Path(source).resolve()),
        "test_split": "test", "output_type": "generate_until",
        "doc_to_visual": _Function("utils.doc_to_visual"), "doc_to_text": _Function("utils.doc_to_text"),
        "doc_to_target": "expected", "process_results": _Function("utils.process_results"),
        "generation_kwargs": {"max_new_tokens": int(first["max_tokens"]), "temperature": float(first["temperature"]),
                              "do_sample": False, "num_beams": 1, "until": []},
        "metadata": {"version": 0, "source": "plates export lmms-eval"},
    }
    tasks = []
    files: dict[str, str] = {"_default_template_yaml": _dump(template), "utils.py": UTILS}
    for config, rows in configs.items():
        task = f"{name}_{re.sub(r'[^a-z0-9]+', '_', config.lower()).strip('_')}"
        tasks.append(task)
        files[f"{task}.yaml"] = _dump({"include": "_default_template_yaml", "task": task, "dataset_name": config,
                                       "metric_list": _metrics(rows)})
    files[f"{name}.yaml"] = _dump({"group": name, "task": tasks, "aggregate_metric_list": [
        {"metric": "accuracy", "aggregation": "mean", "weight_by_size": True}], "metadata": {"version": 0}})
    tmp = temporary_name(out)
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for fname, text in files.items():
        (tmp / fname).write_text(text, encoding="utf-8")
    if out.exists():
        out.rmdir()
    os.replace(tmp, out)
    return tasks
